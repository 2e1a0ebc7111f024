"""The wh40k3 rule text: a close combat written once, for the kernel and the exact solver
alike (the shape is described in ``odds/rulesets/README.md``; semantics: README.md here).

- **Laws** (``compile.py``, once a plan): a part's kills, hits and saves are Binomial counts
  read from the plan's tables (``odds.core.dice.pick_binomial``), wounds that spill past the
  models of one group and place are saved model by model (``pick_until``); the charge through
  difficult terrain (R0-1), the roll-off (R0-10), an Ld test at each Ld (R0-11), a pursuit
  roll, a catch by the best pursuit roll and an advance reaching a fresh unit (R0-12) are
  laws of the plan.
- **Stages** (:func:`stage`): for the exact solver each makes one pick, plays on through
  all that follows it surely and ends before the next pick (``odds.core.dice.picked``), so
  that the solver merges equal states there; the kernel plays a whole fight in one stage.
- **The row** (:func:`row`): the outcome record, per unit too when a side has several.

A side may be several units (R0-13): each strikes one enemy unit, wounds stay inside the unit
struck, and an advance may carry the winners into a fresh unit (R0-12). One unit a side is
the same text with one unit.

**One pick a part.** When every model of the unit struck saves alike against a part (the
same chance of no save), the wounds it takes are Binomial(attacks, P(hit and wound) x P(no
save)), kept within what the unit can still take (R0-8, R0-9: each wound is saved by the
model it falls on, so alike saves make the order of the models no matter): one pick, where a
part striking a unit of mixed saves picks its hits, then saves each wound on the model it
falls on.

The state is one int64 vector: the fields below, then every group's models per place, the
wounds on its wounded model and (side 0) the models it lost this strike step, then per unit:
models left, in the fight, fate, target, a mark (failed its test, or reaches the fresh unit)
and the front group it strikes at this step.

In a strike step the defender's parts strike first, each taking its wounds off the
attacker's models before the next, then the attacker's parts, their attacks counted with the
models they lost this step (R0-4: the step's strikes are simultaneous, so this order changes
no chance; it keeps a part's pending wounds alone in the state).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from odds.core.dice import pick, pick_binomial, pick_until, picked, replaying
from odds.core.outcome import (ATTACKER, COLUMNS as SHARED, MUTUAL, NO_FIGHT, NONE,
                               UNIT_CAUGHT, UNIT_DESTROYED, UNIT_FLED, UNIT_STANDING,
                               UNIT_UNREACHED, UNRESOLVED)
from odds.core.casts import slot
from odds.core.packed import known, tables  # noqa: F401 (known: read by walk.kernel)
from odds.core.walk import clear, how_beaten

CONTACT, REACH, OUT = 0, 1, 2  # where a model stands (R0-2): in contact, within 2", beyond
# round types: the charge round, the later rounds, and the first round of a new combat after
# an advance (R0-12) made by the attacker (ADVANCE + 0) or the defender (ADVANCE + 1)
FIRST, LATER, ADVANCE = 0, 1, 2
FEARLESS_LD = 12   # a Fearless model's Ld: 2D6 never exceeds it (R0-11)
STEPS = 12         # strike steps a round may have: the cover step, I 10 ... 1, strikes last
SIDE, GROUP, PLACE = 0, 1, 2  # a striking part: striker[r, k, j, SIDE ...]
# the state's head: OVER (odds.core.walk) is 0 while the fight goes on
OVER, PHASE, ROUND, ROUNDS, STEP, PART, HITS, LEAD, WINNER, END, LOSER, ROLLED_OFF, AT, \
    BEST, PILE_IN, LOSSES, MOVED = range(17)
HEAD = 17  # LOSSES: side 0 lost models this strike step; MOVED: a unit left or joined the
#            fight since the targets were chosen
# phases: what the next stage plays; GO_ON and FINISH are played on in the same stage
CHARGE, STRIKE, WOUND, RESULT, TEST, PURSUE, CATCH, ADVANCE_ROLL, GO_ON, FINISH = range(10)
BEATEN = -1  # END until FINISH works out how the loser was beaten
# per-unit fields, each (2 sides, U units)
ALIVE, INSIDE, FATE, TARGET, MARK, AIMED = range(6)
N_SHARED = len(SHARED)
TALLIES = ()  # wounds are read off the models: no field only added to
SIGNED = LEAD  # read only by its sign, at the round's end (odds.core.walk.solve)

# the plan's tables (odds.core.packed), each with its shape: G groups and U units a side, L
# layers of chances (the round types whose special rules differ)
TABLES = tables(
    ints={
        "unit_count": (2,),            # units a side (read by units(plan, s))
        "fresh": (2,),                 # the unit out of the fight at the start, -1 if none
        "charger": (), "pursue": (), "refill": (), "halved_move": (), "max_rounds": (),
        "charge_roll": (),             # 1: the charge goes through difficult terrain (R0-1)
        "most_hits": (),               # the most dice one part rolls (the solver's clock)
        "wound_points": (2,),          # a side's wounds in all (the span of the lead)
        "steps": (4,),                 # strike steps of each round type (R0-4)
        "chance": (4,),                # the layer of chances each round type reads
        "count": (2, "G"),             # models per group at the start
        "wounds": (2, "G"),            # W
        "leadership": (2, "G"),        # Ld
        "unit_of": (2, "G"),           # the unit of each group
        "unit_start": (2, "U + 1"),    # first group of each unit (R0-13)
        "unit_size": (2, "U"),         # models a unit at the start
        "ld_override": (2, "U"),       # a unit's Ld key, 0 if none or Fearless models (R0-11)
        "tough": (2, "U"),             # 1: a model of the unit has more than one wound
        "prefer": (2, "U"),            # the enemy unit it strikes first (R0-13)
        "removal_group": (2, "U", "3 * G"),  # removal order as (group, place) slots (R0-9)
        "removal_place": (2, "U", "3 * G"),
        "fill": (2, "U", "G"),         # contact order of groups, -1 padded (R0-2)
        "limits": (2, "U", 2),         # places in contact / within 2"
        "attacks": (4, 2, "G", 2),     # [round type, side, group, place] attacks a model (R0-3)
        "striker": (4, STEPS, "4 * G", 3),  # parts striking in each step: side, group, place,
        #                                     -1 padded; the defender's first (R0-4)
        "late": (4, STEPS, "G"),       # 1: attacker group g strikes in this step, after the
        #                                defender: its models lost earlier in it still do
        "uniform": (2, "G", 2, "U"),   # 1: every model of enemy unit u saves alike against
        #                                part (side, group, place): one pick a part
        "hits_row": ("L", 2, "G", 2, "G"),   # cdf row of P(hit and wound) against the front
        "hits_top": ("L", 2, "G", 2, "G"),   # group (R0-5, R0-7), the most dice it tabulates
        "saves_row": (2, "G", 2, "G"),       # of P(no save) for the model that takes the
        "saves_top": (2, "G", 2, "G"),       # wound (R0-8)
        "kills_row": ("L", 2, "G", 2, "G"),  # of P(hit, wound and no save) when the front
        "kills_top": ("L", 2, "G", 2, "G"),  # group's unit saves alike
    },
    reals={
        "reach": (2,),                       # the fresh unit's distance (R0-12)
        "p_wound": ("L", 2, "G", 2, "G"),    # P(hit) x P(wound) against the front group
        "p_unsaved": (2, "G", 2, "G"),       # P(no save) for the model that takes it
        "p_kill": ("L", 2, "G", 2, "G"),     # their product when the unit saves alike
    },
    laws={
        "charge_law": (),    # the charge reaches, falls short (R0-1)
        "roll_off_law": (),  # side 0 wins, side 1 wins, equal again (R0-10)
        "test_law": (13,),   # [Ld]: passes, fails (R0-11)
        "pursuit_law": (),   # 2D6 - 2 (R0-12)
        "catch_law": (13,),  # [best pursuit roll]: escapes, caught (R0-12)
        "caught_law": ("U + 1",),  # [pursuing units]: escapes, caught by the best (R0-12)
        "reach_law": (2,),   # [side whose fresh unit it is]: short, reaches (R0-12)
    },
    namespace=globals())
# (each table's reader is a global of this module, of the table's name: count(plan, s, g))


# -- the state's layout ----------------------------------------------------------------

@njit(cache=True, _nrt=False, forceinline=True)
def fields(plan):
    """The state's width for this plan."""
    return np.int64(_u(plan, AIMED + 1, 0, 0))


