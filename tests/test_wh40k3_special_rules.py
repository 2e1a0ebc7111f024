"""wh40k3 special rules as data (data/wh40k3/special_rules.toml, a weapon's dice keys and a
scenario's own [special_rules]): each rule's per-attack probability against an enumeration of
both dice of every re-roll (R0-5 to hit, R0-7 to wound), the one-die-at-a-time reference
against the same probability, the rules that change attacks, strength, Initiative, placement
and morale (R0-2, R0-3, R0-4, R0-11), rules that stack and rules that must not, whole fights
simulated against solved exactly, and the data-only house rule."""
from __future__ import annotations

import itertools
import random
import subprocess
import sys
from fractions import Fraction

import naive_wh40k3 as naive
import pytest
from exact_parity import assert_parity
from stats import assert_rate

import odds
from odds.errors import ScenarioError
from odds.rulesets.wh40k3.compile import (ADVANCE, CONTACT, FEARLESS_LD, FIRST, LATER, NOBODY,
                                          REACH, compile_plan)

MARINE = dict(WS=4, S=4, T=4, W=1, I=4, A=1, Ld=8, Sv=3)
GUARD = dict(WS=3, S=3, T=3, W=1, I=3, A=1, Ld=7, Sv=5)


def scenario(a_rules=(), d_rules=(), *, attacker=MARINE, defender=MARINE, a_equipment=(),
             d_equipment=(), own=None, weapons=None, a_side=None, d_side=None, **engagement):
    data = {"ruleset": "wh40k3", "name": "rules",
            "attacker": {"name": "A", **(a_side or {}), "models": [
                {"name": "A", "count": 5, "profile": attacker, "equipment": list(a_equipment),
                 "rules": list(a_rules)}]},
            "defender": {"name": "D", **(d_side or {}), "models": [
                {"name": "D", "count": 5, "profile": defender, "equipment": list(d_equipment),
                 "rules": list(d_rules)}]},
            "engagement": engagement}
    if own:
        data["special_rules"] = own
    if weapons:
        data["weapons"] = weapons
    return odds.from_dict(data)


def die(ok, reroll=None):
    """{face: P} of a die's final face, by listing both dice of a possible re-roll."""
    out = {f: Fraction(0) for f in range(1, 7)}
    for first, second in itertools.product(range(1, 7), repeat=2):
        again = (reroll == "ones" and first == 1) or (reroll == "failures" and not ok(first))
        out[second if again else first] += Fraction(1, 36)
    return out


def enumerated(hit_need, wound_need, *, reroll_hit=None, reroll_wound=None, hit_mod=0,
               wound_mod=0):
    """P(one attack hits and wounds), summed over every final face of both dice: the
    rulebook's two steps written out (R0-5, R0-7), independent of odds.core.effects."""
    def rolls(need, mod):
        return lambda f: f != 1 and (f == 6 or f + mod >= need)

    if wound_need > 6:  # "N": the hit cannot wound
        return 0.0
    hit = sum(q for f, q in die(rolls(hit_need, hit_mod), reroll_hit).items()
              if rolls(hit_need, hit_mod)(f))
    wound = sum(q for f, q in die(rolls(wound_need, wound_mod), reroll_wound).items()
                if rolls(wound_need, wound_mod)(f))
    return float(hit * wound)


def p(sc, r=LATER, place=CONTACT, s=0):
    """The plan's P(hit and wound) of side s's first group against the enemy's first group."""
    plan = compile_plan(sc)
    return plan.p_wound[plan.chance[r], s, 0, place, 0]


CLAWS = ["lightning claw", "lightning claw"]

