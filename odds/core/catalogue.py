"""Named entries (weapons, wargear) from a bundled data table and a scenario's own table.

A ruleset keeps its catalogue in ``data/<ruleset>/<file>.toml``; a scenario may override or
extend it under ``[weapons]``. Every entry is checked against the ruleset's keys, and an
unknown name gets an error with the closest known names.
"""
from __future__ import annotations

import difflib

from odds.core import schema as s
from odds.core.data import data_path, load_table
from odds.errors import ScenarioError


def catalogue(parts: tuple[str, ...], inline: dict, inline_source: str,
              keys: dict[str, tuple]) -> dict[str, dict]:
    """The bundled entries of ``data/<parts>``, then ``inline`` (the scenario's ``[weapons]``),
    each checked with :func:`odds.core.schema.fields` against ``keys``."""
    bundled = s.Where(str(data_path(*parts)), "")
    entries = {name: s.fields(spec, keys, bundled / name)
               for name, spec in load_table(*parts).items()}
    own = s.Where(inline_source, "weapons")
    entries.update({name: s.fields(spec, keys, own / name) for name, spec in inline.items()})
    return entries


def unknown_name(name: str, known, where: s.Where, home: str, kind: str = "weapon",
                 inline: bool = True) -> ScenarioError:
    """The error for a name not in ``known``: the closest names, and where names come from
    (``home``; with ``inline``, a scenario may also define its own under ``[weapons]``)."""
    near = difflib.get_close_matches(name, list(known), n=3)
    hint = f"; did you mean {', '.join(map(repr, near))}?" if near else ""
    own = ", or define it under [weapons]" if inline else ""
    return where.error(f"unknown {kind} {name!r}{hint} (known: {home}{own})")
