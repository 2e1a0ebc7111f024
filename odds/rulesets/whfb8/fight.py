"""The whfb8 rule text: a close combat of ranked units, their characters and champions, written
once for the kernel and the exact solver alike (the shape: ``odds/rulesets/README.md``;
semantics: README.md here). One unit a side is the simplest fight of several units.

- **Laws** (``compile.py``, once a plan): a striker's unsaved wounds on one body are Binomial
  counts read from the plan's tables, and so are its Killing Blows (R2-8); the Leadership
  tests (R2-7, R2-12, R2-13), Daemonic Instability, the flee reaction's charge, a pursuit's
  catch, a pursuer's roll and the dice of Random Attacks, Impact Hits, Stomps and Multiple
  Wounds are laws of the plan.
- **Stages** (:func:`stage`): for the exact solver each makes one pick, plays on through all
  that follows it surely and ends before the next pick (``odds.core.dice.picked``), at the
  combat result (it reads the round's lead) and as a round's strikes begin (so that what
  led there is played once a state, not once for each outcome of the first strike); the
  kernel plays a whole fight in one stage.
- **The row** (:func:`row`): the outcome record, the hero columns and each unit's when the
  record has them.

A side's **bodies** are what attacks aim at: body u (< U) is unit u's rank-and-file, body
U + h its hero h (a character or champion). Its **strikers** are the parts that strike at one
strike step (R2-6): a unit's models in contact, supporters, mounts, Impact Hits and Stomps,
and each hero and its mount. A striker's attacks are split between the enemy bodies it aims
at (R2-4) as the step begins, every striker of the step at once (the step's strikes are
simultaneous, R2-6), then each body's unsaved wounds are one pick, taken at once (R2-8,
R2-9); wounds past a unit's last rank-and-file model fall on its champion.

The state is one int64 vector: the head below, then per side and body the models standing
(N) and the wounds on the wounded model (D); each striker's attacks this step on each enemy
body (times 2, + 1 where it strikes that body's front); then per side and unit: in the
fight, fate, Frenzied, afraid this round, the roll of a pursuer of several units, and broke
this round (a winning unit: pursues). A flee roll is never kept: each broken unit's catch is
one pick against the best roll of its pursuers (:func:`_catch`).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from odds.core.dice import CHANCE, pick, pick_binomial, picked, replaying, resumed
from odds.core.outcome import (ATTACKER, CAUGHT, COLUMNS as SHARED, MUTUAL, NO_FIGHT, NONE,
                               UNIT_CAUGHT, UNIT_DESTROYED, UNIT_FLED, UNIT_STANDING,
                               UNRESOLVED)
from odds.core.casts import slot, whole
from odds.core.packed import Packed, tables
from odds.core.walk import clear, how_beaten

FRONT, FLANK, REAR = 0, 1, 2  # the face of the charged unit that is engaged (R2-3)
FIRST, LATER = 0, 1           # the charge round and the rest (R2-14)
# striker kinds: a unit's parts, then a hero's
FIGHTING, SUPPORTING, MOUNT, IMPACT, STOMP, HERO, HERO_MOUNT = range(7)
ALWAYS, CHAMPION_ONLY = 1, 2          # challenge policies (compile.CHALLENGES)
REFUSE, CHAMPION_FIRST = 1, 2         # accept policies (compile.ACCEPTS)
ROLLED = 10  # models whose Random Attacks, Impact Hits or Stomps one law rolls at most
# the state's head: OVER (odds.core.walk) is 0 while the fight goes on
OVER, PHASE, ROUNDS, ROUND, STEP, PART, BODY, LEAD, DEALT, CAP, DUEL, REFUSED, WINNER, END, \
    LOSER, MARGIN, AT, STARTED, RESTORED, CHALLENGES, WON = (
        0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 17, 18, 19, 20, 21, 25, 27, 28)
HEAD = 30  # DEALT, CAP, DUEL, REFUSED, RESTORED, WON: one a side; STARTED: (models, wounds)
#            of each side's first body as the round began (Daemonic Instability, one unit)
# phases: what the next stage plays; GO_ON and FINISH are played on in the same stage
CHARGE, FEAR, STRIKE, RESULT, BREAK, RESTRAIN, CATCH, GO_ON, FINISH = range(9)
# per-unit fields, each (2 sides, U units); FLED_NOW: broke this round, or (winners) pursues
INSIDE, FATE, FRENZIED, AFRAID, BEST, FLED_NOW = range(6)
N_SHARED = len(SHARED)
N_HEROES = 7  # the hero columns (units.HERO_COLUMNS), after the shared ones
TALLIES = ()
SIGNED = LEAD    # the round's lead in wounds caused: read at the round's end (odds.core.walk)
BY_VALUE = True  # by its value: the break test reads the margin (R2-11, R2-12)

TABLES = tables(
    ints={
        "charger": (), "refusal_penalty": (), "reroll_all": (), "disrupted_steadfast": (),
        "pursue": (), "max_rounds": (), "flee_reaction": (), "engagements": (),
        "led": (),                     # the record has the hero columns
        "unit_columns": (),            # the record has each unit's columns
        "daemons": (),                 # a unit has Daemonic Instability (one unit a side)
        "fears": (),                   # a unit causes Fear
        "unit_count": (2,), "heroes": (2,),
        "general": (2,), "bearer": (2,),  # hero index, -1 none
        "challenge": (2,), "accept": (2,),  # policies
        # per unit (2, U)
        "width": (2, "U"), "unit_size": (2, "U"),
        "ld": (2, "U"),                # the rank-and-file's Ld
        "lent_ld": (2, "U"),           # general_Ld (a general outside the fight), 0 none
        "rank_models": (2, "U"),       # models that make a rank (R2-11)
        "horde_files": (2, "U"),       # 0: never a Horde (R2-5)
        "support_ranks": (2, "U"), "support_attacks": (2, "U"),
        "attacks": (2, "U"),           # A of a rank-and-file model in contact, before Frenzy
        "first_attacks": (2, "U"),     # its extra A in the first round
        "mount_attacks": (2, "U"),
        "impact_hits": (2, "U"),       # fixed Impact Hits per model in contact, on the charge
        "stomps": (2, "U"),            # fixed Stomps per model in contact
        "champion_bonus": (2, "U"),    # the unit key `champion`: +1 A in contact
        "frenzy": (2, "U"), "standard": (2, "U"), "musician": (2, "U"),
        "stubborn": (2, "U"), "unbreakable": (2, "U"), "swiftstride": (2, "U"),
        "cold_blooded": (2, "U"), "strength_in_numbers": (2, "U"), "causes_fear": (2, "U"),
        "fear_immune": (2, "U"),       # causes Fear, Unbreakable or Immune to Psychology
        "aims": (2, "U"),              # attack_character: 0 never, 1 always, 2 if it can wound
        "hero_first": (2, "U"), "hero_count": (2, "U"),
        "bsb_key": (2, "U"),           # the unit key battle_standard
        "in_contact": (2, "U"),        # models in base contact given by the scenario, 0 default
        "unstable": (2, "U"), "daemonic": (2, "U"),
        # per body (2, G)
        "count": (2, "G"), "wounds": (2, "G"), "body_unit": (2, "G"),
        "champion": (2, "G"), "hero_ld": (2, "G"), "hero_attacks": (2, "G"),
        "step_count": (),
        "charging": ("U",), "charged": ("U",), "face": ("U",),  # the engagements (R2-1)
        # per striker (L), last: the tables before them start where a variant knows
        "striker_side": ("L",), "striker_unit": ("L",), "striker_hero": ("L",),
        "striker_kind": ("L",),
        "fixed": ("L",),               # a hero striker's counted attacks
        "first": ("L",),               # its extra attacks in the first round
        "rolls": ("L",),               # 1: its models roll dice of attacks or hits
        "multiplies": (2, "L"),        # [round type]: Multiple Wounds
        "steps": ("L", "L"),           # strikers at each step, highest key first, -1 padded
        "merged_into": ("L",),         # the striker of its step whose count it joins (R2-8)
        "can_wound": (2, "L", "G"),    # its attacks can wound the enemy body at all
        # [round type, afraid, enemy afraid, enemy Frenzied, front, striker, enemy body]
        "unsaved_row": (2, 2, 2, 2, 2, "L", "G"), "unsaved_top": (2, 2, 2, 2, 2, "L", "G"),
    },
    reals={
        "per_file": (2, "U"),                    # 1 / width
        "p_unsaved": (2, 2, 2, 2, 2, "L", "G"),  # P(an attack causes an unsaved wound)
        "p_slay": (2, 2, 2, 2, 2, "L", "G"),     # P(a Killing Blow slays) given no wound
    },
    laws={
        # [re-rolled, cold-blooded, clip(target, 0, 12)]: fails, holds (R2-12)
        "holds_law": (2, 2, 13),
        "fails_law": (2, 2, 13),   # [re-rolled, cold-blooded, Ld]: passes, fails (R2-7, R2-13)
        "move_law": (2,),          # [Swiftstride]: 2D6, or 3D6 the lowest dropped (R2-13)
        # [fleeing unit's Swiftstride, best roll of pursuers of several, pursuers on 2D6,
        # pursuers with Swiftstride]: escapes, caught (R2-13)
        "catch_law": (2, 19, "U + 1", "U + 1"),
        "instability_law": (2,),   # [cold-blooded]: double 1, double 6, else the total (R2-12)
        "flee_law": (),            # the charged unit flees: escapes, caught (R2-2)
        "rolled_law": ("L", ROLLED + 1),  # [striker, models]: the attacks or hits they roll
        "wounds_law": (2, "L"),    # [round type, striker]: the wounds one Multiple Wound is
    },
    namespace=globals())


@njit(cache=True, _nrt=False, forceinline=True)
def known(plan, sizes):
    """``plan`` with its sizes G and U, whether it has rare rules (X: kernel.rare) and its
    strikers L (0: not known) as constants of a kernel variant's compiled code
    (odds.core.walk.kernel), ``sizes`` = (G, U, X, L): its loops over bodies, units and
    strikers unroll or fold away, its tables' places are constants, and the rare rules'
    steps fold away where it has none (every ``plan.X and`` below)."""
    return Packed(plan.ints, plan.reals, plan.cdf, plan.laws, sizes[0], sizes[1],
                  sizes[3] if sizes[3] else plan.L, sizes[2])


# -- the state's layout ----------------------------------------------------------------

@njit(cache=True, _nrt=False, forceinline=True)
def fields(plan):
    """The state's width for this plan."""
    return np.int64(_u(plan, FLED_NOW + 1, 0, 0))


