"""Who fights whom in a blackpowder melee of several units a side (R4-3, §5.3), and its checks.

The units are numbered attacker units first, then the defender's, in file order (one unit a
side: 0 the attacker, 1 the defender). A unit of the charging side charges its ``charges``
unit (else the enemy's first) on its ``facing`` (else the engagement's), unless it
``supports`` a unit of its own side; a unit of the charged side is in the melee when charged,
or supports. The units in contact make one melee (BP1: its units add up their results). A
side's fresh unit (``in_melee = false``) stands ``distance`` inches off: victorious cavalry of
the other side may sweep into it and charge it once more (§5.4).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from odds.core import charges
from odds.core import schema as s
from odds.rulesets.blackpowder import rules
from odds.rulesets.blackpowder.rules import ALL_ROUND, ARTILLERY, CAVALRY

FACES = ("front", "flank", "rear")
ROOM = {"front": 1, "flank": 2, "rear": 1}  # chargers a face takes (R4-3, [AMB])
ALL_ROUND_ROOM = 4  # a square or hedgehog: one charger a side
REACTIONS = ("stand", "closing fire")  # played with several units a side


@dataclass(frozen=True)
class Melee:
    """The units and their contacts (indexes as above)."""

    units: list            # each unit's options
    names: list[str]
    wheres: list[s.Where]
    side: list[int]        # 0 attacker, 1 defender
    target: list[int]      # the unit it charges, -1 if none
    facing: list[str]      # the face of its target it charges
    supports: list[int]    # the unit it supports, -1 if none
    support_from: list[str]  # "rear" or "flank"
    several: bool          # a side has several units (the record has unit columns)
    fresh: tuple[int, int]  # each side's fresh unit (in_melee = false), -1 if none
    sweepers: list[list[int]]  # for a fresh unit: the enemy cavalry that may sweep into it
    #                            and charge it (§5.4), first come first; [] for the others

    def chargers_of(self, t: int) -> list[int]:
        """The units charging t: on its front first, then its flanks, then its rear, in
        file order within each face (the order its dice go to them, §5.3 [ASM])."""
        return sorted((u for u in range(len(self.units)) if self.target[u] == t),
                      key=lambda u: FACES.index(self.facing[u]))

    def contacts(self, u: int) -> list[int]:
        """The enemies that may come in contact with u, the one its dice go to first: its
        target, or its chargers in :meth:`chargers_of` order; then the enemy's fresh unit
        it may sweep into. A fresh unit's: the cavalry that may sweep into it."""
        if self.sweepers[u]:
            return self.sweepers[u]
        first = [self.target[u]] if self.target[u] >= 0 else self.chargers_of(u)
        f = self.fresh[1 - self.side[u]]
        return first + [f] * (f >= 0 and u in self.sweepers[f])

    def in_contact(self, u: int) -> bool:
        """u is in contact with an enemy as the melee starts."""
        return self.target[u] >= 0 or bool(self.chargers_of(u))

    def supporters(self, u: int, where: str) -> list[int]:
        return [x for x in range(len(self.units))
                if self.supports[x] == u and self.support_from[x] == where]


def melee(scenario) -> Melee:
    """The melee of a checked scenario (see :func:`check` for what is refused)."""
    e = scenario.engagement
    charging = 0 if e["charger"] == "attacker" else 1
    units, names, wheres, side = [], [], [], []
    for k, key in enumerate(("attacker", "defender")):
        for unit, where in scenario.unit_wheres(key):
            units.append(unit.options)
            names.append(unit.name)
            wheres.append(where)
            side.append(k)
    n = len(units)
    out = [not o["in_melee"] for o in units]
    first = {k: next((u for u in range(n) if side[u] == k and not out[u]), side.index(k))
             for k in (0, 1)}
    target, supports = [], []
    for u, o in enumerate(units):
        own = [x for x in range(n) if side[x] == side[u]]
        enemy = [x for x in range(n) if side[x] != side[u]]
        supports.append(own[[names[x] for x in own].index(o["supports"])]
                        if o["supports"] in [names[x] for x in own] else -1)
        if side[u] != charging or o["supports"] is not None or out[u]:
            target.append(-1)
        elif o["charges"] is None:
            target.append(first[1 - charging])
        else:
            found = [x for x in enemy if names[x] == o["charges"]]
            target.append(found[0] if found else -1)
    fresh = tuple(next((u for u in range(n) if side[u] == k and out[u]), -1) for k in (0, 1))
    m = Melee(units, names, wheres, side, target,
              [o["facing"] or ("front" if out[u] else e["facing"]) for u, o in enumerate(units)],
              supports, [o["support_from"] or "rear" for o in units],
              any(scenario.side(k).units for k in ("attacker", "defender")), fresh, [[]] * n)
    return replace(m, sweepers=[_sweepers(m, e, f) if out[f] else [] for f in range(n)])


