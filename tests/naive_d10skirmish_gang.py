"""Slow, obviously-correct reference for one fight of two gangs in the D10 skirmish game.

It follows the "Gangs" section of ``odds/rulesets/d10skirmish/README.md`` step by step:
fighters as objects, contacts as sets, distances as plain inches, AP counted action by action,
every die a real ``rng.randint(1, 10)``, each exchange resolved die by die with
``naive_exchange.resolve``. Tests use it to check the gang rule text (gang.py) statistically.

* :func:`play_fight` plays one fight and returns the outcome record as a dict;
* :func:`play` plays many fights and returns a :class:`pandas.DataFrame`, one row per fight.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

import pandas as pd

from odds.core import outcome
from odds.rulesets.d10skirmish import rules
import naive_d10skirmish as naive
from naive_d10skirmish import CHARGE_AP, SIDE_KEYS, WINNER_CODE, d10, roll
from naive_exchange import resolve


@dataclass(eq=False)
class Fighter(naive.Fighter):
    """A fighter of a gang: the one-a-side fighter with its unit's keys and its place."""

    name: str = ""
    move: float = 0.0
    gap: float = 0.0                # inches from the melee point
    charges: str | None = None      # the enemy it charges, by name
    sees: bool = True
    fresh: bool = False
    policy: str = "nearest"
    flee_below: int = 0
    contacts: set = field(default_factory=set)
    status: str = "in"              # in, down, fled, pushed
    activated: bool = False
    met: bool = False
    exchanges: int = 0
    __eq__ = object.__eq__  # fighters are told apart by who they are (kept in sets)
    __hash__ = object.__hash__

    @property
    def taken(self) -> int:
        return self.wounds - self.wounds_left

    @property
    def in_fight(self) -> bool:
        return self.status == "in"


def build(scenario) -> list[Fighter]:
    table = rules.weapons(scenario)
    out = []
    for side, key in enumerate(SIDE_KEYS):
        for unit in scenario.side(key).every_unit:
            o = unit.options
            out.append(Fighter(
                **naive.stats(side, unit.models[0], table), name=unit.name,
                move=unit.models[0].profile["M"] or 0.0, gap=o["distance"] or 0.0,
                charges=o["charges"], sees=o["line_of_sight"] is not False,
                fresh=not o["engaged"], policy=o["target"], flee_below=o["flee_below"]))
    return out


class Over(Exception):
    pass


