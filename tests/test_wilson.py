"""The Wilson 95% interval every probability is reported with, and the paired-difference
intervals of comparisons."""
import numpy as np
import pytest
from scipy.stats import binomtest

from odds.analysis.intervals import mean_difference, paired_difference, wilson


@pytest.mark.parametrize("k,n", [(0, 10), (3, 10), (50, 100), (999, 1000), (1000, 1000)])
def test_wilson_matches_scipy(k, n):
    lo, hi = wilson(k, n)
    ref = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert lo == pytest.approx(ref.low, abs=1e-12)
    assert hi == pytest.approx(ref.high, abs=1e-12)



def test_wilson_ends_exactly_at_0_and_1():
    """k = 0 starts at exactly 0 and k = n ends at exactly 1 (not 1e-19 away), so an interval
    always contains its estimate and error bars are never negative."""
    for n in (1, 2, 7, 1000, 999_424, 10**12):
        lo, hi = wilson(0, n)
        assert lo == 0.0 and 0 < hi < 1
        lo, hi = wilson(n, n)
        assert hi == 1.0 and 0 < lo < 1
    lo, hi = wilson(np.array([0, 1, 3, 3]), np.array([3, 3, 3, 1000]))
    assert lo[0] == 0.0 and hi[2] == 1.0 and lo[3] > 0 and hi[0] < 1


def test_wilson_contains_its_estimate_everywhere():
    k = np.concatenate([np.arange(0, 60)] * 60)
    n = np.repeat(np.arange(60, 120), 60)
    for scale in (1, 1000, 10**9):
        lo, hi = wilson(k * scale, n * scale)
        p = k / n
        assert ((0 <= lo) & (lo <= p) & (p <= hi) & (hi <= 1)).all()
        assert (lo < hi).all()


def test_paired_difference_matches_the_published_example():
    """Newcombe's hybrid score interval for paired data, Cavo et al. (2012) as worked in
    Fagerland, Lydersen & Laake, Statistical Analysis of Contingency Tables, ch. 8:
    -0.0621 (95% CI -0.1186 to -0.0046)."""
    diff, lo, hi = paired_difference(59, 6, 16, 80)
    assert diff == pytest.approx(-10 / 161, abs=1e-12)
    assert round(lo, 4) == -0.1186 and round(hi, 4) == -0.0046


def test_paired_difference_shape():
    """Symmetric under swapping the two proportions; contains the estimate; within [-1, 1]."""
    for table in [(0, 0, 0, 10), (10, 0, 0, 0), (0, 5, 0, 5), (3, 1, 0, 6), (0, 10, 0, 0),
                  (40, 7, 3, 50)]:
        diff, lo, hi = paired_difference(*table)
        a, b, c, d = table
        back, blo, bhi = paired_difference(a, c, b, d)
        assert back == -diff and blo == pytest.approx(-hi) and bhi == pytest.approx(-lo)
        assert -1 <= lo <= diff <= hi <= 1
    assert paired_difference(0, 10, 0, 0)[0] == 1.0


@pytest.mark.parametrize("cells", [(0.30, 0.05, 0.02, 0.63), (0.005, 0.02, 0.005, 0.97)])
def test_paired_difference_covers_the_true_difference(cells):
    """Coverage over 2,000 simulated paired tables of 200 pairs, at a moderate point and near
    0 (where the Wald interval fails); the 95% interval must cover at least 93% of the time
    (a correct interval: 95%, within 4 standard errors of 0.5 points)."""
    rng = np.random.default_rng(12)
    true = cells[1] - cells[2]
    tables = rng.multinomial(200, cells, size=2000)
    covered = [lo <= true <= hi for lo, hi in
               (paired_difference(*t)[1:] for t in tables)]
    assert np.mean(covered) >= 0.93


def test_mean_difference_by_hand():
    # d = 1, 0, 2, -1: mean 0.5, sample variance 5/3
    mean, lo, hi = mean_difference(4, 2, 6)
    assert mean == 0.5
    assert hi - mean == pytest.approx(1.959963984540054 * np.sqrt(5 / 3 / 4))
    assert mean - lo == pytest.approx(hi - mean)
    assert mean_difference(10, 0, 0) == (0.0, 0.0, 0.0)
    assert mean_difference(5, 5, 5) == (1.0, 1.0, 1.0)  # every pair differs by exactly 1
