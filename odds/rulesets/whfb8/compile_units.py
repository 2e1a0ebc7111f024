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
    REAR,
    STOMP_I,
    strike_key,
)
from odds.rulesets.whfb8.rules import (
    HAND_WEAPON,
    NO_SAVE,
    charts,
    equipment,
    fighting_weapon,
    group_rules,
    troop_types,
)

# striker kinds: a unit's parts, then a hero's
FIGHTING, SUPPORTING, MOUNT, IMPACT, STOMP, HERO, HERO_MOUNT = range(7)
FACES = {"front": FRONT, "flank": FLANK, "rear": REAR}
CHALLENGES = {"never": 0, "always": 1, "champion_only": 2}
ACCEPTS = {"always": 0, "never": 1, "champion_first": 2}
AIMS = {"never": 0, "always": 1, "if_can_wound": 2}
NO_MOUNT = {"WS": 1, "S": 1, "I": 1, "A": 0}


class UnitsPlan(NamedTuple):
    """Arrays by side (0 attacker, 1 defender); U units, H heroes, B = U + H bodies a side,
    E engagements, J strikers, K strike steps."""

    units: np.ndarray          # (2,) units of each side
    heroes: np.ndarray         # (2,) heroes of each side
    # bodies (2, B)
    count: np.ndarray          # models at the start (a hero: 1; a unit of heroes alone: 0)
    wounds: np.ndarray         # W
    body_unit: np.ndarray      # the unit it belongs to
    champion: np.ndarray       # a champion: takes the unit's wounds after its last model
    character: np.ndarray      # a character
    hero_ld: np.ndarray        # a hero's Ld
    hero_attacks: np.ndarray   # a hero's A, to pick whom a refused challenge benches
    # units (2, U)
    width: np.ndarray
    unit_size: np.ndarray      # models at the start, heroes included
    ld: np.ndarray             # the rank-and-file's Ld (0 without), or the side's general_Ld
    rank_models: np.ndarray    # models that make a rank (R2-11)
    horde_files: np.ndarray    # 0: never a Horde
    support_ranks: np.ndarray  # supporting ranks without the Horde (R2-5)
    support_attacks: np.ndarray  # supporting attacks a supporting model makes
    attacks: np.ndarray        # A of a rank-and-file model in contact, before Frenzy
    first_attacks: np.ndarray  # its extra A in the first round
    mount_attacks: np.ndarray
    impact_hits: np.ndarray    # fixed Impact Hits per model in contact, on the charge
    stomps: np.ndarray         # fixed Stomps per model in contact, every round
    champion_bonus: np.ndarray  # the unit key `champion`: +1 A in contact
    frenzy: np.ndarray
    standard: np.ndarray
    musician: np.ndarray
    stubborn: np.ndarray
    unbreakable: np.ndarray
    swiftstride: np.ndarray
    cold_blooded: np.ndarray
    strength_in_numbers: np.ndarray
    tests_fear: np.ndarray     # faces a Fear-causing enemy unit without causing Fear
    aims: np.ndarray           # attack_character: AIMS
    hero_first: np.ndarray     # its first hero's index (heroes of a unit are consecutive)
    hero_count: np.ndarray
    # engagements (E,): the charging unit, the charged unit, the face it hit
    charging_unit: np.ndarray
    charged_unit: np.ndarray
    face: np.ndarray
    # strikers (J,)
    striker_side: np.ndarray
    striker_unit: np.ndarray
    striker_hero: np.ndarray   # -1: a unit's part
    striker_kind: np.ndarray
    steps: np.ndarray          # (K, J) strikers at each strike step, highest key first, -1 padded
    hero_rolled: np.ndarray    # (J, 3) a hero's Random Attacks dice, NO_DICE if none
    unit_rolled: np.ndarray    # (J, 3) a unit part's dice per model in contact (Random
                               # Attacks in FIGHTING, Impact Hits, Stomps), NO_DICE if none
    hero_attacks_fixed: np.ndarray  # (J,) a hero striker's counted attacks (mount: its A)
    hero_first_attacks: np.ndarray  # (J,) its extra attacks in the first round
    can_wound: np.ndarray      # (J, B) the striker's attacks can wound the enemy body at all
    # chances (2 rounds, 2 afraid, 2 enemy afraid, 2 enemy frenzied, 2 front, J, B)
    p_unsaved: np.ndarray
    p_slay: np.ndarray
    cdf: np.ndarray
    cdf_offset: np.ndarray
    cdf_top: np.ndarray
    multiple_wounds: np.ndarray  # (2 rounds, J, 3)
    multiplies: np.ndarray     # (2 rounds, J)
    # the side
    charger: int
    general: np.ndarray        # (2,) the general's hero index, -1 none
    bearer: np.ndarray         # (2,) the battle standard bearer's hero index, -1 none
    battle_standard: np.ndarray  # (2,) the side key: a battle standard that never falls
    challenge: np.ndarray      # (2,) CHALLENGES policy
    accept: np.ndarray         # (2,) ACCEPTS policy
    refusal_penalty: bool      # [rules] refusal = "8e"
    pursue: bool
    max_rounds: int
    unit_columns: bool         # the record has each unit's fate, lost, wounds


