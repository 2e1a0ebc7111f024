"""The blackpowder rule text: a charge and its melee written once, for the kernel and the
exact solver alike (the shape is described in ``odds/rulesets/README.md``).

- **Laws** (:func:`with_laws`, numpy, once a plan): the order to charge (R4-1), the
  casualties a side inflicts in a round (hits, re-rolls, morale saves and the stubborn
  re-roll, R4-6, §5.3), closing fire's casualties (R4-4), one break-test roll's result
  (§5.5), the hedgehog order roll (R4-4) and the D3 of a charge bonus (§5.3).
- **Stages** (:func:`stage`): the charge (its order, the reaction, closing fire, a
  terrifying charge's test), then one round of melee at a time, and a second charge when
  victorious cavalry sweeps into a fresh unit (§5.4); each asks ``pick(dice, law)`` for
  every chance and moves the state; no dice of their own.
- **The row** (:func:`row`): the outcome record of an ended fight.

The state is one int64 vector (fields below). Casualties beyond stamina are discarded after
each round (§5.4), failed saves are kept in full (the ``wounds`` columns).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from odds.core import exact
from odds.core.dice import laws, pick
from odds.core.outcome import (
    ATTACKER,
    DEFENDER,
    DESTROYED,
    FLED,
    MUTUAL,
    NO_FIGHT,
    NONE,
    UNIT_DESTROYED,
    UNIT_FLED,
    UNIT_STANDING,
    UNIT_UNREACHED,
    UNRESOLVED,
)
from odds.core.casts import slot
from odds.core.walk import clear
from odds.rulesets.blackpowder.plan import Plan

FIGHT, EVADED, EVADER_DESTROYED, HALTED = 0, 1, 2, 3  # how the charge goes in (R4-4, §5.4)
HOLD, RETIRE, BREAK = 0, 1, 2                        # break-test results (§5.5)
LOWEST = -40                                         # lowest modified break-test score tabulated
DEDUCTIONS = 13 - LOWEST  # from this deduction on, every 2D6 roll scores LOWEST or less

# the state's head: OVER (odds.core.walk) is 0 while the fight goes on; WON: two sides
OVER, MELEE, HEDGEHOG, ROUNDS, WINNER, END, WON = 0, 1, 2, 3, 4, 5, 6
STANDING, BROKE = 8, 10  # two sides each: its units in contact standing, one broke this stage
HEAD = 12
# then a block of U fields each, one a unit: TAKEN and IN hold one round's marks
# (casualties taken this round, the enemy struck + 1; one unit a side has no IN) and are 0
# between stages; failed saves, kept in full (the ``wounds`` columns), are the walk's tallies
CASUALTIES, STEADY_USED, REROLLS, FATE, TAKEN, FAILED_SAVES, IN = range(7)
# then, several units a side: the unit that made the second charge + 1, the rounds fought
# before it + 1 (0: none yet, §5.4)
SWEEPER, SECOND = range(2)
N_SHARED = 10  # the outcome row's columns: the shared ones and the ruleset's own
UNIT_PARTS = 4  # and, with several units a side, each unit's fate, lost, wounds, shaken


@njit(cache=True, _nrt=False, forceinline=True)
def _n(plan):
    return plan.units


@njit(cache=True, _nrt=False, forceinline=True)
def known(plan, sizes):
    """``plan`` with its number of units a constant of a kernel variant's compiled code
    (odds.core.walk.kernel): the loops over the units unroll."""
    return Plan(*plan[:-1], sizes[0])  # units: the plan's last field


@njit(cache=True, _nrt=False, forceinline=True)
def _at(plan, block, u):
    """The state field of unit u in ``block``."""
    return HEAD + block * plan.units + u


@njit(cache=True, _nrt=False, forceinline=True)
def _tail(plan, field):
    """A field after the unit blocks (several units a side)."""
    return _at(plan, IN + 1, 0) + field


@njit(cache=True, _nrt=False, forceinline=True)
def fields(plan):
    """The state's width (one unit a side keeps no IN, _struck, and no second charge)."""
    return np.int64(_at(plan, IN, 0) if _n(plan) == 2 else _tail(plan, SECOND + 1))


