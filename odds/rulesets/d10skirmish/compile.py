"""Turn a checked d10skirmish scenario into the flat numeric plan the kernel reads."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from odds.core.dice import laws
from odds.core.exact import TooManyStates
from odds.rulesets.d10skirmish import gang
from odds.rulesets.d10skirmish.gang import Gang
from odds.rulesets.d10skirmish.fight import (LAW_ROLLS, armour_laws, d10_law, exchange_law,
                                             push_laws, with_laws, wound_law)
from odds.rulesets.d10skirmish.gangs import MOST, is_gang, members
from odds.rulesets.d10skirmish.rules import fighters

Pair = tuple[int, int]


class Plan(NamedTuple):
    """Pairs indexed by side (0 attacker, 1 defender), the engagement as numbers, then the
    schedule and laws of the rule text (fight.with_laws)."""

    skill: Pair                # effective MS (R3-5)
    attacks: Pair              # dice a fighter rolls when it fights fully (R3-3)
    ap: Pair                   # AP each turn (R3-2, R3-4)
    wounds: Pair               # W (A1)
    armour: Pair               # ARM (A2)
    damage: Pair               # effective DMG (A2, A4)
    adjust: Pair               # dice it may turn by +-1 each exchange (R3-6)
    adjust_blocks: Pair        # 1: it turns dice for blocks, 0: for hits (R3-6)
    charger: int               # 0 or 1
    push: bool                 # the opening is a move and push (R3-9), else a charge (R3-2)
    flee: bool                 # the charged fighter flees when it may (R3-4, R3-8)
    charged_ap_left: int       # -1: the charged fighter has not activated in turn 1 (R3-4)
    opening_ends_activation: bool  # §4.2(7)
    melee_attack_ap: int       # §4.2(7)
    reaction_ap: int           # §4.2(6)
    alternate: bool            # who starts a turn alternates, else the charger always does
    crit_blockable: bool       # a critical 1 blocks and is blocked by an equal 1 (§4.2(4))
    create_crit: bool          # a die turned to 1 is critical (§4.2(5))
    crit_ignores_armour: bool  # A3
    crit_multiplier: int       # A3: 1, or 2 for "double"/"both"
    push_ap: int               # R3-9
    fall_damage: int           # R3-9, §4.2(8)
    max_rounds: int            # turns (A5)
    distance: float            # R3-1: the charger's inches to its target; -1: in reach
    move: float                # R3-1: the charger's move M
    sight: bool                # R3-1: the charger sees its target
    move_ap: int               # R3-1: AP a move costs
    contact_turn: int = 1      # R3-1: the turn the charger reaches its target; 0 never
    turn: np.ndarray | None = None    # the schedule: each exchange's turn,
    active: np.ndarray | None = None  # the side that starts it,
    kind: np.ndarray | None = None    # its kind (index of its law),
    fled: np.ndarray | None = None    # whether the other side flees from it (R3-8)
    wound_law: np.ndarray | None = None  # [kind]: wounds to side 0 x (W1 + 1) + to side 1
    tabled: np.ndarray | None = None  # [kind]: its law is tabulated, else rolled die by die
    kind_dice: np.ndarray | None = None  # [kind, side]: dice rolled
    push_law: np.ndarray | None = None   # the push fails, succeeds (R3-9)
    d10_law: np.ndarray | None = None    # one D10: faces 1 .. 10 at 0 .. 9
    armour_law: np.ndarray | None = None  # [side]: a hit on it is saved, gets through (A2)
    law_states: int = 0  # the most states tabulating a law held (the exact solver's bound)
    law_turn: int = 1    # the turn of that law's exchange


def compile_plan(scenario):
    """The plan for one scenario (already checked by :func:`odds.scenario.from_dict`): a
    :class:`Gang` for a gang (gangs.is_gang), else the schedule's :class:`Plan`."""
    if is_gang(scenario):
        return gang_plan(scenario)
    pair = fighters(scenario)
    e = scenario.engagement

    def column(field) -> Pair:
        return tuple(int(getattr(f, field)) for f in pair)

    left = e["charged_ap_left"]
    side = scenario.side(e["charger"]).options  # R3-1: its distance to its target
    mover = scenario.side(e["charger"]).models[0]
    return with_laws(Plan(
        skill=column("skill"), attacks=column("attacks"), ap=column("ap"),
        wounds=column("wounds"), armour=column("armour"), damage=column("damage"),
        adjust=column("adjust"),
        adjust_blocks=tuple(int(f.adjust_for == "blocks") for f in pair),
        charger=0 if e["charger"] == "attacker" else 1,
        push=e["opening"] == "push",
        flee=e["reaction"] == "flee",
        charged_ap_left=-1 if left is None else int(left),
        opening_ends_activation=bool(e["opening_ends_activation"]),
        melee_attack_ap=int(e["melee_attack_ap"]),
        reaction_ap=int(e["reaction_ap"]),
        alternate=e["turn_order"] == "alternate",
        crit_blockable=e["crit_blockable"] == "matching_1",
        create_crit=bool(e["adjust_can_create_crit"]),
        crit_ignores_armour=e["crit_mode"] in ("ignore_armour", "both"),
        crit_multiplier=1 if e["crit_mode"] == "ignore_armour" else 2,
        push_ap=int(e["push_ap"]),
        fall_damage=int(e["fall_damage"]),
        max_rounds=int(scenario.simulation["max_rounds"]),
        distance=-1.0 if side["distance"] is None else float(side["distance"]),
        move=float(mover.profile["M"] or 0.0), sight=side["line_of_sight"] is not False,
        move_ap=int(e["move_ap"] or 1),
    ))


