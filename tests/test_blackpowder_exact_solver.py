"""The blackpowder exact solver (odds/rulesets/blackpowder/exact.py) against the simulation,
the closed forms of tests/test_blackpowder_exact.py, and its state bound.

Parity: every outcome probability and column mean within |z| < 4 of a 200,000-fight
simulation (tests/exact_parity.py) on the bundled scenarios and the parity scenarios of
tests/test_blackpowder_parity.py, which together play R4-2 ... R4-6 and §5.3 - §5.6.
"""
from __future__ import annotations

import math
from pathlib import Path

import icepool
import numpy as np
import pytest
import test_blackpowder_exact as closed
from exact_parity import assert_parity, solved
from test_blackpowder_parity import FOOT, SCENARIOS, scenario

from odds.core import exact, runner
from odds.core.outcome import (ATTACKER, COLUMNS, DEFENDER, DESTROYED, FLED, NO_FIGHT, NONE,
                               UNRESOLVED)
from odds.rulesets import get_ruleset
from odds.rulesets.blackpowder import exact as solver
from odds.scenario import as_scenario

BUNDLED = sorted((Path(__file__).resolve().parents[1] / "data" / "scenarios")
                 .glob("blackpowder_*.toml"))
RULESET = get_ruleset("blackpowder")
PIKE_BLOCK = next(p for p in BUNDLED if p.stem == "blackpowder_cuirassiers_vs_pike_block")
# measured: the most live states of one stage (each with its failed saves' distributions
# beside it, odds.core.walk.solve)
PIKE_BLOCK_STATES = 26
WOUNDS = tuple(COLUMNS.index(f"{side}_wounds") for side in ("attacker", "defender"))

# rules the parity set of test_blackpowder_parity.py does not reach
OWN = {
    # R4-4 closing fire by the attacker at a charging defender; §5.5 steady, valiant, wavering
    "R4-4 defender charges into closing fire, steady and valiant": scenario(
        {**FOOT, "profile": {**FOOT["profile"], "shooting": 6}, "rules": ["valiant"]},
        {**FOOT, "rules": ["wavering", "steady", "valiant"]}, charger="defender",
        reaction="closing fire"),
    # R4-4 an infantry hedgehog charged in the flank by heavy cavalry (+D3, §5.3); stubborn and
    # tough fighters (§5.3)
    "R4-4 hedgehog of foot, flank, stubborn": scenario(
        closed.unit("C", "heavy cavalry", 8, stamina=3, rules=["heavy cavalry D3"]),
        {**FOOT, "rules": ["stubborn", "tough fighters"]}, facing="flank",
        reaction="hedgehog", hedgehog_order=6),
}


def test_covers_every_bundled_and_parity_scenario():
    """covers() has no reason to refuse: the solver plays every rule the kernel plays."""
    for sc in [*BUNDLED, *SCENARIOS.values(), *OWN.values()]:
        assert exact.covers(RULESET, as_scenario(sc)) is None, sc


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_bundled_scenarios_match_the_simulation(path):
    """R4-4, R4-5, R4-6, §5.3 - §5.6 on every bundled blackpowder scenario."""
    assert_parity(path)


@pytest.mark.parametrize("name", [*SCENARIOS, *OWN])
def test_parity_scenarios_match_the_simulation(name):
    """Each parity scenario's named rules (R4-4 reactions, R4-5 pikes, R4-6 and §5.3 - §5.5
    modifiers, results, special rules and break tests, the round cap)."""
    assert_parity(SCENARIOS.get(name) or OWN[name])


@pytest.mark.parametrize("name", ["R4-4 closing fire, wavering charger",
                                  "R4-4 counter-charge lancers",
                                  "R4-6 march column in a building fight, capped"])