def _sweepers(m: Melee, e: dict, f: int, reach: bool = True) -> list[int]:
    """The cavalry of f's enemy in the melee that may sweep into the fresh unit f and charge
    it (§5.4): with engagement.sweeping_advance, able to charge it (R4-2) and, with
    ``reach``, within one move of its type (BP moves are not rolled: a unit within it is
    reached, one beyond it never is)."""
    move = rules.orders().move
    distance = m.units[f]["distance"]
    return [x for x in range(len(m.units)) if e["sweeping_advance"] and m.side[x] != m.side[f]
            and m.in_contact(x) and m.units[x]["type"] in CAVALRY
            and not (reach and (distance is None or move[m.units[x]["type"]] < distance))
            and rules.refused(m.units[x], m.units[f], m.facing[f]) is None]


def check(scenario) -> None:
    """Each unit's checks (rules.check), then the melee's: names known, every unit in it,
    room on each face (R4-3), supports that can support (§5.3), one melee, who may charge
    (R4-2) and react how (R4-4); several units a side take stand or closing fire and no
    order roll."""
    rules.check(scenario)
    e = scenario.engagement
    on = e["charger"]
    off = "defender" if on == "attacker" else "attacker"
    m = melee(scenario)
    n = len(m.units)
    for u, o in enumerate(m.units):
        at = m.wheres[u]
        mine = "attacker" if m.side[u] == 0 else "defender"
        own = [m.names[x] for x in range(n) if m.side[x] == m.side[u] and x != u]
        enemy = [m.names[x] for x in range(n) if m.side[x] != m.side[u]]
        if o["supports"] is not None:
            if o["supports"] not in own:
                raise (at / "supports").error(
                    f"names no other unit of the {mine}" + (
                        f": {', '.join(map(repr, own))}" if own else " (it has no other unit)"))
            if o["charges"] is not None:
                raise (at / "charges").error("a unit supports or charges, not both (§5.3)")
        elif o["support_from"] is not None:
            raise (at / "support_from").error("is read only with `supports` (§5.3)")
        if not o["in_melee"]:
            _check_fresh(m, u, e)
            continue
        if o["distance"] is not None:
            raise (at / "distance").error(
                "is for a fresh unit out of the melee: give it in_melee = false too (§5.4)")
        if mine != on:
            charges.check_charged(o, at, on)
        elif o["supports"] is None:
            charges.check_target(o, at, off, enemy)
        elif o["facing"] is not None:
            raise (at / "facing").error("is read only for a charging unit, not a support")
    for t in range(n):
        _check_faces(m, t)
    for x in range(n):
        if m.supports[x] >= 0:
            _check_support(m, x)
    for t in range(n):
        if not m.in_contact(t) and m.supports[t] < 0 and t not in m.fresh:
            raise charges.uncharged(m.names[t], m.wheres[t], on, "melee",
                                    ", give it `supports`, or leave it out")
    _check_one_melee(m)
    for u, t in enumerate(m.target):
        if t >= 0:
            rules.check_charger(m.units[u], m.units[t], m.facing[u], m.wheres[u])
            if m.several and rules.halts(m.units[u], m.units[t]):
                raise (m.wheres[u] / "charges").error(
                    f"cavalry halts short of the steady square {m.names[t]!r} (§5.4): with "
                    "several units a side give it no charge that cannot go in")
    if m.several:
        where = s.Where(scenario.source, "engagement")
        if e["reaction"] not in REACTIONS:
            raise (where / "reaction").error(
                f"{e['reaction']!r} is played with one unit a side; with several units a side "
                f"the charged units {' or '.join(REACTIONS)}")
        if e["staff_rating"] is not None:
            raise (where / "staff_rating").error(
                "the order roll (R4-1) is played with one unit a side; with several units "
                "leave it out (the charges go in)")
    for t in range(n):
        chargers = m.chargers_of(t) or m.sweepers[t]
        if chargers:  # its reaction is to the first unit charging it
            face = m.facing[t] if m.sweepers[t] else m.facing[chargers[0]]
            rules.check_reaction(m.units[t], m.units[chargers[0]], e, face,
                                 s.Where(scenario.source, "engagement.reaction"))
    rules.check_order(e, s.Where(scenario.source, "engagement"))


