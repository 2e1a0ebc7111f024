"""Named entries (weapons, wargear) from a bundled data table and a scenario's own table.

A ruleset keeps its catalogue in ``data/<ruleset>/<file>.toml``; a scenario may override or
extend it under ``[weapons]`` or in weapons files (``weapons = "my_weapons.toml"``). Every
entry is checked against the ruleset's keys, and an unknown name gets an error with the
closest known names.
"""
from __future__ import annotations

from types import SimpleNamespace
from typing import Callable, NamedTuple

from odds.core import schema as s
from odds.core.data import data_path, load_table
from odds.errors import ScenarioError

NO_OWN = SimpleNamespace(weapons={}, special_rules={},  # a scenario without tables of its own
                         source="<bundled>")


class Section(NamedTuple):
    """One list of names a ruleset offers (``Ruleset.catalogues``): what they are, which key
    names them (``key`` of a model group or of a side: ``owner``), each entry, the keys its
    effects are written with (key -> (check, default)), and its kind (or None)."""

    title: str
    owner: str  # "group" or "side"
    key: str
    entries: dict
    keys: dict
    kind: Callable[[str, dict], str] | None = None
    own: str | None = "weapons"  # the scenario table that may add entries, if any

    @property
    def named_in(self) -> str:
        return f"a {'model group' if self.owner == 'group' else 'side'}'s {self.key}"


def catalogue(parts: tuple[str, ...], scenario, keys: dict[str, tuple]) -> dict[str, dict]:
    """The bundled entries of ``data/<parts>``, overridden and extended by the scenario's own
    (:func:`own_entries`), each checked with :func:`odds.core.schema.fields` against ``keys``."""
    return {**bundled(parts, keys), **own_entries(scenario, keys)}


def bundled(parts: tuple[str, ...], keys: dict[str, tuple]) -> dict[str, dict]:
    """The entries of the bundled table ``data/<parts>``, checked against ``keys`` (once a
    process: the bundled tables do not change; each call gets its own copies)."""
    cache_key = (parts, id(keys))
    if cache_key not in _BUNDLED:
        where = s.Where(str(data_path(*parts)), "")
        _BUNDLED[cache_key] = (keys, {name: s.fields(spec, keys, where / name)
                                      for name, spec in load_table(*parts).items()})
    return {name: dict(spec) for name, spec in _BUNDLED[cache_key][1].items()}


_BUNDLED: dict = {}  # (parts, id(keys)) -> (keys, the checked entries); keys kept alive


def own_entries(scenario, keys: dict[str, tuple]) -> dict[str, dict]:
    """The scenario's ``weapons`` entries checked against ``keys``; a mistake names the weapons
    file an entry was read from, or the scenario's ``weapons.<name>``."""
    out = {}
    for name, spec in scenario.weapons.items():
        file = scenario.weapon_sources.get(name)
        where = s.Where(file, name) if file else s.Where(scenario.source, "weapons") / name
        out[name] = s.fields(spec, keys, where)
    return out


def own_rules(scenario, keys: dict[str, tuple]) -> dict[str, dict]:
    """The scenario's own ``[special_rules]`` entries checked against ``keys``."""
    where = s.Where(scenario.source, "special_rules")
    return {name: s.fields(spec, keys, where / name)
            for name, spec in scenario.special_rules.items()}


def active_rules(rules, first_round: bool, charging: bool) -> list:
    """The special rules in force in a round, by their ``when``: "always"; "first round" in
    the combat's first round; "charging" in the first round of a side that charged."""
    return [x for x in rules if x.when == "always" or (first_round and (
        x.when == "first round" or (x.when == "charging" and charging)))]


def rule_table(ruleset_id: str, scenario, keys: dict[str, tuple],
                  round_keys: tuple[str, ...]) -> dict[str, dict]:
    """A ruleset's special rules: ``data/<ruleset_id>/special_rules.toml``, overridden and
    extended by the scenario's ``[special_rules]``, each checked against ``keys``. An entry
    whose ``when`` is not ``"always"`` may only set ``round_keys`` (the rest hold for the
    whole combat)."""
    files = ((bundled((ruleset_id, "special_rules.toml"), keys),
              s.Where(str(data_path(ruleset_id, "special_rules.toml")), "")),
             (own_rules(scenario, keys), s.Where(scenario.source, "special_rules")))
    out = {}
    for entries, where in files:
        for name, spec in entries.items():
            if spec["when"] != "always":
                for key, (_, default) in keys.items():
                    if key != "when" and key not in round_keys and spec[key] != default:
                        raise (where / name / key).error(
                            f"a rule with when = {spec['when']!r} may only set the keys of "
                            f"a round ({', '.join(round_keys)}); {key} holds for the whole "
                            f"combat")
            out[name] = spec
    return out


def unknown_name(name: str, known, where: s.Where, home: str, kind: str = "weapon",
                 inline: bool = True) -> ScenarioError:
    """The error for a name not in ``known``: the closest names, and where names come from
    (``home``; with ``inline``, a scenario may also define its own: a weapon under
    ``[weapons]``, a special rule under ``[special_rules]``)."""
    hint = s.did_you_mean(name, known)
    own = ("" if not inline else f'; or define it under [special_rules."{name}"]'
           if kind == "special rule" else "; or define it under [weapons] or in a weapons file")
    return where.error(f"unknown {kind} {name!r}{hint} ({home}{own})")