@njit(cache=True, _nrt=False, forceinline=True)
def columns(plan):
    """The row's width: the shared columns, the hero columns and each unit's, as the
    scenario's record has them."""
    return N_SHARED + N_HEROES * led(plan) + \
        3 * (units(plan, 0) + units(plan, 1)) * unit_columns(plan)


@njit(inline="always")
def units(plan, s):
    """How many units side s has: 1 without a read when the plan's most a side is 1."""
    return 1 if plan.U == 1 else unit_count(plan, s)


@njit(inline="always")
def _first_hero(plan, s, u):
    """Unit u's first hero (the heroes of a unit are consecutive): a constant of a kernel
    variant with no heroes, where its loops over heroes fold away."""
    return hero_first(plan, s, u) if plan.G > plan.U else 0


@njit(inline="always")
def _last_hero(plan, s, u):
    """One past unit u's last hero."""
    return hero_first(plan, s, u) + hero_count(plan, s, u) if plan.G > plan.U else 0


@njit(inline="always")
def _heroes(plan, s):
    """How many heroes side s has: 0 without a read in a variant with none."""
    return heroes(plan, s) if plan.G > plan.U else 0


@njit(inline="always")
def _hero_of(plan, j):
    """The hero striker j is or rides with, -1 none: -1 without a read in a variant with no
    heroes."""
    return striker_hero(plan, j) if plan.G > plan.U else -1


@njit(inline="always")
def _engagements(plan):
    """How many units charged (R2-1): 1 without a read when a side has one unit."""
    return 1 if plan.U == 1 else engagements(plan)


@njit(inline="always")
def _n(plan, s, b):
    """Where side s keeps the models standing of body b."""
    return slot(HEAD + s * plan.G + b)


@njit(inline="always")
def _d(plan, s, b):
    """Where side s keeps the wounds on body b's wounded model."""
    return slot(HEAD + (2 + s) * plan.G + b)


@njit(inline="always")
def _alloc(plan, j, b):
    """Where striker j keeps its attacks on enemy body b this step, times 2, + 1 if it
    strikes that body's front."""
    return slot(HEAD + 4 * plan.G + j * plan.G + b)


@njit(inline="always")
def _u(plan, what, s, u):
    """Where unit u of side s keeps ``what`` (INSIDE ... FLED_NOW)."""
    return slot(HEAD + (4 + plan.L) * plan.G + (what * 2 + s) * plan.U + u)


@njit(cache=True, _nrt=False, forceinline=True)
def clock(plan, state):
    """How far the fight has come, for the exact solver: the round, then its phase, the
    strike step, the striker and the body it is at, or the unit a test or roll is at (a
    pursuer: whether its roll is to come)."""
    bodies = plan.G + 1
    strikes = (step_count(plan) * plan.L + plan.L) * bodies
    phase = state[PHASE]
    if phase == STRIKE:
        at = 2 * plan.U + 2 + (state[STEP] * plan.L + state[PART]) * bodies + state[BODY]
    elif phase <= FEAR:
        at = state[AT] + (phase == FEAR)
    else:  # a test, then the roll it leads to (flee, pursue), of the unit at AT
        at = 2 * plan.U + 2 + strikes + (phase - RESULT) * (2 * plan.U + 2) + 2 * state[AT]
        if phase == RESTRAIN:
            at += state[_u(plan, FLED_NOW, 1 - state[LOSER], min(state[AT], plan.U - 1))]
    return state[ROUNDS] * (2 * plan.U + 2 + strikes + 6 * (2 * plan.U + 2)) + at


@njit(cache=True, _nrt=False, forceinline=True)
def reads_sign(plan, state):
    """Whether the next stage reads the round's lead (by its value, R2-11)."""
    return state[PHASE] == RESULT


@njit(cache=True)
def spans(plan):
    """The lead's span: side 0 loses every wound, or side 1 does."""
    out = np.zeros((1, 2), np.int64)
    for s in range(2):
        for b in range(plan.G):
            out[0, s] += count(plan, s, b) * wounds(plan, s, b) * (1 if s else -1)
    return out


# -- who stands where --------------------------------------------------------------------

@njit(cache=True, _nrt=False, forceinline=True)
def _standing(plan, state, s, u):
    """Models of side s's unit u standing: its rank-and-file and its heroes."""
    total = state[_n(plan, s, u)]
    for h in range(_first_hero(plan, s, u), _last_hero(plan, s, u)):
        total += state[_n(plan, s, plan.U + h)]
    return total


@njit(cache=True, _nrt=False, forceinline=True)
def _front(plan, state, s, u):
    return min(width(plan, s, u), _standing(plan, state, s, u))


@njit(cache=True, _nrt=False, forceinline=True)
def _ranks(plan, state, s, u):
    """Ranks of rank_models or more models, the front one included (R2-11, R2-12)."""
    w = width(plan, s, u)
    m = rank_models(plan, s, u)
    if w < m:
        return 0
    total = _standing(plan, state, s, u)
    full = int((total + 0.5) * per_file(plan, s, u))  # total // w, without a division
    return full + (total - full * w >= m)


@njit(cache=True, _nrt=False, forceinline=True)
def _supporters(plan, state, s, u, start, files):
    """Supporting attacks behind files ``start`` .. ``files`` - 1 of unit u (R2-5)."""
    w = width(plan, s, u)
    total = _standing(plan, state, s, u)
    ranks = support_ranks(plan, s, u)
    if horde_files(plan, s, u) > 0 and min(w, total) >= horde_files(plan, s, u):
        ranks += 1
    out = 0
    for k in range(1, ranks + 1):
        rank = max(0, min(w, total - k * w))  # the models in the k-th rank behind the front
        out += max(0, min(files, rank) - start)
    return out * support_attacks(plan, s, u)


@njit(inline="always")
def _of(plan, e, s):
    """Side s's unit in engagement e."""
    return charging(plan, e) if s == charger(plan) else charged(plan, e)


