"""Slow, obviously-correct reference for one Warhammer 40,000 3rd edition close combat.

It follows ``odds/rulesets/wh40k3/README.md`` (the exact semantics of RULES.md §1, rules
R0-1 ... R0-16) line by line: every model is tracked on its own (its group, its place and its
wounds left) and every die is a real ``rng.randint(1, 6)``. No probability shortcuts, no
batching: tests use it to check the numba kernel statistically.

Public functions:

* :func:`play_fight` plays one fight and returns the outcome record as a dict;
* :func:`play` plays many fights and returns a :class:`pandas.DataFrame`, one row per fight.

Readings chosen where README.md leaves a detail open (each marked ``READING`` below):

1. Wounds of one step are allocated enemy side by side, striking models in the striking
   side's file order of groups, contact models of a group before its within-2" models.
2. "A group that has a wounded model takes the next wound on it before anyone else": read
   side-wide (RULES.md R0-9 [ASM] "apply wounds to a wounded model first"): while the side
   has a wounded model, every wound goes to it, even if pile-in has since put another group
   ahead of it in removal order.
3. ``monstrous`` removes armour saves for all the group's attacks, within 2" ones too.
4. Halved pursuit (``pursuit_halving_affects_catch``): caught when pursuit_2D6 / 2 (exact,
   no rounding) is strictly greater than the fall-back 2D6.
5. A strength below 1 after ``strength_bonus`` counts as S 1.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

import pandas as pd

from odds.core import outcome
from odds.rulesets.wh40k3 import rules

ATTACKER, DEFENDER = 0, 1
SIDE_KEYS = ("attacker", "defender")

# Places (R0-2), in the order models are removed within a class (R0-9).
CONTACT, WITHIN_2IN, OUT_OF_REACH = 0, 1, 2

# Strike steps (R0-4), sorted from first to last: the cover step, then I 10 ... 1, then fists.
COVER_STEP = 100
STRIKES_LAST_STEP = -1

CANNOT_WOUND = rules.NO_SAVE  # "N" on the damage chart is stored as 7: no D6 reaches it


def d6(rng: random.Random) -> int:
    """One six-sided die."""
    return rng.randint(1, 6)


def two_d6(rng: random.Random) -> int:
    """2D6: the sum of two dice, rolled one at a time."""
    first = d6(rng)
    second = d6(rng)
    return first + second


@dataclass
class Group:
    """What every model of one ``[[side.models]]`` group shares."""

    side: int
    index: int          # file order within its side
    name: str
    count: int
    WS: int
    S: int
    T: int
    W: int
    I: int
    A: int
    Ld: int
    Sv: int | None
    Inv: int | None
    weapon: rules.Weapon  # fighting weapon in base contact (R0-2, README "Fighting weapon")
    two_weapons: bool     # carries >= 2 items with two_weapon = true (R0-3)
    frag: bool            # carries an item with frag = true (R0-4.2)
    monstrous: bool       # all its attacks ignore armour (R0-8)
    removed_last: bool    # character or special-weapon bearer (R0-9)


@dataclass
class Model:
    """One model: its group, where it stands and the wounds it has left."""

    group: Group
    place: int
    wounds: int
    removed: bool = False

    @property
    def side(self) -> int:
        return self.group.side

    @property
    def standing(self) -> bool:
        """Still on the table (casualties of a step are removed only at its end, R0-4.5)."""
        return not self.removed

    @property
    def can_take_wounds(self) -> bool:
        """Standing with at least 1 W left (a model at 0 W is a casualty awaiting removal)."""
        return not self.removed and self.wounds > 0

    @property
    def wounded(self) -> bool:
        return self.can_take_wounds and self.wounds < self.group.W


# ---------------------------------------------------------------------------------------------
# Setting up the sides
# ---------------------------------------------------------------------------------------------

def build_groups(scenario, weapon_table) -> list[list[Group]]:
    """The groups of both sides with their profile and fighting weapon (R0-2, R0-3, R0-8)."""
    sides = []
    for side_index, key in enumerate(SIDE_KEYS):
        groups = []
        for index, g in enumerate(scenario.side(key).models):
            weapon = rules.fighting_weapon(g, weapon_table)
            carried = [weapon_table[name] for name in g.equipment]
            p = g.profile
            groups.append(Group(
                side=side_index, index=index, name=g.name, count=g.count,
                WS=p["WS"], S=p["S"], T=p["T"], W=p["W"], I=p["I"], A=p["A"], Ld=p["Ld"],
                Sv=p.get("Sv"), Inv=p.get("Inv"),
                weapon=weapon,
                two_weapons=sum(1 for w in carried if w.two_weapon) >= 2,
                frag=any(w.frag for w in carried),
                monstrous=bool(g.options.get("monstrous")),
                removed_last=bool(g.options.get("character")) or weapon.removed_last,
            ))
        sides.append(groups)
    return sides


def contact_order_key(model: Model) -> tuple:
    """Contact order (README "Sides, groups and where models stand").

    Characters and special-weapon bearers first, then the other groups, each class in file
    order. Inside a group, models already nearer the enemy move first (R0-14), and a wounded
    model before an unwounded one, so that pile-in never moves a wounded model behind the rest
    of its group.
    """
    return (0 if model.group.removed_last else 1, model.group.index, model.place,
            0 if model.wounded else 1)


def removal_order_key(model: Model) -> tuple:
    """Removal order (R0-9): ordinary models before characters/special-weapon bearers; within
    a class models in contact, then within 2", then out of reach; within a place, file order."""
    return (1 if model.group.removed_last else 0, model.place, model.group.index)