def test_solved_rows_are_whole_fights(name):
    """Rows are fights as the kernel writes them, with their joint probabilities, as far as
    the walk keeps them (odds.core.walk.solve): every column jointly with either side's
    failed saves. Each distinct such row of 100,000 simulated fights is one the solver
    gives, and every one of probability 0.002 or more is simulated at its rate (|z| < 4)."""
    sc = as_scenario(SCENARIOS[name])
    plan = RULESET.compile(sc)
    rows, weights, _ = solver.solve(plan)
    assert (weights > 0).all() and len({tuple(r) for r in rows.T.tolist()}) == rows.shape[1]
    runner.set_threads(2)
    trials = 100_000
    _, fights = runner.run(RULESET, plan, trials, 7, keep_fights=True)
    for other in (WOUNDS[1], WOUNDS[0]):  # each side's failed saves, with every other column
        kept = [c for c in range(rows.shape[0]) if c != other]
        solved_rows = {}
        for r, p in zip(rows[kept].T.tolist(), weights):
            solved_rows[tuple(r)] = solved_rows.get(tuple(r), 0.0) + p
        seen, counts = np.unique(fights[kept].astype(np.int64), axis=1, return_counts=True)
        simulated = dict(zip(map(tuple, seen.T.tolist()), counts))
        assert set(simulated) <= set(solved_rows)
        common = [(r, p) for r, p in solved_rows.items() if p >= 0.002]
        assert common
        for r, p in common:
            z = (simulated.get(r, 0) / trials - p) / math.sqrt(p * (1 - p) / trials)
            assert abs(z) < 4, (r, p, z)


def _distribution(tally, column):
    h = tally.histogram(column)
    return {k: float(h[k]) for k in range(len(h))}


def assert_die(tally, column, die):
    """The exact histogram of ``column`` is ``die``'s distribution (an icepool die or a
    {value: probability} mapping) to 1e-12."""
    expected = die if isinstance(die, dict) else {k: die.probability(k) for k in die.outcomes()}
    got = _distribution(tally, column)
    for k in set(got) | set(expected):
        assert abs(got.get(k, 0.0) - float(expected.get(k, 0))) < 1e-12, (column, k)


def test_round_casualties_are_binomial_with_charge_bonus():
    """R4-6: dice = hand-to-hand, 4+ to hit (+1 charging, §5.3), failed saves are casualties."""
    tally = solved(closed.scenario(closed.unit("A"), closed.unit("D")))
    assert_die(tally, "defender_wounds", 6 @ closed.casualty_die(3, 4))
    assert_die(tally, "attacker_wounds", 6 @ closed.casualty_die(4, 4))


def test_flank_skirmish_disordered_and_march_column_modifiers():
    """R4-6 with §5.3: flank -1, disordered -1, skirmish -1 (clamped to 6+), march column -2."""
    tally = solved(closed.scenario(
        closed.unit("A", formation="skirmish", status=["disordered"]),
        closed.unit("D", formation="march column", engaged=True), facing="flank"))
    assert_die(tally, "defender_wounds", 6 @ closed.casualty_die(5, 6))
    assert_die(tally, "attacker_wounds", 6 @ closed.casualty_die(5, 4))


def test_pikes_double_dice_and_cancel_cavalry_bonuses_R4_5():
    tally = solved(closed.scenario(
        closed.unit("C", "heavy cavalry", 9, rules=["ferocious charge", "lancers"]),
        closed.unit("P", "pikes", 6, 0)))
    assert_die(tally, "defender_wounds", 9 @ closed.casualty_die(4, 4))
    assert_die(tally, "attacker_wounds", 12 @ closed.casualty_die(4, 4))


def test_counter_charges_R4_4():
    """Both count as charging (lancers, ferocious charge); against infantry only the cavalry."""
    tally = solved(closed.scenario(
        closed.unit("L", "cavalry", 7, rules=["lancers", "ferocious charge"]),
        closed.unit("C", "heavy cavalry", 9), reaction="counter-charge"))
    assert_die(tally, "defender_wounds", 7 @ closed.casualty_die(3, 5, reroll_misses=True))
    assert_die(tally, "attacker_wounds", 9 @ closed.casualty_die(3, 4))
    tally = solved(closed.scenario(closed.unit("I"), closed.unit("C", "cavalry", 6),
                                   reaction="counter-charge"))
    assert_die(tally, "defender_wounds", 6 @ closed.casualty_die(4, 4))
    assert_die(tally, "attacker_wounds", 6 @ closed.casualty_die(3, 4))


