"""Writing TOML-shaped data back as TOML text (the standard library only reads it):
tables and arrays of tables as headers (inline tables inside array entries), strings, ints,
floats including nan and inf, bools and arrays."""
from __future__ import annotations

import math
import re

_BARE = re.compile(r"[A-Za-z0-9_-]+")
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f",
            "\r": "\\r"}


def dumps(data: dict) -> str:
    """TOML text for ``data``: tables and arrays of tables as headers (with inline tables
    inside array entries), strings, ints, floats including nan and inf, bools, arrays."""
    lines: list[str] = []
    _table(lines, (), data)
    return "\n".join(lines) + "\n"


def _table(lines: list[str], prefix: tuple, table: dict, inline_tables: bool = False) -> None:
    subtables, arrays = [], []
    for key, value in table.items():
        if not inline_tables and isinstance(value, dict):
            subtables.append((key, value))
        elif not inline_tables and _is_table_array(value):
            arrays.append((key, value))
        else:
            lines.append(f"{_key(key)} = {_value(value)}")
    for key, value in subtables:
        lines += ["", f"[{_dotted(prefix + (key,))}]"]
        _table(lines, prefix + (key,), value)
    for key, entries in arrays:
        for entry in entries:
            lines += ["", f"[[{_dotted(prefix + (key,))}]]"]
            _table(lines, prefix + (key,), entry, inline_tables=True)


def _is_table_array(value) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def _dotted(keys: tuple) -> str:
    return ".".join(_key(k) for k in keys)


def _key(key: str) -> str:
    return key if _BARE.fullmatch(key) else _string(key)


def _string(text: str) -> str:
    out = []
    for c in text:
        if c in _ESCAPES:
            out.append(_ESCAPES[c])
        elif ord(c) < 0x20 or c == "\x7f":
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def _value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"no TOML for {value!r}")
