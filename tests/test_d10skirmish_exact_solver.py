"""The d10skirmish exact solver (odds/rulesets/d10skirmish/exact.py, issue 12):

* against the simulation on every bundled scenario and every parity scenario of
  tests/test_d10skirmish_parity.py (each outcome probability and column mean, |z| < 4 of a
  200,000-fight simulation; the masses sum to 1 within 1e-12);
* against the exact laws of the existing tests, to 1e-12: one exchange's wounds (fractions),
  fleeing (1/8), the push (MS / 10), the AP schedules, and the worked example's exchange;
* each exchange's law against brute force over every roll, with dice turned (R3-6);
* the state bound, and what the solver covers.
"""
from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from exact_parity import assert_parity, solved
from test_d10skirmish_exchange import (EXACT_CASES, enumerate_exactly, exchange_scenario,
                                       fighter as exchange_fighter, oracle)
from test_d10skirmish_fight import SCHEDULES, TROOPER, fighter, one_exchange_law, scenario
import test_d10skirmish_parity as parity
from test_d10skirmish_parity import CASES

import odds
from odds.core.exact import TooManyStates, covers
from odds.core.outcome import NO_FIGHT, NONE
from odds.rulesets import get_ruleset
from odds.rulesets.d10skirmish import exact, fight, rules
from naive_exchange import Roller
from odds.scenario import as_scenario

RULESET = get_ruleset("d10skirmish")
BUNDLED = sorted((Path(__file__).resolve().parents[1] / "data" / "scenarios")
                 .glob("d10skirmish_*.toml"))
TOLERANCE = 1e-12


def law(sc, *columns) -> dict[tuple, float]:
    """The solver's probability of each combination of values of ``columns``."""
    sc = as_scenario(sc)
    rows, weights, _ = exact.solve(RULESET.compile(sc), 10**6)
    index = [RULESET.columns(sc).index(c) for c in columns]
    out = Counter()
    for row, w in zip(rows.T, weights):
        out[tuple(int(row[i]) for i in index)] += w
    return dict(out)


def assert_same_law(solver: dict, expected: dict, what: str) -> None:
    for key in set(solver) | set(expected):
        assert abs(solver.get(key, 0.0) - float(expected.get(key, 0))) < TOLERANCE, \
            f"{what}: {key}: solver {solver.get(key, 0.0)}, exact {float(expected.get(key, 0))}"


# --- against the simulation ----------------------------------------------------------------

@pytest.mark.parametrize("path", BUNDLED, ids=[p.stem for p in BUNDLED])
def test_bundled_scenarios_match_the_simulation_R3_2_to_R3_9(path):
    """Every bundled scenario: charge, exchanges, turned dice, push (R3-2 ... R3-9, A1-A6)."""
    assert_parity(path)


@pytest.mark.parametrize("case", CASES)
def test_parity_scenarios_match_the_simulation(case):
    """The parity scenarios of the kernel against its reference: the test id names the rules
    each exercises (together R3-2 ... R3-9, §4.2, A1-A6)."""
    assert_parity(CASES[case]())


# --- against the exact laws of the existing tests ------------------------------------------

@pytest.mark.parametrize("crit_mode", ["ignore_armour", "double", "both"])
def test_one_exchange_wounds_equal_the_fraction_law_A1_A2_A3_A6_R3_4(crit_mode):
    """The charge against a fighter with no AP left (1 die back, R3-4) and max_rounds = 1:
    the solver's joint law of wounds lost equals the one computed in fractions from every
    roll (tests/test_d10skirmish_fight.py), and the ends follow from it (A5, A6)."""
    sc = scenario(fighter("A", 6, ap=2, w=3, arm=3, dmg=1), fighter("D", 5, w=2, arm=2, dmg=2),
                  max_rounds=1, charged_ap_left=0, crit_mode=crit_mode)
    assert_same_law(law(sc, "attacker_wounds", "defender_wounds"), one_exchange_law(sc),
                    crit_mode)
    for (end, a_lost, d_lost, exchanges), p in law(sc, "end", "attacker_lost",
                                                   "defender_lost", "exchanges").items():
        assert exchanges == 1 and p > 0
        assert end == {(1, 1): 3, (1, 0): 0, (0, 1): 0, (0, 0): 4}[a_lost, d_lost]


def test_flee_is_one_eighth_R3_8():
    """The trooper's 3 dice against the fleeing sniper leave it standing with P = 1/8
    (tests/test_d10skirmish_fight.py): it has then fled, else it is destroyed."""
    sc = odds.load(TROOPER)
    sc.engagement["reaction"] = "flee"
    assert_same_law(law(sc.validated(), "winner", "end", "exchanges"),
                    {(1, 2, 1): Fraction(1, 8), (1, 0, 1): Fraction(7, 8)}, "flee")


