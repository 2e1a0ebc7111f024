"""Round robins: every unit of one army list against every unit of another (or of itself).

Each cell is a scenario whose attacker is one of MINE's units and whose defender is one of
THEIRS', with MINE's ``[engagement]``, ``[simulation]`` and ``[rules]``; MINE charge, and
with ``both_ways`` a second cell per pair has THEIRS charge (``engagement.charger =
"defender"``), so ``attacker_wins`` is always MINE's unit winning. The cells are played as a
comparison (:func:`odds.analysis.compare.play_grid`): the scenario seed, common random
numbers, and each of MINE's units paired fight by fight with the first (the baseline) against
the same opponent, so a cell equals ``odds.simulate`` of its scenario bit for bit.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field

import numpy as np

from odds.analysis import report
from odds.analysis.compare import Comparison, _notes, play_grid, probabilities
from odds.analysis.grid import Grid, records
from odds.analysis.rating import bradley_terry
from odds.analysis.roster_file import Roster, as_roster, check_pair
from odds.core import schema as s
from odds.errors import ScenarioError
from odds.play import options
from odds.scenario import from_dict, within_side

CHARGERS = {"mine": "attacker", "theirs": "defender"}  # who charges -> engagement.charger
EXACT_WEIGHT = 10**6  # the fights an exact cell counts as in the rating's fit


@dataclass(repr=False)
class RoundRobin(Grid):
    """The cells of a round robin (:attr:`frame`, one row per cell, the columns of a
    comparison plus ``charger``), MINE's :meth:`ranking` and a fitted :meth:`rating`."""

    mine: Roster
    theirs: Roster | None  # None: MINE played against itself
    both_ways: bool
    comparison: Comparison  # the grid as played (opponents labelled with who charges)
    frame: object
    precision: float | None = None
    _fitted: list = field(default_factory=list, init=False, repr=False)  # the rating, once

    @property
    def name(self) -> str:
        return self.comparison.name

    @property
    def method_note(self) -> str | None:
        """Why method 'auto' simulated the cells, when it did."""
        return self.comparison.method_note

    @property
    def opponents(self) -> Roster:
        return self.theirs or self.mine

    def ranking(self):
        """MINE's units, best first: over the opponents (in a list played against itself,
        every other unit), the mean win probability with a 95% interval that holds however
        the cells are correlated (they share random numbers): the mean of the cells' Wilson
        bounds, which for many fights is mean +- 1.96 x the mean of the cells' standard
        errors, at least the standard error of the mean whatever the correlation (Minkowski's
        inequality), and for few fights keeps Wilson's width where a normal interval would
        shrink to nothing; then the mean loss probability, the unit's points,
        ``points_ratio`` (enemy points destroyed / own points lost, summed over the cells;
        NaN unless every cell has points on both sides), ``wins_per_100_points`` and the
        fitted rating (:meth:`rating`, Elo scale). A unit with no ranked cell (a list of one
        unit played against itself) has NaN figures."""
        import pandas as pd

        f = self._ranked_cells()
        rows = []
        rating = self.rating()
        elo = {} if rating is None else rating.to_frame().set_index("unit")
        for unit in self.mine.unit_names:
            cells = f[f["variant"] == unit]
            win = float(cells["attacker_wins"].mean()) if len(cells) else np.nan
            points = self.frame.loc[self.frame["variant"] == unit, "attacker_points"].iloc[0]
            destroyed, lost = cells["points_destroyed"], cells["points_lost"]
            ratio = (np.nan if not len(cells) or destroyed.isna().any() or lost.isna().any()
                     else destroyed.sum() / lost.sum() if lost.sum() > 0 else np.inf)
            row = {"unit": unit, "cells": len(cells), "win": win,
                   "win_low": float(cells["attacker_wins_low"].mean()),
                   "win_high": float(cells["attacker_wins_high"].mean()),
                   "loss": float(cells["defender_wins"].mean()),
                   "points": points, "points_ratio": ratio,
                   "wins_per_100_points": 100 * win / points if points > 0 else np.nan}
            key = self._rated_name(unit, "mine")
            for col in ("elo", "elo_low", "elo_high"):
                row[col] = float(elo.loc[key, col]) if len(elo) else np.nan
            rows.append(row)
        return (pd.DataFrame(rows).sort_values("win", ascending=False, kind="stable")
                .reset_index(drop=True))

    def _ranked_cells(self):
        """The cells the ranking averages: all, but in a list played against itself not a
        unit's fights against its own copy."""
        f = self.frame
        return f if self.theirs is not None else f[f["variant"] != f["opponent"]]

    def rating(self):
        """A Bradley-Terry rating of every unit fitted to the cells (with a charge advantage
        when some pair was played both ways round): see :mod:`odds.analysis.rating`.
        In a list played against itself each unit is rated once; against another list both
        lists' units are rated on one scale. None when no cell counts (a list of one unit
        played against itself)."""
        if not self._fitted:
            self._fitted.append(self._fit())
        return self._fitted[0]

    def _fit(self):
        f = self._ranked_cells()
        if f.empty:
            return None
        names = [self._rated_name(u, "mine") for u in self.mine.unit_names]
        if self.theirs is not None:
            names += [self._rated_name(u, "theirs") for u in self.theirs.unit_names]
        index = {n: i for i, n in enumerate(names)}
        games = []
        for r in f.to_dict("records"):
            i = index[self._rated_name(r["variant"], "mine")]
            j = index[self._rated_name(r["opponent"], "theirs" if self.theirs else "mine")]
            # the probabilities are counts over n: back to whole counts (an exact cell
            # weighs as EXACT_WEIGHT fights)
            n = EXACT_WEIGHT if r.get("method") == "exact" else r["trials"]
            mine_wins, their_wins = (round(n * r[k]) for k in ("attacker_wins", "defender_wins"))
            draws = n - mine_wins - their_wins
            games.append((i, j, mine_wins, their_wins, draws) if r["charger"] == "mine"
                         else (j, i, their_wins, mine_wins, draws))
        return bradley_terry(games, names)

    def _rated_name(self, unit: str, roster: str) -> str:
        """A unit's name in the rating: as written, or "<unit> (<list>)" when both lists
        have a unit of that name ("(mine)", "(theirs)" when the lists' names are the same
        too)."""
        if self.theirs is None or unit not in set(self.mine.unit_names) & set(
                self.theirs.unit_names):
            return unit
        if self.mine.name == self.theirs.name:
            return f"{unit} ({roster})"
        return f"{unit} ({(self.mine if roster == 'mine' else self.theirs).name})"

    def table(self, metric: str = "attacker_wins"):
        """MINE's units (rows) x the opponents (columns, with who charges when both ways) of
        one probability, as "p% [low, high]"."""
        report.pick(metric, probabilities(self.frame), "metric", "probability column")
        return self.comparison.table(metric).rename_axis(index="unit", columns="opponent")

    def heatmap(self, metric: str = "attacker_wins", ax=None, charger: str | None = None):
        """MINE's units x the opponents coloured by one column of the frame, for the cells
        where ``charger`` ("mine" or "theirs"; default: the first played) charges; returns
        the Axes."""
        from types import SimpleNamespace

        from odds.plots import comparison_heatmap

        chargers = list(dict.fromkeys(self.frame["charger"]))
        charger = chargers[0] if charger is None else report.pick(charger, CHARGERS, "charger",
                                                                  "charger")
        if charger not in chargers:
            raise (s.ARGUMENTS / "charger").error(
                f"{charger!r} charged in no cell of this round robin: only "
                f"{', '.join(map(repr, chargers))} did")
        cells = self.frame[self.frame["charger"] == charger]
        who = self.mine.name if charger == "mine" else self.opponents.name
        view = SimpleNamespace(frame=cells, variants=self.mine.unit_names,
                               opponents=self.opponents.unit_names,
                               name=self.name if self.theirs is None else
                               f"{self.name}, {who} charging")
        named = {"attacker_wins": f"{report.possessive(self.mine.name)} unit wins",
                 "defender_wins": f"{report.possessive(self.opponents.name)} unit wins"}
        return comparison_heatmap(view, metric, ax=ax,
                                  axes=(f"{self.mine.name} (unit)",
                                        f"{self.opponents.name} (opponent)"),
                                  names=named)

    def plot_ranking(self, ax=None):
        """MINE's units by mean win probability, with their 95% intervals; returns the Axes."""
        from odds.plots import ranking_bars

        return ranking_bars(self, ax=ax)

    def _about(self) -> dict:
        return {"round_robin": self.name, "ruleset": self.mine.ruleset,
                "mine": self.mine.name, "theirs": self.opponents.name,
                "both_ways": self.both_ways, "units": self.mine.unit_names,
                "opponents": self.opponents.unit_names}

    def _after_rows(self) -> dict:
        rating = self.rating()
        return {"ranking": records(self.ranking()),
                "rating": None if rating is None else rating.to_dict()}

    def _title(self) -> str:
        return self.name

    def _tables(self) -> list:
        return [("", self.table()), ("ranking", self.ranking())]

    def __repr__(self) -> str:
        f = self.frame
        return (f"<RoundRobin {self.name!r} [{self.mine.ruleset}]: "
                f"{report.count(len(self.mine.units), 'unit')} x "
                f"{report.count(len(self.opponents.units), 'opponent')}"
                f"{', both ways' if self.both_ways else ''}, "
                f"{report.grid_runs(f, 'cell')}>")

    def __str__(self) -> str:
        f = self.frame
        mine, theirs = self.mine, self.opponents
        who = ("each pair both ways round" if self.both_ways else
               f"{mine.name if (f['charger'] == 'mine').all() else theirs.name} charging")
        lines = [report.title(self.name, mine.ruleset),
                 f"{mine.name} ({report.count(len(mine.units), 'unit')}) vs "
                 f"{theirs.name if self.theirs else 'itself'} "
                 f"({report.count(len(theirs.units), 'unit')}); {who}",
                 report.grid_runs(f, "cell", self.precision, list(f["precision_met"]),
                                 self.method_note)]
        for charger, cells in f.groupby("charger", sort=False):
            charging = mine.name if charger == "mine" else theirs.name
            lines += ["", f"P(the unit wins), {charging} charging: rows are the units of "
                          f"{mine.name}, columns the opponents"]
            text = cells.apply(lambda r: report.with_interval(
                r["attacker_wins"], r["attacker_wins_low"], r["attacker_wins_high"]), axis=1)
            grid = (cells.assign(cell=text)
                    .pivot(index="variant", columns="opponent", values="cell")
                    .reindex(index=mine.unit_names, columns=theirs.unit_names))
            rows = [[unit] + list(grid.loc[unit]) for unit in grid.index]
            lines += report.table(rows, ["unit"] + list(grid.columns))
        lines += ["", "ranking (mean over the opponents" + (", not counting a unit's fights "
                  "with its own copy" if self.theirs is None else "") + "):"]
        rank = self.ranking()
        shown = [c for c in ("points", "points_ratio", "wins_per_100_points", "elo")
                 if rank[c].notna().any()]
        head = ["unit", "win", "loss"] + [c.replace("_", " ") for c in shown]
        body = [[r["unit"], report.with_interval(r["win"], r["win_low"], r["win_high"])
                 if r["cells"] else "no other unit", report.percent(r["loss"]) * bool(r["cells"])]
                + [f"{r[c]:.0f} [{r['elo_low']:.0f}, {r['elo_high']:.0f}]" if c == "elo"
                   else report.number(r[c], 0 if c == "points" else 2) for c in shown]
                for r in rank.to_dict("records")]
        lines += report.table(body, head)
        rating = self.rating()
        if rating is not None:
            lines += self._their_rating(rating) + ["", rating.summary()]
        return "\n".join(lines + _notes(self.comparison.frame, paired=True))

    def _their_rating(self, rating) -> list[str]:
        """The printed rating of THEIRS' units (MINE's is in the ranking), best first, each
        with its 95% interval; nothing when MINE played itself."""
        if self.theirs is None:
            return []
        elo = rating.to_frame().set_index("unit")
        rated = elo.loc[[self._rated_name(u, "theirs") for u in self.theirs.unit_names]]
        rated = rated.assign(unit=self.theirs.unit_names).sort_values(
            "elo", ascending=False, kind="stable")
        return ["", f"rating of {report.possessive(self.theirs.name)} units (the opponents):"] \
            + report.table([[r.unit, f"{r.elo:.0f} [{r.elo_low:.0f}, {r.elo_high:.0f}]"]
                            for r in rated.itertuples()], ["unit", "elo"])


