"""Exact checks of sides of several units in wh40k3 (R0-10 ... R0-13: result summed over units,
one Ld test and fall-back per unit, the best pursuit roll against every fleeing unit, the
advance into a fresh unit) against closed forms.

Each expected probability is computed exactly (fractions) by enumerating the dice; a simulated
frequency passes when within |z| < 4 of it (fixed seeds). Every test runs against two players:
``naive`` (tests/naive_wh40k3.py, a few thousand fights) and ``kernel`` (odds.simulate,
KERNEL_TRIALS fights), the latter skipped while the installed kernel writes no per-unit
columns.

The scenarios make the closed forms exact: "Warbosses" (WS 10, S 10, T 10) cannot be wounded
by "Grots" (S 1 against T 10 is "no effect"), so the Grots' side can only lose on wounds or by
a roll-off, and a 20-W Grot is never wiped out in one round. Tests condition on events decided
before the dice they check (e.g. "the Grots suffered a wound", which decides the result before
the Ld, fall-back and pursuit rolls), which keeps them exact.
"""
from __future__ import annotations

import math
from fractions import Fraction
from itertools import product

import pandas as pd
import pytest

import naive_wh40k3 as naive
import odds
from odds.core.outcome import (ATTACKER, CAUGHT, DEFENDER, DESTROYED, ENDS, FLED, NONE,
                               UNIT_CAUGHT, UNIT_DESTROYED, UNIT_FATES, UNIT_FLED,
                               UNIT_STANDING, UNIT_UNREACHED, UNRESOLVED, WINNERS)
from odds.rulesets.wh40k3 import rules
from stats import assert_rate
from units_scenarios import fight, models, unit

NAIVE_TRIALS = 4_000
KERNEL_TRIALS = 200_000
NEGLIGIBLE = 1e-9  # a probability no test here can see (far below 1 / KERNEL_TRIALS)

TO_HIT, TO_WOUND = rules.charts()

WARBOSS = dict(WS=10, S=10, T=10, W=1, I=10, A=10, Ld=10)
GROT = dict(WS=1, S=1, T=1, W=20, I=1, A=1, Ld=1)  # never wounds a Warboss; Ld 1 always fails
RUNT = dict(WS=1, S=1, T=1, W=1, I=1, A=1, Ld=1)


# --- exact dice ----------------------------------------------------------------------------

TWO_D6 = {total: Fraction(sum(1 for a, b in product(range(1, 7), repeat=2) if a + b == total),
                          36) for total in range(2, 13)}


def p_2d6(event, rolls: int) -> Fraction:
    """P(event(r1, ..., r_rolls)) for independent 2D6 rolls, by enumeration."""
    total = Fraction(0)
    for outcome in product(TWO_D6.items(), repeat=rolls):
        if event(*(value for value, _ in outcome)):
            total += math.prod(p for _, p in outcome)
    return total


def p_d6(target: int) -> Fraction:
    """P(D6 >= target); 7 ("no effect") never."""
    return Fraction(max(0, 7 - target), 6)


def p_unsaved(attacker: dict, defender: dict) -> Fraction:
    """One attack's chance to wound an unsaved model (R0-5, R0-7; the targets have no save)."""
    to_hit = TO_HIT[attacker["WS"] - 1][defender["WS"] - 1]
    to_wound = TO_WOUND[attacker["S"] - 1][defender["T"] - 1]
    return p_d6(to_hit) * p_d6(to_wound)


def p_some(p: Fraction, attacks: int) -> Fraction:
    return 1 - (1 - p) ** attacks


def binomial(n: int, p: Fraction) -> dict[int, Fraction]:
    return {k: math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)}


def catches(pursuit: int, fall_back: int, halving: bool) -> bool:
    """R0-12: caught if the pursuit roll (halved when the halving decides the catch) is greater
    than the fall-back roll."""
    return (pursuit / 2 if halving else pursuit) > fall_back


def reaches(move: int, distance: float, terrain: bool) -> bool:
    """R0-12: the advance (halved through difficult terrain) is at least the distance."""
    return (move / 2 if terrain else move) >= distance


ROLL_OFF_WIN = Fraction(15, 36)  # P(one D6 beats another)
ROLL_OFF_TIE = Fraction(6, 36)


# --- players -------------------------------------------------------------------------------