@njit(cache=True, _nrt=False, forceinline=True)
def columns(plan):
    return np.int64(N_SHARED + (UNIT_PARTS * _n(plan) if plan.several else 0))


@njit(cache=True)
def tallies(plan):
    """The failed-saves block (odds.core.walk: fields only added to)."""
    return np.arange(_at(plan, FAILED_SAVES, 0), _at(plan, FAILED_SAVES + 1, 0))


# -- laws ------------------------------------------------------------------------------

def with_laws(plan):
    """``plan`` with its laws (arrays of :func:`odds.core.dice.laws`); its closing fire's
    (compile._closing) come with it."""
    return plan._replace(
        casualty_law=laws(_casualties(plan)), test_law=laws(_test_rolls(plan)),
        hedgehog_law=laws(_hedgehog(plan.hedgehog_order)), d3_law=laws(np.full(3, 1 / 3)),
        order_law=laws(np.array([1.0 - plan.order_chance, plan.order_chance])))


def hits_then_saves(n, p_hit, reroll_misses, reroll_one, p_unsaved, stubborn, p_save, most):
    """P(k casualties) from n dice, k = 0 .. most: hits (re-rolling every miss, or one
    miss), then failed saves (the target's stubborn re-rolls one failure) (R4-6, §5.3)."""
    if reroll_misses:
        hits = exact.binomial_pmf(n, p_hit + (1.0 - p_hit) * p_hit)
    else:
        hits = exact.binomial_pmf(n, p_hit)
        if reroll_one:  # one miss re-rolled: k < n hits become k + 1 with P(hit)
            for k in range(n - 1, -1, -1):
                moved = hits[k] * p_hit
                hits[k] -= moved
                hits[k + 1] += moved
    lost = np.zeros(most + 1)
    for k in range(n + 1):
        lost[:k + 1] += hits[k] * exact.binomial_pmf(k, p_unsaved)
    if stubborn:  # one failed save re-rolled: k > 0 casualties become k - 1 with P(save)
        for k in range(1, n + 1):
            moved = lost[k] * p_save
            lost[k] -= moved
            lost[k - 1] += moved
    return lost


def _casualties(plan):
    """P(unit u inflicts k casualties on v) at [hedgehog, round (0 first, 1 later), u, v, its
    side won last round, u shaken now, u flanked now, k], for the units in contact."""
    most = int(plan.dice.max())
    n = len(plan.side)
    out = np.zeros((2, 2, n, n, 2, 2, 2, most + 1))
    for u in range(n):
        for v in plan.contacts[u][plan.contacts[u] >= 0]:
            for h, r, won, shaken, flanked in np.ndindex(2, 2, 2, 2, 2):
                out[h, r, u, v, won, shaken, flanked] = hits_then_saves(
                    plan.dice[h, r, u, v], plan.p_hit[h, r, u, v, won, shaken, flanked],
                    plan.reroll_misses[h, r, u, v], plan.reroll_one_miss[h, u],
                    plan.p_unsaved[h, r, u, v], plan.reroll_one_save[h, v],
                    plan.p_save[h, r, u, v], most)
    return out


def _test_rolls(plan):
    """P(hold, retire, break) of one 2D6 break-test roll at [hedgehog, unit, deduction
    (capped at DEDUCTIONS - 1), shaken]: the bands, a square ignores all but break, a shaken
    unit breaks instead of retiring (§5.5)."""
    rolls = np.arange(2, 13)
    chance = exact.dice_sum(2)[2:]
    score = rolls[None, :] - np.arange(DEDUCTIONS)[:, None] - LOWEST  # [deduction, roll]
    banded = plan.band[np.maximum(score, 0)]
    out = np.zeros((2, len(plan.side), DEDUCTIONS, 2, 3))
    for h, u, shaken in np.ndindex(2, len(plan.side), 2):
        result = banded.copy()
        if plan.square[h, u]:
            result[result != BREAK] = HOLD
        if plan.shaken_retire_breaks and shaken:
            result[result == RETIRE] = BREAK
        for code in (HOLD, RETIRE, BREAK):
            out[h, u, :, shaken, code] = (result == code) @ chance
    return out


