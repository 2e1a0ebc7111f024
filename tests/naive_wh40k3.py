"""Slow, obviously-correct reference for one Warhammer 40,000 3rd edition close combat.

It follows ``odds/rulesets/wh40k3/README.md`` (the exact semantics of RULES.md §1, rules
R0-1 ... R0-16) line by line: every model is tracked on its own (its group, its place and its
wounds left) and every die is a real ``rng.randint(1, 6)``. No probability shortcuts, no
batching: tests use it to check the numba kernel statistically.

A side may be several units (``[[attacker.units]]``): the multiple combat of R0-13 and the
advance into a fresh unit of R0-12, as the ruleset page states them for several units (who
strikes whom, the result summed over units, one Ld test and fall-back per unit, one
pursuit roll per winning unit serving against every fleeing unit, the advance into a unit with
``engaged = false``). A side of one unit plays exactly as before, die for die.

Public functions:

* :func:`play_fight` plays one fight and returns the outcome record as a dict;
* :func:`play` plays many fights and returns a :class:`pandas.DataFrame`, one row per fight.

Readings chosen where README.md leaves a detail open (each marked ``READING`` below):

1. Wounds of one step are allocated enemy side by side, then unit by unit in the receiving
   side's file order; each unit's wounds come from the striking models in the striking side's
   file order of groups (numbered across its units), contact models of a group before its
   within-2" models.
2. "A group that has a wounded model takes the next wound on it before anyone else": read
   unit-wide (RULES.md R0-9 [ASM] "apply wounds to a wounded model first"): while the unit
   has a wounded model, every wound on the unit goes to it, even if pile-in has since put
   another group ahead of it in removal order.
3. ``monstrous`` removes armour saves for all the group's attacks, within 2" ones too.
4. Halved pursuit (``pursuit_halving_affects_catch``): caught when pursuit_2D6 / 2 (exact,
   no rounding) is strictly greater than the fall-back 2D6.
5. A strength below 1 after ``strength_bonus`` counts as S 1.
6. In the combat an advance starts, only the fresh unit's own ``in_cover`` puts it in the
   cover step; ``engagement.<side>_in_cover`` is for the charged units of the first combat.

Special rules (README "Special rules"): a group's rules in force this round (``when``: always,
in the round its side charged, in the round it was charged) add their attacks in contact, their
S and I, and their re-rolls and modifiers on each to-hit and to-wound die, rolled and re-rolled
one at a time; in contact the fighting weapon's dice effects (and its ``pair`` effects, when
carried twice) join them. A unit with a Fearless model standing passes its morale check
without a roll; a charged unit whose every group has Counter-attack stands all in contact.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

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
    index: int          # file order within its side, numbered across its units
    unit: int           # its unit's index within the side
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
    rules: list           # its special rules (SpecialRule entries)
    pair: bool            # carries its fighting weapon twice


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


@dataclass(eq=False)
class Unit:
    """One unit of a side (R0-13): its models, whether it is in the fight, and its outcome.

    ``waiting``: a fresh unit (``engaged = false``) the fight has not reached yet (R0-12).
    ``fate`` is an odds.core.outcome UNIT_* code; ``lost`` its models lost (a caught unit's
    remaining ones included), ``wounds`` the unsaved wounds it suffered.
    """

    side: int
    index: int
    name: str
    options: dict
    models: list[Model]
    in_fight: bool
    waiting: bool
    counter_attack: bool = False  # charged (now or by an advance), every group Counter-attack
    fate: int = outcome.UNIT_STANDING
    lost: int = 0
    wounds: int = 0

    @property
    def standing(self) -> list[Model]:
        return [m for m in self.models if m.standing]


@dataclass
class Combat:
    """The combat being fought: who charged, which of its units are in cover (R0-3, R0-4), and
    the round (counted over the whole fight) that is its charge round."""

    charger: int
    in_cover: list[Unit] = field(default_factory=list)
    charge_round: int = 1


# ---------------------------------------------------------------------------------------------
# Setting up the sides
# ---------------------------------------------------------------------------------------------

def build_groups(scenario, weapon_table, rule_table) -> list[list[Group]]:
    """The groups of both sides with their profile and fighting weapon (R0-2, R0-3, R0-8),
    numbered across each side's units in file order."""
    sides = []
    for side_index, key in enumerate(SIDE_KEYS):
        groups = []
        for unit_index, unit in enumerate(scenario.side(key).every_unit):
            for g in unit.models:
                weapon = rules.fighting_weapon(g, weapon_table)
                carried = [weapon_table[name] for name in g.equipment]
                p = g.profile
                groups.append(Group(
                    side=side_index, index=len(groups), unit=unit_index, name=g.name,
                    count=g.count,
                    WS=p["WS"], S=p["S"], T=p["T"], W=p["W"], I=p["I"], A=p["A"], Ld=p["Ld"],
                    Sv=p.get("Sv"), Inv=p.get("Inv"),
                    weapon=weapon,
                    two_weapons=sum(1 for w in carried if w.two_weapon) >= 2,
                    frag=any(w.frag for w in carried),
                    monstrous=bool(g.options.get("monstrous")),
                    removed_last=bool(g.options.get("character")) or weapon.removed_last,
                    rules=[rule_table[name] for name in g.options["rules"]],
                    pair=g.equipment.count(weapon.name) >= 2,
                ))
        sides.append(groups)
    return sides


