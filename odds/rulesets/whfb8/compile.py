"""Turn a checked whfb8 scenario into the plan the rule text (fight.py) reads: each side as
units of bodies (rank-and-file and heroes) and strikers, every chance and law worked out and
packed (:mod:`odds.core.packed`). One unit a side is a side of one unit with no heroes.

Each side is padded to U units and H heroes. Body u (< U) is unit u's rank-and-file, body
U + h its hero h. The strikers are the parts that strike at one strike step: a unit's models
in contact, supporters, mounts, Impact Hits and Stomps, and each hero and its mount.
"""
from __future__ import annotations

import itertools
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from odds.core.binomial import cdf_tables
from odds.core.catalogue import active_rules
from odds.core.dice import laws
from odds.core.effects import dice_pmf
from odds.core.exact import dice_sum, drop_lowest, p_ge
from odds.core.packed import Packed, pack
from odds.rulesets.whfb8 import units as un
from odds.rulesets.whfb8.attack import (IMPACT_I, NO_DICE, NO_MOUNT, STOMP_I, armour_save,
                                        dice_of, p_unsaved, saving, strength, strike_key,
                                        striking, support)
from odds.rulesets.whfb8.fight import (FIGHTING, FIRST, FLANK, FRONT, HERO, HERO_MOUNT, IMPACT,
                                       LATER, MOUNT, REAR, ROLLED, STOMP, SUPPORTING, TABLES)
from odds.rulesets.whfb8.rules import (HAND_WEAPON, NO_SAVE, charts, equipment,
                                       fighting_weapon, special_rules, troop_types)

FACES = {"front": FRONT, "flank": FLANK, "rear": REAR}
CHALLENGES = {"never": 0, "always": 1, "champion_only": 2}
ACCEPTS = {"always": 0, "never": 1, "champion_first": 2}
AIMS = {"never": 0, "always": 1, "if_can_wound": 2}


class Plan(NamedTuple):
    """What the rule text reads, packed (``packed``), and the same tables by name for
    readers of plans (``tables``, fight.TABLES says what each holds); ``strikers`` names
    each striker (side, unit, hero or -1, kind)."""

    packed: Packed
    tables: dict
    strikers: tuple
    rolls: bool       # a striker rolls its number of attacks or hits
    multiplies: bool  # a striker has Multiple Wounds against models of several wounds
    one_unit: object  # one unit a side, no heroes: the plan of the one-unit exact solver
    #                   (compile_one.Plan, exact_one), else None


