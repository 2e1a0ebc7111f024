"""How a scenario is answered: simulated (``mc``), solved exactly (``exact``), or exactly
when the solver covers it within the state bound and simulated otherwise (``auto``)."""
from __future__ import annotations

import sys

from odds.analysis.result import Result
from odds.core import exact
from odds.core import schema as s
from odds.core.ruleset import needs_compiling
from odds.rulesets import get_ruleset

METHODS = ("mc", "exact", "auto")


def check(method, max_states, where: s.Where = s.ARGUMENTS, *, precision=None,
          keep_fights: bool = False, client=None, **simulation) -> None:
    """``method`` and ``max_states``, and the run options that need fights to be played
    (``simulation``: e.g. trials, seed, threads; given with method 'exact', an error)."""
    if not isinstance(method, str) or method not in METHODS:
        raise (where / "method").error(f"must be one of 'mc' (simulate), 'exact' (solve) or "
                                       f"'auto' (solve when it can, else simulate); got "
                                       f"{method!r}")
    if max_states is not None:
        s.integer(1)(max_states, where / "max_states")
    if method == "mc":
        return
    if keep_fights:
        raise (where / "keep_fights").error(
            f"method {method!r} may solve the fight exactly, which plays no fights to keep: "
            "give method 'mc' to keep them")
    if method == "exact" and precision is not None:
        raise (where / "precision").error("stops a simulation; the exact answer has no noise: "
                                          "drop precision, or give method 'auto' or 'mc'")
    for name, value in simulation.items():
        if method == "exact" and value is not None:
            raise (where / name).error("is for simulation; method 'exact' plays no fights "
                                       "(give method 'auto' to simulate what cannot be "
                                       "solved)")
    if method == "exact" and client is not None:
        raise (where / "client").error("the exact solver runs here, not on a cluster: drop "
                                       "the client, or give method 'auto' (solved here when "
                                       "it can be, else simulated on the cluster)")


def solve(scenarios: list, method: str, max_states: int | None,
          where: s.Where = s.ARGUMENTS, quiet: bool = False) -> tuple[list | None, str | None]:
    """Every scenario solved exactly: (their Results, None). When one cannot be (the solver
    does not cover a rule it uses, or it needs more than ``max_states`` fight states in a
    round, default the ruleset's :func:`odds.core.exact.default_bound`), ``auto`` gives
    (None, the reason,
    to say why all are simulated) and ``exact`` raises ScenarioError at ``where/method``."""
    results = []
    for scenario in scenarios:
        ruleset = get_ruleset(scenario.ruleset)
        reason = exact.covers(ruleset, scenario)
        if reason is None:
            plan = ruleset.compile(scenario)
            if not quiet:
                _announce(ruleset, plan)
            try:
                tally = exact.solve(ruleset, plan, ruleset.columns(scenario), max_states)
            except exact.TooManyStates as e:
                reason = f"{e}; a larger max_states allows more"
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
        print(f"odds: compiling the {ruleset.id} exact solver, once (this can take a minute); "
              "later runs load it from the cache", file=sys.stderr, flush=True)
