"""The ruleset-agnostic scenario: two sides of model groups, how the fight starts, how to simulate.

Built from Python objects or loaded from TOML; :func:`from_dict` checks every field against the
ruleset's schema before any kernel runs, so mistakes surface as one :class:`ScenarioError`
naming the file, the field path and what is allowed.
"""
from __future__ import annotations

import os
import reprlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from odds.core import schema as s
from odds.core.catalogue import unknown_name
from odds.core.data import beside, read_toml
from odds.errors import ScenarioError

SIDES = ("attacker", "defender")
COMPARISON_KEYS = ("base", "variants", "opponents")  # what only a comparison file has

COUNT = s.integer(1, 10_000)  # models in a group

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
    """One side of the fight: one unit (its model groups and the ruleset's unit keys, e.g.
    ``in_contact``), or several ``units``, each a :class:`Side` of one unit.

    A side of several units has no groups or options of its own; its ``name`` is its units'
    names joined by "and" unless given. A ruleset whose unit has no model groups
    (``Ruleset.single_unit``) keeps everything in ``options``."""

    name: str
    models: list[ModelGroup] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)
    units: list["Side"] = field(default_factory=list)
    path: str = field(default="", repr=False, compare=False)  # where it was written, if read

    @property
    def every_unit(self) -> list["Side"]:
        """The side's units in file order: its ``units``, or the side itself when it is one."""
        return self.units or [self]


@dataclass
class Scenario:
    """Two sides, the engagement (how the fight starts) and simulation settings.

    ``weapons`` holds the scenario's own weapon entries, written inline or read from weapons
    files at load time; ``weapon_sources`` says which file each file entry came from (for
    error messages). ``special_rules`` holds its own special rules (``[special_rules."name"]``,
    for a ruleset whose special rules are data). Without a ``name`` the scenario is called
    "<attacker> vs <defender>".
    """

    ruleset: str
    attacker: Side
    defender: Side
    name: str = ""
    engagement: dict[str, Any] = field(default_factory=dict)
    simulation: dict[str, Any] = field(default_factory=dict)
    weapons: dict[str, dict[str, Any]] = field(default_factory=dict)
    rules: dict[str, Any] = field(default_factory=dict)
    special_rules: dict[str, dict[str, Any]] = field(default_factory=dict)
    source: str = "<python>"
    weapon_sources: dict[str, str] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self):
        if self.name == "":
            self.name = _default_name(self.attacker, self.defender)

    def side(self, which: str) -> Side:
        return self.attacker if which == "attacker" else self.defender

    def where(self, which: str) -> s.Where:
        """Where side ``which`` was written: ``attacker``, or ``attacker.units[0]`` for a
        side written as a list of one unit."""
        return s.Where(self.source, self.side(which).path or which)

    def unit_wheres(self, which: str) -> list[tuple[Side, s.Where]]:
        """Side ``which``'s units in file order, each with where it was written."""
        side = self.side(which)
        if not side.units:
            return [(side, self.where(which))]
        return [(u, s.Where(self.source, which) / "units" / i) for i, u in enumerate(side.units)]

    def to_dict(self) -> dict:
        """The scenario as TOML-shaped data (the inverse of :func:`from_dict`).

        Whatever was edited in place is passed on as it is, for :func:`from_dict` to check;
        a side or model group that is not a :class:`Side` / :class:`ModelGroup` is an error.
        """
        out = {"ruleset": self.ruleset}
        if self.name != "":
            out["name"] = self.name
        for key in SIDES:
            out[key] = _side_data(self.side(key), s.Where(self.source, key))
        for key in ("engagement", "simulation", "weapons", "rules", "special_rules"):
            value = getattr(self, key)
            if not isinstance(value, dict):
                out[key] = value  # for from_dict to say what it must be
            elif value:
                out[key] = _given(value)
        return out

    def validated(self) -> "Scenario":
        """A checked copy with every default filled in (raises :class:`ScenarioError`)."""
        return _rebuilt(self, self.to_dict())

    def replace(self, **simulation) -> "Scenario":
        """A copy with some ``simulation`` settings changed (trials, seed, max_rounds)."""
        data = self.to_dict()
        simulated = data.get("simulation", {})
        data["simulation"] = {**simulated, **simulation} if isinstance(simulated, dict) \
            else simulated
        return _rebuilt(self, data)