def test_turn_to_face_cancels_the_rear_penalty_R4_4():
    turned = solved(closed.scenario(closed.unit("I"), closed.unit("C", "cavalry"),
                                    facing="rear", reaction="turn to face"))
    stood = solved(closed.scenario(closed.unit("I"), closed.unit("C", "cavalry"),
                                   facing="rear"))
    assert_die(turned, "attacker_wounds", 6 @ closed.casualty_die(4, 4))
    assert_die(stood, "attacker_wounds", 6 @ closed.casualty_die(5, 4))


def test_hedgehog_order_roll_R4_4():
    """The 2D6 order roll mixes an all-round pike front (double dice) with a rear fight."""
    tally = solved(closed.scenario(closed.unit("C", "cavalry", 8), closed.unit("P", "pikes", 6, 0),
                                   facing="rear", reaction="hedgehog", hedgehog_order=6))
    formed = (2 @ icepool.d6 <= 6).probability(True)
    mixed = {k: formed * (12 @ closed.casualty_die(4, 4)).probability(k)
             + (1 - formed) * (6 @ closed.casualty_die(5, 4)).probability(k) for k in range(13)}
    assert_die(tally, "attacker_wounds", mixed)


def assert_ends(tally, ends):
    for (w, e), p in ends.items():
        assert abs(float(tally.outcomes[w, e].sum()) - p) < 1e-12, (w, e)


def test_combat_result_and_break_table_decide_the_round():
    """§5.3 combat result with rear and flank supports, §5.5 bands; a drawn round holds."""
    tally = solved(closed.scenario(closed.unit("A", rear_support=True, flank_supports=2),
                                   closed.unit("D")))
    assert_ends(tally, closed._one_round_ends(6 @ closed.casualty_die(3, 4),
                                              6 @ closed.casualty_die(4, 4), 3))


def test_heavy_cavalry_d3_and_a_drawn_cavalry_round():
    """§5.3 +D3 in the charge round; §5.4 drawn: unshaken cavalry retires."""
    tally = solved(closed.scenario(closed.unit("C", "heavy cavalry", 6,
                                               rules=["heavy cavalry D3"]), closed.unit("D")))
    assert_ends(tally, closed._one_round_ends(
        6 @ closed.casualty_die(3, 4) + (icepool.d6 + 1) // 2, 6 @ closed.casualty_die(4, 4),
        0, attacker_cavalry=True))


def test_closing_fire_can_break_the_charger_R4_4():
    tally = solved(closed.scenario(closed.unit("H", "cavalry", 7, stamina=1),
                                   closed.unit("B", "artillery", 1, 4, morale=5),
                                   reaction="closing fire"))
    shots = 4 @ closed.casualty_die(3, 6)
    two = 2 @ icepool.d6
    p = sum(float(shots.probability(k)) * float((two - (k - 1) <= 6).probability(True))
            for k in range(1, 5))
    assert abs(float(tally.outcomes[DEFENDER, DESTROYED, 0]) - p) < 1e-12


def test_evade_halt_and_square_R4_4():
    """Evade: no fight, or destroyed with no room; cavalry halts at a steady square; a
    disordered square fights and never retires (§5.4)."""
    cav, foot = closed.unit("C", "cavalry"), closed.unit("I")
    for sc, (w, e) in [(closed.scenario(foot, cav, reaction="evade"), (NONE, NO_FIGHT)),
                       (closed.scenario(foot, cav, reaction="evade", evade_room=False),
                        (ATTACKER, DESTROYED)),
                       (closed.scenario(cav, closed.unit("S", formation="square")),
                        (NONE, NO_FIGHT))]:
        tally = solved(sc)
        assert tally.outcomes[w, e, 0] == 1.0 and tally.states == 1
    tally = solved(closed.scenario(cav, closed.unit("S", formation="square",
                                                    status=["disordered"])))
    assert tally.outcomes[ATTACKER, FLED].sum() == 0.0 and tally.outcomes[DEFENDER].sum() > 0


