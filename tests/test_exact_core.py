"""The exact solver's shared part (odds.core.exact): dice vectors against enumeration with
fractions, the binomial against scipy, state merging, the bound, and exact tallies."""
from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from odds.core import exact
from odds.core.tally import Tally


def enumerated(n: int, sides: int, keep) -> dict[int, Fraction]:
    out: dict[int, Fraction] = {}
    for faces in itertools.product(range(1, sides + 1), repeat=n):
        total = keep(sorted(faces))
        out[total] = out.get(total, 0) + Fraction(1, sides ** n)
    return out


@pytest.mark.parametrize("n, sides", [(1, 6), (2, 6), (3, 6), (2, 10), (4, 3)])
def test_dice_sum_is_the_enumerated_distribution(n, sides):
    expected = enumerated(n, sides, sum)
    got = exact.dice_sum(n, sides)
    assert len(got) == n * sides + 1
    for total in range(len(got)):
        assert got[total] == pytest.approx(float(expected.get(total, 0)), abs=1e-15)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_drop_lowest_and_highest(n):
    """3D6 drop lowest is Swiftstride's flee/pursuit roll (R2-13); drop highest is
    Cold-blooded's shape."""
    for got, keep in ((exact.drop_lowest(n), lambda f: sum(f[1:])),
                      (exact.drop_highest(n), lambda f: sum(f[:-1]))):
        expected = enumerated(n, 6, keep)
        assert got.sum() == pytest.approx(1, abs=1e-14)
        for total, p in expected.items():
            assert got[total] == pytest.approx(float(p), abs=1e-15)


def test_threshold_probabilities_of_two_d6():
    two = exact.dice_sum(2)
    assert exact.p_ge(two, 7) == pytest.approx(21 / 36, abs=1e-15)
    assert exact.p_gt(two, 7) == pytest.approx(15 / 36, abs=1e-15)
    assert exact.p_le(two, 7) == pytest.approx(21 / 36, abs=1e-15)
    assert exact.p_ge(two, 13) == 0 and exact.p_ge(two, 2) == pytest.approx(1, abs=1e-15)


@pytest.mark.parametrize("n, p", [(0, 0.3), (1, 0.5), (10, 1 / 6), (300, 0.41), (40, 1.0)])
def test_binomial_pmf_matches_scipy(n, p):
    got = exact.binomial_pmf(n, p)
    assert len(got) == n + 1
    assert np.allclose(got, stats.binom.pmf(np.arange(n + 1), n, p), rtol=1e-9, atol=1e-300)
    assert got.sum() == pytest.approx(1, abs=1e-12)


def test_merge_sums_equal_states_and_drops_empty_ones():
    keys, probs = exact.merge(np.array([5, 2, 5, 9, 2], np.int64),
                              np.array([0.1, 0.2, 0.3, 0.0, 0.4]))
    assert keys.tolist() == [2, 5]
    assert probs == pytest.approx([0.6, 0.4], abs=1e-15)


def test_the_state_bound():
    exact.check_states(10, 10, 3)
    with pytest.raises(exact.TooManyStates, match=r"more than 9 fight states \(reached 10 in "
                                                  r"round 3\)") as e:
        exact.check_states(10, 9, 3)
    assert (e.value.states, e.value.max_states, e.value.round) == (10, 9, 3)


def test_exact_tally_weights_rows_and_refuses_counts():
    columns = ("winner", "end", "rounds", "attacker_lost")
    tally = Tally(columns, exact=True)
    rows = np.array([[1, 2, 1], [0, 2, 0], [1, 3, 2], [4, 0, 1]])
    tally.add(rows, np.array([0.5, 0.25, 0.25]))
    assert tally.trials is None and tally.total == pytest.approx(1)
    assert tally.outcomes[1, 0, 1] == 0.5 and tally.outcomes[1, 0, 2] == 0.25
    assert tally.mean("attacker_lost") == pytest.approx(0.5 * 4 + 0.25 * 0 + 0.25 * 1)
    with pytest.raises(ValueError, match="weights"):
        tally.add(rows)
    with pytest.raises(ValueError, match="weights"):
        Tally(columns).add(rows, np.ones(3))
    with pytest.raises(ValueError, match="not merged"):
        Tally(columns).merge(tally)