def roster(mine, theirs=None, *, both_ways: bool = False, baseline: str | None = None,
           trials: int | None = None, seed: int | None = None, threads: int | None = None,
           precision: float | None = None, max_trials: int | None = None,
           progress: bool = False, quiet: bool = False, client=None, method: str = "mc",
           max_states: int | None = None) -> RoundRobin:
    """Play every unit of ``mine`` against every unit of ``theirs`` (default: ``mine``
    itself, every ordered pair), MINE charging; ``both_ways`` adds the cells with THEIRS
    charging. ``mine`` and ``theirs`` are roster files, exported army lists (``.ros``,
    ``.rosz``: read strictly, see :func:`odds.import_list`), dicts of roster data or
    :class:`~odds.analysis.roster_file.Roster` objects. ``trials`` and ``seed`` override
    MINE's ``[simulation]``; ``precision``, ``max_trials`` and ``threads`` work per cell as
    in :func:`odds.simulate`; ``baseline`` names the unit of MINE the others are paired with
    (default: the first); ``client`` (a ``dask.distributed.Client``) plays the cells on a
    Dask cluster, with the same numbers; ``method`` and ``max_states`` as in
    :func:`odds.compare` ('exact' solves every cell)."""
    options.check(s.Where("odds.roster", ""), trials=trials, seed=seed, threads=threads,
                  precision=precision, max_trials=max_trials, progress=progress, quiet=quiet)
    options.check(s.Where("odds.roster", ""), method=method, max_states=max_states,
                  client=client, trials=trials, seed=seed, threads=threads,
                  precision=precision)
    s.boolean(both_ways, s.Where("odds.roster", "both_ways"))
    if baseline is not None and not isinstance(baseline, str):
        raise TypeError(f"baseline must be the name of one of MINE's units, got {baseline!r}")
    mine = _roster(mine, "mine")
    other = None if theirs is None else _roster(theirs, "theirs")
    grid, labels = cells(mine, other, both_ways, baseline)
    return play_cells(mine, other, both_ways, grid, labels, baseline, trials=trials, seed=seed,
                      threads=threads, precision=precision, max_trials=max_trials,
                      progress=progress, quiet=quiet, client=client, method=method,
                      max_states=max_states)


