"""The whfb8 exact solver (odds/rulesets/whfb8/exact.py: the rule text fight.py walked, issue
27): against 200,000 simulated fights on every bundled scenario it solves under its bound and
every parity scenario (each rule R2-1 ... R2-14), against the closed forms of
tests/test_whfb8_exact.py to 1e-12, against an independent walk in exact fractions, and its
state count and bound. Against the one-die-at-a-time references directly:
tests/test_exact_against_reference.py."""
from __future__ import annotations

import math
from collections import defaultdict
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import test_whfb8_exact as closed
import whfb8_plan as read
from exact_parity import assert_parity, assert_sums_to_one, solved
from test_whfb8_parity import CASES, build

import odds
from odds.core import exact as core, runner
from odds.core.outcome import (ATTACKER, CAUGHT, DEFENDER, DESTROYED, FLED, NO_FIGHT, NONE,
                               UNRESOLVED)
from odds.rulesets import get_ruleset
from odds.rulesets.whfb8 import exact, exact_one
from odds.rulesets.whfb8.compile import FIGHTING

SCENARIOS = Path(__file__).resolve().parents[1] / "data" / "scenarios"
TOO_BIG = "whfb8_chaos_lord_combined_charge.toml"  # past the default bound
BUNDLED = sorted(p for p in SCENARIOS.glob("whfb8_*.toml") if p.name != TOO_BIG)
STATES = {"whfb8_chaos_warriors_vs_goblin_horde.toml": 800,  # measured: most live fights
          "whfb8_flank_charge_spearmen.toml": 450,            # at the end of a round
          "whfb8_knights_lance_charge.toml": 200,             # (exact_one.py)
          "whfb8_witch_elves_vs_swordsmen.toml": 766,
          "whfb8_chaos_lord_warriors_alone.toml": 34_002}     # most live states (the walk)
RULESET = get_ruleset("whfb8")


def mass(tally, winner=None, end=None) -> float:
    """P(winner, end) of an exact tally (None: any)."""
    w = slice(None) if winner is None else winner
    e = slice(None) if end is None else end
    return float(tally.outcomes[w, e].sum())


def pmf(tally, column: str) -> np.ndarray:
    return tally.histogram(column)


# --- against the simulation ---------------------------------------------------------------

@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_bundled_scenarios_match_the_simulation(path):
    """R2-1 ... R2-14 as the bundled scenarios play them (the Chaos Lord's Warriors alone:
    a character, champions, challenges and overkill, R2-4): every outcome and column mean
    within |z| < 4 of 200,000 simulated fights; masses sum to 1 within 1e-12."""
    assert core.covers(RULESET, odds.load(path)) is None
    assert_parity(path)


SIMULATED_ONLY = ("rolled_hits", "slaying_multiple_wounds")  # rolled counts, Multiple Wounds


PAST_THE_BOUND = ("instability_numbers",)  # Reality Blinks keeps its fights apart (208,320
#                                            states by round 3; test_whfb8_special_rules.py
#                                            solves Daemonic Instability over 3 rounds)


@pytest.mark.parametrize("case", [c for c in CASES
                                  if c not in ("bundled_8e", *SIMULATED_ONLY, *PAST_THE_BOUND)])
def test_parity_scenarios_match_the_simulation(case):
    """The parity scenarios of test_whfb8_parity.py, which together exercise every rule:
    R2-2 flee reaction and Swiftstride, R2-3 flank/rear contact, R2-4 champion and additional
    hand weapon, R2-5 both supporting-attack variants and Hordes, R2-6 ASF/ASL and equal
    Initiative (mutual destruction), R2-7 Fear, Frenzy, Hatred, R2-9 ward, parry, barding,
    R2-11 musician, standards, R2-12 Steadfast, Stubborn, Unbreakable, battle standard,
    general, Daemonic Instability, Strength in Numbers, R2-13 restraint, pursuit."""
    sc = build(case)
    assert core.covers(RULESET, sc) is None
    assert_parity(sc)


