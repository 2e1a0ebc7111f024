"""The blackpowder rule text: a charge and its melee written once, for the kernel and the
exact solver alike (the shape is described in ``odds/rulesets/README.md``).

- **Laws** (:func:`with_laws`, numpy, once a plan): the order to charge (R4-1), the
  casualties a side inflicts in a round (hits, re-rolls, morale saves and the stubborn
  re-roll, R4-6, §5.3), closing fire's casualties (R4-4), one break-test roll's result
  (§5.5), the hedgehog order roll (R4-4) and the D3 of a charge bonus (§5.3).
- **Stages** (:func:`stage`): the charge (its order, the reaction, closing fire, a
  terrifying charge's test), then one round of melee at a time; each asks
  ``pick(dice, law)`` for every chance and moves the state; no dice of their own.
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
    UNRESOLVED,
)
from odds.core.walk import clear

FIGHT, EVADED, EVADER_DESTROYED, HALTED = 0, 1, 2, 3  # how the charge goes in (R4-4, §5.4)
HOLD, RETIRE, BREAK = 0, 1, 2                        # break-test results (§5.5)
LOWEST = -40                                         # lowest modified break-test score tabulated
DEDUCTIONS = 13 - LOWEST  # from this deduction on, every 2D6 roll scores LOWEST or less

# the state's fields: OVER (odds.core.walk) is 0 while the fight goes on
OVER, MELEE, HEDGEHOG, ROUNDS, WINNER, END = 0, 1, 2, 3, 4, 5
WON, STEADY_USED, REROLLS, CASUALTIES, FAILED_SAVES = 6, 8, 10, 12, 14  # two sides each
COLUMNS = 10  # of the outcome row: the shared ones and the ruleset's own
FIELDS = 16
TALLIES = (FAILED_SAVES, FAILED_SAVES + 1)  # fields the stages only add to (odds.core.walk)


# -- laws ------------------------------------------------------------------------------

def with_laws(plan):
    """``plan`` with its laws (arrays of :func:`odds.core.dice.laws`)."""
    return plan._replace(
        casualty_law=laws(_casualties(plan)), closing_law=laws(_closing(plan)),
        test_law=laws(_test_rolls(plan)), hedgehog_law=laws(_hedgehog(plan.hedgehog_order)),
        d3_law=laws(np.full(3, 1 / 3)),
        order_law=laws(np.array([1.0 - plan.order_chance, plan.order_chance])))


def _hits_then_saves(n, p_hit, reroll_misses, reroll_one, p_unsaved, stubborn, p_save, most):
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
    """P(side s inflicts k casualties) at [hedgehog, round (0 first, 1 later), s, won last
    round, shaken now, k]."""
    most = int(plan.dice.max())
    out = np.zeros((2, 2, 2, 2, 2, most + 1))
    for h, r, s, won, shaken in np.ndindex(2, 2, 2, 2, 2):
        out[h, r, s, won, shaken] = _hits_then_saves(
            plan.dice[h, r, s], plan.p_hit[h, r, s, won, shaken], plan.reroll_misses[h, r, s],
            plan.reroll_one_miss[h, s], plan.p_unsaved[h, r, s], plan.reroll_one_save[h, 1 - s],
            plan.p_save[h, r, s], most)
    return out


def _closing(plan):
    """P(closing fire inflicts k casualties on the charger) (R4-4)."""
    return _hits_then_saves(plan.closing_dice, plan.closing_p_hit, False, False,
                            plan.closing_p_unsaved, False, 0.0, plan.closing_dice)


def _test_rolls(plan):
    """P(hold, retire, break) of one 2D6 break-test roll at [hedgehog, side, deduction
    (capped at DEDUCTIONS - 1), shaken]: the bands, a square ignores all but break, a shaken
    unit breaks instead of retiring (§5.5)."""
    rolls = np.arange(2, 13)
    chance = exact.dice_sum(2)[2:]
    score = rolls[None, :] - np.arange(DEDUCTIONS)[:, None] - LOWEST  # [deduction, roll]
    banded = plan.band[np.maximum(score, 0)]
    out = np.zeros((2, 2, DEDUCTIONS, 2, 3))
    for h, s, shaken in np.ndindex(2, 2, 2):
        result = banded.copy()
        if plan.square[h, s]:
            result[result != BREAK] = HOLD
        if plan.shaken_retire_breaks and shaken:
            result[result == RETIRE] = BREAK
        for code in (HOLD, RETIRE, BREAK):
            out[h, s, :, shaken, code] = (result == code) @ chance
    return out


def _hedgehog(order):
    """P(no hedgehog), P(the hedgehog forms): 2D6 at most the order value (R4-4)."""
    formed = exact.p_le(exact.dice_sum(2), order) if order > 0 else 0.0
    return np.array([1.0 - formed, formed])


# -- stages ----------------------------------------------------------------------------

@njit(cache=True, inline="always")
def begin(plan, state):
    """The state before the charge."""
    clear(state)
    state[WINNER] = NONE
    state[END] = UNRESOLVED
    for s in range(2):
        state[CASUALTIES + s] = plan.start_casualties[s]


@njit(cache=True, inline="always")
def stage(plan, dice, state):
    """The charge, or the next round of melee; the round cap ends a fight unresolved."""
    if state[MELEE]:
        _round(plan, dice, state)
    else:
        _charge(plan, dice, state)
    if not state[OVER] and state[ROUNDS] >= plan.max_rounds:
        _end(state, NONE, UNRESOLVED)


@njit(cache=True, inline="always")
def _end(state, winner, end):
    """The fight is over; what the row does not read is forgotten, so that fights that end
    alike are one state."""
    state[OVER] = 1
    state[WINNER] = winner
    state[END] = end
    state[MELEE] = 0
    state[HEDGEHOG] = 0
    for s in range(2):
        state[WON + s] = 0
        state[STEADY_USED + s] = 0
        state[REROLLS + s] = 0


@njit(cache=True, inline="always")
def _charge(plan, dice, state):
    """The charge: its order fails (R4-1), or it goes in (R4-4): evaded, halted, or met by a
    hedgehog, closing fire and, after a terrifying charge, the charged unit's break test."""
    c = plan.charger
    state[MELEE] = 1
    if plan.ordered and pick(dice, plan.order_law) == 0:
        _end(state, NONE, NO_FIGHT)  # R4-1: no order, no charge
        return
    if plan.start == EVADED or plan.start == HALTED:
        _end(state, NONE, NO_FIGHT)  # R4-4 evade; §5.4 cavalry halts short of a steady square
        return
    if plan.start == EVADER_DESTROYED:
        _end(state, ATTACKER if c == 0 else DEFENDER, DESTROYED)  # R4-4: no room to evade
        return
    h = pick(dice, plan.hedgehog_law)
    state[HEDGEHOG] = h
    for s in range(2):
        state[REROLLS + s] = plan.test_rerolls[h, s]
    if plan.closing_dice > 0:  # R4-4 closing fire, +1 to hit
        lost = pick(dice, plan.closing_law)
        state[CASUALTIES + c] += lost
        state[FAILED_SAVES + c] += lost
        if lost > 0 and (state[CASUALTIES + c] >= plan.stamina[c] or plan.test_on_casualty[h, c]):
            test = _break_test(plan, dice, state, c,
                               max(0, state[CASUALTIES + c] - plan.stamina[c]))
            state[CASUALTIES + c] = min(state[CASUALTIES + c], plan.stamina[c])
            if test != HOLD:
                _end(state, DEFENDER if c == 0 else ATTACKER, DESTROYED if test == BREAK else FLED)
                return
    if plan.terrifies[h]:  # §5.3 terrifying charge: the charged unit tests, with no deduction
        test = _break_test(plan, dice, state, 1 - c, 0)
        if test != HOLD:
            _end(state, ATTACKER if c == 0 else DEFENDER, DESTROYED if test == BREAK else FLED)


