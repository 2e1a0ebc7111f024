"""Loadout comparisons: every variant against every opponent, one result per cell.

Every cell of a grid is simulated with the same seed, so trial i of every cell draws from the
same random stream (common random numbers): where two variants consume the dice in the same
order, their fights see the same rolls, and the difference between their win probabilities
is measured with much less noise than two independent runs would give.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from odds.analysis.comparison_file import cell, is_comparison, load_comparison
from odds.core import schema as s
from odds.errors import ScenarioError
from odds.scenario import Scenario, load

HEADLINE = ("attacker_wins", "defender_wins", "both_destroyed", "unresolved", "no_fight",
            "defender_destroyed", "defender_fled", "attacker_destroyed", "attacker_fled")


@dataclass
class Comparison:
    """A grid of results: one row per (variant, opponent) in :attr:`frame`."""

    name: str
    frame: object  # pandas.DataFrame, tidy: one row per variant x opponent
    results: dict = field(default_factory=dict)  # (variant, opponent) -> Result

    def table(self, column: str = "attacker_wins"):
        """Variants (rows) x opponents (columns) of one probability, as "p% [low, high]"."""
        f = self.frame
        text = f.apply(lambda r: f"{100 * r[column]:.1f}% [{100 * r[column + '_low']:.1f}, "
                                 f"{100 * r[column + '_high']:.1f}]", axis=1)
        return (f.assign(cell=text).pivot(index="variant", columns="opponent", values="cell")
                .reindex(index=self.variants, columns=self.opponents))

    @property
    def variants(self) -> list[str]:
        return list(dict.fromkeys(self.frame["variant"]))

    @property
    def opponents(self) -> list[str]:
        return list(dict.fromkeys(self.frame["opponent"]))

    def heatmap(self, column: str = "attacker_wins", ax=None):
        """Heatmap of one probability over variants x opponents; returns the Axes."""
        from odds.plots import comparison_heatmap

        return comparison_heatmap(self, column, ax=ax)

    def to_csv(self, path=None):
        """Tidy CSV, one row per variant x opponent (returns the text when path is None)."""
        return self.frame.to_csv(path, index=False)

    def _repr_html_(self) -> str:
        return f"<h4>{self.name}</h4>" + self.table()._repr_html_()

    def __str__(self) -> str:
        f = self.frame
        lines = [f"{self.name}: {len(self.variants)} variants x {len(self.opponents)} opponents,"
                 f" {int(f['trials'].iloc[0]):,} fights each, seed {int(f['seed'].iloc[0])}", ""]
        cols = ["variant", "opponent", "attacker_wins", "attacker_wins_low", "attacker_wins_high",
                "defender_destroyed", "defender_fled", "mean_rounds", "attacker_losses_mean",
                "defender_losses_mean"]
        extra = [c for c in ("points_ratio", "wins_per_100_points") if f[c].notna().any()]
        shown = f[cols + extra].copy()
        for c in cols[2:7]:
            shown[c] = (100 * shown[c]).map("{:.1f}%".format)
        shown = shown.rename(columns={"attacker_wins_low": "low", "attacker_wins_high": "high",
                                      "defender_destroyed": "enemy destroyed",
                                      "defender_fled": "enemy fled",
                                      "attacker_losses_mean": "own losses",
                                      "defender_losses_mean": "enemy losses"})
        lines.append(shown.to_string(index=False, float_format="{:.2f}".format))
        return "\n".join(lines)


def compare(base: Scenario | str | Path, variants: dict | None = None,
            opponents: dict | None = None, *, trials: int | None = None,
            seed: int | None = None, threads: int | None = None,
            precision: float | None = None, progress: bool = False) -> Comparison:
    """Simulate every variant against every opponent.

    ``base`` is a scenario (object or TOML path) or a comparison TOML file (with ``base``,
    ``[[variants]]`` and ``[[opponents]]``). ``variants`` and ``opponents`` map a name to the
    changes it makes to the base, ``{"attacker.models[1].equipment": [...]}`` (see
    :mod:`odds.overrides`); ``{}`` is the base itself. Opponent changes apply after variant
    changes. Every cell uses the same seed (common random numbers).
    """
    if isinstance(base, (str, Path)) and is_comparison(Path(base)):
        if variants is not None or opponents is not None:
            raise ScenarioError("a comparison file already lists its variants and opponents",
                                str(base))
        spec = load_comparison(base)
        trials = spec["trials"] if trials is None else trials
        seed = spec["seed"] if seed is None else seed
        return _grid(spec["name"], spec["base"], spec["variants"], spec["opponents"], trials,
                     seed, threads, precision, progress)
    scenario = load(base) if isinstance(base, (str, Path)) else base.validated()
    return _grid(scenario.name, scenario, variants or {"base": {}}, opponents or {"base": {}},
                 trials, seed, threads, precision, progress)


def _grid(name, base, variants, opponents, trials, seed, threads, precision, progress):
    import pandas as pd

    from odds.api import simulate
    from odds.rulesets import get_ruleset

    where = s.Where(base.source, "")
    trials = base.simulation["trials"] if trials is None else trials
    seed = base.simulation["seed"] if seed is None else seed
    cells = {(v, o): cell(base, vc, oc, where)
             for v, vc in variants.items() for o, oc in opponents.items()}
    rows, results = [], {}
    for (v, o), scenario in cells.items():
        result = simulate(scenario, trials=trials, seed=seed, threads=threads,
                          precision=precision, progress=progress)
        results[v, o] = result
        rows.append({"variant": v, "opponent": o, **row(result, get_ruleset(scenario.ruleset))})
    return Comparison(name, pd.DataFrame(rows), results)


def row(result, ruleset) -> dict:
    """One grid row: identification, probabilities with intervals, means, points efficiency."""
    sc = result.scenario
    row = {"scenario": sc.name, "ruleset": sc.ruleset, "trials": result.trials,
           "seed": result.seed}
    probs = result.probabilities()
    for key in HEADLINE:
        p, lo, hi = probs[key]
        row.update({key: p, f"{key}_low": lo, f"{key}_high": hi})
    means = result.means()
    row.update(means)
    row.update(points_efficiency(sc, ruleset, probs["attacker_wins"][0], means))
    return row


def points_efficiency(scenario, ruleset, attacker_wins: float, means: dict) -> dict:
    """Points figures for the attacker (NaN where the scenario gives no points).

    - ``points_destroyed``: expected enemy points destroyed, E[enemy models lost] times the
      enemy's average points per model;
    - ``points_lost``: the same for the attacker's own losses;
    - ``points_ratio``: points_destroyed / points_lost (inf when nothing is expected lost);
    - ``wins_per_100_points``: P(attacker wins) per 100 points the attacker costs.

    The first three need points and model counts on both sides (a single-unit side has no
    model count: only ``wins_per_100_points`` is given there).
    """
    out = {"attacker_points": np.nan, "defender_points": np.nan, "points_destroyed": np.nan,
           "points_lost": np.nan, "points_ratio": np.nan, "wins_per_100_points": np.nan}
    cost = {side: ruleset.points(scenario, side) for side in ("attacker", "defender")}
    models = {side: sum(g.count for g in scenario.side(side).models)
              for side in ("attacker", "defender")}
    if cost["attacker"]:
        out["attacker_points"] = cost["attacker"]
        out["wins_per_100_points"] = 100 * attacker_wins / cost["attacker"]
    if cost["defender"]:
        out["defender_points"] = cost["defender"]
    if cost["attacker"] and cost["defender"] and models["attacker"] and models["defender"]:
        out["points_lost"] = means["attacker_losses_mean"] * cost["attacker"] / models["attacker"]
        out["points_destroyed"] = (means["defender_losses_mean"] * cost["defender"]
                                   / models["defender"])
        out["points_ratio"] = (out["points_destroyed"] / out["points_lost"]
                               if out["points_lost"] > 0 else np.inf)
    return out