def test_a_step_after_the_enemy_could_lose_no_more_R2_6():
    """Riders (I5) and their mounts (I2) strike at two steps, and the riders alone can take
    every wound the enemy has left: the mounts still strike the fights where they did not
    (the solver once skipped the later step of such a side)."""
    riders = closed.unit(5, 5, "R", profile=dict(WS=4, S=4, T=3, I=5, A=2, Ld=8),
                         rules=["Unbreakable"])
    riders["models"][0].update(troop_type="cavalry", mount={"WS": 3, "S": 3, "I": 2, "A": 1})
    goblins = closed.unit(4, 4, "G", profile=dict(S=3, T=3, Ld=10), rules=["Unbreakable"])
    sc = closed.scenario(riders, goblins, max_rounds=3)
    assert RULESET.compile(sc).tables["step_count"] == 3
    assert_parity(sc)


@pytest.mark.parametrize("case", SIMULATED_ONLY)
def test_rules_that_roll_counts_are_simulated(case):
    """Random Attacks, dice of Impact Hits and Multiple Wounds against models of more than one
    wound are simulated, with the reason (see covers)."""
    assert core.covers(RULESET, build(case))


def test_attacks_past_the_binomial_table_R2_3_R2_6():
    """A deep, narrow unit charged in the flank fights with its ranks: more models in contact
    than its front rank, so more attacks than the kernel tabulated (it draws them one by one)."""
    deep = closed.unit(30, 2, "D", profile=dict(S=3, T=3, A=2, Ld=10), rules=["Unbreakable"])
    wide = closed.unit(20, 10, "W", profile=dict(S=3, T=3, Ld=10), rules=["Unbreakable"])
    sc = closed.scenario(wide, deep, max_rounds=3, facing="flank")
    plan = RULESET.compile(sc)
    top = plan.tables["unsaved_top"][0, 0, 0, 0, 0, read.striker(plan, 1, FIGHTING), 0]
    assert top < 2 * 12  # 12 in contact (10 + 2) x A2
    assert_parity(sc)


@pytest.mark.parametrize("case", ["lance_charge", "psychology", "flee_reaction",
                                  "equal_initiative_mutual"])
def test_rows_are_the_kernels(case):
    """Every outcome row the kernel writes (winner, end, rounds, models lost, wounds) is one of
    the solver's rows, of positive probability: the same columns and conventions (all of a
    caught unit lost, rounds 0 for a flight at the charge, unresolved after max_rounds)."""
    sc = build(case)
    tally_rows, weights, _ = exact.solve(RULESET.compile(sc), core.MAX_STATES)
    solver = {tuple(r) for r in np.asarray(tally_rows).T[np.asarray(weights) > 0]}
    _, kernel = runner.run(RULESET, RULESET.compile(sc), 20_000, 7, keep_fights=True)
    assert {tuple(r) for r in kernel.T.astype(np.int64)} <= solver


@pytest.mark.parametrize("limits", [(0, 0, exact_one.POOL), (exact_one.DENSE_BOX, 0, 2)])
def test_each_way_of_keeping_states_agrees(limits):
    """The walk indexes a round's fights directly when their box of wounds left is small and
    hashes them otherwise, caches what the models standing give the combat result, and keeps
    a bounded pool of strike distributions, starting it again when full: each way gives the
    same rows, masses and state counts."""
    plan = RULESET.compile(build("psychology")).one_unit
    args = (exact_one.sides(plan), plan.p_unsaved, plan.cdf, plan.cdf_offset, plan.cdf_top,
            core.MAX_STATES)
    keys, masses, live = exact_one._walk(*args, exact_one.DENSE_BOX, exact_one.CACHED_STANDINGS,
                                         exact_one.POOL)
    other_keys, other_masses, other_live = exact_one._walk(*args, *limits)
    assert (live == other_live).all()
    order, other_order = np.argsort(keys), np.argsort(other_keys)
    assert (keys[order] == other_keys[other_order]).all()
    assert np.abs(masses[order] - other_masses[other_order]).max() < 1e-15