def compile_plan(scenario) -> Plan:
    """The plan for one checked scenario."""
    to_hit, to_wound = charts()
    table = equipment(scenario)
    troops = troop_types()
    resurrection = scenario.rules["supporting_attacks"] == "resurrection"
    charger = 0 if scenario.engagement["charger"] == "attacker" else 1
    keys = ("attacker", "defender")
    sides = [scenario.side(k).every_unit for k in keys]
    rules_of = _rules_of(scenario)
    U = max(len(x) for x in sides)
    H = max(sum(len(un.heroes(u)) for u in x) for x in sides)
    B = U + H
    v = {name: np.zeros((2, U), np.int64) for name, shape in TABLES.ints.items()
         if shape == (2, "U")}
    v.update({name: np.zeros((2, B), np.int64) for name, shape in TABLES.ints.items()
              if shape == (2, "G")})
    v["wounds"][:] = 1
    for name in ("unit_count", "heroes", "general", "bearer", "challenge", "accept"):
        v[name] = np.full(2, -1, np.int64)
    bodies = [[None] * B for _ in range(2)]  # (group, unit) of each body, None: padding
    for s in range(2):
        v["unit_count"][s] = len(sides[s])
        v["heroes"][s] = sum(len(un.heroes(u)) for u in sides[s])
        v["challenge"][s] = CHALLENGES[un.policy(scenario, keys[s], "challenge")]
        v["accept"][s] = ACCEPTS[un.policy(scenario, keys[s], "accept")]
        h = 0
        for u, each in enumerate(sides[s]):
            plain = un.rank_and_file(each)
            heroes = un.heroes(each)
            _unit_row(v, s, u, each, plain, heroes, rules_of, table, troops, resurrection,
                      charger == s, h)
            if plain:
                bodies[s][u] = (plain, each)
                v["count"][s, u], v["wounds"][s, u] = plain.count, plain.profile["W"]
            v["body_unit"][s, u] = u
            for group in heroes:
                b = U + h
                bodies[s][b] = (group, each)
                v["count"][s, b], v["wounds"][s, b] = 1, group.profile["W"]
                v["body_unit"][s, b] = u
                v["champion"][s, b] = group.options["champion"]
                v["hero_ld"][s, b] = group.profile["Ld"]
                v["hero_attacks"][s, b] = group.profile["A"]
                if group.options["general"]:
                    v["general"][s] = h
                if group.options["battle_standard"]:
                    v["bearer"][s] = h
                h += 1
    pairs = un.engagements(scenario)
    for name, i in (("charging", 0), ("charged", 1), ("face", 2)):
        v[name] = np.zeros(U, np.int64)
        v[name][:len(pairs)] = [FACES[p[2]] if i == 2 else p[i] for p in pairs]
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
                _chances(p, p_slay, can_wound, multiple_wounds, j, b, x,
                         *bodies[1 - x["side"]][b], scenario, rules_of, table, troops,
                         to_hit, to_wound, charger)
    for j, x in enumerate(strikers):  # R2-4: mounts and supporters aim with their riders
        if x["kind"] in (SUPPORTING, MOUNT, HERO_MOUNT):
            rider = next(i for i, y in enumerate(strikers) if y["side"] == x["side"]
                         and y["unit"] == x["unit"] and y["hero"] == x["hero"]
                         and y["kind"] in (FIGHTING, HERO))
            can_wound[:, j] = can_wound[:, rider]
    most = np.array([x["most"] for x in strikers], np.int64)
    cdf, row, top = cdf_tables(p, np.broadcast_to(most[:, None], p.shape))
    multiplies = (multiple_wounds[:, :, 0] + multiple_wounds[:, :, 2] > 0).astype(np.int64)
    for name in ("side", "unit", "hero", "kind"):
        v[f"striker_{name}"] = np.array([x[name] for x in strikers], np.int64)
    v["fixed"] = np.array([x["fixed"] for x in strikers], np.int64)
    v["first"] = np.array([x["first"] for x in strikers], np.int64)
    v["rolls"] = np.array([x["rolled"] != NO_DICE for x in strikers], np.int64)
    steps = _steps(strikers)
    e = scenario.engagement
    v.update(
        charger=charger,
        refusal_penalty=scenario.rules["refusal"] == "8e",
        reroll_all=scenario.rules["battle_standard_rerolls"] == "all",
        disrupted_steadfast=scenario.rules["disrupted_steadfast"],
        pursue=bool(e["pursue"]), max_rounds=int(scenario.simulation["max_rounds"]),
        flee_reaction=e["reaction"] == "flee", engagements=len(pairs),
        led=un.led(scenario), unit_columns=any(scenario.side(k).units for k in keys),
        daemons=bool(v["daemonic"].any()),
        fears=bool(v["causes_fear"].any()),
        multiplies=multiplies, steps=steps, step_count=int((steps[:, 0] >= 0).sum()),
        can_wound=can_wound, unsaved_row=row, unsaved_top=top, p_unsaved=p,
        p_slay=np.divide(p_slay, 1.0 - p, out=np.zeros_like(p), where=p < 1.0),
        per_file=1.0 / np.maximum(v["width"], 1))
    v.update(_laws(scenario, sides, strikers, multiple_wounds, charger, v))
    v["merged_into"] = _merged(strikers, steps, p, v["p_slay"], multiplies, can_wound)
    packed = pack(TABLES, v, cdf, B, U, J)
    one_unit = None
    if not un.led(scenario):
        from odds.rulesets.whfb8 import compile_one

        one_unit = compile_one.compile_plan(scenario)
    return Plan(packed, v, tuple((x["side"], x["unit"], x["hero"], x["kind"])
                                 for x in strikers),
                bool(v["rolls"].any()), bool(multiplies.any()), one_unit)


