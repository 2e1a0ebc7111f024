"""The result of simulating one scenario: probabilities with Wilson 95% intervals, means,
loss distributions, per-fight rows on request, CSV and JSON. A result of the exact solver
(``method == "exact"``) has the same tables with each interval the point itself."""
from __future__ import annotations

import json
from html import escape
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from odds.analysis import report, units
from odds.analysis.intervals import proportions, wilson
from odds.core.outcome import (ATTACKER, CAUGHT, COLUMNS, DEFENDER, DESTROYED, ENDS, FLED,
                               MUTUAL, NO_FIGHT, NONE, UNIT_FATES, UNRESOLVED, WINNERS)
from odds.core.tally import Tally
from odds.scenario import SIDES


def _ended(winner: int, *ends: int) -> tuple[tuple[int, int], ...]:
    return tuple((winner, end) for end in (ends or range(len(ENDS))))


# Each outcome probability as the (winner, end) pairs of the record it counts. The first five
# partition the fights; "destroyed" includes "caught" (destroyed by the pursuit).
OUTCOMES = {
    "attacker_wins": _ended(ATTACKER),
    "defender_wins": _ended(DEFENDER),
    "both_destroyed": _ended(NONE, MUTUAL),
    "unresolved": _ended(NONE, UNRESOLVED),
    "no_fight": _ended(NONE, NO_FIGHT),
    "attacker_destroyed": _ended(DEFENDER, DESTROYED, CAUGHT),
    "attacker_caught": _ended(DEFENDER, CAUGHT),
    "attacker_fled": _ended(DEFENDER, FLED),
    "defender_destroyed": _ended(ATTACKER, DESTROYED, CAUGHT),
    "defender_caught": _ended(ATTACKER, CAUGHT),
    "defender_fled": _ended(ATTACKER, FLED),
}

# The shared record columns' means, under their historic names, in the order they are listed.
MEANS = {"rounds": "mean_rounds", "attacker_lost": "attacker_losses_mean",
         "attacker_wounds": "attacker_wounds_mean", "defender_lost": "defender_losses_mean",
         "defender_wounds": "defender_wounds_mean"}


def ruleset_of(scenario):
    """The scenario's :class:`~odds.core.ruleset.Ruleset` (its words for losses and wounds,
    ``lost`` and ``wounds``, among the rest)."""
    from odds.rulesets import get_ruleset

    return get_ruleset(scenario.ruleset)


def flag_columns() -> frozenset[str]:
    """The yes/no per-ruleset columns (``Ruleset.flag_columns``) of every ruleset: reported
    as probabilities. Every other per-ruleset column is a count per fight (parries,
    exchanges...): reported as a mean."""
    from odds.rulesets import ruleset_ids

    return _flag_columns(ruleset_ids())


@lru_cache(maxsize=None)
def _flag_columns(ids: tuple[str, ...]) -> frozenset[str]:
    from odds.rulesets import get_ruleset

    return frozenset(c for r in ids for c in get_ruleset(r).flag_columns)


def ruleset_columns(columns: tuple[str, ...]) -> tuple[str, ...]:
    """A record's per-ruleset columns: those after the shared ones, but not the per-unit
    ones (read by :mod:`odds.analysis.units`)."""
    return tuple(c for c in columns[len(COLUMNS):] if not units.is_unit_column(c))


def flags(columns: tuple[str, ...]) -> tuple[str, ...]:
    """The yes/no columns among a record's per-ruleset columns."""
    return tuple(c for c in ruleset_columns(columns) if c in flag_columns())


def mean_keys(columns: tuple[str, ...]) -> dict[str, str]:
    """Record column -> the key of its mean: the shared columns, then every per-ruleset count
    column as ``<column>_mean``."""
    return {**MEANS, **{c: f"{c}_mean" for c in ruleset_columns(columns)
                        if c not in flag_columns()}}


def _outcome_of_code() -> np.ndarray:
    """[outcome, winner * len(ENDS) + end]: whether that record code counts for the outcome."""
    table = np.zeros((len(OUTCOMES), len(WINNERS) * len(ENDS)), bool)
    for i, cells in enumerate(OUTCOMES.values()):
        table[i, [w * len(ENDS) + e for w, e in cells]] = True
    return table


