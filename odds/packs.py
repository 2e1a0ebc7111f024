"""Profile packs: named units of one ruleset, picked by name instead of typing stat lines.

A pack is a TOML file with ``ruleset``, an optional ``name`` and ``[[units]]``: each entry a
unit written exactly as a one-unit side of a scenario, plus ``source`` (the book its stat
line comes from). Every ruleset bundles one (``data/<ruleset>/units.toml``); a scenario,
roster or comparison base lists its own with ``packs = ["my_army.toml"]`` (paths relative
to the file), searched before the bundled one.

A side or unit written ``unit = "Ork Boyz"`` is that entry; keys written next to it replace
the entry's (``name``, ``in_cover``, a whole ``models`` list), then ``set`` edits it by path
inside the unit (``set = { "models[Boy].count" = 30 }``). Each step is checked, so a mistake
is named where it was written: the pack's entry, the key, or the ``set`` path.
"""
from __future__ import annotations

import copy
import os
from dataclasses import dataclass
from functools import lru_cache

from odds.core import schema as s
from odds.core.data import beside, data_path, note_read, read_toml
from odds.errors import ScenarioError
from odds.overrides import apply, leaves

PACK_FILE = "units.toml"  # each ruleset's bundled pack: data/<ruleset>/units.toml
PICK_KEYS = ("unit", "set")  # what a side may write besides the unit's own keys


@dataclass(frozen=True)
class PackUnit:
    """One entry of a pack: its side table (without ``source``), its book, where it is."""

    name: str
    data: dict
    source_book: str
    where: s.Where


@dataclass(frozen=True)
class Packs:
    """The packs a file picks units from, in search order (the file's own, then the
    bundled one); the first entry of a name wins."""

    ruleset: str
    files: tuple[tuple[str, s.Where], ...]  # (pack file, where the file was listed)

    def entries(self) -> dict[str, PackUnit]:
        """Every unit name the packs offer, first pack first."""
        out: dict[str, PackUnit] = {}
        for file, listed in self.files:
            for name, unit in read_pack(file, self.ruleset, listed).items():
                out.setdefault(name, unit)
        return out

    def lookup(self, name: str, where: s.Where) -> PackUnit:
        entries = self.entries()
        if name in entries:
            return entries[name]
        hint = s.did_you_mean(name, entries, cutoff=0.5)
        packs = ", ".join(shown_file(f) for f, _ in self.files)
        raise where.error(f"unknown unit {name!r}{hint} (the {self.ruleset} units are listed by "
                          f"`odds units {self.ruleset}`; packs searched: {packs})")

    def expand(self, data: dict, where: s.Where, check, alone=None) -> dict:
        """A side table written with ``unit = NAME`` as the full side table: the pack's entry,
        its keys replaced by those written beside ``unit``, then the ``set`` edits.
        ``check(table, where)`` checks a unit table (raises ScenarioError); it is called on
        the entry, after the replacements and after each edit, so a mistake is blamed on the
        step that made it. ``alone(table, where)``, if given, checks the entry as a whole
        scenario would (its equipment), blaming the pack."""
        name = s.text(data["unit"], where / "unit")
        unit = self.lookup(name, where / "unit")
        table = copy.deepcopy(unit.data)
        check(table, unit.where)
        if alone is not None:
            alone(table, unit.where)
        replaced = {k: v for k, v in data.items() if k not in PICK_KEYS}
        if replaced:
            table.update(copy.deepcopy(replaced))
            check(table, where)
        for path, value in leaves(s.table(data.get("set", {}), where / "set")):
            at = where / "set" / quoted(path)
            table = apply(table, [(path, value, at)])
            try:
                check(table, s.Where(where.source, ""))
            except ScenarioError as e:
                raise s.changed_at(at, path, e) from None
        return table


def for_file(ruleset: str, value, source: str, where: s.Where) -> Packs:
    """The packs of a file: its ``packs`` list (``value``; None when not given), each path
    relative to the file ``source``, then the ruleset's bundled pack."""
    files: list[tuple[str, s.Where]] = []
    if value is not None:
        s.once_each(s.text_list(value, where), where)
        for i, path in enumerate(value):
            file = beside(source, path, where / i)
            if not file.is_file():
                raise (where / i).error(f"no pack file {str(file)!r}")
            files.append((str(file), where / i))
    files.append((str(data_path(ruleset, PACK_FILE)), s.Where("<odds>", "bundled pack")))
    return Packs(ruleset, tuple(files))


def read_pack(file: str, ruleset: str, listed: s.Where) -> dict[str, PackUnit]:
    """A pack file's entries by name (read once per file version)."""
    try:
        stat = os.stat(file)
    except OSError:
        raise listed.error(f"no pack file {file!r}") from None
    note_read(file)  # read once a version, but an input of every run that lists it
    return _read(file, ruleset, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=64)
def _read(file: str, ruleset: str, _mtime: int, _size: int) -> dict[str, PackUnit]:
    top = s.Where(file, "")
    spec = s.fields(read_toml(file), {"ruleset": (s.text, s.REQUIRED), "name": (s.text, None),
                                      "units": (_entries, s.REQUIRED)}, top)
    if spec["ruleset"] != ruleset:
        raise (top / "ruleset").error(f"is a {spec['ruleset']} pack, but its units are wanted "
                                      f"for {ruleset}")
    out: dict[str, PackUnit] = {}
    for i, entry in enumerate(spec["units"]):
        at = top / "units" / i
        name = s.text(entry.get("name"), at / "name") if "name" in entry else None
        if name is None:
            raise (at / "name").error("is required: a pack's units are picked by name")
        if name in out:
            raise (at / "name").error(f"{name!r} is the name of {out[name].where.path} too: "
                                      "the units of a pack need different names")
        for key in PICK_KEYS:
            if key in entry:
                raise (at / key).error("a pack entry is written out in full (a unit of a pack "
                                       "cannot pick another)")
        book = s.text(entry.get("source"), at / "source") if "source" in entry else None
        if book is None:
            raise (at / "source").error("is required: the book the stat line comes from")
        data = {k: v for k, v in entry.items() if k != "source"}
        out[name] = PackUnit(name, data, book, at)
    return out


def _entries(value, where: s.Where) -> list[dict]:
    if not isinstance(value, list) or not value:
        raise where.error("must list at least one unit ([[units]])")
    return [s.table(v, where / i) for i, v in enumerate(value)]


def quoted(path: str) -> str:
    return f'"{path}"'


def shown_file(file: str) -> str:
    bundled_root = str(data_path())
    return "the bundled pack" if file.startswith(bundled_root) else file
