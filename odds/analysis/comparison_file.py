"""Comparison files: a base scenario, variants and opponents written as path edits.

A comparison file names a ``base`` scenario, optional changes shared by every cell (``set``),
``[[variants]]`` / ``[[opponents]]``, each a ``name`` with changes (``set``,
``defender_from``, ``attacker_from``), and optionally the ``baseline`` variant the others are
measured against (default: the first). Every cell is built and checked here before any runs;
a mistake is reported where it was written: the comparison file, the variant or opponent and
the change (``variants[1] "power weapon": set."attacker.models[Sergeant].equipment"``).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from odds.core import schema as s
from odds.core.data import beside, read_toml
from odds.errors import ScenarioError
from odds.overrides import apply, leaves
from odds.scenario import COMPARISON_KEYS, Scenario, from_dict, load

SIDES = ("attacker", "defender")


@dataclass(frozen=True)
class Changes:
    """Edits as a comparison file writes them: ``(path, value, where written)``, in order."""

    edits: tuple = ()


def load_comparison(path: str | Path) -> dict:
    """Read and check a comparison TOML file (every cell is checked before any is run).

    Returns ``name``, ``base`` (the base scenario with the shared ``set`` applied),
    ``variants`` and ``opponents`` (name -> :class:`Changes`), ``baseline`` (a variant name),
    ``trials`` and ``seed`` (None when not given).
    """
    path = Path(path)
    where = s.Where(str(path), "")
    spec = s.fields(read_toml(path), {
        "name": (s.text, path.stem), "base": (s.text, s.REQUIRED), "set": (s.table, {}),
        "trials": (s.integer(1), None), "seed": (s.integer(0), None),
        "baseline": (s.text, None),
        "variants": (_entries, None), "opponents": (_entries, None),
    }, where)
    base = _scenario(path, spec["base"], where / "base")
    spec["base"] = cell(base, _written(spec.pop("set"), where, ""), {}, where)
    for key in ("variants", "opponents"):
        entries = spec[key] or _entries([{"name": "base"}], where / key)
        spec[key] = {entry["name"]: _changes(entry, base.ruleset, path, where, f"{key}[{i}]")
                     for i, entry in enumerate(entries)}
    spec["baseline"] = check_baseline(spec["variants"], spec["baseline"], str(path))
    for vchanges in spec["variants"].values():  # check every cell now, not midway
        for ochanges in spec["opponents"].values():
            cell(spec["base"], vchanges, ochanges, where)
    return spec


def check_baseline(variants: dict, baseline: str | None, source: str,
                   field: str = "baseline") -> str:
    """The baseline variant: ``baseline`` if it names one, the first variant when None."""
    if baseline is None:
        return next(iter(variants))
    if baseline not in variants:
        raise ScenarioError(f"no variant named {baseline!r}; the variants are "
                            f"{', '.join(map(repr, variants))}", source, field)
    return baseline


def _entries(value, where: s.Where) -> list[dict]:
    """``[[variants]]`` / ``[[opponents]]``: named tables of changes, names unique."""
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
        out.append(entry)
    return out


def _changes(entry: dict, ruleset: str, path: Path, where: s.Where, key: str) -> Changes:
    """One variant's or opponent's changes: whole sides from other files, then its ``set``."""
    label = f"{key} {_quoted(entry['name'])}: "
    edits = []
    for side in SIDES:
        written = entry[f"{side}_from"]
        if written is None:
            continue
        at = s.Where(where.source, f"{label}{side}_from")
        other = _scenario(path, written, at)
        if other.ruleset != ruleset:
            raise at.error(f"{written} is a {other.ruleset} scenario but the base is {ruleset}")
        edits += [(f"weapons.{name}", w, at) for name, w in other.weapons.items()]
        edits += [(f"special_rules.{name}", rule, at)
                  for name, rule in other.special_rules.items()]
        edits.append((side, other.to_dict()[side], at))
    return Changes(tuple(edits) + _written(entry["set"], where, label).edits)


def _written(changes: dict, where: s.Where, label: str) -> Changes:
    """A ``set`` table's changes, each named as written: ``set."attacker.models[0].count"``."""
    return Changes(tuple((p, v, s.Where(where.source, f"{label}set.{_quoted(p)}"))
                         for p, v in leaves(changes)))


def given(changes: dict, source: str, label: str) -> Changes:
    """Changes given in Python (``odds.compare(variants={name: {path: value}})``), each named
    where it was given: ``odds.compare: variants "power weapon": attacker.models[1].count``."""
    return Changes(tuple((p, v, s.Where(source, f"{label}{p}")) for p, v in leaves(changes)))


def _quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _scenario(path: Path, written: str, where: s.Where) -> Scenario:
    base_path = beside(str(path), written, where)
    try:
        found = base_path.is_file()
    except OSError as e:  # e.g. a name too long for the file system
        raise where.error(f"cannot open {written[:80]!r}: {e.strerror}") from None
    if not found:
        raise where.error(f"no scenario file {str(base_path)!r}")
    return load(base_path)


def cell(base: Scenario, variant, opponent, where: s.Where) -> Scenario:
    """The base with a variant's then an opponent's changes, each ``{path: value}`` (mistakes
    in its paths named at ``where``) or :class:`Changes` from a comparison file (every
    mistake, the scenario's checks too, named where the change was written)."""
    edits = _edits(variant, where) + _edits(opponent, where)
    try:
        return from_dict(apply(base.to_dict(), edits), base.source)
    except ScenarioError as error:
        if not any(isinstance(c, Changes) for c in (variant, opponent)):
            raise
        raise _blame(base, edits, error) from None


def _edits(changes, where: s.Where) -> tuple:
    if isinstance(changes, Changes):
        return changes.edits
    return tuple((p, v, where / p) for p, v in leaves(changes))


def _blame(base: Scenario, edits: tuple, error: ScenarioError) -> ScenarioError:
    """The cell's error at the first edit that, applied one at a time from the (valid) base,
    makes the scenario fail with it (the last edit if no prefix fails the same way)."""
    data = base.to_dict()
    for k, (path, value, at) in enumerate(edits):
        data = apply(data, [(path, value, at)])
        try:
            from_dict(data, base.source)
        except ScenarioError as e:
            if (e.field, e.message) == (error.field, error.message) or k == len(edits) - 1:
                break
    return s.changed_at(at, path, error)


def is_comparison(path: Path) -> bool:
    """A comparison file has no ``ruleset``, and a ``base``, ``variants`` or ``opponents``
    (so a comparison that forgot its base is told that, not that it is a scenario)."""
    data = read_toml(path)
    return "ruleset" not in data and any(key in data for key in COMPARISON_KEYS)