@njit(cache=True, _nrt=False, forceinline=True)
def columns(plan):
    """The row's width: the shared columns, and each unit's when a side has several."""
    return N_SHARED + (3 * (units(plan, 0) + units(plan, 1)) if _several(plan) else 0)


@njit(inline="always")
def units(plan, s):
    """How many units side s has (R0-13): 1 without a read when the plan's most a side is 1,
    a constant in the one-unit kernel (known)."""
    return 1 if plan.U == 1 else unit_count(plan, s)


@njit(inline="always")
def _several(plan):
    """Whether a side has several units (R0-13)."""
    return units(plan, 0) > 1 or units(plan, 1) > 1


@njit(inline="always")
def _c(plan, s, g, p):
    """Where group g of side s keeps its models at place p (R0-2)."""
    return slot(HEAD + (s * plan.G + g) * 3 + p)


@njit(inline="always")
def _d(plan, s, g):
    """Where group g of side s keeps the wounds on its wounded model (R0-9)."""
    return slot(HEAD + (6 + s) * plan.G + g)


@njit(inline="always")
def _lost(plan, g, p):
    """Where attacker group g keeps the models it lost at place p this strike step."""
    return slot(HEAD + 8 * plan.G + g * 3 + p)


@njit(inline="always")
def _u(plan, what, s, u):
    """Where unit u of side s keeps ``what`` (ALIVE, INSIDE, FATE, TARGET, MARK, AIMED)."""
    return slot(HEAD + 11 * plan.G + (what * 2 + s) * plan.U + u)