@njit(cache=True, _nrt=False, forceinline=True)
def _active(plan, state, e):
    c = charger(plan)
    return state[_u(plan, INSIDE, c, charging(plan, e))] > 0 and \
        state[_u(plan, INSIDE, 1 - c, charged(plan, e))] > 0


@njit(cache=True, _nrt=False, forceinline=True)
def _hero_engagement(plan, state, s, u):
    """The engagement unit u's heroes fight through: its front one, else its first."""
    out = -1
    for e in range(_engagements(plan)):
        if _of(plan, e, s) == u and _active(plan, state, e):
            if out < 0:
                out = e
            if s != charger(plan) and face(plan, e) == FRONT:
                return e
    return out


@njit(cache=True, _nrt=False, forceinline=True)
def _contact(plan, state, e, side):
    """Models in base contact in engagement e as the step began (R2-3), ``side`` 0 the
    charging unit's, 1 the charged unit's; and the charged unit's models in contact on the
    same face in earlier engagements."""
    c = charger(plan)
    v, f = charged(plan, e), face(plan, e)
    faced = _faced(plan, state, e)
    used = whole(0)  # (not the constant: one compile of _charged_contact)
    for x in range(e):
        if charged(plan, x) == v and face(plan, x) == f and _active(plan, state, x):
            used += _charged_contact(plan, state, x, faced, used)
    if side == 1:
        return _charged_contact(plan, state, e, faced, used), used
    u = charging(plan, e)
    front_u = _front(plan, state, c, u)
    if in_contact(plan, c, u) > 0:
        return min(in_contact(plan, c, u), front_u), used
    return min(front_u, faced + 2), used


@njit(cache=True, _nrt=False, forceinline=True)
def _faced(plan, state, e):
    """The length of the charged unit's face engaged in e, as the step began (R2-3)."""
    c = charger(plan)
    v = charged(plan, e)
    if face(plan, e) == FLANK:
        faced = int((_standing(plan, state, 1 - c, v) + width(plan, 1 - c, v) - 0.5) *
                    per_file(plan, 1 - c, v))  # its ranks, the last one short or not
        for x in range(_engagements(plan)):
            if charged(plan, x) == v and face(plan, x) == FRONT and _active(plan, state, x):
                return max(0, faced - 1)
        return faced
    return _front(plan, state, 1 - c, v)


@njit(cache=True, _nrt=False, forceinline=True)
def _charged_contact(plan, state, e, faced, used):
    """The charged unit's models in contact in engagement e (``used`` of its face taken by
    earlier engagements)."""
    c = charger(plan)
    v = charged(plan, e)
    front_u = _front(plan, state, c, charging(plan, e))
    if in_contact(plan, 1 - c, v) > 0:
        return min(in_contact(plan, 1 - c, v), faced)
    return min(max(0, faced - used), front_u + 2)


@njit(inline="always")
def _alive(plan, state, s, h):
    """Hero h of side s stands."""
    return state[_n(plan, s, plan.U + h)] > 0


@njit(cache=True, _nrt=False, forceinline=True)
def _unit_body(plan, state, t, v):
    """The body attacks at side t's unit v go to, as the step began: its rank-and-file,
    else its champion, else its first character; never a hero in a challenge; -1 if none."""
    if state[_n(plan, t, v)] > 0:
        return v
    for champions in range(1, -1, -1):
        for h in range(_first_hero(plan, t, v), _last_hero(plan, t, v)):
            if _alive(plan, state, t, h) and state[DUEL + t] != h and \
                    champion(plan, t, plan.U + h) == champions:
                return plan.U + h
    return -1


@njit(cache=True, _nrt=False, forceinline=True)
def _left(plan, state, s):
    """Side s's units still in the fight."""
    total = 0
    for u in range(units(plan, s)):
        total += state[_u(plan, INSIDE, s, u)]
    return total


@njit(cache=True, _nrt=False, forceinline=True)
def _room(plan, state, t, b):
    """The wounds body b of side t can still take."""
    return state[_n(plan, t, b)] * wounds(plan, t, b) - state[_d(plan, t, b)]


@njit(cache=True, _nrt=False, forceinline=True)
def _spill_to(plan, state, t, b):
    """The champion that takes the wounds past unit b's last rank-and-file model: standing,
    not in a challenge; -1 if none."""
    for h in range(_first_hero(plan, t, b), _last_hero(plan, t, b)):
        if champion(plan, t, plan.U + h) and state[_n(plan, t, plan.U + h)] > 0 and \
                state[DUEL + t] != h:
            return h
    return -1


# -- Leadership ----------------------------------------------------------------------------

@njit(cache=True, _nrt=False, forceinline=True)
def _battle_standard(plan, state, s):
    """Side s has a battle standard: its bearer standing in the fight, or a unit in the fight
    with the unit key (R2-12)."""
    g = bearer(plan, s) if plan.G > plan.U else -1
    if g >= 0 and state[_n(plan, s, plan.U + g)] > 0 and \
            state[_u(plan, INSIDE, s, body_unit(plan, s, plan.U + g))] > 0:
        return True
    for u in range(units(plan, s)):
        if state[_u(plan, INSIDE, s, u)] > 0 and bsb_key(plan, s, u) > 0:
            return True
    return False


@njit(cache=True, _nrt=False, forceinline=True)
def _unit_ld(plan, state, s, u):
    """The Ld unit u tests on (R2-12): the highest of its models standing (a refusing
    character's only if it stands alone), with Strength in Numbers + 1 per rank behind the
    front (at most 10); the general's while it stands in the fight and did not refuse; the
    unit key general_Ld."""
    own, benched = 0, 0
    if state[_n(plan, s, u)] > 0:
        own = ld(plan, s, u)
    for h in range(_first_hero(plan, s, u), _last_hero(plan, s, u)):
        if state[_n(plan, s, plan.U + h)] > 0:
            if state[REFUSED + s] != h:
                own = max(own, hero_ld(plan, s, plan.U + h))
            else:
                benched = hero_ld(plan, s, plan.U + h)
    if own == 0:
        own = benched
    if plan.X and strength_in_numbers(plan, s, u) > 0:
        own = min(10, own + max(0, _ranks(plan, state, s, u) - 1))
    out = max(own, lent_ld(plan, s, u))
    g = general(plan, s) if plan.G > plan.U else -1
    if g >= 0 and state[_n(plan, s, plan.U + g)] > 0 and state[REFUSED + s] != g and \
            state[_u(plan, INSIDE, s, body_unit(plan, s, plan.U + g))] > 0:
        out = max(out, hero_ld(plan, s, plan.U + g))
    return out


@njit(cache=True, _nrt=False, forceinline=True)
def _fails(plan, dice, state, s, u):
    """A Fear or restraint test of unit u fails: 2D6 (Cold-blooded: the lowest two of 3D6)
    above its Ld, re-rolled once with a battle standard where the rules say (R2-7, R2-13)."""
    rerolls = 1 if reroll_all(plan) and _battle_standard(plan, state, s) else 0
    return pick(dice, fails_law(plan, rerolls, cold_blooded(plan, s, u),
                                min(_unit_ld(plan, state, s, u), 12)))


# -- stages ----------------------------------------------------------------------------

@njit(cache=True, _nrt=False, forceinline=True)
def begin(plan, state):
    """The state before the charge: every model standing, every unit in the fight."""
    clear(state)
    for s in range(2):
        for b in range(plan.G):
            state[_n(plan, s, b)] = count(plan, s, b)
        for u in range(units(plan, s)):
            state[_u(plan, INSIDE, s, u)] = 1
            state[_u(plan, FATE, s, u)] = UNIT_STANDING
            state[_u(plan, FRENZIED, s, u)] = frenzy(plan, s, u)
        state[DUEL + s] = -1
        state[REFUSED + s] = -1
    state[PHASE] = CHARGE
    state[END] = UNRESOLVED


