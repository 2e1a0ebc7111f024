"""Pure-Python reference for whfb8: one real die at a time, ranks kept as a list of models.

Slow and obvious, written from odds/rulesets/whfb8/README.md rather than from the kernel, so
that tests/test_whfb8_parity.py can check the numba kernel against it. It shares only the
scenario loader and the data tables (charts, equipment) with the package.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from odds.core.outcome import (
    ATTACKER,
    CAUGHT,
    DEFENDER,
    DESTROYED,
    FLED,
    MUTUAL,
    NO_FIGHT,
    NONE,
    UNRESOLVED,
)
from odds.rulesets.whfb8.rules import (
    charts,
    equipment,
    fighting_weapon,
    group_rules,
    special_rules,
    troop_types,
)


class WithRules:
    """Models with special rules (``self.rules``): which they have, which are in force."""

    def has(self, key) -> bool:
        return any(getattr(r, key) for r in self.rules)

    def active(self, first_round, charging) -> list:
        """The special rules in force this round, by their `when`."""
        return [r for r in self.rules if r.when == "always"
                or (first_round and r.when == "first round")
                or (first_round and charging and r.when == "charging")]


@dataclass
class Unit(WithRules):
    """One side's unit and its fighting state."""

    profile: dict
    width: int
    count: int
    options: dict
    rules: list             # SpecialRule entries
    weapon: object
    items: list
    mounted: bool
    mount: dict | None
    horde: int              # files that make a Horde, 0: never
    rank_models: int        # models that make a rank
    support_max: int        # supporting attacks of one model at most (8e)
    killable: bool          # can be slain by a man-sized Killing Blow
    stomped: bool           # takes Stomps
    ranks: list = None      # models in each rank, front first
    damage: int = 0         # wounds on the model that will be removed next
    frenzied: bool = False
    afraid: bool = False

    def alive(self) -> int:
        return sum(self.ranks)


    def reset(self) -> None:
        self.ranks = [min(self.width, self.count - i) for i in range(0, self.count, self.width)]
        self.damage, self.frenzied, self.afraid = 0, self.has("frenzy"), False

    def remove_one(self) -> None:
        self.ranks[-1] -= 1
        if self.ranks[-1] == 0:
            self.ranks.pop()

    def ranks_of_five(self) -> int:
        """Ranks of 5 or more models (3 or more for monstrous troops)."""
        return sum(1 for r in self.ranks if r >= self.rank_models)

    def strikes_first(self) -> bool:
        """Always Strikes First, not cancelled by Always Strikes Last."""
        return self.has("strikes_first") and not (self.weapon.strikes_last
                                                  or self.has("strikes_last"))

    def strikes_last(self) -> bool:
        return (self.weapon.strikes_last or self.has("strikes_last")) and not self.has(
            "strikes_first")


def prepare(scenario):
    to_hit, to_wound = charts()
    table = equipment(scenario)
    units = []
    for side in (scenario.attacker, scenario.defender):
        g = side.models[0]
        troop = troop_types()[g.options["troop_type"]]
        units.append(Unit(profile=g.profile, width=side.options["width"], count=g.count,
                          options=side.options, rules=group_rules(g, special_rules(scenario)),
                          weapon=fighting_weapon(g, table), items=[table[n] for n in g.equipment],
                          mounted=troop.mounted, mount=g.options["mount"],
                          horde=troop.horde_files, rank_models=troop.rank_models,
                          support_max=troop.support_max, killable=troop.killing_blow,
                          stomped=troop.stomped))
    return to_hit, to_wound, units


def roll(rng, n=1):
    return sum(rng.randint(1, 6) for _ in range(n))


def best_reroll(key, sources):
    """The re-roll of ``key`` the sources give: every failure beats 1s; none if none does."""
    given = [getattr(x, key) for x in sources if getattr(x, key)]
    return "failures" if "failures" in given else ("ones" if given else None)