def as_codes(frame: pd.DataFrame) -> pd.DataFrame:
    """The record with every label column (winner, end, unit fates) as its integer code."""
    frame = frame.copy()
    for column in frame.columns:
        if not pd.api.types.is_numeric_dtype(frame[column]):
            labels = {"winner": WINNERS, "end": ENDS}.get(column, UNIT_FATES)
            frame[column] = frame[column].astype(str).map(labels.index)
    return frame


def play_naive(scenario, seed: int) -> pd.DataFrame:
    return naive.play(scenario, NAIVE_TRIALS, seed)


def play_kernel(scenario, seed: int) -> pd.DataFrame:
    result = odds.simulate(scenario, trials=KERNEL_TRIALS, seed=seed, keep_fights=True)
    return as_codes(result.fights())


def kernel_writes_units() -> tuple[bool, str]:
    """Whether the installed kernel plays several units and writes per-unit columns."""
    probe = odds.from_dict(fight("probe", [unit("A", models("Boss", 1, **WARBOSS)),
                                           unit("B", models("Boss", 1, **WARBOSS))],
                                 unit("C", models("Grot", 1, **GROT)), max_rounds=1))
    try:
        columns = odds.simulate(probe, trials=1, seed=1, keep_fights=True).fights().columns
    except Exception as error:  # noqa: BLE001 - any failure means "not yet"
        return False, f"the kernel cannot play several units yet ({error!r})"
    return "attacker.units[0].fate" in columns, "the kernel writes no per-unit columns yet"


KERNEL_READY, KERNEL_REASON = kernel_writes_units()
PLAYERS = [pytest.param(play_naive, id="naive"),
           pytest.param(play_kernel, id="kernel",
                        marks=pytest.mark.skipif(not KERNEL_READY, reason=KERNEL_REASON))]


def column(side: str, index: int, part: str) -> str:
    return f"{side}.units[{index}].{part}"


def warbosses(name: str, count: int = 1, attacks: int = 10, **keys) -> dict:
    return unit(name, models("Warboss", count, **{**WARBOSS, "A": attacks}), **keys)


def grots(name: str, count: int = 1, **keys) -> dict:
    return unit(name, models("Grot", count, **GROT), **keys)


# --- the tests -----------------------------------------------------------------------------

@pytest.mark.parametrize("player", PLAYERS)
@pytest.mark.parametrize("terrain_halving", [False, True], ids=["open", "halved_catch"])
def test_fleeing_units_each_caught_by_the_best_pursuit_roll_R0_11_R0_12(player,
                                                                        terrain_halving):
    """Two Grot units lose on wounds and both fail Ld 1 (2D6 <= 1 never); each falls back its
    own 2D6 and is caught iff the better of the two Warboss units' pursuit rolls beats it
    (halved first with pursuit_difficult_terrain + pursuit_halving_affects_catch). The two
    catches share the pursuit maximum: P(both caught) is not the square of P(caught). The side
    ends caught iff both were, else fled; a caught unit loses all its models."""
    sc = odds.from_dict(fight(
        "two fleeing units", [warbosses("Boss A", strikes="Grots A"),
                              warbosses("Boss B", strikes="Grots B")],
        [grots("Grots A", 2), grots("Grots B", 3)], max_rounds=1,
        pursuit_difficult_terrain=terrain_halving,
        pursuit_halving_affects_catch=terrain_halving))
    df = player(sc, seed=101 + terrain_halving)
    lost = df[df.defender_wounds > 0]  # won on wounds: decided before the Ld and 2D6 rolls
    assert len(lost) > 0.99 * len(df)
    assert (lost.winner == ATTACKER).all()

    def caught(fall_back, pursuit_a, pursuit_b):
        return catches(max(pursuit_a, pursuit_b), fall_back, terrain_halving)

    p_a = p_2d6(lambda fa, fb, pa, pb: caught(fa, pa, pb), 4)
    p_b = p_2d6(lambda fa, fb, pa, pb: caught(fb, pa, pb), 4)
    p_both = p_2d6(lambda fa, fb, pa, pb: caught(fa, pa, pb) and caught(fb, pa, pb), 4)
    assert p_a == p_b and p_both != p_a**2
    for index, p, count in ((0, p_a, 2), (1, p_b, 3)):
        fate = lost[column("defender", index, "fate")]
        assert fate.isin([UNIT_CAUGHT, UNIT_FLED]).all()
        assert_rate(int((fate == UNIT_CAUGHT).sum()), len(lost), p, f"P(Grots {index} caught)")
        assert (lost[column("defender", index, "lost")] == (fate == UNIT_CAUGHT) * count).all()
    assert_rate(int((lost.end == CAUGHT).sum()), len(lost), p_both, "P(both caught)")
    both = ((lost[column("defender", 0, "fate")] == UNIT_CAUGHT)
            & (lost[column("defender", 1, "fate")] == UNIT_CAUGHT))
    assert ((lost.end == CAUGHT) == both).all() and lost.end.isin([CAUGHT, FLED]).all()
    assert (lost.defender_lost == lost[column("defender", 0, "lost")]
            + lost[column("defender", 1, "lost")]).all()
    assert (lost[column("attacker", 0, "fate")] == UNIT_STANDING).all()