@njit(inline="always")
def stage(plan, dice, state):
    """Play on to the end, or (the exact solver's paths) to just before the stage's second
    pick, the combat result or a round's first strike step: each phase's step returns
    whether it stopped there."""
    while not state[OVER]:  # the phases in the order a round plays them
        if state[PHASE] == CHARGE:
            _charge(plan, dice, state)
        if state[PHASE] == FEAR and _fear(plan, dice, state):
            return
        if state[PHASE] == STRIKE and _strike(plan, dice, state):
            return
        if state[PHASE] == RESULT:
            _result(plan, dice, state)
        if state[PHASE] == BREAK and _break(plan, dice, state):
            return
        if state[PHASE] == RESTRAIN and _restrain(plan, dice, state):
            return
        if state[PHASE] == CATCH and _catch(plan, dice, state):
            return
        if state[PHASE] == GO_ON:
            _go_on(plan, dice, state)
        if state[PHASE] == FINISH:
            _finish(plan, dice, state)


@njit(cache=True, _nrt=False, forceinline=True)
def _charge(plan, dice, state):
    """R2-2: a charged unit that flees is caught by the charge, or the fight never starts;
    else the first round."""
    if not flee_reaction(plan):
        _next_round(plan, state)
        return
    c = charger(plan)
    if pick(dice, flee_law(plan)) == 1:
        state[LOSER] = 1 - c
        state[_u(plan, FATE, 1 - c, 0)] = UNIT_CAUGHT
        _ends(state, ATTACKER + c, CAUGHT)
    else:
        _ends(state, NONE, NO_FIGHT)


@njit(cache=True, _nrt=False, forceinline=True)
def _next_round(plan, state):
    """The next round: its challenge (R2-4), then the Fear tests (R2-7); or the fight
    unresolved at max_rounds (R2-14)."""
    if state[ROUNDS] >= max_rounds(plan):
        _ends(state, NONE, UNRESOLVED)
        return
    state[ROUNDS] += 1
    state[ROUND] = FIRST if state[ROUNDS] == 1 else LATER
    state[REFUSED] = -1
    state[REFUSED + 1] = -1
    if led(plan):
        _challenge(plan, state)
    if plan.X and daemons(plan):
        for s in range(2):
            state[STARTED + 2 * s] = state[_n(plan, s, 0)]
            state[STARTED + 2 * s + 1] = state[_d(plan, s, 0)]
    state[PHASE] = FEAR
    state[AT] = 0


@njit(cache=True, _nrt=False, forceinline=True)
def _engaged(plan, state, s, u, o):
    """Side s's unit u and the enemy unit o are engaged (both in the fight)."""
    for e in range(_engagements(plan)):
        if _of(plan, e, s) == u and _of(plan, e, 1 - s) == o and _active(plan, state, e):
            return True
    return False


@njit(cache=True, _nrt=False, forceinline=True)
def _challenge(plan, state):
    """The challenge at the start of a round (R2-4): a challenge goes on while both stand in
    the fight; else the side whose turn it is issues first, by its policy, and the other
    side accepts by its own, or refuses (8th edition: its strongest character is benched)."""
    if state[DUEL] >= 0:
        if state[_n(plan, 0, plan.U + state[DUEL])] > 0 and \
                state[_n(plan, 1, plan.U + state[DUEL + 1])] > 0 and \
                state[_u(plan, INSIDE, 0, body_unit(plan, 0, plan.U + state[DUEL]))] > 0 and \
                state[_u(plan, INSIDE, 1, body_unit(plan, 1, plan.U + state[DUEL + 1]))] > 0:
            return
        state[DUEL] = -1
        state[DUEL + 1] = -1
    turn = charger(plan) if state[ROUNDS] % 2 == 1 else 1 - charger(plan)
    for i in range(2):
        s = turn if i == 0 else 1 - turn
        o = 1 - s
        if challenge(plan, s) == 0:
            continue
        for champions in range(2):  # characters first, then champions
            if champions == 0 and challenge(plan, s) == CHAMPION_ONLY:
                continue
            for h in range(_heroes(plan, s)):
                hb = plan.U + h
                if state[_n(plan, s, hb)] == 0 or champion(plan, s, hb) != champions or \
                        state[_u(plan, INSIDE, s, body_unit(plan, s, hb))] == 0:
                    continue
                character, champ, strongest = -1, -1, -1
                for h2 in range(_heroes(plan, o)):
                    b2 = plan.U + h2
                    if state[_n(plan, o, b2)] == 0 or not _engaged(
                            plan, state, s, body_unit(plan, s, hb), body_unit(plan, o, b2)):
                        continue
                    if champion(plan, o, b2):
                        if champ < 0:
                            champ = h2
                    else:
                        if character < 0:
                            character = h2
                        if strongest < 0 or hero_attacks(plan, o, b2) > \
                                hero_attacks(plan, o, plan.U + strongest):
                            strongest = h2
                if character < 0 and champ < 0:
                    continue
                if accept(plan, o) == REFUSE:
                    if refusal_penalty(plan):
                        state[REFUSED + o] = strongest
                    return
                taker = character if character >= 0 else champ
                if accept(plan, o) == CHAMPION_FIRST and champ >= 0:
                    taker = champ
                state[DUEL + s] = h
                state[DUEL + o] = taker
                state[CHALLENGES] += 1
                return


@njit(cache=True, _nrt=False, forceinline=True)
def _fear(plan, dice, state):
    """R2-7: each unit engaged with a Fear-causing enemy unit tests at the start of the
    round, unless it is immune or Frenzied; then the round's first strike step, where a
    solver's stage ends (the round's result, break tests and Fear tests that led to it are
    then played once a state, not once for each outcome of the step's first pick)."""
    for i in range(resumed(dice, state, AT), 2 * plan.U * fears(plan)):
        s, u = i // plan.U, i % plan.U
        state[_u(plan, AFRAID, s, u)] = 0
        if u >= units(plan, s) or state[_u(plan, INSIDE, s, u)] == 0 or \
                fear_immune(plan, s, u) or state[_u(plan, FRENZIED, s, u)]:
            continue
        scared = False
        for e in range(_engagements(plan)):
            if _of(plan, e, s) == u and _active(plan, state, e) and \
                    causes_fear(plan, 1 - s, _of(plan, e, 1 - s)):
                scared = True
        if scared:
            if picked(dice):
                state[AT] = i
                return True
            state[_u(plan, AFRAID, s, u)] = _fails(plan, dice, state, s, u)
    state[AT] = 0
    for s in range(2):
        if state[DUEL + s] >= 0:  # overkill counts up to the foe's wounds left + 5 (R2-11)
            state[CAP + s] = _room(plan, state, 1 - s, plan.U + state[DUEL + 1 - s]) + 5
    state[STEP] = 0
    _step_start(plan, dice, state)
    return replaying(dice)  # a solver's stage ends here: the strikes begin apart from what
    #                         led to them, not replayed for each outcome of the first pick


@njit(cache=True, _nrt=False, forceinline=True)
def _step_start(plan, dice, state):
    """Every striker of the step splits its attacks between the enemy bodies it aims at,
    from the models standing as the step begins (R2-4, R2-6: the step's strikes are
    simultaneous); then their wounds are taken (:func:`_strike`)."""
    k = state[STEP]
    for i in range(plan.L):
        j = steps(plan, k, i)
        if j < 0:
            break
        _allocate(plan, dice, state, j)
    state[PART] = 0
    state[BODY] = 0
    state[PHASE] = STRIKE


@njit(cache=True, _nrt=False, forceinline=True)
def _attacks_of(plan, dice, state, j, kind, s, u, m, rolling):
    """The attacks or hits m models of side s's unit u make as striker j of ``kind`` (R2-4,
    R2-5): counted, and rolled where its rules roll them (``rolling``)."""
    r = state[ROUND]
    a = 0
    if kind == FIGHTING:
        a = m * (attacks(plan, s, u) + state[_u(plan, FRENZIED, s, u)]
                 + (r == FIRST) * first_attacks(plan, s, u))
    elif kind == MOUNT:
        a = m * mount_attacks(plan, s, u)
    elif kind == IMPACT:
        a = m * impact_hits(plan, s, u) * (r == FIRST)
    elif kind == STOMP:
        a = m * stomps(plan, s, u)
    if plan.X and rolling:
        left = m
        while left > 0:
            n = min(left, ROLLED)
            a += pick(dice, rolled_law(plan, j, n))
            left -= n
    return a


