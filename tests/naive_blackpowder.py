"""Pure-Python reference for blackpowder: one fight at a time, one real die at a time.

Written from odds/rulesets/blackpowder/README.md and RULES.md §5, not from the kernel: every
modifier is worked out per round from the scenario, every miss and failed save is re-rolled
as a die. Slow and obvious; the kernel must agree with it statistically.
"""
from __future__ import annotations

import random
from fractions import Fraction
from functools import cache

from odds.core.outcome import (
    ATTACKER,
    DEFENDER,
    DESTROYED,
    FLED,
    MUTUAL,
    NO_FIGHT,
    NONE,
    UNRESOLVED,
)
from odds.rulesets.blackpowder import rules

CAVALRY = ("cavalry", "heavy cavalry")


@cache
def tables():
    """The data tables (modifiers, break test, special rules), read and checked once."""
    return rules.modifiers(), rules.break_test(), rules.special_rules()


class Unit:
    """One side's unit during a fight."""

    def __init__(self, options: dict):
        self.o = options
        self.type = options["type"]
        self.formation = options["formation"]
        self.hth = options["profile"]["hand_to_hand"]
        self.shooting = options["profile"]["shooting"]
        self.morale = options["profile"]["morale"]
        self.stamina = options["profile"]["stamina"]
        self.disordered = "disordered" in options["status"]
        self.start = self.stamina if "shaken" in options["status"] else 0
        self.casualties = self.start
        self.suffered = 0
        self.won_last = False
        self.face = "front"
        self.charging = False
        self.rules_active = True
        known = tables()[2]
        self.rules = [known[n] for n in options["rules"]]
        self.steady_used = False
        self.rerolls = 0

    @property
    def shaken(self) -> bool:
        return self.casualties >= self.stamina

    def has(self, effect: str):
        return [getattr(r, effect) for r in self.rules if self.rules_active and getattr(r, effect)]


def d6(rng):
    return rng.randint(1, 6)


def clamp_hit(target, hit):
    return min(hit["worst"], max(hit["best"], target))


def break_test_roll(rng, unit: Unit, deduction: int) -> str:
    """§5.5 with steady, squares, valiant and the shaken rule."""
    bands, shaken_breaks = tables()[1]
    if unit.has("pass_first_break_test") and not unit.steady_used:
        unit.steady_used = True
        return "hold"
    while True:
        score = d6(rng) + d6(rng) - deduction
        result = next(("hold", "retire", "break")[code] for top, code in bands
                      if top is None or score <= top)
        if unit.formation == "square" and result != "break":
            result = "hold"
        if result == "retire" and shaken_breaks and unit.shaken:
            result = "break"
        if result == "hold" or unit.rerolls == 0:
            return result
        unit.rerolls -= 1


def strike(rng, s: Unit, t: Unit, first: bool, e: dict, mods) -> int:
    """Side s's dice against t this round: casualties inflicted (R4-5, R4-6, §5.3)."""
    hit, save = mods["to_hit"], mods["morale_save"]
    charge_round = first and s.charging
    dice = s.hth
    if (s.type == "pikes" and not s.disordered and s.face == "front" and t.type in CAVALRY
            and (first or e["pike_double_dice_rounds"] == "all")):
        dice *= 2
    mod = 0
    if charge_round:
        mod += hit["charging"]
    if s.won_last:
        mod += hit["won_last_round"]
    if s.shaken or s.disordered:
        mod += hit["shaken_or_disordered"]
    if s.formation == "skirmish":
        mod += hit["skirmish"]
    if s.face != "front":
        mod += hit["flank_or_rear"]
    target = clamp_hit(hit["base"] - mod, hit)
    reroll_all = any((r == "charge" and charge_round) or (r == "first" and first)
                     for r in s.has("reroll_misses"))
    hits, missed = 0, 0
    for _ in range(dice):
        roll = d6(rng)
        if roll < target and reroll_all:
            roll = d6(rng)
        if roll >= target:
            hits += 1
        else:
            missed += 1
    if missed and s.has("reroll_one_miss") and not reroll_all and d6(rng) >= target:
        hits += 1
    save_target = t.morale
    if t.formation == "march column":
        save_target -= save["march_column"]
    if t.formation == "attack column":
        save_target -= save["attack_column"]
    if charge_round:
        save_target -= sum(s.has("enemy_save_on_charge"))
    save_target = max(save["best"], save_target)
    failed = sum(d6(rng) < save_target for _ in range(hits))
    if failed and t.has("reroll_one_failed_save") and d6(rng) >= save_target:
        failed -= 1
    return failed