# Marines (WS4 S4) against Marines (WS4 T4): to hit 4+, to wound 4+; against Guard (WS3 T3)
# 3+ and 3+. Each case: the scenario, the enumerated chain, the round type, the place.
CASES = {
    "R0-5 Re-roll Misses": (dict(a_rules=["Re-roll Misses"]),
                            dict(hit_need=4, wound_need=4, reroll_hit="failures"), LATER, CONTACT),
    "R0-7 Re-roll Failed Wounds": (dict(a_rules=["Re-roll Failed Wounds"]),
                                   dict(hit_need=4, wound_need=4, reroll_wound="failures"),
                                   LATER, CONTACT),
    "R0-5 R0-7 within 2in: the rules' re-rolls": (
        dict(a_rules=["Re-roll Misses", "Re-roll Failed Wounds"], defender=GUARD),
        dict(hit_need=3, wound_need=3, reroll_hit="failures", reroll_wound="failures"),
        LATER, REACH),
    "R0-7 Furious Charge on the charge: S 5": (dict(a_rules=["Furious Charge"]),
                                               dict(hit_need=4, wound_need=3), FIRST, CONTACT),
    "R0-7 Furious Charge after the charge: S 4": (dict(a_rules=["Furious Charge"]),
                                                  dict(hit_need=4, wound_need=4), LATER, CONTACT),
    "R0-5 lightning claws, a pair: re-roll misses": (
        dict(a_equipment=CLAWS), dict(hit_need=4, wound_need=4, reroll_hit="failures"),
        LATER, CONTACT),
    "R0-5 lightning claw, one: a power weapon": (
        dict(a_equipment=["lightning claw", "bolt pistol"]), dict(hit_need=4, wound_need=4),
        LATER, CONTACT),
    "R0-2 lightning claws within 2in: no weapon effects": (
        dict(a_equipment=CLAWS), dict(hit_need=4, wound_need=4), LATER, REACH),
    "house: re-roll hits of 1, +1 to wound": (
        dict(a_rules=["Keen"], own={"Keen": {"reroll_hit": "ones", "wound_modifier": 1}}),
        dict(hit_need=4, wound_need=4, reroll_hit="ones", wound_mod=1), LATER, CONTACT),
    "house: -2 to hit, -3 to wound, a natural 6 still succeeds": (
        dict(a_rules=["Blind"], own={"Blind": {"hit_modifier": -2, "wound_modifier": -3}},
             defender=GUARD),
        dict(hit_need=3, wound_need=3, hit_mod=-2, wound_mod=-3), LATER, CONTACT),
    "house weapon: +1 to hit, re-roll wounds of 1": (
        dict(a_equipment=["talon"], weapons={"talon": {"hit_modifier": 1,
                                                       "reroll_wound": "ones"}}),
        dict(hit_need=4, wound_need=4, hit_mod=1, reroll_wound="ones"), LATER, CONTACT),
}


@pytest.mark.parametrize("case", CASES)
def test_per_attack_probability_matches_enumeration(case):
    """R0-5, R0-7 with special rules and weapons: the compiled P(hit and wound) is the
    enumeration of both dice of every re-roll."""
    sc_args, chain, r, place = CASES[case]
    assert p(scenario(**sc_args), r, place) == pytest.approx(enumerated(**chain), abs=1e-15)


@pytest.mark.parametrize("case", ["R0-5 Re-roll Misses", "R0-7 Furious Charge on the charge: S 5",
                                  "R0-5 lightning claws, a pair: re-roll misses",
                                  "house: re-roll hits of 1, +1 to wound",
                                  "R0-5 R0-7 within 2in: the rules' re-rolls"])
def test_reference_attack_matches_probability(case):
    """The reference's die-by-die attack (tests/naive_wh40k3.py) against the enumerated
    probability: 40,000 attacks, |z| < 4."""
    sc_args, chain, r, place = CASES[case]
    trials = 40_000
    hits = naive.attack_sample(scenario(**sc_args), random.Random(11), trials,
                               charge_round=r == FIRST, place=place)
    assert_rate(hits, trials, enumerated(**chain), case)


def test_rerolls_do_not_stack_R0_5():
    """A die is re-rolled once: re-roll misses with a re-roll of 1s (a rule and the weapon's
    pair) is re-roll misses; two re-rolls of misses are still one."""
    own = {"Grudging": {"reroll_hit": "ones"}}
    once = enumerated(4, 4, reroll_hit="failures")
    assert p(scenario(["Grudging"], own=own, a_equipment=CLAWS)) == pytest.approx(once,
                                                                                  abs=1e-15)
    assert p(scenario(["Re-roll Misses"], a_equipment=CLAWS)) == pytest.approx(once, abs=1e-15)
    assert p(scenario(["Grudging"], own=own)) == pytest.approx(
        enumerated(4, 4, reroll_hit="ones"), abs=1e-15)


def test_modifiers_add_R0_5_R0_7():
    """Two +1 to hit make +2 (a rule and a weapon); re-rolls and modifiers both apply."""
    own = {"Keen": {"hit_modifier": 1}, "Cruel": {"wound_modifier": 1}}
    sc = scenario(["Keen", "Cruel", "Re-roll Misses"], own=own, a_equipment=["talon"],
                  weapons={"talon": {"hit_modifier": 1}})
    assert p(sc) == pytest.approx(enumerated(4, 4, hit_mod=2, wound_mod=1,
                                             reroll_hit="failures"), abs=1e-15)