@njit(cache=True, _nrt=False, forceinline=True)
def _aims_at(plan, state, s, u, t, h2, e, r, j):
    """Side s's unit u aims at enemy hero h2 in engagement e by its attack_character (R2-4):
    the hero stands, is not in a challenge, fights through e, and (if_can_wound) can be
    wounded by the striker."""
    if aims(plan, s, u) == 0:
        return False
    v = body_unit(plan, t, plan.U + h2)
    return _alive(plan, state, t, h2) and state[DUEL + t] != h2 and \
        _hero_engagement(plan, state, t, v) == e and (
            aims(plan, s, u) == 1 or can_wound(plan, r, j, plan.U + h2) > 0)


@njit(cache=True, _nrt=False, forceinline=True)
def _allocate(plan, dice, state, j):
    """Striker j's attacks, split between the enemy bodies it aims at (R2-4): a hero's at
    its foe in a challenge, else at an enemy hero it aims at, else at the unit; a unit's
    models in contact, in each engagement, a file of up to three models at each enemy hero
    they aim at, the rest (and the champion's +1 A) at the unit."""
    c = charger(plan)
    r = state[ROUND]
    s, u, h, kind = striker_side(plan, j), striker_unit(plan, j), _hero_of(plan, j), \
        striker_kind(plan, j)
    t = 1 - s
    if state[_u(plan, INSIDE, s, u)] == 0:
        return
    if h >= 0:
        if not _alive(plan, state, s, h) or state[REFUSED + s] == h:
            return
        a = fixed(plan, j)
        if kind == HERO:
            a += (r == FIRST) * first(plan, j)
            if plan.X and rolls(plan, j):
                a += pick(dice, rolled_law(plan, j, 1))
        if a <= 0:
            return
        if state[DUEL + s] == h:
            _aim(plan, state, j, plan.U + state[DUEL + t], a, 1)
            return
        e = _hero_engagement(plan, state, s, u)
        if e < 0:
            return
        v = _of(plan, e, t)
        b = -1
        for h2 in range(_first_hero(plan, t, v), _last_hero(plan, t, v)):
            if _aims_at(plan, state, s, u, t, h2, e, r, j):
                b = plan.U + h2
                break
        if b < 0:
            b = _unit_body(plan, state, t, v)
        if b < 0:
            return
        _aim(plan, state, j, b, a, 1 if (t == c or face(plan, e) == FRONT) else 0)
        return
    rolling = rolls(plan, j) > 0 and (kind != IMPACT or r == FIRST)
    # the engagement its heroes fight through; one unit a side with none: its only one
    heng = _hero_engagement(plan, state, s, u) if plan.U > 1 or plan.G > plan.U else -1
    for e in range(_engagements(plan)):
        if _of(plan, e, s) != u or not _active(plan, state, e):
            continue
        files, used = _contact(plan, state, e, 0 if s == c else 1)
        here = 0
        if heng == e:  # the unit's heroes fight in its first files, a refusing one's
            for h2 in range(_first_hero(plan, s, u), _last_hero(plan, s, u)):  # taken by
                #                                                  a rank-and-file model
                if _alive(plan, state, s, h2) and state[REFUSED + s] != h2:
                    here += 1
        here = min(here, files)
        models = min(files - here, state[_n(plan, s, u)])
        v = _of(plan, e, t)
        front = 1 if (t == c or face(plan, e) == FRONT) else 0
        offset = 0 if s == c else used
        supports = s == c or face(plan, e) == FRONT
        left = models
        done = here
        aimed = 0
        if kind == FIGHTING or kind == SUPPORTING or kind == MOUNT:
            for h2 in range(_first_hero(plan, t, v), _last_hero(plan, t, v)):
                if left == 0:
                    break
                if not _aims_at(plan, state, s, u, t, h2, e, r, j):
                    continue
                m = min(3, left)
                if kind == SUPPORTING:
                    a = 0
                    if supports:
                        a = _supporters(plan, state, s, u, offset + done,
                                        offset + done + m)
                else:
                    a = _attacks_of(plan, dice, state, j, kind, s, u, m, rolling)
                if a > 0:
                    _aim(plan, state, merged_into(plan, j), plan.U + h2, a, front)
                aimed += a
                left -= m
                done += m
        if kind == SUPPORTING:  # the rest, behind its heroes' files too
            a = 0
            if supports:
                a = _supporters(plan, state, s, u, offset, offset + files) - aimed
        else:
            a = _attacks_of(plan, dice, state, j, kind, s, u, left, rolling)
            if kind == FIGHTING and (heng == e or heng < 0):
                a += min(left, champion_bonus(plan, s, u))
        if a > 0:
            b = _unit_body(plan, state, t, v)
            if b >= 0:
                _aim(plan, state, merged_into(plan, j), b, a, front)


@njit(inline="always")
def _aim(plan, state, j, b, a, front):
    x = state[_alloc(plan, j, b)]
    state[_alloc(plan, j, b)] = ((x >> 1) + a) * 2 + front


@njit(cache=True, _nrt=False, forceinline=True)
def _strike(plan, dice, state):
    """The step's strikers in turn, each body it attacks in turn: its unsaved wounds there
    are one Binomial pick, then its Killing Blows among the rest (R2-8, R2-9); taken at
    once, those past a unit's last rank-and-file model by its champion. After the step's
    last striker, the step ends (:func:`_step_end`); a solver's stage stops before its
    second pick, or at the result."""
    while state[PHASE] == STRIKE:
        k = state[STEP]
        for i in range(resumed(dice, state, PART), plan.L):
            j = steps(plan, k, i)
            if j < 0:
                break
            for b in range(resumed(dice, state, BODY), plan.G):
                if state[_alloc(plan, j, b)] == 0:
                    continue
                if picked(dice):
                    state[PART] = i
                    state[BODY] = b
                    return True
                _hit(plan, dice, state, j, b)
            state[BODY] = 0
        _step_end(plan, dice, state)
        if state[PHASE] == RESULT and replaying(dice):
            return True  # the result reads the lead: a stage of its own (reads_sign)
    return False


@njit(cache=True, _nrt=False, forceinline=True)
def _hit(plan, dice, state, j, b):
    """Striker j's unsaved wounds and Killing Blows on enemy body b (R2-8, R2-9)."""
    x = state[_alloc(plan, j, b)]
    state[_alloc(plan, j, b)] = 0
    a, f = x >> 1, x & 1
    s = striker_side(plan, j)
    t = 1 - s
    su = striker_unit(plan, j)
    r = state[ROUND]
    in_duel = _hero_of(plan, j) >= 0 and state[DUEL + s] == _hero_of(plan, j)
    tu = body_unit(plan, t, b)
    fz = state[_u(plan, FRENZIED, t, tu)] if b < plan.U else 0
    af, at_ = state[_u(plan, AFRAID, s, su)], state[_u(plan, AFRAID, t, tu)]
    p = p_unsaved(plan, r, af, at_, fz, f, j, b)
    slays = p_slay(plan, r, af, at_, fz, f, j, b) if plan.X else 0.0
    multiplied = plan.X and multiplies(plan, r, j) > 0
    most = a
    if replaying(dice) and not in_duel and not multiplied and slays == 0.0:
        most = _room(plan, state, t, b)  # wounds past what the body and its champion can
        if b < plan.U:                   # take are lost: one outcome
            h = _spill_to(plan, state, t, b)
            if h >= 0:
                most += _room(plan, state, t, plan.U + h)
        most = min(most, a)
    unsaved = pick_binomial(dice, plan.cdf, unsaved_row(plan, r, af, at_, fz, f, j, b),
                            unsaved_top(plan, r, af, at_, fz, f, j, b), a, p, most)
    slain = 0
    if slays > 0.0 and a > unsaved:
        slain = pick_binomial(dice, plan.cdf, 0, -1, a - unsaved, slays, a - unsaved)
    dealt = np.int64(0)
    got, left, left_slain, dealt = _wound(plan, dice, state, t, b, unsaved, slain,
                                          multiplied, r, j, dealt)
    if b < plan.U and (left > 0 or left_slain > 0):
        h = _spill_to(plan, state, t, b)
        if h >= 0:
            more, _, _, dealt = _wound(plan, dice, state, t, plan.U + h, left, left_slain,
                                       multiplied, r, j, dealt)
            got += more
    if in_duel:
        state[DEALT + s] += dealt
    else:
        state[LEAD] += got if s == 0 else -got