def test_round_cap_leaves_fights_unresolved():
    """Fights still live after max_rounds end (none, unresolved, max_rounds), as the kernel's."""
    tally = solved(closed.scenario(closed.unit("A", morale=2), closed.unit("D", morale=2),
                                   max_rounds=2))
    assert tally.outcomes[NONE, UNRESOLVED, 2] > 0
    assert tally.outcomes[NONE, UNRESOLVED, :2].sum() == 0.0


def test_state_count_and_bound():
    """The pike block's walk holds at most PIKE_BLOCK_STATES live states; one fewer allowed
    raises TooManyStates, exactly that many does not."""
    assert solved(PIKE_BLOCK).states == PIKE_BLOCK_STATES
    with pytest.raises(exact.TooManyStates) as raised:
        solved(PIKE_BLOCK, max_states=PIKE_BLOCK_STATES - 1)
    assert raised.value.states == PIKE_BLOCK_STATES
    assert solved(PIKE_BLOCK, max_states=PIKE_BLOCK_STATES).states == PIKE_BLOCK_STATES


def test_solver_rows_are_the_kernel_columns():
    """Rows have the ruleset's columns (shared and extra) and the sweep column is only set for
    unshaken cavalry winners after a melee (§5.4)."""
    sc = as_scenario(SCENARIOS["R4-4 counter-charge lancers"])
    rows, weights, _ = solver.solve(RULESET.compile(sc))
    columns = RULESET.columns(sc)
    assert rows.shape[0] == len(columns)
    sweep = rows[columns.index("sweeping_advance")] == 1
    winner = rows[0]
    shaken = np.where(winner == ATTACKER, rows[columns.index("attacker_shaken")],
                      rows[columns.index("defender_shaken")])
    assert sweep.any() and (winner[sweep] > 0).all() and (shaken[sweep] == 0).all()
    assert abs(weights.sum() - 1) < 1e-12


def test_a_long_cap_holds_no_more_states():
    """Every reachable count of failed saves is reached, however unlikely; failed saves are
    tallies (odds.core.walk.solve), distributions beside the states, so two drawn-out
    cavalry units hold as many live states over 200 rounds as over 100; a bound below them
    raises TooManyStates."""
    sc = SCENARIOS["R4-6 drawn cavalry melee"]
    short, long = (solved(sc.replace(max_rounds=n)).states for n in (100, 200))
    assert long == short
    with pytest.raises(exact.TooManyStates) as raised:
        solved(sc.replace(max_rounds=1000), max_states=short - 1)
    assert raised.value.max_states == short - 1 < raised.value.states

@pytest.mark.parametrize("engagement, attacker, rating, needed", [
    ({"staff_rating": 8, "charge_distance": 20}, closed.unit("H", "cavalry"), 8, 2),
    # 10" (the enemy within 12": -1), attack column (+1), 30" from the commander (-2), -1 more
    ({"staff_rating": 8, "charge_distance": 10, "commander_distance": 30,
      "command_modifier": -1}, closed.unit("I", formation="attack column"), 5, 1),
    ({"staff_rating": 10, "charge_distance": 30, "move": 10}, closed.unit("I"), 10, 3),
    ({"staff_rating": 12, "charge_distance": 55}, closed.unit("H", "cavalry"), 12, 4),
    # three moves of 1.2" reach 3.6" exactly (decimal inches compared exactly)
    ({"staff_rating": 10, "charge_distance": 3.6, "move": 1.2}, closed.unit("I"), 9, 3),
])
def test_a_failed_order_is_no_fight_R4_1(engagement, attacker, rating, needed):
    """The order's chance, by hand from the table, is exactly the chance of a fight."""
    tally = solved(closed.scenario(attacker, closed.unit("D"), **engagement))
    no_fight = float(tally.outcomes[NONE, NO_FIGHT].sum())
    assert abs(no_fight - (1.0 - closed.order_chance(rating, needed))) < 1e-12
    if needed > 3:  # beyond three moves: never in, one state
        assert no_fight == 1.0 and tally.states == 1


