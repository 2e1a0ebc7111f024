"""The Python entry points: :func:`simulate` a scenario, get a :class:`~odds.analysis.result.Result`."""
from __future__ import annotations

from pathlib import Path

from odds.analysis.result import Result
from odds.core import runner
from odds.rulesets import get_ruleset
from odds.scenario import Scenario, load


def simulate(scenario: Scenario | str | Path, *, trials: int | None = None,
             seed: int | None = None, threads: int | None = None, keep_fights: bool = False,
             progress: bool = False) -> Result:
    """Play the scenario's fights and return the :class:`Result`.

    ``scenario`` is a :class:`Scenario` or the path of a TOML file. ``trials`` and ``seed``
    override the file's ``[simulation]`` table; the same seed and trials give bit-identical
    results whatever ``threads`` is. ``keep_fights`` keeps one row per fight
    (:meth:`Result.fights`); otherwise memory stays bounded however many trials are played.
    """
    scenario = load(scenario) if isinstance(scenario, (str, Path)) else scenario.validated()
    trials = scenario.simulation["trials"] if trials is None else trials
    seed = scenario.simulation["seed"] if seed is None else seed
    scenario = scenario.replace(trials=trials, seed=seed)
    ruleset = get_ruleset(scenario.ruleset)
    plan = ruleset.compile(scenario)
    runner.set_threads(threads)
    tally, record = runner.run(ruleset, plan, trials, seed, keep_fights=keep_fights,
                               progress=progress)
    return Result(scenario, tally, seed, record)
