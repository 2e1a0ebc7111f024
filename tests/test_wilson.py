"""The Wilson 95% interval every probability is reported with."""
import pytest
from scipy.stats import binomtest

from odds.analysis.intervals import wilson


@pytest.mark.parametrize("k,n", [(0, 10), (3, 10), (50, 100), (999, 1000), (1000, 1000)])
def test_wilson_matches_scipy(k, n):
    lo, hi = wilson(k, n)
    ref = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert lo == pytest.approx(ref.low, abs=1e-12)
    assert hi == pytest.approx(ref.high, abs=1e-12)

