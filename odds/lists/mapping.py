"""How one game's exported lists are read: the ruleset's bundled table
(``data/<ruleset>/army_lists.toml``) with a user's own table on top (``--map FILE``).

Both have the same keys (documented in the bundled files); in the user's, a list key
replaces the bundled list and a name table adds to (and overrides) the bundled one.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from odds.core import schema as s
from odds.core.data import data_path, load_table, read_toml
from odds.errors import ScenarioError

GAMES = ("wh40k3", "whfb8", "mordheim")  # the rulesets a list can be imported for


def _word(value, where: s.Where) -> str:
    """A string, possibly empty ("" names nothing: the key is not used)."""
    if not isinstance(value, str):
        raise where.error(f"must be a string, got {value!r}")
    return value.strip()


def _names(value, where: s.Where) -> list[str]:
    if not isinstance(value, list):
        raise where.error(f"must be a list of names, got {value!r}")
    return [_word(v, where / i) for i, v in enumerate(value)]


def _items(value, where: s.Where) -> list[str]:
    """An equipment entry: one odds name, several, or "" (plays no part in melee)."""
    if isinstance(value, str):
        return [value] if value else []
    return [n for n in _names(value, where) if n]


def _held(value, where: s.Where) -> list[str]:
    """A group's equipment, as odds names it: a list (empty: he fights with his fists)."""
    return [n for n in _names(value, where) if n]


def _table_of(check):
    def table(value, where: s.Where) -> dict:
        s.table(value, where)
        return {str(k).strip().casefold(): check(v, where / str(k)) for k, v in value.items()}
    return table


def _stat_fix(value, where: s.Where) -> dict:
    s.table(value, where)
    return {k: s.integer(0, 20)(v, where / k) for k, v in value.items()}


LISTS = {  # key -> check; the user's replaces the bundled
    "game": _names, "points": _word, "points_key": s.boolean,
    "model_profiles": _names, "weapon_profiles": _names, "melee_profiles": _names,
    "armour_profiles": _names, "rule_profiles": _names, "ignored_profiles": _names,
    "mounts": _names, "mounted_types": _names, "character_categories": _names,
    "character_models": _names,
    "champion_models": _names, "command_in_count": s.boolean,
    "range": _word, "strength": _word, "type": _word, "melee_ranges": _names,
    "pistol_types": _names, "pistol": _word, "off_hand": _names, "in_profile": _names,
    "limit_profiles": _names,
    "special": _names,
    "troop_type": _word,
    "unit_defaults": s.table, "unit_items": s.choice("all", "number"), "unit_wargear": _names,
    "read_weapon": s.table,
}
TABLES = {  # key -> check of each entry; the user's entries add to the bundled
    "characteristics": _word, "unplayed": _word, "cannot_play": _word,
    "troop_types": _word, "equipment": _items, "rules": _word, "unit_flags": s.text,
    "group_flags": s.text, "profiles": _stat_fix, "join": s.text, "fights_with": _held,
    "abilities": s.table,
}


@dataclass(frozen=True)
class Mapping:
    ruleset: str
    keys: dict            # LISTS keys and TABLES (name tables keyed by casefolded name)
    source: str           # where it came from, for messages
    folded: dict = field(default_factory=dict, compare=False, repr=False)  # key -> its names

    def __getattr__(self, key):
        try:
            return self.__dict__["keys"][key]
        except KeyError:
            raise AttributeError(key) from None

    def has(self, key: str, name: str) -> bool:
        """Whether ``name`` is one of the names of list key ``key``, in any letter case."""
        if key not in self.folded:
            self.folded[key] = {n.casefold() for n in self.keys[key]}
        return name.strip().casefold() in self.folded[key]

    def plays(self, game: str) -> bool:
        return self.has("game", game)


def mapping(ruleset: str, own: str | None = None) -> Mapping:
    """The bundled reading of ``ruleset``'s lists, with the user's table ``own`` on top."""
    bundled = data_path(ruleset, "army_lists.toml")
    keys = _checked(load_table(ruleset, "army_lists.toml"), str(bundled), complete=True)
    source = f"the bundled {ruleset} reading"
    if own is not None:
        data = read_toml(own)
        s.table(data, s.Where(own, ""))
        if data.get("ruleset", ruleset) != ruleset:
            raise (s.Where(own, "ruleset")).error(
                f"is {data['ruleset']!r}, but the list is a {ruleset} roster")
        data = {k: v for k, v in data.items() if k != "ruleset"}
        if data.get("champion_models") and not keys["champion_models"]:
            raise s.Where(own, "champion_models").error(
                f"odds' {ruleset} has no unit champions: a sergeant or leader is a character "
                "(name it in character_models)")
        for key, value in _checked(data, own, complete=False).items():
            keys[key] = {**keys[key], **value} if key in TABLES else value
        source = f"{source} and {own}"
    return Mapping(ruleset, keys, source)


def _checked(data: dict, source: str, complete: bool) -> dict:
    top = s.Where(source, "")
    spec = {key: (check, s.REQUIRED if complete else None) for key, check in LISTS.items()}
    spec.update({key: (_table_of(check), {} if complete else None)
                 for key, check in TABLES.items()})
    checked = s.fields(data, spec, top)
    return {k: v for k, v in checked.items() if v is not None}


def game_of(game_name: str, source: str) -> str:
    """The ruleset whose bundled reading plays lists of this game system."""
    for ruleset in GAMES:
        if mapping(ruleset).plays(game_name):
            return ruleset
    known = "; ".join(f"{r}: {', '.join(mapping(r).game)}" for r in GAMES)
    raise ScenarioError(f"is a roster of {game_name or 'an unnamed game'!r}, which odds does "
                        f"not import (it reads {known})", source)