def _hedgehog(order):
    """P(no hedgehog), P(the hedgehog forms): 2D6 at most the order value (R4-4)."""
    formed = exact.p_le(exact.dice_sum(2), order) if order > 0 else 0.0
    return np.array([1.0 - formed, formed])


# -- stages ----------------------------------------------------------------------------

@njit(cache=True, _nrt=False, forceinline=True)
def begin(plan, state):
    """The state before the charge."""
    clear(state)
    state[WINNER] = NONE
    state[END] = UNRESOLVED
    for u in range(_n(plan)):
        state[_at(plan, CASUALTIES, u)] = plan.start_casualties[u]
    for s in range(2):
        state[STANDING + s] = plan.in_contact[s]
        if _n(plan) != 2 and plan.fresh[s] >= 0:
            state[_at(plan, FATE, plan.fresh[s])] = UNIT_UNREACHED


@njit(inline="always")
def stage(plan, dice, state):
    """The charge, or the next round of melee; the round cap ends a fight unresolved."""
    if state[MELEE]:
        _round(plan, dice, state)
    else:
        _charge(plan, dice, state)
    if not state[OVER] and state[ROUNDS] >= plan.max_rounds:
        _end(plan, state, NONE, UNRESOLVED)


@njit(cache=True, _nrt=False, forceinline=True)
def _end(plan, state, winner, end):
    """The fight is over; what the row does not read is forgotten, so that fights that end
    alike are one state."""
    state[OVER] = 1
    state[WINNER] = winner
    state[END] = end
    state[MELEE] = 0
    state[HEDGEHOG] = 0
    state[WON] = 0
    state[WON + 1] = 0
    for u in range(_n(plan)):
        state[_at(plan, STEADY_USED, u)] = 0
        state[_at(plan, REROLLS, u)] = 0
    if _n(plan) != 2:
        state[_tail(plan, SWEEPER)] = 0
        state[_tail(plan, SECOND)] = 0


@njit(cache=True, _nrt=False, forceinline=True)
def _charge(plan, dice, state):
    """The charge: its order fails (R4-1), or it goes in (R4-4): evaded, halted, or met by a
    hedgehog, each charged unit's closing fire at its first charger and, after a terrifying
    charge, the charged unit's break test."""
    state[MELEE] = 1
    if plan.ordered and pick(dice, plan.order_law) == 0:
        _end(plan, state, NONE, NO_FIGHT)  # R4-1: no order, no charge
        return
    if plan.start == EVADED or plan.start == HALTED:
        _end(plan, state, NONE, NO_FIGHT)  # R4-4 evade; §5.4 cavalry halts short of a square
        return
    if plan.start == EVADER_DESTROYED:  # R4-4: no room to evade (one unit a side)
        _end(plan, state, ATTACKER if plan.charger == 0 else DEFENDER, DESTROYED)
        return
    h = slot(pick(dice, plan.hedgehog_law))
    state[HEDGEHOG] = h
    for u in range(_n(plan)):
        state[_at(plan, REROLLS, u)] = plan.test_rerolls[h, u]
    for t in range(_n(plan) if plan.closing_fire else 0):
        c = plan.closing_at[t]
        if c >= 0:  # R4-4 closing fire, +1 to hit
            _closing_fire(plan, dice, state, c, plan.closing_law[0, t])
    for t in range(_n(plan) if plan.terrifying else 0):  # §5.3 terrifying charge: the
        # charged unit tests, with no deduction
        if plan.terrifies[h, t] and _in_melee(plan, state, t):
            _leave(plan, state, t, _break_test(plan, dice, state, t, 0))
    _ending(plan, state)


@njit(cache=True, _nrt=False, forceinline=True)
def _closing_fire(plan, dice, state, c, law):
    """Closing fire's casualties on the charger c (R4-4): they count towards its stamina; c
    tests when they shake it (the excess its deduction) or it is wavering."""
    lost = pick(dice, law)
    state[_at(plan, CASUALTIES, c)] += lost
    state[_at(plan, FAILED_SAVES, c)] += lost
    casualties = state[_at(plan, CASUALTIES, c)]
    if lost > 0 and (casualties >= plan.stamina[c]
                     or plan.test_on_casualty[slot(state[HEDGEHOG]), c]):
        test = _break_test(plan, dice, state, c, max(0, casualties - plan.stamina[c]))
        state[_at(plan, CASUALTIES, c)] = min(casualties, plan.stamina[c])
        _leave(plan, state, c, test)