@njit(inline="always")
def _models_of(plan, state, s, g):
    return state[_c(plan, s, g, CONTACT)] + state[_c(plan, s, g, REACH)] + \
        state[_c(plan, s, g, OUT)]


@njit(cache=True, _nrt=False, forceinline=True)
def clock(plan, state):
    """How far the fight has come, for the exact solver (``odds.core.walk.solve``): the
    round, then the strike step, the part and the wounds it has left to save, then the
    phases of the round's end and the unit they are at."""
    parts = 4 * plan.G + 1
    most = most_hits(plan) + 2
    strikes = STEPS * parts * most
    phase = state[PHASE]
    if phase == STRIKE or phase == WOUND:
        at = (state[STEP] * parts + state[PART]) * most + (
            0 if phase == STRIKE else 1 + most_hits(plan) - state[HITS])
    else:
        at = strikes + (phase - RESULT) * (plan.U + 1) + state[AT]
    return state[ROUNDS] * (strikes + 8 * (plan.U + 1)) + at


@njit(cache=True, _nrt=False, forceinline=True)
def reads_sign(plan, state):
    """Whether the next stage reads the round's lead (by its sign, R0-10)."""
    return state[PHASE] == RESULT


@njit(cache=True)
def spans(plan):
    """The lead's span: side 0 loses every wound, or side 1 does (odds.core.walk.solve)."""
    out = np.zeros((1, 2), np.int64)
    out[0, 0] = -wound_points(plan, 0)
    out[0, 1] = wound_points(plan, 1)
    return out


# -- placing, targets, who takes a wound -------------------------------------------------

@njit(cache=True, _nrt=False, forceinline=True)
def _place(plan, state, s, u, everyone_in_contact):
    """Put unit u's models in contact / within 2" / beyond, in contact order (R0-2, R0-14)."""
    room_contact = limits(plan, s, u, 0)
    room_reach = limits(plan, s, u, 1)
    for j in range(plan.G):
        g = fill(plan, s, u, j)
        if g < 0:
            break
        n = _models_of(plan, state, s, g)
        c = n if everyone_in_contact else min(n, room_contact)
        room_contact -= c
        r = min(n - c, room_reach)
        room_reach -= r
        state[_c(plan, s, g, CONTACT)] = c
        state[_c(plan, s, g, REACH)] = r
        state[_c(plan, s, g, OUT)] = n - c - r


@njit(cache=True, _nrt=False, forceinline=True)
def _in_fight(plan, state, s):
    """How many of side s's units are in the fight."""
    n = 0
    for u in range(units(plan, s)):
        n += state[_u(plan, INSIDE, s, u)]
    return n


@njit(cache=True, _nrt=False, forceinline=True)
def _retarget(plan, state):
    """Each unit's target: its ``strikes`` unit if in the fight, else the next listed enemy
    unit in the fight, going round the list (R0-13). Called whenever a unit joins or leaves
    the fight, so every strike step starts with the targets of the units then in it."""
    for s in range(2):
        n = units(plan, 1 - s)
        for u in range(units(plan, s)):
            state[_u(plan, TARGET, s, u)] = -1
            for k in range(n):
                v = (prefer(plan, s, u) + k) % n
                if state[_u(plan, INSIDE, 1 - s, v)]:
                    state[_u(plan, TARGET, s, u)] = v
                    break
    state[MOVED] = 0


@njit(cache=True, _nrt=False, forceinline=True)
def _front(plan, state, s, u):
    """Unit u's front group: the first in its removal order with a model standing (R0-6)."""
    for k in range(3 * plan.G):
        g = removal_group(plan, s, u, k)
        if g < 0:
            break
        if state[_c(plan, s, g, removal_place(plan, s, u, k))] > 0:
            return g
    return -1