def roll_die(rng, success, reroll=None, forced=False):
    """One die's final face: re-rolled once, if it is a 1 (``"ones"``), a failure
    (``"failures"``) or, ``forced`` by the enemy, a success."""
    face = rng.randint(1, 6)
    ok = success(face)
    if (reroll == "ones" and face == 1) or (reroll == "failures" and not ok) or (forced and ok):
        face = rng.randint(1, 6)
    return face


def roll_dice(rng, spec):
    """A dice spec (odds.core.effects.dice) rolled die by die: D3 is a D6 halved, rounded up."""
    count, sides, plus = spec
    return plus + sum(-(-rng.randint(1, 6) // 2) if sides == 3 else rng.randint(1, 6)
                      for _ in range(count))


def ld_roll(rng, unit):
    """A Leadership test's two dice: 2D6, or the lowest two of 3D6 (Cold-blooded)."""
    dice = [rng.randint(1, 6) for _ in range(3 if unit.has("cold_blooded") else 2)]
    return sorted(dice)[:2]


def movement_roll(rng, unit):
    dice = [rng.randint(1, 6) for _ in range(3 if unit.has("swiftstride") else 2)]
    return sum(sorted(dice)[-2:])


def leadership(unit):
    """The Ld the unit tests on: its own or its general's; with Strength in Numbers its own
    + 1 per rank of five behind the front (at most 10), if higher."""
    ld = max(unit.profile["Ld"], unit.options["general_Ld"] or 0)
    if unit.has("strength_in_numbers"):
        ld = max(ld, min(10, unit.profile["Ld"] + max(0, unit.ranks_of_five() - 1)))
    return ld


def attack_sample(scenario, rng: random.Random, trials: int) -> int:
    """Unsaved wounds from ``trials`` single attacks of the attacker's front model in a later
    round, nobody afraid: the attack of :func:`play_fight`, alone."""
    prepared = prepare(scenario)
    return play_fight(scenario, rng, prepared, attacks=trials)


def play_fight(scenario, rng: random.Random, prepared, attacks: int | None = None):
    """One fight's outcome row; with ``attacks``, only that many of the attacker's attacks
    (see :func:`attack_sample`)."""
    to_hit, to_wound, units = prepared
    for u in units:
        u.reset()
    e = scenario.engagement
    charger = 0 if e["charger"] == "attacker" else 1
    facing = e["facing"]
    resurrection = scenario.rules["supporting_attacks"] == "resurrection"
    simultaneous = scenario.rules["same_strike_order"] == "simultaneous"
    all_tests = scenario.rules["battle_standard_rerolls"] == "all"
    caused_total = [0, 0]
    result = dict(winner=NONE, end=UNRESOLVED, rounds=0)
    loser = None

    def face(s):
        u = units[s]
        if s != charger and facing == "flank":
            return len(u.ranks)
        return u.ranks[0] if u.ranks else 0

    def in_contact(s):
        fixed = units[s].options["in_contact"]
        return min(fixed, face(s)) if fixed else min(face(s), face(1 - s) + 2)

    def supporting(s, contact):
        u = units[s]
        if s != charger and facing != "front":
            return 0
        extra = not u.mounted and (u.weapon.extra_rank or u.has("extra_rank"))
        n_ranks = int(extra) if resurrection else 1 + extra
        horde = (10 if u.horde else 0) if resurrection else u.horde
        if horde and u.ranks[0] >= horde:
            n_ranks += 1
        each = 1 if resurrection else min(u.profile["A"], u.support_max)
        return each * sum(min(contact, r) for r in u.ranks[1:1 + n_ranks])

    def fails_ld_test(u):
        """A Fear or restraint test: 2D6 above Ld fails; a battle standard re-rolls a
        failure with battle_standard_rerolls = "all"."""
        tries = 2 if u.options["battle_standard"] and all_tests else 1
        return all(sum(ld_roll(rng, u)) > leadership(u) for _ in range(tries))

    def one_attack(s, ws, strength, effects, rider):
        """One attack, die by die: to hit (none when ``ws`` is None: an automatic hit), to
        wound, armour, ward (R2-7 ... R2-9), with the effects of the striker's rules and
        weapon if ``rider`` (mounts, Impact Hits and Stomps have none). Returns None, "wound"
        or "slain" (a Killing Blow)."""
        me, them = units[s], units[1 - s]
        first_round, charging = effects
        mine = me.active(first_round, charging) + [me.weapon] if rider else []
        if ws is None:
            return rolled_wound(s, strength, mine, them, first_round, 6, False)

        reroll = best_reroll("reroll_hit", mine)
        if rider and me.strikes_first() and me.profile["I"] >= them.profile["I"]:
            if not (simultaneous and them.strikes_first()):  # both ASF: nobody re-rolls
                reroll = "failures"
        need = to_hit[(1 if me.afraid else ws) - 1][(1 if them.afraid else them.profile["WS"]) - 1]
        need = min([need] + [x.hits_on for x in mine if x.hits_on])
        mod = sum(x.hit_modifier for x in mine)
        face = roll_die(rng, lambda f: f == 6 or (f > 1 and f + mod >= need), reroll)
        if not (face == 6 or (face > 1 and face + mod >= need)):
            return None
        return rolled_wound(s, strength, mine, them, first_round, face,
                            any(x.poisoned for x in mine))

    def rolled_wound(s, strength, mine, them, first_round, hit_face, poisoned):
        """The rest of an attack that hit with ``hit_face``: to wound, armour, ward."""
        theirs = them.active(first_round, first_round and (1 - s) == charger)

        armour_ignored = slain = False
        if not (hit_face == 6 and poisoned):
            need = to_wound[strength - 1][them.profile["T"] - 1]
            need = min([need] + [x.wounds_on for x in mine if x.wounds_on])
            if need > 6:
                return None
            mod = sum(x.wound_modifier for x in mine)
            face = roll_die(rng, lambda f: f == 6 or (f > 1 and f + mod >= need),
                            best_reroll("reroll_wound", mine))
            if not (face == 6 or (face > 1 and face + mod >= need)):
                return None
            kb = [x.killing_blow for x in mine if x.killing_blow]
            slain = armour_ignored = face == 6 and ("any" in kb or (kb and them.killable))
        armour = them.profile["Sv"]
        if armour is None:
            armour = min([i.armour for i in them.items if i.armour] + [7])
            armour -= sum(i.armour_bonus for i in them.items) + them.mounted
        need = max(2, armour + max(0, strength - 3) + sum(x.armour_piercing for x in mine))
        if (need <= 6 and not armour_ignored and not any(x.ignores_armour for x in mine)
                and roll_die(rng, lambda f: f >= need, best_reroll("reroll_armour", theirs),
                             any(x.enemy_rerolls_armour for x in mine)) >= need):
            return None
        ward = them.profile["Ward"] or 7
        their_front = (1 - s) == charger or facing == "front"
        if (not them.mounted and not them.weapon.is_weapon and any(i.parry for i in them.items)
                and their_front and not them.frenzied):
            ward = min(ward, 6)
        if not any(x.flaming for x in mine):
            ward = min([ward] + [x.regeneration for x in theirs if x.regeneration])
        if ward <= 6 and roll_die(rng, lambda f: f >= ward,
                                  best_reroll("reroll_ward", theirs)) >= ward:
            return None
        return "slain" if slain else "wound"

    def dice_of(u, key):
        return next((getattr(x, key) for x in u.rules if getattr(x, key)), None)

    def strikers(s, first_round):
        """(key, attacks, ws, strength, rider) for each part of unit s: its fighting models,
        supporters, mounts, Impact Hits and Stomps (ws None: automatic hits)."""
        u = units[s]
        p = u.profile
        band = 100 if u.strikes_first() else -100 if u.strikes_last() else 0
        key = band + (0 if simultaneous and band else p["I"])
        strength = p["S"] + u.weapon.strength_bonus
        if first_round:
            strength += u.weapon.first_round_strength
            if s == charger and u.mounted:
                strength += u.weapon.charge_strength
        strength = min(10, strength)
        contact = in_contact(s)
        a = u.frenzied + (0 if u.mounted else u.weapon.extra_attack)
        a += sum(x.extra_attacks for x in u.active(first_round, s == charger))
        random_attacks = dice_of(u, "random_attacks")
        fighting = sum(a + (roll_dice(rng, random_attacks) if random_attacks else p["A"])
                       for _ in range(contact))
        champion = 1 if u.options["champion"] and contact else 0
        out = [(key, fighting + champion, p["WS"], strength, True),
               (key, supporting(s, contact), p["WS"], strength, True)]
        if u.mount and u.mount["A"]:
            out.append((u.mount["I"], contact * u.mount["A"], u.mount["WS"], u.mount["S"], False))
        impact = dice_of(u, "impact_hits")
        if impact and s == charger:
            hits = sum(roll_dice(rng, impact) for _ in range(contact)) if first_round else 0
            out.append((10, hits, None, p["S"], False))
        stomp = dice_of(u, "stomp")
        if stomp and units[1 - s].stomped:
            out.append((0, sum(roll_dice(rng, stomp) for _ in range(contact)), None, p["S"],
                        False))
        return out

    def wound(t, outcomes, multiple):
        """Unsaved wounds, then Killing Blows, on unit t, one at a time: a wound takes
        ``multiple`` dice (Multiple Wounds, or 1) from the model it hits, never more than it
        has left; a Killing Blow slays the model. Returns the wounds it took."""
        u = units[t]
        taken = 0
        for kind in sorted(outcomes, key=lambda o: o == "slain"):
            if not u.ranks:
                break
            left = u.profile["W"] - u.damage
            dealt = left if kind == "slain" else min(left, roll_dice(rng, multiple) if multiple
                                                     else 1)
            taken += dealt
            u.damage += dealt
            if u.damage == u.profile["W"]:
                u.damage = 0
                u.remove_one()
        return taken

    if attacks is not None:
        g = units[0].profile
        return sum(one_attack(0, g["WS"], min(10, g["S"] + units[0].weapon.strength_bonus),
                              (False, False), True) is not None for _ in range(attacks))

    if e["reaction"] == "flee":
        fled = movement_roll(rng, units[1 - charger])
        reach = units[charger].profile["M"] + movement_roll(rng, units[charger])
        if reach >= e["charge_distance"] + fled:
            result.update(winner=ATTACKER if charger == 0 else DEFENDER, end=CAUGHT)
            loser = 1 - charger
        else:
            result["end"] = NO_FIGHT

    rounds = 0
    while result["end"] == UNRESOLVED and rounds < scenario.simulation["max_rounds"]:
        first_round = rounds == 0
        rounds += 1
        for u, other in ((units[0], units[1]), (units[1], units[0])):
            u.afraid = False
            if (other.has("causes_fear") and not u.has("causes_fear")
                    and not u.has("unbreakable") and not u.has("immune_to_psychology")
                    and not u.frenzied):
                u.afraid = fails_ld_test(u)
        caused = [0, 0]
        begun = [(list(u.ranks), u.damage) for u in units]  # for Reality Blinks
        parts = [(key, s, a, ws, st, rr) for s in (0, 1)
                 for key, a, ws, st, rr in strikers(s, first_round)]
        for key in sorted({p[0] for p in parts}, reverse=True):
            if not units[0].ranks or not units[1].ranks:
                break
            step = [(s, *rest) for s in (0, 1)
                    for (k, *rest) in strikers(s, first_round) if k == key]
            hits = [(s, rider, [o for o in (one_attack(s, ws, st, (first_round,
                                                                   first_round and s == charger),
                                                       rider) for _ in range(a)) if o])
                    for s, a, ws, st, rider in step]
            for s, rider, outcomes in hits:
                mine = units[s].active(first_round, first_round and s == charger)
                given = [x.multiple_wounds for x in mine + [units[s].weapon]
                         if x.multiple_wounds]
                multiple = max(given, key=lambda d: d[0] * (d[1] + 1) / 2 + d[2]) \
                    if rider and given else None
                caused[s] += wound(1 - s, outcomes, multiple)
        caused_total[0] += caused[0]
        caused_total[1] += caused[1]
        a0, a1 = units[0].alive(), units[1].alive()
        if a0 == 0 or a1 == 0:
            result["end"] = MUTUAL if a0 == a1 else DESTROYED
            result["winner"] = NONE if a0 == a1 else (ATTACKER if a1 == 0 else DEFENDER)
            break
        score = []
        for s in (0, 1):
            u = units[s]
            total = caused[s] + u.options["standard"] + u.options["battle_standard"]
            total += first_round and s == charger
            if s == charger:
                total += {"front": 0, "flank": 1, "rear": 2}[facing]
            disrupted = (s != charger and facing != "front"
                         and units[1 - s].ranks_of_five() >= 2)
            if not disrupted:
                total += min(3, max(0, u.ranks_of_five() - 1))
            score.append(total)
        if score[0] == score[1]:
            m0, m1 = units[0].options["musician"], units[1].options["musician"]
            if m0 == m1:
                continue
            score[0 if m0 else 1] += 1
        loser = 0 if score[0] < score[1] else 1
        won = 1 - loser
        lu, wu = units[loser], units[won]
        lu.frenzied = False
        if lu.has("unstable"):  # a wound per point lost by, no saves; no break test
            caused_total[won] += wound(loser, ["wound"] * abs(score[0] - score[1]), None)
            if not lu.ranks:
                result.update(winner=ATTACKER if won == 0 else DEFENDER, end=DESTROYED)
                break
            continue
        if lu.has("unbreakable"):
            continue
        disrupted = (loser != charger and facing != "front" and wu.ranks_of_five() >= 2)
        steadfast = lu.has("stubborn") or (lu.ranks_of_five() > wu.ranks_of_five() and not (
            disrupted and not scenario.rules["disrupted_steadfast"]))
        target = leadership(lu) - (0 if steadfast else abs(score[0] - score[1]))
        if lu.has("daemonic_instability"):
            dice = ld_roll(rng, lu)
            if lu.options["battle_standard"] and (dice == [6, 6] or (
                    sum(dice) > target and dice != [1, 1])):
                dice = ld_roll(rng, lu)
            if dice == [1, 1]:  # Reality Blinks: the round's losses come back
                lu.ranks, lu.damage = list(begun[loser][0]), begun[loser][1]
                continue
            lost = (["slain"] * lu.alive() if dice == [6, 6]  # Banished
                    else ["wound"] * max(0, sum(dice) - target))
            caused_total[won] += wound(loser, lost, None)
            if not lu.ranks:
                result.update(winner=ATTACKER if won == 0 else DEFENDER, end=DESTROYED)
                break
            continue
        tries = 2 if lu.options["battle_standard"] else 1
        held = False
        for _ in range(tries):
            d1, d2 = ld_roll(rng, lu)
            if d1 + d2 <= target or d1 == d2 == 1:
                held = True
                break
        if held:
            continue
        result["winner"] = ATTACKER if won == 0 else DEFENDER
        result["end"] = FLED
        pursues = wu.frenzied or e["pursue"] or fails_ld_test(wu)
        fled = movement_roll(rng, lu)
        if pursues and movement_roll(rng, wu) >= fled:
            result["end"] = CAUGHT
    result["rounds"] = rounds
    for s, key in ((0, "attacker_lost"), (1, "defender_lost")):
        u = units[s]
        result[key] = u.count if (result["end"] == CAUGHT and s == loser) else u.count - u.alive()
    result["attacker_wounds"] = caused_total[1]
    result["defender_wounds"] = caused_total[0]
    return result