def gang_plan(scenario, max_rolls: int | None = None) -> Gang:
    """The plan of a gang's fight. Distances are rounded to hundredths of an inch. With
    ``max_rolls`` (the exact solver's bound) an exchange too large to tabulate raises
    :class:`odds.core.exact.TooManyStates` instead of being left to be rolled die by die."""
    gang_ = members(scenario)
    e = scenario.engagement
    n = len(gang_)
    side = np.array([m.side for m in gang_], np.int64)
    index = {(m.side, m.name): i for i, m in enumerate(gang_)}
    charger = 0 if e["charger"] == "attacker" else 1
    several = any(scenario.side(k).units for k in ("attacker", "defender"))

    def named(m) -> int:
        if m.side != charger:
            return -1
        if not several:  # one fighter a side: the charger charges the other
            return 1 - m.side
        target = m.options["charges"]  # a fighter out of the fight may name none
        return -1 if target is None else index[(1 - m.side, target)]

    def column(field):
        return np.array([getattr(m.fighter, field) for m in gang_], np.int64)

    def inches(value) -> int:
        return 0 if value is None else int(round(value * 100))

    pos = np.array([int((side[:i] == side[i]).sum()) for i in range(n)], np.int64)
    table = -np.ones((2, MOST), np.int64)
    for i in range(n):
        table[side[i], pos[i]] = i
    plan = Gang(
        n=n, side=side, pos=pos, members=table,
        size=np.array([(side == k).sum() for k in (0, 1)], np.int64),
        ap=column("ap"), wounds=column("wounds"), attacks=column("attacks"),
        skill=column("skill"), damage=column("damage"), armour=column("armour"),
        adjust=column("adjust"),
        adjust_blocks=np.array([m.fighter.adjust_for == "blocks" for m in gang_], np.int64),
        move=np.array([inches(m.group.profile["M"]) for m in gang_], np.int64),
        gap=np.array([inches(m.options["distance"]) for m in gang_], np.int64),
        named=np.array([named(m) for m in gang_], np.int64),
        sight=np.array([m.options["line_of_sight"] is not False for m in gang_], np.bool_),
        fresh=np.array([m.fresh for m in gang_], np.bool_),
        policy=np.array([("nearest", "weakest", "engaged").index(m.options["target"])
                         for m in gang_], np.int64),
        flee_below=np.array([m.options["flee_below"] for m in gang_], np.int64),
        per_fighter=several, charger=charger, push=e["opening"] == "push",
        flee=e["reaction"] == "flee",
        charged_ap_left=-1 if e["charged_ap_left"] is None else int(e["charged_ap_left"]),
        opening_ends_activation=bool(e["opening_ends_activation"]),
        melee_attack_ap=int(e["melee_attack_ap"]), reaction_ap=int(e["reaction_ap"]),
        alternate=e["turn_order"] == "alternate",
        crit_blockable=e["crit_blockable"] == "matching_1",
        create_crit=bool(e["adjust_can_create_crit"]),
        crit_ignores_armour=e["crit_mode"] in ("ignore_armour", "both"),
        crit_multiplier=1 if e["crit_mode"] == "ignore_armour" else 2,
        push_ap=int(e["push_ap"]), fall_damage=int(e["fall_damage"]),
        max_rounds=int(scenario.simulation["max_rounds"]), move_ap=int(e["move_ap"] or 1),
        law_of=np.zeros((0, 0, 3), np.int64), wound_law=np.zeros((1, 3, 1)),
        push_law=push_laws([m.fighter.skill for m in gang_]),
        armour_law=armour_laws([m.fighter.armour for m in gang_]), d10_law=d10_law())
    return gang_laws(plan, max_rolls)