def test_furious_charge_is_for_the_charge_round_of_the_charger_R0_3_R0_4_R0_7():
    """+1 S and +1 I in the round the unit charged: the first round if it charged, the
    first round of a combat it advanced into (R0-12); nothing when it is charged."""
    plan = compile_plan(scenario(["Furious Charge"]))
    assert list(plan.step[:, 0, 0, CONTACT]) == [5, 4, 5, 4]  # FIRST, LATER, its advance, theirs
    assert list(plan.step[:, 0, 0, REACH]) == [5, 4, 5, 4]
    assert list(plan.attacks[:, 0, 0, CONTACT]) == [2, 1, 2, 1]  # the charge bonus only
    assert p(scenario(["Furious Charge"]), ADVANCE) == p(scenario(["Furious Charge"]), FIRST)
    charged = compile_plan(scenario(["Furious Charge"], charger="defender"))
    assert list(charged.step[:, 0, 0, CONTACT]) == [4, 4, 5, 4]
    assert p(scenario(["Furious Charge"], charger="defender"), FIRST) == pytest.approx(
        enumerated(4, 4), abs=1e-15)


def test_caps_are_caps_R0_4_R0_8():
    """S stays within the weapon's cap (power fist S5 x2 + 1 = 11 is S10) and Initiative
    within 1-10: +1 on I10 is 10, -9 on I4 is 1 (never the strikes-last step)."""
    fist = scenario(["Furious Charge"], attacker={**MARINE, "S": 5, "I": 10},
                    defender={**MARINE, "T": 9}, a_equipment=["power fist"])
    assert p(fist, FIRST) == pytest.approx(enumerated(4, 3), abs=1e-15)  # S10 v T9: 3+
    assert compile_plan(scenario(["Furious Charge"], attacker={**MARINE, "I": 10})).step[
        FIRST, 0, 0, CONTACT] == 10
    slow = scenario(["Slow"], own={"Slow": {"initiative_bonus": -9}})
    assert list(compile_plan(slow).step[:, 0, 0, CONTACT]) == [1, 1, 1, 1]


def test_extra_attacks_when_charged_in_contact_only_R0_2_R0_3():
    """A house Counter-attack of later editions (+1 A when charged): in the round the unit
    was charged, for its models in contact; a model within 2" keeps its 1 attack."""
    own = {"Riposte": {"extra_attacks": 2, "when": "charged"}}
    plan = compile_plan(scenario(d_rules=["Riposte"], own=own))
    # round types: FIRST, LATER, the attacker's advance, the defender's (the charge bonus)
    assert list(plan.attacks[:, 1, 0, CONTACT]) == [3, 1, 3, 2]
    assert list(plan.attacks[:, 1, 0, REACH]) == [1, 1, 1, 1]
    plan = compile_plan(scenario(["Riposte"], own=own))
    assert list(plan.attacks[:, 0, 0, CONTACT]) == [2, 1, 2, 3]


def test_counter_attack_puts_the_charged_unit_in_contact_R0_2():
    """Counter-attack: when charged, every model moves into contact, whatever in_contact
    says; a charging unit, or one without the rule, keeps its places."""
    side = {"in_contact": 2, "within_2in": 1}
    plan = compile_plan(scenario(d_rules=["Counter-attack"], a_side=side, d_side=side))
    assert list(plan.limits[:, 0, 0]) == [2, NOBODY]
    plan = compile_plan(scenario(["Counter-attack"], a_side=side, d_side=side))
    assert list(plan.limits[:, 0, 0]) == [2, 2]


def test_fearless_passes_its_tests_R0_11():
    """A unit passes its morale checks while a Fearless model stands (Ld FEARLESS_LD, which
    2D6 never exceeds); its Ld key is then its other models' Ld."""
    plan = compile_plan(scenario(d_rules=["Fearless"], d_side={"Ld": 5}))
    assert plan.leadership[1, 0] == FEARLESS_LD and plan.ld_override[1, 0] == 0
    sc = scenario(d_rules=["Fearless"], defender=GUARD, attacker={**MARINE, "A": 2})
    fights = odds.simulate(sc, trials=20_000, seed=5, keep_fights=True).fights()
    beaten = fights[fights["winner"] == "attacker"]
    assert len(beaten) > 10_000 and set(beaten["end"]) == {"destroyed"}


def test_fearless_with_other_groups_and_an_ld_key():
    """Groups without Fearless test on the unit's Ld key once the Fearless model is gone."""
    data = scenario(d_side={"Ld": 6}).to_dict()
    data["defender"]["models"].append({"name": "Priest", "count": 1, "profile": GUARD,
                                       "rules": ["Fearless"], "character": True})
    plan = compile_plan(odds.from_dict(data))
    assert list(plan.leadership[1]) == [6, FEARLESS_LD] and plan.ld_override[1, 0] == 0


