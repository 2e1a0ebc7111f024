"""Slow, obviously-correct reference for one fight of the D10 action-point skirmish game.

It follows ``odds/rulesets/d10skirmish/README.md`` (RULES.md §4, rules R3-2 ... R3-9, readings
§4.2 and assumptions A1-A6) step by step: the fighters' AP are counted action by action, every
die is a real ``rng.randint(1, 10)``, and each exchange is resolved die by die with
``naive_exchange.resolve`` (tests/naive_exchange.py). Tests use it to check the numba kernel
statistically.

* :func:`play_fight` plays one fight and returns the outcome record as a dict;
* :func:`play` plays many fights and returns a :class:`pandas.DataFrame`, one row per fight.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

import pandas as pd

from odds.core import outcome
from odds.rulesets.d10skirmish import rules
from naive_exchange import Roller, resolve

SIDE_KEYS = ("attacker", "defender")
WINNER_CODE = (outcome.ATTACKER, outcome.DEFENDER)
CHARGE_AP = 2  # R3-2


def d10(rng: random.Random) -> int:
    return rng.randint(1, 10)


def roll(rng: random.Random, n: int) -> list[int]:
    return [d10(rng) for _ in range(n)]


@dataclass
class Fighter:
    """One fighter, its weapons folded in (README "Fighters"), and its state in the fight."""

    side: int
    skill: int
    attacks: int
    ap_each_turn: int
    wounds: int
    armour: int
    damage: int
    roller: Roller
    wounds_left: int = 0
    ap: int = 0

    @property
    def down(self) -> bool:
        return self.wounds_left <= 0


def build(scenario) -> list[Fighter]:
    """The attacker's and defender's fighters: MS, DMG and attacks with weapons (R3-3, A4)."""
    table = rules.weapons(scenario)
    return [Fighter(**stats(side, scenario.side(key).models[0], table))
            for side, key in enumerate(SIDE_KEYS)]


def stats(side: int, group, table) -> dict:
    """A fighter's fields from its model group and the weapons ``table``."""
    p = group.profile
    carried = [table[name] for name in group.equipment]
    skill = p["MS"] + sum(w["skill"] for w in carried)
    attacks = (skill + 1) // 2 + sum(w["attacks"] for w in carried)  # ceil(MS / 2), R3-3
    return dict(side=side, skill=skill, attacks=attacks, ap_each_turn=p["AP"], wounds=p["W"],
                armour=p["ARM"], damage=p["DMG"] + sum(w["damage"] for w in carried),
                roller=Roller(skill, group.options["adjust"], group.options["adjust_for"]),
                wounds_left=p["W"])


class FightOver(Exception):
    """Raised when the fight ends; carries the winner side (or None) and the end code."""

    def __init__(self, winner: int | None, end: int):
        self.winner, self.end = winner, end