def gang_laws(plan: Gang, max_rolls: int | None = None) -> Gang:
    """``plan`` with the wound law of every exchange a fighter may start against an enemy,
    for each way the enemy answers (gang.FULL, ONE, FLEES), from the two fighters' pair plan
    (fight.exchange_law, fight.wound_law); fighters alike share their laws."""
    strict = max_rolls is not None
    law_of = -np.ones((plan.n, plan.n, 3), np.int64)
    rows, found, held = [], {}, 0
    for a in range(plan.n):
        for t in range(plan.n):
            if plan.side[a] == plan.side[t]:
                continue
            f0, f1 = (a, t) if plan.side[a] == 0 else (t, a)
            pair = _pair(plan, f0, f1)
            for answer, dice in ((gang.FULL, plan.attacks[t]), (gang.ONE, 1),
                                 (gang.FLEES, 0)):
                key = (pair, int(plan.side[a]), int(dice))
                if key not in found:
                    try:
                        table, states = exchange_law(pair, int(plan.side[a]), int(dice),
                                                     max_rolls if strict else LAW_ROLLS)
                    except TooManyStates:
                        if strict:
                            raise
                        found[key] = -1
                        continue
                    held = max(held, states)
                    found[key] = len(rows)
                    rows.append(wound_law(pair, table).ravel())
                law_of[a, t, answer] = found[key]
    width = max((len(r) for r in rows), default=1)
    padded = np.zeros((max(len(rows), 1), width))
    for k, r in enumerate(rows):
        padded[k, :len(r)] = r
    return plan._replace(law_of=law_of, wound_law=laws(padded), law_states=held)


class _Pair(NamedTuple):
    """Two fighters of an exchange, the attacker's first, as fight.exchange_law and
    fight.wound_law read a plan of one fighter a side."""

    attacks: Pair
    skill: Pair
    wounds: Pair
    armour: Pair
    damage: Pair
    adjust: Pair
    adjust_blocks: Pair
    crit_blockable: bool
    create_crit: bool
    crit_ignores_armour: bool
    crit_multiplier: int


def _pair(plan: Gang, f0: int, f1: int) -> _Pair:
    def both(field):
        column = getattr(plan, field)
        return int(column[f0]), int(column[f1])

    return _Pair(attacks=both("attacks"), skill=both("skill"), wounds=both("wounds"),
                 armour=both("armour"), damage=both("damage"), adjust=both("adjust"),
                 adjust_blocks=both("adjust_blocks"),
                 crit_blockable=plan.crit_blockable, create_crit=plan.create_crit,
                 crit_ignores_armour=plan.crit_ignores_armour,
                 crit_multiplier=plan.crit_multiplier)