def test_kernel_and_exact_solver_play_special_rules():
    """R0-3, R0-4, R0-5, R0-7, R0-11 in a whole fight: the kernel against the exact solver
    (both read the plan's per-round-type chances, attacks and steps, and the Fearless Ld)."""
    assert_parity(scenario(["Furious Charge", "Re-roll Misses"], ["Fearless"],
                           defender={**MARINE, "I": 5}, a_equipment=CLAWS), trials=100_000)
    own = {"Riposte": {"extra_attacks": 1, "hit_modifier": -1, "when": "charged"}}
    side = {"in_contact": 2, "within_2in": 2}
    assert_parity(scenario(d_rules=["Riposte", "Counter-attack"], own=own, defender=GUARD,
                           a_side=side, d_side=side, pile_in="refill"), trials=100_000)


ERRORS = [
    (dict(a_rules=["Furious Charg"]), "attacker.models[0].rules[0]",
     "unknown special rule 'Furious Charg'; did you mean 'Furious Charge'?"),
    (dict(a_rules=["X"], own={"X": {"rerol_hit": "ones"}}), "special_rules.X.rerol_hit",
     "unknown key"),
    (dict(a_rules=["X"], own={"X": {"reroll_hit": "sixes"}}), "special_rules.X.reroll_hit",
     "must be one of 'ones', 'failures'"),
    (dict(a_rules=["X"], own={"X": {"hit_modifier": 4}}), "special_rules.X.hit_modifier", ""),
    (dict(a_rules=["X"], own={"X": {"when": "first round"}}), "special_rules.X.when",
     "must be one of 'always', 'charging', 'charged'"),
    (dict(a_rules=["X"], own={"X": {"fearless": True, "when": "charging"}}),
     "special_rules.X.fearless", "holds for the whole combat"),
    (dict(a_rules=["X"], own={"X": {"counter_attack": True, "when": "charged"}}),
     "special_rules.X.counter_attack", "holds for the whole combat"),
    (dict(own={"Unused": {"strength_bonus": 10}}), "special_rules.Unused.strength_bonus", ""),
    (dict(a_rules=["Fearless", "Fearless"]), "attacker.models[0].rules[1]", "listed twice"),
    (dict(a_equipment=["claw"], weapons={"claw": {"pair": {"reroll_hit": "all"}}}),
     "weapons.claw.pair.reroll_hit", "must be one of"),
    (dict(a_equipment=["claw"], weapons={"claw": {"pair": {"strength_bonus": 1}}}),
     "weapons.claw.pair.strength_bonus", "unknown key"),
]


@pytest.mark.parametrize("args, field, message", ERRORS, ids=[e[1] for e in ERRORS])
def test_bad_special_rules_are_named(args, field, message):
    with pytest.raises(ScenarioError) as info:
        scenario(**args)
    assert info.value.field == field and message in info.value.message


def test_counter_attack_is_a_whole_units_rule():
    data = scenario(d_rules=["Counter-attack"]).to_dict()
    data["defender"]["models"].append({"name": "Guest", "count": 1, "profile": GUARD})
    with pytest.raises(ScenarioError) as info:
        odds.from_dict(data)
    assert info.value.field == "defender.models[1].rules"
    assert "whole unit's rule" in info.value.message


def test_house_rule_in_a_file_runs_from_the_cli(tmp_path):
    """The data-only path: a new rule in the user's scenario file, no code (exit 0), and a
    mistake in it is one line naming the key (exit 2)."""
    text = (open("data/scenarios/wh40k3_assault_marines_vs_boyz.toml").read()
            .replace('equipment = ["slugga", "choppa"]',
                     'equipment = ["slugga", "choppa"]\nrules = ["Waaagh"]', 1)
            + '\n[special_rules.Waaagh]\nstrength_bonus = 1\nreroll_hit = "ones"\n'
              'when = "charged"\n')
    path = tmp_path / "house.toml"
    path.write_text(text)
    run = subprocess.run([sys.executable, "-m", "odds", "simulate", str(path), "--trials",
                          "2000"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    path.write_text(text.replace('when = "charged"', 'when = "charged"\nfearless = true'))
    run = subprocess.run([sys.executable, "-m", "odds", "simulate", str(path), "--trials",
                          "2000"], capture_output=True, text=True)
    assert run.returncode == 2 and "special_rules.Waaagh.fearless" in run.stderr
    assert "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) == 1
