"""Confidence intervals for Monte Carlo proportions and for paired differences."""
from __future__ import annotations

import numpy as np

Z95 = 1.959963984540054


def wilson(successes, trials, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for successes out of trials (arrays broadcast).

    The interval always contains its estimate k / n: it starts at exactly 0 when k = 0 and
    ends at exactly 1 when k = n (the closed form leaves rounding dust there)."""
    k = np.asarray(successes, float)
    n = np.asarray(trials, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = k / n
        denom = 1.0 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
        low = np.where(k == 0, 0.0, np.clip(centre - half, 0.0, p))
        high = np.where(k == n, 1.0, np.clip(centre + half, p, 1.0))
    return low, high


def proportions(counts: dict[str, float], trials: float,
                exact: bool = False) -> dict[str, tuple[float, float, float]]:
    """Each count out of ``trials`` as (probability, low, high), Wilson 95% interval; with
    ``exact`` the counts are the exact solver's probability masses (out of ``trials``, their
    total) and the interval is the point itself."""
    k = np.array(list(counts.values()), float)
    low, high = (k / trials,) * 2 if exact else wilson(k, trials)
    return {key: (float(k[i] / trials), float(low[i]), float(high[i]))
            for i, key in enumerate(counts)}


def paired_difference(both, first_only, second_only, neither,
                      z: float = Z95) -> tuple[float, float, float]:
    """p1 - p2 for two proportions measured on the same trials, with Newcombe's hybrid score
    interval for paired data (Newcombe 1998, method 10: the two Wilson intervals combined
    with the correlation of the pairs, shrunk by n/2 when positive).

    The counts are the paired 2 x 2 table: trials where both happened, only the first, only
    the second, neither. Returns (difference, low, high)."""
    a, b, c, d = (float(x) for x in (both, first_only, second_only, neither))
    n = a + b + c + d
    p1, p2 = (a + b) / n, (a + c) / n
    l1, u1 = (float(x) for x in wilson(a + b, n, z))
    l2, u2 = (float(x) for x in wilson(a + c, n, z))
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    excess = a * d - b * c
    excess = excess - n / 2 if excess > n / 2 else min(excess, 0.0)
    phi = excess / np.sqrt(margins) if margins > 0 else 0.0
    below = np.sqrt(max(0.0, (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2))
    above = np.sqrt(max(0.0, (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2))
    diff = (b - c) / n
    return diff, max(-1.0, diff - float(below)), min(1.0, diff + float(above))


def mean_difference(n: int, sum_d: int, sum_d2: int, z: float = Z95) -> tuple[float, float, float]:
    """The mean of n paired differences d (given as the exact integer sums of d and d^2), with
    its normal 95% interval; identical pairs give exactly (0, 0, 0)."""
    mean = sum_d / n
    if n < 2:
        return mean, float("nan"), float("nan")
    variance = (n * sum_d2 - sum_d * sum_d) / (n * (n - 1))  # exact integer numerator
    half = z * float(np.sqrt(variance / n))
    return mean, mean - half, mean + half