def compile_units(scenario) -> UnitsPlan:
    """The plan for one scenario of several units or heroes (checked by from_dict)."""
    to_hit, to_wound = charts()
    table = equipment(scenario)
    troops = troop_types()
    resurrection = scenario.rules["supporting_attacks"] == "resurrection"
    charger = 0 if scenario.engagement["charger"] == "attacker" else 1
    keys = ("attacker", "defender")
    sides = [scenario.side(k).every_unit for k in keys]
    U = max(len(x) for x in sides)
    H = max(1, max(sum(len(un.heroes(u)) for u in x) for x in sides))
    B = U + H

    def z(*shape, value=0):
        return np.full(shape, value, np.int64)

    count, wounds, body_unit = z(2, B), z(2, B, value=1), z(2, B)
    champion, character, hero_ld, hero_attacks = z(2, B), z(2, B), z(2, B), z(2, B)
    unit_arrays = {name: z(2, U) for name in (
        "width", "unit_size", "ld", "rank_models", "horde_files", "support_ranks",
        "support_attacks", "attacks", "first_attacks", "mount_attacks", "impact_hits",
        "stomps", "champion_bonus", "frenzy", "standard", "musician", "stubborn",
        "unbreakable", "swiftstride", "cold_blooded", "strength_in_numbers", "tests_fear",
        "aims", "hero_first", "hero_count")}
    ua = unit_arrays
    general, bearer, battle_standard = z(2, value=-1), z(2, value=-1), z(2)
    # what each body is, for the chances: (group, unit side options, is_rank_and_file)
    bodies = [[None] * B for _ in range(2)]
    causes_fear = z(2, U)
    for s in range(2):
        h = 0
        battle_standard[s] = any(u.options["battle_standard"] for u in sides[s])
        for u, unit in enumerate(sides[s]):
            plain = un.rank_and_file(unit)
            heroes = un.heroes(unit)
            lead = plain or heroes[0]
            troop = troops[lead.options["troop_type"]]
            rules = group_rules(plain, scenario) if plain else []
            ua["width"][s, u] = unit.options["width"]
            ua["unit_size"][s, u] = (plain.count if plain else 0) + len(heroes)
            ua["ld"][s, u] = max(plain.profile["Ld"] if plain else 0,
                                 unit.options["general_Ld"] or 0)
            ua["rank_models"][s, u] = getattr(troop, "rank_models", 5)
            horde = troop.horde_files
            ua["horde_files"][s, u] = (10 if horde else 0) if resurrection else horde
            ua["standard"][s, u] = unit.options["standard"]
            ua["musician"][s, u] = unit.options["musician"]
            ua["champion_bonus"][s, u] = unit.options["champion"]
            ua["aims"][s, u] = AIMS[unit.options["attack_character"]]
            ua["hero_first"][s, u], ua["hero_count"][s, u] = h, len(heroes)
            for key, name in (("frenzy", "frenzy"), ("stubborn", "stubborn"),
                              ("unbreakable", "unbreakable"), ("swiftstride", "swiftstride"),
                              ("cold_blooded", "cold_blooded"),
                              ("strength_in_numbers", "strength_in_numbers")):
                ua[key][s, u] = any(getattr(r, name) for r in rules)
            causes_fear[s, u] = any(r.causes_fear for r in rules)
            if plain:
                _unit_attacks(ua, s, u, plain, rules, table, troop, resurrection,
                              charger == s)
            bodies[s][u] = (plain, unit, True) if plain else None
            count[s, u] = plain.count if plain else 0
            wounds[s, u] = plain.profile["W"] if plain else 1
            body_unit[s, u] = u
            for group in heroes:
                b = U + h
                bodies[s][b] = (group, unit, False)
                count[s, b], wounds[s, b], body_unit[s, b] = 1, group.profile["W"], u
                champion[s, b] = group.options["champion"]
                character[s, b] = group.options["character"]
                hero_ld[s, b] = group.profile["Ld"]
                hero_attacks[s, b] = group.profile["A"]
                if group.options["general"]:
                    general[s] = h
                if group.options["battle_standard"]:
                    bearer[s] = h
                h += 1

    pairs = un.engagements(scenario)
    E = len(pairs)
    charging_unit = np.array([p[0] for p in pairs], np.int64)
    charged_unit = np.array([p[1] for p in pairs], np.int64)
    face = np.array([FACES[p[2]] for p in pairs], np.int64)
    for e in range(E):  # R2-7: Fear of an engaged enemy unit
        for s, u, v in ((charger, charging_unit[e], charged_unit[e]),
                        (1 - charger, charged_unit[e], charging_unit[e])):
            if causes_fear[1 - s, v] and not causes_fear[s, u]:
                unit = sides[s][u]
                plain = un.rank_and_file(unit)
                rules = group_rules(plain, scenario) if plain else []
                if not any(r.unbreakable or r.immune_to_psychology for r in rules):
                    ua["tests_fear"][s, u] = 1

    strikers = _strikers(scenario, sides, bodies, table, U, charger)
    J = len(strikers)
    steps = _steps(strikers)
    p = np.zeros((2, 2, 2, 2, 2, J, B))
    p_slay = np.zeros_like(p)
    can_wound = z(J, B)
    multiple_wounds = np.zeros((2, J, 3), np.int64)
    multiple_wounds[:] = NO_DICE
    for j, st in enumerate(strikers):
        s = st["side"]
        t = 1 - s
        for b in range(B):
            if bodies[t][b] is None:
                continue
            target, target_unit, _ = bodies[t][b]
            _chances(p, p_slay, can_wound, multiple_wounds, j, b, st, target, target_unit,
                     scenario, table, troops, to_hit, to_wound, charger, t)
    most = np.array([st["most"] for st in strikers], np.int64)
    cdf, cdf_offset, cdf_top = cdf_tables(p, np.broadcast_to(most[:, None], p.shape))
    multiplies = (multiple_wounds[:, :, 0] + multiple_wounds[:, :, 2] > 0).astype(np.int64)
    refusal = scenario.rules["refusal"] == "8e"
    return UnitsPlan(
        units=np.array([len(x) for x in sides], np.int64),
        heroes=np.array([sum(len(un.heroes(u)) for u in x) for x in sides], np.int64),
        count=count, wounds=wounds, body_unit=body_unit, champion=champion,
        character=character, hero_ld=hero_ld, hero_attacks=hero_attacks,
        **unit_arrays,
        charging_unit=charging_unit, charged_unit=charged_unit, face=face,
        striker_side=np.array([x["side"] for x in strikers], np.int64),
        striker_unit=np.array([x["unit"] for x in strikers], np.int64),
        striker_hero=np.array([x["hero"] for x in strikers], np.int64),
        striker_kind=np.array([x["kind"] for x in strikers], np.int64),
        steps=steps,
        hero_rolled=np.array([x["hero_rolled"] for x in strikers], np.int64),
        unit_rolled=np.array([x["unit_rolled"] for x in strikers], np.int64),
        hero_attacks_fixed=np.array([x["fixed"] for x in strikers], np.int64),
        hero_first_attacks=np.array([x["first"] for x in strikers], np.int64),
        can_wound=can_wound,
        p_unsaved=p, p_slay=p_slay, cdf=cdf, cdf_offset=cdf_offset, cdf_top=cdf_top,
        multiple_wounds=multiple_wounds, multiplies=multiplies,
        charger=charger, general=general, bearer=bearer, battle_standard=battle_standard,
        challenge=np.array([CHALLENGES[un.policy(scenario, k, "challenge")] for k in keys],
                           np.int64),
        accept=np.array([ACCEPTS[un.policy(scenario, k, "accept")] for k in keys], np.int64),
        refusal_penalty=refusal,
        pursue=bool(scenario.engagement["pursue"]),
        max_rounds=int(scenario.simulation["max_rounds"]),
        unit_columns=any(scenario.side(k).units for k in keys),
    )


