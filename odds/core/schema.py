"""Small declarative checks for scenario fields, so every ruleset reports mistakes alike.

A check is a callable ``check(value, where)`` that returns the cleaned value or raises
:class:`~odds.errors.ScenarioError` naming the field (``where``) and what is allowed. The
checks made by :func:`integer` and :func:`number` carry their bounds (``check.lo``,
``check.hi``, None when open) and :func:`choice`'s its ``allowed`` names, so a tool such as
the explorer can offer only what the check accepts.
"""
from __future__ import annotations

import difflib
import math
import numbers
from dataclasses import dataclass
from typing import Any, Callable

from odds.errors import ScenarioError

Check = Callable[[Any, "Where"], Any]


@dataclass(frozen=True)
class Where:
    """A field's position: the file and the dotted path inside it."""

    source: str
    path: str

    def __truediv__(self, key: str | int) -> "Where":
        if isinstance(key, int):
            return Where(self.source, f"{self.path}[{key}]")
        return Where(self.source, f"{self.path}.{key}" if self.path else key)

    def error(self, message: str) -> ScenarioError:
        return ScenarioError(message, self.source, self.path)


ARGUMENTS = Where("<arguments>", "")  # a bad function argument is blamed on the argument


def integer(lo: int | None = None, hi: int | None = None) -> Check:
    def check(value, where: Where) -> int:
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise where.error(f"must be a whole number, got {value!r}")
        value = int(value)  # e.g. a numpy integer from a sweep
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise where.error(f"must be {_range(lo, hi)}, got {value}")
        return value

    return _bounded(check, lo, hi)


def number(lo: float | None = None, hi: float | None = None) -> Check:
    """A finite number (nan and inf are refused: they would pass every comparison)."""
    def check(value, where: Where) -> float:
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise where.error(f"must be a number, got {value!r}")
        try:
            finite = math.isfinite(value)
        except OverflowError:  # an int too big for a float
            finite = False
        if not finite:
            raise where.error(f"must be a finite number, got {value}")
        value = float(value)
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise where.error(f"must be {_range(lo, hi)}, got {value}")
        return value

    return _bounded(check, lo, hi)


def _bounded(check: Check, lo, hi) -> Check:
    check.lo, check.hi = lo, hi
    return check


def boolean(value, where: Where) -> bool:
    if not isinstance(value, bool):
        raise where.error(f"must be true or false, got {value!r}")
    return value


def text(value, where: Where) -> str:
    if not isinstance(value, str) or not value.strip():
        raise where.error(f"must be a non-empty string, got {value!r}")
    return value


def choice(*allowed: str) -> Check:
    def check(value, where: Where) -> str:
        if value not in allowed:
            raise where.error(f"must be one of {', '.join(map(repr, allowed))}, got {value!r}")
        return value

    check.allowed = allowed
    return check


def text_list(value, where: Where) -> list[str]:
    if not isinstance(value, (list, tuple)):
        raise where.error(f"must be a list of names, got {value!r}")
    return [text(v, where / i) for i, v in enumerate(value)]


def distinct_names(value, where: Where) -> list[str]:
    """A list of names, each listed once (a repeat would apply its effect twice)."""
    names = text_list(value, where)
    once_each(names, where)
    return names


def once_each(names: list[str], where: Where, twice_ok=frozenset()) -> None:
    """Refuse a name listed again; a name in ``twice_ok`` may be listed twice (e.g. one
    weapon in each hand), never three times."""
    first: dict[str, int] = {}
    times: dict[str, int] = {}
    for j, name in enumerate(names):
        first.setdefault(name, j)
        times[name] = times.get(name, 0) + 1
        if times[name] > (2 if name in twice_ok else 1):
            told = "twice" if times[name] == 2 else f"{times[name]} times"
            most = "at most twice" if name in twice_ok else "list it once"
            raise (where / j).error(f"{name!r} is listed {told} (first at [{first[name]}]); "
                                    f"{most}")


def table(value, where: Where) -> dict:
    if not isinstance(value, dict):
        raise where.error(f"must be a table, got {value!r}")
    for key in value:
        if not isinstance(key, str):
            raise where.error(f"has a key {key!r} that is not a string; keys are names")
    return value


def fields(data: dict, spec: dict[str, tuple[Check, Any]], where: Where) -> dict:
    """Check the keys of one table against ``spec`` (key -> (check, default)).

    A default of :data:`REQUIRED` makes the key mandatory; unknown keys are errors.
    """
    table(data, where)
    unknown_keys(data, spec, where)
    out = {}
    for key, (check, default) in spec.items():
        if key in data:
            out[key] = check(data[key], where / key)
        elif default is REQUIRED:
            raise (where / key).error("is required")
        else:
            out[key] = default
    return out


def unknown_keys(data: dict, allowed, where: Where) -> None:
    """An error naming the first key of ``data`` not in ``allowed``, with the closest
    allowed key (a misspelt ``engagment`` gets "did you mean 'engagement'?")."""
    unknown = sorted(set(data) - set(allowed))
    if unknown:
        hint = did_you_mean(unknown[0], allowed, n=1)
        raise (where / unknown[0]).error(f"unknown key{hint}; allowed here: "
                                         f"{', '.join(sorted(allowed))}")


def changed_at(at: Where, path: str, error: ScenarioError) -> ScenarioError:
    """``error`` of a scenario that the change of ``path`` made, blamed on where the change
    was written (``at``); the field the check named follows, unless it is ``path`` itself
    (so a message never names one field twice)."""
    return at.error(error.message if error.field in ("", path) else
                    f"{error.field}: {error.message}")


def did_you_mean(name: str, known, n: int = 3, cutoff: float = 0.6) -> str:
    """``"; did you mean 'a', 'b'?"`` for the names of ``known`` closest to ``name``, or
    ``""`` when none is close."""
    near = difflib.get_close_matches(name, list(known), n=n, cutoff=cutoff)
    return f"; did you mean {', '.join(map(repr, near))}?" if near else ""


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED = _Required()


def _range(lo, hi) -> str:
    if lo is not None and hi is not None:
        return f"from {lo} to {hi}"
    return f"at least {lo}" if lo is not None else f"at most {hi}"