@njit(cache=True, _nrt=False, forceinline=True)
def _receiver(plan, state, t, u):
    """Who in unit u of side t takes the next wound: a wounded model, else the next in
    removal order (R0-9). Returns (group, place), or (-1, -1) when the unit has no model."""
    for h in range(unit_start(plan, t, u), unit_start(plan, t, u + 1) if tough(plan, t, u)
                   else 0):
        if state[_d(plan, t, h)] > 0:
            for place in range(3):
                if state[_c(plan, t, h, place)] > 0:
                    return h, place
    for k in range(3 * plan.G):
        h = removal_group(plan, t, u, k)
        if h < 0:
            break
        if state[_c(plan, t, h, removal_place(plan, t, u, k))] > 0:
            return h, removal_place(plan, t, u, k)
    return -1, -1


@njit(cache=True, _nrt=False, forceinline=True)
def _wound(plan, state, t, u, g, place, n):
    """n unsaved wounds on group g's models at ``place``, no more than they can take; wounds
    stay on a wounded model (R0-9). Adds them to side 0's lead this round (R0-10)."""
    w = state[_d(plan, t, g)] + n
    dead = w if wounds(plan, t, g) == 1 else w // wounds(plan, t, g)
    state[_c(plan, t, g, place)] -= dead
    state[_u(plan, ALIVE, t, u)] -= dead
    if t == 0 and late(plan, state[ROUND], state[STEP], g):
        state[_lost(plan, g, place)] += dead
        state[LOSSES] = 1
    state[_d(plan, t, g)] = w - dead * wounds(plan, t, g)
    state[LEAD] += n if t == 1 else -n


@njit(cache=True, _nrt=False, forceinline=True)
def _room(plan, state, t, u):
    """The wounds unit u of side t can still take (R0-9)."""
    n = 0
    for g in range(unit_start(plan, t, u), unit_start(plan, t, u + 1)):
        n += _models_of(plan, state, t, g) * wounds(plan, t, g) - state[_d(plan, t, g)]
    return n


@njit(cache=True, _nrt=False, forceinline=True)
def _wound_all(plan, state, t, u, n):
    """n unsaved wounds on unit u of side t, each on the model then next in line (R0-9);
    those past its last model are lost (R0-13)."""
    while n > 0:
        g, place = _receiver(plan, state, t, u)
        if g < 0:
            return
        take = min(n, state[_c(plan, t, g, place)] * wounds(plan, t, g)
                   - state[_d(plan, t, g)])
        _wound(plan, state, t, u, g, place, take)
        n -= take


@njit(cache=True, _nrt=False, forceinline=True)
def _leadership(plan, state, s, u):
    """The Ld unit u tests on: its override, else its best surviving model's (R0-11)."""
    if ld_override(plan, s, u) > 0:
        return ld_override(plan, s, u)
    best = 0
    for g in range(unit_start(plan, s, u), unit_start(plan, s, u + 1)):
        if _models_of(plan, state, s, g) > 0:
            best = max(best, leadership(plan, s, g))
    return best


# -- stages ----------------------------------------------------------------------------

@njit(cache=True, _nrt=False, forceinline=True)
def begin(plan, state):
    """The state before the charge: every unit in the fight placed, the fresh units out."""
    clear(state)
    for s in range(2):
        for g in range(plan.G):
            state[_c(plan, s, g, CONTACT)] = count(plan, s, g)
        for u in range(units(plan, s)):
            inside = fresh(plan, s) != u
            state[_u(plan, ALIVE, s, u)] = unit_size(plan, s, u)
            state[_u(plan, INSIDE, s, u)] = inside
            state[_u(plan, FATE, s, u)] = UNIT_STANDING if inside else UNIT_UNREACHED
            if inside:
                _place(plan, state, s, u, False)
    _retarget(plan, state)
    state[PHASE] = CHARGE
    state[ROUND] = FIRST
    state[END] = UNRESOLVED


@njit(inline="always")
def stage(plan, dice, state):
    """Play on to the end, or (the exact solver's paths) to just before the stage's second
    pick or the round's result: each phase's step returns whether it stopped there."""
    stopped = False
    while not state[OVER] and not stopped:
        phase = state[PHASE]
        if phase == STRIKE:
            stopped = _strike(plan, dice, state)
        elif phase == WOUND:
            stopped = _allocate(plan, dice, state)
        elif phase == RESULT:
            stopped = _result(plan, dice, state)
        elif phase == TEST:
            stopped = _test(plan, dice, state)
        elif phase == PURSUE:
            stopped = _pursue(plan, dice, state)
        elif phase == CATCH:
            stopped = _catch(plan, dice, state)
        elif phase == ADVANCE_ROLL:
            stopped = _advance_roll(plan, dice, state)
        elif phase == GO_ON:
            _go_on(plan, dice, state)
        elif phase == FINISH:
            _finish(plan, dice, state)
        else:
            stopped = _charge(plan, dice, state)


