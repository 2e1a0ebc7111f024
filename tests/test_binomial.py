"""The binomial CDF tables and draws every kernel uses for counts of successes."""
import numpy as np
import pytest
from numba import njit
from scipy.stats import binom

from odds.core.binomial import CAP, cdf_tables, draw
from odds.core.rng import seed_stream, uniform


@pytest.mark.parametrize("p", [0.0, 1 / 36, 0.25, 5 / 9, 1.0])
def test_tables_equal_scipy(p):
    cdf, offset, top = cdf_tables(np.array([p]), np.array([40]))
    for n in range(41):
        row = cdf[offset[0] + n * (n + 1) // 2:][:n + 1]
        expected = binom.cdf(np.arange(n + 1), n, p)
        assert np.allclose(row, expected, rtol=0, atol=1e-13)
        assert row[-1] == 1.0


def test_tables_stop_at_the_cap():
    _, _, top = cdf_tables(np.array([0.3, 0.3]), np.array([10, 10_000]))
    assert list(top) == [10, CAP]


@njit
def _draws(cdf, offset, top, n, p, trials):
    st = np.empty(4, np.uint64)
    counts = np.zeros(n + 1, np.int64)
    for t in range(trials):
        seed_stream(st, 99, t)
        counts[draw(st, cdf, offset, top, n, p)] += 1
    return counts


@pytest.mark.parametrize("n", [7, 40, CAP + 20])  # table rows, and one uniform per trial past the cap
def test_draws_follow_the_binomial(n):
    """Each count's frequency within |z| < 4 of the exact pmf (200,000 draws, fixed seed)."""
    p = 1 / 3
    cdf, offset, top = cdf_tables(np.array([p]), np.array([n]))
    trials = 200_000
    counts = _draws(cdf, offset[0], top[0], n, p, trials)
    pmf = binom.pmf(np.arange(n + 1), n, p)
    seen = pmf * trials > 20
    z = (counts[seen] - trials * pmf[seen]) / np.sqrt(trials * pmf[seen] * (1 - pmf[seen]))
    assert np.all(np.abs(z) < 4), z
    assert counts[~seen].sum() == pytest.approx(trials * pmf[~seen].sum(),
                                                abs=4 * np.sqrt(trials * pmf[~seen].sum()) + 1)


@njit
def _searched_and_drawn(cdf, offset, top, p, seed):
    """For every n of the table: the count searched from zero (the least k with
    u < P(X <= k)) and draw's count, from the same uniform."""
    st = np.empty(4, np.uint64)
    other = np.empty(4, np.uint64)
    out = np.zeros((2, top + 1, 50), np.int64)
    for n in range(top + 1):
        for t in range(50):
            seed_stream(st, seed, n * 50 + t)
            seed_stream(other, seed, n * 50 + t)
            out[1, n, t] = draw(st, cdf, offset, top, n, p)
            u = uniform(other)
            row = offset + n * (n + 1) // 2
            k = 0
            while k < n and u >= cdf[row + k]:
                k += 1
            out[0, n, t] = k
    return out


@pytest.mark.parametrize("p", [0.0, 1e-9, 1 / 36, 1 / 3, 0.5, 35 / 36, 1.0])
def test_a_draw_is_the_count_searched_from_zero(p):
    """draw() counts the row's entries at or below its uniform (the row rises) where p >= 1/8,
    which is the least k with u < P(X <= k): the same count as a search from zero, for every
    row to CAP."""
    cdf, offset, top = cdf_tables(np.array([p]), np.array([CAP]))
    searched, drawn = _searched_and_drawn(cdf, offset[0], top[0], p, 17)
    assert np.array_equal(searched, drawn)
    assert drawn.max() <= CAP and (drawn[:, :] <= np.arange(CAP + 1)[:, None]).all()


def test_equal_probabilities_share_one_table():
    """Every (offset, top) row is exactly the row of that probability's table built alone, and
    equal probabilities share one table as long as the longest they need."""
    rng = np.random.default_rng(5)
    p = rng.choice([0.0, 1 / 6, 0.25, 4 / 9, 1.0], size=(3, 4, 5))
    n_max = rng.integers(0, 60, size=p.shape)
    n_max[0, 0, 0] = 10_000  # past the cap
    cdf, offset, top = cdf_tables(p, n_max)
    assert offset.shape == top.shape == p.shape
    assert np.array_equal(top, np.minimum(n_max, CAP))
    for q in range(p.size):
        alone, at, t = cdf_tables(p.flat[q:q + 1], n_max.flat[q:q + 1])
        assert t[0] == top.flat[q]
        rows = (t[0] + 1) * (t[0] + 2) // 2
        assert np.array_equal(cdf[offset.flat[q]:offset.flat[q] + rows], alone[at[0]:][:rows])
    longest = {v: top[p == v].max() for v in np.unique(p)}
    assert cdf.size == sum((t + 1) * (t + 2) // 2 for t in longest.values())