_OUTCOME_OF_CODE = _outcome_of_code()


def outcome_codes(record: np.ndarray, columns: tuple[str, ...]) -> np.ndarray:
    """Per fight of a record (columns x fights), one small code that says which probability
    of :meth:`Result.counts` and which yes/no column happened: ``(winner, end)`` and one bit
    per flag (see :func:`code_indicators`), so paired fights compare as pairs of codes."""
    code = record[0].astype(np.int64) * len(ENDS) + record[1]
    for c in flags(columns):
        code = 2 * code + (record[columns.index(c)] > 0)
    return code


@lru_cache(maxsize=None)
def code_indicators(columns: tuple[str, ...]) -> dict[str, np.ndarray]:
    """For every probability key (the outcomes, then the flags), whether each code of
    :func:`outcome_codes` counts for it: a bool array over all codes (shared: do not edit)."""
    f = flags(columns)
    codes = np.arange(len(WINNERS) * len(ENDS) << len(f))
    out = dict(zip(OUTCOMES, _OUTCOME_OF_CODE[:, codes >> len(f)]))
    out.update({c: (codes >> (len(f) - 1 - j)) & 1 == 1 for j, c in enumerate(f)})
    return out


@dataclass(repr=False)
class Result:
    """What :func:`odds.simulate` returns."""

    scenario: object
    tally: Tally
    seed: int | None
    fights_record: np.ndarray | None = None
    precision_met: bool | None = None  # set by simulate(precision=...)
    precision: float | None = None     # the half-width asked for, when known
    method_note: str | None = None     # why method="auto" simulated, when it did

    @property
    def trials(self) -> int | None:
        """Fights played; None for the exact solver's result."""
        return self.tally.trials

    @property
    def method(self) -> str:
        """``"exact"`` (solved) or ``"mc"`` (simulated)."""
        return "exact" if self.tally.exact else "mc"

    @property
    def states(self) -> int | None:
        """The most live fight states a round of the exact walk held (None when simulated)."""
        return self.tally.states

    def counts(self) -> dict[str, int | float]:
        """How many fights ended each way (:data:`OUTCOMES`; the first five keys partition the
        trials), then for each per-ruleset yes/no column (e.g. ``sweeping_advance``) how many
        fights it happened in. Exact: the probability of each instead of a count."""
        o = self.tally.outcomes.sum(axis=2)  # [winner, end]
        whole = float if self.tally.exact else int
        out = {key: whole(sum(o[w, e] for w, e in cells)) for key, cells in OUTCOMES.items()}
        out.update({c: whole(self.tally.histogram(c)[1:].sum())
                    for c in flags(self.tally.columns)})
        return out

    def probabilities(self) -> dict[str, tuple[float, float, float]]:
        """Each count as (probability, low, high) with a Wilson 95% interval (exact: low and
        high are the probability)."""
        return proportions(self.counts(), self.tally.total, self.tally.exact)

    def means(self) -> dict[str, float]:
        """Mean per fight of rounds fought, each side's losses and wounds (what its ruleset's
        record counts: models lost, casualties...), and each per-ruleset count column
        (``<column>_mean``, e.g. ``attacker_parries_mean``)."""
        rounds = self.tally.outcomes.sum(axis=(0, 1))
        out = {}
        for column, key in mean_keys(self.tally.columns).items():
            out[key] = (float(np.arange(len(rounds)) @ rounds / self.tally.total)
                        if column == "rounds" else self.tally.mean(column))
        return out

    def summary(self):
        """One tidy DataFrame indexed by outcome: ``kind`` (probability or mean), ``value``,
        and for probabilities the Wilson 95% interval ``ci95_low``, ``ci95_high``."""
        import pandas as pd

        rows = [{"outcome": k, "kind": "probability", "value": p, "ci95_low": lo,
                 "ci95_high": hi} for k, (p, lo, hi) in self.probabilities().items()]
        rows += [{"outcome": k, "kind": "mean", "value": v} for k, v in self.means().items()]
        return pd.DataFrame(rows).set_index("outcome")

    def units(self):
        """One row per unit, attacker units first (``side``, ``unit``, its ``models`` at the
        start): the chance of each fate when the fight ended (R0-13) -- ``standing``,
        ``destroyed`` (including ``caught``), ``caught``, ``fled``, ``unreached`` -- each with
        its Wilson 95% interval (``<fate>_low``, ``<fate>_high``), then its mean losses
        (``losses_mean``: models lost, a caught unit losing all, or as its ruleset counts them)
        and wounds suffered (``wounds_mean``).
        A side of one unit is one row, read from the side's outcome."""
        return units.units_frame(self)

    def losses(self, side: str):
        """Distribution of the losses of ``side`` ("attacker" or "defender"): P(lost = k),
        P(lost >= k), P(lost <= k), indexed by k in its ruleset's words (``models_lost``;
        blackpowder: ``casualties``).

        Each probability has its Wilson 95% interval (``*_low``, ``*_high``).
        """
        h = self.tally.histogram(f"{report.pick(side, SIDES, 'side', 'side')}_lost")
        return self._table(ruleset_of(self.scenario).lost[1].replace(" ", "_"),
                           {"probability": h, "at_least": h[::-1].cumsum()[::-1],
                            "at_most": h.cumsum()})

    def cumulative(self):
        """For each k: P(the attacker destroys at least k), P(it loses at most k), and the same
        for the defender, with 95% intervals (destroyed = what the enemy lost, in its
        ruleset's count: models, casualties...)."""
        a = self.tally.histogram("attacker_lost")
        d = self.tally.histogram("defender_lost")
        n = max(len(a), len(d))
        a, d = np.pad(a, (0, n - len(a))), np.pad(d, (0, n - len(d)))
        return self._table("k", {
            "attacker_destroys_at_least": d[::-1].cumsum()[::-1],
            "attacker_loses_at_most": a.cumsum(),
            "defender_destroys_at_least": a[::-1].cumsum()[::-1],
            "defender_loses_at_most": d.cumsum(),
        })

    def rounds(self):
        """Per round r: P(the fight ends in round r) in each way, and P(decided by round r).

        "Decided" means it ended with a winner or mutual destruction; ``unresolved`` fights are
        counted at the round cap, ``no fight`` at round 0. The index is the round, from 0: the
        fights decided before the first round (blackpowder's closing fire, a charged unit that
        fled at once) are in round 0.
        """
        o = self.tally.outcomes  # [winner, end, rounds]
        ways = {name: o[:, end, :].sum(axis=0) for end, name in enumerate(ENDS)}
        ways["attacker_wins"] = o[ATTACKER].sum(axis=0)
        ways["defender_wins"] = o[DEFENDER].sum(axis=0)
        decided = o[ATTACKER].sum(axis=0) + o[DEFENDER].sum(axis=0) + o[NONE, MUTUAL]
        ways["decided_by"] = decided.cumsum()
        return self._table("round", {k.replace(" ", "_"): v for k, v in ways.items()})

    def quantiles(self, q=(0.05, 0.25, 0.5, 0.75, 0.95)):
        """Quantiles of rounds fought and of each side's losses (rows) at ``q`` (columns)."""
        import pandas as pd

        rounds = self.tally.outcomes.sum(axis=(0, 1))
        rows = {"rounds": rounds}
        for side in ("attacker", "defender"):
            rows[f"{side}_lost"] = self.tally.histogram(f"{side}_lost")
        return pd.DataFrame({name: [_quantile(h, x) for x in q] for name, h in rows.items()},
                            index=pd.Index(q, name="quantile")).T

    def _table(self, index_name: str, counts: dict[str, np.ndarray]):
        """A DataFrame of probabilities from counts, each with its Wilson 95% interval (exact:
        the probability itself)."""
        import pandas as pd

        n = len(next(iter(counts.values())))
        columns, total = {}, self.tally.total
        for name, k in counts.items():
            low, high = (k / total,) * 2 if self.tally.exact else wilson(k, total)
            columns[name] = k / total
            columns[f"{name}_low"] = low
            columns[f"{name}_high"] = high
        return pd.DataFrame(columns, index=pd.RangeIndex(n, name=index_name))

    def headline_half_width(self) -> float:
        """The widest 95% interval half-width among the outcome probabilities
        (:data:`OUTCOMES`; the per-ruleset yes/no columns do not count)."""
        probs = self.probabilities()
        return max((probs[k][2] - probs[k][1]) / 2 for k in OUTCOMES)

    def fights(self):
        """One row per fight (needs ``keep_fights=True``), outcome-record columns."""
        import pandas as pd

        if self.fights_record is None:
            raise ValueError("the exact solver plays no fights: simulate(..., method='mc', "
                             "keep_fights=True)" if self.tally.exact else
                             "per-fight rows were not kept: simulate(..., keep_fights=True)")
        frame = pd.DataFrame(dict(zip(self.tally.columns, self.fights_record)))
        frame["winner"] = pd.Categorical.from_codes(frame["winner"], list(WINNERS))
        frame["end"] = pd.Categorical.from_codes(frame["end"], list(ENDS))
        for column in self.tally.columns:
            if units.is_unit_column(column) and column.endswith(".fate"):
                frame[column] = pd.Categorical.from_codes(frame[column], list(UNIT_FATES))
        return frame

    def to_dict(self) -> dict:
        """The headline numbers as plain JSON-ready data (the CLI's ``--json``).

        The top-level keys are the same in every ruleset: each outcome probability, its
        ``_ci95`` as [low, high], and the shared means. The ruleset's own columns (e.g.
        ``attacker_shaken`` with its ``_ci95``, ``attacker_parries_mean``) are under
        ``ruleset_outcomes`` (empty where a ruleset has none), and each unit's outcome
        (:meth:`units`) under ``units``: one entry per unit, one per side of one unit.
        ``method`` is ``"mc"`` or ``"exact"`` (then ``trials`` and ``seed`` are null and each
        ``_ci95`` is [p, p]); ``method_note`` says why method 'auto' simulated, when it did."""
        probs, means = self.probabilities(), self.means()
        out = {"scenario": self.scenario.name, "ruleset": self.scenario.ruleset,
               "method": self.method, "trials": self.trials, "seed": self.seed}
        if self.method_note:
            out["method_note"] = self.method_note
        out.update({k: probs[k][0] for k in OUTCOMES})
        out.update({k: means[k] for k in MEANS.values()})
        out.update({f"{k}_ci95": list(probs[k][1:]) for k in OUTCOMES})
        own = {}
        for key in flags(self.tally.columns):
            own.update({key: probs[key][0], f"{key}_ci95": list(probs[key][1:])})
        own.update({k: v for k, v in means.items() if k not in MEANS.values()})
        out["ruleset_outcomes"] = own
        out["units"] = units.units_dicts(self)
        if self.precision is not None:
            out["precision"] = self.precision
        if self.precision_met is not None:
            out["precision_met"] = self.precision_met
            out["ci95_half_width_max"] = self.headline_half_width()
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    def to_csv(self, path=None):
        """Tidy CSV: the :meth:`summary` rows tagged with the scenario, ruleset, method,
        trials and seed (both empty when exact), so reports concatenate; where a side has several units, each unit's figures
        follow (outcome ``attacker.units[Assault Squad].destroyed``). Returns the text when
        ``path`` is None."""
        import pandas as pd

        tidy = self.summary().reset_index()
        if units.several_units(self.scenario):
            tidy = pd.concat([tidy, pd.DataFrame(units.units_summary_rows(self))],
                             ignore_index=True)
        for column, value in (("seed", self.seed), ("trials", self.trials),
                              ("method", self.method), ("ruleset", self.scenario.ruleset),
                              ("scenario", self.scenario.name)):
            tidy.insert(0, column, value)
        return tidy.to_csv(path, index=False)

    def plot(self, ax=None):
        """The outcome bar chart (see :mod:`odds.plots` for the others); returns the Axes."""
        from odds.plots import outcome_bars

        return outcome_bars(self, ax=ax)

    def __str__(self) -> str:
        return format_result(self)

    def __repr__(self) -> str:
        p, lo, hi = self.probabilities()["attacker_wins"]
        sc = self.scenario
        if self.tally.exact:
            return (f"<Result {sc.name!r} [{sc.ruleset}]: {report.size(self)}; attacker wins "
                    f"{report.percent(p, 2)}>")
        return (f"<Result {sc.name!r} [{sc.ruleset}]: {report.size(self)}, seed {self.seed}; "
                f"attacker wins {report.with_interval(p, lo, hi)}>")

    def _repr_html_(self) -> str:
        """The summary as an HTML table, and each unit's outcome when a side has several."""
        html = (f"<h4>{escape(self.scenario.name)} ({self.scenario.ruleset}, "
                f"{report.size(self)}{'' if self.tally.exact else f', seed {self.seed}'})</h4>"
                + self.summary().to_html(float_format="{:.4f}".format, na_rep=""))
        if units.several_units(self.scenario):
            html += "<h4>each unit</h4>" + self.units().to_html(
                float_format="{:.4f}".format, na_rep="", index=False)
        return html


