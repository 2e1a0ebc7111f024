"""Loadout comparisons (variants x opponents) and one-parameter sweeps.

Every cell of a grid is simulated with the same seed, so trial i of every cell draws from the
same random stream (common random numbers): where two variants consume the dice in the same
order, their fights see the same rolls, and the difference between their win probabilities
is measured with much less noise than two independent runs would give.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from odds.core import schema as s
from odds.core.data import read_toml
from odds.errors import ScenarioError
from odds.overrides import apply
from odds.scenario import Scenario, from_dict, load

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
    if isinstance(base, (str, Path)) and _is_comparison(Path(base)):
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


def load_comparison(path: str | Path) -> dict:
    """Read and check a comparison TOML file (every cell is checked before any is run)."""
    path = Path(path)
    where = s.Where(str(path), "")
    data = read_toml(path)
    spec = s.fields(data, {
        "name": (s.text, path.stem), "base": (s.text, s.REQUIRED), "set": (s.table, {}),
        "trials": (s.integer(1), None), "seed": (s.integer(0), None),
        "variants": (_named_changes(path), [{"name": "base", "changes": {}}]),
        "opponents": (_named_changes(path), [{"name": "base", "changes": {}}]),
    }, where)
    base_path = path.parent / spec["base"]
    if not base_path.exists():
        raise (where / "base").error(f"no scenario file {str(base_path)!r}")
    spec["base"] = load(base_path)
    if spec["set"]:  # changes shared by every cell
        spec["base"] = _cell(spec["base"], spec.pop("set"), {}, where / "set")
    for key in ("variants", "opponents"):
        spec[key] = {item["name"]: item["changes"] for item in spec[key]}
    for v, vchanges in spec["variants"].items():  # check every cell now, not midway
        for o, ochanges in spec["opponents"].items():
            _cell(spec["base"], vchanges, ochanges, where)
    return spec


def _named_changes(path: Path):
    def check(value, where: s.Where) -> list[dict]:
        if not isinstance(value, list) or not value:
            raise where.error("must be a non-empty list of tables ([[...]] with a name)")
        out, names = [], set()
        for i, item in enumerate(value):
            entry = s.fields(item, {"name": (s.text, s.REQUIRED), "set": (s.table, {}),
                                    "defender_from": (s.text, None),
                                    "attacker_from": (s.text, None)}, where / i)
            if entry["name"] in names:
                raise (where / i / "name").error(f"duplicate name {entry['name']!r}")
            names.add(entry["name"])
            changes = {}
            for side in ("attacker", "defender"):
                if entry[f"{side}_from"] is not None:
                    other = load(path.parent / entry[f"{side}_from"])
                    changes[side] = other.to_dict()[side]
                    if other.weapons:
                        changes.update({f"weapons.{k}": v for k, v in other.weapons.items()})
            changes.update(entry["set"])
            out.append({"name": entry["name"], "changes": (changes, where / i / "set")})
        return out

    return check


def _cell(base: Scenario, variant, opponent, where: s.Where) -> Scenario:
    """The base with a variant's then an opponent's changes (each ``changes`` or
    ``(changes, where they were written)``)."""
    data = base.to_dict()
    for changes in (variant, opponent):
        changes, at = changes if isinstance(changes, tuple) else (changes, where)
        data = apply(data, changes, at)
    return from_dict(data, base.source)


def _grid(name, base, variants, opponents, trials, seed, threads, precision, progress):
    import pandas as pd

    from odds.api import simulate
    from odds.rulesets import get_ruleset

    where = s.Where(base.source, "")
    trials = base.simulation["trials"] if trials is None else trials
    seed = base.simulation["seed"] if seed is None else seed
    cells = {(v, o): _cell(base, vc, oc, where)
             for v, vc in variants.items() for o, oc in opponents.items()}
    rows, results = [], {}
    for (v, o), scenario in cells.items():
        result = simulate(scenario, trials=trials, seed=seed, threads=threads,
                          precision=precision, progress=progress)
        results[v, o] = result
        rows.append({"variant": v, "opponent": o, **_row(result, get_ruleset(scenario.ruleset))})
    return Comparison(name, pd.DataFrame(rows), results)


def _row(result, ruleset) -> dict:
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


def _is_comparison(path: Path) -> bool:
    """A comparison file has a ``base`` key and no ``ruleset``."""
    data = read_toml(path)
    return "base" in data and "ruleset" not in data


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
        cell = _cell(base, {path: value}, {}, s.Where(base.source, "sweep"))
        result = simulate(cell, trials=trials, seed=seed, threads=threads, precision=precision)
        results.append(result)
        rows.append({"parameter": path, "value": value,
                     **_row(result, get_ruleset(cell.ruleset))})
    return Sweep(path, pd.DataFrame(rows), results)
