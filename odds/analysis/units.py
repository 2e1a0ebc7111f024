"""Per-unit outcomes (R0-13): each unit's fate when the fight ended, with Wilson 95% intervals,
and its mean losses (models lost, or as its ruleset counts them) and wounds suffered.

A scenario where a side has several units records three columns per unit
(``<side>.units[<i>].fate`` / ``.lost`` / ``.wounds``, see :func:`odds.core.outcome.unit_columns`).
A scenario of one unit a side has none: its unit is its side, read from the side record.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from odds.analysis.intervals import proportions
from odds.core.outcome import (ATTACKER, CAUGHT, DEFENDER, DESTROYED, FLED, MUTUAL, NONE,
                               UNIT_CAUGHT, UNIT_DESTROYED, UNIT_FATES, UNIT_FLED,
                               UNIT_STANDING, UNIT_UNREACHED)
from odds.scenario import SIDES

ENEMY = {"attacker": DEFENDER, "defender": ATTACKER}
MEANS = ("losses_mean", "wounds_mean")


def is_unit_column(column: str) -> bool:
    """Whether a record column is a per-unit one (``attacker.units[0].fate``), not a side's
    or a ruleset's (those names have no dots)."""
    return ".units[" in column


def several_units(scenario) -> bool:
    """Whether a side of the scenario is several units (then the record has unit columns)."""
    return any(scenario.side(key).units for key in SIDES)


def can_be_unreached(scenario) -> bool:
    """Whether a unit starts out of the fight (``engaged = false``, R0-12), so may never be
    reached."""
    from odds.rulesets import get_ruleset

    key = get_ruleset(scenario.ruleset).fresh_key
    return key is not None and any(unit.options.get(key) is False
                                   for side in SIDES for unit in scenario.side(side).every_unit)


@dataclass(frozen=True)
class UnitOutcome:
    """One unit's tally: fights per fate code (index = ``UNIT_FATES`` code), mean models
    lost and wounds suffered per fight, its models at the start (None for a unit without
    model groups, e.g. a Black Powder unit), fights per yes of each of its ruleset's
    unit flags (``Ruleset.unit_flags``: blackpowder's shaken) and the mean of each of its
    unit counts (``Ruleset.unit_counts``: d10skirmish's exchanges)."""

    side: str
    unit: str
    models: int | None
    fates: np.ndarray
    losses_mean: float
    wounds_mean: float
    flags: dict = field(default_factory=dict)
    means: dict = field(default_factory=dict)

    def counts(self) -> dict[str, int | float]:
        """Fights per reported fate (an exact tally's probability masses), then per flag;
        as at side level, ``destroyed`` includes ``caught``."""
        f = self.fates
        return {"standing": f[UNIT_STANDING].item(),
                "destroyed": (f[UNIT_DESTROYED] + f[UNIT_CAUGHT]).item(),
                "caught": f[UNIT_CAUGHT].item(), "fled": f[UNIT_FLED].item(),
                "unreached": f[UNIT_UNREACHED].item(), **self.flags}

    def probabilities(self, tally) -> dict[str, tuple[float, float, float]]:
        """Each fate and flag as (probability, low, high), Wilson 95% interval (the point
        itself when the ``tally`` is exact)."""
        return proportions(self.counts(), tally.total, tally.exact)


def unit_outcomes(scenario, tally) -> list[UnitOutcome]:
    """Every unit of both sides, attacker units first, in file order: from the unit columns
    when the record has them, else (a side of one unit in a scenario of one unit a side)
    from the side record."""
    from odds.rulesets import get_ruleset

    ruleset = get_ruleset(scenario.ruleset)
    own = ruleset.unit_flags, ruleset.unit_counts
    out = []
    for key in SIDES:
        for i, unit in enumerate(scenario.side(key).every_unit):
            stem = f"{key}.units[{i}]"
            if f"{stem}.fate" in tally.columns:
                out.append(_recorded(tally, key, unit, stem, *own))
            elif i == 0 and not several_units(scenario):
                out.append(_derived(tally, key, unit, *own))
            else:
                raise ValueError(f"the outcome record has no column {stem}.fate for unit "
                                 f"{unit.name!r}")
    return out


