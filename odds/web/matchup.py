"""What the page plays, without widgets: the bundled examples and pack units of a ruleset,
the scenario of two picked units, the changes a loadout makes, the link that restores a
matchup, and the bound on fights a request may play."""
from __future__ import annotations

import base64
import binascii
import re
import tomllib
import zlib
from pathlib import Path

from odds.analysis.comparison_file import cell
from odds.core import schema as s
from odds.core.data import data_path, only_files, read_toml
from odds.core.toml_text import dumps
from odds.errors import ScenarioError
from odds.scenario import Scenario, from_dict

TRIALS = (10_000, 50_000, 200_000, 1_000_000)  # the page's choices of fights
MOST_FIGHTS = 4_000_000  # fights one request may play (all its cells), so no run starves others
MOST_LINK = 64 * 1024    # characters of a link's matchup
PAGE = "matchup"         # where a matchup built on the page was written (in its messages)
AS_PICKED = "as picked"  # the comparison's baseline: the matchup before the controls


def examples(ruleset: str) -> dict[str, Path]:
    """The bundled scenarios of ``ruleset`` by title."""
    out = {}
    for path in sorted(data_path("scenarios").glob(f"{ruleset}_*.toml")):
        out[read_toml(path).get("name", path.stem)] = path
    return out


def rosters(ruleset: str) -> dict[str, Path]:
    """The bundled rosters and army lists of ``ruleset`` by title."""
    from odds.lists import bundled_lists

    out = {read_toml(p).get("name", p.stem): p
           for p in sorted(data_path("rosters").glob(f"{ruleset}_*.toml"))}
    out.update({f"{title} (army list)": Path(path) for path, rs, title in bundled_lists()
                if rs == ruleset})
    return out


def picked(ruleset: str, attacker, defender, pack: Path | None = None,
           base: Scenario | None = None) -> Scenario:
    """Two units, the attacker charging (the engagement and settings of ``base`` when it is
    of the same ruleset). A unit is a pack unit's name (``pack``, an uploaded pack, searched
    first) or ``(roster, index)``: a unit of an uploaded roster or army list, with the
    weapons and special rules its list defines."""
    data = {"ruleset": ruleset, "attacker": {}, "defender": {}, "weapons": {}, "rules": {}}
    names, sources = [], {}
    for side, unit in (("attacker", attacker), ("defender", defender)):
        if isinstance(unit, str):
            data[side] = {"unit": unit}
            names.append(unit)
            continue
        roster, index = unit
        data[side] = roster.units[index]
        names.append(roster.unit_names[index])
        data["weapons"].update(roster.weapons)
        data["rules"].update(roster.rules)
        sources.update(roster.weapon_sources)
    data["name"] = f"{names[0]} vs {names[1]}"
    if base is not None and base.ruleset == ruleset:
        data.update({key: value for key, value in base.to_dict().items()
                     if key in ("engagement", "simulation")})
        data["rules"] = {**base.to_dict().get("rules", {}), **data["rules"]}
    source = PAGE if pack is None else str(pack.parent / PAGE)
    if pack is not None:
        data["packs"] = [pack.name]
    return from_dict(data, source, sources)


def changed(base: Scenario, values: dict) -> Scenario:
    """The base with the controls' values (path -> value) set; a refused value is a
    ScenarioError naming its path."""
    return cell(base, values, {}, s.ARGUMENTS)


def loadout(base_values: dict, values: dict) -> dict:
    """A loadout's changes: the controls' values that differ from the matchup's own."""
    return {path: v for path, v in values.items() if base_values.get(path) != v}


def toml(scenario: Scenario) -> str:
    """The scenario as a TOML file that ``odds simulate`` replays."""
    return dumps(scenario.to_dict())


def link(scenario: Scenario) -> str:
    """The matchup as a URL-safe text (the scenario's TOML, compressed)."""
    packed = zlib.compress(toml(scenario).encode("utf-8"), 9)
    return base64.urlsafe_b64encode(packed).decode("ascii").rstrip("=")


def from_link(text: str) -> Scenario:
    """The matchup a :func:`link` holds; it names no file (a link is untrusted)."""
    where = s.Where("<link>", "")
    if len(text) > MOST_LINK or not re.fullmatch(r"[A-Za-z0-9_-]+", text):
        raise where.error("is not a link odds made (the page's address was cut or changed)")
    try:
        raw = zlib.decompressobj().decompress(
            base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)), 16 * MOST_LINK)
        data = tomllib.loads(raw.decode("utf-8"))
    except (binascii.Error, zlib.error, UnicodeDecodeError, tomllib.TOMLDecodeError):
        raise where.error("is not a link odds made (the page's address was cut or changed)") \
            from None
    with only_files(()):
        return from_dict(data, "<link>")


def trials_within(wanted: int, cells: int) -> int:
    """Fights a cell when a request of ``cells`` cells asks for ``wanted`` each: at most
    :data:`MOST_FIGHTS` in all."""
    return max(1, min(wanted, MOST_FIGHTS // max(cells, 1)))


def indexed(path: str, data: dict) -> str:
    """A control's path with unit and model names as indexes (``attacker.models[Boy].count``
    -> ``attacker.models[0].count``), as the scenario's errors name fields."""
    out, node = [], data
    for part in path.split("."):
        match = re.fullmatch(r"(\w+)\[(.+)\]", part)
        if match and isinstance(node, dict):
            key, name = match.groups()
            entries = node.get(key, [])
            at = next((i for i, e in enumerate(entries) if e.get("name") == name), name)
            out.append(f"{key}[{at}]")
            node = entries[at] if isinstance(at, int) else {}
        else:
            out.append(part)
            node = node.get(part, {}) if isinstance(node, dict) else {}
    return ".".join(out)


def blamed(error: ScenarioError, paths: dict[str, str]) -> str | None:
    """Which control (of ``paths``: control path -> indexed path) an error is about: the one
    whose field it names, else the first of the model group or unit it names."""
    field = error.field.removeprefix("set.").strip('"')
    for path, at in paths.items():
        if field in (path, at):
            return path
    best, length = None, 0
    for path, at in paths.items():
        common = _common(field, at)
        if common > length:
            best, length = path, common
    return best


def _common(a: str, b: str) -> int:
    """The dotted parts two paths share from the start, past the side (0 for different
    sides or groups)."""
    n = 0
    for x, y in zip(a.split("."), b.split(".")):
        if x != y:
            break
        n += 1
    return n if n >= 2 else 0