@lru_cache(maxsize=1)
def _leadership() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The Leadership laws, the same for every plan (made once, read only): (holds, fails,
    instability). holds[rerolled, cold, x]: (broke, held) for a break test on x (a double 1
    always holds); fails[rerolled, cold, x]: (passed, failed) for a test on x (restraint);
    instability[cold]: Daemonic Instability's 2D6 (0 a double 1, 1 a double 6, else the
    total) (R2-12, R2-13)."""
    holds = np.zeros((2, 2, 13, 2))
    fails = np.zeros((2, 2, 13, 2))
    instability = np.zeros((2, 13))
    for cold in range(2):
        pairs = _pairs(bool(cold))
        for x in range(13):
            fail = sum(q for (a, b), q in pairs.items() if a + b > x and (a, b) != (1, 1))
            over = sum(q for (a, b), q in pairs.items() if a + b > x)
            for rerolled in range(2):
                holds[rerolled, cold, x] = [fail ** (1 + rerolled), 1 - fail ** (1 + rerolled)]
                fails[rerolled, cold, x] = [1 - over ** (1 + rerolled), over ** (1 + rerolled)]
        for (a, b), q in pairs.items():
            instability[cold, 0 if (a, b) == (1, 1) else 1 if (a, b) == (6, 6) else a + b] += q
    for table in (holds, fails, instability):
        table.flags.writeable = False
    return holds, fails, instability


def _catch(moves: list[np.ndarray], U: int) -> np.ndarray:
    """catch[fleeing, best, plain, swift]: (escapes, caught) for a unit fleeing with roll law
    moves[fleeing] from pursuers whose best roll so far is ``best`` and ``plain``/``swift``
    more of them roll 2D6/3D6 (R2-13). Each entry sums its 19 rolls in order, as a loop
    over every entry would."""
    below = [np.cumsum(m) - m for m in moves]  # P(roll < f)
    count = np.arange(U + 1)
    beats = np.tri(19, k=-1).T  # best < f: [best, f]
    term = (np.stack(moves)[:, None, None, None, :] * beats[None, :, None, None, :]
            * (below[0] ** count[:, None])[None, None, :, None, :]
            * (below[1] ** count[:, None])[None, None, None, :, :])
    escapes = 0
    for roll in range(19):
        escapes = escapes + term[..., roll]
    return np.stack([escapes, 1.0 - escapes], axis=-1)


def _pairs(cold_blooded: bool):
    """The two dice a Leadership test keeps, with their chances: 2D6, or the lowest two of
    3D6 (Cold-blooded)."""
    out = {}
    n = 3 if cold_blooded else 2
    for roll in itertools.product(range(1, 7), repeat=n):
        kept = tuple(sorted(roll)[:2])
        out[kept] = out.get(kept, 0.0) + 6.0 ** -n
    return out


def _laws(scenario, sides, strikers, multiple_wounds, charger, v) -> dict:
    """The plan's laws: Leadership tests, movement rolls, Daemonic Instability, the flee
    reaction, rolled attacks and Multiple Wounds (R2-2, R2-7, R2-12, R2-13)."""
    holds, fails, instability = _leadership()
    moves = [np.pad(dice_sum(2), (0, 19 - len(dice_sum(2)))), drop_lowest(3)]
    moves = [np.pad(m, (0, 19 - len(m))) for m in moves]
    caught = 0.0
    if scenario.engagement["reaction"] == "flee":
        c = charger
        flee = moves[int(v["swiftstride"][1 - c, 0])]
        move = moves[int(v["swiftstride"][c, 0])]
        profile = un.rank_and_file(sides[c][0]).profile
        distance = float(scenario.engagement["charge_distance"] or 0.0)
        caught = sum(flee[f] * p_ge(move, distance + f - profile["M"]) for f in range(19))
    U = v["width"].shape[1]
    catch = _catch(moves, U)
    width = 1 + ROLLED * max([x["rolled"][0] * x["rolled"][1] + x["rolled"][2]
                              for x in strikers] + [0])
    rolled = np.zeros((len(strikers), ROLLED + 1, width))
    for j, x in enumerate(strikers):
        pmf = np.ones(1)
        rolled[j, 0, 0] = 1.0
        one = dice_pmf(tuple(x["rolled"]))
        for m in range(1, ROLLED + 1):
            pmf = np.convolve(pmf, one)
            rolled[j, m, :len(pmf)] = pmf
    w = max([len(dice_pmf(tuple(d))) for d in multiple_wounds.reshape(-1, 3)] + [2])
    multiple = np.zeros(multiple_wounds.shape[:2] + (w,))
    for r, j in np.ndindex(multiple_wounds.shape[:2]):
        spec = tuple(multiple_wounds[r, j])
        pmf = dice_pmf(spec) if spec != NO_DICE else np.array([0.0, 1.0])
        multiple[r, j, :len(pmf)] = pmf
    return dict(holds_law=laws(holds), fails_law=laws(fails), move_law=laws(np.stack(moves)),
                catch_law=laws(catch),
                instability_law=laws(instability), flee_law=laws(np.array([1 - caught, caught])),
                rolled_law=laws(rolled), wounds_law=laws(multiple))


def _unit_row(v, s, u, each, plain, heroes, rules_of, table, troops, resurrection,
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
        "in_contact": each.options["in_contact"] or 0,
        "fear_immune": any(r.causes_fear or r.unbreakable or r.immune_to_psychology
                           for r in rules),
        "daemonic": any(r.daemonic_instability for r in rules),
    }
    for key in ("frenzy", "stubborn", "unbreakable", "swiftstride", "cold_blooded",
                "strength_in_numbers", "causes_fear", "unstable"):
        row[key] = any(getattr(r, key) for r in rules)
    if plain:
        row.update(_unit_attacks(plain, rules, table, troop, resurrection, charging))
    for key, value in row.items():
        v[key][s, u] = value
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
    """(J, J): the strikers at each strike key, highest first, -1 padded (R2-6)."""
    keys = sorted({x["key"] for x in strikers}, reverse=True)
    steps = np.full((len(strikers), len(strikers)), -1, np.int64)
    for k, key in enumerate(keys):
        at = [j for j, x in enumerate(strikers) if x["key"] == key]
        steps[k, :len(at)] = at
    return steps


def _merged(strikers, steps, p, p_slay, multiplies, can_wound) -> np.ndarray:
    """(J,): the striker whose count each striker's attacks join, itself if none: the first
    of its step of the same unit (neither a hero) whose every chance, on every body and in
    every condition, is its own, with no Multiple Wounds. n attacks with one chance each
    and m more with the same chance cause Binomial(n + m) unsaved wounds (R2-8), and with
    the same Killing Blow chance the same slain: one pick instead of two, for the kernel
    and the solver (a unit's fighting and supporting models, as a rule)."""
    out = np.arange(len(strikers))
    for row in steps:
        at = [j for j in row if j >= 0]
        for i, j in enumerate(at):
            x = strikers[j]
            for k in at[:i]:
                y = strikers[k]
                if out[k] == k and (x["side"], x["unit"], x["hero"], y["hero"]) == \
                        (y["side"], y["unit"], -1, -1) and \
                        not multiplies[:, [j, k]].any() and \
                        all(np.array_equal(t[..., j, :], t[..., k, :]) for t in (p, p_slay)) \
                        and np.array_equal(can_wound[:, j], can_wound[:, k]):
                    out[j] = k
                    break
    return out


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