def combat_result(rng, s: Unit, t: Unit, inflicted: int, first: bool, mods) -> int:
    """Casualties inflicted plus the §5.3 bonuses."""
    cr = mods["combat_result"]
    result = inflicted
    if not (s.type in ("artillery", "horse artillery") or s.formation in ("skirmish", "square")
            or s.o["building"] or s.face != "front"):
        result += cr["rear_support"] * s.o["rear_support"]
        result += cr["flank_support"] * min(s.o["flank_supports"], cr["max_flank_supports"])
    if s.formation == "square" and t.type in CAVALRY:
        result += cr["square_vs_cavalry"]
    result += min(s.o["building"], cr["max_building"])
    if first and s.charging:
        result += sum(s.has("charge_result_bonus"))
        if s.has("charge_result_d3"):
            result += (d6(rng) + 1) // 2
    return result


def order_goes_in(rng, scenario) -> bool:
    """R4-1: the commander's 2D6 against the modified staff rating, a blunder on the blunder
    roll (its D6, and a further D6 for a charge's moves); the charge goes in when the moves
    made towards the target cover the distance."""
    e = scenario.engagement
    table = rules.orders()
    unit = scenario.side(e["charger"]).options
    rating = e["staff_rating"] + (e["command_modifier"] or 0)
    rating += table.modifiers["per_12_inches_from_commander"] * int((e["commander_distance"]
                                                                      or 0) / 12)
    if e["charge_distance"] <= 12:
        rating += table.modifiers["enemy_within_12_inches"]
    if unit["formation"] == "attack column":
        rating += table.modifiers["attack_column"]
    move = e["move"] or table.move[unit["type"]]
    roll = d6(rng) + d6(rng)
    if roll == table.blunder_roll:
        moves = table.blunder[d6(rng) - 1]
        made = moves[0] if len(set(moves)) == 1 else moves[d6(rng) - 1]
    elif roll > rating:
        return False
    else:
        made = table.moves_by_margin[min(rating - roll, len(table.moves_by_margin) - 1)]
    return made * Fraction(str(move)) >= Fraction(str(e["charge_distance"]))  # exact decimals


