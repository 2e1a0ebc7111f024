"""The checks of who charges whom that every ruleset of several units a side shares
(``charges``, ``facing``): whfb8's combined charges (R2-1) and blackpowder's brigade melee
(R4-3) call them, each with what it says of its own (supports, fresh units)."""
from __future__ import annotations

from odds.core import schema as s

CHARGER_KEYS = ("charges", "facing")


def check_target(options: dict, where: s.Where, off: str, enemy: list[str]) -> None:
    """A unit of the charging side (its ``options``): its ``charges`` names a unit of the
    ``off`` side (its units' names ``enemy``)."""
    target = options["charges"]
    if target is not None and target not in enemy:
        raise (where / "charges").error(
            f"names no unit of the {off}: {', '.join(map(repr, enemy))}")


def check_charged(options: dict, where: s.Where, on: str,
                  keys: tuple[str, ...] = CHARGER_KEYS) -> None:
    """A unit of the charged side (its ``options``) gives none of the charger's ``keys``."""
    for key in keys:
        if options[key] is not None:
            raise (where / key).error(
                f"is for a unit of the charging side ({on}); this unit is charged")


def uncharged(name: str, where: s.Where, on: str, fight: str, other: str = ""):
    """The error for the unit ``name`` of the charged side that no unit charges: not in the
    ``fight`` (``other``: the ruleset's other ways in, after the first)."""
    return (where / "name").error(
        f"{name!r} is not in the {fight}: no unit of the {on} charges it (give one "
        f"`charges = {name!r}`{other})")