@njit(cache=True, _nrt=False, forceinline=True)
def _wound(plan, dice, state, t, b, unsaved, slain, multiplied, r, j, dealt):
    """``unsaved`` wounds, then ``slain`` Killing Blows, on body b of side t; with Multiple
    Wounds each unsaved wound is a pick of its dice, never more than its model has left
    (R2-8). Returns (wounds caused, unsaved wounds left over, Killing Blows left over, every
    wound as dealt, for overkill: a Killing Blow the wounds left, at least 1)."""
    w = wounds(plan, t, b)
    caused = 0
    left = 0
    if not multiplied:
        take = min(unsaved, _room(plan, state, t, b))
        caused = take
        dealt += unsaved
        _wounded(plan, state, t, b, state[_d(plan, t, b)] + take)
        left = unsaved - take
    else:
        for _ in range(unsaved):
            value = pick(dice, wounds_law(plan, r, j))
            dealt += value
            if state[_n(plan, t, b)] == 0:
                left += 1
                continue
            value = min(value, w - state[_d(plan, t, b)])
            caused += value
            state[_d(plan, t, b)] += value
            if state[_d(plan, t, b)] == w:
                state[_n(plan, t, b)] -= 1
                state[_d(plan, t, b)] = 0
    killed = 0
    for _ in range(slain):
        if state[_n(plan, t, b)] == 0:
            break
        caused += w - state[_d(plan, t, b)]
        dealt += w - state[_d(plan, t, b)]
        state[_n(plan, t, b)] -= 1
        state[_d(plan, t, b)] = 0
        killed += 1
    dealt += slain - killed
    return caused, left, slain - killed, dealt


@njit(cache=True, _nrt=False, forceinline=True)
def _casualties(plan, state):
    """Units with no model left leave the fight, destroyed; a challenge ends when one of the
    two falls, won by the other."""
    for s in range(2):
        for u in range(units(plan, s)):
            if state[_u(plan, INSIDE, s, u)] > 0 and _standing(plan, state, s, u) == 0:
                state[_u(plan, INSIDE, s, u)] = 0
                state[_u(plan, FATE, s, u)] = UNIT_DESTROYED
    if state[DUEL] >= 0:
        a = state[_n(plan, 0, plan.U + state[DUEL])] > 0
        b = state[_n(plan, 1, plan.U + state[DUEL + 1])] > 0
        if not (a and b):
            if a:
                state[WON] += 1
            if b:
                state[WON + 1] += 1
            state[DUEL] = -1
            state[DUEL + 1] = -1


@njit(cache=True, _nrt=False, forceinline=True)
def _step_end(plan, dice, state):
    """Casualties leave (R2-6: at the end of their step); the round goes on to its next step
    while both sides have a unit in the fight, else to the combat result."""
    _casualties(plan, state)
    state[STEP] += 1
    if _left(plan, state, whole(0)) == 0 or _left(plan, state, whole(1)) == 0 or \
            state[STEP] == step_count(plan):
        state[PHASE] = RESULT
        state[STEP] = 0
        state[PART] = 0
        return
    _step_start(plan, dice, state)


@njit(cache=True, _nrt=False, forceinline=True)
def _score(plan, state, s):
    """Side s's combat result beside the wounds it caused and its overkill (R2-11): the
    charge, the best unit's ranks, a standard, the battle standard, flank and rear once per
    enemy unit."""
    c = charger(plan)
    score = 1 if state[ROUND] == FIRST and s == c else 0
    best = 0
    flag = 0
    for u in range(units(plan, s)):
        if state[_u(plan, INSIDE, s, u)] == 0:
            continue
        flag = max(flag, standard(plan, s, u))
        if not _disrupted(plan, state, s, u):
            best = max(best, min(3, max(0, _ranks(plan, state, s, u) - 1)))
    score += best + flag + _battle_standard(plan, state, s)
    if s == c:
        for v in range(units(plan, 1 - c)):
            flank, rear = 0, 0
            for e in range(_engagements(plan)):
                if charged(plan, e) == v and _active(plan, state, e):
                    flank = max(flank, face(plan, e) == FLANK)
                    rear = max(rear, face(plan, e) == REAR)
            score += flank + 2 * rear
    return score


@njit(cache=True, _nrt=False, forceinline=True)
def _disrupted(plan, state, s, u):
    """A charged unit engaged in a flank or the rear by a unit of two or more ranks (R2-11)."""
    if s == charger(plan):
        return False
    for e in range(_engagements(plan)):
        if charged(plan, e) == u and face(plan, e) != FRONT and _active(plan, state, e) and \
                _ranks(plan, state, charger(plan), charging(plan, e)) >= 2:
            return True
    return False


@njit(cache=True, _nrt=False, forceinline=True)
def _musician(plan, state, s):
    for u in range(units(plan, s)):
        if state[_u(plan, INSIDE, s, u)] > 0 and musician(plan, s, u) > 0:
            return True
    return False


@njit(cache=True, _nrt=False, forceinline=True)
def _result(plan, dice, state):
    """The combat result (R2-11): a side with no unit left in the fight has lost (both: mutual
    destruction); else the higher score wins, a lone musician winning a draw by 1, and the
    loser's units test (R2-12). A draw: the fight goes on."""
    lead = _overkill(state, state[LEAD])
    state[LEAD] = 0  # read: what follows is played apart for each class of its values
    for s in range(2):
        state[DEALT + s] = 0
        state[CAP + s] = 0
    a_left, d_left = _left(plan, state, whole(0)), _left(plan, state, whole(1))
    if a_left == 0 or d_left == 0:
        if a_left == d_left:
            _ends(state, NONE, MUTUAL)
        else:
            state[LOSER] = 1 if d_left == 0 else 0
            _ends(state, ATTACKER + 1 - state[LOSER], -1)
        return
    diff = _diff(plan, state, lead + _scores(plan, state))
    if diff == 0:
        _disengage(plan, state)
        state[PHASE] = GO_ON
        return
    state[LOSER] = 1 if diff > 0 else 0
    state[MARGIN] = abs(diff)
    x = state[LOSER]
    state[AT] = 0
    state[PHASE] = BREAK
    state[STEP] = _most_ranks(plan, state, 1 - x)  # read by the break tests (STEP is free
    #                                                  until the next round)
    state[PART] = _break_rerolls(plan, state, x)  # as the tests began


@njit(cache=True, _nrt=False, forceinline=True)
def _overkill(state, lead):
    """The round's lead in wounds with the challenges' overkill (R2-11)."""
    return lead + min(state[DEALT], state[CAP]) - min(state[DEALT + 1], state[CAP + 1])


@njit(cache=True, _nrt=False, forceinline=True)
def _scores(plan, state):
    """The combat result's points but for wounds (R2-11): the attacker's less the
    defender's."""
    return _score(plan, state, whole(0)) - _score(plan, state, whole(1))


@njit(cache=True, _nrt=False, forceinline=True)
def _diff(plan, state, diff):
    """The combat result (R2-11) from ``diff``, the round's lead in wounds, overkill counted,
    plus :func:`_scores`: a lone musician wins a draw by 1; 0 a draw."""
    if diff == 0:
        m0, m1 = _musician(plan, state, whole(0)), _musician(plan, state, whole(1))
        if m0 != m1:
            diff = 1 if m0 else -1
    return diff


@njit(cache=True, _nrt=False, forceinline=True)
def _most_ranks(plan, state, w):
    """The most ranks of side w's units in the fight, for its enemy's Steadfast (R2-12)."""
    most = 0
    for v in range(units(plan, w)):
        if state[_u(plan, INSIDE, w, v)] > 0:
            most = max(most, _ranks(plan, state, w, v))
    return most


@njit(cache=True, _nrt=False, forceinline=True)
def _steadfast(plan, state, x, u, most):
    """The loser's unit u tests on its unmodified Ld: Stubborn, or more ranks than the
    winners' most (``most``), unless disrupted where disrupted_steadfast is false (R2-12)."""
    return stubborn(plan, x, u) > 0 or (_ranks(plan, state, x, u) > most and (
        disrupted_steadfast(plan) or not _disrupted(plan, state, x, u)))


