"""Roster files: the units of one army list, for round robins (:mod:`odds.analysis.round_robin`).

A roster names its ``ruleset``, optionally its ``name`` and extra ``packs``, and lists
``[[units]]``: each a unit picked from a pack (``unit = "Assault Squad"``, with replaced keys
and ``set`` edits, see :mod:`odds.packs`) or written out as a scenario side. It may carry
``[engagement]``, ``[simulation]``, ``[rules]`` and ``weapons`` as a scenario does; when the
roster plays another, its own apply to every cell.
"""
from __future__ import annotations

import os
from pathlib import Path
from dataclasses import dataclass, field

from odds import packs as pack_files
from odds.core import schema as s
from odds.core.data import read_toml
from odds.scenario import (_distinct_names, _file_stem, check_alone, simulation_keys,
                           unit_table, weapon_entries)

MAX_ROSTER_UNITS = 100  # units a roster lists (a round robin of two has up to 20,000 cells)
SHARED = ("engagement", "simulation", "rules")  # tables the first roster gives every cell


@dataclass
class Roster:
    """An army list: units written out in full, each with where it was written."""

    name: str
    ruleset: str
    units: list[dict]  # unit tables (name, models, unit keys), packs already applied
    wheres: list[s.Where] = field(repr=False)
    engagement: dict = field(default_factory=dict)
    simulation: dict = field(default_factory=dict)
    rules: dict = field(default_factory=dict)
    weapons: dict = field(default_factory=dict)
    weapon_sources: dict = field(default_factory=dict, repr=False)
    source: str = "<python>"

    @property
    def unit_names(self) -> list[str]:
        return [u["name"] for u in self.units]

    def to_dict(self) -> dict:
        """The roster as TOML-shaped data, units written out (what :func:`from_dict` takes)."""
        return {"ruleset": self.ruleset, "name": self.name, "units": self.units,
                "engagement": self.engagement, "simulation": self.simulation,
                "rules": self.rules, "weapons": self.weapons}


def as_roster(value, what: str = "roster") -> Roster:
    """A checked :class:`Roster` from a Roster (checked again, as it may have been edited in
    Python), TOML-shaped data (a dict) or a roster file's path; anything else is a
    TypeError."""
    if isinstance(value, Roster):
        checked = from_dict(value.to_dict(), value.source)
        known = value.weapon_sources if isinstance(value.weapon_sources, dict) else {}
        checked.weapon_sources = {k: known.get(k, v) for k, v in checked.weapon_sources.items()}
        return checked
    if isinstance(value, (str, os.PathLike)):
        return from_dict(read_toml(value), str(value))
    if isinstance(value, dict):
        return from_dict(value)
    raise TypeError(f"{what} must be a roster: the path of a roster TOML file or of an "
                    f"exported army list (.ros, .rosz), a dict of roster data or an odds "
                    f"Roster, got {type(value).__name__}")


def from_dict(data: dict, source: str = "<python>") -> Roster:
    """Check roster data (every unit written out and checked before anything is played)."""
    from odds.rulesets import get_ruleset

    top = s.Where(source, "")
    s.table(data, top)
    if "ruleset" not in data:
        hint = (": this looks like a scenario (it has attacker/defender), not a roster"
                if "attacker" in data or "defender" in data else "")
        raise (top / "ruleset").error("is required" + hint)
    ruleset = s.text(data["ruleset"], top / "ruleset")
    get_ruleset(ruleset, top / "ruleset")
    spec = s.fields(data, {
        "ruleset": (s.text, s.REQUIRED), "name": (s.text, _file_stem(source) or "roster"),
        "packs": (_as_written, None), "units": (_unit_list, s.REQUIRED),
        "engagement": (s.table, {}), "simulation": (s.table, {}), "rules": (s.table, {}),
        "weapons": (_as_written, {}),
    }, top)
    packs = pack_files.for_file(ruleset, spec["packs"], source, top / "packs")
    wheres = [top / "units" / i for i in range(len(spec["units"]))]
    units = [unit_table(u, ruleset, at, packs) for u, at in zip(spec["units"], wheres)]
    _distinct_names([u["name"] for u in units], top / "units", "units", "a roster")
    weapons, sources = weapon_entries(spec["weapons"], top / "weapons")
    sources = {name: sources.get(name, source) for name in weapons}
    for unit, at in zip(units, wheres):
        check_alone(unit, ruleset, at, weapons, sources)
    roster = Roster(spec["name"], ruleset, units, wheres, spec["engagement"],
                    spec["simulation"], spec["rules"], weapons, sources, source)
    for key in SHARED:  # checked now; the cells take them as written
        _filled(roster, key)
    return roster


def _as_written(value, where: s.Where):
    return value  # checked where it is used (packs, weapons), as in a scenario


def _unit_list(value, where: s.Where) -> list:
    if not isinstance(value, list) or not value:
        raise where.error("must list at least one unit ([[units]])")
    if len(value) > MAX_ROSTER_UNITS:
        raise where.error(f"has {len(value)} units; a roster may list at most "
                          f"{MAX_ROSTER_UNITS}")
    return value


def check_pair(mine: Roster, theirs: Roster) -> None:
    """Two rosters that play each other: one ruleset, and THEIRS' shared tables either
    absent or the same as MINE's once defaults are filled in (MINE's apply to every cell;
    nothing is dropped unsaid); a weapon both define must be the same entry."""
    where = s.Where(theirs.source, "")
    if theirs.ruleset != mine.ruleset:
        raise (where / "ruleset").error(f"is {theirs.ruleset}, but {mine.source} is a "
                                        f"{mine.ruleset} roster: both lists play one ruleset")
    for key in SHARED:
        own = getattr(theirs, key)
        if own and _filled(theirs, key) != _filled(mine, key):
            raise (where / key).error(f"differs from the first roster's [{key}] "
                                      f"({mine.source}), which applies to every cell: remove "
                                      "it here, or make the two the same")
    for name, entry in theirs.weapons.items():
        if name in mine.weapons and mine.weapons[name] != entry:
            raise (where / "weapons" / name).error(
                f"is defined differently in {mine.weapon_sources[name]}: a weapon name means "
                "one entry in a round robin")


def _filled(roster: Roster, key: str) -> dict:
    """One of the roster's shared tables checked, with its defaults filled in (``pursue =
    true`` written or not is the same table); a mistake is named where it was written."""
    from odds.rulesets import get_ruleset

    rules = get_ruleset(roster.ruleset)
    spec = {"engagement": rules.engagement, "rules": rules.rules,
            "simulation": simulation_keys(rules)}[key]
    return s.fields(getattr(roster, key), spec, s.Where(roster.source, key))


def is_roster(data: dict) -> bool:
    """A roster file has ``units`` and no ``attacker`` / ``defender``."""
    return isinstance(data, dict) and "units" in data and not {"attacker", "defender"} & set(data)


def file_kind(path: str) -> str:
    """What a TOML file is: a comparison (a base, no ruleset), a pack (units naming their
    source book), a roster (units) or a scenario."""
    from odds.analysis.comparison_file import is_comparison

    if is_comparison(Path(path)):
        return "comparison"
    data = read_toml(path)
    if not is_roster(data):
        return "scenario"
    units = data["units"]
    packed = isinstance(units, list) and any(isinstance(u, dict) and "source" in u
                                             for u in units)
    return "pack" if packed else "roster"
