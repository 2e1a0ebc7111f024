"""The Python entry point: :func:`simulate` a scenario and get its Result."""
from __future__ import annotations

import math
from pathlib import Path

from odds.analysis.result import Result
from odds.core import runner
from odds.errors import ScenarioError
from odds.rulesets import get_ruleset
from odds.scenario import Scenario, load

BATCH = 1 << 14  # precision runs grow in whole batches, so where they stop is deterministic


def simulate(scenario: Scenario | str | Path, *, trials: int | None = None,
             seed: int | None = None, threads: int | None = None, keep_fights: bool = False,
             progress: bool = False, precision: float | None = None,
             max_trials: int = 100_000_000) -> Result:
    """Play the scenario's fights and return the :class:`Result`.

    ``scenario`` is a :class:`Scenario` or the path of a TOML file. ``trials`` and ``seed``
    override the file's ``[simulation]`` table; the same seed and trials give bit-identical
    results whatever ``threads`` is. ``keep_fights`` keeps one row per fight
    (:meth:`Result.fights`); otherwise memory stays bounded however many trials are played.

    With ``precision`` (e.g. 0.005) fights are played in batches until every headline
    probability's 95% interval half-width is at most that, or ``max_trials`` were played
    (``trials`` is then ignored); ``Result.precision_met`` says which. The batches are
    prefixes of one trial sequence, so the stopping point is deterministic for a seed.
    """
    scenario = load(scenario) if isinstance(scenario, (str, Path)) else scenario.validated()
    trials = scenario.simulation["trials"] if trials is None else trials
    seed = scenario.simulation["seed"] if seed is None else seed
    scenario = scenario.replace(trials=trials, seed=seed)
    ruleset = get_ruleset(scenario.ruleset)
    plan = ruleset.compile(scenario)
    runner.set_threads(threads)
    if precision is None:
        tally, record = runner.run(ruleset, plan, trials, seed, keep_fights=keep_fights,
                                   progress=progress)
        return Result(scenario, tally, seed, record)
    if not 0 < precision < 0.5:
        raise ScenarioError(f"must be between 0 and 0.5, got {precision}", field="precision")
    return _until_precise(scenario, ruleset, plan, seed, precision, max_trials, progress)


def _until_precise(scenario, ruleset, plan, seed, precision, max_trials, progress) -> Result:
    """Play batches until the widest headline half-width is at most ``precision``."""
    tally, played = None, 0
    target = min(BATCH, max_trials)
    while True:
        tally, _ = runner.run(ruleset, plan, target - played, seed, first_trial=played,
                              tally=tally, progress=progress)
        played = target
        result = Result(scenario, tally, seed)
        width = result.headline_half_width()
        if width <= precision or played >= max_trials:
            result.precision_met = width <= precision
            return result
        needed = played * (width / precision) ** 2 * 1.05  # half-width shrinks as 1/sqrt(n)
        target = min(max_trials, BATCH * math.ceil(max(needed, 1.25 * played) / BATCH))
