"""Turn a checked whfb8 scenario of several units or heroes (characters and champions) into
the flat numeric plan kernel_units reads (README.md here, "Characters, champions and several
units").

Each side is padded to U units and H heroes. Its **bodies** are what attacks aim at: body u
(< U) is unit u's rank-and-file, body U + h its hero h. Its **strikers** are the parts that
strike at one Initiative step: a unit's models in contact, supporters, mounts, Impact Hits
and Stomps, and each hero and its mount.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from odds.core.binomial import cdf_tables
from odds.core.catalogue import active_rules
from odds.rulesets.whfb8 import units as un
from odds.rulesets.whfb8.attack import p_unsaved, saving, striking
from odds.rulesets.whfb8.compile import (
    FIRST,
    FLANK,
    FRONT,
    IMPACT_I,
    LATER,
    NO_DICE,
    NO_MOUNT,
    REAR,
    STOMP_I,
    armour_save,
    dice_of,
    strength,
    strike_key,
    support,
)
from odds.rulesets.whfb8.rules import (
    HAND_WEAPON,
    NO_SAVE,
    charts,
    equipment,
    fighting_weapon,
    special_rules,
    troop_types,
)

# striker kinds: a unit's parts, then a hero's
FIGHTING, SUPPORTING, MOUNT, IMPACT, STOMP, HERO, HERO_MOUNT = range(7)
FACES = {"front": FRONT, "flank": FLANK, "rear": REAR}
CHALLENGES = {"never": 0, "always": 1, "champion_only": 2}
ACCEPTS = {"always": 0, "never": 1, "champion_first": 2}
AIMS = {"never": 0, "always": 1, "if_can_wound": 2}


UNIT_FIELDS = (  # plan.unit[field, side, unit]
    "width", "unit_size",
    "ld",                   # the rank-and-file's Ld
    "lent_ld",              # the unit key general_Ld (a general outside the fight), 0 none
    "rank_models",          # models that make a rank (R2-11)
    "horde_files",          # 0: never a Horde (R2-5)
    "support_ranks",        # supporting ranks without the Horde
    "support_attacks",      # supporting attacks a supporting model makes
    "attacks",              # A of a rank-and-file model in contact, before Frenzy (R2-4)
    "first_attacks",        # its extra A in the first round
    "mount_attacks",
    "impact_hits",          # fixed Impact Hits per model in contact, on the charge
    "stomps",               # fixed Stomps per model in contact, every round
    "champion_bonus",       # the unit key `champion`: +1 A in contact
    "frenzy", "standard", "musician", "stubborn", "unbreakable", "swiftstride",
    "cold_blooded", "strength_in_numbers", "causes_fear",
    "fear_immune",          # never tests for Fear: causes it, Unbreakable, Immune to Psychology
    "aims",                 # attack_character: AIMS
    "hero_first",           # its first hero's index (the heroes of a unit are consecutive)
    "hero_count",
    "bsb_key",              # the unit key battle_standard: while the unit fights
)
BODY_FIELDS = (  # plan.body[field, side, body]
    "count",                # models at the start (a hero: 1; a unit of heroes alone: 0)
    "wounds", "body_unit",
    "champion",             # a champion: takes the unit's wounds after its last model
    "hero_ld",
    "hero_attacks",         # a hero's A, to pick whom a refused challenge benches
)
STRIKER_FIELDS = (  # plan.striker[field, striker]
    "side", "unit",
    "hero",                 # -1: a unit's part
    "kind",
    "fixed",                # a hero striker's counted attacks (its mount's: the mount's A)
    "first",                # its extra attacks in the first round
)
SIDE_FIELDS = (  # plan.side[field, side]
    "units", "heroes",
    "general",              # the general's hero index, -1 none
    "bearer",               # the battle standard bearer's hero index, -1 none
    "challenge",            # CHALLENGES policy
    "accept",               # ACCEPTS policy
)
ENGAGEMENT_FIELDS = ("charging", "charged", "face")  # plan.engagement[field, e]


class UnitsPlan(NamedTuple):
    """Arrays by side (0 attacker, 1 defender); U units, H heroes, B = U + H bodies a side,
    E engagements, J strikers, K strike steps. Fields of one shape share one array (the
    *_FIELDS above): numba passes a plan to a function field by field."""

    unit: np.ndarray           # (len(UNIT_FIELDS), 2, U)
    body: np.ndarray           # (len(BODY_FIELDS), 2, B)
    striker: np.ndarray        # (len(STRIKER_FIELDS), J)
    side: np.ndarray           # (len(SIDE_FIELDS), 2)
    engagement: np.ndarray     # (3, E): the charging unit, the charged unit, the face it hit
    steps: np.ndarray          # (K, J) strikers at each strike step, highest key first, -1 padded
    rolled: np.ndarray         # (J, 3) dice per model (a unit's part: Random Attacks in
                               # FIGHTING, Impact Hits, Stomps) or a hero's Random Attacks
    can_wound: np.ndarray      # (2 rounds, J, B) its attacks can wound the enemy body at all
    # chances (2 rounds, 2 afraid, 2 enemy afraid, 2 enemy frenzied, 2 front, J, B)
    p_unsaved: np.ndarray
    p_slay: np.ndarray
    cdf: np.ndarray
    cdf_offset: np.ndarray
    cdf_top: np.ndarray
    multiple_wounds: np.ndarray  # (2 rounds, J, 3)
    multiplies: np.ndarray     # (2 rounds, J)
    charger: int
    refusal_penalty: bool      # [rules] refusal = "8e"
    reroll_all: bool           # [rules] battle_standard_rerolls = "all": Fear, restraint too
    disrupted_steadfast: bool  # [rules] disrupted_steadfast: a disrupted unit stays Steadfast
    pursue: bool
    max_rounds: int
    unit_columns: bool         # the record has each unit's fate, lost, wounds


def _index(fields: tuple[str, ...]) -> dict[str, int]:
    return {name: i for i, name in enumerate(fields)}


def compile_units(scenario) -> UnitsPlan:
    """The plan for one scenario of several units or heroes (checked by from_dict)."""
    to_hit, to_wound = charts()
    table = equipment(scenario)
    troops = troop_types()
    resurrection = scenario.rules["supporting_attacks"] == "resurrection"
    charger = 0 if scenario.engagement["charger"] == "attacker" else 1
    keys = ("attacker", "defender")
    sides = [scenario.side(k).every_unit for k in keys]
    rules_of = _rules_of(scenario)
    U = max(len(x) for x in sides)
    H = max(1, max(sum(len(un.heroes(u)) for u in x) for x in sides))
    B = U + H
    unit = {name: np.zeros((2, U), np.int64) for name in UNIT_FIELDS}
    body = {name: np.zeros((2, B), np.int64) for name in BODY_FIELDS}
    body["wounds"][:] = 1
    side = {name: np.full(2, -1, np.int64) for name in SIDE_FIELDS}
    bodies = [[None] * B for _ in range(2)]  # (group, unit) of each body, None: padding
    for s in range(2):
        side["units"][s] = len(sides[s])
        side["heroes"][s] = sum(len(un.heroes(u)) for u in sides[s])
        side["challenge"][s] = CHALLENGES[un.policy(scenario, keys[s], "challenge")]
        side["accept"][s] = ACCEPTS[un.policy(scenario, keys[s], "accept")]
        h = 0
        for u, each in enumerate(sides[s]):
            plain = un.rank_and_file(each)
            heroes = un.heroes(each)
            _unit_row(unit, s, u, each, plain, heroes, rules_of, table, troops, resurrection,
                      charger == s, h)
            if plain:
                bodies[s][u] = (plain, each)
                body["count"][s, u], body["wounds"][s, u] = plain.count, plain.profile["W"]
            body["body_unit"][s, u] = u
            for group in heroes:
                b = U + h
                bodies[s][b] = (group, each)
                body["count"][s, b], body["wounds"][s, b] = 1, group.profile["W"]
                body["body_unit"][s, b] = u
                body["champion"][s, b] = group.options["champion"]
                body["hero_ld"][s, b] = group.profile["Ld"]
                body["hero_attacks"][s, b] = group.profile["A"]
                if group.options["general"]:
                    side["general"][s] = h
                if group.options["battle_standard"]:
                    side["bearer"][s] = h
                h += 1
    pairs = un.engagements(scenario)
    engagement = np.array([[p[0] for p in pairs], [p[1] for p in pairs],
                           [FACES[p[2]] for p in pairs]], np.int64)
    strikers = _strikers(scenario, rules_of, sides, bodies, table, U, charger)
    J = len(strikers)
    p = np.zeros((2, 2, 2, 2, 2, J, B))
    p_slay = np.zeros_like(p)
    can_wound = np.zeros((2, J, B), np.int64)
    multiple_wounds = np.zeros((2, J, 3), np.int64)
    multiple_wounds[:] = NO_DICE
    for j, x in enumerate(strikers):
        for b in range(B):
            if bodies[1 - x["side"]][b] is not None:
                _chances(p, p_slay, can_wound, multiple_wounds, j, b, x, *bodies[1 - x["side"]][b],
                         scenario, rules_of, table, troops, to_hit, to_wound, charger)
    for j, x in enumerate(strikers):  # R2-4: mounts and supporters aim with their riders
        if x["kind"] in (SUPPORTING, MOUNT, HERO_MOUNT):
            rider = next(i for i, y in enumerate(strikers) if y["side"] == x["side"]
                         and y["unit"] == x["unit"] and y["hero"] == x["hero"]
                         and y["kind"] in (FIGHTING, HERO))
            can_wound[:, j] = can_wound[:, rider]
    most = np.array([x["most"] for x in strikers], np.int64)
    cdf, cdf_offset, cdf_top = cdf_tables(p, np.broadcast_to(most[:, None], p.shape))
    multiplies = (multiple_wounds[:, :, 0] + multiple_wounds[:, :, 2] > 0).astype(np.int64)
    return UnitsPlan(
        unit=np.stack([unit[k] for k in UNIT_FIELDS]),
        body=np.stack([body[k] for k in BODY_FIELDS]),
        striker=np.array([[x[k] for x in strikers] for k in STRIKER_FIELDS], np.int64),
        side=np.stack([side[k] for k in SIDE_FIELDS]),
        engagement=engagement,
        steps=_steps(strikers),
        rolled=np.array([x["rolled"] for x in strikers], np.int64),
        can_wound=can_wound,
        p_unsaved=p, p_slay=p_slay, cdf=cdf, cdf_offset=cdf_offset, cdf_top=cdf_top,
        multiple_wounds=multiple_wounds, multiplies=multiplies,
        charger=charger,
        refusal_penalty=scenario.rules["refusal"] == "8e",
        reroll_all=scenario.rules["battle_standard_rerolls"] == "all",
        disrupted_steadfast=scenario.rules["disrupted_steadfast"],
        pursue=bool(scenario.engagement["pursue"]),
        max_rounds=int(scenario.simulation["max_rounds"]),
        unit_columns=any(scenario.side(k).units for k in keys),
    )


def _unit_row(unit, s, u, each, plain, heroes, rules_of, table, troops, resurrection,
              charging, first_hero) -> None:
    """Unit u of side s: its formation, command, psychology and rank-and-file attacks."""
    troop = troops[(plain or heroes[0]).options["troop_type"]]
    rules = rules_of(plain) if plain else []
    row = {
        "width": each.options["width"],
        "unit_size": (plain.count if plain else 0) + len(heroes),
        "ld": plain.profile["Ld"] if plain else 0,
        "lent_ld": each.options["general_Ld"] or 0,
        "rank_models": troop.rank_models,
        "standard": each.options["standard"],
        "musician": each.options["musician"],
        "champion_bonus": each.options["champion"],
        "bsb_key": each.options["battle_standard"],
        "aims": AIMS[each.options["attack_character"]],
        "hero_first": first_hero,
        "hero_count": len(heroes),
        "fear_immune": any(r.causes_fear or r.unbreakable or r.immune_to_psychology
                           for r in rules),
    }
    for key in ("frenzy", "stubborn", "unbreakable", "swiftstride", "cold_blooded",
                "strength_in_numbers", "causes_fear"):
        row[key] = any(getattr(r, key) for r in rules)
    if plain:
        row.update(_unit_attacks(plain, rules, table, troop, resurrection, charging))
    for key, value in row.items():
        unit[key][s, u] = value


def _rules_of(scenario):
    """A group's special rules, from the scenario's table read once."""
    table = special_rules(scenario)
    return lambda group: [table[name] for name in group.options["rules"]]


def _unit_attacks(plain, rules, table, troop, resurrection, charging) -> dict:
    """A unit's rank-and-file attacks (R2-4, R2-5): counted A, first-round A, supporting
    ranks and attacks, mounts, fixed Impact Hits and Stomps."""
    weapon = fighting_weapon(plain, table)
    random = dice_of(rules, "random_attacks")
    base = plain.profile["A"] if random == NO_DICE else (random[2] if random[0] == 0 else 0)
    later = sum(x.extra_attacks for x in active_rules(rules, False, False))
    ranks, attacks, horde = support(plain.profile, weapon, rules, troop, resurrection)
    row = {
        "attacks": base + (0 if troop.mounted else weapon.extra_attack) + later,
        "first_attacks": sum(x.extra_attacks for x in active_rules(rules, True, charging))
        - later,
        "mount_attacks": (plain.options["mount"] or NO_MOUNT)["A"],
        "support_ranks": ranks,
        "support_attacks": attacks,
        "horde_files": horde,
    }
    for key, name in (("impact_hits", "impact_hits"), ("stomps", "stomp")):
        spec = dice_of(rules, name)
        row[key] = spec[2] if spec != NO_DICE and spec[0] == 0 else 0
    return row


def _strikers(scenario, rules_of, sides, bodies, table, U, charger) -> list[dict]:
    """Every part that strikes, with its strike key (R2-6), its dice, and the most attacks
    it can make in one step (for the binomial tables)."""
    troops = troop_types()
    simultaneous = scenario.rules["same_strike_order"] == "simultaneous"
    out = []
    for s in range(2):
        for u, unit in enumerate(sides[s]):
            plain = un.rank_and_file(unit)
            size = (plain.count if plain else 0) + len(un.heroes(unit))
            front = min(unit.options["width"], size)
            if plain:
                rules = rules_of(plain)
                weapon = fighting_weapon(plain, table)
                first = any(r.strikes_first for r in rules)
                last = weapon.strikes_last or any(r.strikes_last for r in rules)
                mount = plain.options["mount"] or NO_MOUNT
                key = strike_key(plain.profile["I"], first, last, simultaneous)
                random = dice_of(rules, "random_attacks")
                impact = dice_of(rules, "impact_hits")
                stomp = dice_of(rules, "stomp")
                stomped = [troops[g.options["troop_type"]].stomped
                           for g, _ in filter(None, bodies[1 - s])]
                top = plain.profile["A"] + 5 + 1 + random[0] * random[1] + random[2]
                parts = [(FIGHTING, key, random if random[0] else NO_DICE, front * top),
                         (SUPPORTING, key, NO_DICE, front * 3 * 3)]
                if mount["A"] > 0:
                    parts.append((MOUNT, strike_key(mount["I"], False, False), NO_DICE,
                                  front * mount["A"]))
                if impact != NO_DICE and s == charger:
                    parts.append((IMPACT, strike_key(IMPACT_I, False, False),
                                  impact if impact[0] else NO_DICE,
                                  front * (impact[0] * impact[1] + impact[2])))
                if stomp != NO_DICE and any(stomped):
                    parts.append((STOMP, strike_key(STOMP_I, False, False),
                                  stomp if stomp[0] else NO_DICE,
                                  front * (stomp[0] * stomp[1] + stomp[2])))
                for kind, k, dice, most in parts:
                    out.append(dict(side=s, unit=u, hero=-1, kind=kind, key=k, group=plain,
                                    rolled=dice, fixed=0, first=0, most=most + 1, rules=rules,
                                    weapon=weapon))
        for b in range(U, len(bodies[s])):
            if bodies[s][b] is None:
                continue
            group, each = bodies[s][b]
            u = next(i for i, x in enumerate(sides[s]) if x is each)
            rules = rules_of(group)
            weapon = fighting_weapon(group, table)
            mounted = troops[group.options["troop_type"]].mounted
            first = any(r.strikes_first for r in rules)
            last = weapon.strikes_last or any(r.strikes_last for r in rules)
            random = dice_of(rules, "random_attacks")
            fixed = (random[2] if random[0] == 0 else 0) if random != NO_DICE \
                else group.profile["A"]
            fixed += (0 if mounted else weapon.extra_attack) + sum(
                x.extra_attacks for x in active_rules(rules, False, False))
            first_extra = sum(x.extra_attacks for x in active_rules(rules, True, s == charger)) \
                - sum(x.extra_attacks for x in active_rules(rules, False, False))
            most = fixed + max(0, first_extra) + random[0] * random[1] + random[2] + 1
            out.append(dict(side=s, unit=u, hero=b - U, kind=HERO,
                            key=strike_key(group.profile["I"], first, last, simultaneous),
                            group=group,
                            rolled=random if random[0] else NO_DICE, fixed=fixed,
                            first=first_extra, most=most, rules=rules, weapon=weapon))
            mount = group.options["mount"] or NO_MOUNT
            if mount["A"] > 0:
                out.append(dict(side=s, unit=u, hero=b - U, kind=HERO_MOUNT,
                                key=strike_key(mount["I"], False, False), group=group,
                                rolled=NO_DICE, fixed=mount["A"], first=0,
                                most=mount["A"] + 1, rules=[], weapon=HAND_WEAPON))
    return out


def _steps(strikers) -> np.ndarray:
    """(K, J): the strikers at each strike key, highest first, -1 padded (R2-6)."""
    keys = sorted({x["key"] for x in strikers}, reverse=True)
    steps = np.full((len(keys), len(strikers)), -1, np.int64)
    for k, key in enumerate(keys):
        at = [j for j, x in enumerate(strikers) if x["key"] == key]
        steps[k, :len(at)] = at
    return steps


def _chances(p, p_slay, can_wound, multiple_wounds, j, b, st, target, target_unit, scenario,
             rules_of, table, troops, to_hit, to_wound, charger) -> None:
    """P(an attack of striker ``j`` causes an unsaved wound on body ``b``), per round type,
    Fear of either unit, the target's Frenzy and whether it is attacked in its front."""
    s = st["side"]
    t = 1 - s
    group, kind = st["group"], st["kind"]
    prof, tp = group.profile, target.profile
    items = [table[n] for n in target.equipment]
    t_troop = troops[target.options["troop_type"]]
    t_rules = rules_of(target)
    t_weapon = fighting_weapon(target, table)
    armour = armour_save(tp, items, t_troop.mounted)
    may_parry = (not t_troop.mounted and not t_weapon.is_weapon and any(i.parry for i in items))
    on_mount = troops[group.options["troop_type"]].mounted
    mount = group.options["mount"] or NO_MOUNT
    rider = kind in (FIGHTING, SUPPORTING, HERO)
    rules, weapon = st["rules"], st["weapon"]
    first = any(r.strikes_first for r in rules)
    last = weapon.strikes_last or any(r.strikes_last for r in rules)
    target_first = any(r.strikes_first for r in t_rules) and not (
        t_weapon.strikes_last or any(r.strikes_last for r in t_rules))
    simultaneous = scenario.rules["same_strike_order"] == "simultaneous"
    man_sized = t_troop.killing_blow
    one_wound = tp["W"] == 1
    for r in (FIRST, LATER):
        charging = r == FIRST and s == charger
        if rider:
            hit_strength = strength(prof, weapon, r == FIRST, charging, on_mount)
            reroll_first = first and not last and prof["I"] >= tp["I"] and not (
                simultaneous and target_first)
            by = striking(active_rules(rules, r == FIRST, charging) + [weapon],
                          "failures" if reroll_first else None)
            ws = prof["WS"]
        elif kind in (MOUNT, HERO_MOUNT):
            hit_strength, by, ws = mount["S"], striking([]), mount["WS"]
        else:  # Impact Hits, Stomps: automatic hits at the model's S
            hit_strength, by, ws = prof["S"], striking([]), None
        if by.multiple_wounds and not one_wound:
            multiple_wounds[r, j] = by.multiple_wounds
        wound = to_wound[hit_strength - 1][tp["T"] - 1]
        can_wound[r, j, b] = int(wound < NO_SAVE or by.poisoned or by.wounds_on is not None)
        on = saving(active_rules(t_rules, r == FIRST, r == FIRST and t == charger))
        for afraid in (0, 1):
            for enemy_afraid in (0, 1):
                hit = None if ws is None else to_hit[(1 if afraid else ws) - 1][
                    (1 if enemy_afraid else tp["WS"]) - 1]
                for frenzied in (0, 1):
                    for front in (0, 1):
                        parry = may_parry and front and not frenzied
                        ward = min(tp["Ward"] or NO_SAVE, 6 if parry else NO_SAVE)
                        i = (r, afraid, enemy_afraid, frenzied, front, j, b)
                        p[i], p_slay[i] = p_unsaved(hit, wound, armour, ward, hit_strength, by, on,
                                                    man_sized)
                        if one_wound:
                            p[i], p_slay[i] = p[i] + p_slay[i], 0.0
                        if kind == STOMP and not t_troop.stomped:
                            p[i], p_slay[i] = 0.0, 0.0
