"""The Mordheim exact solver (issue 12) against the simulation, the closed forms of
tests/test_mordheim_rules.py and its state bound.

Parity: every outcome probability and every column's mean within |z| < 4 of a 200,000-fight
simulation (tests/exact_parity.py), on the bundled scenarios and the parity scenarios of
tests/test_mordheim_parity.py, which together play R1-1 ... R1-12, plus three more below (All
Alone off; fists against a mounted charger's lance; improved criticals on a warrior of
several wounds, fights cut at max_rounds).
"""
from __future__ import annotations

from fractions import Fraction as F
from pathlib import Path

import pytest
from exact_parity import assert_parity, solved
from test_mordheim_parity import CASES, build
from test_mordheim_rules import W, injury_odds, one_blow, scenario

import odds
from odds.core.exact import TooManyStates, covers, module
from odds.rulesets import get_ruleset

SCENARIOS = Path(__file__).resolve().parents[1] / "data" / "scenarios"
BUNDLED = sorted(p.name for p in SCENARIOS.glob("mordheim_*.toml"))
RULESET = get_ruleset("mordheim")
CLOSE = 1e-12

# the most live fight states a strike step of the walk held (measured)
STATES = {"mordheim_captain_vs_night_runner.toml": 56, "mordheim_captain_vs_skaven.toml": 40,
          "mordheim_two_on_one.toml": 251}

EXTRA = {
    # R1-11 off: three against one, nobody tests All Alone, so nobody flees
    "all_alone_off": lambda: scenario(
        [W("Henchman", ["dagger", "club"], count=3, WS=2)],
        [W("Hero", ["sword", "buckler", "heavy armour", "helmet"], WS=4, S=4, W=2, I=4, A=2)],
        all_alone=False),
    # R1-3 fists (one blow, S - 1, +1 save) against R1-10 a mounted charger's lance (+2 S in
    # round 1) and a shield; the charged side defends
    "fists_against_a_lance": lambda: scenario(
        [W("Brawler", [], A=3, W=2, I=4)],
        [{**W("Outrider", ["lance", "shield", "light armour"], W=2), "mounted": True}],
        charger="defender"),
    # R1-7 improved criticals (5+), R1-9 several wounds each, R1-12 fights left at max_rounds
    "improved_criticals_three_rounds": lambda: odds.from_dict({
        "ruleset": "mordheim", "name": "t",
        "weapons": {"keen blade": {"parry": True, "crit_on": 5}},
        "attacker": {"name": "A", "models": [W("Duellist", ["keen blade"], W=3, A=2)]},
        "defender": {"name": "D", "models": [W("Ogre", ["mace", "light armour"], W=3, T=4,
                                               S=4, I=2)]},
        "simulation": {"max_rounds": 3}}),
}


def test_bundled_scenarios_are_parity_cases():
    assert set(BUNDLED) <= set(CASES) and BUNDLED


@pytest.mark.parametrize("case", CASES + sorted(EXTRA))
def test_exact_matches_simulation_R1_1_to_R1_12(case):
    sc = EXTRA[case]() if case in EXTRA else build(case)
    assert covers(RULESET, sc) is None
    zs = assert_parity(sc)
    if case == "all_alone_off":
        assert solved(sc).outcomes[:, 2].sum() == 0  # no fled end
    if case == "improved_criticals_three_rounds":
        assert solved(sc).outcomes[0, 4, 3] > 0.01  # unresolved after 3 rounds, as the kernel
    assert zs


def one_round(attacker, defender):
    return solved(scenario([attacker], [defender], max_rounds=1))


@pytest.mark.parametrize("weapon", ["axe", "club"])
def test_injury_chart_and_criticals_closed_form_R1_7_R1_9(weapon):
    """The charger's single blow of round 1: knocked down, stunned, out of action."""
    tally = one_round(W("a", [weapon]), W("d", [], I=1))
    kd, stun, ooa = one_blow(concussion=weapon == "club")
    assert tally.mean("defender_knocked_down") == pytest.approx(float(kd), abs=CLOSE)
    assert tally.mean("defender_stunned") == pytest.approx(float(stun), abs=CLOSE)
    assert tally.mean("defender_lost") == pytest.approx(float(ooa), abs=CLOSE)
    assert injury_odds(bonus=2)[2] > injury_odds()[2]  # the helper is the one under test


@pytest.mark.parametrize("items,rerolls", [(["sword"], False), (["sword", "buckler"], True)])
def test_parry_closed_form_R1_5(items, rerolls):
    tally = one_round(W("a", W=3), W("d", items, I=1))
    p = sum(F(1, 6) * (1 - F(r, 6) ** (2 if rerolls else 1)) for r in (4, 5))
    assert tally.mean("defender_parries") == pytest.approx(float(p), abs=CLOSE)


@pytest.mark.parametrize("strength,armour", [(3, "light armour"), (4, "light armour"),
                                             (4, "heavy armour"), (5, "gromril armour")])
def test_wounds_after_saves_closed_form_R1_8(strength, armour):
    """Unsaved wounds of one blow on a W 3 target (the closed form of test_mordheim_rules)."""
    tally = one_round(W("a", ["sword"], S=strength, W=3), W("d", [armour], W=3, I=1, WS=1))
    save = {"light armour": 6, "heavy armour": 5, "gromril armour": 4}[armour]
    needed = save + max(0, strength - 3)
    p_unsaved = F(1) if needed > 6 else F(needed - 1, 6)
    to_wound = 4 - (strength - 3) if strength - 3 < 2 else 2
    expected = F(4, 6) * (F(6 - to_wound, 6) * p_unsaved
                          + F(1, 6) * (F(2, 6) * 2 * p_unsaved + F(4, 6) * 2))
    assert tally.mean("defender_wounds") == pytest.approx(float(expected), abs=CLOSE)


def test_rows_are_outcome_rows_with_probabilities_summing_to_one():
    sc = odds.load(SCENARIOS / "mordheim_two_on_one.toml")
    plan = RULESET.compile(sc)
    rows, weights, _ = module(RULESET).solve(plan, 10**6)
    assert rows.shape == (len(RULESET.columns(sc)), len(weights))
    assert (weights > 0).all() and abs(weights.sum() - 1) < CLOSE
    assert set(rows[2]) <= set(range(1, plan.max_rounds + 1))
    assert (rows[3] <= 2).all() and (rows[4] <= 1).all()  # warriors lost, at most all


@pytest.mark.parametrize("name", BUNDLED)
def test_state_count_and_bound(name):
    """The recorded state count; one state fewer is refused with the size named."""
    states = STATES[name]
    assert solved(SCENARIOS / name).states == states
    with pytest.raises(TooManyStates, match=f"more than {states - 1:,} fight states"):
        solved(SCENARIOS / name, max_states=states - 1)
    assert solved(SCENARIOS / name, max_states=states).states == states


def test_covers_every_rule():
    """The solver plays every rule the kernel plays, so it gives no reason to refuse."""
    for case in CASES:
        assert covers(RULESET, build(case)) is None