ADVANCES = [pytest.param(7, False, id="7in"), pytest.param(12, False, id="12in"),
            pytest.param(13, False, id="13in_never"), pytest.param(4, True, id="4in_terrain"),
            pytest.param(6.5, True, id="6.5in_terrain_never")]


@pytest.mark.parametrize("player", PLAYERS)
@pytest.mark.parametrize("distance, terrain", ADVANCES)
def test_advance_after_a_wipe_out_on_own_2d6_R0_10_R0_12(player, distance, terrain):
    """Three Warbosses (33 attacks) wipe out a lone Runt; the Warboss unit then advances its
    own 2D6 (halved through difficult terrain) and reaches the fresh Grots at ``distance``
    with P(2D6 >= D), or P(2D6 >= 2 D). max_rounds = 1: reached, the new combat never starts
    (unresolved, the fresh unit standing); not reached, the fresh unit is unreached."""
    sc = odds.from_dict(fight(
        "advance after a wipe-out", warbosses("Bosses", 3),
        [unit("Runt", models("Runt", 1, **RUNT)),
         grots("Reserve", 3, engaged=False, distance=distance)],
        max_rounds=1, pursuit_difficult_terrain=terrain))
    df = player(sc, seed=int(200 + 2 * distance + terrain))
    assert (1 - p_unsaved(WARBOSS, RUNT)) ** 33 < NEGLIGIBLE
    wiped = df[df[column("defender", 0, "fate")] == UNIT_DESTROYED]
    assert len(wiped) == len(df)
    fresh = wiped[column("defender", 1, "fate")]
    assert fresh.isin([UNIT_STANDING, UNIT_UNREACHED]).all()
    p = p_2d6(lambda move: reaches(move, distance, terrain), 1)
    assert_rate(int((fresh == UNIT_STANDING).sum()), len(wiped), p, f"P(reach {distance}in)")
    assert ((wiped.end == UNRESOLVED) == (fresh == UNIT_STANDING)).all()
    won = wiped[fresh == UNIT_UNREACHED]
    assert (won.winner == ATTACKER).all() and (won.end == DESTROYED).all()
    assert (wiped[column("defender", 1, "lost")] == 0).all()


@pytest.mark.parametrize("player", PLAYERS)
@pytest.mark.parametrize("distance, terrain", [pytest.param(8, False, id="8in"),
                                               pytest.param(5, True, id="5in_terrain")])