@pytest.mark.parametrize("fall_damage, wounds", [(1, 2), (2, 2), (0, 1)])
def test_push_is_an_MS_test_R3_9(fall_damage, wounds):
    """P(push) = MS 6 / 10; pushed, the target takes the fall (destroyed or fled); else the
    one turn ends unresolved with no exchange (tests/test_d10skirmish_fight.py)."""
    sc = scenario(fighter("A", 6, ap=3, w=2, base=32), fighter("D", 4, w=wounds, base=25),
                  max_rounds=1, opening="push", fall_damage=fall_damage, charged_ap_left=0)
    down = fall_damage >= wounds
    expected = {(1, 1, 0 if down else 2, min(fall_damage, wounds), 0): Fraction(6, 10),
                (0, 0, 4, 0, 0): Fraction(4, 10)}
    assert_same_law(law(sc, "pushed", "winner", "end", "defender_wounds", "exchanges"),
                    expected, "push")


@pytest.mark.parametrize("ap_charger, ap_charged, engagement, exchanges",
                         [pytest.param(*s[1:], id=s[0]) for s in SCHEDULES])
def test_exchanges_follow_the_AP_rules_exactly(ap_charger, ap_charged, engagement, exchanges):
    """The AP schedules of tests/test_d10skirmish_fight.py (R3-2, R3-4, §4.2(6)-(7)): every
    fight runs its 3 turns with exactly that many exchanges."""
    aps = (ap_charger, ap_charged)
    if engagement.get("charger") == "defender":
        aps = aps[::-1]
    sc = scenario(fighter("A", 2, ap=aps[0], w=20), fighter("D", 2, ap=aps[1], w=20),
                  max_rounds=3, **engagement)
    assert law(sc, "end", "rounds", "exchanges") == pytest.approx({(4, 3, exchanges): 1.0},
                                                                  abs=TOLERANCE)


def test_a_failed_push_leaves_the_fight_to_the_AP_rules_R3_9():
    """MS 2: the push succeeds with P = 2/10 and no exchange; else 2 + 5 + 5 exchanges."""
    sc = scenario(fighter("A", 2, ap=3, w=20), fighter("D", 2, ap=2, w=20), max_rounds=3,
                  opening="push", fall_damage=0)
    assert_same_law(law(sc, "pushed", "exchanges"),
                    {(1, 0): Fraction(2, 10), (0, 12): Fraction(8, 10)}, "failed push")


def test_worked_example_exchange_R3_3_R3_5_R3_7():
    """The rules text's fighters (MS 6 against MS 5, 3 dice each) in a one-exchange fight
    that nobody can lose (W 20, no armour): each side's wounds are the hits it took, whose
    law is the brute-force oracle's over all 10^6 rolls (tests/test_d10skirmish_exchange.py),
    summed over sorted rolls with their multinomial weights."""
    sc = scenario(fighter("A", 6, ap=2, w=20), fighter("B", 5, ap=3, w=20), max_rounds=1,
                  charged_ap_left=1)
    rolls = list(itertools.combinations_with_replacement(range(1, 11), 3))
    expected = Counter()
    for ra in rolls:
        for rb in rolls:
            c0, h0, c1, h1, _ = oracle(ra, Roller(6), rb, Roller(5))
            expected[c1 + h1, c0 + h0] += Fraction(_orders(ra) * _orders(rb), 10**6)
    assert sum(expected.values()) == 1
    assert_same_law(law(sc, "attacker_wounds", "defender_wounds"), expected, "worked example")


def _orders(roll) -> int:
    """How many ordered rolls give this sorted one."""
    return math.factorial(len(roll)) // math.prod(map(math.factorial, Counter(roll).values()))


@pytest.mark.parametrize("a, b, answer, options",
                         [pytest.param(*c[1:], id=c[0]) for c in EXACT_CASES])
def test_exchange_law_equals_every_roll_R3_4_to_R3_7(a, b, answer, options):
    """Each exchange's law (faces counted, or rolls resolved with dice turned, R3-6) equals
    the brute force over all 10^k rolls of tests/test_d10skirmish_exchange.py."""
    sc = exchange_scenario(a, b, **options)
    fa, fb = rules.fighters(sc)
    dice = {"fight": fb.attacks, "one": 1, "flee": 0}[answer]
    brute = enumerate_exactly(fa.attacks, Roller(fa.skill, fa.adjust, fa.adjust_for), dice,
                              Roller(fb.skill, fb.adjust, fb.adjust_for), **options)
    expected = Counter()
    for (c0, h0, c1, h1, _blocked), p in brute.items():
        expected[c0, h0, c1, h1] += p
    table, _ = fight.exchange_law(RULESET.compile(sc), 0, dice, 10**6)
    solver = {k: float(table[k]) for k in zip(*table.nonzero())}
    assert_same_law(solver, expected, f"{a} vs {b}, {answer}")


# faces folded when dice are turned (fight._faces), against every roll of all ten faces
TURNING = [
    ("R3-6_bundled_blademaster_vs_brute", lambda: odds.load(BUNDLED[0])),
    ("R3-6_both_turn-R3-7_turned_crits", lambda: exchange_scenario(
        exchange_fighter(7, 2, "hits"), exchange_fighter(4, 1, "blocks"),
        adjust_can_create_crit=True)),
    ("R3-6_low_against_high-R3-7_never_blockable", lambda: exchange_scenario(
        exchange_fighter(2, 1, "blocks"), exchange_fighter(9, 3, "hits", ["extra melee weapon"]),
        crit_blockable="never")),
]


