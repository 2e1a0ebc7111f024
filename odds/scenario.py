"""The ruleset-agnostic scenario: two sides of model groups, how the fight starts, how to simulate.

Built from Python objects or loaded from TOML; :func:`from_dict` checks every field against the
ruleset's schema before any kernel runs, so mistakes surface as one :class:`ScenarioError`
naming the file, the field path and what is allowed.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from odds.core import schema as s
from odds.core.data import read_toml

SIDES = ("attacker", "defender")

SIMULATION = {
    "trials": (s.integer(1, 10**12), 100_000),
    "seed": (s.integer(0, 2**63 - 1), 1),
    "max_rounds": (s.integer(1, 1000), 10),
}


@dataclass
class ModelGroup:
    """Models of one kind in a unit: ``count`` of them with one profile and equipment."""

    name: str
    count: int
    profile: dict[str, int]
    equipment: list[str] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)


@dataclass
class Side:
    """One unit: its model groups and the ruleset's side options (e.g. ``in_contact``).

    A ruleset whose side is a single unit (``Ruleset.single_unit``) has no groups: everything
    is in ``options``."""

    name: str
    models: list[ModelGroup]
    options: dict[str, Any] = field(default_factory=dict)


@dataclass
class Scenario:
    """Two sides, the engagement (how the fight starts) and simulation settings."""

    ruleset: str
    attacker: Side
    defender: Side
    name: str = ""
    engagement: dict[str, Any] = field(default_factory=dict)
    simulation: dict[str, Any] = field(default_factory=dict)
    weapons: dict[str, dict[str, Any]] = field(default_factory=dict)
    rules: dict[str, Any] = field(default_factory=dict)
    source: str = "<python>"

    def side(self, which: str) -> Side:
        return self.attacker if which == "attacker" else self.defender

    def to_dict(self) -> dict:
        """The scenario as TOML-shaped data (the inverse of :func:`from_dict`)."""
        out = {"ruleset": self.ruleset, "name": self.name}
        for key in SIDES:
            side = self.side(key)
            out[key] = {"name": side.name, **_given(side.options)}
            if side.models:
                out[key]["models"] = [
                    {"name": g.name, "count": g.count, "profile": _given(g.profile),
                     "equipment": list(g.equipment), **_given(g.options)} for g in side.models]
        for key in ("engagement", "simulation", "weapons", "rules"):
            if getattr(self, key):
                out[key] = _given(getattr(self, key))
        return out

    def validated(self) -> "Scenario":
        """A checked copy with every default filled in (raises :class:`ScenarioError`)."""
        return from_dict(self.to_dict(), self.source)

    def replace(self, **simulation) -> "Scenario":
        """A copy with some ``simulation`` settings changed (trials, seed, max_rounds)."""
        data = self.to_dict()
        data["simulation"] = {**data.get("simulation", {}), **simulation}
        return from_dict(data, self.source)


def _given(options: dict) -> dict:
    """The options that were set (``None`` marks an optional key left out)."""
    return {k: v for k, v in options.items() if v is not None}


def load(path: str | Path) -> Scenario:
    """Read and check a scenario TOML file."""
    return from_dict(read_toml(path), str(path))


def from_dict(data: dict, source: str = "<python>") -> Scenario:
    """Check TOML-shaped data against the ruleset's schema and build a :class:`Scenario`."""
    from odds.rulesets import get_ruleset

    top = s.Where(source, "")
    s.table(data, top)
    ruleset_id = s.text(data.get("ruleset"), top / "ruleset") if "ruleset" in data else None
    if ruleset_id is None:
        raise (top / "ruleset").error("is required")
    rules = get_ruleset(ruleset_id, top / "ruleset")
    known = {"ruleset", "name", "engagement", "simulation", "weapons", "rules", *SIDES}
    unknown = sorted(set(data) - known)
    if unknown:
        raise (top / unknown[0]).error(f"unknown key; allowed here: {', '.join(sorted(known))}")
    for key in SIDES:
        if key not in data:
            raise (top / key).error("is required")
    sim_spec = {**SIMULATION, "max_rounds": (SIMULATION["max_rounds"][0], rules.default_max_rounds)}
    scenario = Scenario(
        ruleset=ruleset_id,
        name=s.text(data["name"], top / "name") if "name" in data else Path(source).stem,
        attacker=_side(data["attacker"], rules, top / "attacker"),
        defender=_side(data["defender"], rules, top / "defender"),
        engagement=s.fields(data.get("engagement", {}), rules.engagement, top / "engagement"),
        simulation=s.fields(data.get("simulation", {}), sim_spec, top / "simulation"),
        weapons={name: s.table(w, top / "weapons" / name)
                 for name, w in s.table(data.get("weapons", {}), top / "weapons").items()},
        rules=s.fields(data.get("rules", {}), rules.rules, top / "rules"),
        source=source,
    )
    rules.check(scenario)
    return scenario


def _side(data: Any, rules, where: s.Where) -> Side:
    """A side: model groups plus the ruleset's side keys, or (``rules.single_unit``) one unit
    described by the side keys alone."""
    spec = {"name": (s.text, where.path), **rules.side_keys}
    if not rules.single_unit:
        spec["models"] = (_groups(rules), s.REQUIRED)
    checked = s.fields(data, spec, where)
    return Side(name=checked.pop("name"), models=checked.pop("models", []), options=checked)


def _groups(rules):
    def check(value, where: s.Where) -> list[ModelGroup]:
        if not isinstance(value, list) or not value:
            raise where.error("must list at least one model group ([[...models]])")
        return [_group(g, rules, where / i) for i, g in enumerate(value)]

    return check


def _group(data: Any, rules, where: s.Where) -> ModelGroup:
    spec = {"name": (s.text, s.REQUIRED), "count": (s.integer(1, 10_000), s.REQUIRED),
            "profile": (_profile(rules), s.REQUIRED), "equipment": (s.text_list, []),
            **rules.group_keys}
    checked = s.fields(data, spec, where)
    return ModelGroup(name=checked.pop("name"), count=checked.pop("count"),
                      profile=checked.pop("profile"), equipment=checked.pop("equipment"),
                      options=checked)


def _profile(rules):
    def check(value, where: s.Where) -> dict[str, int]:
        return s.fields(value, rules.profile, where)

    return check
