"""Writing TOML-shaped data back as TOML text in tests (the standard library only reads it).

Every top-level key becomes one ``key = value`` line; tables are written inline."""
from __future__ import annotations

import json
import math
import re

_BARE = re.compile(r"[A-Za-z0-9_-]+")


def dumps(data: dict) -> str:
    return "".join(f"{_key(k)} = {_value(v)}\n" for k, v in data.items())


def _key(key: str) -> str:
    return key if _BARE.fullmatch(key) else json.dumps(key)


def _value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return ("nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
                if math.isinf(value) else repr(value))
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a TOML basic string
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"no TOML for {value!r}")