def _rebuilt(scenario: Scenario, data: dict) -> Scenario:
    """``from_dict(data)`` that still blames weapons-file entries on their file."""
    return from_dict(data, scenario.source, scenario.weapon_sources)


def _default_name(attacker, defender) -> str:
    names = [getattr(side, "name", None) for side in (attacker, defender)]
    return " vs ".join(names) if all(isinstance(n, str) and n.strip() for n in names) else ""


def _side_data(side, where: s.Where) -> dict:
    if not isinstance(side, Side):
        raise where.error(f"must be a Side, got {_shown(side)}")
    units = side.units
    if units:
        if side.models or side.options:
            raise where.error("a Side of several units has no models or options of its own: "
                              "put them in its units")
        if not isinstance(units, (list, tuple)):
            return {"name": side.name, "units": units}  # for from_dict to say what it must be
        return {"name": side.name,
                "units": [_side_data(u, where / "units" / i) for i, u in enumerate(units)]}
    out = {**_options(side.options, where, Side), "name": side.name}
    models = side.models
    if not isinstance(models, (list, tuple)):
        out["models"] = models  # for from_dict to say what it must be
    elif models:  # a single-unit side has none
        out["models"] = [_group_data(g, where / "models" / i) for i, g in enumerate(models)]
    return out


def _group_data(group, where: s.Where) -> dict:
    if not isinstance(group, ModelGroup):
        raise where.error(f"must be a ModelGroup, got {_shown(group)}")
    equipment = group.equipment
    return {**_options(group.options, where, ModelGroup), "name": group.name,
            "count": group.count,
            "profile": _given(group.profile) if isinstance(group.profile, dict) else group.profile,
            "equipment": list(equipment) if isinstance(equipment, (list, tuple)) else equipment}


def _options(options, where: s.Where, owner: type) -> dict:
    """A Side's or ModelGroup's ``options`` as TOML keys (its attributes' keys not among them)."""
    if not isinstance(options, dict):
        raise where.error(f"{owner.__name__}.options must be a dict of keys, got "
                          f"{_shown(options)}")
    fixed = (set(owner.__dataclass_fields__) - {"options", "path"}) & set(options)
    if fixed:
        raise where.error(f"{owner.__name__}.options may not hold {sorted(fixed)[0]!r}: "
                          f"set the {owner.__name__}'s own attribute")
    return _given(options)


def _given(options: dict) -> dict:
    """The options that were set (``None`` marks an optional key left out)."""
    return {k: v for k, v in options.items() if v is not None}


def _shown(value) -> str:
    return f"{type(value).__name__} {reprlib.repr(value)}" if value is not None else "None"


def as_scenario(value) -> Scenario:
    """A checked :class:`Scenario` from a Scenario, TOML-shaped data (a dict) or the path of
    a scenario TOML file; anything else is a TypeError."""
    if isinstance(value, Scenario):
        return value.validated()
    if isinstance(value, (str, os.PathLike)):
        return load(value)
    if isinstance(value, dict):
        return from_dict(value)
    raise TypeError(f"expected a Scenario, a dict of scenario data or the path of a scenario "
                    f"TOML file, got {_shown(value)}")


