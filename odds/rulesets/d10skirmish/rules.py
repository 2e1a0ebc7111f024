"""d10skirmish scenario schema, weapons and fighters (semantics in README.md here)."""
from __future__ import annotations

import math
from dataclasses import dataclass

from odds.core import charges
from odds.core import schema as s
from odds.core.catalogue import NO_OWN, Section, catalogue
from odds.scenario import one_fighter_a_unit

CHARGE_AP = 2      # R3-2 [EX]: a charge costs 2 AP
MOST_ATTACKS = 20  # dice one fighter may roll in an exchange

PROFILE = {
    "MS": (s.integer(1, 10), s.REQUIRED),  # melee skill, ББ (R3-3, R3-5)
    "AP": (s.integer(1, 10), s.REQUIRED),  # action points each turn (R3-2, R3-4)
    "W": (s.integer(1, 20), 1),            # wounds (A1)
    "ARM": (s.integer(0, 10), 0),          # armour, roll-under D10 (A2)
    "DMG": (s.integer(1, 10), 1),          # wounds per hit (A2)
    "M": (s.number(0.5, 30), None),        # move in inches (R3-1); None: read only with distance
}

GROUP_KEYS = {
    "base": (s.integer(1, 300), 25),                        # base size in mm (R3-9)
    "adjust": (s.integer(0, 3), 0),                         # dice it may turn by 1 (R3-6)
    "adjust_for": (s.choice("hits", "blocks"), "hits"),     # what the turn aims at (R3-6)
}

SIDE_KEYS = {
    "distance": (s.number(0, 200), None),  # the charger's inches to its target (R3-1)
    "line_of_sight": (s.boolean, None),    # the charger sees its target (R3-1); None: yes
    # a fighter of a gang (several a side, gangs.py)
    "charges": (s.text, None),             # the enemy fighter it charges
    "engaged": (s.boolean, True),          # false: out of the fight at the start, `distance` away
    "target": (s.choice("nearest", "weakest", "engaged"), "nearest"),  # whom it goes for next
    "flee_below": (s.integer(0, 19), 0),   # it flees instead of answering at this many wounds left
}

ENGAGEMENT = {
    "charger": (s.choice("attacker", "defender"), "attacker"),
    "opening": (s.choice("charge", "push"), "charge"),                  # R3-2, R3-9
    "reaction": (s.choice("fight", "flee"), "fight"),                   # R3-4, R3-8
    "charged_ap_left": (s.integer(0, 10), None),                        # R3-4
    "opening_ends_activation": (s.boolean, True),                       # §4.2(7) [ASM]
    "melee_attack_ap": (s.integer(1, 10), 1),                           # §4.2(7) [ASM]
    "reaction_ap": (s.integer(0, 10), 0),                               # §4.2(6) [ASM]
    "turn_order": (s.choice("charger_first", "alternate"), "charger_first"),  # [ASM]
    "crit_blockable": (s.choice("matching_1", "never"), "matching_1"),  # §4.2(4) [ASM]
    "adjust_can_create_crit": (s.boolean, False),                       # §4.2(5) [ASM]
    "crit_mode": (s.choice("ignore_armour", "double", "both"), "ignore_armour"),  # A3
    "push_ap": (s.integer(1, 10), 2),                                   # R3-9 [ASM]
    "fall_damage": (s.integer(0, 20), 1),                               # R3-9, §4.2(8) [ASM]
    "move_ap": (s.integer(1, 10), None),                     # R3-1 [ASM]; None: 1 a move
}

WEAPON_KEYS = {
    "attacks": (s.integer(0, MOST_ATTACKS), 0),  # R3-3
    "skill": (s.integer(-9, 9), 0),              # A4
    "damage": (s.integer(-9, 9), 0),             # A4
}

SIDES = ("attacker", "defender")


@dataclass(frozen=True)
class Fighter:
    """One side's fighter with its weapons folded in (R3-3, R3-6, A1-A4)."""

    skill: int       # MS plus the weapons' skill
    attacks: int     # ceil(skill / 2) plus the weapons' extra attacks (R3-3)
    ap: int
    wounds: int
    armour: int
    damage: int      # DMG plus the weapons' damage
    adjust: int      # dice it may turn by +-1 each exchange (R3-6)
    adjust_for: str  # "hits" or "blocks"


def weapons(scenario) -> dict[str, dict]:
    """The bundled weapons, overridden and extended by the scenario's ``[weapons]`` (A4)."""
    return catalogue(("d10skirmish", "weapons.toml"), scenario, WEAPON_KEYS)


def fighters(scenario) -> tuple[Fighter, Fighter]:
    """The attacker's and the defender's fighter (the scenario is checked already)."""
    table = weapons(scenario)
    return tuple(_fighter(scenario.side(key).models[0], table) for key in SIDES)


def _fighter(group, table) -> Fighter:
    carried = [table[name] for name in group.equipment]
    p = group.profile
    skill = p["MS"] + sum(w["skill"] for w in carried)
    return Fighter(skill=skill,
                   attacks=math.ceil(skill / 2) + sum(w["attacks"] for w in carried),
                   ap=p["AP"], wounds=p["W"], armour=p["ARM"],
                   damage=p["DMG"] + sum(w["damage"] for w in carried),
                   adjust=group.options["adjust"],
                   adjust_for=group.options["adjust_for"])