def build_units(scenario, groups: list[list[Group]]) -> list[list[Unit]]:
    """Every unit of both sides with every model on its own, full wounds, not yet placed."""
    sides = []
    for side_index, key in enumerate(SIDE_KEYS):
        units = []
        for unit_index, unit in enumerate(scenario.side(key).every_unit):
            models = [Model(group=g, place=OUT_OF_REACH, wounds=g.W)
                      for g in groups[side_index] if g.unit == unit_index
                      for _ in range(g.count)]
            engaged = unit.options.get("engaged", True)
            charger = SIDE_KEYS.index(scenario.engagement["charger"])
            every = all(any(r.counter_attack for r in g.rules)
                        for g in groups[side_index] if g.unit == unit_index)
            units.append(Unit(side=side_index, index=unit_index, name=unit.name,
                              options=unit.options, models=models, in_fight=engaged,
                              waiting=not engaged,
                              counter_attack=every and (side_index != charger or not engaged)))
        sides.append(units)
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
    """Put the unit's models in contact / within 2" / out of reach in contact order (R0-2).

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


def place_unit(unit: Unit) -> None:
    """A unit placed by its own in_contact / within_2in (R0-2); a counter-attacking unit all in
    contact."""
    if unit.counter_attack:
        place_models(unit.models, None, None)
        return
    place_models(unit.models, unit.options.get("in_contact"), unit.options.get("within_2in"))


def pile_in(unit: Unit, mode: str) -> None:
    """Pile-in before the next round (R0-11 pass, R0-14 draw).

    ``"all"``: every surviving model moves into base contact. ``"refill"``: contact and
    within-2" places are filled again up to the unit's numbers, in contact order.
    """
    if mode == "all":
        for model in unit.models:
            if model.standing:
                model.place = CONTACT
    else:
        place_unit(unit)


# ---------------------------------------------------------------------------------------------
# Striking
# ---------------------------------------------------------------------------------------------

def in_force(model: Model, charge_round: bool, charger: int) -> list:
    """The model's special rules in force this round, by their ``when``."""
    charging = charge_round and model.side == charger
    charged = charge_round and model.side != charger
    return [r for r in model.group.rules if r.when == "always"
            or (r.when == "charging" and charging) or (r.when == "charged" and charged)]


