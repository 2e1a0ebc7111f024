"""Small edits of TOML-shaped scenario data by path: ``attacker.models[1].equipment``.

Paths are dotted keys with ``[i]`` list indexes; ``models[Veteran Sergeant]`` picks the model
group of that name. Used by comparisons (variants, opponents) and sweeps.
"""
from __future__ import annotations

import copy
import re

from odds.core.schema import Where

_PART = re.compile(r"([^.\[\]]+)|\[([^\]]+)\]")


def apply(data: dict, changes: dict, where: Where) -> dict:
    """A copy of ``data`` with each ``path = value`` of ``changes`` set."""
    data = copy.deepcopy(data)
    for path, value in changes.items():
        set_path(data, path, copy.deepcopy(value), where / path)
    return data


def set_path(data: dict, path: str, value, where: Where) -> None:
    """Set one value by path; a path that does not lead anywhere is a ScenarioError."""
    parts = _parse(path, where)
    node = data
    for i, part in enumerate(parts[:-1]):
        node = _step(node, part, where, create=not isinstance(parts[i + 1], int))
    last = parts[-1]
    if isinstance(node, list):
        node[_index(node, last, where)] = value
    elif isinstance(node, dict):
        node[last] = value
    else:
        raise where.error(f"{_shown(parts[:-1])} is not a table or a list")


def _parse(path: str, where: Where) -> list:
    parts, pos = [], 0
    for m in _PART.finditer(path):
        if m.start() != pos and path[pos:m.start()] != ".":
            raise where.error(f"malformed path {path!r}")
        key, index = m.groups()
        if key is not None:
            parts.append(key)
        else:
            parts.append(int(index) if index.isdigit() else ("name", index))
        pos = m.end()
    if not parts or pos != len(path):
        raise where.error(f"malformed path {path!r}; write e.g. attacker.models[0].count")
    return parts


def _step(node, part, where: Where, create: bool):
    if isinstance(node, list):
        return node[_index(node, part, where)]
    if not isinstance(node, dict):
        raise where.error(f"cannot go into {part!r}: not a table")
    if part not in node:
        if not create:
            raise where.error(f"no {part!r} here")
        node[part] = {}
    return node[part]


def _index(node: list, part, where: Where) -> int:
    if isinstance(part, tuple):  # [name]: the list entry with that name
        for i, item in enumerate(node):
            if isinstance(item, dict) and item.get("name") == part[1]:
                return i
        names = [item.get("name") for item in node if isinstance(item, dict)]
        raise where.error(f"no entry named {part[1]!r}; names here: {names}")
    if not isinstance(part, int) or not 0 <= part < len(node):
        raise where.error(f"index {part!r} out of range: the list has {len(node)} entries")
    return part


def _shown(parts) -> str:
    return ".".join(str(p) for p in parts)
