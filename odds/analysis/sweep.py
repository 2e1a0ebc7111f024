"""One-parameter sweeps: a scenario simulated once per value of one path."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from odds.analysis import report
from odds.analysis.compare import grid_text, row
from odds.analysis.grid import Grid
from odds.analysis.comparison_file import cell
from odds.analysis.units import several_units
from odds.core import schema as s
from odds.errors import ScenarioError
from odds.play import options, play
from odds.scenario import Scenario, as_scenario

MAX_VALUES = 1000  # values in one sweep


@dataclass(repr=False)
class Sweep(Grid):
    """Results along one parameter: :attr:`frame` has one row per value."""

    path: str
    frame: object  # pandas.DataFrame
    results: list = field(default_factory=list)
    precision: float | None = None
    method_note: str | None = None  # why method 'auto' simulated the sweep, when it did

    def plot(self, metric: str = "attacker_wins", ax=None):
        """The curve of one column (a probability with its 95% band, or a mean) against the
        swept value; returns the Axes."""
        from odds.plots import sweep_curve

        return sweep_curve(self, metric, ax=ax)

    def _about(self) -> dict:
        f = self.frame
        return {"scenario": f["scenario"].iloc[0], "ruleset": f["ruleset"].iloc[0],
                "parameter": self.path, "values": list(f["value"])}

    def __repr__(self) -> str:
        f = self.frame
        return (f"<Sweep of {self.path} over {report.count(len(f), 'value')} of {f['scenario'].iloc[0]!r} "
                f"[{f['ruleset'].iloc[0]}]: {report.grid_runs(f, 'value')}>")

    def __str__(self) -> str:
        f = self.frame
        sc = self.results[0].scenario
        values = ", ".join(map(str, f["value"]))
        lines = [report.title(sc.name, sc.ruleset),
                 f"{sc.attacker.name} (attacker) vs {sc.defender.name} (defender); "
                 f"{self.path} = {values}",
                 report.grid_runs(f, "value", self.precision, list(f["precision_met"]),
                                 self.method_note), ""]
        lines += grid_text(f, ["value"], paired=False, precision=self.precision)
        return "\n".join(lines)


def sweep(scenario: Scenario | str | Path, path: str, values, *, trials: int | None = None,
          seed: int | None = None, threads: int | None = None,
          precision: float | None = None, max_trials: int | None = None,
          progress: bool = False, quiet: bool = False, client=None, method: str = "mc",
          max_states: int | None = None) -> Sweep:
    """Simulate the scenario once per value of ``path`` (e.g. "defender.models[0].count").

    One line: ``odds.sweep("squad.toml", "attacker.models[0].profile.WS", range(2, 7)).plot()``.
    ``values`` is a list, tuple, range or 1-d numpy array of distinct values. Every value uses
    the same seed (common random numbers), so the curve is smooth. Every point is checked
    before any is run. ``client``, ``method`` and ``max_states``: as in
    :func:`odds.simulate` (a Dask cluster plays them; 'exact' solves every value, 'auto'
    solves them all when every one can be, else simulates them all).
    """
    if not isinstance(path, str):
        raise TypeError(f"path must be a string such as 'defender.models[0].count', got "
                        f"{type(path).__name__}")
    if not isinstance(values, (list, tuple, range, np.ndarray)):
        raise TypeError(f"values must be a list, tuple, range or numpy array of the values to "
                        f"sweep over, got {type(values).__name__}")
    import pandas as pd

    from odds.rulesets import get_ruleset

    options.check(s.Where("odds.sweep", ""), trials=trials, seed=seed, threads=threads,
                  precision=precision, max_trials=max_trials, progress=progress, quiet=quiet)
    options.check(s.Where("odds.sweep", ""), method=method, max_states=max_states,
                  client=client, trials=trials, seed=seed, threads=threads,
                  precision=precision)
    base = as_scenario(scenario)
    where = s.Where(base.source, "")
    if not len(values):
        raise ScenarioError("give at least one value to sweep over", base.source, path)
    if len(values) > MAX_VALUES:
        raise ScenarioError(f"at most {MAX_VALUES:,} values, got {len(values):,}", base.source,
                            path)
    values = values.tolist() if isinstance(values, np.ndarray) else list(values)
    for i, value in enumerate(values):
        if any(type(v) is type(value) and v == value for v in values[:i]):
            raise ScenarioError(f"the value {value!r} is listed twice", base.source, path)
    trials = base.simulation["trials"] if trials is None else trials
    seed = base.simulation["seed"] if seed is None else seed
    points = [cell(base, {path: value}, {}, where).replace(trials=trials, seed=seed)
              for value in values]
    played = play(points, [[i] for i in range(len(points))], {}, seed=seed, trials=trials,
                  precision=precision, max_trials=max_trials, threads=threads,
                  progress=progress, quiet=quiet, client=client, method=method,
                  max_states=max_states, where=s.Where("odds.sweep", ""))
    wide = any(several_units(r.scenario) for r in played.results)
    rows = [{"parameter": path, "value": value,
             **row(result, get_ruleset(result.scenario.ruleset), wide),
             "precision_met": result.precision_met}
            for value, result in zip(values, played.results)]
    return Sweep(path, pd.DataFrame(rows), played.results, precision, played.method_note)
