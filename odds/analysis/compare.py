"""Loadout comparisons: every variant against every opponent, one result per cell, and each
variant's difference from a baseline variant measured fight by fight.

Every cell of a grid is simulated with the same seed, so trial i of every cell draws from the
same random stream (common random numbers): where two variants consume the dice in the same
order, their fights see the same rolls. Pairing fight i of a variant with fight i of the
baseline (against the same opponent) measures their difference with far less noise than two
independent runs would (see :mod:`odds.play`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from odds.analysis import report, units
from odds.analysis.grid import Grid
from odds.analysis.comparison_file import (cell, check_baseline, given, is_comparison,
                                           load_comparison)
from odds.analysis.result import OUTCOMES, flag_columns, flags, label, mean_keys, side_means
from odds.core.outcome import COLUMNS
from odds.core import schema as s
from odds.errors import ScenarioError
from odds.play import options, play
from odds.scenario import Scenario, as_scenario

POINTS = ("attacker_points", "defender_points", "points_destroyed", "points_lost",
          "points_ratio", "wins_per_100_points")  # see points_efficiency


@dataclass(repr=False)
class Comparison(Grid):
    """A grid of results: one row per (variant, opponent) in :attr:`frame`.

    Besides each cell's probabilities and means, every row has its difference from the
    ``baseline`` variant against the same opponent (``<column>_diff``, ``_diff_low``,
    ``_diff_high``: variant minus baseline, with a 95% interval from the paired fights),
    ``paired_trials`` (how many fights were paired) and ``identical_to`` (the first earlier
    cell whose every fight came out exactly the same, as "'variant' vs 'opponent'"; missing,
    NaN, when there is none)."""

    name: str
    frame: object  # pandas.DataFrame, tidy: one row per variant x opponent
    results: dict = field(default_factory=dict)  # (variant, opponent) -> Result
    baseline: str | None = None
    precision: float | None = None
    method_note: str | None = None  # why method 'auto' simulated the grid, when it did

    def table(self, column: str = "attacker_wins"):
        """Variants (rows) x opponents (columns) of one probability, as "p% [low, high]"."""
        f = self.frame
        report.pick(column, probabilities(f), "column", "probability column")
        text = f.apply(lambda r: report.with_interval(r[column], r[column + "_low"],
                                                      r[column + "_high"]), axis=1)
        return (f.assign(cell=text).pivot(index="variant", columns="opponent", values="cell")
                .reindex(index=self.variants, columns=self.opponents))

    @property
    def variants(self) -> list[str]:
        return list(dict.fromkeys(self.frame["variant"]))

    @property
    def opponents(self) -> list[str]:
        return list(dict.fromkeys(self.frame["opponent"]))

    def heatmap(self, metric: str = "attacker_wins", ax=None):
        """Heatmap of one column (a probability, a mean, or a difference from the baseline,
        ``attacker_wins_diff``) over variants x opponents; returns the Axes."""
        from odds.plots import comparison_heatmap

        return comparison_heatmap(self, metric, ax=ax)

    def _about(self) -> dict:
        return {"comparison": self.name, "ruleset": self.frame["ruleset"].iloc[0],
                "baseline": self.baseline, "variants": self.variants,
                "opponents": self.opponents}

    def _title(self) -> str:
        return self.name

    def _tables(self) -> list:
        return [("", self.table())]

    def __repr__(self) -> str:
        f = self.frame
        return (f"<Comparison {self.name!r} [{f['ruleset'].iloc[0]}]: "
                f"{report.count(len(self.variants), 'variant')} x "
                f"{report.count(len(self.opponents), 'opponent')}, "
                f"{report.grid_runs(f, 'cell')}; attacker "
                f"wins {_span(f['attacker_wins'])}>")

    def __str__(self) -> str:
        f = self.frame
        paired = len(self.variants) > 1
        shape = (f"{report.count(len(self.variants), 'variant')} x "
                 f"{report.count(len(self.opponents), 'opponent')}")
        if paired:
            shape += (f"; differences from the baseline {self.baseline!r} in percentage "
                      f"points, {'exact' if report.solved(f) else 'paired fight by fight'}")
        lines = [report.title(self.name, f["ruleset"].iloc[0]), shape,
                 report.grid_runs(f, "cell", self.precision, list(f["precision_met"]),
                                 self.method_note), ""]
        lines += grid_text(f, ["variant", "opponent"], paired=paired, precision=self.precision)
        return "\n".join(lines)


def probabilities(frame) -> list[str]:
    """The probability columns of a grid's frame: those with a 95% interval (``_low``,
    ``_high``), differences from the baseline aside."""
    return [c for c in frame.columns if f"{c}_low" in frame and f"{c}_high" in frame
            and not c.endswith("_diff")]


def grid_text(f, keys: list[str], paired: bool, precision: float | None) -> list[str]:
    """The two tables compare and sweep print, one row per cell named by ``keys``: the odds
    (with each variant's difference from the baseline when ``paired``), then the means."""
    import pandas as pd

    from odds.rulesets import get_ruleset

    ruleset = get_ruleset(f["ruleset"].iloc[0])
    exact = report.solved(f)
    fights = not exact and (precision is not None or f["trials"].nunique() > 1)
    shown = ["attacker_wins", "defender_wins"]
    shown += [k for k in ("both_destroyed", "unresolved", "no_fight") if f[k].gt(0).any()]
    shown += [k for k in f.columns if k in flag_columns()]
    diffs = [k for k in ("attacker_wins", "defender_wins") if paired]
    mean_keys = [k for k in f.columns if (k == "mean_rounds" or k.endswith("_mean"))
                 and not units.is_unit_column(k)]  # units' figures: in the frame and CSV
    points = [k for k in ("points_ratio", "wins_per_100_points") if f[k].notna().any()]
    cls = _classes(f) if paired else {}
    odds_rows, means_rows = [], []
    for r in f.to_dict("records"):
        names = [str(r[k]) for k in keys]
        row = names + ([f"{r['trials']:,}" + ("*" if r["precision_met"] is False else "")]
                       if fights else [])
        for key in shown:
            row.append(report.percent(r[key], 2) if exact else
                       report.with_interval(r[key], r[f"{key}_low"], r[f"{key}_high"]))
            if key in diffs:
                row.append("(baseline)" if r["variant"] == r["baseline"] else
                           ("same odds" if exact else "same fights")
                           if cls[r["variant"], r["opponent"]] == cls[r["baseline"], r["opponent"]]
                           else f"{100 * r[f'{key}_diff']:+.2f}" if exact else
                           report.signed_interval(r[f"{key}_diff"], r[f"{key}_diff_low"],
                                                  r[f"{key}_diff_high"]))
        odds_rows.append(row)
        whole, sides = side_means({k: r[k] for k in mean_keys}, ruleset)
        means_rows.append(names + [report.number(v) for _, v in whole]
                          + [f"{report.number(a)} / {report.number(d)}" for _, a, d in sides]
                          + [report.number(r[k]) for k in points])
    odds_head = keys + ["fights"] * fights
    for key in shown:
        odds_head += [label(key)] + ["vs baseline"] * (key in diffs)
    whole, sides = side_means(dict.fromkeys(mean_keys, 0.0), ruleset)
    means_head = (keys + [name for name, _ in whole] + [name for name, _, _ in sides]
                  + [label(k) for k in points])
    left = len(keys) - (keys == ["value"] and pd.api.types.is_numeric_dtype(f["value"]))
    lines = report.table(odds_rows, odds_head, left=left)
    lines += ["", "means per fight (attacker / defender):"]
    lines += report.table(means_rows, means_head, left=left)
    return lines + _notes(f, paired)


def _classes(f) -> dict:
    """(variant, opponent) -> its class of identical cells, named by the class's first cell
    (what ``identical_to`` names; a cell identical to none is a class of its own)."""
    return {(r["variant"], r["opponent"]): r["identical_to"] if isinstance(r["identical_to"], str)
            else f"{r['variant']!r} vs {r['opponent']!r}" for r in f.to_dict("records")}


def _notes(f, paired: bool) -> list[str]:
    """Notes under the tables: identical cells (whole variants or opponents at once where
    they are), and pairing over a common prefix."""
    notes = []
    exact = report.solved(f)
    if "identical_to" in f:
        same = ("(identical exact distributions" if exact else "(identical per-fight records")
        same += ": the changes between them make no difference"
        played = "has exactly the same outcomes as" if exact else "played exactly the same fights as"
        cls = _classes(f)
        variants, opponents = list(dict.fromkeys(f["variant"])), list(dict.fromkeys(f["opponent"]))
        told = set()
        for i, v in enumerate(variants):
            twin = next((u for u in variants[:i]
                         if all(cls[v, o] == cls[u, o] for o in opponents)), None)
            if twin is not None:
                told |= {(v, o) for o in opponents}
                every = " against every opponent" * (len(opponents) > 1)
                notes.append(f"note: {v!r} {played} {twin!r}{every} {same})")
        for i, o in enumerate(opponents):
            twin = next((p for p in opponents[:i]
                         if all(cls[v, o] == cls[v, p] for v in variants)), None)
            if twin is not None:
                told |= {(v, o) for v in variants}
                notes.append(f"note: against {o!r}, every variant {played} against "
                             f"{twin!r} {same})")
        notes += [f"note: {v!r} vs {o!r} {played} {cls[v, o]} {same} there)"
                  for (v, o) in cls if cls[v, o] != f"{v!r} vs {o!r}" and (v, o) not in told]
    if paired and not exact and (f["paired_trials"] < f["trials"]).any():
        notes.append("note: cells stopped at different counts; each difference pairs only the "
                     "fights a variant and its baseline both played (column paired_trials)")
    return [""] * bool(notes) + notes


def _span(values) -> str:
    low, high = float(np.min(values)), float(np.max(values))
    return report.percent(low) if low == high else f"{report.percent(low)} to {report.percent(high)}"


def compare(base: Scenario | str | Path, variants: dict | None = None,
            opponents: dict | None = None, *, baseline: str | None = None,
            trials: int | None = None, seed: int | None = None, threads: int | None = None,
            precision: float | None = None, max_trials: int | None = None,
            progress: bool = False, quiet: bool = False, client=None, method: str = "mc",
            max_states: int | None = None) -> Comparison:
    """Simulate every variant against every opponent.

    ``base`` is a scenario (object or TOML path) or a comparison TOML file (with ``base``,
    ``[[variants]]`` and ``[[opponents]]``). ``variants`` and ``opponents`` map a name to the
    changes it makes to the base, ``{"attacker.models[1].equipment": [...]}`` (see
    :mod:`odds.overrides`); ``{}`` is the base itself. Opponent changes apply after variant
    changes. Every cell uses the same seed (common random numbers), and each variant's
    difference from ``baseline`` (default: the first variant, or the file's ``baseline``) is
    measured on paired fights. ``precision`` and ``max_trials`` work per cell as in
    :func:`odds.simulate`, and so do ``client`` (a Dask cluster plays the cells),
    ``method`` and ``max_states``: with 'exact' every cell is solved and each difference is
    exact; 'auto' solves the grid when every cell can be, else simulates every cell.
    """
    for what, value in (("variants", variants), ("opponents", opponents)):
        _check_changes(what, value)
    if baseline is not None and not isinstance(baseline, str):
        raise TypeError(f"baseline must be the name of a variant, got {baseline!r}")
    options.check(s.Where("odds.compare", ""), method=method, max_states=max_states,
                  client=client, trials=trials, seed=seed, threads=threads,
                  precision=precision)
    run = dict(threads=threads, precision=precision, max_trials=max_trials,
               progress=progress, quiet=quiet, client=client, method=method,
               max_states=max_states)
    if isinstance(base, (str, Path)) and is_comparison(Path(base)):
        if variants is not None or opponents is not None:
            raise ScenarioError("a comparison file already lists its variants and opponents",
                                str(base))
        spec = load_comparison(base)
        return _grid(spec["name"], spec["base"], spec["variants"], spec["opponents"],
                     baseline or spec.get("baseline"), str(base),
                     trials=spec["trials"] if trials is None and precision is None
                     else trials,
                     seed=spec["seed"] if seed is None else seed, **run)
    scenario = as_scenario(base)
    named = {key: {name: given(changes, "odds.compare", f"{key} {name!r}: ")
                   for name, changes in (value or {"base": {}}).items()}
             for key, value in (("variants", variants), ("opponents", opponents))}
    return _grid(scenario.name, scenario, named["variants"], named["opponents"],
                 baseline, "odds.compare", trials=trials, seed=seed, **run)


def _check_changes(what: str, value) -> None:
    if value is None:
        return
    if not isinstance(value, dict):
        raise TypeError(f"{what} must be a dict mapping each name to its changes, e.g. "
                        f"{{'power weapon': {{'attacker.models[1].equipment': [...]}}}}, "
                        f"got {type(value).__name__}")
    for name, changes in value.items():
        if not isinstance(name, str):
            raise TypeError(f"{what}: each name must be a string, got {name!r}")
        if not isinstance(changes, dict):
            raise TypeError(f"{what}[{name!r}] must be a dict of path -> value changes "
                            f"({{}} for the base itself), got {type(changes).__name__}")


def _grid(name, base, variants, opponents, baseline, baseline_source, *, trials, seed,
          threads, precision, max_trials, progress, quiet, client=None, method="mc",
          max_states=None) -> Comparison:
    options.check(s.Where("odds.compare", ""), trials=trials, seed=seed, threads=threads,
                  precision=precision, max_trials=max_trials, progress=progress, quiet=quiet)
    trials = base.simulation["trials"] if trials is None else trials
    seed = base.simulation["seed"] if seed is None else seed
    baseline = check_baseline(variants, baseline, baseline_source)
    where = s.Where(base.source, "")
    cells = {(v, o): cell(base, variants[v], opponents[o], where)
             for o in opponents for v in variants}
    for (v, o), scenario in cells.items():  # a cell's own charts and tables say which it is
        scenario.name = f"{base.name}: {v} vs {o}"
    return play_grid(name, base.name, cells, baseline, trials=trials, seed=seed,
                     threads=threads, precision=precision, max_trials=max_trials,
                     progress=progress, quiet=quiet, client=client, method=method,
                     max_states=max_states, where=s.Where("odds.compare", ""))


def play_grid(name: str, scenario_name: str, cells: dict, baseline: str, *, trials: int,
              seed: int, threads, precision, max_trials, progress, quiet,
              client=None, method: str = "mc", max_states: int | None = None,
              where: s.Where = s.ARGUMENTS) -> Comparison:
    """Play a grid of checked cells, ``(variant, opponent) -> Scenario`` (every opponent's
    cells with the variants in one order), and tabulate it as a :class:`Comparison`: each
    variant paired fight by fight with ``baseline`` against the same opponent. ``client``:
    play on a Dask cluster; ``method``: solve exactly (:func:`odds.play.play`)."""
    import pandas as pd

    from odds.rulesets import get_ruleset

    variants = list(dict.fromkeys(v for v, _ in cells))
    opponents = list(dict.fromkeys(o for _, o in cells))
    keys = [(v, o) for o in opponents for v in variants]
    cells = [cells[key].replace(trials=trials, seed=seed) for key in keys]
    index = {key: i for i, key in enumerate(keys)}
    groups = [[index[v, o] for v in variants] for o in opponents]
    baselines = {index[v, o]: index[baseline, o] for v, o in keys if v != baseline}
    played = play(cells, groups, baselines, seed=seed, trials=trials, precision=precision,
                  max_trials=max_trials, threads=threads, progress=progress, quiet=quiet,
                  client=client, method=method, max_states=max_states, where=where)
    first = {}
    rows, results = [], {}
    wide = any(units.several_units(r.scenario) for r in played.results)
    for v in variants:  # rows variant by variant, as the grid reads
        for o in opponents:
            i = index[v, o]
            result = played.results[i]
            results[v, o] = result
            pairing = played.pairings.get(i)
            twin = first.setdefault(played.digests[i], (v, o))
            rows.append({"variant": v, "opponent": o,
                         **row(result, get_ruleset(result.scenario.ruleset), wide),
                         "scenario": scenario_name,
                         "precision_met": result.precision_met, "baseline": baseline,
                         **(pairing.differences() if pairing else _no_difference(result)),
                         "identical_to": None if twin == (v, o) else f"{twin[0]!r} vs {twin[1]!r}"})
    return Comparison(name, pd.DataFrame(rows), results, baseline, precision,
                      played.method_note)


def metrics(scenario, paired: bool = True) -> list[str]:
    """The numeric columns a grid of this scenario's ruleset has (what a chart may draw):
    probabilities, means, points figures, for comparisons their differences, and with
    several units a side each unit's figures (``defender.units[Gretchin].unreached``)."""
    from odds.rulesets import get_ruleset

    columns = COLUMNS + get_ruleset(scenario.ruleset).own_columns(scenario)
    probabilities = [*OUTCOMES, *flags(columns)]
    means = list(mean_keys(columns).values())
    diffs = [f"{k}_diff" for k in probabilities + means] if paired else []
    return probabilities + means + list(POINTS) + diffs + units.grid_metrics(scenario)


def _no_difference(result) -> dict:
    """The baseline's difference from itself: exactly 0 [0, 0] in every column."""
    out = {}
    for key in (*result.probabilities(), *result.means()):
        out.update({f"{key}_diff": 0.0, f"{key}_diff_low": 0.0, f"{key}_diff_high": 0.0})
    out["paired_trials"] = result.trials
    return out


def row(result, ruleset, unit_columns: bool = False) -> dict:
    """One grid row: identification, probabilities with intervals, means, points efficiency,
    and each unit's figures when its side has several units or ``unit_columns`` (another
    cell of the grid has)."""
    sc = result.scenario
    row = {"scenario": sc.name, "ruleset": sc.ruleset, "method": result.method,
           "trials": result.trials, "seed": result.seed, "states": result.states}
    probs = result.probabilities()
    for key, (p, lo, hi) in probs.items():
        row.update({key: p, f"{key}_low": lo, f"{key}_high": hi})
    means = result.means()
    row.update(means)
    row.update(points_efficiency(sc, ruleset, probs["attacker_wins"][0], means))
    row.update(units.units_grid_columns(result, unit_columns))
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
    out = dict.fromkeys(POINTS, np.nan)
    cost = {side: ruleset.points(scenario, side) for side in ("attacker", "defender")}
    models = {side: sum(g.count for unit in scenario.side(side).every_unit for g in unit.models)
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