def fight(scenario, rng: random.Random) -> dict:
    """One charge and melee; the outcome record's values as a dict."""
    mods = tables()[0]
    e = scenario.engagement
    units = [Unit(scenario.attacker.options), Unit(scenario.defender.options)]
    c = 0 if e["charger"] == "attacker" else 1
    charger, target = units[c], units[1 - c]
    side = (ATTACKER, DEFENDER)
    winner, end, rounds = NONE, UNRESOLVED, 0
    reaction = e["reaction"]

    def record():
        w = winner - 1
        sweep = (rounds > 0 and w >= 0 and e["sweeping_advance"] and units[w].type in CAVALRY
                 and not units[w].shaken)
        return {"winner": winner, "end": end, "rounds": rounds,
                "attacker_lost": units[0].casualties - units[0].start,
                "defender_lost": units[1].casualties - units[1].start,
                "attacker_wounds": units[0].suffered, "defender_wounds": units[1].suffered,
                "attacker_shaken": int(units[0].shaken), "defender_shaken": int(units[1].shaken),
                "sweeping_advance": int(sweep)}

    if e["staff_rating"] is not None and not order_goes_in(rng, scenario):
        end = NO_FIGHT
        return record()
    if reaction == "evade":
        if not e["evade_room"]:
            winner, end = side[c], DESTROYED
        else:
            end = NO_FIGHT
        return record()
    if (charger.type in CAVALRY and target.formation == "square" and not target.disordered
            and not target.shaken):
        end = NO_FIGHT
        return record()
    if reaction == "hedgehog" and d6(rng) + d6(rng) <= e["hedgehog_order"]:
        target.formation = "hedgehog"
    if reaction != "turn to face" and target.formation not in ("square", "hedgehog"):
        target.face = e["facing"]
    charger.charging = True
    if reaction == "counter-charge":
        target.charging = True
        if charger.type not in CAVALRY:
            charger.charging = False
    for s, t in ((charger, target), (target, charger)):
        pikes_front = t.type == "pikes" and not t.disordered and t.face == "front"
        if s.type in CAVALRY and pikes_front and (s is charger or reaction == "counter-charge"):
            s.charging = False
            s.rules_active = False
        if s.type in CAVALRY and t.formation == "square":
            s.charging = False
    for u in units:
        u.rerolls = sum(u.has("break_test_rerolls"))

    hit, save = mods["to_hit"], mods["morale_save"]
    if reaction == "closing fire":
        mod = hit["closing_fire"] + (hit["shaken_or_disordered"]
                                     if target.shaken or target.disordered else 0)
        to_hit = clamp_hit(hit["base"] - mod, hit)
        save_target = charger.morale
        if target.type in ("artillery", "horse artillery"):
            save_target -= save["artillery_closing_fire"]
        if charger.formation == "attack column":
            save_target -= save["attack_column"]
        save_target = max(save["best"], save_target)
        hits = sum(d6(rng) >= to_hit for _ in range(target.shooting))
        lost = sum(d6(rng) < save_target for _ in range(hits))
        charger.casualties += lost
        charger.suffered += lost
        if lost and (charger.shaken or charger.has("test_on_casualty")):
            result = break_test_roll(rng, charger, max(0, charger.casualties - charger.stamina))
            charger.casualties = min(charger.casualties, charger.stamina)
            if result != "hold":
                winner = side[1 - c]
                end = DESTROYED if result == "break" else FLED
                return record()
    if charger.charging and charger.has("enemy_tests_on_charge"):  # terrifying charge
        result = break_test_roll(rng, target, 0)
        if result != "hold":
            winner = side[c]
            end = DESTROYED if result == "break" else FLED
            return record()

    for k in range(scenario.simulation["max_rounds"]):
        first = k == 0
        rounds = k + 1
        inflicted = [strike(rng, units[s], units[1 - s], first, e, mods) for s in range(2)]
        for s in range(2):
            units[1 - s].casualties += inflicted[s]
            units[1 - s].suffered += inflicted[s]
        results = [combat_result(rng, units[s], units[1 - s], inflicted[s], first, mods)
                   for s in range(2)]
        tests = ["hold", "hold"]
        if results[0] != results[1]:
            w = 0 if results[0] > results[1] else 1
            units[w].won_last, units[1 - w].won_last = True, False
            tests[1 - w] = break_test_roll(rng, units[1 - w], results[w] - results[1 - w])
            if units[w].has("test_on_casualty") and inflicted[1 - w]:
                tests[w] = break_test_roll(rng, units[w], 0)
        else:
            for s in range(2):
                units[s].won_last = False
                if units[s].shaken:
                    tests[s] = break_test_roll(rng, units[s], 0)
                elif units[s].type in CAVALRY:
                    tests[s] = "retire"
                elif units[s].has("test_on_casualty") and inflicted[1 - s]:
                    tests[s] = break_test_roll(rng, units[s], 0)
        for u in units:
            u.casualties = min(u.casualties, u.stamina)
        if "break" in tests:
            if tests[0] == tests[1]:
                winner, end = NONE, MUTUAL
            else:
                winner, end = (DEFENDER if tests[0] == "break" else ATTACKER), DESTROYED
            return record()
        if "retire" in tests:
            if tests[0] == tests[1]:
                winner, end = NONE, UNRESOLVED
            else:
                winner, end = (DEFENDER if tests[0] == "retire" else ATTACKER), FLED
            return record()
    return record()