@njit(cache=True, _nrt=False, forceinline=True)
def _leave(plan, state, u, test):
    """Unit u's break-test result: broken (destroyed), retired (fled), or it holds."""
    if test == HOLD:
        return
    state[_at(plan, FATE, u)] = UNIT_DESTROYED if test == BREAK else UNIT_FLED
    if _in_contact(plan, u):
        s = _side(plan, u)
        state[STANDING + s] -= 1
        if test == BREAK:
            state[BROKE + s] = 1


@njit(cache=True, _nrt=False, forceinline=True)
def _in_contact(plan, u):
    """Unit u fights in the melee (not a support): every unit, one unit a side."""
    return _n(plan) == 2 or plan.contacts[u, 0] >= 0


@njit(cache=True, _nrt=False, forceinline=True)
def _side(plan, u):
    """Unit u's side (one unit a side, known to the variant: u itself)."""
    return u if _n(plan) == 2 else plan.side[u]


@njit(cache=True, _nrt=False, forceinline=True)
def _target(plan, state, u):
    """The enemy unit u's dice go to: the first of its contacts still standing, -1 when none
    is (§5.3 [ASM]: a unit fighting several puts all its dice on one)."""
    if _n(plan) == 2:  # one unit a side, known to the variant: the other unit
        return 1 - u if state[_at(plan, FATE, 1 - u)] == UNIT_STANDING else -1
    for k in range(_n(plan)):
        v = plan.contacts[u, k]
        if v < 0:
            return -1
        if state[_at(plan, FATE, v)] == UNIT_STANDING and _met(plan, state, u, v):
            return v
    return -1


@njit(cache=True, _nrt=False, forceinline=True)
def _met(plan, state, u, v):
    """u and v are in contact (several units a side): a fresh unit only with the unit whose
    second charge reached it (§5.4)."""
    if not plan.second_charge:
        return True
    x = plan.side[u]
    if v == plan.fresh[1 - x]:
        return state[_tail(plan, SWEEPER)] == u + 1
    if u == plan.fresh[x]:
        return state[_tail(plan, SWEEPER)] == v + 1
    return True


@njit(cache=True, _nrt=False, forceinline=True)
def _swept(plan, state, u):
    """u made the second charge: a move away from its supports (§5.4)."""
    return plan.second_charge and state[_tail(plan, SWEEPER)] == u + 1


@njit(cache=True, _nrt=False, forceinline=True)
def _in_melee(plan, state, u):
    """Unit u stands and an enemy in contact with it does."""
    return state[_at(plan, FATE, u)] == UNIT_STANDING and _target(plan, state, u) >= 0


@njit(cache=True, _nrt=False, forceinline=True)
def _flanked(plan, state, u):
    """An enemy standing on u's flank or rear (-1 to hit; no support, §5.3)."""
    if _n(plan) == 2:  # one unit a side: flanked all fight or never, in its laws (compile)
        return 0
    if not plan.flanked[u]:
        return 0
    for k in range(_n(plan)):
        v = plan.contacts[u, k]
        if v < 0:
            return 0
        if plan.flank_of[slot(state[HEDGEHOG]), u, v] and state[_at(plan, FATE, v)] == \
                UNIT_STANDING and _met(plan, state, u, v):
            return 1
    return 0


@njit(cache=True, _nrt=False, forceinline=True)
def _supports(plan, state, h, u):
    """Unit u's supports' combat-result bonus (§5.3): its own keys' and its supporting units
    still standing (one behind, two on the flanks), none while it is flanked or cannot be
    supported, nor after its sweep took it a move away from them (§5.4)."""
    if _n(plan) == 2 or not plan.supported[u] or not plan.supportable[h, u] \
            or _flanked(plan, state, u) or _swept(plan, state, u):
        return 0  # one unit a side: its supports are in result_bonus (compile)
    rear = plan.own_rear[u]
    flanks = plan.own_flanks[u]
    for k in range(3):
        x = plan.supporters[u, k]
        if x >= 0 and state[_at(plan, FATE, x)] == UNIT_STANDING:
            if k == 0:
                rear += 1
            else:
                flanks += 1
    return plan.rear_bonus * rear + plan.flank_bonus * min(flanks, plan.max_flanks)


