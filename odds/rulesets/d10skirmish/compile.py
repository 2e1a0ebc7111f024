"""Turn a checked d10skirmish scenario into the flat numeric plan the kernel reads."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from odds.rulesets.d10skirmish.fight import with_laws
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


def compile_plan(scenario) -> Plan:
    """The plan for one scenario (already checked by :func:`odds.scenario.from_dict`)."""
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
