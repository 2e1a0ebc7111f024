"""d10skirmish gangs: several fighters a side, each a unit of one model (``[[attacker.units]]``).
Who they are, in the order the rule text (gang.py) numbers them, and the checks of a gang's
keys (R3-1, R3-2, R3-4, R3-8, R3-9)."""
from __future__ import annotations

from dataclasses import dataclass

from odds.core import charges
from odds.core import schema as s
from odds.rulesets.d10skirmish.rules import (CHARGE_AP, SIDES, Fighter, _fighter, check_fighters,
                                             check_pair, weapons)

MOST = 8  # fighters a side in a gang (a fighter's contacts are a bit for each enemy)


@dataclass(frozen=True)
class Member:
    """One fighter of a gang: its side (0 attacker, 1 defender), its unit's name and keys,
    its model group, and where it was written."""

    side: int
    name: str
    fighter: Fighter
    options: dict
    group: object
    where: s.Where

    @property
    def fresh(self) -> bool:
        """Out of the fight at the start (``engaged = false``)."""
        return not self.options["engaged"]


def members(scenario) -> list[Member]:
    """Every fighter, the attacker's first, each side in file order."""
    table = weapons(scenario)
    return [Member(side, unit.name, _fighter(unit.models[0], table), unit.options,
                   unit.models[0], where)
            for side, key in enumerate(SIDES) for unit, where in scenario.unit_wheres(key)]


def is_gang(scenario) -> bool:
    """Whether the fight plays by gang.py: a side of several fighters, or a fighter with a
    flight threshold (the schedule of fight.py knows no such choice)."""
    return any(scenario.side(k).units for k in SIDES) or any(
        m.options["flee_below"] for m in members(scenario))


def check(scenario) -> None:
    """The scenario's cross-field checks: each fighter (rules.check_fighters), then one
    fighter a side (rules.check_pair) or a gang (:func:`check_gang`); flight thresholds."""
    check_fighters(scenario)
    gang = members(scenario)
    if any(scenario.side(k).units for k in SIDES):
        check_gang(scenario, gang)
    else:
        check_pair(scenario)
    for m in gang:
        _check_threshold(m)


def check_gang(scenario, gang: list[Member]) -> None:
    """A gang's keys (its ``members``): who charges whom, who starts out of the fight,
    distances and moves, the AP an opening needs."""
    e = scenario.engagement
    on = e["charger"]
    c = SIDES.index(on)
    names = [[m.name for m in gang if m.side == k] for k in (0, 1)]
    for k, key in enumerate(SIDES):
        if len(names[k]) > MOST:
            raise (s.Where(scenario.source, key) / "units" / MOST).error(
                f"a gang has at most {MOST} fighters a side, got {len(names[k])}")
    for m in gang:
        if m.side != c:
            charges.check_charged(m.options, m.where, on, ("charges",))
        else:
            if m.options["charges"] is None and not m.fresh:
                raise (m.where / "charges").error(
                    f"names the enemy fighter it charges (a fighter of the {on} in the fight "
                    "at the start charges one; `engaged = false` starts out of it)")
            charges.check_target(m.options, m.where, SIDES[1 - c], names[1 - c])
        if m.fresh:
            _check_fresh(m)
        elif m.side != c:
            for key in ("distance", "line_of_sight"):
                if m.options[key] is not None:
                    raise (m.where / key).error(
                        "is for a charger or a fighter out of the fight; this fighter of the "
                        "charged side waits to be charged (R3-1)")
    by_name = {(m.side, m.name): m for m in gang}
    chargers = [m for m in gang if m.side == c and not m.fresh]
    if not chargers:
        raise (next(m for m in gang if m.side == c).where / "charges").error(
            f"no fighter of the {on} charges: give one `charges` (R3-2)")
    for m in (m for m in gang if m.side == c and m.options["charges"] is not None):
        target = by_name[(1 - c, m.options["charges"])]
        if target.fresh and not m.fresh:
            raise (m.where / "charges").error(
                f"{target.name!r} is out of the fight at the start (engaged = false): charge a "
                "fighter in it")
        _check_opening(scenario, m, target)
    _check_moves(scenario, gang)


def _check_threshold(m: Member) -> None:
    if m.options["flee_below"] >= m.fighter.wounds:
        raise (m.where / "flee_below").error(
            f"must be below its W ({m.fighter.wounds}), got {m.options['flee_below']}: it "
            "would flee from its first exchange (R3-8)")


def _check_fresh(m: Member) -> None:
    """A fighter out of the fight at the start needs its inches from the melee."""
    if m.options["distance"] is None:
        raise (m.where / "distance").error(
            "is needed with engaged = false: its inches from the melee (R3-1)")


def _check_opening(scenario, m: Member, target: Member) -> None:
    """The charger's AP for its opening (R3-2, R3-9), a push's bases and sight."""
    e = scenario.engagement
    push = e["opening"] == "push"
    cost = e["push_ap"] if push else CHARGE_AP
    if m.fighter.ap < cost:
        what = "push (engagement.push_ap)" if push else "charge (R3-2)"
        raise (m.where / "models" / 0 / "profile" / "AP").error(
            f"the charger needs at least {cost} AP to {what}, got {m.fighter.ap}")
    if push and target.group.options["base"] > m.group.options["base"]:
        raise (m.where / "charges").error(
            f"a push needs the target's base ({target.group.options['base']} mm) no larger "
            f"than the pusher's ({m.group.options['base']} mm) (R3-9)")
    if push and m.options["line_of_sight"] is False:
        raise (m.where / "line_of_sight").error(
            "a push needs the charger to see its target (R3-1, R3-9)")


def _check_moves(scenario, gang: list[Member]) -> None:
    """R3-1: a fighter given a distance needs its move M and AP to move; line of sight is
    read with a distance; a fight that starts apart has no ``charged_ap_left``."""
    where = s.Where(scenario.source, "engagement")
    e = scenario.engagement
    apart = [m for m in gang if m.options["distance"] is not None]
    for m in gang:
        if m.options["line_of_sight"] is not None and m.options["distance"] is None:
            raise (m.where / "line_of_sight").error(
                "is read only with the fighter's distance (R3-1)")
    for m in apart:
        if m.group.profile["M"] is None:
            raise (m.where / "models" / 0 / "profile" / "M").error(
                "is needed with a distance: the fighter's move in inches (R3-1)")
        if (e["move_ap"] or 1) > m.fighter.ap:
            raise (where / "move_ap").error(
                f"must be at most {m.name!r}'s AP ({m.fighter.ap}), got {e['move_ap']}: it "
                "could never move (R3-1)")
    if not apart and e["move_ap"] is not None:
        raise (where / "move_ap").error("is read only with a fighter's distance (R3-1)")
    if e["charged_ap_left"] is not None:
        if apart:
            raise (where / "charged_ap_left").error(
                "says the charged side already activated in turn 1; with a distance the fight "
                "starts apart (R3-1)")
        charged = SIDES.index(e["charger"]) ^ 1
        for m in gang:
            if m.side == charged and e["charged_ap_left"] > m.fighter.ap:
                raise (where / "charged_ap_left").error(
                    f"must be at most {m.name!r}'s AP ({m.fighter.ap}), got "
                    f"{e['charged_ap_left']}")
