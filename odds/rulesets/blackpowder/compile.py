"""Turn a checked blackpowder scenario into the flat numeric plan the kernel reads.

Every modifier that does not change during a fight is summed here, and the rule text's laws
(fight.with_laws) are tabulated over the ones that do (won the last round, shaken now,
flanked now), for each unit against each enemy in contact (brigade.py). Semantics: README.md
beside this file.
"""
from __future__ import annotations

import math
from fractions import Fraction
import numpy as np

from odds.core.dice import laws
from odds.core.exact import dice_sum
from odds.rulesets.blackpowder.fight import (  # noqa: F401 (the codes, for readers of plans)
    BREAK,
    EVADED,
    EVADER_DESTROYED,
    FIGHT,
    HALTED,
    HOLD,
    LOWEST,
    RETIRE,
    hits_then_saves,
    with_laws,
)
from odds.rulesets.blackpowder.brigade import melee
from odds.rulesets.blackpowder.plan import Plan
from odds.rulesets.blackpowder.rules import (
    ALL_ROUND,
    ARTILLERY,
    CAVALRY,
    break_test,
    halts,
    is_disordered,
    is_shaken,
    modifiers,
    orders,
    special_rules,
)


def p_at_least(target: int) -> float:
    """P(D6 >= target)."""
    return max(0, 7 - target) / 6.0