def strike_step(model: Model, unit: Unit, combat: Combat, charge_round: bool) -> int | None:
    """The step in which a model of ``unit`` strikes this round (R0-4), or None if it does not
    strike.

    Strikes-last (power fist/claw in contact) overrides cover and frag; the cover step is for
    the charge round only: the charged units in cover, and the charger's frag-grenade carriers
    when at least one charged unit is in cover.
    """
    if model.place == OUT_OF_REACH:
        return None
    if model.place == CONTACT and model.group.weapon.strikes_last:
        return STRIKES_LAST_STEP
    if charge_round and combat.in_cover:
        if model.side != combat.charger and unit in combat.in_cover:
            return COVER_STEP
        if model.side == combat.charger and model.group.frag:
            return COVER_STEP
    bonus = sum(r.initiative_bonus for r in in_force(model, charge_round, combat.charger))
    return max(1, min(10, model.group.I + bonus))


def number_of_attacks(model: Model, charge_round: bool, charger: int) -> int:
    """R0-2, R0-3: in contact A, +1 for two weapons, +1 on the charge in the charge round;
    within 2" exactly 1."""
    if model.place == WITHIN_2IN:
        return 1
    attacks = model.group.A
    if model.group.two_weapons:
        attacks += 1
    if charge_round and model.side == charger:
        attacks += 1
    return attacks + sum(r.extra_attacks for r in in_force(model, charge_round, charger))


def effective_strength(model: Model, bonus: int) -> int:
    """S' = min(strength_cap, S * strength_mult + strength_bonus + a rule's bonus) in contact;
    profile S + the bonus within 2" (R0-2, R0-8), at least 1 and at most 10."""
    weapon = model.group.weapon
    if model.place == CONTACT:
        s = model.group.S * weapon.strength_mult + weapon.strength_bonus + bonus
        return max(1, min(weapon.strength_cap, s))  # READING 5
    return max(1, min(10, model.group.S + bonus))


def dice_effects(model: Model, rules: list) -> tuple:
    """(to-hit re-roll, to-hit modifier, to-wound re-roll, to-wound modifier): the rules in
    force, and in contact the fighting weapon and its pair's effects; modifiers add, the
    strongest re-roll applies (a die is re-rolled once)."""
    sources = [vars(r) for r in rules]
    if model.place == CONTACT:
        sources.append(vars(model.group.weapon))
        if model.group.pair and model.group.weapon.pair:
            sources.append(model.group.weapon.pair)

    def reroll(key):
        given = {s.get(key) for s in sources}
        return "failures" if "failures" in given else "ones" if "ones" in given else None

    return (reroll("reroll_hit"), sum(s.get("hit_modifier", 0) for s in sources),
            reroll("reroll_wound"), sum(s.get("wound_modifier", 0) for s in sources))


def roll_die(rng: random.Random, need: int, modifier: int, reroll: str | None) -> bool:
    """One D6 against ``need``+ with ``modifier`` added: a natural 1 fails, a natural 6
    succeeds; re-rolled once if a 1 (``"ones"``) or a failure (``"failures"``)."""
    def made(face):
        return face == 6 or (face != 1 and face + modifier >= need)

    face = d6(rng)
    if (reroll == "ones" and face == 1) or (reroll == "failures" and not made(face)):
        face = d6(rng)
    return made(face)


@dataclass
class Wound:
    """One wound before its save: what the striking model's weapon does to armour (R0-8)."""

    ignores_armour: bool
    save_cap: int | None


def front_group(models: list[Model]) -> Group:
    """The enemy unit's front group (R0-6 [ASM] front): the first group in removal order with
    a model standing (called at the start of the step)."""
    standing = [m for m in models if m.standing]
    return min(standing, key=removal_order_key).group


