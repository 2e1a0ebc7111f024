"""What a scenario may name: each ruleset's bundled catalogue (weapons, armour, special rules,
troop types) with the effects of every entry, as ``odds weapons RULESET`` lists them."""
from __future__ import annotations

import dataclasses

from odds.core import schema as s
from odds.core.catalogue import Section
from odds.rulesets import get_ruleset


def sections(ruleset_id: str) -> list[Section]:
    """The catalogues of one ruleset (``Ruleset.catalogues``), read and checked from its
    bundled data."""
    return get_ruleset(ruleset_id).catalogues()


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