def compile_plan(scenario) -> Plan:
    """The plan for one scenario (already checked by :func:`odds.scenario.from_dict`)."""
    mods = modifiers()
    hit, cr, save = mods["to_hit"], mods["combat_result"], mods["morale_save"]
    known = special_rules()
    e = scenario.engagement
    m = melee(scenario)
    units = m.units
    n = len(units)
    rules = [[known[name] for name in u["rules"]] for u in units]
    reaction = e["reaction"]
    cav = [u["type"] in CAVALRY for u in units]
    dis = [is_disordered(u) for u in units]
    charged = [bool(m.chargers_of(t)) for t in range(n)]
    contacts = np.full((n, n), -1, np.int64)
    for u in range(n):
        found = m.contacts(u)
        contacts[u, :len(found)] = found
    pairs = [(u, v) for u in range(n) for v in m.contacts(u)]
    swept = {(u, v) for u, v in pairs if u in m.fresh or v in m.fresh}  # a second charge's
    first_pairs = [pair for pair in pairs if pair not in swept]
    supporters = np.full((n, 3), -1, np.int64)  # behind, then the flanks
    for u in range(n):
        supporters[u, :len(m.supporters(u, "rear"))] = m.supporters(u, "rear")
        supporters[u, 1:1 + len(m.supporters(u, "flank"))] = m.supporters(u, "flank")

    shape = (2, 2, n, n)
    dice = np.zeros(shape, np.int64)
    p_hit = np.zeros(shape + (2, 2, 2))
    reroll_misses = np.zeros(shape, np.bool_)
    p_unsaved = np.zeros(shape)
    p_save = np.zeros(shape)
    result_bonus = np.zeros(shape, np.int64)
    result_d3 = np.zeros(shape, np.bool_)
    flank_of = np.zeros((2, n, n), np.bool_)
    per_unit = {name: np.zeros((2, n), dtype) for name, dtype in (
        ("reroll_one_miss", np.bool_), ("reroll_one_save", np.bool_),
        ("test_on_casualty", np.bool_), ("first_test_passed", np.bool_), ("square", np.bool_),
        ("test_rerolls", np.int64), ("terrifies", np.bool_), ("sweep_terrifies", np.bool_),
        ("supportable", np.bool_))}
    for h in range(2):
        formation = [u["formation"] for u in units]
        if h:  # the charged unit formed hedgehog (one unit a side)
            formation = ["hedgehog" if charged[t] else f for t, f in enumerate(formation)]
        # the face u fights v on: a charger its front; all-round formations no flank
        face = {(u, v): "front" for u, v in pairs}
        for u, t in enumerate(m.target):
            if t >= 0 and reaction != "turn to face" and formation[t] not in ALL_ROUND:
                face[t, u] = m.facing[u]
        for f, c in swept:  # the fresh unit f, charged by a sweep on its facing (§5.4)
            if f in m.fresh and formation[f] not in ALL_ROUND:
                face[f, c] = m.facing[f]
        charging = [m.target[u] >= 0 or (reaction == "counter-charge" and charged[u])
                    for u in range(n)]
        if reaction == "counter-charge":
            for u, t in enumerate(m.target):
                if t >= 0 and not cav[u]:
                    charging[u] = False  # against infantry only cavalry gets charge bonuses
        pike_front = {(u, v): units[u]["type"] == "pikes" and not dis[u] and face[u, v] == "front"
                      for u, v in pairs}
        active = [True] * n  # special rules in force
        for u, v in first_pairs:
            if cav[u] and pike_front[v, u] and (m.target[u] == v or reaction == "counter-charge"):
                charging[u] = active[u] = False  # R4-5
            if cav[u] and formation[v] == "square":
                charging[u] = False  # a disordered or shaken square charged: no bonuses (§5.4)
        mine = [rules[u] if active[u] else [] for u in range(n)]
        # who counts as charging u's enemy v in a melee's first round: a second charge's
        # sweeping cavalry, but not into a square (§5.4; into the front of pikes: refused)
        charges = {(u, v): (formation[v] != "square" and u not in m.fresh) if (u, v) in swept
                   else charging[u] for u, v in pairs}
        for u in range(n):
            o = units[u]
            per_unit["supportable"][h, u] = not (o["type"] in ARTILLERY or formation[u] in (
                "skirmish", "square") or o["building"])
            per_unit["reroll_one_miss"][h, u] = any(r.reroll_one_miss for r in mine[u])
            per_unit["reroll_one_save"][h, u] = any(r.reroll_one_failed_save for r in mine[u])
            per_unit["test_on_casualty"][h, u] = any(r.test_on_casualty for r in mine[u])
            per_unit["first_test_passed"][h, u] = any(r.pass_first_break_test for r in mine[u])
            per_unit["square"][h, u] = formation[u] == "square"
            per_unit["test_rerolls"][h, u] = sum(x.break_test_rerolls for x in mine[u])
            # a charge effect: lost with the charge bonuses (R4-5, squares)
            per_unit["terrifies"][h, u] = any(charging[x] and any(
                r.enemy_tests_on_charge for r in mine[x]) for x in m.chargers_of(u))
            per_unit["sweep_terrifies"][h, u] = any(charges.get((u, f), False) and any(
                r.enemy_tests_on_charge for r in mine[u]) for f in m.fresh)
        for u, v in pairs:
            flank = face[u, v] != "front"
            flank_of[h, u, v] = flank
            base_save = save["march_column"] * (formation[v] == "march column") \
                + save["attack_column"] * (formation[v] == "attack column")
            for r in range(2):
                first = r == 0
                doubled = pike_front[u, v] and cav[v] and (first or
                                                           e["pike_double_dice_rounds"] == "all")
                dice[h, r, u, v] = units[u]["profile"]["hand_to_hand"] * (2 if doubled else 1)
                charge_round = first and charges[u, v]
                static = hit["charging"] * charge_round + hit["skirmish"] * (
                    formation[u] == "skirmish")
                for won, shaken, f in np.ndindex(2, 2, 2):
                    flanked = f
                    if n == 2:  # one unit a side: flanked the whole fight or never (fight.py)
                        flanked = flank
                    mod = static + hit["won_last_round"] * won + hit[
                        "shaken_or_disordered"] * (shaken or dis[u]) + hit[
                        "flank_or_rear"] * flanked
                    target = min(hit["worst"], max(hit["best"], hit["base"] - mod))
                    p_hit[h, r, u, v, won, shaken, f] = p_at_least(target)
                reroll_misses[h, r, u, v] = any(
                    (x.reroll_misses == "charge" and charge_round)
                    or (x.reroll_misses == "first" and first) for x in mine[u])
                lance = sum(x.enemy_save_on_charge for x in mine[u]) if charge_round else 0
                target = max(save["best"], units[v]["profile"]["morale"] - base_save - lance)
                p_save[h, r, u, v] = p_at_least(target)
                p_unsaved[h, r, u, v] = 1 - p_save[h, r, u, v]
                result_bonus[h, r, u, v] = (
                    cr["square_vs_cavalry"] * (formation[u] == "square" and cav[v])
                    + min(units[u]["building"], cr["max_building"])
                    + (sum(x.charge_result_bonus for x in mine[u]) if charge_round else 0))
                result_d3[h, r, u, v] = charge_round and any(x.charge_result_d3 for x in mine[u])
                if n == 2 and per_unit["supportable"][h, u] and not flank:
                    # one unit a side: its supports (its own keys) hold the whole fight
                    result_bonus[h, r, u, v] += cr["rear_support"] * units[u]["rear_support"] \
                        + cr["flank_support"] * min(units[u]["flank_supports"],
                                                    cr["max_flank_supports"])

    start = FIGHT
    c = next(u for u in range(n) if m.target[u] >= 0)  # the (first) charger
    if reaction == "evade":
        start = EVADED if e["evade_room"] else EVADER_DESTROYED
    elif halts(units[c], units[m.target[c]]):
        start = HALTED  # cavalry halts short of a steady square (§5.4, one unit a side)
    firing = [t for t in range(n) if reaction == "closing fire" and (charged[t] or t in m.fresh)]
    closing_at = np.full(n, -1, np.int64)
    # [0, t]: t's fire at its first charger; [1, c]: the fire c takes sweeping into a fresh unit
    closing = np.zeros((2, n, max([units[t]["profile"]["shooting"] for t in firing] + [0]) + 1))
    closing[:, :, 0] = 1.0
    wound_span = np.zeros(n, np.int64)  # every die against it, every round, and closing fire
    for t in firing:  # R4-4: at the first unit charging it; a fresh unit's at each sweeper
        for x in m.sweepers[t] or m.chargers_of(t)[:1]:
            if not m.sweepers[t]:
                closing_at[t] = x
            at = (1, x) if m.sweepers[t] else (0, t)
            closing[at] = _closing(units[t], units[x], hit, save, closing.shape[2] - 1)
            wound_span[x] += units[t]["profile"]["shooting"]
    bands, shaken_retire_breaks = break_test()
    band = np.zeros(12 - LOWEST + 1, np.int64)
    for i, score in enumerate(range(LOWEST, 13)):
        band[i] = next(code for top, code in bands if top is None or score <= top)
    stamina = np.array([u["profile"]["stamina"] for u in units], np.int64)
    for u, v in pairs:
        wound_span[v] += scenario.simulation["max_rounds"] * dice[:, :, u, v].max()
    return with_laws(Plan(
        side=np.array(m.side, np.int64), contacts=contacts, flank_of=flank_of,
        supporters=supporters, flanked=flank_of.any(axis=(0, 2)),
        in_contact=np.array([sum(m.side[u] == s and m.in_contact(u) for u in range(n))
                             for s in (0, 1)], np.int64), fresh=np.array(m.fresh, np.int64),
        second_charge=max(m.fresh) >= 0,
        supported=((supporters >= 0).any(axis=1) | np.array(
            [u["rear_support"] or u["flank_supports"] > 0 for u in units], np.bool_)) & (n > 2),
        own_rear=np.array([int(u["rear_support"]) for u in units], np.int64),
        own_flanks=np.array([u["flank_supports"] for u in units], np.int64), dice=dice,
        p_hit=p_hit, reroll_misses=reroll_misses,
        p_unsaved=p_unsaved, p_save=p_save, result_bonus=result_bonus, result_d3=result_d3,
        **per_unit, cavalry=np.array(cav, np.bool_), stamina=stamina,
        start_casualties=np.array([stamina[u] if is_shaken(units[u]) else 0 for u in range(n)],
                                  np.int64),
        sweeps=np.array([cav[u] and e["sweeping_advance"] for u in range(n)], np.bool_),
        closing_at=closing_at, closing_fire=bool((closing_at >= 0).any()),
        sweep_fire=any(t in m.fresh for t in firing),
        terrifying=bool(per_unit["terrifies"].any()), wound_span=wound_span, band=band,
        rear_bonus=cr["rear_support"], flank_bonus=cr["flank_support"],
        max_flanks=cr["max_flank_supports"], shaken_retire_breaks=shaken_retire_breaks,
        start=start, hedgehog_order=e["hedgehog_order"] if reaction == "hedgehog" else 0,
        ordered=e["staff_rating"] is not None, order_chance=order_chance(scenario),
        several=m.several, attackers=m.side.count(0), charger=m.side[c],
        max_rounds=scenario.simulation["max_rounds"],
        closing_law=laws(closing), units=n))