@pytest.mark.parametrize("make", [pytest.param(c[1], id=c[0]) for c in TURNING])
@pytest.mark.parametrize("active", [0, 1])
def test_exchange_law_with_faces_folded_equals_all_faces_R3_6(make, active):
    """With dice turned, the solver tells apart only the faces that can matter; its law
    equals the one over every sorted roll of all ten faces, with either side starting."""
    plan = RULESET.compile(make())
    dice = (plan.attacks[0], plan.attacks[1])
    table, states = fight.exchange_law(plan, active, dice[1 - active], 10**6)
    every_face = {f: 1 / 10 for f in range(1, 11)}
    rolls = [fight._rolls(n, every_face) for n in dice]
    assert states < len(rolls[0][0]) * len(rolls[1][0])  # some faces were folded
    expected = fight._tally_rolls(*rolls[0], *rolls[1], *dice, *plan.skill, *plan.adjust,
                                  *plan.adjust_blocks, active, plan.crit_blockable,
                                  plan.create_crit)
    assert abs(expected.sum() - 1) < TOLERANCE
    assert np.abs(table - expected).max() < TOLERANCE


# --- the state bound and what is covered ---------------------------------------------------

# the most states of a step: the pairs of sorted rolls when the blademaster turns a die (its
# 5 dice over 9 faces that matter, 1-6, 7-8, 9, 10, against the brute's 3 over 1-5 and a
# miss: 1287 x 56); the live wound states of two 20-wound fighters of 1 die each after 12 of
# their 13 exchanges (each deals 0 or 1 wound: 13 x 13; after the 13th the fight is over)
STATES = [
    ("bundled_blademaster_vs_brute", lambda: odds.load(BUNDLED[0]), 72_072),
    ("wound_states", lambda: scenario(fighter("A", 2, ap=3, w=20), fighter("D", 2, w=20),
                                      max_rounds=3), 169),
]


@pytest.mark.parametrize("make, states", [pytest.param(*s[1:], id=s[0]) for s in STATES])
def test_state_count_and_bound(make, states):
    """The most states a step held; one fewer allowed raises TooManyStates naming them."""
    sc = make()
    assert solved(sc).states == states
    solved(sc, max_states=states)
    with pytest.raises(TooManyStates) as error:
        solved(sc, max_states=states - 1)
    assert error.value.states == states


def test_covers_every_rule():
    """The solver plays every rule of the kernel: no scenario is out (large exchanges are
    bounded by max_states instead)."""
    assert all(covers(RULESET, odds.load(p)) is None for p in BUNDLED)
    assert all(covers(RULESET, make()) is None for make in CASES.values())


@pytest.mark.parametrize("ap, m, distance, sight, move_ap, met", [
    (3, 4, 8, True, 1, (1, 3, fight.OPENS)),    # within a charge's double move: turn 1
    (3, 4, 10, True, 1, (1, 2, fight.OPENS)),   # one move, then the charge with 2 AP
    (3, 4, 14, True, 1, (2, 3, fight.OPENS)),   # two moves leave 1 AP: it charges next turn
    (3, 4, 10, False, 1, (1, 0, fight.MOVED)),  # unseen: three moves end in contact
    (4, 5, 17, True, 2, (2, 4, fight.OPENS)),   # moves of 2 AP each
    (3, 4, 130, True, 1, None),                 # 120" in ten turns: never in reach
    (3, 4, 0, False, 1, (1, 3, fight.MOVED)),   # unseen at 0": in contact, no move to pay
])
def test_the_charger_reaches_its_target_R3_1(ap, m, distance, sight, move_ap, met):
    """contact(): the turn, the AP left for the opening, and how (R3-1)."""
    sc = parity.scenario(parity.F("V", ms=6, ap=ap, m=m), parity.F("G", ms=5),
                         apart={"distance": distance, "line_of_sight": sight}, move_ap=move_ap)
    assert fight.contact(get_ruleset("d10skirmish").compile(sc)) == met


def test_in_reach_is_the_fight_without_a_distance_and_out_of_reach_no_fight_R3_1():
    """A charger within its charge's reach fights exactly as one given no distance; one that
    never comes within reach makes no fight, in one state."""
    near = solved(parity.scenario(parity.F("V", **parity.VETERAN, m=4),
                                  parity.F("G", **parity.GUARD), apart={"distance": 8}))
    plain = solved(parity.scenario(parity.F("V", **parity.VETERAN), parity.F("G", **parity.GUARD)))
    assert np.array_equal(near.outcomes, plain.outcomes)
    far = solved(parity.scenario(parity.F("V", **parity.VETERAN, m=4),
                                 parity.F("G", **parity.GUARD), apart={"distance": 130}))
    assert far.outcomes[NONE, NO_FIGHT].sum() == 1.0 and far.states == 1
