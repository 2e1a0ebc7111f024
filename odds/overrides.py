"""Small edits of TOML-shaped scenario data by path: ``attacker.models[1].equipment``.

Paths are dotted keys with ``[i]`` list indexes; ``models[Veteran Sergeant]`` picks the model
group of that name. Used by comparisons (variants, opponents) and sweeps. In a table of
changes, a table value sets its keys one by one (:func:`leaves`): TOML reads
``set = { engagement.pursue = false }`` as ``{"engagement": {"pursue": false}}``, which must
change ``pursue`` alone, not replace the whole ``[engagement]`` table.
"""
from __future__ import annotations

import copy
import re

from odds.core.schema import Where

_PART = re.compile(r"([^.\[\]]+)|\[([^\]]+)\]")


def apply(data: dict, edits) -> dict:
    """A copy of ``data`` with each ``(path, value, where)`` of ``edits`` set in order (a
    mistake in a path is reported at its ``where``)."""
    data = copy.deepcopy(data)
    for path, value, where in edits:
        set_path(data, path, copy.deepcopy(value), where)
    return data


def leaves(changes: dict) -> list[tuple[str, object]]:
    """``{path: value}`` with every non-empty table value opened into one change per key:
    ``{"engagement": {"pursue": False}}`` -> ``[("engagement.pursue", False)]``."""
    out = []
    for path, value in changes.items():
        if isinstance(value, dict) and value:
            out += [(f"{path}.{key}", v) for key, v in leaves(value)]
        else:
            out.append((path, value))
    return out


def get_path(data: dict, path: str, where: Where | None = None):
    """The value at ``path`` in TOML-shaped data, or None where nothing is set (a path that
    leads nowhere is reported when the change is applied)."""
    node = data
    for part in _one_unit(data, _parse(path, where or Where("<path>", path))):
        if isinstance(part, tuple) and isinstance(node, list):
            node = next((g for g in node if isinstance(g, dict) and g.get("name") == part[1]),
                        None)
        elif isinstance(part, int) and isinstance(node, list) and 0 <= part < len(node):
            node = node[part]
        elif isinstance(part, str) and isinstance(node, dict):
            node = node.get(part)
        else:
            return None
    return node


def set_path(data: dict, path: str, value, where: Where) -> None:
    """Set one value by path; a path that does not lead anywhere is a ScenarioError, and so
    is a path to ``unit``: a unit picked from a pack is written out when its file is read,
    so an edit of the name would change nothing."""
    parts = _one_unit(data, _parse(path, where))
    if parts[-1] == "unit":
        raise where.error("a unit is picked by name (unit = ...) when its file is read, so it "
                          "cannot be changed by a path: edit the unit's keys, take a side from "
                          "another file (defender_from = ...), or compare units in a roster")
    node = data
    for i, part in enumerate(parts[:-1]):
        node = _step(node, parts[:i], part, where, create=isinstance(parts[i + 1], str))
    last = parts[-1]
    if isinstance(node, list):
        node[_index(node, parts[:-1], last, where)] = value
    else:
        _check_key(node, parts[:-1], last, where)
        node[last] = value


def _one_unit(data: dict, parts: list) -> list:
    """A side written as a list of one unit is that unit (odds.scenario), so its data has
    no ``units``: ``attacker.units[0]`` or ``attacker.units[NAME]`` of such a side is the
    side itself."""
    if len(parts) < 3 or parts[0] not in ("attacker", "defender") or parts[1] != "units":
        return parts
    side = data.get(parts[0]) if isinstance(data, dict) else None
    if not isinstance(side, dict) or "units" in side:
        return parts
    if parts[2] == 0 or parts[2] == ("name", side.get("name")):
        return parts[:1] + parts[3:]
    return parts


def _parse(path: str, where: Where) -> list:
    parts, pos = [], 0
    for m in _PART.finditer(path):
        if m.start() != pos and path[pos:m.start()] != ".":
            raise where.error(f"malformed path {path!r}")
        key, index = m.groups()
        if not (key or index).strip():
            raise where.error(f"malformed path {path!r}: a part is blank")
        if key is not None:
            parts.append(key)
        else:
            parts.append(int(index) if index.isdigit() else ("name", index))
        pos = m.end()
    if not parts or pos != len(path):
        raise where.error(f"malformed path {path!r}; write e.g. attacker.models[0].count")
    return parts


def _step(node, before: list, part, where: Where, create: bool):
    """The entry ``part`` of ``node`` (reached by the parts ``before``)."""
    if isinstance(node, list):
        return node[_index(node, before, part, where)]
    _check_key(node, before, part, where)
    if part not in node:
        if not create:
            raise where.error(f"{_shown(before + [part])} does not exist, so it has no entries")
        node[part] = {}
    return node[part]


def _check_key(node, before: list, part, where: Where) -> None:
    """``node`` must be a table and ``part`` a key: ``[0]`` or ``[name]`` pick list entries."""
    if not isinstance(node, dict):
        raise where.error(f"{_shown(before)} is {node!r}, not a table or a list, so it has "
                          f"no {_shown([part])}")
    if not isinstance(part, str):
        raise where.error(f"{_shown(before) or 'the scenario'} is a table, not a list: "
                          f"{_shown([part])} picks a list entry; name a key instead"
                          + (f" (keys here: {', '.join(map(str, node))})" if node else ""))


def _index(node: list, before: list, part, where: Where) -> int:
    if isinstance(part, tuple):  # [name]: the list entry with that name
        for i, item in enumerate(node):
            if isinstance(item, dict) and item.get("name") == part[1]:
                return i
        names = [item.get("name") for item in node if isinstance(item, dict)]
        raise where.error(f"no entry named {part[1]!r}; names here: {names}")
    if isinstance(part, str):
        raise where.error(f"{_shown(before)} is a list: pick an entry with [0] or [name], "
                          f"not .{part}")
    if not 0 <= part < len(node):
        raise where.error(f"index {part!r} out of range: the list has {len(node)} "
                          f"entr{'y' if len(node) == 1 else 'ies'}")
    return part


def _shown(parts) -> str:
    """Parts written back as a path: ``attacker.models[Boy].count``."""
    out = ""
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        elif isinstance(p, tuple):
            out += f"[{p[1]}]"
        else:
            out += f".{p}" if out else p
    return out
