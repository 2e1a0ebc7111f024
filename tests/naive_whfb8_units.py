"""Pure-Python reference for whfb8 fights of several units, characters and champions: one real
die at a time, units kept as models in ranks and heroes as models in their front slots.

Written from the spec of "Characters, champions and several units" (the whfb8 page) and, for
everything that section does not change, from "The rules, step by step" (R2-1 ... R2-14),
never from the kernel, so that tests/test_whfb8_units_parity.py can check the kernel against
it. It shares the dice helpers of tests/naive_whfb8.py and the scenario loader and data tables
with the package. ``play(scenario, rng)`` plays one fight and returns its outcome row.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cached_property

from naive_whfb8 import WithRules, best_reroll, ld_roll, movement_roll, roll_dice, roll_die

from odds.core.charts import NEVER
from odds.core.outcome import (ATTACKER, CAUGHT, DEFENDER, DESTROYED, FLED, MUTUAL, NONE,
                               UNIT_CAUGHT, UNIT_DESTROYED, UNIT_FLED, UNIT_STANDING, UNRESOLVED)
from odds.rulesets.whfb8 import units as keys
from odds.rulesets.whfb8.rules import (charts, equipment, fighting_weapon, group_rules,
                                       special_rules, troop_types)

FRONT, FLANK, REAR = "front", "flank", "rear"
ASF_BAND = 100  # Always Strikes First / Last: a step above / below every Initiative step


@dataclass
class Kind(WithRules):
    """One model group's fighting data: profile, rules, weapon, armour, mount, troop type."""

    profile: dict
    rules: list
    weapon: object
    items: list
    mounted: bool
    mount: dict | None
    killable: bool        # slain by a man-sized Killing Blow
    stomped: bool         # takes Stomps
    horde: int            # files that make a Horde (0: never)
    rank_models: int      # models that make a rank
    support_max: int      # supporting attacks of one model at most ("8e")

    @cached_property
    def asf(self) -> bool:
        """Always Strikes First, not cancelled by Always Strikes Last (R2-6)."""
        return self.has("strikes_first") and not self.asl_given

    @cached_property
    def asl(self) -> bool:
        return self.asl_given and not self.has("strikes_first")

    @cached_property
    def asl_given(self) -> bool:
        return self.weapon.strikes_last or self.has("strikes_last")

    def dice_of(self, key):
        return next((getattr(x, key) for x in self.rules if getattr(x, key)), None)

    @cached_property
    def parries(self) -> bool:
        """On foot, fighting with the hand weapon and carrying a shield (R2-9)."""
        return (not self.mounted and not self.weapon.is_weapon
                and any(i.parry for i in self.items))


def kind_of(group, scenario, table) -> Kind:
    t = troop_types()[group.options["troop_type"]]
    return Kind(profile=group.profile, rules=group_rules(group, special_rules(scenario)),
                weapon=fighting_weapon(group, table), items=[table[n] for n in group.equipment],
                mounted=t.mounted, mount=group.options["mount"], killable=t.killing_blow,
                stomped=t.stomped, horde=t.horde_files, rank_models=getattr(t, "rank_models", 5),
                support_max=getattr(t, "support_max", 1))


@dataclass(eq=False)
class Hero:
    """A character or champion (R2-4, R2-6): one model in its unit's front rank."""

    kind: Kind
    character: bool
    general: bool
    bearer: bool          # the battle standard bearer
    unit: "Unit" = None
    damage: int = 0
    alive: bool = True

    def left(self) -> int:
        return self.kind.profile["W"] - self.damage


@dataclass(eq=False)
class Unit:
    """One unit and its fighting state: rank-and-file alive and the wounds on the next one."""

    side: int
    index: int
    options: dict
    rf: Kind | None
    count: int            # rank-and-file at the start
    heroes: list
    rf_alive: int = 0
    damage: int = 0
    frenzied: bool = False
    afraid: bool = False
    state: str = "in"     # "in", "left" (standing), "fled", "caught", "destroyed"
    wounds: int = 0       # unsaved wounds suffered
    flee_roll: int = 0

    def has(self, key) -> bool:
        """A whole-unit rule, from the rank-and-file (R2-6 of the units spec)."""
        return self.rf is not None and self.rf.has(key)

    def standing(self) -> list:
        return [h for h in self.heroes if h.alive]

    def champion(self):
        return next((h for h in self.heroes if h.alive and not h.character), None)

    def characters_alone(self) -> bool:
        return self.rf_alive == 0 and self.champion() is None

    def models(self) -> int:
        return self.rf_alive + len(self.standing())

    def fighting(self) -> bool:
        return self.state == "in" and self.models() > 0

    def ranks(self) -> list:
        n, width = self.models(), self.options["width"]
        if self.characters_alone():
            width = n  # its characters, side by side
        return [min(width, n - i) for i in range(0, n, width)]

    def front(self) -> int:
        r = self.ranks()
        return r[0] if r else 0

    def ranks_of_five(self) -> int:
        if self.characters_alone():
            return 0
        return sum(1 for r in self.ranks() if r >= self.rf.rank_models)

    def total(self) -> int:
        return self.count + len(self.heroes)


