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
    UNIT_FATES,
    UNRESOLVED,
)
from odds.rulesets.blackpowder import rules
from odds.rulesets.blackpowder.brigade import melee

CAVALRY = ("cavalry", "heavy cavalry")


@cache
def tables():
    """The data tables (modifiers, break test, special rules), read and checked once."""
    return rules.modifiers(), rules.break_test(), rules.special_rules()


class Unit:
    """One unit during a fight."""

    def __init__(self, options: dict, name: str, side: int):
        self.o = options
        self.name = name
        self.side = side
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
        self.faces = {}  # the face each enemy in contact is on: front, flank or rear
        self.contacts = []  # enemies in contact, the one its dice go to first
        self.supports = []  # (supporting unit, "rear" or "flank")
        self.charging = False
        self.rules_active = True
        known = tables()[2]
        self.rules = [known[n] for n in options["rules"]]
        self.steady_used = False
        self.rerolls = 0
        self.fate = "standing" if options["in_melee"] else "unreached"
        self.swept = False  # it made the second charge: a move away from its supports

    @property
    def shaken(self) -> bool:
        return self.casualties >= self.stamina

    @property
    def standing(self) -> bool:
        return self.fate == "standing"

    def enemy(self):
        """The enemy in contact its dice go to, or None."""
        return next((v for v in self.contacts if v.standing), None)

    def flanked(self) -> bool:
        return any(v.standing and self.faces[v] != "front" for v in self.contacts)

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