def _dice_of(rules, key):
    """The first of ``rules`` that gives dice for ``key``, NO_DICE if none."""
    return tuple(next((getattr(x, key) for x in rules if getattr(x, key)), NO_DICE))


def _unit_attacks(ua, s, u, plain, rules, table, troop, resurrection, charging) -> None:
    """A unit's rank-and-file attacks (R2-4, R2-5): counted A, first-round A, supporting
    ranks and attacks, mounts, fixed Impact Hits and Stomps."""
    weapon = fighting_weapon(plain, table)
    mount = plain.options["mount"] or NO_MOUNT
    random = _dice_of(rules, "random_attacks")
    base = 0 if random != NO_DICE else plain.profile["A"]
    if random != NO_DICE and random[0] == 0:  # a whole number: counted
        base = random[2]
    ua["attacks"][s, u] = base + (0 if troop.mounted else weapon.extra_attack) + sum(
        x.extra_attacks for x in active_rules(rules, False, False))
    ua["first_attacks"][s, u] = sum(x.extra_attacks for x in active_rules(rules, True, charging)) \
        - sum(x.extra_attacks for x in active_rules(rules, False, False))
    ua["mount_attacks"][s, u] = mount["A"]
    foot_extra = not troop.mounted and (weapon.extra_rank or any(r.extra_rank for r in rules))
    ua["support_ranks"][s, u] = int(foot_extra) if resurrection else 1 + foot_extra
    most = getattr(troop, "support_max", 1)
    ua["support_attacks"][s, u] = 1 if resurrection else min(plain.profile["A"], most)
    for key, name in (("impact_hits", "impact_hits"), ("stomps", "stomp")):
        spec = _dice_of(rules, name)
        ua[key][s, u] = spec[2] if spec != NO_DICE and spec[0] == 0 else 0


