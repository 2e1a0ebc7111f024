"""An exported roster's selections as plain Python: what the XML says, nothing read into it.

A roster holds forces; a force holds selections (``type`` unit, model or upgrade, each
``number`` times); a selection holds profiles (a ``typeName`` and characteristics), rules,
categories, costs and selections of its own.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from xml.etree.ElementTree import Element

from odds.errors import ScenarioError


MAX_DEPTH = 60   # selections inside selections (a real list nests 3-6 deep)


@dataclass
class Profile:
    name: str
    kind: str                     # the profile's typeName: "Unit", "Weapon", "Model" ...
    values: dict[str, str]        # characteristic name -> text as written


@dataclass
class Selection:
    name: str
    kind: str                     # "unit", "model" or "upgrade"
    number: int
    path: str                     # where it is in the list: "Force > Unit > Model"
    profiles: list[Profile] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    costs: dict[str, float] = field(default_factory=dict)
    children: list["Selection"] = field(default_factory=list)
    custom_name: str = ""

    def walk(self):
        """This selection and every selection inside it, depth first."""
        yield self
        for child in self.children:
            yield from child.walk()

    def own(self, apart=lambda sel: sel.kind == "unit"):
        """This selection and what is inside it, but not the units inside it (``apart``: a
        whfb8 unit's detachments are units of their own)."""
        yield self
        for child in self.children:
            if not apart(child):
                yield from child.own(apart)

    def units(self, apart=lambda sel: sel.kind == "unit"):
        """This selection and every unit inside it (``apart``: its detachments), each once:
        one odds unit each."""
        yield self
        for child in self.children:
            yield from child._inner_units(apart)

    def _inner_units(self, apart):
        if apart(self):
            yield from self.units(apart)
        else:
            for child in self.children:
                yield from child._inner_units(apart)


@dataclass
class ArmyList:
    name: str
    game: str                     # gameSystemName
    points: dict[str, float]      # the roster's total costs, by cost name
    forces: list[Selection]       # one pseudo-selection per force (kind "force")


def army_list(root: Element, source: str) -> ArmyList:
    """The roster's forces and selections (the root is a ``<roster>`` element)."""
    forces = _numbered([_selection(f, "force", "", source)
                        for f in _children(root, "forces", "force")])
    return ArmyList(_words(root.get("name")), _words(root.get("gameSystemName")),
                    _costs(root, source), forces)


def _words(text: str | None) -> str:
    """A name as one line: spaces, tabs and line breaks (``&#10;``) made single spaces."""
    return " ".join((text or "").split())


def _children(element: Element, holder: str, tag: str) -> list[Element]:
    return [c for h in element.findall(holder) for c in h.findall(tag)]


def _selection(element: Element, kind: str, at: str, source: str, depth: int = 0) -> Selection:
    name = _words(element.get("name"))
    if depth > MAX_DEPTH:
        raise ScenarioError(f"has selections nested more than {MAX_DEPTH} deep (at {at!r}): "
                            "not an army list", source)
    path = f"{at} > {name}" if at else name
    number = element.get("number", "1")
    try:
        count = float(number)
        if count != int(count):
            raise ValueError
        count = int(count)
    except (ValueError, OverflowError):
        raise ScenarioError(f"selection {path!r} has number={number!r}, not a whole number",
                            source) from None
    if count < 0 or count > 100_000:
        raise ScenarioError(f"selection {path!r} has number={count}: not a count of models",
                            source)
    chosen = Selection(name, kind if kind == "force" else element.get("type", "upgrade"),
                       count, path, custom_name=_words(element.get("customName")))
    chosen.profiles = [Profile(_words(p.get("name")), _words(p.get("typeName")),
                               {_words(c.get("name")): (c.text or "").strip()
                                for c in _children(p, "characteristics", "characteristic")})
                       for p in _children(element, "profiles", "profile")]
    chosen.rules = [_words(r.get("name")) for r in _children(element, "rules", "rule")]
    chosen.categories = [_words(c.get("name"))
                         for c in _children(element, "categories", "category")]
    chosen.costs = _costs(element, source)
    chosen.children = _numbered([_selection(s, "", path, source, depth + 1)
                                 for s in _children(element, "selections", "selection")])
    return chosen


def _numbered(siblings: list[Selection]) -> list[Selection]:
    """Siblings of one name told apart in their paths: "Assault Squad", "Assault Squad #2"."""
    seen: dict[str, int] = {}
    for sel in siblings:
        seen[sel.name] = seen.get(sel.name, 0) + 1
        if seen[sel.name] > 1:
            old, renamed = sel.path, f"{sel.path} #{seen[sel.name]}"
            for inner in sel.walk():
                inner.path = renamed + inner.path[len(old):]
    return siblings


def _costs(element: Element, source: str) -> dict[str, float]:
    costs = {}
    for cost in _children(element, "costs", "cost"):
        value = cost.get("value", "0")
        try:
            costs[(cost.get("name") or "").strip()] = float(value)
            if not math.isfinite(costs[(cost.get("name") or "").strip()]):
                raise ValueError
        except ValueError:
            raise ScenarioError(f"a cost {cost.get('name')!r} of {value!r} is not a number",
                                source) from None
    return costs
