"""Army lists exported from BattleScribe or New Recruit (``.ros``, ``.rosz``) as odds rosters:
``odds import LIST.rosz -o roster.toml``, or :func:`import_list` in Python.

The roster export carries every stat line already modified by the list's choices, so odds
reads the roster, never the catalogues. Which game a list is, and how its names and texts
read, is each ruleset's ``data/<ruleset>/army_lists.toml``; a user's own table goes on top
(``--map``). Every unit is checked as a scenario side is before the roster is returned.
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path

from odds.analysis.roster_file import Roster, from_dict
from odds.core.toml_text import _key, _value
from odds.errors import ScenarioError
from odds.lists.files import is_army_list, read_roster_xml
from odds.lists.mapping import Mapping, game_of, mapping
from odds.lists.carried import Report, _quoted
from odds.lists.reading import Reader, Unit, told_apart
from odds.lists.tree import ArmyList, army_list

__all__ = ["import_list", "Imported", "is_army_list", "bundled_lists"]


@dataclass
class Imported:
    """An imported list: the odds :class:`Roster`, the units as read (with the list entry
    each came from), the weapons read from profiles and the :class:`Report`."""

    roster: Roster
    units: list[Unit]
    weapons: dict
    report: Report
    army: ArmyList
    mapping: Mapping
    source: str

    def __repr__(self) -> str:
        from odds.lists.report import said

        return said(self)

    def _repr_html_(self) -> str:
        """In a notebook: the units read (entry, models, cost) and the report's lines."""
        from odds.lists.report import said

        rows = "".join(
            f"<tr><td>{html.escape(u.table['name'])}</td><td>{html.escape(u.path)}</td>"
            f"<td>{sum(g['count'] for g in u.table['models'])}</td>"
            f"<td>{'' if u.points is None else f'{u.points:g}'}</td></tr>" for u in self.units)
        head, *rest = said(self).splitlines()
        return (f"<p>{html.escape(head)}</p><table><tr><th>unit</th><th>list entry</th>"
                f"<th>models</th><th>{html.escape(self.mapping.points)}</th></tr>{rows}"
                f"</table><pre>{html.escape(chr(10).join(rest))}</pre>")

    def toml(self) -> str:
        """The roster as a TOML file a user may edit: a comment names the list and each
        unit's list entry and cost."""
        total = _points(self.army)
        lines = [f"# Imported by `odds import` from {Path(self.source).name}: {self.army.game}"
                 + (f", {total}" if total else "") + ".",
                 "# Each unit names the list entry it came from; the import's report says what",
                 "# was left out and which readings were taken.",
                 f"ruleset = {_value(self.roster.ruleset)}", f"name = {_value(self.roster.name)}"]
        for name, entry in self.weapons.items():
            lines += ["", f"[weapons.{_key(name)}]"]
            lines += [f"{_key(k)} = {_value(v)}" for k, v in entry.items()]
        for unit in self.units:
            cost = "" if unit.points is None else \
                f", {unit.points:g} {self.mapping.points} in the list"
            lines += ["", f"# {unit.path}{cost}", "[[units]]"]
            lines += [f"{_key(k)} = {_value(v)}" for k, v in unit.table.items() if k != "models"]
            for group in unit.table["models"]:
                lines += ["[[units.models]]"]
                lines += [f"{_key(k)} = {_value(v)}" for k, v in group.items()]
        return "\n".join(lines) + "\n"