def _strikers(scenario, sides, bodies, table, U, charger) -> list[dict]:
    """Every part that strikes, with its strike key (R2-6), its dice, and the most attacks
    it can make in one step (for the binomial tables)."""
    troops = troop_types()
    out = []
    for s in range(2):
        for u, unit in enumerate(sides[s]):
            plain = un.rank_and_file(unit)
            size = (plain.count if plain else 0) + len(un.heroes(unit))
            front = min(unit.options["width"], size)
            if plain:
                rules = group_rules(plain, scenario)
                weapon = fighting_weapon(plain, table)
                first = any(r.strikes_first for r in rules)
                last = weapon.strikes_last or any(r.strikes_last for r in rules)
                mount = plain.options["mount"] or NO_MOUNT
                key = strike_key(plain.profile["I"], first, last)
                random = _dice_of(rules, "random_attacks")
                impact = _dice_of(rules, "impact_hits")
                stomp = _dice_of(rules, "stomp")
                stomped = [troops[g[0].options["troop_type"]].stomped
                           for g in bodies[1 - s] if g is not None]
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
                                    unit_rolled=dice, hero_rolled=NO_DICE, fixed=0, first=0,
                                    most=most + 1, rules=rules, weapon=weapon))
        for b in range(U, len(bodies[s])):
            if bodies[s][b] is None:
                continue
            group, unit, _ = bodies[s][b]
            u = sides[s].index(unit)
            rules = group_rules(group, scenario)
            weapon = fighting_weapon(group, table)
            mounted = troops[group.options["troop_type"]].mounted
            first = any(r.strikes_first for r in rules)
            last = weapon.strikes_last or any(r.strikes_last for r in rules)
            random = _dice_of(rules, "random_attacks")
            fixed = (random[2] if random[0] == 0 else 0) if random != NO_DICE \
                else group.profile["A"]
            fixed += (0 if mounted else weapon.extra_attack) + sum(
                x.extra_attacks for x in active_rules(rules, False, False))
            first_extra = sum(x.extra_attacks for x in active_rules(rules, True, s == charger)) \
                - sum(x.extra_attacks for x in active_rules(rules, False, False))
            most = fixed + max(0, first_extra) + random[0] * random[1] + random[2] + 1
            out.append(dict(side=s, unit=u, hero=b - U, kind=HERO,
                            key=strike_key(group.profile["I"], first, last), group=group,
                            unit_rolled=NO_DICE, hero_rolled=random if random[0] else NO_DICE,
                            fixed=fixed, first=first_extra, most=most, rules=rules,
                            weapon=weapon))
            mount = group.options["mount"] or NO_MOUNT
            if mount["A"] > 0:
                out.append(dict(side=s, unit=u, hero=b - U, kind=HERO_MOUNT,
                                key=strike_key(mount["I"], False, False), group=group,
                                unit_rolled=NO_DICE, hero_rolled=NO_DICE, fixed=mount["A"],
                                first=0, most=mount["A"] + 1, rules=[], weapon=HAND_WEAPON))
    return out


