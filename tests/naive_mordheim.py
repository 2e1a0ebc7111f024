"""Slow, obviously-correct reference for one Mordheim close combat (RULES.md §2, R1-1 ... R1-12).

It follows ``odds/rulesets/mordheim/README.md`` step by step: every warrior is an object with
its status and wounds, every die is one ``dice.d6()``. Tests use it to check the numba kernel
statistically, and drive it with scripted dice to check the state machine exactly.
"""
from __future__ import annotations

import random

import pandas as pd

from odds.core import outcome
from odds.rulesets.mordheim import rules
from odds.rulesets.mordheim.compile import EXTRA_COLUMNS

STANDING, KNOCKED_DOWN, STUNNED, OUT_OF_ACTION, FLED = range(5)
AUTO = 7  # the "roll" of an automatic hit: above any parry die (R1-5)


class Dice:
    """Real dice from a seeded ``random.Random``."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def d6(self) -> int:
        return self.rng.randint(1, 6)

    def tiebreak(self) -> float:
        """The roll-off between equal Initiatives (R1-2), as a uniform key."""
        return self.rng.random()


class Fighter:
    def __init__(self, warrior: rules.Warrior):
        self.w = warrior
        self.side = warrior.side
        self.status = STANDING
        self.wounds = warrior.profile["W"]
        self.stood_up = self.pistol_used = self.parry_used = self.crit_used = False
        self.fear_failed = False
        self.frenzied = warrior.skills(False, 0).frenzy  # lost once knocked down or stunned

    def skills(self, fight):
        """His skills and special rules in force this round."""
        return self.w.skills(fight.first, fight.p["charger"])


def prepare(scenario):
    """What a fight needs from the scenario, computed once."""
    to_hit, to_wound, save_mod = rules.charts()
    ws = rules.warriors(scenario)
    n_att = sum(w.side == 0 for w in ws)
    contact = [[False] * len(ws) for _ in ws]
    for a, d in rules.contact_pairs(scenario):
        contact[a][n_att + d] = contact[n_att + d][a] = True
    return dict(warriors=ws, contact=contact, to_hit=to_hit, to_wound=to_wound,
                save_mod=save_mod,
                charger=0 if scenario.engagement["charger"] == "attacker" else 1,
                all_alone=scenario.engagement["all_alone"],
                max_rounds=scenario.simulation["max_rounds"])


class Fight:
    def __init__(self, p, dice):
        self.p, self.dice = p, dice
        self.f = [Fighter(w) for w in p["warriors"]]
        self.rec = {c: 0 for c in outcome.COLUMNS + EXTRA_COLUMNS}
        self.first = True

    def present(self, side):
        return [x for x in self.f if x.side == side and x.status <= STUNNED]

    def touching(self, x):
        """Enemies in base contact that are still in the fight, in listed order (R1-3)."""
        i = self.f.index(x)
        return [y for j, y in enumerate(self.f) if self.p["contact"][i][j] and y.status <= STUNNED]

    def add(self, column, side, n=1):
        self.rec[f"{('attacker', 'defender')[side]}_{column}"] += n

    # --- R1-2 ------------------------------------------------------------------------------
    def tier(self, x):
        skills = x.skills(self)
        if x.stood_up:
            return 3
        if any(w.strikes_last for w in x.w.weapons) and not skills.ignores_strikes_last:
            return 2  # Strongman ignores it
        if self.first and (x.side == self.p["charger"] or skills.strike_first
                           or any(w.strike_first for w in x.w.weapons)):
            return 0
        return 1

    def strike_order(self):
        keys = [(self.tier(x), -x.w.profile["I"], self.dice.tiebreak(), i)
                for i, x in enumerate(self.f) if x.status == STANDING and self.touching(x)]
        return [self.f[k[3]] for k in sorted(keys)]

    # --- R1-3 ... R1-9 ---------------------------------------------------------------------
    def strike(self, x):
        enemies = self.touching(x)
        standing = [y for y in enemies if y.status == STANDING]
        stunned = [y for y in enemies if y.status == STUNNED]
        if not enemies:  # everyone he touched has been taken out or fled
            return
        if not standing and stunned:  # R1-9: a stunned enemy in contact is taken out
            self.take_out(stunned[0])
            return
        target = standing[0] if standing else enemies[0]
        main = x.w.weapons[0]
        attacks = x.w.profile["A"] * (2 if x.frenzied else 1)  # Frenzy doubles A
        blows = [main] if main.single_attack else [main] * attacks
        if len(x.w.weapons) == 2:
            off = x.w.weapons[1]
            if not (off.once_per_combat and x.pistol_used):
                blows.append(off)
            x.pistol_used = x.pistol_used or off.once_per_combat
        hits = []
        if target.status == KNOCKED_DOWN:
            hits = [(w, AUTO) for w in blows]
        else:
            need = 6 if x.fear_failed and self.first else \
                self.p["to_hit"][x.w.profile["WS"] - 1][target.w.profile["WS"] - 1]
            for w in blows:
                roll = self.roll(need, x.skills(self).reroll_hit)
                if roll >= need:
                    hits.append((w, roll))
            self.parry(x, target, hits)
        self.wound(x, target, hits)

    def strength(self, x, weapon):
        charging_mounted = self.first and x.side == self.p["charger"] and x.w.mounted
        return weapon.hit_strength(x.w.profile["S"], self.first, charging_mounted,
                                   x.skills(self).strength_bonus)  # Mighty Blow

    def roll(self, need, reroll):
        """One D6 for a roll of ``need``+, re-rolled once if ``reroll`` says so."""
        roll = self.dice.d6()
        if (reroll == "ones" and roll == 1) or (reroll == "failures" and roll < need):
            roll = self.dice.d6()
        return roll

    def parry(self, x, target, hits):
        """R1-5: the first striker to hit the target each round meets its parry."""
        if not hits or not target.w.parry_items or target.parry_used:
            return
        target.parry_used = True
        best = max(r for _, r in hits)
        k = [r for _, r in hits].index(best)
        if best >= 6 or self.strength(x, hits[k][0]) >= 2 * target.w.profile["S"]:
            return
        parried = self.dice.d6() > best
        if not parried and target.w.parry_items >= 2:
            parried = self.dice.d6() > best
        if parried:
            del hits[k]
            self.add("parries", target.side)

    def wound(self, x, target, hits):
        was_down = target.status == KNOCKED_DOWN
        worst = 0  # 0 none, else KNOCKED_DOWN / STUNNED / OUT_OF_ACTION
        mine, theirs = x.skills(self), target.skills(self)
        for w, _ in hits:
            s = self.strength(x, w)
            struck = min(10, max(1, s + theirs.enemy_strength_modifier))  # Resilient
            need = self.p["to_wound"][struck - 1][target.w.profile["T"] - 1]
            if need == rules.NO_SAVE:
                continue
            roll = self.roll(need, mine.reroll_wound)
            if roll < need:
                continue
            wounds, save, master = 1, True, False
            crit_on = min(w.crit_on, mine.crit_on)
            if roll >= crit_on and need < 6 and not x.crit_used:  # R1-7
                x.crit_used = True
                self.add("criticals", x.side)
                chart = self.dice.d6() + mine.critical_modifier  # Web of Steel
                wounds, save, master = 2, chart <= 2, chart >= 5
            if save:  # R1-8
                needed = max(2, target.w.save + self.p["save_mod"][s - 1] - w.save_modifier)
                if needed <= 6 and self.dice.d6() >= needed:
                    continue
            for _ in range(wounds):
                if theirs.special_save <= 6 and self.dice.d6() >= theirs.special_save:
                    continue  # Step Aside: each wound, after armour, unmodified
                self.add("wounds", target.side)
                if was_down:
                    worst = OUT_OF_ACTION
                    break
                if target.wounds > 0:
                    target.wounds -= 1
                    if target.wounds > 0:
                        continue
                worst = max(worst, self.injury(w, 2 * master + mine.injury_modifier))
                if worst == OUT_OF_ACTION:
                    break
            if worst == OUT_OF_ACTION:
                break
        if worst == STUNNED and target.w.avoid_stun <= 6 and self.dice.d6() >= target.w.avoid_stun:
            worst = KNOCKED_DOWN  # R1-8 helmet
        if worst == OUT_OF_ACTION:
            self.take_out(target)
        elif worst:
            target.status = max(target.status, worst)
            target.frenzied = False
            self.add("knocked_down" if worst == KNOCKED_DOWN else "stunned", target.side)

    def injury(self, weapon, bonus):
        """R1-9, plus ``bonus``: a master strike's +2 and Strike to Injure."""
        roll = self.dice.d6() + bonus
        if roll >= 5:
            return OUT_OF_ACTION
        if roll >= 3 or (weapon.concussion and roll == 2):
            return STUNNED
        return KNOCKED_DOWN

    def take_out(self, y):
        y.status = OUT_OF_ACTION
        self.add("lost", y.side)

    # --- R1-11 -----------------------------------------------------------------------------
    def all_alone(self, side):
        for x in self.f:
            if x.side != side or x.status != STANDING:
                continue
            if any(y is not x and y.side == side and y.status == STANDING for y in self.f):
                continue
            if x.frenzied or x.skills(self).immune_to_psychology:
                continue  # immune to All Alone
            foes = [y for y in self.touching(x) if y.status == STANDING]
            if len(foes) < 2 or self.dice.d6() + self.dice.d6() <= x.w.profile["Ld"]:
                continue
            for y in foes:
                if x.status in (STANDING, KNOCKED_DOWN, STUNNED):
                    self.wound(y, x, [(y.w.weapons[0], AUTO)])
            if x.status <= STUNNED:
                x.status = FLED

    # --- R1-12 -----------------------------------------------------------------------------
    def play(self):
        p = self.p
        winner, end, rounds = outcome.NONE, outcome.UNRESOLVED, 0
        while rounds < p["max_rounds"]:
            rounds += 1
            self.first = rounds == 1
            active = p["charger"] if rounds % 2 else 1 - p["charger"]
            for x in self.f:
                x.stood_up = x.parry_used = x.crit_used = False
                if x.side == active and not self.first:  # R1-9 recovery
                    if x.status == KNOCKED_DOWN:
                        x.status, x.stood_up = STANDING, True
                    elif x.status == STUNNED:
                        x.status = KNOCKED_DOWN
            if self.first:  # R1-6 fear of a charging fear-causer
                for x in self.f:
                    immune = x.frenzied or x.skills(self).immune_to_psychology
                    x.fear_failed = (x.side != p["charger"] and not x.w.causes_fear
                                     and not immune
                                     and any(y.w.causes_fear for y in self.touching(x))
                                     and self.dice.d6() + self.dice.d6() > x.w.profile["Ld"])
            for x in self.strike_order():
                if x.status == STANDING:
                    self.strike(x)
                if not self.present(0) or not self.present(1):
                    break
            if p["all_alone"] and self.present(0) and self.present(1):
                self.all_alone(active)
            left = [self.present(0), self.present(1)]
            if not left[0] and not left[1]:
                end = outcome.MUTUAL
                break
            if not left[0] or not left[1]:
                loser = 0 if not left[0] else 1
                winner = outcome.DEFENDER if loser == 0 else outcome.ATTACKER
                fled = any(x.side == loser and x.status == FLED for x in self.f)
                end = outcome.FLED if fled else outcome.DESTROYED
                break
        self.rec.update(winner=winner, end=end, rounds=rounds)
        return self.rec


def play_fight(prepared, dice) -> dict:
    """One fight; the outcome record (shared columns + EXTRA_COLUMNS) as a dict."""
    return Fight(prepared, dice).play()


def play(scenario, trials: int, seed: int) -> pd.DataFrame:
    """Many fights with one seeded dice stream: one row per fight."""
    prepared, dice = prepare(scenario), Dice(seed)
    return pd.DataFrame([play_fight(prepared, dice) for _ in range(trials)])