def test_terrifying_charge_tests_the_charged_unit_first():
    """§5.3 terrifying charge: the charged unit's break test, no deduction, before the melee
    (<= 4 break, 5-6 retire); steady passes it; none when cavalry charges pikes (R4-5), nor
    when cavalry counter-charges infantry (R4-4: only the cavalry counts as charging)."""
    terrifying = closed.unit("T", rules=["terrifying charge"])
    tally = solved(closed.scenario(terrifying, closed.unit("D")))
    two = 2 @ icepool.d6
    broken, retired = (two <= 4).probability(True), two.probability(5) + two.probability(6)
    assert abs(float(tally.outcomes[ATTACKER, DESTROYED, 0]) - float(broken)) < 1e-12
    assert abs(float(tally.outcomes[ATTACKER, FLED, 0]) - float(retired)) < 1e-12
    for defender, attacker, engagement in [
            (closed.unit("S", rules=["steady"]), terrifying, {}),
            (closed.unit("P", "pikes", 6, 0),
             closed.unit("C", "cavalry", rules=["terrifying charge"]), {}),
            (closed.unit("C", "cavalry"), terrifying, {"reaction": "counter-charge"})]:
        tally = solved(closed.scenario(attacker, defender, **engagement))
        assert float(tally.outcomes[:, :, 0].sum()) == 0.0


def _brigade(attackers, defenders, **engagement):
    return {"ruleset": "blackpowder", "attacker": {"units": attackers},
            "defender": {"units": defenders}, "engagement": engagement,
            "simulation": {"max_rounds": engagement.pop("max_rounds", 1)}}


def test_a_unit_support_adds_exactly_one_to_the_result_R4_3():
    """§5.3: a unit supporting from the rear is +1 to its unit's result, as the unit's own
    `rear_support` key: the two fights' winners and losses alike to 1e-12 (one round); one
    from a flank too (`flank_supports = 1`); none while the supported unit is flanked."""
    from exact_parity import outcome_probabilities

    attacker, defender = closed.unit("A"), closed.unit("D")
    for where, key in (("rear", {"rear_support": True}), ("flank", {"flank_supports": 1})):
        by_unit = solved(_brigade(
            [attacker, {**closed.unit("S"), "supports": "A", "support_from": where}],
            [defender]))
        by_key = solved(closed.scenario({**attacker, **key}, defender))
        unsupported = solved(closed.scenario(attacker, defender))
        got, want = outcome_probabilities(by_unit), outcome_probabilities(by_key)
        for k in ("attacker_wins", "defender_wins", "both_destroyed", "unresolved"):
            assert abs(got[k] - want[k]) < 1e-12, (where, k)
        assert abs(got["attacker_wins"] - outcome_probabilities(unsupported)[
            "attacker_wins"]) > 0.01
        for column in ("attacker_lost", "defender_lost"):
            assert_die(by_unit, column, _distribution(by_key, column))
    # the defender supports its unit, but the second charger stands on its flank: no bonus
    flanked = solved(_brigade([attacker, {**closed.unit("B"), "facing": "flank"}],
                              [defender, {**closed.unit("S"), "supports": "D"}]))
    plain = solved(_brigade([attacker, {**closed.unit("B"), "facing": "flank"}],
                            [defender]))
    a, b = outcome_probabilities(flanked), outcome_probabilities(plain)
    assert all(abs(a[k] - b[k]) < 1e-12 for k in a), (a, b)