def _steps(strikers) -> np.ndarray:
    """(K, J): the strikers at each strike key, highest first, -1 padded (R2-6)."""
    keys = sorted({x["key"] for x in strikers}, reverse=True)
    steps = np.full((len(keys), len(strikers)), -1, np.int64)
    for k, key in enumerate(keys):
        at = [j for j, x in enumerate(strikers) if x["key"] == key]
        steps[k, :len(at)] = at
    return steps


def _armour(group, items, mounted) -> int:
    """The armour save before Strength (R2-9): the profile's Sv, else the best armour item's
    + shield, barding and being mounted."""
    if group.profile["Sv"] is not None:
        return group.profile["Sv"]
    best = min([i.armour for i in items if i.armour is not None] + [NO_SAVE])
    return best - sum(i.armour_bonus for i in items) - mounted


def _chances(p, p_slay, can_wound, multiple_wounds, j, b, st, target, target_unit, scenario,
             table, troops, to_hit, to_wound, charger, t) -> None:
    """P(an attack of striker ``j`` causes an unsaved wound on body ``b``), per round type,
    Fear of either unit, the target's Frenzy and whether it is attacked in its front."""
    s = st["side"]
    group, kind = st["group"], st["kind"]
    prof, tp = group.profile, target.profile
    items = [table[n] for n in target.equipment]
    t_troop = troops[target.options["troop_type"]]
    t_rules = group_rules(target, scenario)
    t_weapon = fighting_weapon(target, table)
    armour = _armour(target, items, t_troop.mounted)
    may_parry = (not t_troop.mounted and not t_weapon.is_weapon and any(i.parry for i in items))
    on_mount = troops[group.options["troop_type"]].mounted
    mount = group.options["mount"] or NO_MOUNT
    rider = kind in (FIGHTING, SUPPORTING, HERO)
    rules, weapon = st["rules"], st["weapon"]
    first = any(r.strikes_first for r in rules)
    last = weapon.strikes_last or any(r.strikes_last for r in rules)
    target_first = any(r.strikes_first for r in t_rules)
    man_sized = t_troop.killing_blow
    one_wound = tp["W"] == 1
    for r in (FIRST, LATER):
        charging = r == FIRST and s == charger
        if rider:
            strength = min(10, prof["S"] + weapon.strength_bonus
                           + (r == FIRST) * weapon.first_round_strength
                           + (charging and on_mount) * weapon.charge_strength)
            reroll_first = first and not last and prof["I"] >= tp["I"] and not target_first
            by = striking(active_rules(rules, r == FIRST, charging) + [weapon],
                          "failures" if reroll_first else None)
            ws = prof["WS"]
        elif kind in (MOUNT, HERO_MOUNT):
            strength, by, ws = mount["S"], striking([]), mount["WS"]
        else:  # Impact Hits, Stomps: automatic hits at the model's S
            strength, by, ws = prof["S"], striking([]), None
        if by.multiple_wounds and not one_wound:
            multiple_wounds[r, j] = by.multiple_wounds
        wound = to_wound[strength - 1][tp["T"] - 1]
        if r == FIRST:
            can_wound[j, b] = int(wound < NO_SAVE or by.poisoned or by.wounds_on is not None)
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
                        p[i], p_slay[i] = p_unsaved(hit, wound, armour, ward, strength, by, on,
                                                    man_sized)
                        if one_wound:
                            p[i], p_slay[i] = p[i] + p_slay[i], 0.0