def roll_attacks(model: Model, target: Group, charge_round: bool, charger: int,
                 to_hit_chart, to_wound_chart, rng: random.Random,
                 attacks: int | None = None) -> list[Wound]:
    """One model's attacks: to hit (R0-5, WS chart) and to wound (R0-7, damage chart);
    ``attacks`` of them (default: the model's number of attacks)."""
    wounds = []
    rules = in_force(model, charge_round, charger)
    strength = effective_strength(model, sum(r.strength_bonus for r in rules))
    to_hit = to_hit_chart[model.group.WS - 1][target.WS - 1]
    to_wound = to_wound_chart[strength - 1][target.T - 1]
    hit_reroll, hit_mod, wound_reroll, wound_mod = dice_effects(model, rules)
    if attacks is None:
        attacks = number_of_attacks(model, charge_round, charger)
    for _ in range(attacks):
        if not roll_die(rng, to_hit, hit_mod, hit_reroll):
            continue
        if to_wound == CANNOT_WOUND:
            continue  # "N": the hit cannot wound
        if not roll_die(rng, to_wound, wound_mod, wound_reroll):
            continue
        in_contact = model.place == CONTACT
        wounds.append(Wound(
            ignores_armour=model.group.monstrous  # READING 3
            or (in_contact and model.group.weapon.ignores_armour),
            save_cap=model.group.weapon.save_cap if in_contact else None,
        ))
    return wounds


def next_to_take_wound(models: list[Model]) -> Model | None:
    """The model of the unit a wound is allocated to (R0-9): a wounded model if the unit has
    one (READING 2), else the next model in removal order."""
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
# Morale, pursuit and the advance
# ---------------------------------------------------------------------------------------------

def charge_reaches(engagement: dict, rng: random.Random) -> bool:
    """R0-1: through difficult terrain the charge reaches if the highest of 2D6 is at least the
    distance; otherwise (distance <= 6") it always reaches."""
    if engagement["charge_through_difficult_terrain"]:
        first = d6(rng)
        second = d6(rng)
        return max(first, second) >= engagement["charge_distance"]
    return True


def fearless(unit: Unit) -> bool:
    """A model with Fearless stands: the unit passes its morale check (R0-11)."""
    return any(r.fearless for m in unit.standing for r in m.group.rules)


def leadership(unit: Unit) -> int:
    """R0-11 [MEM]: the unit's ``Ld`` key, else the highest Ld among its surviving models."""
    if unit.options.get("Ld") is not None:
        return unit.options["Ld"]
    return max(m.group.Ld for m in unit.standing)


def catches(pursuit: int, fall_back: int, engagement: dict) -> bool:
    """R0-12: the pursuit roll catches if strictly greater than the fall-back roll; halved
    first with pursuit_difficult_terrain and pursuit_halving_affects_catch."""
    if engagement["pursuit_difficult_terrain"] and engagement["pursuit_halving_affects_catch"]:
        return pursuit / 2 > fall_back  # READING 4
    return pursuit > fall_back


def reaches(move: int, distance: float, engagement: dict) -> bool:
    """R0-12: an advance of ``move`` inches (halved through difficult terrain) contacts a unit
    ``distance`` inches away."""
    if engagement["pursuit_difficult_terrain"]:
        return move / 2 >= distance
    return move >= distance


# ---------------------------------------------------------------------------------------------
# One fight
# ---------------------------------------------------------------------------------------------

def prepare(scenario):
    """The groups of both sides and the charts, computed once for many fights."""
    to_hit_chart, to_wound_chart = rules.charts()
    return (build_groups(scenario, rules.weapons(scenario), rules.special_rules(scenario)),
            to_hit_chart, to_wound_chart)