def place_models(models: list[Model], in_contact: int | None, within_2in: int | None) -> None:
    """Put the side's models in contact / within 2" / out of reach in contact order (R0-2).

    ``in_contact`` None: every model in contact. ``within_2in`` None (with ``in_contact``
    given): every model not in contact is within 2".
    """
    ordered = sorted((m for m in models if m.standing), key=contact_order_key)
    if in_contact is None:
        in_contact = len(ordered)
    if within_2in is None:
        within_2in = len(ordered)
    for position, model in enumerate(ordered):
        if position < in_contact:
            model.place = CONTACT
        elif position < in_contact + within_2in:
            model.place = WITHIN_2IN
        else:
            model.place = OUT_OF_REACH


def pile_in(models: list[Model], side_options: dict, mode: str) -> None:
    """Pile-in before the next round (R0-11 pass, R0-14 draw).

    ``"all"``: every surviving model moves into base contact. ``"refill"``: contact and
    within-2" places are filled again up to the side's numbers, in contact order.
    """
    if mode == "all":
        for model in models:
            if model.standing:
                model.place = CONTACT
    else:
        place_models(models, side_options.get("in_contact"), side_options.get("within_2in"))


# ---------------------------------------------------------------------------------------------
# Striking
# ---------------------------------------------------------------------------------------------

def strike_step(model: Model, round_number: int, charger: int, charged_in_cover: bool) -> int:
    """The step in which a model strikes this round (R0-4), or None if it does not strike.

    Strikes-last (power fist/claw in contact) overrides cover and frag; the cover step is for
    round 1 only: the charged side in cover, and the charger's frag-grenade carriers.
    """
    if model.place == OUT_OF_REACH:
        return None
    if model.place == CONTACT and model.group.weapon.strikes_last:
        return STRIKES_LAST_STEP
    if round_number == 1 and charged_in_cover:
        if model.side != charger:
            return COVER_STEP
        if model.group.frag:
            return COVER_STEP
    return model.group.I


def number_of_attacks(model: Model, round_number: int, charger: int) -> int:
    """R0-2, R0-3: in contact A, +1 for two weapons, +1 on the charge in round 1; within 2"
    exactly 1."""
    if model.place == WITHIN_2IN:
        return 1
    attacks = model.group.A
    if model.group.two_weapons:
        attacks += 1
    if round_number == 1 and model.side == charger:
        attacks += 1
    return attacks


def effective_strength(model: Model) -> int:
    """S' = min(strength_cap, S * strength_mult + strength_bonus) in contact; profile S within
    2" (R0-2, R0-8)."""
    if model.place == CONTACT:
        return max(1, model.group.weapon.strength(model.group.S))  # READING 5
    return model.group.S


@dataclass
class Wound:
    """One wound before its save: what the striking model's weapon does to armour (R0-8)."""

    ignores_armour: bool
    save_cap: int | None


def front_group(models: list[Model]) -> Group:
    """The enemy's front group (R0-6 [ASM] front): the first group in removal order with a
    model standing (called at the start of the step)."""
    standing = [m for m in models if m.standing]
    return min(standing, key=removal_order_key).group