def test_two_units_advance_each_on_its_own_2d6_R0_12_R0_13(player, distance, terrain):
    """Two Warboss units wipe out a lone Runt (round 1) and each advances its own 2D6: the
    fresh unit is reached with 1 - P(2D6 short)^2. It is in cover (its own in_cover), so in the
    new combat's charge round (round 2) it strikes first (R0-4), at "Boss B" if B reached,
    else at "Boss A" (its strikes, then cyclic, R0-13): P(B wounded) = P(B reaches) q and
    P(A wounded) = P(A reaches, B not) q, q its chance of an unsaved wound with 10 attacks."""
    reserve = dict(WS=10, S=10, T=10, W=20, I=1, A=10, Ld=10)
    sc = odds.from_dict(fight(
        "two units advance", [warbosses("Boss A", 3), warbosses("Boss B", 3)],
        [unit("Runt", models("Runt", 1, **RUNT)),
         unit("Reserve", models("Ogre", 1, **reserve), engaged=False, distance=distance,
              in_cover=True, strikes="Boss B")],
        max_rounds=2, pursuit_difficult_terrain=terrain))
    df = player(sc, seed=300 + distance)
    # The Runt survives round 1 only if all 66 attacks fail, far below what a test can see.
    assert (1 - p_unsaved(WARBOSS, RUNT)) ** 66 < NEGLIGIBLE
    wiped = df[df[column("defender", 0, "fate")] == UNIT_DESTROYED]
    assert len(wiped) == len(df)
    short = p_2d6(lambda move: not reaches(move, distance, terrain), 1)
    q = p_some(p_unsaved(reserve, WARBOSS), 10)
    fresh = wiped[column("defender", 1, "fate")]
    assert_rate(int((fresh != UNIT_UNREACHED).sum()), len(wiped), 1 - short**2,
                "P(at least one reaches)")
    assert_rate(int((wiped[column("attacker", 1, "wounds")] > 0).sum()), len(wiped),
                (1 - short) * q, "P(Boss B reached and wounded)")
    assert_rate(int((wiped[column("attacker", 0, "wounds")] > 0).sum()), len(wiped),
                (1 - short) * short * q, "P(Boss A reached, B not, A wounded)")
    assert (wiped.rounds[fresh == UNIT_UNREACHED] == 1).all()


FALL_BACKS = [pytest.param(1, 7, False, False, id="one_pursuer_7in"),
              pytest.param(2, 9, False, False, id="two_pursuers_9in"),
              pytest.param(2, 4, True, False, id="two_pursuers_4in_terrain"),
              pytest.param(1, 3, True, True, id="one_pursuer_3in_terrain_halved_catch")]


@pytest.mark.parametrize("player", PLAYERS)
@pytest.mark.parametrize("pursuers, distance, terrain, halving", FALL_BACKS)
def test_pursuit_roll_is_the_advance_after_a_fall_back_R0_11_R0_12(player, pursuers, distance,
                                                                    terrain, halving):
    """A 20-W Grot loses on wounds and fails Ld 1; its fall-back f is caught iff the best
    pursuit roll beats it, and the same pursuit rolls move the Warbosses towards the fresh
    unit at ``distance``: reached iff the best roll (halved through terrain) is at least D.
    Reach and catch share the rolls, so the four joint cells are checked. max_rounds = 1:
    reached means unresolved."""
    sc = odds.from_dict(fight(  # A 5: 6 attacks each, never the Grot's 20 wounds
        "advance after a fall-back", [warbosses(f"Boss {i}", attacks=5) for i in range(pursuers)],
        [grots("Grots"), grots("Reserve", 3, engaged=False, distance=distance)],
        max_rounds=1, pursuit_difficult_terrain=terrain, pursuit_halving_affects_catch=halving))
    df = player(sc, seed=400 + 10 * pursuers + distance)
    lost = df[df[column("defender", 0, "wounds")] > 0]
    assert len(lost) > 0.99 * len(df) and (lost.rounds == 1).all()
    fate = lost[column("defender", 0, "fate")]
    reached = lost[column("defender", 1, "fate")] == UNIT_STANDING
    assert (reached | (lost[column("defender", 1, "fate")] == UNIT_UNREACHED)).all()
    assert ((lost.end == UNRESOLVED) == reached).all()
    for want_reach, want_caught in product((True, False), repeat=2):
        def cell(fall_back, *pursuit):
            best = max(pursuit)
            return (reaches(best, distance, terrain) == want_reach
                    and catches(best, fall_back, halving) == want_caught)

        p = p_2d6(cell, 1 + pursuers)
        hits = (reached == want_reach) & ((fate == UNIT_CAUGHT) == want_caught)
        assert_rate(int(hits.sum()), len(lost), p,
                    f"P(reached={want_reach}, caught={want_caught})")
    assert fate.isin([UNIT_CAUGHT, UNIT_FLED]).all()