@njit(cache=True, _nrt=False, forceinline=True)
def _charge(plan, dice, state):
    """R0-1: through difficult terrain the charge reaches on the higher of 2D6; then the
    first round."""
    if charge_roll(plan) and pick(dice, charge_law(plan)) == 1:
        _ends(state, NONE, NO_FIGHT)
    else:
        _next_round(plan, state)
    return False


@njit(cache=True, _nrt=False, forceinline=True)
def _next_round(plan, state):
    """The next round's first strike step, or the fight unresolved at max_rounds (R0-16)."""
    if state[ROUNDS] >= max_rounds(plan):
        _ends(state, NONE, UNRESOLVED)
        return
    state[ROUNDS] += 1
    state[LEAD] = 0
    state[STEP] = 0
    _step_start(plan, state)


@njit(cache=True, _nrt=False, forceinline=True)
def _step_start(plan, state):
    """Each unit in the fight aims at its target's front group as the step begins (R0-6)."""
    for s in range(2):
        for u in range(units(plan, s)):
            state[_u(plan, AIMED, s, u)] = _front(plan, state, 1 - s, state[_u(
                plan, TARGET, s, u)]) if state[_u(plan, INSIDE, s, u)] else -1
    state[PART] = 0
    state[PHASE] = STRIKE


@njit(cache=True, _nrt=False, forceinline=True)
def _strike(plan, dice, state):
    """The next part of the strike step (the defender's, then the attacker's) rolls to hit
    and wound the front group its unit aimed at (R0-4 ... R0-7): the wounds it causes in one
    pick when the unit struck saves alike, else its hits, to be saved model by model
    (:func:`_allocate`). After the last part, the step ends (:func:`_step_end`). The kernel
    plays every strike of the round in one call; a solver's stage stops before its second
    part that strikes, or at the result."""
    while state[PHASE] == STRIKE:
        r, k = state[ROUND], state[STEP]
        for j in range(state[PART], 4 * plan.G):
            s = striker(plan, r, k, j, SIDE)
            if s < 0:
                break
            g, p = striker(plan, r, k, j, GROUP), striker(plan, r, k, j, PLACE)
            u = unit_of(plan, s, g)
            models = state[_c(plan, s, g, p)] + (state[_lost(plan, g, p)] if s == 0 else 0)
            n = models * attacks(plan, r, s, g, p)
            f = state[_u(plan, AIMED, s, u)]
            if n > 0 and f >= 0:
                if picked(dice):
                    state[PART] = j
                    return True
                c = chance(plan, r)
                v = state[_u(plan, TARGET, s, u)]
                if uniform(plan, s, g, p, v):  # wounds past the last model are lost: the
                    #                              solver counts them as one outcome
                    most = _room(plan, state, 1 - s, v) if replaying(dice) else n
                    _wound_all(plan, state, 1 - s, v, pick_binomial(
                        dice, plan.cdf, kills_row(plan, c, s, g, p, f),
                        kills_top(plan, c, s, g, p, f), n, p_kill(plan, c, s, g, p, f), most))
                    state[PART] = j + 1
                else:
                    state[HITS] = pick_binomial(
                        dice, plan.cdf, hits_row(plan, c, s, g, p, f),
                        hits_top(plan, c, s, g, p, f), n, p_wound(plan, c, s, g, p, f), n)
                    state[PART] = j
                    state[PHASE] = WOUND
                if state[PHASE] == WOUND and _allocate(plan, dice, state):
                    return True
        _step_end(plan, dice, state)
        if state[PHASE] == RESULT and replaying(dice):
            return True  # the result reads the lead: a stage of its own (reads_sign)
    return False


