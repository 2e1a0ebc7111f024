"""Each exact solver against its naive reference directly, not through the kernel (issue 24):
the solver and the kernel read one rule text, so a mistake in it would be shared by both and
invisible to their parity; the references (tests/naive_*.py, one real die at a time, written
from the rules) are the independent check. Every outcome probability and column mean of
REFERENCE_TRIALS reference fights within |z| < 4 of the exact distribution (exact_parity).

The scenarios: every bundled blackpowder and d10skirmish scenario and the parity cases that
reach the rules the bundled ones do not (R-ids in their names); for wh40k3 (issue 26) every
one-unit parity case (test_wh40k3_parity.py, R-ids in their names) and every several-unit
case of units_scenarios.py that solves in a few seconds: all but the two squads against a
mob (bundled: solved and checked against the kernel in test_wh40k3_exact_solver.py, 40 s),
two_v_two_strikes_refill (37 s), cover_frag_and_fresh_in_cover (14 s) and
two_v_two_both_fresh (over 2,000,000 states); for whfb8 (issue 27) the one-unit parity cases
of test_whfb8_parity.py the solver takes under its bound (against tests/naive_whfb8.py), and
the several-unit cases of test_whfb8_units_parity.py (characters, champions, challenges,
overkill, combined charges: against tests/naive_whfb8_units.py) but three too big; for
mordheim (issue 28) every parity case of test_mordheim_parity.py and the solver's own
(test_mordheim_exact_solver.py), R1-1 ... R1-12 between them."""
from __future__ import annotations

import random
from pathlib import Path

import naive_blackpowder
import naive_d10skirmish
import naive_mordheim
import naive_wh40k3
import naive_whfb8
import numpy as np
import pytest
import test_blackpowder_parity as bp
import test_d10skirmish_parity as d10
import test_mordheim_exact_solver as mordheim_exact
import test_mordheim_parity as mordheim
import test_wh40k3_parity as wh40k3
import test_whfb8_parity as whfb8
import test_whfb8_units_parity as whfb8_units
import units_scenarios
from exact_parity import assert_parity, solved

from odds.core.tally import Tally
from odds.rulesets import get_ruleset
from odds.rulesets.whfb8.units import led
from odds.scenario import as_scenario

BUNDLED = sorted((Path(__file__).resolve().parents[1] / "data" / "scenarios")
                 .glob("blackpowder_*.toml"))
REFERENCE_TRIALS = 6_000
MOST_STATES = 1_000_000  # past wh40k3's default bound: per_unit_ld, retarget_after_wipe_out
SEED = 24



def whfb8_prepare(scenario):
    """The one-unit reference's tables, or None for the reference of several units."""
    return None if led(scenario) else naive_whfb8.prepare(scenario)


def whfb8_play(scenario, rng, prepared) -> dict:
    """One fight of whfb8's references: tests/naive_whfb8.py for one unit a side, else
    tests/naive_whfb8_units.py, its units' columns by name."""
    if prepared is not None:
        return naive_whfb8.play_fight(scenario, rng, prepared)
    return whfb8_units.reference_fight(scenario, rng)


def mordheim_play(scenario, rng, prepared) -> dict:
    """One fight of tests/naive_mordheim.py, its dice from ``rng``."""
    dice = naive_mordheim.Dice(0)
    dice.rng = rng
    return naive_mordheim.play_fight(prepared, dice)


PLAY = {"blackpowder": naive_blackpowder.fight, "d10skirmish": naive_d10skirmish.play_fight,
        "mordheim": mordheim_play, "wh40k3": naive_wh40k3.play_fight, "whfb8": whfb8_play}
PREPARE = {"mordheim": naive_mordheim.prepare,  # a reference's work done once per scenario
           "wh40k3": naive_wh40k3.prepare, "whfb8": whfb8_prepare}
# whfb8 (issue 27): the one-unit parity cases the solver takes under its bound
# (test_whfb8_parity.py; those of rolled counts and Multiple Wounds are simulated, Daemonic
# Instability over 8 rounds is past the bound), and every units parity case but the three
# past a million states or two minutes
WHFB8 = [c for c in whfb8.CASES
         if c not in ("rolled_hits", "slaying_multiple_wounds", "instability_numbers")]