def _check_fresh(m: Melee, f: int, e: dict) -> None:
    """A fresh unit (in_melee = false, §5.4): one a side, at a distance, neither charging,
    charged nor supporting at the start; cavalry of the enemy's that may sweep into it, and
    a charge that goes in (no steady square) with R4-5's loss of special rules out of play."""
    at, name = m.wheres[f], m.names[f]
    o = m.units[f]
    if m.fresh[m.side[f]] != f:
        raise (at / "in_melee").error(
            f"{m.names[m.fresh[m.side[f]]]!r} is this side's fresh unit already: one a side "
            "(§5.4: a second charge, once)")
    if o["distance"] is None:
        raise (at / "distance").error(
            "is needed for a unit with in_melee = false: the inches from the melee to it")
    for key in ("charges", "supports"):
        if o[key] is not None:
            raise (at / key).error("a fresh unit (in_melee = false) is out of the melee at the "
                                   "start: it neither charges nor supports")
    if m.chargers_of(f):
        raise (m.wheres[m.chargers_of(f)[0]] / "charges").error(
            f"{name!r} is out of the melee at the start (in_melee = false): only victorious "
            "cavalry sweeping into it charges it (§5.4)")
    if not e["sweeping_advance"]:
        raise (at / "in_melee").error(
            "a fresh unit is charged only by a sweeping advance: set "
            "engagement.sweeping_advance = true (§5.4)")
    able = _sweepers(m, e, f, reach=False)
    if not able:
        raise (at / "in_melee").error(
            f"no cavalry unit of the enemy in the melee could sweep into {name!r} and charge "
            "it (§5.4: only cavalry sweeps; R4-2: a unit that may charge it)")
    if rules.halts(m.units[able[0]], o):
        raise (at / "formation").error(
            f"cavalry halts short of the steady square {name!r} (§5.4): a sweep cannot charge it")
    if o["type"] == "pikes" and not rules.is_disordered(o) and m.facing[f] == "front":
        raise (at / "facing").error(
            "cavalry sweeping into the front of pikes is not played (R4-5's loss of its "
            "special rules would hold in one melee only): give facing = \"flank\" or "
            "\"rear\"")


def _check_faces(m: Melee, t: int) -> None:
    """R4-3 [AMB]: units of one frontage, so a charger fills a face: one on the front, one on
    each flank, one on the rear; four on a square or hedgehog, which has no flanks."""
    chargers = m.chargers_of(t)
    all_round = m.units[t]["formation"] in ALL_ROUND
    for face in FACES:
        on_face = chargers if all_round else [u for u in chargers if m.facing[u] == face]
        room = ALL_ROUND_ROOM if all_round else ROOM[face]
        if len(on_face) > room:
            u = on_face[room]
            where = "facing" if m.units[u]["facing"] is not None or all_round else "charges"
            raise (m.wheres[u] / where).error(
                f"no room: {', '.join(repr(m.names[x]) for x in on_face[:room])} already "
                f"{'fills' if room == 1 else 'fill'} the {'sides' if all_round else face} "
                f"of {m.names[t]!r} (R4-3: a face takes {room} charger"
                f"{'s' if room > 1 else ''} of one frontage)")
        if all_round:
            return


def _check_support(m: Melee, x: int) -> None:
    """§5.3: the supported unit is in the melee and can be supported; the supporter is not in
    contact; one support behind, and at most two on the flanks."""
    u, at = m.supports[x], m.wheres[x] / "supports"
    o = m.units[u]
    why = ("artillery" if o["type"] in ARTILLERY else "a skirmish line" if o["formation"] ==
           "skirmish" else "a square" if o["formation"] == "square" else "in a building"
           if o["building"] else None)
    if why:
        raise at.error(f"{m.names[u]!r} is {why}: it cannot be supported (§5.3)")
    if m.supports[u] >= 0:
        raise at.error(f"{m.names[u]!r} supports a unit itself")
    if not m.in_contact(u):
        raise at.error(f"{m.names[u]!r} is not in the melee: a support backs a unit in contact "
                       "(§5.3)")
    if m.chargers_of(x):
        raise at.error(f"{m.names[x]!r} is charged: a unit in the melee cannot support")
    rear, flank = m.supporters(u, "rear"), m.supporters(u, "flank")
    if m.support_from[x] == "rear" and (o["rear_support"] or rear.index(x) > 0):
        other = "its `rear_support` key" if o["rear_support"] else repr(m.names[rear[0]])
        raise (m.wheres[x] / "support_from").error(
            f"{m.names[u]!r} has a support behind it already ({other}): one unit supports "
            "from the rear (§5.3)")
    if m.support_from[x] == "flank" and o["flank_supports"] + flank.index(x) + 1 > 2:
        raise (m.wheres[x] / "support_from").error(
            f"{m.names[u]!r} has two flank supports already: at most one on each flank "
            "(§5.3)")


def _check_one_melee(m: Melee) -> None:
    """The units in contact make one melee: separate melees are separate scenarios."""
    n = len(m.units)
    joined = list(range(n))
    inside = [u for u in range(n) if m.units[u]["in_melee"]]

    def root(u):
        while joined[u] != u:
            u = joined[u]
        return u

    for u in range(n):
        for v in (m.target[u], m.supports[u]):
            if v >= 0:
                joined[root(u)] = root(v)
    roots = {root(u) for u in inside}
    if len(roots) > 1:
        apart = next(u for u in inside if root(u) != root(inside[0]))
        raise (m.wheres[apart] / "name").error(
            f"{m.names[apart]!r} fights a melee of its own, apart from {m.names[inside[0]]!r}'s: "
            "play separate melees as separate scenarios (a scenario is one melee)")