@njit(cache=True, _nrt=False, forceinline=True)
def _break_test(plan, dice, state, u, deduction):
    """Unit u's break test at 2D6 - deduction (§5.5): steady, square, valiant, shaken."""
    h = slot(state[HEDGEHOG])
    if plan.first_test_passed[h, u] and not state[_at(plan, STEADY_USED, u)]:
        state[_at(plan, STEADY_USED, u)] = 1
        return HOLD
    shaken = 1 if state[_at(plan, CASUALTIES, u)] >= plan.stamina[u] else 0
    law = plan.test_law[h, u, slot(min(deduction, DEDUCTIONS - 1)), shaken]
    while True:
        result = pick(dice, law)
        if result == HOLD or state[_at(plan, REROLLS, u)] == 0:
            return result
        state[_at(plan, REROLLS, u)] -= 1


@njit(cache=True, _nrt=False, forceinline=True)
def _round(plan, dice, state):
    """One round of melee (R4-6, §5.3-§5.6): every unit in the melee strikes the enemy its
    dice go to, each side's combat result is its units' casualties inflicted and bonuses,
    every unit of the losing side tests, and a broken unit's supports; then excess
    casualties are discarded and the round's ending."""
    n = _n(plan)
    h = slot(state[HEDGEHOG])
    r = 0 if state[ROUNDS] == 0 or (n != 2 and state[ROUNDS] + 1 == state[_tail(plan, SECOND)]
                                    ) else 1  # a melee's first round: charge bonuses
    result0 = 0
    result1 = 0
    for u in range(n if n != 2 else 0):  # who fights whom as the round starts (_struck)
        standing = state[_at(plan, FATE, u)] == UNIT_STANDING
        state[_at(plan, IN, u)] = _target(plan, state, u) + 1 if standing else 0
    for u in range(n):  # at once: a unit strikes as it was when the round began
        v = _struck(plan, state, u)
        if v >= 0:
            s = _side(plan, u)
            before = state[_at(plan, CASUALTIES, u)] - state[_at(plan, TAKEN, u)]  # this round
            shaken = 1 if before >= plan.stamina[u] else 0
            lost = pick(dice, plan.casualty_law[h, r, u, v, slot(state[WON + s]), shaken,
                                                _flanked(plan, state, u)])
            state[_at(plan, TAKEN, v)] += lost
            state[_at(plan, CASUALTIES, v)] += lost
            state[_at(plan, FAILED_SAVES, v)] += lost
            bonus = lost + plan.result_bonus[h, r, u, v] + _supports(plan, state, h, u)
            if s == 0:
                result0 += bonus
            else:
                result1 += bonus
    for u in range(n):
        v = _struck(plan, state, u)
        if v >= 0 and plan.result_d3[h, r, u, v]:
            if _side(plan, u) == 0:
                result0 += pick(dice, plan.d3_law) + 1
            else:
                result1 += pick(dice, plan.d3_law) + 1
    if result0 != result1:
        w = 0 if result0 > result1 else 1
        state[WON + w] = 1
        state[WON + 1 - w] = 0
        first, stop = _units_of(plan, 1 - w)
        for u in range(first, stop):  # every unit of the losing side tests (§5.5)
            if _struck(plan, state, u) >= 0:
                _leave(plan, state, u, _break_test(plan, dice, state, u, abs(result0 - result1)))
        first, stop = _units_of(plan, w)
        for u in range(first, stop):  # wavering winners that took casualties (§5.3)
            if (_struck(plan, state, u) >= 0 and plan.test_on_casualty[h, u]
                    and state[_at(plan, TAKEN, u)] > 0):
                _leave(plan, state, u, _break_test(plan, dice, state, u, 0))
    else:  # drawn combat (§5.4)
        state[WON] = 0
        state[WON + 1] = 0
        for u in range(n):
            if _struck(plan, state, u) >= 0:
                _leave(plan, state, u, _drawn_test(plan, dice, state, u))
    for u in range(n if n != 2 else 0):  # a broken unit's supports test (§5.5)
        if (_struck(plan, state, u) >= 0 and state[_at(plan, FATE, u)] == UNIT_DESTROYED
                and not _swept(plan, state, u)):
            for k in range(3):
                x = plan.supporters[u, k]
                if x >= 0 and state[_at(plan, FATE, x)] == UNIT_STANDING:
                    _leave(plan, state, x, _break_test(plan, dice, state, x, 0))
    for u in range(n):  # excess casualties are discarded (§5.4)
        state[_at(plan, CASUALTIES, u)] = min(state[_at(plan, CASUALTIES, u)], plan.stamina[u])
        state[_at(plan, TAKEN, u)] = 0
    state[ROUNDS] += 1
    if n != 2 and plan.second_charge and (state[STANDING] == 0) != (state[STANDING + 1] == 0):
        _second_charge(plan, dice, state)  # a side is beaten: its fresh unit may be charged
    _ending(plan, state)
    for u in range(n if n != 2 else 0):
        state[_at(plan, IN, u)] = 0