def _roster(value, what: str) -> Roster:
    """A roster from anything :func:`as_roster` takes, or an exported army list's path (read
    strictly: a list with entries odds cannot play is an error naming them)."""
    from odds.lists import import_list, is_army_list

    return import_list(value).roster if is_army_list(value) else as_roster(value, what)


def play_cells(mine: Roster, theirs: Roster | None, both_ways: bool, grid: dict, labels: dict,
               baseline: str | None, *, trials: int | None, seed: int | None, threads,
               precision, max_trials, progress, quiet, client, method: str = "mc",
               max_states: int | None = None) -> RoundRobin:
    """Play the cells :func:`cells` built (``trials`` and ``seed``: None for MINE's
    ``[simulation]``) and tabulate them as a :class:`RoundRobin`."""
    first = next(iter(grid.values()))
    opponents = theirs or mine
    played = play_grid(f"{mine.name} vs {opponents.name if theirs else 'itself'}", mine.name,
                       grid, baseline or mine.unit_names[0],
                       trials=first.simulation["trials"] if trials is None else trials,
                       seed=first.simulation["seed"] if seed is None else seed,
                       threads=threads, precision=precision, max_trials=max_trials,
                       progress=progress, quiet=quiet, client=client, method=method,
                       max_states=max_states, where=s.Where("odds.roster", ""))
    f = played.frame
    units, who = zip(*(labels[o] for o in f["opponent"]))
    frame = f.assign(opponent=list(units))
    frame.insert(2, "charger", list(who))
    return RoundRobin(mine, theirs, both_ways, played, frame, precision)