def load(path: str | Path) -> Scenario:
    """Read and check a scenario TOML file (a comparison file is an error saying so)."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"expected the path of a scenario TOML file, got {_shown(path)}")
    return from_dict(read_toml(path), str(path))


def from_dict(data: dict, source: str = "<python>",
              weapon_sources: dict[str, str] | None = None) -> Scenario:
    """Check TOML-shaped data against the ruleset's schema and build a :class:`Scenario`.

    A side or unit written ``unit = NAME`` is picked from the ``packs`` listed (paths
    relative to ``source``) or the ruleset's bundled pack (:mod:`odds.packs`); the Scenario
    holds it written out in full. ``weapon_sources`` (entry name -> file) blames inline
    ``weapons`` entries that were read from a weapons file on that file, as
    :meth:`Scenario.validated` does."""
    from odds import packs as pack_files
    from odds.rulesets import get_ruleset

    top = s.Where(source, "")
    s.table(data, top)
    if "ruleset" not in data:
        if any(key in data for key in COMPARISON_KEYS):
            raise top.error("is a comparison file (a base scenario with variants), not a "
                            "scenario: run it with `odds compare FILE` or odds.compare(FILE)")
        raise (top / "ruleset").error("is required")
    ruleset_id = s.text(data["ruleset"], top / "ruleset")
    rules = get_ruleset(ruleset_id, top / "ruleset")
    known = {"ruleset", "name", "engagement", "simulation", "weapons", "rules", "special_rules",
             "packs", *SIDES}
    s.unknown_keys(data, known, top)
    for key in SIDES:
        if key not in data:
            raise (top / key).error("is required")
    packs = pack_files.for_file(ruleset_id, data.get("packs"), source, top / "packs")
    attacker = _side(data["attacker"], rules, top / "attacker", packs)
    defender = _side(data["defender"], rules, top / "defender", packs)
    weapons, sources = weapon_entries(data.get("weapons", {}), top / "weapons")
    if weapon_sources is not None and not (isinstance(weapon_sources, dict) and all(
            isinstance(k, str) and isinstance(v, str) for k, v in weapon_sources.items())):
        raise TypeError(f"weapon_sources must map weapon names to the files they were read "
                        f"from, got {_shown(weapon_sources)}")
    sources = {**{k: v for k, v in (weapon_sources or {}).items() if k in weapons}, **sources}
    scenario = Scenario(
        ruleset=ruleset_id,
        name=s.text(data["name"], top / "name") if "name" in data else
        _file_stem(source) or _default_name(attacker, defender),
        attacker=attacker,
        defender=defender,
        engagement=s.fields(data.get("engagement", {}), rules.engagement, top / "engagement"),
        simulation=s.fields(data.get("simulation", {}), simulation_keys(rules),
                            top / "simulation"),
        weapons=weapons,
        rules=s.fields(data.get("rules", {}), rules.rules, top / "rules"),
        special_rules=_own_special_rules(data.get("special_rules", {}), rules,
                                         top / "special_rules"),
        source=source,
        weapon_sources=sources,
    )
    rules.check(scenario)
    for key in SIDES:  # after the ruleset's checks: "one group only" comes first
        for unit, where in scenario.unit_wheres(key):
            _distinct_names([g.name for g in unit.models], where / "models", "model groups")
    return scenario


def _own_special_rules(value, rules, where: s.Where) -> dict[str, dict]:
    """The scenario's own special rules: a table of entries, each a table the ruleset checks
    against its special-rule keys (``Ruleset.own_special_rules``)."""
    entries = {name: s.table(e, where / name) for name, e in s.table(value, where).items()}
    if entries and not rules.own_special_rules:
        raise where.error(f"{rules.id} special rules are not data that a scenario can extend "
                          f"(whfb8's, wh40k3's and mordheim's are); name the ruleset's own in each side's rules")
    return entries


def simulation_keys(rules) -> dict:
    """The ``[simulation]`` keys with this ruleset's default ``max_rounds``."""
    return {**SIMULATION, "max_rounds": (SIMULATION["max_rounds"][0], rules.default_max_rounds)}


def _distinct_names(names: list[str], where: s.Where, what: str, owner: str = "a side") -> None:
    """The entries of one list (``where``, e.g. ``attacker.models``) need different names:
    paths such as ``models[Boss]`` and the results name them."""
    listed = where.path.rsplit(".", 1)[-1]
    for i, name in enumerate(names):
        if names.index(name) < i:
            raise (where / i / "name").error(
                f"{name!r} is the name of {listed}[{names.index(name)}] too: the {what} of "
                f"{owner} need different names")