@njit(cache=True, _nrt=False, forceinline=True)
def lead_classes(plan, state, first, last, classes, chances):
    """The classes of a round's lead in wounds at the combat result, for the leads ``first``
    .. ``last`` (classes[lead - first]): two leads of one class play the rest of the round
    alike, but for the chances of its first pick where chances[lead - first, :2] gives them
    (else -1): odds.core.walk solves a class once, that pick's chances mixed by each lead's
    share. A side with no unit left: one class; else the draw, and per loser (R2-11, R2-12):
    one class where a single unit of the loser tests and on a modified Ld (its break test,
    the round's first pick, then mixed over the margins); else the margins as the tests read
    them: not at all where every unit that tests is Steadfast, Stubborn or Unbreakable,
    alike past the highest Ld of those that are not, each one where a unit is Unstable or
    Daemonic (it loses or tests by the whole margin). Returns 2, the mixed picks' outcomes."""
    gone = _left(plan, state, whole(0)) == 0 or _left(plan, state, whole(1)) == 0
    if gone:
        for lead in range(first, last + 1):
            classes[lead - first], chances[lead - first, 0] = 0, -1.0
        return whole(2)
    scores = _scores(plan, state)
    read0, tester0, rerolled0 = _reading(plan, state, whole(0))
    read1, tester1, rerolled1 = _reading(plan, state, whole(1))
    for lead in range(first, last + 1):
        i = lead - first
        chances[i, 0] = -1.0
        diff = _diff(plan, state, _overkill(state, lead) + scores)
        if diff == 0:
            classes[i] = 1
            continue
        x = 1 if diff > 0 else 0
        margin = abs(diff)
        read, u, rerolled = (read1, tester1, rerolled1) if x else (read0, tester0, rerolled0)
        if u >= 0:  # its one test, on its Ld (read) less the margin
            classes[i] = 2 + x
            law = _break_law(plan, x, u, read - margin, rerolled)
            chances[i, 0], chances[i, 1] = law[CHANCE, 0], law[CHANCE, 1]
        else:
            classes[i] = 4 + x + 2 * (margin if read < 0 else min(margin, read))
    return whole(2)


@njit(cache=True, _nrt=False, forceinline=True)
def _reading(plan, state, x):
    """What side x's break tests read of the margin if it loses (R2-12): (the highest
    margin that still changes a test, 0 none, -1 all of it; the unit whose one test reads
    it where it is the only unit of the side that tests, else -1; 1 if its tests are
    re-rolled, with a battle standard)."""
    most = _most_ranks(plan, state, 1 - x)
    read, tests, tester = 0, 0, -1
    for u in range(units(plan, x)):
        if state[_u(plan, INSIDE, x, u)] == 0:
            continue
        if plan.X and (unstable(plan, x, u) or daemonic(plan, x, u)):
            read, tests = -1, 2  # it loses or tests by the whole margin
        elif not unbreakable(plan, x, u):
            tests += 1
            if read >= 0 and not _steadfast(plan, state, x, u, most):
                read = max(read, _unit_ld(plan, state, x, u))
                tester = u
    return read, tester if tests == 1 and read > 0 else -1, _break_rerolls(plan, state, x)


@njit(cache=True, _nrt=False, forceinline=True)
def _break_rerolls(plan, state, x):
    """1 if side x's break tests are re-rolled (its battle standard, R2-12), else 0."""
    return 1 if _battle_standard(plan, state, x) else 0


@njit(inline="always")  # typed where called: it returns a view of the plan's laws
def _break_law(plan, x, u, target, rerolled):
    """The law of unit u of side x's break test on ``target`` (its Ld, less the margin
    unless Steadfast or Stubborn): (broke, held), ``rerolled`` with its side's battle
    standard (R2-12)."""
    return holds_law(plan, rerolled, cold_blooded(plan, x, u), min(max(target, 0), 12))


@njit(cache=True, _nrt=False, forceinline=True)
def _break(plan, dice, state):
    """Each unit of the loser in the fight loses Frenzy (R2-7) and takes its break test on
    its Ld less the margin, or unmodified if Steadfast or Stubborn, re-rolled with a battle
    standard (R2-12); an Unstable unit loses a wound per point instead, an Unbreakable one
    never tests, a Daemonic one tests its Instability. Those that broke flee (R2-13); the
    winners then restrain or pursue (:func:`_restrain`)."""
    x = state[LOSER]
    most = state[STEP]
    for u in range(resumed(dice, state, AT), units(plan, x)):
        if state[_u(plan, INSIDE, x, u)] == 0:
            continue
        state[_u(plan, FRENZIED, x, u)] = 0
        if plan.X and unstable(plan, x, u):
            _lose(plan, state, x, u, min(state[MARGIN], _room(plan, state, x, u)))
            continue
        if unbreakable(plan, x, u):
            continue
        steadfast = _steadfast(plan, state, x, u, most)
        target = _unit_ld(plan, state, x, u) - (0 if steadfast else state[MARGIN])
        if picked(dice):
            state[AT] = u
            return True
        if plan.X and daemonic(plan, x, u):
            _instability(plan, dice, state, x, u, target)
        elif pick(dice, _break_law(plan, x, u, target, state[PART])) == 0:
            state[_u(plan, FLED_NOW, x, u)] = 1
    for u in range(units(plan, x)):
        if state[_u(plan, FLED_NOW, x, u)]:
            state[_u(plan, INSIDE, x, u)] = 0
            state[_u(plan, FATE, x, u)] = UNIT_FLED
    state[MARGIN] = 0
    state[STEP] = 0
    state[PART] = 1 if reroll_all(plan) and _battle_standard(plan, state, 1 - x) else 0
    state[AT] = 0
    state[PHASE] = RESTRAIN
    return False


@njit(cache=True, _nrt=False, forceinline=True)
def _wounded(plan, state, t, b, x):
    """Body b of side t has x wounds on its wounded models: those they kill are removed, the
    rest stay on the wounded model (no division for models of one wound)."""
    w = wounds(plan, t, b)
    if w == 1:
        state[_n(plan, t, b)] -= x
        state[_d(plan, t, b)] = 0
    else:
        dead = x // w
        state[_n(plan, t, b)] -= dead
        state[_d(plan, t, b)] = x - dead * w


@njit(cache=True, _nrt=False, forceinline=True)
def _lose(plan, state, x, u, lost):
    """Unit u of side x loses ``lost`` wounds with no saves (Unstable, Daemonic Instability;
    one unit a side: its rank-and-file)."""
    _wounded(plan, state, x, u, state[_d(plan, x, u)] + lost)


@njit(cache=True, _nrt=False, forceinline=True)
def _instability(plan, dice, state, x, u, target):
    """Daemonic Instability (R2-12): 2D6 against ``target``, re-rolled once with a battle
    standard unless a double 1; a double 1 restores the models and wounds lost this round,
    a double 6 destroys the unit, else it loses a wound per point above ``target``."""
    law = instability_law(plan, cold_blooded(plan, x, u))
    roll = pick(dice, law)
    if state[PART] and (roll == 1 or (roll != 0 and roll > target)):
        roll = pick(dice, law)
    if roll == 0:  # Reality Blinks
        before = state[_n(plan, x, u)] * wounds(plan, x, u) - state[_d(plan, x, u)]
        state[_n(plan, x, u)] = state[STARTED + 2 * x]
        state[_d(plan, x, u)] = state[STARTED + 2 * x + 1]
        state[RESTORED + x] += _room(plan, state, x, u) - before
    elif roll == 1:  # Banished
        state[_n(plan, x, u)] = 0
        state[_d(plan, x, u)] = 0
    else:
        _lose(plan, state, x, u, min(max(0, roll - target), _room(plan, state, x, u)))


