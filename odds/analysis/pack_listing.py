"""The units a ruleset's packs offer, each checked as a scenario side would be: what
``odds units`` lists and writes out, and ``odds validate`` checks in a pack file."""
from __future__ import annotations

import copy
from pathlib import Path

from odds.core import schema as s
from odds.core.data import read_toml
from odds.core.toml_text import dumps
from odds.packs import PackUnit, Packs, for_file, quoted, read_pack, shown_file
from odds.rulesets import get_ruleset
from odds.scenario import Scenario, _unit, check_alone


def listing(ruleset: str, files=(), source: str = "<arguments>") -> list[dict]:
    """Every unit the packs offer (``files``, then the bundled pack), each checked as a
    scenario side would be: name, models, points (None when the pack gives none), the book
    and the pack file. What ``odds units RULESET`` prints."""
    packs = for_file(ruleset, list(files) or None, source, s.Where(source, "--pack"))
    return [_row(unit, packs) for unit in packs.entries().values()]


def written_out(ruleset: str, name: str, files=(), source: str = "<arguments>",
                where: s.Where = s.Where("odds units", "NAME")) -> str:
    """The unit ``name`` of the packs as TOML text, the side table a scenario would hold
    (stat lines, equipment, rules), headed by comments giving its book, points and pack:
    what ``odds units RULESET NAME`` prints, to read or to paste into a scenario."""
    packs = for_file(ruleset, list(files) or None, source, s.Where(source, "--pack"))
    unit = packs.lookup(name, where)
    row = _row(unit, packs)
    facts = [f for f in (row["models"], row["points"] and f"{row['points']:g} points") if f]
    head = [f"# {unit.name}: {', '.join(facts)}" if facts else f"# {unit.name}",
            f"# source: {unit.source_book}",
            f"# from {row['pack']}; a scenario may pick it with unit = {quoted(unit.name)}"]
    return "\n".join(head) + "\n" + dumps({"attacker": unit.data})


def _row(unit: PackUnit, packs: Packs) -> dict:
    """One unit of a listing, checked as a side."""
    rules = get_ruleset(packs.ruleset)
    side = _unit(copy.deepcopy(unit.data), rules, unit.where, packs)
    check_alone(unit.data, packs.ruleset, unit.where)
    points = rules.points(Scenario(packs.ruleset, side, side), "attacker")
    models = ", ".join(f"{g.count} {g.name}" for g in side.models)
    return {"unit": unit.name, "models": models, "points": points,
            "source": unit.source_book, "pack": shown_file(unit.where.source)}


def check_pack(path: str) -> tuple[str, int]:
    """Check every entry of a pack file as a side (``odds validate``): its ruleset and how
    many units it has."""
    at = s.Where(str(path), "ruleset")
    ruleset = get_ruleset(s.text(read_toml(path).get("ruleset"), at), at).id
    file = str(Path(path).resolve())
    listing(ruleset, [file])
    return ruleset, len(read_pack(file, ruleset, s.Where(str(path), "")))
