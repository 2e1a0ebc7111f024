"""Editing TOML-shaped scenario data in tests: one key set (or removed) on a copy."""
from __future__ import annotations

import copy


def edited(data: dict, path: list, value) -> dict:
    """A copy of ``data`` with the entry at ``path`` (keys and list indexes) set to ``value``,
    or removed when ``value`` is ``KeyError``; missing tables on the way are created."""
    data = copy.deepcopy(data)
    node = data
    for key in path[:-1]:
        node = node.setdefault(key, {}) if isinstance(key, str) else node[key]
    if value is KeyError:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return data