def _argument(name: str) -> s.Where:
    return s.Where("odds.roster", name)


def cells(mine: Roster, theirs: Roster | None, both_ways: bool = False,
          baseline: str | None = None, named=_argument) -> tuple[dict, dict]:
    """Every cell's scenario, checked, by (MINE's unit, opponent label), and each label's
    (opponent unit, who charges): the label is the unit's name, with "(we charge)" or
    "(they charge)" when both ways round. A mistake in ``both_ways`` or ``baseline`` is
    blamed on ``named(argument)`` (the CLI names its options)."""
    if theirs is not None:
        check_pair(mine, theirs)
    elif both_ways:
        raise named("both_ways").error(
            "a list played against itself already plays every pair both ways round (each "
            "ordered pair is a cell): leave both ways out, or give a second roster")
    opponents = theirs or mine
    if baseline is not None and baseline not in mine.unit_names:
        near = difflib.get_close_matches(baseline, mine.unit_names, n=1)
        hint = f"did you mean {near[0]!r}? " if near else ""
        raise named("baseline").error(f"{mine.source} has no unit named {baseline!r}; {hint}"
                                      f"its units are {', '.join(map(repr, mine.unit_names))}")
    directions = _directions(mine, both_ways)
    grid, labels = {}, {}
    for who in directions:
        for j, unit in enumerate(opponents.unit_names):
            label = unit if len(directions) == 1 else \
                f"{unit} ({'we' if who == 'mine' else 'they'} charge)"
            labels[label] = (unit, who)
            for i in range(len(mine.units)):
                grid[mine.unit_names[i], label] = _cell(mine, i, opponents, j, who)
    return grid, labels


