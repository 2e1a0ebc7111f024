"""What a scenario may name: each ruleset's bundled catalogue (weapons, armour, special rules,
troop types) with the effects of every entry, as ``odds weapons RULESET`` lists them."""
from __future__ import annotations

import dataclasses
import importlib
from types import SimpleNamespace
from typing import Callable, NamedTuple

from odds.core import schema as s
from odds.core.data import load_table

_NO_OWN = SimpleNamespace(weapons={}, special_rules={},  # a scenario without tables of its own
                          source="<bundled>")


class Section(NamedTuple):
    """One list of names: what they are, which key names them (``key`` of a model group or
    of a side: ``owner``), each entry, the keys its effects are written with
    (key -> (check, default)), and its kind (or None)."""

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


def sections(ruleset_id: str) -> list[Section]:
    """The catalogues of one ruleset, read and checked from its bundled data."""
    r = importlib.import_module(f"odds.rulesets.{ruleset_id}.rules")
    equipment = ("group", "equipment")
    if ruleset_id == "wh40k3":
        return [Section("weapons and wargear", *equipment, r.weapons(_NO_OWN), r.WEAPON_KEYS),
                Section("special rules", "group", "rules", r.special_rules(_NO_OWN),
                        r.RULE_KEYS, own="special_rules")]
    if ruleset_id == "mordheim":
        return [Section("weapons and armour", *equipment, r.weapons(_NO_OWN), r.WEAPON_KEYS,
                        kind=lambda name, e: e["kind"]),
                Section("skills and special rules", "group", "rules", r.special_rules(_NO_OWN),
                        r.RULE_KEYS, own="special_rules")]
    if ruleset_id == "whfb8":
        table = load_table("whfb8", "weapons.toml")
        return [Section("weapons and armour", *equipment, r.equipment(_NO_OWN), r.EQUIPMENT_KEYS,
                        kind=lambda name, e: "armour" if name in table.get("armour", {})
                        else "weapon"),
                Section("special rules", "group", "rules", r.special_rules(_NO_OWN),
                        r.RULE_KEYS, own="special_rules"),
                Section("troop types", "group", "troop_type", r.troop_types(),
                        r.TROOP_KEYS, own=None)]
    if ruleset_id == "d10skirmish":
        return [Section("weapons", *equipment, r.weapons(_NO_OWN), r.WEAPON_KEYS)]
    if ruleset_id == "blackpowder":
        return [Section("special rules", "side", "rules", r.special_rules(), r.RULE_KEYS,
                        own=None)]
    raise ValueError(f"no catalogue listing for ruleset {ruleset_id!r}")


def effects(entry: dict, keys: dict) -> str:
    """An entry's effects in the words of its data file: the keys it sets away from their
    defaults, ``strength_mult = 2, ignores_armour``; "no special effect" when none."""
    out = []
    for key, (_, default) in keys.items():
        value = entry.get(key)
        if key in ("kind", "name") or (default is not s.REQUIRED and value == default):
            continue
        if value is True:
            out.append(key)
        elif value is not False:
            out.append(f"{key} = {_shown(value)}")
    return ", ".join(out) or "no special effect"


def _shown(value) -> str:
    """A value as written in TOML: "text", 1.5, { key = value, ... }; dice specs as dice."""
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_shown(v)}" for k, v in value.items()) + " }"
    if isinstance(value, tuple) and len(value) == 3:  # odds.core.effects.dice
        count, sides, plus = value
        die = f"{count if count > 1 else ''}D{sides}" if count else ""
        return f'"{die}+{plus}"' if die and plus else f'"{die}"' if die else str(plus)
    return str(value)


def listing(ruleset_id: str) -> list[str]:
    """The text ``odds weapons RULESET`` prints: every section as an aligned table."""
    from odds.analysis.report import table

    lines = []
    for section in sections(ruleset_id):
        own = f"; a scenario may define more under [{section.own}]" if section.own else ""
        lines += ["" if lines else None, f"{ruleset_id} {section.title}, named in "
                  f"{section.named_in}{own}:"]
        rows = []
        for name, entry in section.entries.items():
            entry = dataclasses.asdict(entry) if dataclasses.is_dataclass(entry) else entry
            kind = [section.kind(name, entry)] if section.kind else []
            rows.append([name, *kind, effects(entry, section.keys) if section.keys else ""])
        head = ["name", *["kind"] * bool(section.kind), "effects" * bool(section.keys)]
        lines += table(rows, head, left=len(head))
    return [line for line in lines if line is not None]