def _file_stem(source: str) -> str:
    """The file name without its suffix; "" for a source that is not a file (``<python>``)."""
    return "" if source.startswith("<") else Path(source).stem


def weapon_entries(value, where: s.Where) -> tuple[dict, dict[str, str]]:
    """The scenario's own weapon entries and, for those read from weapons files, the file of
    each. ``weapons`` is a table of entries, or the path of a weapons file (a list of paths),
    relative to the scenario file, whose top-level tables are entries written as inline ones.
    """
    if isinstance(value, dict):
        return {name: s.table(w, where / name) for name, w in s.table(value, where).items()}, {}
    if isinstance(value, str):
        places = [(s.text(value, where), where)]
    elif isinstance(value, list):
        s.once_each(s.text_list(value, where), where)
        places = [(path, where / i) for i, path in enumerate(value)]
    else:
        raise where.error(f'must be a table of entries ([weapons."name"]) or the path of a '
                          f'weapons file (or a list of paths), got {value!r}')
    entries, sources = {}, {}
    for path, at in places:
        file = beside(where.source, path, at)
        if not file.is_file():
            raise at.error(f"no weapons file {str(file)!r}")
        own = s.Where(str(file), "")
        for name, spec in s.table(read_toml(file), own).items():
            if name in sources:
                raise (own / name).error(f"is defined in {sources[name]} too")
            entries[name], sources[name] = s.table(spec, own / name), str(file)
    return entries, sources


MAX_UNITS = 20  # units a side


def _side(data: Any, rules, where: s.Where, packs) -> Side:
    """A side: one unit, or (``units``) a list of them; a list of one is that unit."""
    if isinstance(data, dict) and "units" in data:
        return _several(data, rules, where, packs)
    return _unit(data, rules, where, packs, where.path)


def _several(data: dict, rules, where: s.Where, packs) -> Side:
    """A side written as ``[[<side>.units]]``: each unit as a one-unit side, names unique."""
    checked = s.fields(data, {"name": (s.text, None), "units": (_unit_list, s.REQUIRED)},
                       where)
    entries = checked["units"]
    units = [_unit(u, rules, where / "units" / i, packs) for i, u in enumerate(entries)]
    if len(units) > 1 and not rules.multi_unit:
        raise (where / "units" / 1).error(
            f"{rules.id} plays one unit a side: a side of several units is not supported by "
            "this ruleset (yet); list one unit")
    names = [u.name for u in units]
    _distinct_names(names, where / "units", "units")
    if len(units) == 1:
        if checked["name"] is not None:
            raise (where / "name").error("a side of one unit is named by its unit: write the "
                                         "name in the unit, or list more units")
        return units[0]
    return Side(name=checked["name"] or " and ".join(names), units=units)


def _unit_list(value, where: s.Where) -> list:
    if not isinstance(value, list) or not value:
        raise where.error("must list at least one unit ([[...units]])")
    if len(value) > MAX_UNITS:
        raise where.error(f"has {len(value)} units; a side may have at most {MAX_UNITS}")
    return value


def unit_table(data: Any, ruleset: str, where: s.Where, packs) -> dict:
    """One unit's table written out in full (``unit = NAME`` picked from ``packs``) and
    checked against the ruleset's unit keys, as a scenario side would be."""
    from odds.rulesets import get_ruleset

    rules = get_ruleset(ruleset)
    data = _picked(data, rules, where, packs)
    _unit(data, rules, where, packs)
    return data