@dataclass(eq=False)
class Engagement:
    """A charging unit, the unit it charged and the face it hit (R2-1, R2-3)."""

    c: Unit
    d: Unit
    face: str

    def other(self, u):
        return self.d if u is self.c else self.c

    def front_of(self, u) -> bool:
        """Whether ``u`` fights it with its front (parry, supporting attacks)."""
        return u is self.c or self.face == FRONT


@dataclass
class Target:
    """Where attacks go: a unit's rank-and-file (then champion), or one hero."""

    unit: Unit
    hero: Hero | None
    kind: Kind
    front: bool


@dataclass
class Part:
    """Attacks striking together: ``ws`` None for automatic hits (Impact Hits, Stomps)."""

    side: int
    attacks: int
    ws: int | None
    strength: int
    mine: list            # the attack effects in force: rules and weapon, [] for mounts
    kind: Kind | None     # the rider, for its Always Strikes First re-roll
    afraid: bool
    target: Target
    challenge: bool = False
    multiple: tuple | None = None


_PREPARED: dict = {}


def prepare(scenario):
    """The fight's static data: every group's Kind, the engagements by index."""
    hit = _PREPARED.get(id(scenario))
    if hit is not None and hit[0] is scenario:
        return hit[1]
    table = equipment(scenario)
    sides = []
    for key in ("attacker", "defender"):
        side = []
        for unit in scenario.side(key).every_unit:
            rf = keys.rank_and_file(unit)
            side.append((unit.options, rf.count if rf else 0,
                         kind_of(rf, scenario, table) if rf else None,
                         [(kind_of(g, scenario, table), g.options) for g in keys.heroes(unit)]))
        sides.append(side)
    data = (charts(), sides, keys.engagements(scenario))
    _PREPARED[id(scenario)] = (scenario, data)
    return data


def play(scenario, rng: random.Random) -> dict:
    """One fight's outcome row (the shared columns, the hero columns and ``units``)."""
    return Fight(scenario, rng).play()