def _quantile(histogram: np.ndarray, q: float) -> int:
    """The smallest value v that occurs with P(X <= v) >= q."""
    cdf = histogram.cumsum() / histogram.sum()
    return int(np.flatnonzero((cdf >= q - 1e-12) & (histogram > 0))[0])


OUTCOME_LABELS = {"attacker_wins": "attacker wins", "defender_wins": "defender wins",
                  "both_destroyed": "both destroyed", "unresolved": "unresolved",
                  "no_fight": "no fight", "defender_destroyed": "  defender destroyed",
                  "defender_caught": "    of which caught", "defender_fled": "  defender fled",
                  "attacker_destroyed": "  attacker destroyed",
                  "attacker_caught": "    of which caught", "attacker_fled": "  attacker fled"}


def label(key: str) -> str:
    """A column's name in words: ``attacker_wins`` -> "attacker wins"."""
    return key.replace("_", " ")


def side_means(means: dict, ruleset) -> tuple[list[tuple[str, float]],
                                             list[tuple[str, float, float]]]:
    """The means in words: those of the whole fight (rounds, exchanges) as (label, value),
    then those of each side (losses, wounds, parries...) as (label, attacker, defender); the
    losses and wounds in the words of ``ruleset`` (a :class:`~odds.core.ruleset.Ruleset`)."""
    whole, sides = [], []
    for key, value in means.items():
        stem = {"mean_rounds": "rounds fought", "attacker_losses_mean": ruleset.lost[1],
                "attacker_wounds_mean": ruleset.wounds}.get(key, label(key[:-len("_mean")]))
        if key.startswith("attacker_"):
            stem = stem.removeprefix("attacker ")
            sides.append((stem, value, means[key.replace("attacker_", "defender_", 1)]))
        elif not key.startswith("defender_"):
            whole.append((stem, value))
    return whole, sides