def check_fighters(scenario) -> None:
    """Each fighter: one model with known weapons, its MS, DMG and attacks in range (A4)."""
    table = weapons(scenario)
    for group, where in one_fighter_a_unit(scenario, table, "d10skirmish"):
        fighter = _fighter(group, table)
        if not 1 <= fighter.skill <= 10:
            raise (where / "equipment").error(
                f"the weapons bring MS {group.profile['MS']} to {fighter.skill}; it must stay "
                f"from 1 to 10")
        if fighter.damage < 1:
            raise (where / "equipment").error(
                f"the weapons bring DMG {group.profile['DMG']} to {fighter.damage}; it must "
                f"stay at least 1")
        if fighter.attacks > MOST_ATTACKS:
            raise (where / "equipment").error(
                f"{fighter.attacks} attacks; at most {MOST_ATTACKS} are supported")


def check_pair(scenario) -> None:
    """One fighter a side: the engagement (AP for the opening, push bases, R3-1's keys on
    the charger only), a ``charges`` naming the enemy, both in the fight."""
    charger = scenario.engagement["charger"]
    charged = SIDES[1 - SIDES.index(charger)]
    for key in SIDES:
        o, where = scenario.side(key).options, scenario.where(key)
        if not o["engaged"]:
            raise (where / "engaged").error(
                "one fighter a side are both in the fight; engaged = false is for a fighter "
                "of a gang (several a side)")
        if key == charged:
            charges.check_charged(o, where, charger, ("charges",))
        else:
            charges.check_target(o, where, charged, [scenario.side(charged).name])
    _check_engagement(scenario)


def _check_engagement(scenario) -> None:
    e = scenario.engagement
    where = s.Where(scenario.source, "engagement")
    charger = e["charger"]
    charged = SIDES[1 - SIDES.index(charger)]
    pusher, target = (scenario.side(k).models[0] for k in (charger, charged))
    cost = CHARGE_AP if e["opening"] == "charge" else e["push_ap"]
    if pusher.profile["AP"] < cost:
        what = "charge (R3-2)" if e["opening"] == "charge" else "push (engagement.push_ap)"
        raise (scenario.where(charger) / "models" / 0 / "profile" / "AP").error(
            f"the charger needs at least {cost} AP to {what}, got {pusher.profile['AP']}")
    if e["charged_ap_left"] is not None and e["charged_ap_left"] > target.profile["AP"]:
        raise (where / "charged_ap_left").error(
            f"must be at most the charged fighter's AP ({target.profile['AP']}), got "
            f"{e['charged_ap_left']}")
    if e["opening"] == "push" and target.options["base"] > pusher.options["base"]:
        raise (where / "opening").error(
            f"a push needs the target's base ({target.options['base']} mm) no larger than the "
            f"pusher's ({pusher.options['base']} mm) (R3-9)")
    _check_approach(scenario, charger, charged, pusher)


def _check_approach(scenario, charger: str, charged: str, mover) -> None:
    """R3-1: a distance is the charger's, needs its move M, and starts the fight apart (so
    not with charged_ap_left); a fighter that cannot see its target moves into contact,
    which a push cannot do."""
    e = scenario.engagement
    side, other = scenario.side(charger).options, scenario.side(charged).options
    if other["distance"] is not None:
        raise (scenario.where(charged) / "distance").error(
            "is the charger's distance to its target; the charged fighter waits (R3-1)")
    if other["line_of_sight"] is not None:
        raise (scenario.where(charged) / "line_of_sight").error(
            "is the charger's; the charged fighter waits (R3-1)")
    if side["distance"] is None:
        if side["line_of_sight"] is not None:
            raise (scenario.where(charger) / "line_of_sight").error(
                "is read only with the charger's distance to its target (R3-1)")
        if e["move_ap"] is not None:
            raise (s.Where(scenario.source, "engagement") / "move_ap").error(
                "is read only with the charger's distance to its target (R3-1)")
        return
    if mover.profile["M"] is None:
        raise (scenario.where(charger) / "models" / 0 / "profile" / "M").error(
            "is needed with the charger's distance: its move in inches (R3-1)")
    if e["charged_ap_left"] is not None:
        raise (s.Where(scenario.source, "engagement") / "charged_ap_left").error(
            "says the charged fighter already activated in turn 1; with the charger's "
            "distance the fight starts apart (R3-1)")
    if (e["move_ap"] or 1) > mover.profile["AP"]:
        raise (s.Where(scenario.source, "engagement") / "move_ap").error(
            f"must be at most the charger's AP ({mover.profile['AP']}), got {e['move_ap']}: "
            "it could never move (R3-1)")
    if e["opening"] == "push" and side["line_of_sight"] is False:
        raise (s.Where(scenario.source, "engagement") / "opening").error(
            "a push needs the charger to see its target (R3-1, R3-9)")


def catalogues() -> list[Section]:
    """What a scenario may name: the bundled weapons."""
    return [Section("weapons", "group", "equipment", weapons(NO_OWN), WEAPON_KEYS)]