def test_a_broken_units_supports_test_with_no_deduction_R4_3():
    """§5.5: when the supported unit breaks, its support tests at plain 2D6: destroyed on 4
    or less, fled on 5-6 (the bundled bands), each exactly P(broken) times that."""
    tally = solved(_brigade([closed.unit("A", hth=2), {**closed.unit("S"), "supports": "A"}],
                            [closed.unit("D", hth=9)], max_rounds=10))
    fates = {i: _distribution(tally, f"attacker.units[{i}].fate") for i in (0, 1)}
    broken = fates[0].get(1, 0.0)  # UNIT_DESTROYED
    assert broken > 0.3
    assert abs(fates[1].get(1, 0.0) - broken * 6 / 36) < 1e-12
    assert abs(fates[1].get(3, 0.0) - broken * 9 / 36) < 1e-12  # UNIT_FLED


def _joint(sc, *columns):
    """P(each combination of ``columns``' values), exactly (the solver's rows)."""
    sc = as_scenario(sc)
    names = RULESET.columns(sc)
    rows, weights, _ = solver.solve(RULESET.compile(sc))
    out = {}
    for r, p in zip(rows[[names.index(c) for c in columns]].T.tolist(), weights):
        out[tuple(r)] = out.get(tuple(r), 0.0) + p
    return out


def test_a_fresh_unit_is_charged_exactly_when_the_cavalry_may_sweep_5_4():
    """§5.4: the fresh unit is reached exactly as often as the same melee without it ends in
    a sweeping advance, and the fights that do not reach it are that melee's others,
    outcome by outcome (to 1e-12); beyond the cavalry's move it is never reached and the
    fight is that melee's; a second charge comes once a fight (a fresh unit each side: never
    both reached)."""
    from odds.core.outcome import UNIT_UNREACHED

    horse = closed.unit("H", "cavalry", 7)
    line = {**closed.unit("L"), "status": ["disordered"]}
    fresh = {**closed.unit("R"), "in_melee": False, "distance": 10}
    alone = _joint(closed.scenario(horse, line, sweeping_advance=True, max_rounds=6),
                   "winner", "end", "sweeping_advance")
    with_fresh = _joint(_brigade([horse], [line, fresh], sweeping_advance=True, max_rounds=6),
                        "winner", "end", "defender.units[1].fate")
    reached = sum(p for (_, _, fate), p in with_fresh.items() if fate != UNIT_UNREACHED)
    swept = sum(p for (_, _, sweep), p in alone.items() if sweep)
    assert 0.2 < reached and abs(reached - swept) < 1e-12
    for w, e in {(w, e) for w, e, _ in alone}:
        got = with_fresh.get((w, e, UNIT_UNREACHED), 0.0)
        assert abs(got - alone.get((w, e, 0), 0.0)) < 1e-12, (w, e)
    far = _joint(_brigade([horse], [line, {**fresh, "distance": 18.5}],
                          sweeping_advance=True, max_rounds=6),
                 "winner", "end", "defender.units[1].fate")  # beyond the 18" move: never
    assert {fate for _, _, fate in far} == {UNIT_UNREACHED}
    for w, e in {(w, e) for w, e, _ in alone}:
        got = far.get((w, e, UNIT_UNREACHED), 0.0)
        assert abs(got - sum(p for (a, b, _), p in alone.items() if (a, b) == (w, e))) < 1e-12
    both = _joint(_brigade([horse, {**fresh, "name": "A2"}],
                           [closed.unit("D", "cavalry", 7), fresh], sweeping_advance=True,
                           max_rounds=6),
                  "attacker.units[1].fate", "defender.units[1].fate")
    assert not any(a != UNIT_UNREACHED and d != UNIT_UNREACHED for a, d in both)
    assert all(any(x[k] != UNIT_UNREACHED for x in both) for k in (0, 1))