@pytest.mark.parametrize("player", PLAYERS)
def test_pursue_false_never_catches_nor_advances_R0_12(player):
    """pursue = false: a losing unit that fails its test flees, never caught, and no one
    advances: the fresh unit 2" away stays unreached, after a fall-back (the Grots) as after
    a wipe-out (the Runt, P(wiped) = 1 - (1 - p)^33; a second fight without the Grots)."""
    def no_pursuit(*engaged):
        return odds.from_dict(fight(
            "no pursuit", [warbosses("Boss A"), warbosses("Boss B", 3, strikes="Runt")],
            [*engaged, unit("Runt", models("Runt", 1, **RUNT)),
             grots("Reserve", 3, engaged=False, distance=2)], max_rounds=1, pursue=False))

    df = player(no_pursuit(grots("Grots")), seed=500)
    lost = df[df[column("defender", 0, "wounds")] > 0]
    assert len(lost) > 0.99 * len(df)
    assert_rate(int((lost[column("defender", 0, "fate")] == UNIT_FLED).sum()), len(lost), 1,
                "P(Grots flee | lost on wounds)")
    assert_rate(int((df[column("defender", 1, "fate")] == UNIT_DESTROYED).sum()), len(df),
                p_some(p_unsaved(WARBOSS, RUNT), 33), "P(Runt wiped out)")
    assert not (df[column("defender", 1, "fate")] == UNIT_CAUGHT).any()
    assert (df[column("defender", 2, "fate")] == UNIT_UNREACHED).all()

    df = player(no_pursuit(), seed=501)
    wiped = df[column("defender", 0, "fate")] == UNIT_DESTROYED
    assert_rate(int(wiped.sum()), len(df), p_some(p_unsaved(WARBOSS, RUNT), 44),
                "P(Runt wiped out by both units)")
    assert (df[column("defender", 1, "fate")] == UNIT_UNREACHED).all()
    assert (df.winner[wiped] == ATTACKER).all() and (df.end[wiped] == DESTROYED).all()


@pytest.mark.parametrize("player", PLAYERS)
def test_roll_off_win_neither_pursues_nor_advances_R0_10_R0_12(player):
    """Nobody can wound (S 1 against T 10), so the result is the D6 roll-off: 15/36 each side,
    6/36 a draw (unresolved, max_rounds = 1). The losing units (Ld 1) all flee, none caught,
    and neither side's fresh unit is reached."""
    tough_grot = {**GROT, "T": 10}
    sc = odds.from_dict(fight(
        "roll-off", [unit("Grots A", models("Grot", 2, **tough_grot)),
                     unit("Reserve A", models("Grot", 2, **tough_grot), engaged=False,
                          distance=2)],
        [unit("Grots B", models("Grot", 2, **tough_grot)),
         unit("Grots C", models("Grot", 1, **tough_grot)),
         unit("Reserve B", models("Grot", 2, **tough_grot), engaged=False, distance=2)],
        max_rounds=1))
    df = player(sc, seed=600)
    assert_rate(int((df.winner == ATTACKER).sum()), len(df), ROLL_OFF_WIN, "P(attacker wins)")
    assert_rate(int((df.winner == DEFENDER).sum()), len(df), ROLL_OFF_WIN, "P(defender wins)")
    assert_rate(int((df.end == UNRESOLVED).sum()), len(df), ROLL_OFF_TIE, "P(draw)")
    assert df.end[df.winner != NONE].eq(FLED).all()
    assert (df[column("attacker", 1, "fate")] == UNIT_UNREACHED).all()
    assert (df[column("defender", 2, "fate")] == UNIT_UNREACHED).all()
    for side, index in (("attacker", 0), ("defender", 0), ("defender", 1)):
        fate = df[column(side, index, "fate")]
        assert fate.isin([UNIT_STANDING, UNIT_FLED]).all()
        assert ((fate == UNIT_FLED) == (df.winner == (DEFENDER if side == "attacker"
                                                      else ATTACKER))).all()