# --- closed forms of tests/test_whfb8_exact.py, through the solver ------------------------

def binomial(n: int, p: Fraction) -> list[Fraction]:
    return [math.comb(n, k) * p ** k * (1 - p) ** (n - k) for k in range(n + 1)]


@pytest.mark.parametrize("champion", [False, True])
def test_first_round_wounds_are_exact_binomials(champion):
    """R2-4 ... R2-10: one round of the bundled horde fight. The goblins (first) cause
    Bin(28 (+1 champion), 1/3 * 1/3 * 2/3) wounds; the Warriors then strike with 5 + 5
    attacks while 10 or more stand (fewer after heavy losses), Bin(a, 2/3 * 5/6) each."""
    data = odds.load(closed.BUNDLED).to_dict()
    data["defender"]["champion"] = champion
    data["simulation"]["max_rounds"] = 1
    tally = solved(odds.from_dict(data))
    goblin, warrior = binomial(28 + champion, Fraction(2, 27)), Fraction(5, 9)
    lost = goblin[:20] + [sum(goblin[20:])]  # at most the 20 Warriors
    for k, p in enumerate(lost):
        assert abs(pmf(tally, "attacker_wounds")[k] - float(p)) < 1e-12
    expected = defaultdict(Fraction)
    for k, p in enumerate(lost):
        standing = 20 - k
        attacks = min(5, standing) + min(5, max(0, standing - 5))
        for j, q in enumerate(binomial(attacks, warrior)):
            expected[j] += p * q
    h = pmf(tally, "defender_wounds")
    for j in range(11):
        assert abs((h[j] if j < len(h) else 0.0) - float(expected[j])) < 1e-12


def test_combat_result_break_test_and_insane_courage_R2_11_R2_12_R2_13():
    """Loses by 7 on Ld 7: only a double 1 holds; caught on pursuit >= flee."""
    sc = closed.scenario(closed.unit(20, 5, "C", standard=True, battle_standard=True),
                         closed.unit(20, 5, "D", standard=True), facing="rear")
    tally = solved(sc)
    broke = 1 - closed.p_hold(0)
    assert abs(mass(tally, ATTACKER, CAUGHT) - broke * closed.p_catch()) < 1e-12
    assert abs(mass(tally, None, FLED) - broke * (1 - closed.p_catch())) < 1e-12


@pytest.mark.parametrize("facing, margin", [("front", 3 - 1), ("flank", 3 - 1 - 1)])
def test_combat_result_by_facing_R2_11(facing, margin):
    tally = solved(closed.scenario(closed.unit(20, 20, "C"), closed.unit(30, 5, "D"),
                                   facing=facing))
    assert abs(mass(tally, DEFENDER) - (1 - closed.p_hold(7 - margin))) < 1e-12


def test_steadfast_R2_12():
    chargers = closed.unit(10, 10, "C", standard=True, battle_standard=True)
    charged = closed.unit(15, 5, "D", profile=dict(Ld=6))
    tally = solved(closed.scenario(chargers, charged))
    assert abs(mass(tally, ATTACKER) - (1 - closed.p_hold(6))) < 1e-12


@pytest.mark.parametrize("rules, side, p_break", [
    (["Stubborn"], {}, 1 - closed.p_hold(7)),
    (["Unbreakable"], {}, 0.0),
    ([], {"battle_standard": True}, (1 - closed.p_hold(7 - 1)) ** 2),
])
def test_stubborn_unbreakable_and_battle_standard_R2_12(rules, side, p_break):
    chargers = closed.unit(20, 5, "C", standard=True)
    tally = solved(closed.scenario(chargers, closed.unit(20, 5, "D", rules, **side)))
    assert abs(mass(tally, ATTACKER) - p_break) < 1e-12


@pytest.mark.parametrize("a_mus, d_mus, p_win", [(True, False, 1 - closed.p_hold(6)),
                                                 (True, True, 0.0)])