class Fight:
    def __init__(self, scenario, rng: random.Random):
        self.e = scenario.engagement
        self.rng = rng
        self.fighters = build(scenario)
        self.charger = SIDE_KEYS.index(self.e["charger"])
        self.charged = 1 - self.charger
        self.max_rounds = scenario.simulation["max_rounds"]
        self.exchanges = 0
        self.pushed = 0
        side = scenario.side(self.e["charger"])
        self.gap = side.options["distance"]  # R3-1: None, in reach at the start
        self.sight = side.options["line_of_sight"] is not False  # README: seen by default
        self.move = side.models[0].profile["M"]

    # --- damage (A2, A3) ----------------------------------------------------------------

    def wounds_dealt(self, striker: Fighter, target: Fighter, crits: int, hits: int) -> int:
        total = 0
        for _ in range(hits):
            if d10(self.rng) > target.armour:  # A2: D10 <= ARM saves
                total += striker.damage
        for _ in range(crits):
            mode = self.e["crit_mode"]
            saved = mode == "double" and d10(self.rng) <= target.armour
            if not saved:
                total += striker.damage * (1 if mode == "ignore_armour" else 2)
        return total

    # --- one exchange (R3-4, R3-5, R3-8, A6) ---------------------------------------------

    def exchange(self, active: Fighter) -> None:
        reactor = self.fighters[1 - active.side]
        self.exchanges += 1
        flees = False
        if reactor.ap >= max(1, self.e["reaction_ap"]):
            reactor.ap -= self.e["reaction_ap"]
            flees = reactor.side == self.charged and self.e["reaction"] == "flee"
            answer = [] if flees else roll(self.rng, reactor.attacks)
        else:
            answer = roll(self.rng, 1)  # R3-4: no AP left, one attack back
        dice = {active.side: roll(self.rng, active.attacks), reactor.side: answer}
        a, d = self.fighters
        landed = resolve(dice[0], a.roller, dice[1], d.roller, first=active.side,
                         crit_blockable=self.e["crit_blockable"],
                         adjust_can_create_crit=self.e["adjust_can_create_crit"])
        to_d = self.wounds_dealt(a, d, landed[0].crits, landed[0].hits)
        to_a = self.wounds_dealt(d, a, landed[1].crits, landed[1].hits)
        a.wounds_left -= to_a  # A6: both land together
        d.wounds_left -= to_d
        if a.down and d.down:
            raise FightOver(None, outcome.MUTUAL)
        if a.down or d.down:
            raise FightOver(1 if a.down else 0, outcome.DESTROYED)
        if flees:
            raise FightOver(active.side, outcome.FLED)

    # --- activations (R3-2, R3-9, §4.2(7)) -----------------------------------------------

    def opening(self, charger: Fighter) -> None:
        """The charger's turn-1 activation: charge or push, then maybe more exchanges."""
        e = self.e
        if e["opening"] == "push":
            charger.ap -= e["push_ap"]
            if d10(self.rng) <= charger.skill:  # R3-9: MS test
                self.pushed = 1
                target = self.fighters[self.charged]
                target.wounds_left -= e["fall_damage"]
                raise FightOver(charger.side,
                                outcome.DESTROYED if target.down else outcome.FLED)
        else:
            charger.ap -= CHARGE_AP
            self.exchange(charger)
        if not e["opening_ends_activation"]:
            self.attack_while_ap(charger)

    def attack_while_ap(self, fighter: Fighter) -> None:
        while fighter.ap >= self.e["melee_attack_ap"]:
            fighter.ap -= self.e["melee_attack_ap"]
            self.exchange(fighter)

    def approach(self, charger: Fighter) -> tuple[int, bool] | None:
        """R3-1: the turn the charger reaches its target and whether it opens (charge or
        push) or moved into contact, its AP spent on the way; None if it never does. Each
        activation: seeing its target within a charge's double move (a push's one move), it
        opens if it has the AP, else waits for the next; farther, it moves M for move_ap AP
        while it can, and a move that ends at 0" or less is contact."""
        if self.gap is None:
            charger.ap = charger.ap_each_turn
            return 1, True
        push = self.e["opening"] == "push"
        reach = self.move if push else 2 * self.move
        cost = self.e["push_ap"] if push else CHARGE_AP
        gap, move_ap = self.gap, self.e["move_ap"] or 1  # README: 1 AP a move by default
        for turn in range(1, self.max_rounds + 1):
            charger.ap = charger.ap_each_turn
            while not (self.sight and gap <= reach):
                if gap <= 0:  # unseen and in contact: no move to make
                    return turn, False
                if charger.ap < move_ap:
                    break
                charger.ap -= move_ap
                gap -= self.move
            else:
                if charger.ap >= cost:
                    return turn, True
        return None

    def play(self) -> tuple[int | None, int, int]:
        """(winner side or None, end code, turn the fight ended in)."""
        e = self.e
        charger, charged = self.fighters[self.charger], self.fighters[self.charged]
        met = self.approach(charger)
        if met is None:
            return None, outcome.NO_FIGHT, self.max_rounds
        first, opens = met
        charged.ap = charged.ap_each_turn if e["charged_ap_left"] is None else e["charged_ap_left"]
        starter = self.charger if e["charged_ap_left"] is None else self.charged
        for turn in range(first, self.max_rounds + 1):
            try:
                if turn == first:
                    if opens:
                        self.opening(charger)
                    else:  # moved into contact: it fights on with the AP it has left
                        self.attack_while_ap(charger)
                    if e["charged_ap_left"] is None:
                        self.attack_while_ap(charged)
                    continue
                for f in self.fighters:
                    f.ap = f.ap_each_turn
                starter = 1 - starter if e["turn_order"] == "alternate" else self.charger
                self.attack_while_ap(self.fighters[starter])
                self.attack_while_ap(self.fighters[1 - starter])
            except FightOver as over:
                return over.winner, over.end, turn
        return None, outcome.UNRESOLVED, self.max_rounds


def play_fight(scenario, rng: random.Random) -> dict:
    """One fight's outcome record (the columns of odds.core.outcome plus the extra ones)."""
    fight = Fight(scenario, rng)
    winner, end, turn = fight.play()
    a, d = fight.fighters
    return {
        "winner": outcome.NONE if winner is None else WINNER_CODE[winner],
        "end": end,
        "rounds": turn,
        "attacker_lost": int(a.down),
        "defender_lost": int(d.down),
        "attacker_wounds": a.wounds - max(a.wounds_left, 0),
        "defender_wounds": d.wounds - max(d.wounds_left, 0),
        "exchanges": fight.exchanges,
        "pushed": fight.pushed,
    }


def play(scenario, trials: int, seed: int = 0) -> pd.DataFrame:
    """``trials`` fights with ``random.Random(seed)``, one row per fight."""
    rng = random.Random(seed)
    return pd.DataFrame([play_fight(scenario, rng) for _ in range(trials)])