WHFB8_SLOW_UNITS = ("pinned_example",      # the bundled combined charge: 768,403 states, 1-2 min
                    "two_defenders_lose",  # past 1,000,000 states
                    "general_lends_ld")
SLOW_UNITS = ("issue_two_squads_vs_ork_mob", "two_v_two_strikes_refill",
              "cover_frag_and_fresh_in_cover", "two_v_two_both_fresh")
CASES = {
    **{f"blackpowder: {p.stem}": p for p in BUNDLED},
    "blackpowder: R4-4 closing fire, wavering charger":
        bp.SCENARIOS["R4-4 closing fire, wavering charger"],
    "blackpowder: R4-4 hedgehog": bp.SCENARIOS["R4-4 hedgehog"],
    "blackpowder: R4-6 shaken square against cavalry":
        bp.SCENARIOS["R4-6 shaken square against cavalry"],
    "blackpowder: R4-6 drawn cavalry melee": bp.SCENARIOS["R4-6 drawn cavalry melee"],
    "blackpowder: R4-4 evade without room": bp.SCENARIOS["R4-4 evade without room"],
    **{f"d10skirmish: {name}": make for name, make in d10.CASES.items() if "bundled" in name},
    "d10skirmish: R3-8 flee in turn 2":
        d10.CASES["R3-8_flee_in_turn_2-R3-4_one_die_back"],
    "d10skirmish: R3-6 turn 2 and 3 dice":
        d10.CASES["R3-6_turn_2_and_3_dice-R3-7_turned_crits_never_blocked"],
    "d10skirmish: R3-9 push by defender":
        d10.CASES["R3-9_push_by_defender_no_fall-charged_ap_left_0"],
    "d10skirmish: A5 max rounds": d10.CASES["A5_max_rounds_unresolved"],
    "d10skirmish: A6 mutual": d10.CASES["A6_mutual_destruction"],
    **{f"wh40k3: {rid}": (lambda case=case: wh40k3.build(case)) for rid, case, _ in wh40k3.CASES},
    **{f"wh40k3: R0-13 {name}": (lambda name=name: units_scenarios.scenario(name))
       for name in units_scenarios.SCENARIOS if name not in SLOW_UNITS},
    **{f"whfb8: {case}": (lambda case=case: whfb8.build(case)) for case in WHFB8},
    **{f"whfb8: R2-4 {case}": (lambda case=case: whfb8_units.build(case))
       for case in whfb8_units.CASES if case not in WHFB8_SLOW_UNITS},
    **{f"mordheim: {case}": (lambda case=case: mordheim.build(case)) for case in mordheim.CASES},
    **{f"mordheim: {case}": make for case, make in mordheim_exact.EXTRA.items()},
}


def reference_tally(scenario) -> Tally:
    """REFERENCE_TRIALS fights of the naive reference, as a tally of the record's columns."""
    ruleset = get_ruleset(scenario.ruleset)
    columns = ruleset.columns(scenario)
    rng = random.Random(SEED)
    play = PLAY[scenario.ruleset]
    if scenario.ruleset in PREPARE:
        prepared = PREPARE[scenario.ruleset](scenario)
        fights = [play(scenario, rng, prepared) for _ in range(REFERENCE_TRIALS)]
    else:
        fights = [play(scenario, rng) for _ in range(REFERENCE_TRIALS)]
    tally = Tally(columns)
    tally.add(np.array([[f[c] for f in fights] for c in columns], np.int32))
    return tally


@pytest.mark.parametrize("name", CASES)
def test_exact_solver_matches_the_naive_reference(name):
    case = CASES[name]
    scenario = as_scenario(case() if callable(case) else case)
    assert_parity(scenario, trials=REFERENCE_TRIALS, tally=solved(scenario, MOST_STATES),
                  simulated=reference_tally(scenario))


def test_a_wrong_rule_is_caught():
    """Power: the reference of one scenario against the exact solution of another, one die
    of hand-to-hand apart, fails."""
    base = as_scenario(bp.SCENARIOS["R4-6 drawn cavalry melee"])
    other = as_scenario(bp.scenario(bp.unit("Light horse", "cavalry", 4, 0, morale=6),
                                    bp.unit("Chasseurs", "cavalry", 3, 0, morale=6)))
    with pytest.raises(AssertionError):
        assert_parity(base, trials=REFERENCE_TRIALS, tally=solved(other),
                      simulated=reference_tally(base))