@njit(cache=True, _nrt=False, forceinline=True)
def _allocate(plan, dice, state):
    """The part's hits on the unit it strikes: each goes to the model that would be removed
    next, which saves for itself (R0-8, R0-9). When they all fit on the models of one group
    and place, the unsaved are one Binomial count; else the receiving model saves until it
    falls, and the rest go on. Wounds past the unit's last model are lost (R0-13). Returns
    whether it stopped before a pick (the solver's)."""
    r, k = state[ROUND], state[STEP]
    j = state[PART]
    s = striker(plan, r, k, j, SIDE)
    g, p = striker(plan, r, k, j, GROUP), striker(plan, r, k, j, PLACE)
    t = 1 - s
    v = state[_u(plan, TARGET, s, unit_of(plan, s, g))]
    while state[HITS] > 0:
        if picked(dice):
            return True
        n = state[HITS]
        rg, rp = _receiver(plan, state, t, v)
        if rg < 0:
            state[HITS] = 0
            break
        q = p_unsaved(plan, s, g, p, rg)
        left = wounds(plan, t, rg) - state[_d(plan, t, rg)]
        if n <= state[_c(plan, t, rg, rp)] * wounds(plan, t, rg) - state[_d(plan, t, rg)]:
            state[HITS] = 0
            _wound(plan, state, t, v, rg, rp, pick_binomial(
                dice, plan.cdf, saves_row(plan, s, g, p, rg), saves_top(plan, s, g, p, rg),
                n, q, n))
        else:
            taken = pick_until(dice, n, q, left)
            state[HITS] = 0 if taken < left else n - taken  # stands: every wound rolled
            _wound(plan, state, t, v, rg, rp, min(taken, left))
    state[PART] += 1
    state[PHASE] = STRIKE
    return False


@njit(cache=True, _nrt=False, forceinline=True)
def _step_end(plan, dice, state):
    """A unit with no model left leaves the fight at once (R0-13); the round goes on to its
    next step while both sides have a unit in it."""
    left = False
    for s in range(2):
        for u in range(units(plan, s)):
            if state[_u(plan, INSIDE, s, u)] and state[_u(plan, ALIVE, s, u)] == 0:
                state[_u(plan, INSIDE, s, u)] = 0
                state[_u(plan, FATE, s, u)] = UNIT_DESTROYED
                left = True
    if left:
        _retarget(plan, state)
    if state[LOSSES]:
        state[LOSSES] = 0
        for g in range(unit_start(plan, 0, units(plan, 0))):
            for p in range(3):
                state[_lost(plan, g, p)] = 0
    if replaying(dice):  # no longer read: forgotten, so that fights alike are one state
        for s in range(2):
            for u in range(units(plan, s)):
                state[_u(plan, AIMED, s, u)] = 0
    k = state[STEP] + 1
    state[PART] = 0
    if (left and (_in_fight(plan, state, 0) == 0 or _in_fight(plan, state, 1) == 0)) \
            or k == steps(plan, state[ROUND]):
        state[PHASE] = RESULT
        return
    state[STEP] = k
    _step_start(plan, state)


@njit(cache=True, _nrt=False, forceinline=True)
def _result(plan, dice, state):
    """The combat result (R0-10): a side with no unit left loses whatever the wounds (the
    winners may advance into a fresh unit, R0-12); else the side that caused fewer unsaved
    wounds, or lost the roll-off, tests (equal again: a draw, both pile in, R0-14)."""
    lead = state[LEAD]
    state[LEAD] = 0  # read: what follows is played apart for each sign of it
    n0, n1 = _in_fight(plan, state, 0), _in_fight(plan, state, 1)
    if n0 == 0 or n1 == 0:
        if n0 == n1:
            _ends(state, NONE, MUTUAL)
            return False
        y = 0 if n1 == 0 else 1
        state[LOSER] = 1 - y
        if _fresh_ahead(plan, state, 1 - y):
            state[PHASE] = ADVANCE_ROLL
            state[AT] = 0
        else:
            _ends(state, ATTACKER + y, BEATEN)
        return False
    if lead != 0:
        state[LOSER] = 1 if lead > 0 else 0
    else:
        won = pick(dice, roll_off_law(plan))  # a result starts its stage: never stops here
        if won == 2:
            _goes_on(state, LATER, True)
            return False
        state[LOSER] = 1 - won
        state[ROLLED_OFF] = 1
    state[PHASE] = TEST
    state[AT] = 0
    return False


@njit(inline="always")
def _fresh_ahead(plan, state, x):
    """Whether side x has a fresh unit the winners may advance into (R0-12)."""
    f = fresh(plan, x)
    return f >= 0 and pursue(plan) == 1 and state[_u(plan, FATE, x, f)] == UNIT_UNREACHED


@njit(cache=True, _nrt=False, forceinline=True)
def _test(plan, dice, state):
    """The loser's next unit in the fight tests its Ld on 2D6; a Fearless one passes
    (R0-11). After the last: those that failed fall back, and unless they won the roll-off
    the winners pursue."""
    x = state[LOSER]
    for u in range(state[AT], units(plan, x)):
        if state[_u(plan, INSIDE, x, u)]:
            if picked(dice):
                state[AT] = u
                return True
            state[_u(plan, MARK, x, u)] = pick(
                dice, test_law(plan, min(_leadership(plan, state, x, u), FEARLESS_LD)))
    failed = False
    for u in range(units(plan, x)):
        if state[_u(plan, MARK, x, u)]:
            failed = True
            state[MOVED] = 1
            state[_u(plan, INSIDE, x, u)] = 0
            state[_u(plan, FATE, x, u)] = UNIT_FLED
    if not failed:
        _goes_on(state, LATER, True)
    elif pursue(plan) and not state[ROLLED_OFF]:
        state[PHASE] = PURSUE
        state[AT] = 0
    elif _in_fight(plan, state, x) > 0:
        _goes_on(state, LATER, True)
    else:
        _ends(state, ATTACKER + 1 - x, BEATEN)
    return False