def roll_attacks(model: Model, target: Group, round_number: int, charger: int,
                 to_hit_chart, to_wound_chart, rng: random.Random) -> list[Wound]:
    """One model's attacks: to hit (R0-5, WS chart) and to wound (R0-7, damage chart)."""
    wounds = []
    strength = effective_strength(model)
    to_hit = to_hit_chart[model.group.WS - 1][target.WS - 1]
    to_wound = to_wound_chart[strength - 1][target.T - 1]
    for _ in range(number_of_attacks(model, round_number, charger)):
        if d6(rng) < to_hit:
            continue
        if to_wound == CANNOT_WOUND:
            continue  # "N": the hit cannot wound
        if d6(rng) < to_wound:
            continue
        in_contact = model.place == CONTACT
        wounds.append(Wound(
            ignores_armour=model.group.monstrous  # READING 3
            or (in_contact and model.group.weapon.ignores_armour),
            save_cap=model.group.weapon.save_cap if in_contact else None,
        ))
    return wounds


def next_to_take_wound(models: list[Model]) -> Model | None:
    """The model a wound is allocated to (R0-9): a wounded model if the side has one
    (READING 2), else the next model in removal order."""
    alive = [m for m in models if m.can_take_wounds]
    if not alive:
        return None
    for model in alive:
        if model.wounded:
            return model
    return min(alive, key=removal_order_key)


def armour_save(model: Model, wound: Wound) -> int | None:
    """The armour save allowed (R0-8): Sv made no better than save_cap; none if the attack
    ignores armour or the model has no Sv."""
    if model.group.Sv is None or wound.ignores_armour:
        return None
    if wound.save_cap is not None:
        return max(model.group.Sv, wound.save_cap)
    return model.group.Sv


def saved(model: Model, wound: Wound, rng: random.Random) -> bool:
    """One D6 against the better of the armour and invulnerable saves (R0-8); no save at all:
    the wound stands. Cover never gives a save in close combat."""
    allowed = [v for v in (armour_save(model, wound), model.group.Inv) if v is not None]
    if not allowed:
        return False
    return d6(rng) >= min(allowed)


# ---------------------------------------------------------------------------------------------
# One fight
# ---------------------------------------------------------------------------------------------

def prepare(scenario):
    """The groups of both sides and the charts, computed once for many fights."""
    to_hit_chart, to_wound_chart = rules.charts()
    return build_groups(scenario, rules.weapons(scenario)), to_hit_chart, to_wound_chart


def charge_reaches(engagement: dict, rng: random.Random) -> bool:
    """R0-1: through difficult terrain the charge reaches if the highest of 2D6 is at least the
    distance; otherwise (distance <= 6") it always reaches."""
    if engagement["charge_through_difficult_terrain"]:
        first = d6(rng)
        second = d6(rng)
        return max(first, second) >= engagement["charge_distance"]
    return True


def leadership(models: list[Model], side_options: dict) -> int:
    """R0-11 [MEM]: the side's ``Ld`` key, else the highest Ld among its surviving models."""
    if side_options.get("Ld") is not None:
        return side_options["Ld"]
    return max(m.group.Ld for m in models if m.standing)