class Fight:
    """The state of one fight: every unit, the combat being fought, rounds played."""

    def __init__(self, scenario, rng: random.Random, prepared):
        groups, self.to_hit_chart, self.to_wound_chart = prepared
        self.scenario = scenario
        self.rng = rng
        self.engagement = scenario.engagement
        self.units = build_units(scenario, groups)
        self.rounds = 0
        self.combat = Combat(charger=ATTACKER)

    def in_fight(self, side: int) -> list[Unit]:
        return [u for u in self.units[side] if u.in_fight]

    def unit_of(self, model: Model) -> Unit:
        return self.units[model.side][model.group.unit]

    def start_combat(self, charger: int, in_cover: list[Unit]) -> None:
        """A combat whose charge round is the next round: its units placed anew (R0-2)."""
        self.combat = Combat(charger=charger, in_cover=in_cover, charge_round=self.rounds + 1)
        for side in (ATTACKER, DEFENDER):
            for unit in self.in_fight(side):
                place_unit(unit)

    def target(self, unit: Unit) -> Unit:
        """The enemy unit ``unit`` strikes this step (R0-13): the first enemy unit in the fight
        going through them in file order cyclically from its ``strikes`` unit (default 0)."""
        enemies = self.units[1 - unit.side]
        names = [e.name for e in enemies]
        strikes = unit.options.get("strikes")
        start = names.index(strikes) if strikes is not None else 0
        for k in range(len(enemies)):
            enemy = enemies[(start + k) % len(enemies)]
            if enemy.in_fight:
                return enemy
        raise AssertionError("a unit in the fight always has an enemy in the fight")

    # --- a round ---------------------------------------------------------------------------

    def play_round(self) -> list[int]:
        """One round (R0-2 ... R0-9) over every unit in the fight; returns the unsaved wounds
        each side caused. Stops after the step that leaves a side with no unit in the fight."""
        charge_round = self.rounds == self.combat.charge_round
        charger = self.combat.charger
        caused = [0, 0]  # unsaved wounds each side caused this round (R0-10, R0-13)
        steps = set()
        for side in (ATTACKER, DEFENDER):
            for unit in self.in_fight(side):
                for model in unit.standing:
                    step = strike_step(model, unit, self.combat, charge_round)
                    if step is not None:
                        steps.add(step)

        for step in sorted(steps, reverse=True):  # cover, I 10 ... 1, strikes last (R0-4)
            # Targets and fronts are chosen at the start of the step (R0-6, R0-13).
            targets = {}
            for side in (ATTACKER, DEFENDER):
                for unit in self.in_fight(side):
                    enemy = self.target(unit)
                    targets[id(unit)] = (enemy, front_group(enemy.models))
            wounds_against = {id(u): [] for side in (ATTACKER, DEFENDER)
                              for u in self.in_fight(side)}
            for side in (ATTACKER, DEFENDER):
                strikers = [m for unit in self.in_fight(side) for m in unit.standing
                            if strike_step(m, unit, self.combat, charge_round) == step]
                strikers.sort(key=lambda m: (m.group.index, m.place))  # READING 1
                for model in strikers:
                    enemy, front = targets[id(self.unit_of(model))]
                    wounds_against[id(enemy)] += roll_attacks(
                        model, front, charge_round, charger,
                        self.to_hit_chart, self.to_wound_chart, self.rng)
            # Allocation and saves inside each unit by the receiving model (R0-8, R0-9).
            for side in (ATTACKER, DEFENDER):
                for unit in self.in_fight(side):
                    for wound in wounds_against[id(unit)]:
                        target = next_to_take_wound(unit.models)
                        if target is None:
                            break  # nobody left in the unit: the rest are lost (R0-13)
                        if saved(target, wound, self.rng):
                            continue
                        target.wounds -= 1
                        unit.wounds += 1
                        caused[1 - side] += 1
            # Casualties are removed at the end of the step (R0-4.5); a unit with no model
            # left is destroyed and leaves the fight at once (R0-13).
            for side in (ATTACKER, DEFENDER):
                for unit in self.in_fight(side):
                    for model in unit.standing:
                        if model.wounds == 0:
                            model.removed = True
                            unit.lost += 1
                    if not unit.standing:
                        unit.fate = outcome.UNIT_DESTROYED
                        unit.in_fight = False
            if not self.in_fight(ATTACKER) or not self.in_fight(DEFENDER):
                break
        return caused

    # --- after the round -------------------------------------------------------------------

    def after_round(self, caused: list[int]) -> dict | None:
        """Result, morale, pursuit and advance (R0-10 ... R0-14); the record if the fight
        ended, else None (pile in, next round)."""
        left = [bool(self.in_fight(side)) for side in (ATTACKER, DEFENDER)]
        if not any(left):
            return self.finish(outcome.NONE, outcome.MUTUAL)
        if not all(left):
            loser = ATTACKER if not left[ATTACKER] else DEFENDER
            moves = []
            if self.fresh_unit(loser) is not None and self.engagement["pursue"]:
                moves = [two_d6(self.rng) for _ in self.in_fight(1 - loser)]  # R0-10
            return self.advance(loser, moves)

        # R0-10 / R0-13 Combat result: more unsaved wounds wins; equal: D6 roll-off.
        by_roll_off = False
        if caused[ATTACKER] > caused[DEFENDER]:
            winner = ATTACKER
        elif caused[DEFENDER] > caused[ATTACKER]:
            winner = DEFENDER
        else:
            by_roll_off = True
            attacker_roll = d6(self.rng)
            defender_roll = d6(self.rng)
            if attacker_roll > defender_roll:
                winner = ATTACKER
            elif defender_roll > attacker_roll:
                winner = DEFENDER
            else:
                winner = None  # true draw (R0-14)

        if winner is not None:
            loser = 1 - winner
            # R0-11 each losing unit tests 2D6 <= its Ld; the failed ones fall back 2D6.
            failed = [u for u in self.in_fight(loser)
                      if not fearless(u) and two_d6(self.rng) > leadership(u)]
            fall_backs = [two_d6(self.rng) for _ in failed]
            for unit in failed:
                unit.in_fight = False
            # R0-12 every winning unit pursues (one 2D6 each) or all consolidate.
            pursuit = []
            if failed and self.engagement["pursue"] and not by_roll_off:
                pursuit = [two_d6(self.rng) for _ in self.in_fight(winner)]
            for unit, fall_back in zip(failed, fall_backs):
                if pursuit and catches(max(pursuit), fall_back, self.engagement):
                    unit.fate = outcome.UNIT_CAUGHT
                    unit.lost += len(unit.standing)
                else:
                    unit.fate = outcome.UNIT_FLED
            if not self.in_fight(loser):
                return self.advance(loser, pursuit)

        # Units of both sides left: pile in, next round.
        for side in (ATTACKER, DEFENDER):
            for unit in self.in_fight(side):
                pile_in(unit, self.engagement["pile_in"])
        return None

    def fresh_unit(self, side: int) -> Unit | None:
        waiting = [u for u in self.units[side] if u.waiting]
        return waiting[0] if waiting else None

    def advance(self, loser: int, moves: list[int]) -> dict | None:
        """R0-12: side ``loser`` has no unit left in the fight. The winner's units in the fight
        move ``moves`` (one each, file order; none: nobody advances); those reaching the
        loser's fresh unit start a new combat against it as chargers, the others leave the
        fight. Returns the record if the fight ends here."""
        winner = 1 - loser
        fresh = self.fresh_unit(loser)
        if fresh is None or not moves:
            return self.won(winner)
        reached = False
        for unit, move in zip(self.in_fight(winner), moves):
            if reaches(move, fresh.options["distance"], self.engagement):
                reached = True
            else:
                unit.in_fight = False  # fell short: out of the fight, unbroken
        if not reached:
            return self.won(winner)
        fresh.waiting = False
        fresh.in_fight = True
        self.start_combat(winner, [fresh] if fresh.options.get("in_cover") else [])  # READING 6
        return None

    # --- the record ------------------------------------------------------------------------

    def won(self, winner: int) -> dict:
        """The record of a fight side ``winner`` won: the loser fled if any of its units fled,
        else was caught if any was caught, else destroyed."""
        fates = [u.fate for u in self.units[1 - winner]]
        if outcome.UNIT_FLED in fates:
            end = outcome.FLED
        elif outcome.UNIT_CAUGHT in fates:
            end = outcome.CAUGHT
        else:
            end = outcome.DESTROYED
        return self.finish(outcome.ATTACKER if winner == ATTACKER else outcome.DEFENDER, end)

    def finish(self, winner: int, end: int) -> dict:
        """The outcome record; a fresh unit still waiting is unreached."""
        record = {"winner": winner, "end": end, "rounds": self.rounds}
        for side, key in enumerate(SIDE_KEYS):
            record[f"{key}_lost"] = sum(u.lost for u in self.units[side])
        for side, key in enumerate(SIDE_KEYS):
            record[f"{key}_wounds"] = sum(u.wounds for u in self.units[side])
        if outcome.unit_columns(self.scenario):
            for side, key in enumerate(SIDE_KEYS):
                for unit in self.units[side]:
                    fate = outcome.UNIT_UNREACHED if unit.waiting else unit.fate
                    for part, value in zip(outcome.UNIT_PARTS, (fate, unit.lost, unit.wounds)):
                        record[f"{key}.units[{unit.index}].{part}"] = value
        return record