@njit(cache=True, inline="always")
def _break_test(plan, dice, state, s, deduction):
    """Side s's break test at 2D6 - deduction (§5.5): steady, square, valiant, shaken."""
    h = state[HEDGEHOG]
    if plan.first_test_passed[h, s] and not state[STEADY_USED + s]:
        state[STEADY_USED + s] = 1
        return HOLD
    shaken = 1 if state[CASUALTIES + s] >= plan.stamina[s] else 0
    law = plan.test_law[h, s, min(deduction, DEDUCTIONS - 1), shaken]
    while True:
        result = pick(dice, law)
        if result == HOLD or state[REROLLS + s] == 0:
            return result
        state[REROLLS + s] -= 1


@njit(cache=True, inline="always")
def _round(plan, dice, state):
    """One round of melee (R4-6, §5.3-§5.6): both sides' casualties and combat results, the
    break tests, then excess casualties discarded and the round's ending."""
    h = state[HEDGEHOG]
    r = 0 if state[ROUNDS] == 0 else 1
    shaken0 = 1 if state[CASUALTIES] >= plan.stamina[0] else 0
    shaken1 = 1 if state[CASUALTIES + 1] >= plan.stamina[1] else 0
    lost0 = pick(dice, plan.casualty_law[h, r, 0, state[WON], shaken0])
    lost1 = pick(dice, plan.casualty_law[h, r, 1, state[WON + 1], shaken1])
    result0 = lost0 + plan.result_bonus[h, r, 0]
    result1 = lost1 + plan.result_bonus[h, r, 1]
    if plan.result_d3[h, r, 0]:
        result0 += pick(dice, plan.d3_law) + 1
    if plan.result_d3[h, r, 1]:
        result1 += pick(dice, plan.d3_law) + 1
    state[CASUALTIES + 1] += lost0
    state[FAILED_SAVES + 1] += lost0
    state[CASUALTIES] += lost1
    state[FAILED_SAVES] += lost1
    test0 = HOLD
    test1 = HOLD
    if result0 != result1:
        w = 0 if result0 > result1 else 1
        state[WON + w] = 1
        state[WON + 1 - w] = 0
        lost_by_loser = lost0 if w == 1 else lost1
        loser_test = _break_test(plan, dice, state, 1 - w, abs(result0 - result1))
        winner_test = HOLD
        if plan.test_on_casualty[h, w] and lost_by_loser > 0:
            winner_test = _break_test(plan, dice, state, w, 0)
        test0 = loser_test if w == 1 else winner_test
        test1 = winner_test if w == 1 else loser_test
    else:  # drawn combat (§5.4)
        state[WON] = 0
        state[WON + 1] = 0
        test0 = _drawn_test(plan, dice, state, 0, lost1)
        test1 = _drawn_test(plan, dice, state, 1, lost0)
    for s in range(2):  # excess casualties are discarded (§5.4)
        state[CASUALTIES + s] = min(state[CASUALTIES + s], plan.stamina[s])
    state[ROUNDS] += 1
    _ending(state, test0, test1)