def format_result(result: Result) -> str:
    """The readable table the CLI prints."""
    sc = result.scenario
    met = [result.precision_met]
    lines = [report.title(sc.name, sc.ruleset),
             f"{sc.attacker.name} (attacker) vs {sc.defender.name} (defender); "
             + (report.size(result) if result.tally.exact else
                report.runs([result.trials], result.seed, precision=result.precision, met=met)),
             ""]
    if result.method_note:
        lines.insert(2, result.method_note)
    probs = result.probabilities()

    exact = result.tally.exact

    def row(key: str, name: str) -> list[str]:
        p, lo, hi = probs[key]
        if exact:
            return [name, report.percent(p, 3)]
        return [name, report.percent(p, 2), f"[{report.percent(lo, 2)}, {report.percent(hi, 2)}]"]

    rows = [row(key, name) for key, name in OUTCOME_LABELS.items()
            if key != "no_fight" or probs[key][0] > 0]
    yes_no = flags(result.tally.columns)
    names = ["outcome", "probability"] + ["95% interval"] * (not exact)
    rows += [[""] * len(names)] * bool(yes_no) + [row(key, label(key)) for key in yes_no]
    lines += report.table(rows, names, left=1)
    if result.precision_met is not None:
        lines.append(f"widest 95% half-width {report.percent(result.headline_half_width(), 2)}"
                     f" after {report.count(result.trials, 'fight')}: precision "
                     f"{'met' if result.precision_met else 'NOT met (trial cap reached)'}")
    whole, sides = side_means(result.means(), ruleset_of(sc))
    lines.append("")
    lines += report.table([[f"mean {name}", report.number(v)] for name, v in whole],
                          ["", ""])[1:]
    lines.append("")
    lines += report.table([[name, report.number(a), report.number(d)] for name, a, d in sides],
                          ["mean per side", "attacker", "defender"])
    if units.several_units(sc):
        lines += [""] + units.units_table(result)
    return "\n".join(lines)