def attack_sample(scenario, rng: random.Random, trials: int, charge_round: bool = False,
                  place: int = CONTACT) -> int:
    """Wounds (before saves) from ``trials`` single attacks of the attacker's first group at
    ``place`` against the defender's first group, the attacker having charged: the attack of
    :func:`play_fight`, alone."""
    groups, to_hit_chart, to_wound_chart = prepare(scenario)
    model = Model(group=groups[ATTACKER][0], place=place, wounds=groups[ATTACKER][0].W)
    return len(roll_attacks(model, groups[DEFENDER][0], charge_round, ATTACKER, to_hit_chart,
                            to_wound_chart, rng, attacks=trials))


def play_fight(scenario, rng: random.Random, prepared=None) -> dict:
    """Play one fight (R0-16) and return its outcome record.

    Keys: ``winner`` (0 none, 1 attacker, 2 defender), ``end`` (odds.core.outcome code),
    ``rounds``, ``attacker_lost``/``defender_lost`` (models removed, a caught unit's remaining
    models included) and ``attacker_wounds``/``defender_wounds`` (unsaved wounds suffered,
    only those that landed on a model); when a side has several units, also the per-unit keys
    of odds.core.outcome.unit_columns (fate, lost, wounds of each unit). ``prepared`` is
    :func:`prepare`'s result (optional).
    """
    fight = Fight(scenario, rng, prepared or prepare(scenario))
    engagement = scenario.engagement

    # R0-1 Charge.
    if not charge_reaches(engagement, rng):
        return fight.finish(outcome.NONE, outcome.NO_FIGHT)

    charger = ATTACKER if engagement["charger"] == "attacker" else DEFENDER
    charged = 1 - charger
    in_cover = [u for u in fight.in_fight(charged)
                if engagement[f"{SIDE_KEYS[charged]}_in_cover"] or u.options.get("in_cover")]
    fight.start_combat(charger, in_cover)
    while fight.rounds < scenario.simulation["max_rounds"]:
        fight.rounds += 1
        record = fight.after_round(fight.play_round())
        if record is not None:
            return record
    return fight.finish(outcome.NONE, outcome.UNRESOLVED)


def play(scenario, trials: int, seed: int) -> pd.DataFrame:
    """``trials`` fights from one ``random.Random(seed)``, one row each (odds.core.outcome
    COLUMNS, then the per-unit columns of unit_columns)."""
    rng = random.Random(seed)
    prepared = prepare(scenario)
    rows = [play_fight(scenario, rng, prepared) for _ in range(trials)]
    return pd.DataFrame(rows, columns=list(outcome.COLUMNS) + list(outcome.unit_columns(scenario)))