def play_fight(scenario, rng: random.Random, prepared=None) -> dict:
    """Play one fight (R0-16) and return its outcome record.

    Keys: ``winner`` (0 none, 1 attacker, 2 defender), ``end`` (odds.core.outcome code),
    ``rounds``, ``attacker_lost``/``defender_lost`` (models removed, a caught unit's remaining
    models included) and ``attacker_wounds``/``defender_wounds`` (unsaved wounds suffered,
    only those that landed on a model). ``prepared`` is :func:`prepare`'s result (optional).
    """
    groups, to_hit_chart, to_wound_chart = prepared or prepare(scenario)
    engagement = scenario.engagement
    max_rounds = scenario.simulation["max_rounds"]
    charger = ATTACKER if engagement["charger"] == "attacker" else DEFENDER
    charged = 1 - charger
    charged_in_cover = engagement[f"{SIDE_KEYS[charged]}_in_cover"]
    side_options = [scenario.attacker.options, scenario.defender.options]

    record = {"winner": outcome.NONE, "end": outcome.NO_FIGHT, "rounds": 0,
              "attacker_lost": 0, "defender_lost": 0,
              "attacker_wounds": 0, "defender_wounds": 0}
    lost = [0, 0]
    suffered = [0, 0]

    def finish(winner: int, end: int, rounds: int) -> dict:
        record.update(winner=winner, end=end, rounds=rounds,
                      attacker_lost=lost[ATTACKER], defender_lost=lost[DEFENDER],
                      attacker_wounds=suffered[ATTACKER], defender_wounds=suffered[DEFENDER])
        return record

    def winner_code(side: int) -> int:
        return outcome.ATTACKER if side == ATTACKER else outcome.DEFENDER

    # R0-1 Charge.
    if not charge_reaches(engagement, rng):
        return finish(outcome.NONE, outcome.NO_FIGHT, 0)

    # Every model on its own, placed in contact order (R0-2).
    models = [[], []]
    for side in (ATTACKER, DEFENDER):
        for group in groups[side]:
            for _ in range(group.count):
                models[side].append(Model(group=group, place=OUT_OF_REACH, wounds=group.W))
        place_models(models[side], side_options[side].get("in_contact"),
                     side_options[side].get("within_2in"))

    for round_number in range(1, max_rounds + 1):
        caused = [0, 0]  # unsaved wounds each side caused this round (R0-10)
        steps = set()
        for side in (ATTACKER, DEFENDER):
            for model in models[side]:
                if model.standing:
                    step = strike_step(model, round_number, charger, charged_in_cover)
                    if step is not None:
                        steps.add(step)

        for step in sorted(steps, reverse=True):  # cover, I 10 ... 1, strikes last (R0-4)
            # Everything of this step is rolled against the models standing at its start.
            front = [front_group(models[DEFENDER]), front_group(models[ATTACKER])]
            wounds_against = [[], []]
            for side in (ATTACKER, DEFENDER):
                strikers = [m for m in models[side] if m.standing
                            and strike_step(m, round_number, charger, charged_in_cover) == step]
                strikers.sort(key=lambda m: (m.group.index, m.place))  # READING 1
                for model in strikers:
                    wounds_against[1 - side] += roll_attacks(
                        model, front[side], round_number, charger,
                        to_hit_chart, to_wound_chart, rng)
            # Allocation and saves by the receiving model (R0-8, R0-9).
            for side in (ATTACKER, DEFENDER):
                for wound in wounds_against[side]:
                    target = next_to_take_wound(models[side])
                    if target is None:
                        break  # nobody left to take it
                    if saved(target, wound, rng):
                        continue
                    target.wounds -= 1
                    suffered[side] += 1
                    caused[1 - side] += 1
            # Casualties are removed at the end of the step (R0-4.5).
            for side in (ATTACKER, DEFENDER):
                for model in models[side]:
                    if model.standing and model.wounds == 0:
                        model.removed = True
                        lost[side] += 1
            wiped = [not any(m.standing for m in models[side]) for side in (ATTACKER, DEFENDER)]
            if wiped[ATTACKER] and wiped[DEFENDER]:
                return finish(outcome.NONE, outcome.MUTUAL, round_number)
            if wiped[ATTACKER]:
                return finish(outcome.DEFENDER, outcome.DESTROYED, round_number)
            if wiped[DEFENDER]:
                return finish(outcome.ATTACKER, outcome.DESTROYED, round_number)

        # R0-10 Combat result: more unsaved wounds wins; equal: D6 roll-off.
        by_roll_off = False
        if caused[ATTACKER] > caused[DEFENDER]:
            winner = ATTACKER
        elif caused[DEFENDER] > caused[ATTACKER]:
            winner = DEFENDER
        else:
            by_roll_off = True
            attacker_roll = d6(rng)
            defender_roll = d6(rng)
            if attacker_roll > defender_roll:
                winner = ATTACKER
            elif defender_roll > attacker_roll:
                winner = DEFENDER
            else:
                winner = None  # true draw (R0-14)

        if winner is not None:
            loser = 1 - winner
            # R0-11 Leadership test: 2D6 <= Ld passes.
            if two_d6(rng) > leadership(models[loser], side_options[loser]):
                # Fail: fall back 2D6; the winner pursues or consolidates (R0-12).
                fall_back = two_d6(rng)
                if engagement["pursue"] and not by_roll_off:
                    pursue = two_d6(rng)
                    if (engagement["pursuit_difficult_terrain"]
                            and engagement["pursuit_halving_affects_catch"]):
                        caught = pursue / 2 > fall_back  # READING 4
                    else:
                        caught = pursue > fall_back
                    if caught:
                        lost[loser] += sum(1 for m in models[loser] if m.standing)
                        return finish(winner_code(winner), outcome.CAUGHT, round_number)
                return finish(winner_code(winner), outcome.FLED, round_number)

        # Pass or draw: pile in, next round.
        for side in (ATTACKER, DEFENDER):
            pile_in(models[side], side_options[side], engagement["pile_in"])

    return finish(outcome.NONE, outcome.UNRESOLVED, max_rounds)


def play(scenario, trials: int, seed: int) -> pd.DataFrame:
    """``trials`` fights from one ``random.Random(seed)``, one row each (odds.core.outcome
    COLUMNS)."""
    rng = random.Random(seed)
    prepared = prepare(scenario)
    rows = [play_fight(scenario, rng, prepared) for _ in range(trials)]
    return pd.DataFrame(rows, columns=list(outcome.COLUMNS))
