"""A grid solved exactly instead of played: every cell's exact Result (``method`` 'exact', or
'auto' when every cell can be solved), and its exact differences from a baseline."""
from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass

import numpy as np

from odds.analysis.result import Result
from odds.core import exact
from odds.core import schema as s
from odds.core.ruleset import needs_compiling
from odds.rulesets import get_ruleset


def solve_all(scenarios: list, method: str, max_states: int | None,
              where: s.Where = s.ARGUMENTS,
              quiet: bool = False) -> tuple[list | None, str | None]:
    """Every scenario solved exactly: (their Results, None). When one cannot be (the solver
    does not cover a rule it uses, or it needs more than ``max_states`` fight states in a
    round, default the ruleset's :func:`odds.core.exact.default_bound`), ``auto`` gives
    (None, the reason, to say why all are simulated) and ``exact`` raises ScenarioError at
    ``where/method``."""
    results = []
    for scenario in scenarios:
        ruleset = get_ruleset(scenario.ruleset)
        plan = ruleset.compile(scenario) if exact.module(ruleset) else None  # compiled once
        reason = exact.covers(ruleset, scenario, plan)
        if reason is None:
            if not quiet:
                _announce(ruleset, plan)
            try:
                tally = exact.solve(ruleset, plan, ruleset.columns(scenario), max_states)
            except exact.TooBig as e:
                reason = f"{e}; a larger max_states allows more" \
                    if isinstance(e, exact.TooManyStates) else str(e)
            else:
                results.append(Result(scenario, tally, None))
                continue
        named = f"{scenario.name!r}: " if len(scenarios) > 1 else ""
        if method == "exact":
            raise (where / "method").error(f"cannot solve {named}exactly: {reason}; give "
                                           "method 'auto' (simulates it) or 'mc'")
        return None, f"simulated, not solved exactly: {named}{reason}"
    return results, None


def _announce(ruleset, plan) -> None:
    solver = exact.module(ruleset)
    if needs_compiling(solver, plan, entry="solve"):
        print(f"odds: compiling the {ruleset.id} exact solver, once (half a minute to a "
              "CPU minute, by ruleset); later runs load it from the cache", file=sys.stderr,
              flush=True)


@dataclass
class ExactDifference:
    """A cell solved exactly against its baseline: every difference is exact (its interval
    the point itself) and no fights were paired."""

    result: Result
    base: Result

    def differences(self) -> dict:
        mine, base = _points(self.result), _points(self.base)
        out = {}
        for key, value in mine.items():
            out.update(dict.fromkeys((f"{key}_diff", f"{key}_diff_low", f"{key}_diff_high"),
                                     value - base[key]))
        out["paired_trials"] = None
        return out


def _points(result: Result) -> dict[str, float]:
    """Every probability and mean of a result, by key."""
    return {**{key: p for key, (p, _, _) in result.probabilities().items()}, **result.means()}


def differences(results: list, baselines: dict[int, int]) -> tuple[dict, list]:
    """The exact grid's (pairings, digests), as :func:`odds.play.play` returns them: each
    cell's :class:`ExactDifference` from its baseline, and a digest of each distribution."""
    def digest(tally) -> bytes:
        h = hashlib.sha256(np.ascontiguousarray(tally.outcomes).tobytes())
        for name in tally.columns[3:]:
            h.update(np.ascontiguousarray(tally.by_winner[name]).tobytes())
        return h.digest()

    pairings = {i: ExactDifference(results[i], results[b]) for i, b in baselines.items()}
    return pairings, [digest(r.tally) for r in results]