def test_musician_wins_a_drawn_combat_R2_11(a_mus, d_mus, p_win):
    chargers = closed.unit(10, 5, "C", musician=a_mus)
    charged = closed.unit(10, 5, "D", musician=d_mus, standard=True)
    tally = solved(closed.scenario(chargers, charged))
    assert abs(mass(tally, ATTACKER) - p_win) < 1e-12
    assert abs(mass(tally, None, UNRESOLVED) - (1 - p_win)) < 1e-12


def test_pursuit_swiftstride_restraint_and_frenzy_R2_13():
    """The battle standard re-rolls a failed restraint test (battle_standard_rerolls = "all"):
    the winner must pursue with P(fail)^2."""
    broke = 1 - closed.p_hold(0)
    rear = dict(facing="rear")
    charged = closed.unit(20, 5, "D", standard=True)
    cases = (
        (closed.unit(20, 5, "C", ["Swiftstride"], standard=True, battle_standard=True), {},
         closed.p_catch(closed.SWIFT, closed.TWO_D6)),
        (closed.unit(20, 5, "C", standard=True, battle_standard=True, profile=dict(Ld=8)),
         {"pursue": False}, (1 - closed.p_le(closed.TWO_D6, 8)) ** 2 * closed.p_catch()),
        (closed.unit(20, 5, "C", ["Frenzy"], standard=True, battle_standard=True),
         {"pursue": False}, closed.p_catch()),
    )
    for chargers, engagement, caught in cases:
        tally = solved(closed.scenario(chargers, charged, **rear, **engagement))
        assert abs(mass(tally, None, CAUGHT) - broke * caught) < 1e-12


def test_flee_as_a_charge_reaction_R2_2():
    sc = closed.scenario(closed.unit(10, 5, "C"), closed.unit(10, 5, "D"), reaction="flee",
                         charge_distance=6)
    tally = solved(sc)
    p = float(Fraction((4 + closed.TWO_D6 - closed.TWO_D6).probability(">=", 6)))
    assert abs(mass(tally, ATTACKER, CAUGHT) - p) < 1e-12
    assert abs(mass(tally, NONE, NO_FIGHT) - (1 - p)) < 1e-12
    assert tally.outcomes[:, :, 1:].sum() == 0  # rounds 0
    assert tally.states == 1
    assert pmf(tally, "defender_lost")[10] == pytest.approx(p, abs=1e-12)  # all of it


def test_fear_makes_the_afraid_fight_at_ws1_R2_7():
    striker = closed.unit(5, 5, "S", ["Fear"], profile=dict(S=3))
    tally = solved(closed.scenario(striker, closed.unit(20, 5, "T", profile=dict(T=3, Ld=5))))
    fail = 1 - closed.p_le(closed.TWO_D6, 5)
    h = pmf(tally, "defender_wounds")
    for k in range(6):
        p = sum(w * math.comb(5, k) * q ** k * (1 - q) ** (5 - k)
                for w, q in ((fail, 1 / 3), (1 - fail, 1 / 4)))
        assert abs(h[k] - p) < 1e-12


def test_reroll_to_hit_always_strikes_first_and_hatred_R2_6_R2_7_R2_14():
    """ASF with I at least the enemy's re-rolls misses every round, Hatred in the first."""
    for rules, rounds in ((["Always Strikes First"], 2), (["Hatred"], 1)):
        striker = closed.unit(5, 5, "S", rules + ["Unbreakable"], profile=dict(S=3, I=3))
        target = closed.unit(20, 5, "T", profile=dict(T=3, A=1, S=1, Ld=10),
                             rules=["Unbreakable"])
        tally = solved(closed.scenario(striker, target, max_rounds=2))
        h = 0.5 + 0.5 * 0.5
        second = (h if rounds == 2 else 0.5) * 0.5
        assert abs(tally.mean("defender_wounds") - (5 * h * 0.5 + 5 * second)) < 1e-12


# --- an independent walk in exact fractions -----------------------------------------------