@njit(cache=True, _nrt=False, forceinline=True)
def _pursue(plan, dice, state):
    """The winners' next unit in the fight rolls 2D6 to pursue; the best roll is kept, and
    whether this one would reach the loser's fresh unit (R0-12). When one unit fell back
    and no pursuer can reach a fresh unit, the rolls matter only through the best: whether
    it beats the fall-back is one pick."""
    x = state[LOSER]
    y = 1 - x
    advance = _fresh_ahead(plan, state, x) and _in_fight(plan, state, x) == 0
    if state[AT] == 0 and not advance:
        fled = -1
        for u in range(units(plan, x)):
            if state[_u(plan, MARK, x, u)]:
                fled = u if fled == -1 else -2
        if fled >= 0:
            if picked(dice):
                return True
            state[_u(plan, MARK, x, fled)] = 0
            if pick(dice, caught_law(plan, _in_fight(plan, state, y))):
                state[_u(plan, FATE, x, fled)] = UNIT_CAUGHT
            _caught(plan, state, x)
            return False
    for u in range(state[AT], units(plan, y)):
        if state[_u(plan, INSIDE, y, u)]:
            if picked(dice):
                state[AT] = u
                return True
            moved = pick(dice, pursuit_law(plan)) + 2
            state[BEST] = max(state[BEST], moved)
            if _fresh_ahead(plan, state, x) and _in_fight(plan, state, x) == 0:
                needed = 2 * reach(plan, x) if halved_move(plan) else reach(plan, x)
                state[_u(plan, MARK, y, u)] = moved >= needed
    state[PHASE] = CATCH
    state[AT] = 0
    return False


@njit(cache=True, _nrt=False, forceinline=True)
def _catch(plan, dice, state):
    """The next unit that fell back this round is caught if the best pursuit roll beats its
    2D6 fall-back (halved pursuit where the scenario says, R0-12). After the last: the fight
    goes on while the loser has a unit in it, else the winners advance or win."""
    x = state[LOSER]
    for u in range(state[AT], units(plan, x)):
        if state[_u(plan, MARK, x, u)]:
            if picked(dice):
                state[AT] = u
                return True
            state[_u(plan, MARK, x, u)] = 0
            if pick(dice, catch_law(plan, state[BEST])):
                state[_u(plan, FATE, x, u)] = UNIT_CAUGHT
    _caught(plan, state, x)
    return False


@njit(cache=True, _nrt=False, forceinline=True)
def _caught(plan, state, x):
    """After the catches: the fight goes on while the loser has a unit in it, else the
    winners advance or win (R0-12, R0-13)."""
    if _in_fight(plan, state, x) > 0:
        _goes_on(state, LATER, True)
    else:
        _advance(plan, state, 1 - x)


@njit(cache=True, _nrt=False, forceinline=True)
def _advance_roll(plan, dice, state):
    """After wiping the last enemy unit out, each winning unit in the fight rolls its own
    2D6 to reach the enemy's fresh unit (R0-10, R0-12)."""
    x = state[LOSER]
    y = 1 - x
    for u in range(state[AT], units(plan, y)):
        if state[_u(plan, INSIDE, y, u)]:
            if picked(dice):
                state[AT] = u
                return True
            state[_u(plan, MARK, y, u)] = pick(dice, reach_law(plan, x))
    _advance(plan, state, y)
    return False


@njit(cache=True, _nrt=False, forceinline=True)
def _advance(plan, state, y):
    """Side y's marked units reach the enemy's fresh unit and start a new combat with it,
    everyone placed anew; the others stay where they stopped; if none reached, side y has
    won (R0-12, R0-13)."""
    x = 1 - y
    reached = False
    for u in range(units(plan, y)):
        if state[_u(plan, MARK, y, u)]:
            reached = True
        else:
            state[_u(plan, INSIDE, y, u)] = 0
    if not reached:
        _ends(state, ATTACKER + y, BEATEN)
        return
    f = fresh(plan, x)
    state[MOVED] = 1
    state[_u(plan, INSIDE, x, f)] = 1
    state[_u(plan, FATE, x, f)] = UNIT_STANDING
    for s in range(2):
        for u in range(units(plan, s)):
            if state[_u(plan, INSIDE, s, u)]:
                _place(plan, state, s, u, False)
    _goes_on(state, ADVANCE + y, False)