def _directions(mine: Roster, both_ways: bool) -> tuple[str, ...]:
    """Who charges in the cells: MINE (the default, or as MINE's engagement says), and with
    ``both_ways`` THEIRS too."""
    written = mine.engagement.get("charger")
    if both_ways:
        if written is not None:
            raise ScenarioError("both ways round sets who charges in each cell: leave "
                                "engagement.charger out", mine.source, "engagement.charger")
        return ("mine", "theirs")
    return ("theirs",) if written == "defender" else ("mine",)


def _cell(mine: Roster, i: int, theirs: Roster, j: int, who: str):
    """The scenario of MINE's unit i against THEIRS' unit j with ``who`` charging; a mistake
    is named where it was written (the unit's roster entry, or MINE's tables)."""
    data = {"ruleset": mine.ruleset, "name": f"{mine.unit_names[i]} vs {theirs.unit_names[j]}",
            "attacker": mine.units[i], "defender": theirs.units[j],
            "engagement": {**mine.engagement, "charger": CHARGERS[who]},
            "simulation": mine.simulation, "rules": mine.rules,
            "weapons": {**theirs.weapons, **mine.weapons}}
    sources = {**theirs.weapon_sources, **mine.weapon_sources}
    try:
        return from_dict(data, mine.source, sources)
    except ScenarioError as e:
        raise _blamed(e, mine, i, theirs, j) from None


def _blamed(error: ScenarioError, mine: Roster, i: int, theirs: Roster, j: int):
    """A cell's error moved to the roster entry it is about: ``attacker...`` is MINE's unit
    i, ``defender...`` THEIRS' unit j; other fields stay in MINE."""
    cell = f" (in the cell {mine.unit_names[i]!r} vs {theirs.unit_names[j]!r})"
    for side, roster, k in (("attacker", mine, i), ("defender", theirs, j)):
        rest = within_side(error, side, mine.source)
        if rest is not None:
            return ScenarioError(error.message + cell, roster.source, roster.wheres[k].path + rest)
    return ScenarioError(error.message + cell, error.source, error.field)