TWO = defaultdict(Fraction)
for _a in range(1, 7):
    for _b in range(1, 7):
        TWO[_a + _b] += Fraction(1, 36)


def reference_duel(max_rounds: int) -> dict[tuple, Fraction]:
    """2 models (WS4 S4 T3 I4 A2 Ld7, a standard) charge 2 models (WS3 S3 T3 I3 A1 Ld6,
    light armour, a musician), each 2 wide: by the rules, not the plan. The chargers hit on
    3+ and wound on 3+, S4 pierces the 6+ save: 4/9 an attack; the others hit on 4+ and
    wound on 4+: 1/4. Chargers strike first (R2-6); the result is wounds + charge (first
    round) + standard against wounds, a draw to the musician (R2-11); the loser holds on
    2D6 <= Ld - margin or a double 1 (R2-12) and is caught on pursuit 2D6 >= flee 2D6."""
    hit = (Fraction(4, 9), Fraction(1, 4))
    ld = (7, 6)
    catch = sum(TWO[f] * sum(TWO[p] for p in TWO if p >= f) for f in TWO)

    def hold(target):
        return sum(TWO[t] for t in TWO if t <= target) if target >= 2 else Fraction(1, 36)

    def row(winner, end, rounds, n, caught=-1):
        lost = [2 if s == caught else 2 - n[s] for s in range(2)]
        return (winner, end, rounds, lost[0], lost[1], 2 - n[0], 2 - n[1])

    ends, live = defaultdict(Fraction), {(2, 2): Fraction(1)}
    for rounds in range(1, max_rounds + 1):
        following = defaultdict(Fraction)
        for (a, b), p in live.items():
            for ka, pa in enumerate(binomial(2 * a, hit[0])):
                b2 = b - min(ka, b)
                if b2 == 0:
                    ends[row(ATTACKER, DESTROYED, rounds, (a, 0))] += p * pa
                    continue
                for kb, pb in enumerate(binomial(b2, hit[1])):
                    a2, q = a - min(kb, a), p * pa * pb
                    if a2 == 0:
                        ends[row(DEFENDER, DESTROYED, rounds, (0, b2))] += q
                        continue
                    diff = (b - b2) + (rounds == 1) + 1 - (a - a2)
                    loser = 1 if diff > 0 else 0  # a draw: the musician's side wins
                    h = hold(ld[loser] - (abs(diff) if diff else 1))
                    following[(a2, b2)] += q * h
                    winner = DEFENDER if loser == 0 else ATTACKER
                    ends[row(winner, CAUGHT, rounds, (a2, b2), loser)] += q * (1 - h) * catch
                    ends[row(winner, FLED, rounds, (a2, b2))] += q * (1 - h) * (1 - catch)
        live = following
    for n, p in live.items():
        ends[row(NONE, UNRESOLVED, max_rounds, n)] += p
    return ends


@pytest.mark.parametrize("max_rounds", [2, 3])
def test_agrees_with_an_exact_fraction_walk(max_rounds):
    """Every outcome row's probability equals the fraction walk's within 1e-12."""
    chargers = closed.unit(2, 2, "A", standard=True,
                           profile=dict(WS=4, S=4, T=3, I=4, A=2, Ld=7))
    charged = closed.unit(2, 2, "B", equipment=["light armour"], musician=True,
                          profile=dict(WS=3, S=3, T=3, I=3, A=1, Ld=6))
    sc = closed.scenario(chargers, charged, max_rounds=max_rounds)
    rows, weights, _ = exact.solve(RULESET.compile(sc), core.MAX_STATES)
    solver = {tuple(int(v) for v in r): w for r, w in zip(np.asarray(rows).T, weights)}
    expected = {k: v for k, v in reference_duel(max_rounds).items() if v}
    assert set(solver) == set(expected)
    for key, p in expected.items():
        assert abs(solver[key] - float(p)) < 1e-12, key
    assert abs(sum(weights) - 1) < 1e-12


# --- the state count and its bound --------------------------------------------------------