def _models(unit) -> int | None:
    return sum(g.count for g in unit.models) if unit.models else None


def _recorded(tally, key: str, unit, stem: str, flags: tuple[str, ...],
              counts: tuple[str, ...]) -> UnitOutcome:
    """A unit read from its own columns: P(fate = k) = its fate histogram at k / trials."""
    fates = np.zeros(len(UNIT_FATES), tally.outcomes.dtype)
    h = tally.histogram(f"{stem}.fate")
    fates[:len(h)] = h
    return UnitOutcome(key, unit.name, _models(unit), fates, tally.mean(f"{stem}.lost"),
                       tally.mean(f"{stem}.wounds"), _flags(tally, flags, f"{stem}.{{}}"),
                       _means(tally, counts, f"{stem}.{{}}"))


def _flags(tally, flags: tuple[str, ...], column: str) -> dict:
    """Fights (an exact tally's mass) with each flag 1, for the flags the record has (its
    ``column`` pattern filled with the flag's name), counted as Result.counts counts a
    side's flags."""
    named = {flag: column.format(flag) for flag in flags}
    return {flag: tally.histogram(c)[1:].sum().item() for flag, c in named.items()
            if c in tally.columns}


def _means(tally, counts: tuple[str, ...], column: str) -> dict:
    """The mean of each count the record has (its ``column`` pattern filled with the
    count's name), keyed ``<count>_mean``."""
    named = {count: column.format(count) for count in counts}
    return {f"{count}_mean": tally.mean(c) for count, c in named.items()
            if c in tally.columns}


def _derived(tally, key: str, unit, flags: tuple[str, ...],
             counts: tuple[str, ...]) -> UnitOutcome:
    """A side's only unit read from the side record: it was destroyed when its side lost by
    destruction or both were destroyed, caught or fled when its side lost that way, else it
    is standing; its losses, wounds and flags are its side's."""
    o = tally.outcomes.sum(axis=2)  # [winner, end]
    fates = np.zeros(len(UNIT_FATES), tally.outcomes.dtype)
    fates[UNIT_DESTROYED] = o[ENEMY[key], DESTROYED] + o[NONE, MUTUAL]
    fates[UNIT_CAUGHT] = o[ENEMY[key], CAUGHT]
    fates[UNIT_FLED] = o[ENEMY[key], FLED]
    fates[UNIT_STANDING] = tally.total - fates.sum()
    return UnitOutcome(key, unit.name, _models(unit), fates, tally.mean(f"{key}_lost"),
                       tally.mean(f"{key}_wounds"), _flags(tally, flags, f"{key}_{{}}"),
                       _means(tally, counts, f"{key}_{{}}"))


def units_frame(result):
    """:meth:`Result.units`: one row per unit (``side``, ``unit``, ``models``), each fate's
    probability with ``<fate>_low`` / ``<fate>_high``, then ``losses_mean``, ``wounds_mean``."""
    import pandas as pd

    rows = []
    for u in unit_outcomes(result.scenario, result.tally):
        row = {"side": u.side, "unit": u.unit, "models": u.models}
        for fate, (p, low, high) in u.probabilities(result.tally).items():
            row.update({fate: p, f"{fate}_low": low, f"{fate}_high": high})
        rows.append({**row, "losses_mean": u.losses_mean, "wounds_mean": u.wounds_mean,
                     **u.means})
    frame = pd.DataFrame(rows)
    frame["models"] = frame["models"].astype("Int64")
    return frame


def units_dicts(result) -> list[dict]:
    """The ``"units"`` entries of :meth:`Result.to_dict`: per unit its fate probabilities,
    mean losses and wounds, then each probability's ``_ci95`` as [low, high]."""
    out = []
    for u in unit_outcomes(result.scenario, result.tally):
        probs = u.probabilities(result.tally)
        entry = {"side": u.side, "unit": u.unit, "models": u.models}
        entry.update({fate: p for fate, (p, _, _) in probs.items()})
        entry.update({"losses_mean": u.losses_mean, "wounds_mean": u.wounds_mean, **u.means})
        entry.update({f"{fate}_ci95": [low, high] for fate, (_, low, high) in probs.items()})
        out.append(entry)
    return out


