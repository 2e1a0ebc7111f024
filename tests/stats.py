"""Shared statistical assertions for the tests: fixed seeds, a bound of |z| < Z_MAX."""
from __future__ import annotations

import math
from fractions import Fraction

Z_MAX = 4.0


def assert_rate(k: int, n: int, p: Fraction | float, what: str) -> None:
    """k successes in n trials match probability p: exact 0/1 exactly, else |z| < Z_MAX."""
    assert n > 0, what
    p = float(p)
    if p in (0.0, 1.0):
        assert k == p * n, f"{what}: {k}/{n}, expected probability {p}"
        return
    z = (k / n - p) / math.sqrt(p * (1 - p) / n)
    assert abs(z) < Z_MAX, f"{what}: {k}/{n} = {k / n:.5f}, expected {p:.5f}, z = {z:.2f}"