@pytest.mark.parametrize("player", PLAYERS)
def test_each_losing_unit_tests_its_own_Ld_R0_11_R0_13(player):
    """Each losing unit tests 2D6 <= its own Ld: its ``Ld`` key (9), else its best surviving
    model's (6, with a Ld 3 model beside it). The tests are independent; a unit that holds
    stays in the fight, so the side flees only when both fail (pursue = false, max_rounds = 1:
    else unresolved)."""
    sc = odds.from_dict(fight(
        "own Ld", [warbosses("Boss A", strikes="Mob"), warbosses("Boss B", strikes="Squad")],
        [unit("Mob", models("Grot", 1, **{**GROT, "Ld": 3}),
              models("Runtherd", 1, **{**GROT, "Ld": 6})),
         unit("Squad", models("Grot", 2, **{**GROT, "Ld": 2}), Ld=9)],
        max_rounds=1, pursue=False))
    df = player(sc, seed=700)
    lost = df[df.defender_wounds > 0]
    fails = {ld: p_2d6(lambda roll: roll > ld, 1) for ld in (6, 9)}
    mob = lost[column("defender", 0, "fate")] == UNIT_FLED
    squad = lost[column("defender", 1, "fate")] == UNIT_FLED
    assert_rate(int(mob.sum()), len(lost), fails[6], "P(Mob fails Ld 6)")
    assert_rate(int(squad.sum()), len(lost), fails[9], "P(Squad fails Ld 9)")
    assert_rate(int((mob & squad).sum()), len(lost), fails[6] * fails[9], "P(both fail)")
    assert ((lost.end == FLED) == (mob & squad)).all()
    assert ((lost.end == UNRESOLVED) == ~(mob & squad)).all()


@pytest.mark.parametrize("player", PLAYERS)
def test_result_sums_unsaved_wounds_over_units_R0_10_R0_13(player):
    """Two one-model units (2 attacks each on the charge) against one model with 3 attacks, all
    at 1/4 to wound unsaved, at equal I, nobody dies (W 20): the attacker side wins iff its
    summed wounds X1 + X2 ~ B(4, 1/4) beat Y ~ B(3, 1/4), a roll-off on a tie (R0-10)."""
    fighter = dict(WS=4, S=4, T=4, W=20, I=4, A=1, Ld=1)
    sc = odds.from_dict(fight(
        "summed result", [unit("Left", models("Fighter", 1, **fighter)),
                          unit("Right", models("Fighter", 1, **fighter))],
        unit("Brute", models("Brute", 1, **{**fighter, "A": 3})), max_rounds=1))
    df = player(sc, seed=800)
    p = p_unsaved(fighter, fighter)
    x, y = binomial(4, p), binomial(3, p)
    more = sum(x[i] * y[j] for i in x for j in y if i > j)
    fewer = sum(x[i] * y[j] for i in x for j in y if i < j)
    tie = 1 - more - fewer
    assert_rate(int((df.winner == ATTACKER).sum()), len(df), more + tie * ROLL_OFF_WIN,
                "P(attacker side wins)")
    assert_rate(int((df.winner == DEFENDER).sum()), len(df), fewer + tie * ROLL_OFF_WIN,
                "P(defender wins)")
    assert (df.defender_wounds == df[column("defender", 0, "wounds")]).all()
    assert (df.attacker_wounds == df[column("attacker", 0, "wounds")]).all()  # Brute strikes Left
    assert (df[column("attacker", 1, "wounds")] == 0).all()


@pytest.mark.parametrize("player", PLAYERS)
def test_wounds_beyond_a_units_last_model_are_lost_then_retarget_R0_13(player):
    """A unit's I 5 model strikes the lone Runt (6 attacks); wounds beyond its last model pass
    to no one. At the start of the I 3 step the unit picks its target again: the Runt if it
    stands, else the next unit, the 20-W Grot. So P(Grot wounded) = P(Runt killed at I 5)
    P(I 3 wounds the Grot) and P(Runt killed) = 1 - (1 - p)^12."""
    fast = dict(WS=4, S=4, T=10, W=1, I=5, A=5, Ld=10)
    sc = odds.from_dict(fight(
        "retarget", unit("Bosses", models("Fast", 1, **fast), models("Slow", 1, **{**fast,
                                                                                  "I": 3})),
        [unit("Runt", models("Runt", 1, **RUNT)), grots("Grots")], max_rounds=1))
    df = player(sc, seed=900)
    p_runt, p_grot = p_unsaved(fast, RUNT), p_unsaved(fast, GROT)
    runt = df[column("defender", 0, "wounds")]
    assert runt.le(1).all()
    assert_rate(int((runt == 1).sum()), len(df), p_some(p_runt, 12), "P(Runt killed)")
    assert_rate(int((df[column("defender", 1, "wounds")] > 0).sum()), len(df),
                p_some(p_runt, 6) * p_some(p_grot, 6), "P(Runt killed at I 5, Grot wounded)")
    assert (df.defender_wounds == runt + df[column("defender", 1, "wounds")]).all()
