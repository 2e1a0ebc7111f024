"""What an explorer offers to change in a scenario: its knobs, each a path with the values it
may take, read from the ruleset's schema (the checks' bounds and choices) and catalogue.

No widgets here (:mod:`odds.explorer` draws them): a :class:`Knob` says a path, its current
value and its kind: ``"whole"`` and ``"number"`` (a slider from ``lo`` to ``hi`` by ``step``),
``"typed"`` (a number typed in, checked by the scenario only), ``"yes/no"``, ``"choice"`` (one
of ``options``) and ``"names"`` (a list of catalogue names, repeats allowed, in order).
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

from odds.analysis.catalogues import sections
from odds.core import schema as s
from odds.errors import ScenarioError
from odds.overrides import apply, get_path
from odds.rulesets import get_ruleset
from odds.scenario import COUNT, SIDES, Scenario, from_dict



@dataclass(frozen=True)
class Knob:
    """One control: ``path`` in the path language of comparisons and sweeps, shown under
    ``heading`` as ``label``."""

    path: str
    heading: str
    label: str
    kind: str
    value: Any
    lo: float | None = None
    hi: float | None = None
    step: float = 1
    options: tuple = ()


def slider_top(value: int, hi: int | None) -> int | None:
    """Where a whole-number slider ends: 4x the current value and at least 40, within the
    schema's ``hi`` (counts may be up to 10,000: a slider that long is useless)."""
    if hi is None:
        return None
    return max(min(hi, max(4 * value, 40)), value)


def default_knobs(scenario: Scenario) -> list[Knob]:
    """For each side its keys (a single unit's profile values too) and, for each model
    group, its count, profile values and catalogue names (equipment, special rules, troop
    type); then the engagement and rules keys: wherever the schema's check says what it
    accepts. Keys left unset (optional, no default) are not offered."""
    ruleset = get_ruleset(scenario.ruleset)
    data = scenario.validated().to_dict()
    names = _catalogue_names(scenario)
    out = []
    for side in SIDES:
        units = data[side].get("units")
        for unit, place in ([(u, f"{side}.units[{u['name']}]") for u in units] if units
                            else [(data[side], side)]):
            out += _unit_knobs(ruleset, unit, place, f"{side}: {unit['name']}", names)
    out += _knobs(data.get("engagement", {}), ruleset.engagement, "engagement", "engagement")
    out += _knobs(data.get("rules", {}), ruleset.rules, "rules", "rules")
    return [knob for knob in out if _changeable(knob, data, scenario.source)]


def _changeable(knob: Knob, data: dict, source: str) -> bool:
    """Whether a checkbox or a choice can be set to another value that the scenario accepts
    (``engaged`` on a side of one unit cannot: it would only ever show an error)."""
    if knob.kind not in ("yes/no", "choice"):
        return True
    others = [not knob.value] if knob.kind == "yes/no" else \
        [o for o in knob.options if o != knob.value]
    for value in others:
        try:
            from_dict(apply(data, [(knob.path, value, s.ARGUMENTS / knob.path)]), source)
        except ScenarioError:
            continue
        return True
    return False


def _unit_knobs(ruleset, unit: dict, at: str, heading: str, names: dict) -> list[Knob]:
    """One unit's knobs (at its path ``at``): its keys, a single unit's profile values, and
    each model group's count, profile values and catalogue names."""
    out = []
    if ruleset.single_unit:
        out += _knobs(unit["profile"], ruleset.profile, f"{at}.profile", heading)
    out += _knobs(unit, ruleset.side_keys, at, heading, names.get("side"))
    for group in unit.get("models", []):
        place, title = f"{at}.models[{group['name']}]", f"{heading}, {group['name']}"
        out += _knobs(group, {"count": (COUNT, s.REQUIRED)}, place, title)
        out += _knobs(group["profile"], ruleset.profile, f"{place}.profile", title)
        out += _knobs(group, {}, place, title, names.get("group"))
    return out


def user_knob(path: str, spec, scenario: Scenario) -> Knob:
    """The knob a user asks for: a range (a whole-number slider with its step), a list (one
    of its values), a bool (a checkbox starting there), a ``(lo, hi)`` pair of numbers (a
    slider) or a single number (typed in, starting there). A range, list or pair starts at
    the scenario's value when it offers it, else at its first value."""
    where = s.ARGUMENTS / path
    current = get_path(scenario.validated().to_dict(), path, where)
    heading, label = "chosen", path
    if isinstance(spec, bool):
        return Knob(path, heading, label, "yes/no", spec)
    if isinstance(spec, range):
        if not spec:
            raise where.error(f"{spec!r} is empty: it offers no value")
        start = current if current in spec else spec[0]
        return Knob(path, heading, label, "whole", start, spec[0], spec[-1], abs(spec.step))
    if isinstance(spec, tuple) and len(spec) == 2 and all(map(_is_number, spec)):
        lo, hi = sorted(spec)
        whole = all(isinstance(v, numbers.Integral) for v in spec)
        start = current if _is_number(current) and lo <= current <= hi else lo
        return Knob(path, heading, label, "whole" if whole else "number", start, lo, hi,
                    1 if whole else (hi - lo) / 100)
    if isinstance(spec, (list, tuple)):
        if not spec:
            raise where.error("an empty list offers no value")
        return Knob(path, heading, label, "choice", current if current in spec else spec[0],
                    options=tuple(spec))
    if _is_number(spec):
        return Knob(path, heading, label, "typed", spec)
    raise TypeError(f"{path}: expected a range, a list of values, a bool, a (lo, hi) pair "
                    f"or a number, got {type(spec).__name__} {spec!r}")


def _knobs(values: dict, spec: dict, at: str, heading: str, names: dict | None = None
           ) -> list[Knob]:
    """The knobs of one table: its keys whose check is readable, set to a value; ``names``
    (key -> catalogue names) adds the keys that name catalogue entries."""
    out = []
    for key, value in values.items():
        path = f"{at}.{key}"
        if key in (names or {}):
            kind = "names" if isinstance(value, list) else "choice"
            out.append(Knob(path, heading, key, kind, value, options=names[key]))
        elif key in spec:
            knob = _knob(path, heading, key, spec[key][0], value)
            out += [knob] if knob else []
    return out


def _knob(path: str, heading: str, key: str, check, value) -> Knob | None:
    if check is s.boolean:
        return Knob(path, heading, key, "yes/no", value)
    if hasattr(check, "allowed"):
        return Knob(path, heading, key, "choice", value, options=check.allowed)
    if not hasattr(check, "lo") or check.lo is None or check.hi is None:
        return None
    if isinstance(value, bool) or not _is_number(value):
        return None
    if isinstance(value, numbers.Integral):
        return Knob(path, heading, key, "whole", value, check.lo, slider_top(value, check.hi))
    return Knob(path, heading, key, "number", value, check.lo, check.hi,
                (check.hi - check.lo) / 100)


def _catalogue_names(scenario: Scenario) -> dict[str, dict[str, tuple]]:
    """``{"group"|"side": {key: names}}``: the keys that name catalogue entries (a model
    group's equipment, a side's rules...) with the bundled names and the scenario's own."""
    out: dict[str, dict[str, tuple]] = {}
    for section in sections(scenario.ruleset):
        own = tuple(getattr(scenario, section.own)) if section.own else ()
        out.setdefault(section.owner, {})[section.key] = \
            tuple(dict.fromkeys((*section.entries, *own)))
    return out


def _is_number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)
