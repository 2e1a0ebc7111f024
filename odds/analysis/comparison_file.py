"""Comparison files: a base scenario, variants and opponents written as path edits.

A comparison file names a ``base`` scenario, optional changes shared by every cell (``set``)
and ``[[variants]]`` / ``[[opponents]]``, each a ``name`` with changes (``set``,
``defender_from``, ``attacker_from``). Every cell is built and checked here before any runs.
"""
from __future__ import annotations

from pathlib import Path

from odds.core import schema as s
from odds.core.data import read_toml
from odds.overrides import apply
from odds.scenario import Scenario, from_dict, load


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
        spec["base"] = cell(spec["base"], spec.pop("set"), {}, where / "set")
    for key in ("variants", "opponents"):
        spec[key] = {item["name"]: item["changes"] for item in spec[key]}
    for v, vchanges in spec["variants"].items():  # check every cell now, not midway
        for o, ochanges in spec["opponents"].items():
            cell(spec["base"], vchanges, ochanges, where)
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


def cell(base: Scenario, variant, opponent, where: s.Where) -> Scenario:
    """The base with a variant's then an opponent's changes (each ``changes`` or
    ``(changes, where they were written)``)."""
    data = base.to_dict()
    for changes in (variant, opponent):
        changes, at = changes if isinstance(changes, tuple) else (changes, where)
        data = apply(data, changes, at)
    return from_dict(data, base.source)


def is_comparison(path: Path) -> bool:
    """A comparison file has a ``base`` key and no ``ruleset``."""
    data = read_toml(path)
    return "base" in data and "ruleset" not in data
