"""The plan of a whfb8 fight of one unit a side without characters or champions, for the
one-unit exact solver (exact_one.py), which these fights keep until the rule text's walk
(fight.py, which plays them) solves them as fast (issue 27)."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from odds.core.binomial import cdf_tables
from odds.core.catalogue import active_rules
from odds.rulesets.whfb8.attack import (IMPACT_I, NO_DICE, NO_MOUNT, STOMP_I, armour_save,
                                        dice_of, p_unsaved, saving, strength, strike_key,
                                        striking, support)
from odds.rulesets.whfb8.fight import (FIGHTING, FIRST, FLANK, FRONT, IMPACT, LATER, MOUNT,
                                       REAR, STOMP, SUPPORTING)
from odds.rulesets.whfb8.rules import (
    NO_SAVE,
    charts,
    equipment,
    fighting_weapon,
    group_rules,
    mounted,
    special_rules,
    troop_types,
)

# the striking parts of a unit (R2-4 ... R2-6), FIGHTING ... STOMP (fight.py's)
PARTS = 5


class Plan(NamedTuple):
    """Arrays indexed by side (0 attacker, 1 defender) and part (FIGHTING ... STOMP)."""

    count: np.ndarray          # (2,) models at the start
    width: np.ndarray          # (2,) files
    wounds: np.ndarray         # (2,) W
    leadership: np.ndarray     # (2,) Ld tested on: the unit's or its general's (R2-12)
    attacks: np.ndarray        # (2,) A of a fighting model, before Frenzy (R2-4)
    first_attacks: np.ndarray  # (2,) its extra A in the first round (Devastating Charge...)
    mount_attacks: np.ndarray  # (2,) A of its mount, 0 if on foot
    impact_hits: np.ndarray    # (2,) fixed Impact Hits per model in contact on the charge
    stomps: np.ndarray         # (2,) fixed Stomps per model in contact, every round
    champion: np.ndarray       # (2,) a champion in the front rank: +1 A, removed last (R2-4)
    frenzy: np.ndarray         # (2,) Frenzied at the start (R2-7)
    support_ranks: np.ndarray  # (2,) supporting ranks without the Horde (R2-5)
    support_attacks: np.ndarray  # (2,) attacks of one supporting model (R2-5)
    horde_files: np.ndarray    # (2,) files that make a Horde, 0 never (R2-5)
    rank_models: np.ndarray    # (2,) models that make a rank (R2-11, R2-12)
    supports: np.ndarray       # (2,) fights to its front, so it may support (R2-5)
    in_contact: np.ndarray     # (2,) models in base contact given by the scenario, 0: default
    face: int                  # FRONT, FLANK or REAR of the charged unit (R2-3)
    steps: np.ndarray          # (K,) strike keys present, highest first (R2-6)
    striker_side: np.ndarray   # (K, 2 * PARTS) parts striking at each key, -1 padded
    striker_part: np.ndarray   # (K, 2 * PARTS)
    p_unsaved: np.ndarray      # (2 rounds, 2 fear, 2 enemy fear, 2 enemy frenzy, 2, PARTS)
    cdf: np.ndarray            # binomial CDF rows (odds.core.binomial)
    cdf_offset: np.ndarray     # p_unsaved's shape
    cdf_top: np.ndarray        # p_unsaved's shape
    bonus: np.ndarray          # (2,) standard, battle standard, flank/rear every round (R2-11)
    musician: np.ndarray       # (2,)
    stubborn: np.ndarray       # (2,)
    unbreakable: np.ndarray    # (2,)
    reroll_break: np.ndarray   # (2,) battle standard: re-roll a failed break test (R2-12)
    reroll_tests: np.ndarray   # (2,) battle standard: re-roll a failed Fear or restraint test
                               # too (R2-7, R2-13)
    disrupted_steadfast: int   # a disrupted unit may still be Steadfast (R2-11, R2-12)
    swiftstride: np.ndarray    # (2,) 3D6 drop the lowest for flee, pursuit and charge (R2-13)
    tests_fear: np.ndarray     # (2,) faces a Fear-causing enemy without causing Fear (R2-7)
    movement: np.ndarray       # (2,) M, for the charge against a fleeing unit (R2-2)
    charger: int
    flee_reaction: bool        # the charged unit flees instead of holding (R2-2)
    charge_distance: float
    pursue: bool               # the winner pursues; False: restrains on a Ld test (R2-13)
    max_rounds: int
    p_slay: np.ndarray         # p_unsaved's shape: P(a Killing Blow slays a model of W > 1)
    rolled: np.ndarray         # (2, PARTS, 3) dice per model in contact: Random Attacks (in
                               # FIGHTING), Impact Hits, Stomps; NO_DICE if none is rolled
    multiplies: np.ndarray     # (2 rounds, 2) the riders have Multiple Wounds
    cold_blooded: np.ndarray   # (2,) Ld tests on 3D6, the highest dropped
    unstable: np.ndarray       # (2,) loses a wound per point it loses a combat by, never flees
    daemonic: np.ndarray       # (2,) Daemonic Instability instead of the break test
    strength_in_numbers: np.ndarray  # (2,) +1 Ld per rank behind the front, at most 10
    own_leadership: np.ndarray  # (2,) the unit's own Ld


def compile_plan(scenario) -> Plan:
    """The plan for one scenario (already checked by :func:`odds.scenario.from_dict`)."""
    to_hit, to_wound = charts()
    table = equipment(scenario)
    sides = [scenario.attacker, scenario.defender]
    groups = [side.models[0] for side in sides]
    e = scenario.engagement
    resurrection = scenario.rules["supporting_attacks"] == "resurrection"
    simultaneous = scenario.rules["same_strike_order"] == "simultaneous"
    all_tests = scenario.rules["battle_standard_rerolls"] == "all"
    charger = 0 if e["charger"] == "attacker" else 1
    face = {"front": FRONT, "flank": FLANK, "rear": REAR}[sides[charger].options["facing"]
                                                          or e["facing"]]

    def ints(f):
        return np.array([f(s, sides[s], groups[s]) for s in range(2)], np.int64)

    known = special_rules(scenario)
    rules = [group_rules(g, known) for g in groups]
    weapon = [fighting_weapon(g, table) for g in groups]
    items = [[table[n] for n in g.equipment] for g in groups]
    troops = troop_types()
    troop = [troops[g.options["troop_type"]] for g in groups]
    on_mount = [mounted(g) for g in groups]
    mount = [g.options["mount"] or NO_MOUNT for g in groups]
    fights_front = [s == charger or face == FRONT for s in range(2)]

    def has(s, key):
        return any(getattr(x, key) for x in rules[s])

    ranks, support_attacks, horde_files = zip(*(
        support(groups[s].profile, weapon[s], rules[s], troop[s], resurrection)
        for s in range(2)))
    stomped = [troop[s].stomped for s in range(2)]
    rolled = np.array([[dice_of(rules[s], "random_attacks"), NO_DICE, NO_DICE,
                        dice_of(rules[s], "impact_hits"),
                        dice_of(rules[s], "stomp") if stomped[1 - s] else NO_DICE]
                       for s in range(2)], np.int64)
    first = [has(s, "strikes_first") for s in range(2)]
    last = [weapon[s].strikes_last or has(s, "strikes_last") for s in range(2)]
    strikes_first = [first[s] and not last[s] for s in range(2)]  # the ability, not cancelled
    keys = np.full((2, PARTS), -1, np.int64)
    for s in range(2):
        keys[s, FIGHTING] = keys[s, SUPPORTING] = strike_key(groups[s].profile["I"], first[s],
                                                             last[s], simultaneous)
        if mount[s]["A"] > 0:
            keys[s, MOUNT] = strike_key(mount[s]["I"], False, False)
        if tuple(rolled[s, IMPACT]) != NO_DICE and s == charger:
            keys[s, IMPACT] = strike_key(IMPACT_I, False, False)
        if tuple(rolled[s, STOMP]) != NO_DICE:
            keys[s, STOMP] = strike_key(STOMP_I, False, False)
    steps = np.array(sorted({int(k) for k in keys.ravel() if k >= 0}, reverse=True), np.int64)
    striker_side = np.full((len(steps), 2 * PARTS), -1, np.int64)
    striker_part = np.full((len(steps), 2 * PARTS), -1, np.int64)
    for k, key in enumerate(steps):
        parts = np.argwhere(keys == key)
        striker_side[k, :len(parts)] = parts[:, 0]
        striker_part[k, :len(parts)] = parts[:, 1]

    p = np.zeros((2, 2, 2, 2, 2, PARTS))
    p_slay = np.zeros_like(p)
    multiple_wounds = np.array([[NO_DICE] * 2] * 2, np.int64)  # [round type, side]
    for s in range(2):
        t = 1 - s
        prof, target = groups[s].profile, groups[t].profile
        reroll_first = (strikes_first[s] and prof["I"] >= target["I"]  # R2-6
                        and not (simultaneous and strikes_first[t]))
        armour = armour_save(target, items[t], on_mount[t])
        parry = (not on_mount[t] and not weapon[t].is_weapon and any(i.parry for i in items[t])
                 and fights_front[t])
        man_sized = troop[t].killing_blow
        one_wound = target["W"] == 1
        for r in (FIRST, LATER):
            charging = r == FIRST and s == charger
            s_rider = strength(prof, weapon[s], r == FIRST, charging, on_mount[s])
            rider = striking(active_rules(rules[s], r == FIRST, charging) + [weapon[s]],
                             "failures" if reroll_first else None)
            if rider.multiple_wounds and not one_wound:
                multiple_wounds[r, s] = rider.multiple_wounds  # R2-8: a W1 takes one wound
            on = saving(active_rules(rules[t], r == FIRST, r == FIRST and t == charger))
            automatic = striking([])
            for part, ws, st, by in ((FIGHTING, prof["WS"], s_rider, rider),
                                     (SUPPORTING, prof["WS"], s_rider, rider),
                                     (MOUNT, mount[s]["WS"], mount[s]["S"], automatic),
                                     (IMPACT, None, prof["S"], automatic),
                                     (STOMP, None, prof["S"], automatic)):
                for afraid in (0, 1):
                    for enemy_afraid in (0, 1):
                        hit = None if ws is None else to_hit[(1 if afraid else ws) - 1][
                            (1 if enemy_afraid else target["WS"]) - 1]
                        wound = to_wound[st - 1][target["T"] - 1]
                        for frenzied in (0, 1):
                            ward = min(target["Ward"] or NO_SAVE,
                                       6 if parry and not frenzied else NO_SAVE)
                            i = (r, afraid, enemy_afraid, frenzied, s, part)
                            p[i], p_slay[i] = p_unsaved(hit, wound, armour, ward, st, by, on,
                                                        man_sized)
                            if one_wound:  # a slain one-wound model is one unsaved wound
                                p[i], p_slay[i] = p[i] + p_slay[i], 0.0

    count = ints(lambda s, side, g: g.count)
    width = ints(lambda s, side, g: side.options["width"])
    fixed = rolled[:, :, 0] == 0  # a whole number, not dice: counted, not rolled
    highest = rolled[:, :, 0] * rolled[:, :, 1] + rolled[:, :, 2]
    base = [highest[s, FIGHTING] if tuple(rolled[s, FIGHTING]) != NO_DICE else 0
            for s in range(2)]  # Random Attacks replace the profile's A; rolled ones add
    attacks = ints(lambda s, side, g: (base[s] if fixed[s, FIGHTING] else 0)
                   + (0 if on_mount[s] else weapon[s].extra_attack))  # R2-10: one weapon
    attacks += ints(lambda s, side, g: 0 if base[s] else g.profile["A"])
    first_attacks = ints(lambda s, side, g: sum(
        x.extra_attacks for x in active_rules(rules[s], True, s == charger))
        - sum(x.extra_attacks for x in active_rules(rules[s], False, False)))
    attacks += ints(lambda s, side, g: sum(x.extra_attacks
                                           for x in active_rules(rules[s], False, False)))
    frenzy = ints(lambda s, side, g: has(s, "frenzy"))
    in_front = np.minimum(count, width)
    most = np.zeros((2, PARTS), np.int64)
    for s in range(2):
        most[s] = [in_front[s] * (attacks[s] + first_attacks[s] + frenzy[s]
                                  + (0 if fixed[s, FIGHTING] else highest[s, FIGHTING])) + 1,
                   in_front[s] * 3 * support_attacks[s], in_front[s] * mount[s]["A"],
                   in_front[s] * highest[s, IMPACT], in_front[s] * highest[s, STOMP]]
    cdf, cdf_offset, cdf_top = cdf_tables(p, np.broadcast_to(most, p.shape))
    causes_fear = [has(s, "causes_fear") for s in range(2)]
    multiplies = multiple_wounds[:, :, 0] + multiple_wounds[:, :, 2] > 0  # [round type, side]
    return Plan(
        count=count, width=width,
        wounds=ints(lambda s, side, g: g.profile["W"]),
        leadership=ints(lambda s, side, g: max(g.profile["Ld"], side.options["general_Ld"] or 0)),
        attacks=attacks,
        first_attacks=first_attacks,
        mount_attacks=ints(lambda s, side, g: mount[s]["A"]),
        impact_hits=ints(lambda s, side, g: highest[s, IMPACT] * fixed[s, IMPACT]),
        stomps=ints(lambda s, side, g: highest[s, STOMP] * fixed[s, STOMP]),
        champion=ints(lambda s, side, g: side.options["champion"]),
        frenzy=frenzy,
        support_ranks=np.array(ranks, np.int64),
        support_attacks=np.array(support_attacks, np.int64),
        horde_files=np.array(horde_files, np.int64),
        rank_models=ints(lambda s, side, g: troop[s].rank_models),
        supports=ints(lambda s, side, g: fights_front[s]),
        in_contact=ints(lambda s, side, g: side.options["in_contact"] or 0),
        face=face, steps=steps, striker_side=striker_side, striker_part=striker_part,
        p_unsaved=p, cdf=cdf, cdf_offset=cdf_offset, cdf_top=cdf_top,
        bonus=ints(lambda s, side, g: side.options["standard"] + side.options["battle_standard"]
                   + (s == charger) * face),
        musician=ints(lambda s, side, g: side.options["musician"]),
        stubborn=ints(lambda s, side, g: has(s, "stubborn")),
        unbreakable=ints(lambda s, side, g: has(s, "unbreakable")),
        reroll_break=ints(lambda s, side, g: side.options["battle_standard"]),
        reroll_tests=ints(lambda s, side, g: side.options["battle_standard"] and all_tests),
        disrupted_steadfast=int(scenario.rules["disrupted_steadfast"]),
        swiftstride=ints(lambda s, side, g: has(s, "swiftstride")),
        tests_fear=ints(lambda s, side, g: causes_fear[1 - s] and not causes_fear[s]
                        and not has(s, "unbreakable") and not has(s, "immune_to_psychology")),
        movement=ints(lambda s, side, g: g.profile["M"]),
        charger=charger,
        flee_reaction=e["reaction"] == "flee",
        charge_distance=float(e["charge_distance"] or 0.0),
        pursue=bool(e["pursue"]),
        max_rounds=int(scenario.simulation["max_rounds"]),
        p_slay=p_slay,
        rolled=np.where(fixed[:, :, None], np.array(NO_DICE), rolled),
        multiplies=multiplies.astype(np.int64),
        cold_blooded=ints(lambda s, side, g: has(s, "cold_blooded")),
        unstable=ints(lambda s, side, g: has(s, "unstable")),
        daemonic=ints(lambda s, side, g: has(s, "daemonic_instability")),
        strength_in_numbers=ints(lambda s, side, g: has(s, "strength_in_numbers")),
        own_leadership=ints(lambda s, side, g: g.profile["Ld"]),
    )