def _closing(unit: dict, charger: dict, hit: dict, save: dict, most: int) -> np.ndarray:
    """P(k casualties) from ``unit``'s closing fire on ``charger``, +1 to hit (R4-4)."""
    mod = hit["closing_fire"] + hit["shaken_or_disordered"] * (is_disordered(unit)
                                                                or is_shaken(unit))
    to_hit = min(hit["worst"], max(hit["best"], hit["base"] - mod))
    target = max(save["best"], charger["profile"]["morale"] - save["artillery_closing_fire"]
                 * (unit["type"] in ARTILLERY) - save["attack_column"] * (
                     charger["formation"] == "attack column"))
    return hits_then_saves(unit["profile"]["shooting"], p_at_least(to_hit), False, False,
                           1 - p_at_least(target), False, 0.0, most)


def order_chance(scenario) -> float:
    """P(the charger's order brings it into contact) (R4-1): 2D6 against the staff rating
    with its modifiers; the moves the roll gives (or a blunder's) cover the distance. 1.0
    without an order roll."""
    e = scenario.engagement
    if e["staff_rating"] is None:
        return 1.0
    table = orders()
    unit = scenario.side(e["charger"]).every_unit[0].options
    mods = table.modifiers
    rating = (e["staff_rating"] + (e["command_modifier"] or 0)
              + mods["per_12_inches_from_commander"] * int((e["commander_distance"] or 0) // 12)
              + mods["enemy_within_12_inches"] * (e["charge_distance"] <= 12)
              + mods["attack_column"] * (unit["formation"] == "attack column"))
    move = e["move"] if e["move"] is not None else table.move[unit["type"]]
    # the moves that reach the target, in exact decimals: 3 moves of 1.2" reach 3.6"
    needed = math.ceil(Fraction(str(e["charge_distance"])) / Fraction(str(move)))

    def reaches(moves) -> float:
        return float(np.mean(np.asarray(moves) >= needed))

    chance = 0.0
    for roll, p in enumerate(dice_sum(2)):
        if p == 0.0:
            continue
        if roll == table.blunder_roll:
            chance += p * float(np.mean([reaches(m) for m in table.blunder]))
        elif roll <= rating:
            margin = min(rating - roll, len(table.moves_by_margin) - 1)
            chance += p * reaches(table.moves_by_margin[margin])
    return chance