def check_alone(table: dict, ruleset: str, where: s.Where, weapons: dict | None = None,
                weapon_sources: dict[str, str] | None = None) -> None:
    """A unit table checked as a scenario checks its sides (equipment known and usable, the
    ruleset's cross-field checks), in a scenario against a copy of itself, each copy
    charging in turn; a mistake is named in the table (``where``). A mistake that follows
    the charger (the same field of whichever copy charges) is about charging, not the unit:
    a unit that may not charge is still a unit, refused only in the cells where it would."""
    found = []
    for charger in SIDES:
        data = {"ruleset": ruleset, "attacker": table, "defender": table,
                "engagement": {"charger": charger}, "weapons": weapons or {}}
        try:
            from_dict(data, "<unit>", weapon_sources)
            return
        except ScenarioError as e:
            found.append(((within_side(e, charger, "<unit>"), e.message), e))
    (at_charger, first), (again, _) = found
    if at_charger[0] is not None and at_charger == again:
        return
    for side in SIDES:
        rest = within_side(first, side, "<unit>")
        if rest is not None:
            raise ScenarioError(first.message, where.source, where.path + rest) from None
    raise first


def one_fighter_a_unit(scenario, weapons: dict, ruleset_id: str):
    """For a ruleset whose unit is one fighter: each unit's one model group of one model,
    with its ``where``, the attacker's first, in file order. A second group, a count other
    than 1, or a weapon unknown to ``weapons`` or carried twice is an error at its field."""
    for key in SIDES:
        for unit, at in scenario.unit_wheres(key):
            where = at / "models"
            groups = unit.models
            if len(groups) != 1:
                table = f"{key}.units.models" if scenario.side(key).units else f"{key}.models"
                raise where.error(f"a {ruleset_id} unit is one fighter: give exactly one "
                                  f"[[{table}]] group, got {len(groups)}")
            group, where = groups[0], where / 0
            if group.count != 1:
                raise (where / "count").error(f"must be 1 (a unit is one fighter), got "
                                              f"{group.count}")
            for j, name in enumerate(group.equipment):
                if name not in weapons:
                    raise unknown_name(name, weapons, where / "equipment" / j,
                                       f"`odds weapons {ruleset_id}` lists them")
            s.once_each(group.equipment, where / "equipment")  # their modifiers add up
            yield group, where


def within_side(error: ScenarioError, side: str, source: str) -> str | None:
    """Where inside ``side`` of a scenario read from ``source`` an error is
    (``.models[0].count``; "" for the side itself), or None when it is elsewhere: for moving
    the error to where that side was written."""
    if error.source == source and (error.field == side or error.field.startswith(side + ".")):
        return error.field[len(side):]
    return None


def _picked(data: Any, rules, where: s.Where, packs) -> Any:
    """A unit table written ``unit = NAME`` written out from ``packs`` (other data as it
    is); a ``set`` without ``unit`` is an error saying what it needs."""
    if not isinstance(data, dict):
        return data
    if "unit" in data:
        return packs.expand(data, where, lambda table, at: _unit(table, rules, at, packs),
                            lambda table, at: check_alone(table, rules.id, at))
    if "set" in data:
        raise (where / "set").error('edits a unit picked by name: write unit = "NAME" beside '
                                    "it (`odds units " + rules.id + "` lists them), or write "
                                    "the keys themselves")
    return data


def _unit(data: Any, rules, where: s.Where, packs, default_name=s.REQUIRED) -> Side:
    """One unit: model groups plus the ruleset's unit keys, or (``rules.single_unit``) a unit
    described by those keys alone; ``unit = NAME`` picks it from ``packs``."""
    data = _picked(data, rules, where, packs)
    spec = {"name": (s.text, default_name), **rules.side_keys}
    if not rules.single_unit:
        spec["models"] = (_groups(rules), s.REQUIRED)
    checked = s.fields(data, spec, where)
    return Side(name=checked.pop("name"), models=checked.pop("models", []), options=checked,
                path=where.path)


def _groups(rules):
    def check(value, where: s.Where) -> list[ModelGroup]:
        if not isinstance(value, list) or not value:
            raise where.error("must list at least one model group ([[...models]])")
        return [_group(g, rules, where / i) for i, g in enumerate(value)]

    return check


def _group(data: Any, rules, where: s.Where) -> ModelGroup:
    spec = {"name": (s.text, s.REQUIRED), "count": (COUNT, s.REQUIRED),
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
