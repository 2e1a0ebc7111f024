"""Turn a checked blackpowder scenario into the flat numeric plan the kernel reads.

Every modifier that does not change during a fight is summed here, and the rule text's laws
(fight.with_laws) are tabulated over the ones that do (won the last round, shaken now). Semantics: README.md beside this file.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import NamedTuple

import numpy as np

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
    with_laws,
)
from odds.rulesets.blackpowder.rules import (
    ALL_ROUND,
    ARTILLERY,
    CAVALRY,
    break_test,
    is_disordered,
    is_shaken,
    modifiers,
    orders,
    special_rules,
)


class Plan(NamedTuple):
    """Arrays indexed [hedgehog formed][round: 0 first, 1 later][side: 0 attacker, 1 defender]."""

    dice: np.ndarray          # (2, 2, 2) hand-to-hand dice (R4-6, doubled for pikes R4-5)
    p_hit: np.ndarray         # (2, 2, 2, 2 won last round, 2 shaken now) P(a die hits)
    reroll_misses: np.ndarray  # (2, 2, 2) re-roll every miss this round
    reroll_one_miss: np.ndarray  # (2, 2) re-roll one miss each round
    p_unsaved: np.ndarray     # (2, 2, 2) P(the enemy fails its morale save) against side s's hits
    reroll_one_save: np.ndarray  # (2, 2) side s re-rolls one failed save each round
    p_save: np.ndarray        # (2, 2, 2) P(side s's enemy saves), for the stubborn re-roll
    result_bonus: np.ndarray  # (2, 2, 2) combat-result bonus (supports, square, building, charge)
    result_d3: np.ndarray     # (2, 2, 2) +D3 to the combat result
    test_on_casualty: np.ndarray  # (2, 2) wavering
    first_test_passed: np.ndarray  # (2, 2) steady
    square: np.ndarray        # (2, 2) ignores every break-test result but break
    test_rerolls: np.ndarray  # (2, 2) valiant: break-test re-rolls per fight
    terrifies: np.ndarray     # (2,) the charged unit tests before the melee (terrifying charge)
    cavalry: np.ndarray       # (2,)
    stamina: np.ndarray       # (2,)
    start_casualties: np.ndarray  # (2,) stamina if the unit starts shaken
    sweeps: np.ndarray        # (2,) sweeping advance when victorious (cavalry, option on)
    band: np.ndarray          # break-test result for each modified score from LOWEST to 12
    shaken_retire_breaks: bool
    start: int                # FIGHT, EVADED, EVADER_DESTROYED or HALTED
    hedgehog_order: int       # 2D6 at most this forms hedgehog; 0 when not declared
    ordered: bool             # the charge waits on an order roll (R4-1)
    order_chance: float       # P(the order brings the charger into contact)
    closing_dice: int         # closing-fire dice, 0 for none (R4-4)
    closing_p_hit: float
    closing_p_unsaved: float  # P(the charger fails its save against closing fire)
    charger: int
    max_rounds: int
    # the laws the rule text picks from (fight.with_laws)
    casualty_law: np.ndarray | None = None  # [h, round, side, won, shaken]: casualties inflicted
    closing_law: np.ndarray | None = None   # casualties closing fire inflicts on the charger
    test_law: np.ndarray | None = None      # [h, side, deduction, shaken]: hold, retire, break
    order_law: np.ndarray | None = None     # the order fails, the charge goes in (R4-1)
    hedgehog_law: np.ndarray | None = None  # no hedgehog, hedgehog formed
    d3_law: np.ndarray | None = None        # a D3 of charge bonus, 1 .. 3


def p_at_least(target: int) -> float:
    """P(D6 >= target)."""
    return max(0, 7 - target) / 6.0


def compile_plan(scenario) -> Plan:
    """The plan for one scenario (already checked by :func:`odds.scenario.from_dict`)."""
    mods = modifiers()
    hit, cr, save = mods["to_hit"], mods["combat_result"], mods["morale_save"]
    known = special_rules()
    e = scenario.engagement
    units = [scenario.attacker.options, scenario.defender.options]
    rules = [[known[name] for name in u["rules"]] for u in units]
    c = 0 if e["charger"] == "attacker" else 1
    reaction = e["reaction"]
    cav = [u["type"] in CAVALRY for u in units]
    dis = [is_disordered(u) for u in units]

    dice = np.zeros((2, 2, 2), np.int64)
    p_hit = np.zeros((2, 2, 2, 2, 2))
    reroll_misses = np.zeros((2, 2, 2), np.bool_)
    reroll_one_miss = np.zeros((2, 2), np.bool_)
    p_unsaved = np.zeros((2, 2, 2))
    p_save = np.zeros((2, 2, 2))
    reroll_one_save = np.zeros((2, 2), np.bool_)
    result_bonus = np.zeros((2, 2, 2), np.int64)
    result_d3 = np.zeros((2, 2, 2), np.bool_)
    test_on_casualty = np.zeros((2, 2), np.bool_)
    first_test_passed = np.zeros((2, 2), np.bool_)
    square = np.zeros((2, 2), np.bool_)
    test_rerolls = np.zeros((2, 2), np.int64)
    terrifies = np.zeros(2, np.bool_)
    for h in range(2):
        formation = [u["formation"] for u in units]
        if h:
            formation[1 - c] = "hedgehog"
        # the face each side fights on: the charger its front; all-round formations no flank
        face = ["front", "front"]
        if reaction != "turn to face" and formation[1 - c] not in ALL_ROUND:
            face[1 - c] = e["facing"]
        charging = [s == c or reaction == "counter-charge" for s in range(2)]
        if reaction == "counter-charge" and units[c]["type"] not in CAVALRY:
            charging[c] = False  # against infantry only the cavalry gets charge bonuses (R4-4)
        pike_front = [units[s]["type"] == "pikes" and not dis[s] and face[s] == "front"
                      for s in range(2)]
        active = [True, True]  # special rules in force
        for s in range(2):
            t = 1 - s
            if cav[s] and pike_front[t] and (s == c or reaction == "counter-charge"):
                charging[s] = active[s] = False  # R4-5
            if cav[s] and formation[t] == "square":
                charging[s] = False  # a disordered or shaken square charged: no bonuses (§5.4)
        for s in range(2):
            t = 1 - s
            mine = rules[s] if active[s] else []
            flank = face[s] != "front"
            supportable = not (units[s]["type"] in ARTILLERY or formation[s] in ("skirmish",
                               "square") or units[s]["building"] or flank)
            support = (cr["rear_support"] * units[s]["rear_support"]
                       + cr["flank_support"] * min(units[s]["flank_supports"],
                                                   cr["max_flank_supports"])) if supportable else 0
            base_save = save["march_column"] * (formation[t] == "march column") \
                + save["attack_column"] * (formation[t] == "attack column")
            reroll_one_miss[h, s] = any(r.reroll_one_miss for r in mine)
            reroll_one_save[h, s] = any(r.reroll_one_failed_save for r in mine)
            test_on_casualty[h, s] = any(r.test_on_casualty for r in mine)
            first_test_passed[h, s] = any(r.pass_first_break_test for r in mine)
            square[h, s] = formation[s] == "square"
            test_rerolls[h, s] = sum(x.break_test_rerolls for x in mine)
            if s == c:  # a charge effect: lost with the charge bonuses (R4-5, squares)
                terrifies[h] = charging[c] and any(x.enemy_tests_on_charge for x in mine)
            for r in range(2):
                first = r == 0
                doubled = pike_front[s] and cav[t] and (first or
                                                        e["pike_double_dice_rounds"] == "all")
                dice[h, r, s] = units[s]["profile"]["hand_to_hand"] * (2 if doubled else 1)
                charge_round = first and charging[s]
                static = (hit["charging"] * charge_round + hit["skirmish"] * (
                    formation[s] == "skirmish") + hit["flank_or_rear"] * flank)
                for won in range(2):
                    for shaken in range(2):
                        mod = static + hit["won_last_round"] * won + hit[
                            "shaken_or_disordered"] * (shaken or dis[s])
                        target = min(hit["worst"], max(hit["best"], hit["base"] - mod))
                        p_hit[h, r, s, won, shaken] = p_at_least(target)
                reroll_misses[h, r, s] = any(
                    (x.reroll_misses == "charge" and charge_round)
                    or (x.reroll_misses == "first" and first) for x in mine)
                lance = sum(x.enemy_save_on_charge for x in mine) if charge_round else 0
                target = max(save["best"], units[t]["profile"]["morale"] - base_save - lance)
                p_save[h, r, s] = p_at_least(target)
                p_unsaved[h, r, s] = 1 - p_save[h, r, s]
                result_bonus[h, r, s] = (
                    support + cr["square_vs_cavalry"] * (formation[s] == "square" and cav[t])
                    + min(units[s]["building"], cr["max_building"])
                    + (sum(x.charge_result_bonus for x in mine) if charge_round else 0))
                result_d3[h, r, s] = charge_round and any(x.charge_result_d3 for x in mine)

    start = FIGHT
    if reaction == "evade":
        start = EVADED if e["evade_room"] else EVADER_DESTROYED
    elif (cav[c] and units[1 - c]["formation"] == "square" and not dis[1 - c]
          and not is_shaken(units[1 - c])):
        start = HALTED  # cavalry halts short of a steady square (§5.4)
    closing_dice = units[1 - c]["profile"]["shooting"] if reaction == "closing fire" else 0
    mod = hit["closing_fire"] + hit["shaken_or_disordered"] * (dis[1 - c]
                                                                or is_shaken(units[1 - c]))
    closing_target = min(hit["worst"], max(hit["best"], hit["base"] - mod))
    closing_save = max(save["best"], units[c]["profile"]["morale"] - save["artillery_closing_fire"]
                       * (units[1 - c]["type"] in ARTILLERY) - save["attack_column"] * (
                           units[c]["formation"] == "attack column"))
    bands, shaken_retire_breaks = break_test()
    band = np.zeros(12 - LOWEST + 1, np.int64)
    for i, score in enumerate(range(LOWEST, 13)):
        band[i] = next(code for top, code in bands if top is None or score <= top)
    stamina = np.array([u["profile"]["stamina"] for u in units], np.int64)
    return with_laws(Plan(
        dice=dice, p_hit=p_hit, reroll_misses=reroll_misses, reroll_one_miss=reroll_one_miss,
        p_unsaved=p_unsaved, reroll_one_save=reroll_one_save, p_save=p_save,
        result_bonus=result_bonus, result_d3=result_d3, test_on_casualty=test_on_casualty,
        first_test_passed=first_test_passed, square=square,
        test_rerolls=test_rerolls, terrifies=terrifies,
        cavalry=np.array(cav, np.bool_), stamina=stamina,
        start_casualties=np.array([stamina[s] if is_shaken(units[s]) else 0 for s in range(2)],
                                  np.int64),
        sweeps=np.array([cav[s] and e["sweeping_advance"] for s in range(2)], np.bool_),
        band=band, shaken_retire_breaks=shaken_retire_breaks, start=start,
        hedgehog_order=e["hedgehog_order"] if reaction == "hedgehog" else 0,
        ordered=e["staff_rating"] is not None, order_chance=order_chance(scenario),
        closing_dice=closing_dice, closing_p_hit=p_at_least(closing_target),
        closing_p_unsaved=1 - p_at_least(closing_save), charger=c,
        max_rounds=scenario.simulation["max_rounds"]))


def order_chance(scenario) -> float:
    """P(the charger's order brings it into contact) (R4-1): 2D6 against the staff rating
    with its modifiers; the moves the roll gives (or a blunder's) cover the distance. 1.0
    without an order roll."""
    e = scenario.engagement
    if e["staff_rating"] is None:
        return 1.0
    table = orders()
    unit = scenario.side(e["charger"]).options
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