class Fight:
    def __init__(self, scenario, rng):
        (self.to_hit, self.to_wound), sides, plan = prepare(scenario)
        self.rng, self.scenario = rng, scenario
        e = scenario.engagement
        self.e = e
        self.charger = 0 if e["charger"] == "attacker" else 1
        self.units = []
        for s, side in enumerate(sides):
            units = []
            for i, (options, count, rf, heroes) in enumerate(side):
                u = Unit(s, i, options, rf, count,
                         [Hero(k, o["character"], o["general"], o["battle_standard"])
                          for k, o in heroes], rf_alive=count)
                for h in u.heroes:
                    h.unit = u
                u.frenzied = u.has("frenzy")
                units.append(u)
            self.units.append(units)
        c, d = self.units[self.charger], self.units[1 - self.charger]
        self.engagements = [Engagement(c[i], d[j], face) for i, j, face in plan]
        names = ("attacker", "defender")
        self.challenge_policy = [keys.policy(scenario, n, "challenge") for n in names]
        self.accept_policy = [keys.policy(scenario, n, "accept") for n in names]
        self.penalty = scenario.rules["refusal"] == "8e"
        self.resurrection = scenario.rules["supporting_attacks"] == "resurrection"
        self.simultaneous = scenario.rules.get("same_strike_order",
                                               "simultaneous") == "simultaneous"
        self.all_rerolls = scenario.rules.get("battle_standard_rerolls", "all") == "all"
        self.duel = None          # (hero, hero) fighting a challenge
        self.refused = None       # the character who refused this round
        self.first_round = False
        self.winner = NONE
        self.fought_now = []
        self.stats = dict(challenges=0, attacker_challenges_won=0, defender_challenges_won=0,
                          attacker_characters_slain=0, defender_characters_slain=0,
                          attacker_champions_slain=0, defender_champions_slain=0)

    # -- who fights whom ------------------------------------------------------------------
    def fought(self) -> list:
        return [g for g in self.engagements if g.c.fighting() and g.d.fighting()]

    def enemies(self, u, fought) -> list:
        return [g.other(u) for g in fought if u in (g.c, g.d)]

    def hero_engagement(self, u, fought):
        """Its front engagement, else its first, among those still fought."""
        mine = [g for g in fought if u in (g.c, g.d)]
        front = [g for g in mine if g.front_of(u)]
        return (front or mine or [None])[0]

    def contact(self, fought) -> dict:
        """{(engagement, unit): models in contact} (R2-3): the smaller of the face and the
        enemy's front + 2; units on the same face share it in file order."""
        used, out = {}, {}
        for g in fought:
            d = g.d
            if g.face == FLANK:
                face = len(d.ranks()) - any(h.d is d and h.face == FRONT for h in fought)
            else:
                face = d.front()
            free = max(0, face - used.get((d, g.face), 0))
            out[g, d] = min(free, g.c.front() + 2)
            out[g, g.c] = min(g.c.front(), free + 2)
            used[d, g.face] = used.get((d, g.face), 0) + out[g, d]
        return out

    def in_duel(self, h) -> bool:
        return self.duel is not None and h in self.duel

    # -- the dice of one attack ---------------------------------------------------------------
    def can_wound(self, strength, mine, kind) -> bool:
        """Whether these attacks can wound ``kind`` at all (``if_can_wound``)."""
        return (self.to_wound[strength - 1][kind.profile["T"] - 1] < NEVER
                or any(x.poisoned or x.wounds_on for x in mine))

    def roll_part(self, p: Part) -> list:
        """Each attack of the part, die by die: to hit, to wound, armour, ward (R2-7 ...
        R2-9). Returns its outcomes: "wound" or "slain" (a Killing Blow)."""
        rng, t, mine = self.rng, p.target, p.mine
        tk = t.kind
        theirs = tk.active(self.first_round, self.first_round and t.unit.side == self.charger)
        if p.ws is not None:
            reroll = best_reroll("reroll_hit", mine)
            if p.kind is not None and p.kind.asf and (
                    not tk.asf if self.simultaneous
                    else p.kind.profile["I"] >= tk.profile["I"]):
                reroll = "failures"
            hit_need = self.to_hit[(1 if p.afraid else p.ws) - 1][
                (1 if t.unit.afraid else tk.profile["WS"]) - 1]
            hit_need = min([hit_need] + [x.hits_on for x in mine if x.hits_on])
            hit_mod = sum(x.hit_modifier for x in mine)
        poisoned = any(x.poisoned for x in mine)
        wound_need = self.to_wound[p.strength - 1][tk.profile["T"] - 1]
        wound_need = min([wound_need] + [x.wounds_on for x in mine if x.wounds_on])
        wound_mod = sum(x.wound_modifier for x in mine)
        wound_reroll = best_reroll("reroll_wound", mine)
        kb = [x.killing_blow for x in mine if x.killing_blow]
        kb = "any" in kb or (bool(kb) and tk.killable)
        armour = tk.profile["Sv"]
        if armour is None:
            armour = min([i.armour for i in tk.items if i.armour] + [7])
            armour -= sum(i.armour_bonus for i in tk.items) + tk.mounted
        armour_need = max(2, armour + max(0, p.strength - 3)
                          + sum(x.armour_piercing for x in mine))
        if any(x.ignores_armour for x in mine):
            armour_need = NEVER
        armour_reroll = best_reroll("reroll_armour", theirs)
        forced = any(x.enemy_rerolls_armour for x in mine)
        ward = tk.profile["Ward"] or 7
        frenzied = t.hero is None and tk is t.unit.rf and t.unit.frenzied
        if tk.parries and t.front and not frenzied:
            ward = min(ward, 6)
        if not any(x.flaming for x in mine):
            ward = min([ward] + [x.regeneration for x in theirs if x.regeneration])
        ward_reroll = best_reroll("reroll_ward", theirs)

        def hits(f):
            return f == 6 or (f > 1 and f + hit_mod >= hit_need)

        def wounds(f):
            return f == 6 or (f > 1 and f + wound_mod >= wound_need)

        out = []
        for _ in range(p.attacks):
            face = 6
            if p.ws is not None:
                face = roll_die(rng, hits, reroll)
                if not hits(face):
                    continue
            slain = False
            if not (p.ws is not None and face == 6 and poisoned):
                if wound_need > 6:
                    continue
                face = roll_die(rng, wounds, wound_reroll)
                if not wounds(face):
                    continue
                slain = face == 6 and kb
            if (armour_need <= 6 and not slain
                    and roll_die(rng, lambda f: f >= armour_need, armour_reroll,
                                 forced) >= armour_need):
                continue
            if ward <= 6 and roll_die(rng, lambda f: f >= ward, ward_reroll) >= ward:
                continue
            out.append("slain" if slain else "wound")
        return out

    # -- attacks of one Initiative step --------------------------------------------------------
    def key(self, kind) -> int:
        """A rider's strike step (R2-6): Always Strikes First / Last at one step before /
        after every Initiative step ("simultaneous"), or ordered by I inside the band."""
        i = kind.profile["I"]
        band = 0 if self.simultaneous else i
        return ASF_BAND + band if kind.asf else -ASF_BAND + band if kind.asl else i

    def strength(self, u, kind) -> int:
        st = kind.profile["S"] + kind.weapon.strength_bonus
        if self.first_round:
            st += kind.weapon.first_round_strength
            if u.side == self.charger and kind.mounted:
                st += kind.weapon.charge_strength
        return min(10, st)

    def charging(self, u) -> bool:
        return self.first_round and u.side == self.charger

    def model_attacks(self, u, kind, n, rf) -> int:
        """The attacks of ``n`` models of ``kind`` in contact (R2-4), Random Attacks rolled
        for each."""
        a = (u.frenzied if rf else 0) + (0 if kind.mounted else kind.weapon.extra_attack)
        a += sum(x.extra_attacks for x in kind.active(self.first_round, self.charging(u)))
        random_attacks = kind.dice_of("random_attacks")
        return sum(a + (roll_dice(self.rng, random_attacks) if random_attacks
                        else kind.profile["A"]) for _ in range(n))

    def mine(self, u, kind) -> list:
        return kind.active(self.first_round, self.charging(u)) + [kind.weapon]

    def multiple(self, u, kind):
        given = [x.multiple_wounds for x in self.mine(u, kind) if x.multiple_wounds]
        return max(given, key=lambda d: d[0] * (d[1] + 1) / 2 + d[2]) if given else None

    def rider_parts(self, u, kind, n, target, step, rf, challenge=False) -> list:
        """The parts of ``n`` models of ``kind`` in contact: their own attacks and their
        mounts', at step ``step`` only."""
        out = []
        if n and self.key(kind) == step:
            out.append(Part(u.side, self.model_attacks(u, kind, n, rf), kind.profile["WS"],
                            self.strength(u, kind), self.mine(u, kind), kind, u.afraid, target,
                            challenge, self.multiple(u, kind)))
        if n and kind.mount and kind.mount["A"] and kind.mount["I"] == step:
            m = kind.mount
            out.append(Part(u.side, n * m["A"], m["WS"], m["S"], [], None, u.afraid, target,
                            challenge))
        return out

    def unit_target(self, v, front) -> Target | None:
        """Attacks at unit ``v``: its rank-and-file, else its champion, else (a unit of
        characters alone) its first character not in a challenge."""
        if v.rf_alive:
            return Target(v, None, v.rf, front)
        champion = v.champion()
        if champion is not None and not self.in_duel(champion):
            return Target(v, None, champion.kind, front)
        h = next((h for h in v.standing() if h.character and not self.in_duel(h)), None)
        return Target(v, h, h.kind, front) if h else None

    def aims(self, u, policy_kind_strength, hero) -> bool:
        """Whether ``u``'s models aim at ``hero`` by its unit's ``attack_character``."""
        policy = u.options["attack_character"]
        if policy == "if_can_wound":
            kind, strength = policy_kind_strength
            return self.can_wound(strength, self.mine(u, kind), hero.kind)
        return policy == "always"

    def step_parts(self, step) -> list:
        fought = self.fought_now = self.fought()
        contact = self.contact(fought)
        heroes_in = {}
        for g in fought:
            for u in (g.c, g.d):
                if self.hero_engagement(u, fought) is g:
                    heroes_in[g, u] = u.standing()[:contact[g, u]]
                else:
                    heroes_in[g, u] = []
        parts = []
        for g in fought:
            for u in (g.c, g.d):
                parts += self.engagement_parts(g, u, contact, heroes_in, step)
        if self.duel is not None:
            a, b = self.duel
            ga = next((g for g in fought if {g.c, g.d} == {a.unit, b.unit}), None)
            if ga is not None and a.alive and b.alive:
                for h, foe in ((a, b), (b, a)):
                    parts += self.rider_parts(h.unit, h.kind, 1,
                                              Target(foe.unit, foe, foe.kind, True),
                                              step, False, challenge=True)
        return parts

    def engagement_parts(self, g, u, contact, heroes_in, step) -> list:
        """Unit ``u``'s attacks in engagement ``g`` at this step (R2-4, R2-5)."""
        v = g.other(u)
        front_v = g.front_of(v)
        mine_heroes = heroes_in[g, u]
        n = contact[g, u]
        # a character who refused a challenge steps out of the fighting rank for the round
        # and a rank-and-file model takes its file (R2-4, 8th edition)
        rf_n = min(n - sum(h is not self.refused for h in mine_heroes), u.rf_alive)
        at_unit = self.unit_target(v, front_v)
        if at_unit is None:
            return []
        parts = []
        free_foes = [h for h in heroes_in[g, v] if not self.in_duel(h)]
        # the rank-and-file in contact, in files after u's heroes: each enemy hero takes
        # up to 3 of them in file order; they aim at it by the unit's attack_character
        files = []   # (first file, models, target)
        start = sum(h is not self.refused for h in mine_heroes)
        taken = 0
        rf = u.rf
        for h in free_foes:
            k = min(3, rf_n - taken)
            if k <= 0:
                break
            if self.aims(u, (rf, self.strength(u, rf)), h):
                files.append((start + taken, k, Target(v, h, h.kind, front_v)))
            taken += k
        aimed = sum(k for _, k, _ in files)
        if rf_n:
            for first, k, target in files:
                parts += self.rider_parts(u, rf, k, target, step, True)
            parts += self.rider_parts(u, rf, rf_n - aimed, at_unit, step, True)
            if (u.options["champion"] and self.key(rf) == step
                    and g is self.hero_engagement(u, self.fought_now)):
                parts.append(Part(u.side, 1, rf.profile["WS"], self.strength(u, rf),
                                  self.mine(u, rf), rf, u.afraid, at_unit, False,
                                  self.multiple(u, rf)))
            impact = rf.dice_of("impact_hits")
            if impact and self.charging(u) and step == 10:
                parts.append(Part(u.side, sum(roll_dice(self.rng, impact) for _ in range(rf_n)),
                                  None, rf.profile["S"], [], None, u.afraid, at_unit))
            stomp = rf.dice_of("stomp")
            if stomp and step == 0 and at_unit.kind.stomped:
                parts.append(Part(u.side, sum(roll_dice(self.rng, stomp) for _ in range(rf_n)),
                                  None, rf.profile["S"], [], None, u.afraid, at_unit))
        if u.rf_alive:
            parts += self.supporting_parts(g, u, n, files, at_unit, step)
        for h in mine_heroes:
            if self.in_duel(h) or h is self.refused:
                continue
            target = next((Target(v, f, f.kind, front_v) for f in free_foes[:1]
                           if self.aims(u, (h.kind, self.strength(u, h.kind)), f)), at_unit)
            parts += self.rider_parts(u, h.kind, 1, target, step, False)
        return parts

    def supporting_parts(self, g, u, n, files, at_unit, step) -> list:
        """Supporting attacks (R2-5): each supporting rank adds, behind the first ``n``
        files, the smaller of ``n`` and its models; those behind files that aim at a hero
        aim at it too."""
        rf = u.rf
        if not g.front_of(u) or self.key(rf) != step:
            return []
        extra = not rf.mounted and (rf.weapon.extra_rank or rf.has("extra_rank"))
        n_ranks = int(extra) if self.resurrection else 1 + extra
        ranks = u.ranks()
        if rf.horde and ranks[0] >= rf.horde:
            n_ranks += 1
        each = 1 if self.resurrection else min(rf.profile["A"], rf.support_max)
        behind = [min(n, r) for r in ranks[1:1 + n_ranks]]
        parts, aimed_total = [], 0
        for first, k, target in files:
            models = sum(max(0, min(first + k, m) - first) for m in behind)
            aimed_total += models
            if models:
                parts.append(Part(u.side, models * each, rf.profile["WS"],
                                  self.strength(u, rf), self.mine(u, rf), rf, u.afraid, target,
                                  False, self.multiple(u, rf)))
        rest = sum(behind) - aimed_total
        if rest:
            parts.append(Part(u.side, rest * each, rf.profile["WS"], self.strength(u, rf),
                              self.mine(u, rf), rf, u.afraid, at_unit, False,
                              self.multiple(u, rf)))
        return parts

    def strike_keys(self) -> list:
        """Every step at which something may strike: riders, mounts, Impact Hits (10) and
        Stomps (0)."""
        out = set()
        for side in self.units:
            for u in side:
                if u.rf is not None:
                    out |= {10} if u.rf.dice_of("impact_hits") else set()
                    out |= {0} if u.rf.dice_of("stomp") else set()
                for kind in ([u.rf] if u.rf else []) + [h.kind for h in u.heroes]:
                    out.add(self.key(kind))
                    if kind.mount:
                        out.add(kind.mount["I"])
        return sorted(out, reverse=True)

    # -- wounds ---------------------------------------------------------------------------------
    def wound_hero(self, h, kind_of_wound, multiple) -> tuple[int, int]:
        """One unsaved wound on hero ``h``: (wounds it took, wounds it counts in a challenge:
        Multiple Wounds as rolled, a Killing Blow the wounds left, at least 1)."""
        left = h.left()
        if kind_of_wound == "slain":
            dealt, counted = left, max(1, left)
        else:
            rolled = roll_dice(self.rng, multiple) if multiple else 1
            dealt, counted = min(left, rolled), rolled
        h.damage += dealt
        if h.alive and h.left() == 0:
            h.alive = False
            slain = "_characters_slain" if h.character else "_champions_slain"
            self.stats[("attacker", "defender")[h.unit.side] + slain] += 1
        return dealt, counted

    def apply(self, p: Part, outcomes, caused, overkill) -> None:
        """Unsaved wounds, then Killing Blows, one at a time (R2-6 of the units spec)."""
        t = p.target
        for o in sorted(outcomes, key=lambda o: o == "slain"):
            if t.hero is not None:
                dealt, counted = self.wound_hero(t.hero, o, p.multiple)
                if p.challenge:
                    overkill[p.side] += counted
                else:
                    caused[p.side] += dealt
                t.unit.wounds += dealt
                continue
            v = t.unit
            if v.rf_alive:
                left = v.rf.profile["W"] - v.damage
                dealt = left if o == "slain" else min(
                    left, roll_dice(self.rng, p.multiple) if p.multiple else 1)
                v.damage += dealt
                if v.damage == v.rf.profile["W"]:
                    v.damage = 0
                    v.rf_alive -= 1
            else:
                champion = v.champion()
                if champion is None or self.in_duel(champion):
                    continue  # beyond the last model: lost
                dealt = self.wound_hero(champion, o, p.multiple)[0]
            caused[p.side] += dealt
            v.wounds += dealt

    # -- challenges ---------------------------------------------------------------------------
    def challenge_phase(self, rounds) -> None:
        """R2-4: the side whose turn it is may issue a challenge, else the other side."""
        self.refused = None
        if self.duel is not None:
            return
        turn = self.charger if rounds % 2 == 1 else 1 - self.charger
        fought = self.fought()
        for s in (turn, 1 - turn):
            policy = self.challenge_policy[s]
            if policy == "never":
                continue
            candidates = [h for u in self.units[s] if u.fighting() for h in u.standing()
                          if any(v.standing() for v in self.enemies(u, fought))]
            if policy == "always":
                challenger = next((h for h in candidates if h.character),
                                  next(iter(candidates), None))
            else:
                challenger = next((h for h in candidates if not h.character), None)
            if challenger is None:
                continue
            self.answer(challenger, fought)
            return

    def answer(self, challenger, fought) -> None:
        s = 1 - challenger.unit.side
        able = [h for v in self.enemies(challenger.unit, fought) for h in v.standing()]
        policy = self.accept_policy[s]
        characters = [h for h in able if h.character]
        champions = [h for h in able if not h.character]
        if policy == "never":
            if self.penalty and characters:
                most = max(h.kind.profile["A"] for h in characters)
                self.refused = next(h for h in characters if h.kind.profile["A"] == most)
            return
        order = characters + champions if policy == "always" else champions + characters
        self.duel = (challenger, order[0])
        self.stats["challenges"] += 1

    def end_duel(self) -> None:
        """The challenge ends when one hero is slain (its foe won) or leaves the combat."""
        if self.duel is None:
            return
        a, b = self.duel
        if a.alive and b.alive and a.unit.fighting() and b.unit.fighting():
            return
        for h, foe in ((a, b), (b, a)):
            if h.alive and not foe.alive:  # both slain in one step: nobody won
                self.stats[("attacker", "defender")[h.unit.side] + "_challenges_won"] += 1
        self.duel = None

    # -- leadership ---------------------------------------------------------------------------
    def bsb(self, s) -> bool:
        """The side's battle standard: a bearer alive in the combat, or the unit key."""
        return any(u.fighting() and (u.options["battle_standard"]
                                     or any(h.bearer for h in u.standing()))
                   for u in self.units[s])

    def leadership(self, u) -> int:
        """R2-12: the highest Ld among its models standing, or the general's if higher (not
        a character who refused a challenge this round); Strength in Numbers."""
        lds = ([u.rf.profile["Ld"]] if u.rf_alive else []) + [
            h.kind.profile["Ld"] for h in u.standing() if h is not self.refused]
        own = max(lds) if lds else self.refused.kind.profile["Ld"]
        ld = max(own, u.options["general_Ld"] or 0)
        for v in self.units[u.side]:
            for h in v.standing():
                if h.general and v.fighting() and h is not self.refused:
                    ld = max(ld, h.kind.profile["Ld"])
        if u.has("strength_in_numbers"):
            ld = max(ld, min(10, own + max(0, u.ranks_of_five() - 1)))
        return ld

    def test(self, u, target, rerolled) -> bool:
        """A Leadership test passed: 2D6 (Cold-blooded 3D6 less the highest) <= target, or a
        double 1 (Insane Courage) for break tests; a battle standard re-rolls a failure."""
        for _ in range(2 if rerolled else 1):
            d1, d2 = ld_roll(self.rng, u)
            if d1 + d2 <= target:
                return True
        return False

    def break_test(self, u, target, rerolled) -> bool:
        for _ in range(2 if rerolled else 1):
            d1, d2 = ld_roll(self.rng, u)
            if d1 + d2 <= target or d1 == d2 == 1:
                return True
        return False

    # -- one round ----------------------------------------------------------------------------
    def fear(self) -> None:
        fought = self.fought()
        for side in self.units:
            for u in side:
                u.afraid = False
                if not u.fighting():
                    continue
                if (any(v.has("causes_fear") for v in self.enemies(u, fought))
                        and not u.has("causes_fear") and not u.has("unbreakable")
                        and not u.has("immune_to_psychology") and not u.frenzied):
                    u.afraid = not self.test(u, self.leadership(u),
                                             self.all_rerolls and self.bsb(u.side))

    def fight_steps(self, caused, overkill) -> None:
        for step in self.strike_keys():
            if not all(any(u.fighting() for u in side) for side in self.units):
                return
            parts = self.step_parts(step)
            rolled = [(p, self.roll_part(p)) for p in parts]
            for p, outcomes in rolled:
                self.apply(p, outcomes, caused, overkill)
            for side in self.units:
                for u in side:
                    if u.state == "in" and u.models() == 0:
                        u.state = "destroyed"
            self.end_duel()

    def fight_round(self) -> list:
        """The fighting of one round; each side's wounds for the combat result (R2-11): the
        unsaved wounds it caused, and its challenge's overkill, at most the foe's wounds left
        at the start of the round + 5."""
        caused, overkill, cap = [0, 0], [0, 0], [0, 0]
        if self.duel is not None:
            a, b = self.duel
            cap[a.unit.side], cap[b.unit.side] = b.left() + 5, a.left() + 5
        self.fight_steps(caused, overkill)
        return [caused[s] + min(overkill[s], cap[s]) for s in (0, 1)]

    def score(self, s, wounds) -> int:
        """R2-11 over the side's units in the combat."""
        mine = [u for u in self.units[s] if u.fighting()]
        fought = self.fought()
        total = wounds[s]
        total += self.first_round and s == self.charger
        ranks = [min(3, max(0, u.ranks_of_five() - 1)) for u in mine
                 if not self.disrupted(u, fought)]
        total += max(ranks, default=0)
        total += any(u.options["standard"] for u in mine) + self.bsb(s)
        for v in self.units[1 - s]:
            faces = {g.face for g in fought if g.d is v and g.c.side == s}
            total += (FLANK in faces) + 2 * (REAR in faces)
        return total

    def disrupted(self, u, fought) -> bool:
        return any(g.d is u and g.face != FRONT and g.c.ranks_of_five() >= 2 for g in fought)

    def round(self) -> bool:
        """One round; True when the fight is over."""
        wounds = self.fight_round()
        if self.over():
            return True
        score = [self.score(0, wounds), self.score(1, wounds)]
        if score[0] == score[1]:
            m = [any(u.options["musician"] for u in side if u.fighting()) for side in self.units]
            if m[0] == m[1]:
                self.leave()
                return self.over()
            score[0 if m[0] else 1] += 1
        loser = 0 if score[0] < score[1] else 1
        margin = abs(score[0] - score[1])
        fought = self.fought()
        engaged = {u: self.enemies(u, fought) for side in self.units for u in side}
        losing = [u for u in self.units[loser] if u.fighting()]
        for u in losing:
            u.frenzied = False
        most = max((v.ranks_of_five() for v in self.units[1 - loser] if v.fighting()),
                   default=0)
        fled = []
        for u in losing:
            if u.has("unbreakable"):
                continue
            steadfast = u.has("stubborn") or u.ranks_of_five() > most
            target = self.leadership(u) - (0 if steadfast else margin)
            if not self.break_test(u, target, self.bsb(loser)):
                fled.append(u)
        for u in fled:
            u.state = "fled"
            u.flee_roll = movement_roll(self.rng, u)
        self.end_duel()
        if self.over():
            self.pursue(engaged, fled)
            return True
        self.pursue(engaged, fled)
        self.leave()
        return self.over(DEFENDER if loser == 0 else ATTACKER)

    def pursue(self, engaged, fled) -> None:
        """R2-13: a winning unit whose every enemy fled pursues (or restrains); a fleeing unit
        is caught if any of its pursuers rolls at least its flee roll."""
        if not fled:
            return
        rolls = {}
        for side in self.units:
            for u in side:
                foes = engaged[u]
                if not u.fighting() or not foes or not all(v in fled for v in foes):
                    continue
                pursues = u.frenzied or self.e["pursue"] or not self.test(
                    u, self.leadership(u), self.all_rerolls and self.bsb(u.side))
                if pursues:
                    rolls[u] = movement_roll(self.rng, u)
                    u.state = "left"
        for v in fled:
            if any(r >= v.flee_roll for u, r in rolls.items() if v in engaged[u]):
                v.state = "caught"
        self.end_duel()

    def leave(self) -> None:
        """Units with no enemy left in contact leave the combat, standing."""
        fought = self.fought()
        for side in self.units:
            for u in side:
                if u.fighting() and not self.enemies(u, fought):
                    u.state = "left"
        self.end_duel()

    def over(self, round_winner=NONE) -> bool:
        """Whether a side has no unit left in the combat; if so, the fight's winner: the side
        with units left; when neither has any, the winner of the round that ended it
        (``round_winner``), or none when both sides were wiped out in the same step."""
        left = [any(u.fighting() for u in side) for side in self.units]
        if all(left):
            return False
        self.winner = round_winner if left[0] == left[1] else ATTACKER if left[0] else DEFENDER
        return True

    # -- the fight ----------------------------------------------------------------------------
    def play(self) -> dict:
        rounds = 0
        done = False
        while not done and rounds < self.scenario.simulation["max_rounds"]:
            rounds += 1
            self.begin_round(rounds)
            done = self.round()
        return self.outcome(rounds, done)

    def begin_round(self, rounds) -> None:
        """The start of round ``rounds`` (1 is the first): challenges, then Fear tests."""
        self.first_round = rounds == 1
        self.challenge_phase(rounds)
        self.fear()

    def outcome(self, rounds, done) -> dict:
        winner, end = NONE, UNRESOLVED
        if done:
            winner = self.winner
            if winner == NONE:
                end = MUTUAL
            else:
                states = {u.state for u in self.units[0 if winner == DEFENDER else 1]}
                end = FLED if "fled" in states else CAUGHT if "caught" in states else DESTROYED
        fates = {"in": UNIT_STANDING, "left": UNIT_STANDING, "destroyed": UNIT_DESTROYED,
                 "caught": UNIT_CAUGHT, "fled": UNIT_FLED}
        units = [[(fates[u.state], u.total() if u.state == "caught" else u.total() - u.models(),
                   u.wounds) for u in side] for side in self.units]
        out = dict(winner=winner, end=end, rounds=rounds,
                   attacker_lost=sum(x[1] for x in units[0]),
                   defender_lost=sum(x[1] for x in units[1]),
                   attacker_wounds=sum(x[2] for x in units[0]),
                   defender_wounds=sum(x[2] for x in units[1]), units=units)
        out.update(self.stats)
        return out