@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_state_counts_and_the_bound(path):
    """The most live fights at the end of a round, as measured; one state fewer allowed
    raises TooManyStates naming it, the count itself solves."""
    tally = solved(path)
    assert tally.states == STATES[path.name]
    assert solved(path, max_states=tally.states).states == tally.states
    with pytest.raises(core.TooManyStates) as raised:
        solved(path, max_states=tally.states - 1)
    assert raised.value.max_states == tally.states - 1
    assert raised.value.states > tally.states - 1


def test_a_first_round_too_large_for_the_bound():
    """The states one round can reach from the charge are counted before they are made."""
    with pytest.raises(core.TooManyStates) as raised:
        solved(BUNDLED[0], max_states=10)
    assert raised.value.round == 1


def test_covers_every_whfb8_fight():
    """The solver plays every rule the kernel plays: no scenario is out of its reach (a fight
    too large is stopped by the state bound instead)."""
    for sc in [odds.load(p) for p in BUNDLED] + [build(c) for c in CASES
                                                  if c not in SIMULATED_ONLY]:
        assert core.covers(RULESET, sc) is None


def test_a_solve_compiles_its_scenario_once(monkeypatch):
    """odds.simulate(method="exact") compiles the scenario once: covers() judges the plan the
    solve then uses (it compiled it a second time before)."""
    from odds.rulesets.whfb8 import compile as plans

    compiled, laws = [], plans._laws

    def counted(*args):  # every compile of a plan makes its laws once
        compiled.append(args[0].name)
        return laws(*args)

    monkeypatch.setattr(plans, "_laws", counted)
    odds.simulate(BUNDLED[0], method="exact", quiet=True)
    assert len(compiled) == 1


def test_the_pursuit_table_is_each_entry_summed_roll_by_roll_R2_13():
    """The catch law, made with numpy, equals each entry summed over the fleeing unit's 19
    rolls in order (the loop it replaced), bit for bit: (escapes, caught) for a fleeing roll
    law, the pursuers' best roll so far, and how many more roll 2D6 and 3D6 (Swiftstride)."""
    from odds.core.exact import dice_sum, drop_lowest
    from odds.rulesets.whfb8.compile import _catch

    moves = [np.pad(m, (0, 19 - len(m))) for m in (dice_sum(2), drop_lowest(3))]
    U = 3
    table = _catch(moves, U)
    assert table.shape == (2, 19, U + 1, U + 1, 2)
    below = [np.cumsum(m) - m for m in moves]
    for fleeing, best, plain, swift in np.ndindex(table.shape[:4]):
        escapes = sum(moves[fleeing][f] * (best < f) * below[0][f] ** plain
                      * below[1][f] ** swift for f in range(19))
        assert table[fleeing, best, plain, swift, 0] == escapes
        assert table[fleeing, best, plain, swift, 1] == 1.0 - escapes
    # one pursuer rolling 2D6 against a 2D6 flee, nobody ahead: the closed form
    assert table[0, 0, 1, 0, 1] == pytest.approx(closed.p_catch(), abs=1e-15)


def test_a_combined_charge_past_the_bound_is_simulated_by_auto():
    """The combined charge needs more live states than the default bound: --method exact
    says so, naming the size, and auto simulates it. (The rule text's walk solves it; a fight
    of one unit a side goes to exact_one.py's solver.)"""
    path = SCENARIOS / TOO_BIG
    assert exact.variant(RULESET.compile(odds.load(path))) == "the rule text"
    horde = SCENARIOS / "whfb8_chaos_warriors_vs_goblin_horde.toml"
    assert exact.variant(RULESET.compile(odds.load(horde))) == "one unit a side"
    with pytest.raises(core.TooManyStates):
        solved(path)
    result = odds.simulate(path, method="auto", trials=500, quiet=True)
    assert result.method == "mc" and result.tally.trials == 500


def test_probabilities_sum_to_one():
    for path in BUNDLED:
        tally = solved(path)
        assert_sums_to_one(tally)