@njit(cache=True, _nrt=False, forceinline=True)
def _units_of(plan, s):
    """Side s's units: first, one past the last (the attacker's come first)."""
    if _n(plan) == 2:
        return s, s + 1
    return (0, plan.attackers) if s == 0 else (plan.attackers, _n(plan))


@njit(cache=True, _nrt=False, forceinline=True)
def _struck(plan, state, u):
    """The enemy unit u strikes this round, -1 if u is not in the melee as it started (IN;
    one unit a side: each the other, every round the fight goes on)."""
    return 1 - u if _n(plan) == 2 else state[_at(plan, IN, u)] - 1


@njit(cache=True, _nrt=False, forceinline=True)
def _drawn_test(plan, dice, state, u):
    """Unit u after a drawn round (§5.4): shaken units test, cavalry retires, wavering units
    that took casualties test."""
    if state[_at(plan, CASUALTIES, u)] >= plan.stamina[u]:
        return _break_test(plan, dice, state, u, 0)
    if plan.cavalry[u]:
        return RETIRE
    if plan.test_on_casualty[slot(state[HEDGEHOG]), u] and state[_at(plan, TAKEN, u)] > 0:
        return _break_test(plan, dice, state, u, 0)
    return HOLD


@njit(cache=True, _nrt=False, forceinline=True)
def _ending(plan, state):
    """The fight ends when a side has no unit left standing of those in contact (§5.4,
    §5.5): the other side wins, the loser beaten as its units left; both at once: mutual
    when both had a unit broken this stage, a win for the side that had none broken, else
    both retired."""
    out0 = state[STANDING] == 0
    out1 = state[STANDING + 1] == 0
    broke0 = state[BROKE]
    broke1 = state[BROKE + 1]
    state[BROKE] = 0
    state[BROKE + 1] = 0
    if not (out0 or out1):
        return
    if out0 and out1:
        if broke0 and broke1:
            _end(plan, state, NONE, MUTUAL)
        elif broke0 or broke1:
            _end(plan, state, DEFENDER if broke0 else ATTACKER, DESTROYED)
        else:
            _end(plan, state, NONE, UNRESOLVED)  # both retire from a drawn combat (§5.4)
    else:
        _end(plan, state, DEFENDER if out0 else ATTACKER, _how_beaten(plan, state, 0 if out0
                                                                      else 1))