def strike(rng, s: Unit, t: Unit, first: bool, won_last: bool, e: dict, mods) -> int:
    """Unit s's dice against t this round: casualties inflicted (R4-5, R4-6, §5.3)."""
    hit, save = mods["to_hit"], mods["morale_save"]
    charge_round = first and s.charging
    dice = s.hth
    if (s.type == "pikes" and not s.disordered and s.faces[t] == "front" and t.type in CAVALRY
            and (first or e["pike_double_dice_rounds"] == "all")):
        dice *= 2
    mod = 0
    if charge_round:
        mod += hit["charging"]
    if won_last:
        mod += hit["won_last_round"]
    if s.shaken or s.disordered:
        mod += hit["shaken_or_disordered"]
    if s.formation == "skirmish":
        mod += hit["skirmish"]
    if s.flanked():
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
    """Unit s's casualties inflicted plus the §5.3 bonuses: its own support keys and the
    units supporting it that still stand, unless it is flanked or cannot be supported."""
    cr = mods["combat_result"]
    result = inflicted
    if not (s.type in ("artillery", "horse artillery") or s.formation in ("skirmish", "square")
            or s.o["building"] or s.flanked() or s.swept):
        rear = int(s.o["rear_support"]) + sum(x.standing for x, at in s.supports if at == "rear")
        flanks = s.o["flank_supports"] + sum(x.standing for x, at in s.supports if at == "flank")
        result += cr["rear_support"] * rear
        result += cr["flank_support"] * min(flanks, cr["max_flank_supports"])
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
    unit = scenario.side(e["charger"]).every_unit[0].options
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
    """One charge and melee; the outcome record's values as a dict (with several units a
    side, each unit's fate, lost and wounds too)."""
    mods = tables()[0]
    e = scenario.engagement
    m = melee(scenario)
    units = [Unit(o, name, side) for o, name, side in zip(m.units, m.names, m.side)]
    for u, t in enumerate(m.target):
        if t >= 0:
            units[u].contacts.append(units[t])
            units[t].contacts.append(units[u])
            units[u].faces[units[t]] = "front"
            units[t].faces[units[u]] = m.facing[u]
            units[u].charging = True
    for u in units:  # the charged unit's dice go to its front charger first
        u.contacts.sort(key=lambda v: ("front", "flank", "rear").index(u.faces[v]))
    for x, u in enumerate(m.supports):
        if u >= 0:
            units[u].supports.append((units[x], m.support_from[x]))
    c = 0 if e["charger"] == "attacker" else 1
    side = (ATTACKER, DEFENDER)
    winner, end, rounds = NONE, UNRESOLVED, 0
    reaction = e["reaction"]
    in_melee = [u for u in units if u.contacts]
    fought = list(in_melee)  # and a fresh unit once charged
    won_last = [False, False]
    second = []  # the round a second charge came before (§5.4), once a fight

    def record():
        w = winner - 1
        out = {"winner": winner, "end": end, "rounds": rounds}
        for s, key in enumerate(("attacker", "defender")):
            mine = [u for u in units if u.side == s]
            out[f"{key}_lost"] = sum(u.casualties - u.start for u in mine)
            out[f"{key}_wounds"] = sum(u.suffered for u in mine)
        for s, key in enumerate(("attacker", "defender")):
            out[f"{key}_shaken"] = int(any(u.shaken for u in units if u.side == s))
        out["sweeping_advance"] = int(rounds > 0 and w >= 0 and e["sweeping_advance"] and any(
            u.side == w and u.type in CAVALRY and not u.shaken and u.standing
            for u in fought))
        if m.several:
            for s, key in enumerate(("attacker", "defender")):
                for i, u in enumerate(x for x in units if x.side == s):
                    out[f"{key}.units[{i}].fate"] = UNIT_FATES.index(
                        {"standing": "standing", "broken": "destroyed", "retired": "fled",
                         "unreached": "unreached"}[u.fate])
                    out[f"{key}.units[{i}].lost"] = u.casualties - u.start
                    out[f"{key}.units[{i}].wounds"] = u.suffered
                    out[f"{key}.units[{i}].shaken"] = int(u.shaken)
        return out

    def leave(u, result):
        if result != "hold":
            u.fate = "broken" if result == "break" else "retired"

    def beaten(s):
        return not any(u.standing for u in in_melee if u.side == s)

    def ended(broke):
        """The winner and end once a side has no unit of the melee standing, else None."""
        out = [beaten(0), beaten(1)]
        if not any(out):
            return None
        if all(out):
            if broke[0] and broke[1]:
                return NONE, MUTUAL
            if broke[0] or broke[1]:
                return (DEFENDER if broke[0] else ATTACKER), DESTROYED
            return NONE, UNRESOLVED
        loser = 0 if out[0] else 1
        fates = [u.fate for u in in_melee if u.side == loser]
        return side[1 - loser], (FLED if "retired" in fates else DESTROYED)

    if e["staff_rating"] is not None and not order_goes_in(rng, scenario):
        end = NO_FIGHT
        return record()
    charger = next(u for u in units if u.charging)
    target = charger.contacts[0]
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
    for t in units:
        if reaction == "turn to face" or t.formation in ("square", "hedgehog"):
            t.faces = {v: "front" for v in t.faces}
    if reaction == "counter-charge":
        target.charging = True
        if charger.type not in CAVALRY:
            charger.charging = False
    for s in units:
        for t in s.contacts:
            pikes_front = t.type == "pikes" and not t.disordered and t.faces[s] == "front"
            if s.type in CAVALRY and pikes_front and (s.charging or reaction == "counter-charge"):
                s.charging = False
                s.rules_active = False
            if s.type in CAVALRY and t.formation == "square":
                s.charging = False
    for u in units:
        u.rerolls = sum(u.has("break_test_rerolls"))

    def closing_fire(t, x):
        """t's closing fire at its charger x (R4-4)."""
        hit, save = mods["to_hit"], mods["morale_save"]
        mod = hit["closing_fire"] + (hit["shaken_or_disordered"]
                                     if t.shaken or t.disordered else 0)
        to_hit = clamp_hit(hit["base"] - mod, hit)
        save_target = x.morale
        if t.type in ("artillery", "horse artillery"):
            save_target -= save["artillery_closing_fire"]
        if x.formation == "attack column":
            save_target -= save["attack_column"]
        save_target = max(save["best"], save_target)
        hits = sum(d6(rng) >= to_hit for _ in range(t.shooting))
        lost = sum(d6(rng) < save_target for _ in range(hits))
        x.casualties += lost
        x.suffered += lost
        if lost and (x.shaken or x.has("test_on_casualty")):
            leave(x, break_test_roll(rng, x, max(0, x.casualties - x.stamina)))
            x.casualties = min(x.casualties, x.stamina)

    def sweep(over):
        """§5.4: the loser's fresh unit charged by the first unshaken cavalry unit of the
        winners still standing that may reach it; a new melee of the two. Whether it was."""
        if over[0] == NONE or rounds == 0 or second:
            return False
        loser = 0 if over[0] == DEFENDER else 1
        f = m.fresh[loser]
        found = [units[x] for x in (m.sweepers[f] if f >= 0 else [])
                 if units[x].standing and not units[x].shaken]
        if not found:
            return False
        x, y = found[0], units[f]
        second.append(rounds)
        y.fate = "standing"
        x.contacts, y.contacts = [y], [x]
        x.faces[y] = "front"
        y.faces[x] = "front" if y.formation in ("square", "hedgehog") else m.facing[f]
        x.charging = y.formation != "square"
        x.swept = True
        in_melee[:] = [x, y]
        fought.append(y)
        won_last[:] = [False, False]
        if reaction == "closing fire":
            closing_fire(y, x)
        if x.charging and x.has("enemy_tests_on_charge") and y.standing and x.standing:
            leave(y, break_test_roll(rng, y, 0))
        return True

    def finish(broke):
        """Whether the fight is over, after a second charge if one comes."""
        nonlocal winner, end
        over = ended(broke)
        if over and sweep(over):
            over = ended([any(u.fate == "broken" and u.side == s for u in in_melee)
                          for s in (0, 1)])  # the second charge's closing fire, its terror
        if over:
            winner, end = over
        return bool(over)

    if reaction == "closing fire":
        for t in units:
            if t.side != c and t.contacts:
                closing_fire(t, t.contacts[0])  # at the first unit charging it
    for t in units:  # terrifying charge
        if (t.side != c and t.standing and t.enemy() is not None
                and any(x.charging and x.has("enemy_tests_on_charge") for x in t.contacts)):
            leave(t, break_test_roll(rng, t, 0))
    if finish([any(u.fate == "broken" for u in units if u.side == s) for s in (0, 1)]):
        return record()

    for k in range(scenario.simulation["max_rounds"]):
        first = k == 0 or second == [k]
        rounds = k + 1
        fighting = [(u, u.enemy()) for u in units if u.standing and u.enemy() is not None]
        inflicted = {u: strike(rng, u, t, first, won_last[u.side], e, mods)
                     for u, t in fighting}
        results = [0, 0]
        for u, t in fighting:
            results[u.side] += inflicted[u]
        for u, t in fighting:  # the results' D3s after every unit struck
            results[u.side] += combat_result(rng, u, t, 0, first, mods)
        taken = {u: 0 for u in units}
        for u, t in fighting:
            taken[t] += inflicted[u]
        for u in units:
            u.casualties += taken[u]
            u.suffered += taken[u]
        if results[0] != results[1]:
            w = 0 if results[0] > results[1] else 1
            won_last = [w == 0, w == 1]
            for u, _ in fighting:
                if u.side != w:
                    leave(u, break_test_roll(rng, u, abs(results[0] - results[1])))
            for u, _ in fighting:
                if u.side == w and u.has("test_on_casualty") and taken[u]:
                    leave(u, break_test_roll(rng, u, 0))
        else:
            won_last = [False, False]
            for u, _ in fighting:
                if u.shaken:
                    leave(u, break_test_roll(rng, u, 0))
                elif u.type in CAVALRY:
                    leave(u, "retire")
                elif u.has("test_on_casualty") and taken[u]:
                    leave(u, break_test_roll(rng, u, 0))
        for u, _ in fighting:  # a broken unit's supports test (not after its sweep)
            if u.fate == "broken" and not u.swept:
                for x, _ in u.supports:
                    if x.standing:
                        leave(x, break_test_roll(rng, x, 0))
        for u in units:
            u.casualties = min(u.casualties, u.stamina)
        if finish([any(u.fate == "broken" and u.side == s for u, _ in fighting)
                   for s in (0, 1)]):
            return record()
    return record()