class Fight:
    def __init__(self, scenario, rng: random.Random):
        self.e = scenario.engagement
        self.rng = rng
        self.fighters = build(scenario)
        self.charger = SIDE_KEYS.index(self.e["charger"])
        self.max_rounds = scenario.simulation["max_rounds"]
        self.several = any(scenario.side(k).units for k in SIDE_KEYS)
        if not self.several:  # one fighter a side: the charger charges the other
            self.fighters[self.charger].charges = self.fighters[1 - self.charger].name
        self.melee = False
        self.exchanges = 0
        self.pushed = 0
        self.turn = 1
        self.result = None

    def side(self, s: int) -> list[Fighter]:
        return [f for f in self.fighters if f.side == s]

    # --- leaving the fight, and its end --------------------------------------------------

    def leave(self, f: Fighter, status: str) -> None:
        f.status = status
        for other in f.contacts:
            other.contacts.discard(f)
        f.contacts = set()

    def settle(self) -> None:
        standing = [any(f.in_fight for f in self.side(s)) for s in (0, 1)]
        if all(standing):
            return
        if not any(standing):
            self.result = (outcome.NONE, outcome.MUTUAL)
        else:
            loser = standing.index(False)
            all_down = all(f.status == "down" for f in self.side(loser))
            self.result = (WINNER_CODE[1 - loser],
                           outcome.DESTROYED if all_down else outcome.FLED)
        raise Over

    # --- damage and exchanges ------------------------------------------------------------

    def wounds_dealt(self, striker: Fighter, target: Fighter, crits: int, hits: int) -> int:
        total = 0
        for _ in range(hits):
            if d10(self.rng) > target.armour:  # A2
                total += striker.damage
        mode = self.e["crit_mode"]
        for _ in range(crits):
            if mode == "ignore_armour" or d10(self.rng) > target.armour:
                total += striker.damage * (1 if mode == "ignore_armour" else 2)
        return total

    def exchange(self, a: Fighter, t: Fighter) -> None:
        e = self.e
        flees = False
        if t.ap >= max(1, e["reaction_ap"]):
            t.ap -= e["reaction_ap"]
            flees = (e["reaction"] == "flee" and t.side != self.charger) or \
                t.wounds_left <= t.flee_below
            answer = [] if flees else roll(self.rng, t.attacks)
        else:
            answer = roll(self.rng, 1)
        mine = roll(self.rng, a.attacks)
        f0, f1 = (a, t) if a.side == 0 else (t, a)
        d0, d1 = (mine, answer) if a.side == 0 else (answer, mine)
        l0, l1 = resolve(d0, f0.roller, d1, f1.roller, first=a.side,
                         crit_blockable=e["crit_blockable"],
                         adjust_can_create_crit=e["adjust_can_create_crit"])
        to1 = self.wounds_dealt(f0, f1, l0.crits, l0.hits)
        to0 = self.wounds_dealt(f1, f0, l1.crits, l1.hits)
        f0.wounds_left = max(f0.wounds_left - to0, 0)  # A6: together
        f1.wounds_left = max(f1.wounds_left - to1, 0)
        self.exchanges += 1
        a.exchanges += 1
        t.exchanges += 1
        for f in (f0, f1):
            if f.down:
                self.leave(f, "down")
        if flees and t.in_fight:
            self.leave(t, "fled")
        self.settle()

    # --- choices -------------------------------------------------------------------------

    def key(self, f: Fighter, t: Fighter):
        """Sort key of a candidate target: smaller is better (ties: nearer, then file order)."""
        apart = f.gap + t.gap
        if f.policy == "weakest":
            return (t.wounds_left, apart)
        if f.policy == "engaged":
            return (-len(t.contacts), apart)
        return (apart,)

    def target(self, f: Fighter) -> Fighter | None:
        for t in self.side(1 - f.side):
            if t.name == f.charges and t.in_fight:
                return t
        candidates = [t for t in self.side(1 - f.side) if t.in_fight]
        return min(candidates, key=lambda t: self.key(f, t)) if candidates else None

    def meet(self, f: Fighter, t: Fighter) -> None:
        f.contacts.add(t)
        t.contacts.add(f)
        f.gap = t.gap
        f.met = t.met = True
        self.melee = True

    # --- an activation -------------------------------------------------------------------

    def activate(self, f: Fighter) -> None:
        e = self.e
        while f.in_fight:
            if f.contacts:
                if f.ap < e["melee_attack_ap"]:
                    return
                f.ap -= e["melee_attack_ap"]
                t = min(f.contacts, key=lambda t: (self.key(f, t), self.fighters.index(t)))
                self.exchange(f, t)
                continue
            if f.side != self.charger and not f.fresh and not self.melee:
                return  # it waits to be charged
            t = self.target(f)
            if t is None:
                return
            apart = f.gap + t.gap
            push = e["opening"] == "push" and t.name == f.charges and not f.met
            reach, cost = (f.move, e["push_ap"]) if push else (2 * f.move, CHARGE_AP)
            if (f.sees or f.met) and apart <= reach:
                if f.ap < cost:
                    return
                f.ap -= cost
                self.meet(f, t)
                if push:
                    if d10(self.rng) <= f.skill:  # R3-9
                        self.pushed = 1
                        t.wounds_left = max(t.wounds_left - e["fall_damage"], 0)
                        self.leave(t, "down" if t.down else "pushed")
                        self.settle()
                else:
                    self.exchange(f, t)
                if e["opening_ends_activation"]:
                    return
            elif apart <= 0:
                self.meet(f, t)
            elif f.gap > 0 and f.ap >= (e["move_ap"] or 1):
                f.ap -= e["move_ap"] or 1
                f.gap = max(f.gap - f.move, 0.0)
            else:
                return

    def play(self) -> None:
        e = self.e
        starter = self.charger if e["charged_ap_left"] is None else 1 - self.charger
        for f in self.fighters:
            f.ap = f.ap_each_turn
            if f.side != self.charger and e["charged_ap_left"] is not None:
                f.ap, f.activated = e["charged_ap_left"], True
        nxt = self.charger
        try:
            while True:
                for s in (nxt, 1 - nxt):
                    waiting = [f for f in self.side(s) if f.in_fight and not f.activated]
                    if waiting:
                        nxt = 1 - s
                        waiting[0].activated = True
                        self.activate(waiting[0])
                        break
                else:
                    if self.turn >= self.max_rounds:
                        self.result = (outcome.NONE,
                                       outcome.UNRESOLVED if self.melee else outcome.NO_FIGHT)
                        return
                    self.turn += 1
                    starter = 1 - starter if e["turn_order"] == "alternate" and self.melee \
                        else self.charger
                    nxt = starter
                    for f in self.fighters:
                        f.ap, f.activated = f.ap_each_turn, False
        except Over:
            return


def play_fight(scenario, rng: random.Random) -> dict:
    fight = Fight(scenario, rng)
    fight.play()
    winner, end = fight.result
    row = {"winner": winner, "end": end, "rounds": fight.turn}
    for s, key in enumerate(SIDE_KEYS):
        row[f"{key}_lost"] = sum(f.status == "down" for f in fight.side(s))
        row[f"{key}_wounds"] = sum(f.taken for f in fight.side(s))
    row["exchanges"], row["pushed"] = fight.exchanges, fight.pushed
    if fight.several:
        for s, key in enumerate(SIDE_KEYS):
            for i, f in enumerate(fight.side(s)):
                fate = {"down": outcome.UNIT_DESTROYED, "fled": outcome.UNIT_FLED,
                        "pushed": outcome.UNIT_FLED}.get(f.status, outcome.UNIT_STANDING)
                if f.in_fight and f.fresh and not f.met:
                    fate = outcome.UNIT_UNREACHED
                stem = f"{key}.units[{i}]"
                row.update({f"{stem}.fate": fate, f"{stem}.lost": int(f.status == "down"),
                            f"{stem}.wounds": f.taken, f"{stem}.fought": int(f.met),
                            f"{stem}.exchanges": f.exchanges})
    return row


def play(scenario, trials: int, seed: int = 0) -> pd.DataFrame:
    rng = random.Random(seed)
    return pd.DataFrame([play_fight(scenario, rng) for _ in range(trials)])