@njit(cache=True, _nrt=False)  # a call, not inlined: rare, and cheaper to compile
def _second_charge(plan, dice, state):
    """One side is beaten: the first unshaken cavalry unit of the winners still standing
    that may sweep into the loser's fresh unit charges it (§5.4), once a fight. The two make
    a new melee (the others of the first are out of it; its breaks are its own): the fresh
    unit's closing fire and a terrifying charge's test come first."""
    x = 0 if state[STANDING] == 0 else 1
    f = plan.fresh[x]
    if f < 0 or state[_tail(plan, SWEEPER)]:
        return
    for k in range(_n(plan)):
        c = plan.contacts[f, k]
        if c < 0:
            return
        if (plan.sweeps[c] and state[_at(plan, FATE, c)] == UNIT_STANDING
                and state[_at(plan, CASUALTIES, c)] < plan.stamina[c]):
            state[_tail(plan, SWEEPER)] = c + 1
            state[_tail(plan, SECOND)] = state[ROUNDS] + 1
            state[_at(plan, FATE, f)] = UNIT_STANDING
            for s in range(2):
                state[STANDING + s] = 1
                state[BROKE + s] = 0
                state[WON + s] = 0
            if plan.sweep_fire:
                _closing_fire(plan, dice, state, c, plan.closing_law[1, c])
            if plan.sweep_terrifies[0, c] and _in_melee(plan, state, f):
                _leave(plan, state, f, _break_test(plan, dice, state, f, 0))
            return


@njit(cache=True, _nrt=False, forceinline=True)
def _how_beaten(plan, state, s):
    """Side s lost the melee: fled if a unit of it in contact retired, else destroyed (its
    supports' fates aside); after a second charge, as its unit in that melee left."""
    if _n(plan) != 2 and state[_tail(plan, SWEEPER)] != 0:
        c = state[_tail(plan, SWEEPER)] - 1
        u = c if plan.side[c] == s else plan.fresh[s]
        return FLED if state[_at(plan, FATE, u)] == UNIT_FLED else DESTROYED
    for u in range(_n(plan)):
        if (_side(plan, u) == s and _in_contact(plan, u)
                and state[_at(plan, FATE, u)] == UNIT_FLED):
            return FLED
    return DESTROYED


# -- the row ---------------------------------------------------------------------------

@njit(cache=True)
def spans(plan):
    """The tallies' spans (odds.core.walk.solve): each unit's failed saves, at most every
    die against it in every round and closing fire."""
    out = np.zeros((_n(plan), 2), np.int64)
    out[:, 1] = plan.wound_span
    return out


@njit(cache=True, _nrt=False, forceinline=True)
def row(plan, state, out, t):
    """The outcome record of an ended fight into column t of ``out``: each side's casualties
    and failed saves, shaken when a unit of it is, sweeping advance when an unshaken cavalry
    unit of the winners fought and stands (§5.4); with several units a side, each unit's."""
    out[0, t] = state[WINNER]
    out[1, t] = state[END]
    out[2, t] = state[ROUNDS]
    lost0 = lost1 = wounds0 = wounds1 = shaken0 = shaken1 = sweep = 0
    w = state[WINNER] - 1
    for u in range(_n(plan)):
        s = _side(plan, u)
        casualties = state[_at(plan, CASUALTIES, u)]
        lost = casualties - plan.start_casualties[u]
        wounds = state[_at(plan, FAILED_SAVES, u)]
        shaken = 1 if casualties >= plan.stamina[u] else 0
        if s == 0:
            lost0 += lost
            wounds0 += wounds
            shaken0 = max(shaken0, shaken)
        else:
            lost1 += lost
            wounds1 += wounds
            shaken1 = max(shaken1, shaken)
        if (state[ROUNDS] > 0 and s == w and plan.sweeps[u] and not shaken
                and state[_at(plan, FATE, u)] == UNIT_STANDING and _in_contact(plan, u)):
            sweep = 1
        if plan.several and out.shape[0] >= N_SHARED + UNIT_PARTS * _n(plan):  # asked for
            out[N_SHARED + UNIT_PARTS * u, t] = state[_at(plan, FATE, u)]
            out[N_SHARED + UNIT_PARTS * u + 1, t] = lost
            out[N_SHARED + UNIT_PARTS * u + 2, t] = wounds
            out[N_SHARED + UNIT_PARTS * u + 3, t] = shaken
    out[3, t] = lost0
    out[4, t] = lost1
    out[5, t] = wounds0
    out[6, t] = wounds1
    out[7, t] = shaken0
    out[8, t] = shaken1
    out[9, t] = sweep