def import_list(path, map: str | Path | None = None, skip_unknown: bool = False) -> Imported:
    """Read an exported army list (``.ros`` or ``.rosz``) into a checked odds roster.

    ``map`` is a TOML file of the user's own names on top of the bundled reading (the keys of
    ``data/<ruleset>/army_lists.toml``). An entry odds cannot play is a ScenarioError listing
    every such entry, unless ``skip_unknown``: then each is dropped and listed in
    ``Imported.report.problems``.
    """
    if not isinstance(path, (str, Path)):
        raise TypeError(f"an army list must be the path of a .ros or .rosz file, got "
                        f"{type(path).__name__}")
    if map is not None and not isinstance(map, (str, Path)):
        raise TypeError(f"map must be the path of a TOML file, got {type(map).__name__}")
    source = str(path)
    army = army_list(read_roster_xml(path), source)
    ruleset = game_of(army.game, source)
    rules = mapping(ruleset, None if map is None else str(map))
    reader = _reader(rules)
    units = []
    for force in army.forces:
        for unit_entry in (u for top in force.children for u in top.units(reader.apart)):
            unit = reader.unit(unit_entry)
            if unit is not None and _plays(unit, reader, ruleset, source):
                units.append(unit)
    told_apart([u.table for u in units], fold=True)  # first: [join] may name "Captain (2)"
    units = _joined(units, rules, reader, ruleset, source)
    report = reader.report
    if report.problems and not skip_unknown:
        raise ScenarioError(_problems(report.problems, source), source)
    if not units:
        raise ScenarioError("has no unit odds can play"
                            + (f" ({len(report.problems)} dropped)" if report.problems else ""),
                            source)
    data = {"ruleset": ruleset, "name": army.name or Path(source).stem,
            "units": [u.table for u in units], "weapons": reader.weapons}
    return Imported(from_dict(data, source), units, reader.weapons, report, army, rules, source)


def bundled_lists() -> list[tuple[Path, str, str]]:
    """The example lists shipped in ``data/army_lists/``: (path, ruleset, the list's name)."""
    from odds.core.data import data_path

    found = []
    for path in sorted(data_path("army_lists").iterdir()):
        if is_army_list(path):
            army = army_list(read_roster_xml(path), str(path))
            found.append((path, game_of(army.game, str(path)), army.name or path.stem))
    return found


def _reader(rules: Mapping) -> Reader:
    from odds.analysis.catalogues import sections

    equipment, special = set(), {}
    for section in sections(rules.ruleset):
        if section.key == "equipment":
            equipment |= set(section.entries)
        elif section.key == "rules":
            special.update({name.casefold(): name for name in section.entries})
    return Reader(rules, equipment, special)


def _plays(unit: Unit, reader: Reader, ruleset: str, source: str, blame: str = "") -> bool:
    """The unit checked alone as a scenario side; a mistake is a problem of its entry."""
    data = {"ruleset": ruleset, "units": [unit.table], "weapons": reader.weapons}
    try:
        from_dict(data, source)
        return True
    except ScenarioError as e:
        field = e.field.removeprefix("units[0]").lstrip(".")
        message = f"{field + ': ' if field else ''}{e.message}"
        group = re.match(r"models\[(\d+)\]\.(equipment|fights_with)", field)
        if group:
            name = unit.table["models"][int(group[1])]["name"]
            message += (f"; choose what it fights with in a --map file: [fights_with] "
                        f"{_quoted(name)} = [...]")
        if blame:
            reader.report.problems.append(f"{blame}: {message}")
        else:
            reader.problem(unit.path, message)
        return False


def _joined(units: list[Unit], rules: Mapping, reader: Reader, ruleset: str,
            source: str) -> list[Unit]:
    """Characters the user's ``[join]`` table puts into a unit, as model groups of it (a
    join the ruleset refuses is a problem, and both stay as they were)."""
    by_name = {u.table["name"].casefold(): u for u in units}
    for name, target in rules.keys.get("join", {}).items():
        character, host = by_name.get(name), by_name.get(target.casefold())
        if character is None or not character.character or host is None:
            missing = (f"no character {name!r} in the list" if character is None or
                       not character.character else f"no unit {target!r} in the list")
            reader.problem(rules.source, f"[join] {name!r}: {missing}")
            continue
        alone = host.table["models"]
        host.table["models"] = alone + character.table["models"]
        if not _plays(host, reader, ruleset, source,
                      f"{rules.source}: [join] {name!r}: cannot join {target!r}"):
            host.table["models"] = alone
            continue
        if host.points is not None or character.points is not None:
            host.points = (host.points or 0) + (character.points or 0)
        units.remove(character)
        reader.report.notes.append(f"{character.path}: joined to {host.path} ([join])")
    return units


def _problems(problems: list[str], source: str) -> str:
    return (f"{len(problems)} entr{'y' if len(problems) == 1 else 'ies'} odds cannot play "
            "(map each in a --map file, or drop them with --skip-unknown):\n  "
            + "\n  ".join(problems))


def _points(army: ArmyList) -> str:
    return ", ".join(f"{v:g} {k.strip()}" for k, v in army.points.items() if v)
