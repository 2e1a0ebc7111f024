"""One-parameter sweeps: a scenario simulated once per value of one path."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from odds.analysis.compare import row
from odds.analysis.comparison_file import cell
from odds.core import schema as s
from odds.errors import ScenarioError
from odds.scenario import Scenario, load


@dataclass
class Sweep:
    """Results along one parameter: :attr:`frame` has one row per value."""

    path: str
    frame: object  # pandas.DataFrame
    results: list = field(default_factory=list)

    def plot(self, column: str = "attacker_wins", ax=None):
        """The curve of one probability against the swept value, with its 95% band."""
        from odds.plots import sweep_curve

        return sweep_curve(self, column, ax=ax)

    def to_csv(self, path=None):
        return self.frame.to_csv(path, index=False)

    def _repr_html_(self) -> str:
        return self.frame._repr_html_()


def sweep(scenario: Scenario | str | Path, path: str, values, *, trials: int | None = None,
          seed: int | None = None, threads: int | None = None,
          precision: float | None = None) -> Sweep:
    """Simulate the scenario once per value of ``path`` (e.g. "defender.models[0].count").

    One line: ``odds.sweep("squad.toml", "attacker.models[0].profile.WS", range(2, 7)).plot()``.
    Every value uses the same seed (common random numbers), so the curve is smooth.
    """
    import pandas as pd

    from odds.api import simulate
    from odds.rulesets import get_ruleset

    base = load(scenario) if isinstance(scenario, (str, Path)) else scenario.validated()
    values = list(values)
    if not values:
        raise ScenarioError("give at least one value to sweep over", base.source, path)
    rows, results = [], []
    for value in values:
        point = cell(base, {path: value}, {}, s.Where(base.source, "sweep"))
        result = simulate(point, trials=trials, seed=seed, threads=threads, precision=precision)
        results.append(result)
        rows.append({"parameter": path, "value": value,
                     **row(result, get_ruleset(point.ruleset))})
    return Sweep(path, pd.DataFrame(rows), results)
