"""The printed conventions simulate, compare and sweep share: a header naming the scenario
and ruleset, one line of fights, seed and precision, percents with 95% intervals, and tables
with aligned columns."""
from __future__ import annotations

import math


def percent(p: float, digits: int = 1) -> str:
    return f"{100 * p:.{digits}f}%"


def with_interval(p: float, low: float, high: float, digits: int = 1) -> str:
    """``88.6% [87.1, 89.9]``: a probability and its 95% interval, in percent."""
    return f"{100 * p:.{digits}f}% [{100 * low:.{digits}f}, {100 * high:.{digits}f}]"


def signed_interval(d: float, low: float, high: float, digits: int = 1) -> str:
    """``+2.3 [+1.1, +3.4]``: a difference in percentage points and its 95% interval."""
    return f"{100 * d:+.{digits}f} [{100 * low:+.{digits}f}, {100 * high:+.{digits}f}]"


def number(x: float, digits: int = 2) -> str:
    """A mean or ratio; blank when there is none (NaN), "inf" when unbounded."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    return "inf" if math.isinf(x) else f"{x:.{digits}f}"


def count(n: int, noun: str) -> str:
    """``1 variant``, ``3 variants``."""
    return f"{n:,} {noun}{'s' * (n != 1)}"


def title(name: str, ruleset: str) -> str:
    return f"{name}  [{ruleset}]"


def runs(trials: list[int], seed: int, per: str = "", precision: float | None = None,
         met: list | None = None) -> str:
    """``2,000 fights per cell, seed 1; precision ±0.50% met in 8 of 9 cells``.

    ``per`` names what each count is for ("cell", "value"; "" for a single run); ``met``
    says, per run, whether ``precision`` was met."""
    low, high = min(trials), max(trials)
    count = f"{low:,}" if low == high else f"{low:,} to {high:,}"
    text = f"{count} fights{f' per {per}' if per else ''}, seed {seed}"
    if precision is not None:
        reached = sum(bool(m) for m in met)
        if len(met) == 1:
            verdict = "met" if reached else "NOT met (trial cap reached)"
        elif reached == len(met):
            verdict = f"met in every {per}"
        else:
            verdict = (f"met in {reached} of {len(met)} {per}s (* = not met: trial cap "
                       f"reached)")
        text += f"; precision ±{percent(precision, 2)} {verdict}"
    return text


def table(rows: list[list[str]], names: list[str], left: int = 1) -> list[str]:
    """Rows of text under ``names``, columns two spaces apart; the first ``left`` columns are
    aligned left (names), the others right (numbers)."""
    cells = [names] + rows
    widths = [max(len(r[i]) for r in cells) for i in range(len(names))]
    return ["  ".join(c.ljust(w) if i < left else c.rjust(w)
                      for i, (c, w) in enumerate(zip(r, widths))).rstrip() for r in cells]
