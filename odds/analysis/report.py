"""The printed conventions simulate, compare and sweep share: a header naming the scenario
and ruleset, one line of fights, seed and precision, percents with 95% intervals, tables
with aligned columns, counts and possessives in good English, and the error for a name a
method does not know."""
from __future__ import annotations

import math

from odds.core import schema as s


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


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``1 variant``, ``3 variants`` (``plural``: when it is not ``noun`` + "s")."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def possessive(name: str) -> str:
    """``Orks'``, ``Sergeant's squad's``: a name's possessive."""
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def pick(value, allowed, argument: str, what: str) -> str:
    """``value`` when it is one of the names ``allowed``; else a TypeError when it is not a
    string, or a ScenarioError blamed on ``argument`` (``<arguments>: side: unknown side
    'attackr'; did you mean 'attacker'? ...``). ``what`` names the kind: "side"."""
    if not isinstance(value, str):
        raise TypeError(f"{argument} must be a string naming a {what}, got {value!r}")
    if value not in allowed:
        raise (s.ARGUMENTS / argument).error(
            f"unknown {what} {value!r}{s.did_you_mean(value, allowed)} (one of "
            f"{', '.join(map(repr, allowed))})")
    return value


def title(name: str, ruleset: str) -> str:
    return f"{name}  [{ruleset}]"


def size(result) -> str:
    """How a result was reached: ``"20,000 fights"``, or ``"exact (812 fight states)"``."""
    if result.tally.exact:
        return f"exact ({count(result.states, 'fight state')})"
    return count(result.trials, "fight")


def basis(result, seed: bool = False) -> str:
    """A chart title's account of its numbers: ``"20,000 fights, seed 1, 95% intervals"``
    (the seed when asked), or ``"exact (812 fight states)"``."""
    if result.tally.exact:
        return size(result)
    return f"{size(result)}{f', seed {result.seed}' * seed}, 95% intervals"


def runs(trials: list[int], seed: int, per: str = "", precision: float | None = None,
         met: list | None = None) -> str:
    """``2,000 fights per cell, seed 1; precision ±0.50% met in 8 of 9 cells``.

    ``per`` names what each count is for ("cell", "value"; "" for a single run); ``met``
    says, per run, whether ``precision`` was met."""
    low, high = min(trials), max(trials)
    text = (count(low, "fight") if low == high else f"{low:,} to {high:,} fights") + (
        f" per {per}" if per else "") + f", seed {seed}"
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


def solved(frame) -> bool:
    """Whether a grid's cells were all solved exactly (its ``method`` column)."""
    return "method" in frame and bool((frame["method"] == "exact").all())


def grid_seed(frame) -> int | None:
    """A grid's seed, None when it was solved exactly."""
    return None if solved(frame) else int(frame["seed"].iloc[0])


def grid_runs(frame, per: str, precision: float | None = None, met: list | None = None,
              note: str | None = None) -> str:
    """:func:`runs` of a grid's rows (``per``: "cell", "value"), or for a grid solved
    exactly ``solved exactly, at most 812 fight states a cell``; then ``note`` (why method
    'auto' simulated), if any."""
    if solved(frame):
        text = (f"solved exactly, at most {count(int(frame['states'].max()), 'fight state')} "
                f"a {per}")
    else:
        text = runs(list(frame["trials"]), grid_seed(frame), per, precision, met)
    return text + (f"; {note}" if note else "")


def table(rows: list[list[str]], names: list[str], left: int = 1) -> list[str]:
    """Rows of text under ``names``, columns two spaces apart; the first ``left`` columns are
    aligned left (names), the others right (numbers)."""
    cells = [names] + rows
    widths = [max(len(r[i]) for r in cells) for i in range(len(names))]
    return ["  ".join(c.ljust(w) if i < left else c.rjust(w)
                      for i, (c, w) in enumerate(zip(r, widths))).rstrip() for r in cells]