@njit(inline="always")
def _goes_on(state, r, pile_in):
    """The fight goes on to a round of type r (GO_ON, :func:`_go_on`)."""
    state[ROUND] = r
    state[PILE_IN] = pile_in
    state[PHASE] = GO_ON


@njit(cache=True, _nrt=False, forceinline=True)
def _go_on(plan, dice, state):
    """The fight goes on: the targets of the units now in it (R0-13), and every unit in it
    piles in (R0-11, R0-14) unless placed by an advance; for the exact solver a unit out of
    it keeps only its models (all written in contact, so that fights alike are one state)."""
    if state[MOVED]:
        _retarget(plan, state)
    for s in range(2):
        for u in range(units(plan, s)):
            state[_u(plan, MARK, s, u)] = 0
            if state[_u(plan, INSIDE, s, u)]:
                if state[PILE_IN]:
                    _place(plan, state, s, u, refill(plan) == 0)
            elif replaying(dice):
                _all_in_contact(plan, state, s, u)
    state[LOSER] = 0
    state[ROLLED_OFF] = 0
    state[AT] = 0
    state[BEST] = 0
    state[PILE_IN] = 0
    _next_round(plan, state)


@njit(cache=True, _nrt=False, forceinline=True)
def _all_in_contact(plan, state, s, u):
    for g in range(unit_start(plan, s, u), unit_start(plan, s, u + 1)):
        state[_c(plan, s, g, CONTACT)] = _models_of(plan, state, s, g)
        state[_c(plan, s, g, REACH)] = 0
        state[_c(plan, s, g, OUT)] = 0


@njit(inline="always")
def _ends(state, winner, end):
    """The fight is over (FINISH, :func:`_finish`); BEATEN: the loser is side LOSER."""
    state[WINNER] = winner
    state[END] = end
    state[PHASE] = FINISH


@njit(cache=True, _nrt=False, forceinline=True)
def _finish(plan, dice, state):
    """The fight is over; for the exact solver what the row does not read is forgotten, so
    that fights that end alike are one state."""
    if state[END] == BEATEN:
        x = state[LOSER]
        state[END] = how_beaten(state, np.int64(_u(plan, FATE, x, 0)), units(plan, x))
    state[OVER] = 1
    if not replaying(dice):
        return
    winner, end, rounds = state[WINNER], state[END], state[ROUNDS]
    for i in range(HEAD):
        state[i] = 0
    state[OVER] = 1
    state[WINNER] = winner
    state[END] = end
    state[ROUNDS] = rounds
    for s in range(2):
        for u in range(units(plan, s)):
            _all_in_contact(plan, state, s, u)
            state[_u(plan, INSIDE, s, u)] = 0
            state[_u(plan, TARGET, s, u)] = 0
            state[_u(plan, MARK, s, u)] = 0
            state[_u(plan, AIMED, s, u)] = 0


# -- the row ---------------------------------------------------------------------------

@njit(cache=True, _nrt=False, forceinline=True)
def row(plan, state, out, t):
    """The outcome record of an ended fight into column t of ``out`` (R0-16): the shared
    columns, then with several units a side each unit's fate, losses and wounds (R0-13),
    when ``out`` has rows for them. A caught unit is lost whole; wounds are the unsaved
    wounds on its models."""
    out[0, t] = state[WINNER]
    out[1, t] = state[END]
    out[2, t] = state[ROUNDS]
    column = N_SHARED
    per_unit = _several(plan) and out.shape[0] >= columns(plan)  # a record without them:
    #                                                               the shared columns only
    for s in range(2):
        lost_side = 0
        wounds_side = 0
        for u in range(units(plan, s)):
            fate = state[_u(plan, FATE, s, u)]
            lost = unit_size(plan, s, u) if fate == UNIT_CAUGHT else \
                unit_size(plan, s, u) - state[_u(plan, ALIVE, s, u)]
            taken = 0
            for g in range(unit_start(plan, s, u), unit_start(plan, s, u + 1)):
                taken += (count(plan, s, g) - _models_of(plan, state, s, g)) * \
                    wounds(plan, s, g) + state[_d(plan, s, g)]
            lost_side += lost
            wounds_side += taken
            if per_unit:
                out[column, t] = fate
                out[column + 1, t] = lost
                out[column + 2, t] = taken
                column += 3
        out[3 + s, t] = lost_side
        out[5 + s, t] = wounds_side