@njit(cache=True, _nrt=False, forceinline=True)
def _restrain(plan, dice, state):
    """Each winning unit in the fight whose enemies all broke this round leaves the fight:
    pursuing if Frenzied (it must) or if it fails to restrain on an Ld test (``pursue =
    false``; else it always pursues, R2-13), else standing. A pursuer that fought several
    units that broke rolls once for them all, now; the others' rolls are folded into the
    catches (:func:`_catch`)."""
    x = state[LOSER]
    y = 1 - x
    for w in range(resumed(dice, state, AT), units(plan, y)):
        if state[_u(plan, INSIDE, y, w)] == 0:
            continue
        if state[_u(plan, FLED_NOW, y, w)]:  # a pursuer of several: its roll
            if picked(dice):
                state[AT] = w
                return True
            state[_u(plan, BEST, y, w)] = pick(dice, move_law(plan, swiftstride(plan, y, w)))
            state[_u(plan, INSIDE, y, w)] = 0
            continue
        fled, still = 0, False
        for e in range(_engagements(plan)):
            if _of(plan, e, y) != w:
                continue
            o = _of(plan, e, x)
            if state[_u(plan, FLED_NOW, x, o)]:
                fled += 1
            elif state[_u(plan, INSIDE, x, o)] > 0:
                still = True
        if still or fled == 0:
            continue
        pursues = state[_u(plan, FRENZIED, y, w)] > 0 or pursue(plan)
        if not pursues:
            if picked(dice):
                state[AT] = w
                return True
            pursues = pick(dice, fails_law(plan, state[PART], cold_blooded(plan, y, w),
                                           min(_unit_ld(plan, state, y, w), 12))) == 1
        if pursues:
            state[_u(plan, FLED_NOW, y, w)] = 1  # marks a pursuer
            if fled > 1:
                if picked(dice):
                    state[AT] = w
                    return True
                state[_u(plan, BEST, y, w)] = pick(dice, move_law(plan,
                                                                  swiftstride(plan, y, w)))
        state[_u(plan, INSIDE, y, w)] = 0  # it leaves the fight, pursuing or standing
    state[PART] = 0
    state[AT] = 0
    state[PHASE] = CATCH
    return False


@njit(cache=True, _nrt=False, forceinline=True)
def _catch(plan, dice, state):
    """Each unit that broke this round is caught if a pursuer of it rolls at least its flee
    roll (R2-13): one pick of the best roll of its pursuers who pursue it alone (folded
    into the law) and of those who rolled for several. After the last: the fight goes on
    while both sides have a unit in it."""
    x = state[LOSER]
    y = 1 - x
    for o in range(resumed(dice, state, AT), units(plan, x)):
        if state[_u(plan, FLED_NOW, x, o)] == 0:
            continue
        best, plain, swift = 0, 0, 0
        for e in range(_engagements(plan)):
            if _of(plan, e, x) != o:
                continue
            w = _of(plan, e, y)
            if state[_u(plan, FLED_NOW, y, w)]:
                if state[_u(plan, BEST, y, w)] > 0:
                    best = max(best, state[_u(plan, BEST, y, w)])
                elif swiftstride(plan, y, w):
                    swift += 1
                else:
                    plain += 1
        if best == 0 and plain == 0 and swift == 0:
            continue
        if picked(dice):
            state[AT] = o
            return True
        if pick(dice, catch_law(plan, swiftstride(plan, x, o), best, plain, swift)):
            state[_u(plan, FATE, x, o)] = UNIT_CAUGHT
    _disengage(plan, state)
    _casualties(plan, state)
    a_left, d_left = _left(plan, state, whole(0)), _left(plan, state, whole(1))
    if a_left == 0 or d_left == 0:
        state[LOSER] = x if a_left == d_left else (1 if d_left == 0 else 0)
        _ends(state, ATTACKER + 1 - state[LOSER], -1)
    else:
        state[PHASE] = GO_ON
    return False


@njit(cache=True, _nrt=False, forceinline=True)
def _disengage(plan, state):
    """Units with no enemy left in contact leave the fight, standing."""
    for s in range(2):
        for u in range(units(plan, s)):
            if state[_u(plan, INSIDE, s, u)] == 0:
                continue
            engaged = False
            for e in range(_engagements(plan)):
                if _of(plan, e, s) == u and _active(plan, state, e):
                    engaged = True
            if not engaged:
                state[_u(plan, INSIDE, s, u)] = 0


@njit(cache=True, _nrt=False, forceinline=True)
def _go_on(plan, dice, state):
    """The fight goes on to its next round; for the exact solver what no later stage reads
    is forgotten, so that fights alike are one state."""
    state[LOSER] = 0
    state[MARGIN] = 0
    state[AT] = 0
    state[STEP] = 0
    state[PART] = 0
    for s in range(2):
        for u in range(units(plan, s)):
            state[_u(plan, BEST, s, u)] = 0
            state[_u(plan, FLED_NOW, s, u)] = 0
            if replaying(dice):
                state[_u(plan, AFRAID, s, u)] = 0
                if state[_u(plan, INSIDE, s, u)] == 0:
                    state[_u(plan, FRENZIED, s, u)] = 0
    _next_round(plan, state)


@njit(inline="always")
def _ends(state, winner, end):
    """The fight is over (FINISH, :func:`_finish`); -1: the loser (LOSER) lost as its units'
    fates say."""
    state[WINNER] = winner
    state[END] = end
    state[PHASE] = FINISH


@njit(cache=True, _nrt=False, forceinline=True)
def _finish(plan, dice, state):
    """The fight is over; for the exact solver what the row does not read is forgotten."""
    if state[END] < 0:
        x = state[LOSER]
        state[END] = how_beaten(state, np.int64(_u(plan, FATE, x, 0)), units(plan, x))
    state[OVER] = 1
    if not replaying(dice):
        return
    for i in range(HEAD):  # the row reads these, and the hero columns
        if i != OVER and i != WINNER and i != END and i != ROUNDS and i != RESTORED and \
                i != RESTORED + 1 and i != CHALLENGES and i != WON and i != WON + 1:
            state[i] = 0
    for s in range(2):
        for u in range(units(plan, s)):
            for what in range(INSIDE, FLED_NOW + 1):
                if what != FATE:
                    state[_u(plan, what, s, u)] = 0


# -- the row ---------------------------------------------------------------------------

@njit(cache=True, _nrt=False, forceinline=True)
def row(plan, state, out, t):
    """The outcome record of an ended fight into column t of ``out`` (R2-14): the shared
    columns, then as far as ``out`` has rows for them the hero columns and each unit's fate,
    losses and wounds. A caught unit is lost whole; wounds are the unsaved wounds its models
    took (those Reality Blinks restored included)."""
    out[0, t] = state[WINNER]
    out[1, t] = state[END]
    out[2, t] = state[ROUNDS]
    heroes_too = led(plan) and out.shape[0] >= N_SHARED + N_HEROES
    if heroes_too:
        out[N_SHARED, t] = state[CHALLENGES]
        out[N_SHARED + 1, t] = state[WON]
        out[N_SHARED + 2, t] = state[WON + 1]
    column = N_SHARED + N_HEROES * led(plan)
    for s in range(2):
        lost_side, wounds_side = 0, 0
        for u in range(units(plan, s)):
            fate = state[_u(plan, FATE, s, u)]
            lost = unit_size(plan, s, u) if fate == UNIT_CAUGHT else \
                unit_size(plan, s, u) - _standing(plan, state, s, u)
            taken = _taken(plan, state, s, u)
            lost_side += lost
            wounds_side += taken
            if unit_columns(plan) and out.shape[0] >= column + 3:
                out[column, t] = fate
                out[column + 1, t] = lost
                out[column + 2, t] = taken
                column += 3
        out[3 + s, t] = lost_side
        out[5 + s, t] = wounds_side + state[RESTORED + s]
        if heroes_too:
            slain, champions = 0, 0
            for h in range(_heroes(plan, s)):
                if champion(plan, s, plan.U + h):
                    champions += state[_n(plan, s, plan.U + h)] == 0
                else:
                    slain += state[_n(plan, s, plan.U + h)] == 0
            out[N_SHARED + 3 + s, t] = slain
            out[N_SHARED + 5 + s, t] = champions


@njit(cache=True, _nrt=False, forceinline=True)
def _taken(plan, state, s, u):
    """The unsaved wounds unit u of side s has taken: on its rank-and-file and heroes."""
    total = count(plan, s, u) * wounds(plan, s, u) - _room(plan, state, s, u)
    for h in range(_first_hero(plan, s, u), _last_hero(plan, s, u)):
        b = plan.U + h
        total += count(plan, s, b) * wounds(plan, s, b) - _room(plan, state, s, b)
    return total