def units_summary_rows(result) -> list[dict]:
    """Tidy rows in the shape of :meth:`Result.summary` (before its index is set), one per
    unit and figure, outcome ``<side>.units[<unit name>].<key>``."""
    rows = []
    for u in unit_outcomes(result.scenario, result.tally):
        stem = f"{u.side}.units[{u.unit}]"
        rows += [{"outcome": f"{stem}.{fate}", "kind": "probability", "value": p,
                  "ci95_low": low, "ci95_high": high}
                 for fate, (p, low, high) in u.probabilities(result.tally).items()]
        means = {**{key: getattr(u, key) for key in MEANS}, **u.means}
        rows += [{"outcome": f"{stem}.{key}", "kind": "mean", "value": value}
                 for key, value in means.items()]
    return rows


def units_grid_columns(result, every: bool = False) -> dict:
    """A comparison or sweep row's unit columns, for a side of several units (or, with
    ``every``, in a grid where another cell has several: a side of one unit is its one unit):
    ``<side>.units[<unit name>].<fate>`` with ``_low`` / ``_high``, and the means."""
    out = {}
    if not (every or several_units(result.scenario)):
        return out
    for row in units_summary_rows(result):
        out[row["outcome"]] = row["value"]
        if row["kind"] == "probability":
            out[f"{row['outcome']}_low"] = row["ci95_low"]
            out[f"{row['outcome']}_high"] = row["ci95_high"]
    return out


def grid_metrics(scenario) -> list[str]:
    """The unit columns a grid of this scenario has (see :func:`units_grid_columns`)."""
    from odds.rulesets import get_ruleset

    if not several_units(scenario):
        return []
    ruleset = get_ruleset(scenario.ruleset)
    means = tuple(f"{count}_mean" for count in ruleset.unit_counts)
    return [f"{key}.units[{unit.name}].{figure}" for key in SIDES
            for unit in scenario.side(key).every_unit
            for figure in (*UNIT_FATES, *ruleset.unit_flags, *MEANS, *means)]


def units_table(result) -> list[str]:
    """The table's "per unit" section: each unit's chance to be destroyed (95% interval),
    of which caught, fled, unreached (when a unit can be), its ruleset's unit flags
    (blackpowder: shaken), and its mean losses in its ruleset's words ("mean models
    lost")."""
    from odds.analysis import report
    from odds.rulesets import get_ruleset

    unreached = can_be_unreached(result.scenario)
    interval = not result.tally.exact
    rows = []
    outcomes = unit_outcomes(result.scenario, result.tally)
    for u in outcomes:
        probs = u.probabilities(result.tally)
        p, low, high = probs["destroyed"]
        row = [u.unit, u.side, report.percent(p, 2)]
        row += [f"[{report.percent(low, 2)}, {report.percent(high, 2)}]"] * interval
        row += [report.percent(probs["caught"][0], 2), report.percent(probs["fled"][0], 2)]
        row += [report.percent(probs["unreached"][0], 2)] * unreached
        row += [report.percent(probs[flag][0], 2) for flag in u.flags]
        lost = report.number(u.losses_mean)
        rows.append(row + [lost if u.models is None else f"{lost} of {u.models}"]
                    + [report.number(v) for v in u.means.values()])
    names = ["per unit", "side", "destroyed"] + ["95% interval"] * interval + [
        "of which caught", "fled"]
    names += ["unreached"] * unreached + list(outcomes[0].flags)
    names += [f"mean {get_ruleset(result.scenario.ruleset).lost[1]}"]
    names += [f"mean {mean.removesuffix('_mean')}" for mean in outcomes[0].means]
    return report.table(rows, names, left=2)