@njit(cache=True, inline="always")
def _drawn_test(plan, dice, state, s, lost_by_enemy):
    """Side s after a drawn round (§5.4): shaken units test, cavalry retires, wavering units
    that inflicted casualties test."""
    if state[CASUALTIES + s] >= plan.stamina[s]:
        return _break_test(plan, dice, state, s, 0)
    if plan.cavalry[s]:
        return RETIRE
    if plan.test_on_casualty[state[HEDGEHOG], s] and lost_by_enemy > 0:
        return _break_test(plan, dice, state, s, 0)
    return HOLD


@njit(cache=True, inline="always")
def _ending(state, test0, test1):
    """The round's ending from the two break-test results (§5.4, §5.5)."""
    if test0 == BREAK or test1 == BREAK:
        if test0 == test1:
            _end(state, NONE, MUTUAL)
        else:
            _end(state, DEFENDER if test0 == BREAK else ATTACKER, DESTROYED)
    elif test0 == RETIRE or test1 == RETIRE:
        if test0 == test1:
            _end(state, NONE, UNRESOLVED)  # both retire from a drawn combat (§5.4)
        else:
            _end(state, DEFENDER if test0 == RETIRE else ATTACKER, FLED)


# -- the row ---------------------------------------------------------------------------

@njit(cache=True)
def spans(plan):
    """The tallies' spans (odds.core.walk.solve): each side's failed saves, at most every
    die of every round and of closing fire."""
    out = np.zeros((2, 2), np.int64)
    out[:, 1] = plan.max_rounds * plan.dice.max() + plan.closing_dice
    return out


@njit(cache=True, inline="always")
def row(plan, state, out, t):
    """The outcome record of an ended fight into column t of ``out``."""
    out[0, t] = state[WINNER]
    out[1, t] = state[END]
    out[2, t] = state[ROUNDS]
    for s in range(2):
        out[3 + s, t] = state[CASUALTIES + s] - plan.start_casualties[s]
        out[5 + s, t] = state[FAILED_SAVES + s]
        out[7 + s, t] = state[CASUALTIES + s] >= plan.stamina[s]
    w = state[WINNER] - 1  # §5.4: an unshaken victorious cavalry unit sweeps on
    out[9, t] = 1 if (state[ROUNDS] > 0 and w >= 0 and plan.sweeps[w]
                      and state[CASUALTIES + w] < plan.stamina[w]) else 0
