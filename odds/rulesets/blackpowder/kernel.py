"""The blackpowder numba kernel: plays whole charges and melees, one outcome row per fight.

Hits and failed saves are counts of independent dice, drawn one uniform per die against the
exact per-die probability (a "re-roll every miss" die hits with p + (1 - p) p). The break test
rolls real 2D6. Semantics: README.md beside this file. Checked against tests/naive_blackpowder.py.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

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
from odds.core.rng import d6, seed_stream, successes, two_d6, uniform
from odds.rulesets.blackpowder.compile import (
    BREAK,
    EVADED,
    EVADER_DESTROYED,
    HALTED,
    HOLD,
    LOWEST,
    RETIRE,
)

BLOCK = 256  # trials per parallel work item


@njit(cache=True, inline="always")
def _hits(st, n, p, reroll_misses, reroll_one):
    """Hits from n dice (R4-6), re-rolling every miss or one miss (special rules, §5.3)."""
    if reroll_misses:
        return successes(st, n, p + (1.0 - p) * p)
    k = successes(st, n, p)
    if reroll_one and k < n and uniform(st) < p:
        k += 1
    return k


@njit(cache=True, inline="always")
def _casualties(st, hits, p_unsaved, reroll_one, p_save):
    """Failed morale saves against ``hits`` (R4-6); stubborn re-rolls one failure (§5.3)."""
    k = successes(st, hits, p_unsaved)
    if reroll_one and k > 0 and uniform(st) < p_save:
        k -= 1
    return k


@njit(cache=True, inline="always")
def _break_test(plan, st, h, s, deduction, cas, steady_used, rerolls):
    """Side s's break test at 2D6 - deduction (§5.5): steady, square, valiant, shaken."""
    if plan.first_test_passed[h, s] and not steady_used[s]:
        steady_used[s] = True
        return HOLD
    while True:
        i = two_d6(st) - deduction - LOWEST
        result = plan.band[max(i, 0)]
        if plan.square[h, s] and result != BREAK:
            result = HOLD  # a square ignores every result but break (§5.4)
        if result == RETIRE and plan.shaken_retire_breaks and cas[s] >= plan.stamina[s]:
            result = BREAK
        if result == HOLD or rerolls[s] == 0:
            return result
        rerolls[s] -= 1


@njit(cache=True, inline="always")
def _ending(tests):
    """(winner, end, over) from the two sides' break-test results."""
    if tests[0] == BREAK or tests[1] == BREAK:
        if tests[0] == tests[1]:
            return NONE, MUTUAL, True
        return (DEFENDER if tests[0] == BREAK else ATTACKER), DESTROYED, True
    if tests[0] == RETIRE or tests[1] == RETIRE:
        if tests[0] == tests[1]:
            return NONE, UNRESOLVED, True  # both retire from a drawn combat (§5.4)
        return (DEFENDER if tests[0] == RETIRE else ATTACKER), FLED, True
    return NONE, UNRESOLVED, False


@njit(cache=True, inline="always")
def _melee(plan, st, h, cas, total, won, steady_used, rerolls, tests, inflicted, result):
    """Rounds of melee (R4-6, §5.3-§5.6) until a break, a retirement or the round cap.

    Returns (winner, end, rounds)."""
    for k in range(plan.max_rounds):
        r = 0 if k == 0 else 1
        shaken0 = 1 if cas[0] >= plan.stamina[0] else 0
        shaken1 = 1 if cas[1] >= plan.stamina[1] else 0
        for s in range(2):
            t = 1 - s
            shaken = shaken0 if s == 0 else shaken1
            hits = _hits(st, plan.dice[h, r, s], plan.p_hit[h, r, s, won[s], shaken],
                         plan.reroll_misses[h, r, s], plan.reroll_one_miss[h, s])
            lost = _casualties(st, hits, plan.p_unsaved[h, r, s], plan.reroll_one_save[h, t],
                               plan.p_save[h, r, s])
            cas[t] += lost
            total[t] += lost
            inflicted[s] = lost
            result[s] = lost + plan.result_bonus[h, r, s]
            if plan.result_d3[h, r, s]:
                result[s] += (d6(st) + 1) >> 1
        tests[0] = HOLD
        tests[1] = HOLD
        if result[0] != result[1]:
            w = 0 if result[0] > result[1] else 1
            won[w] = 1
            won[1 - w] = 0
            tests[1 - w] = _break_test(plan, st, h, 1 - w, result[w] - result[1 - w], cas,
                                       steady_used, rerolls)
            if plan.test_on_casualty[h, w] and inflicted[1 - w] > 0:
                tests[w] = _break_test(plan, st, h, w, 0, cas, steady_used, rerolls)
        else:  # drawn combat (§5.4)
            won[0] = 0
            won[1] = 0
            for s in range(2):
                if cas[s] >= plan.stamina[s]:
                    tests[s] = _break_test(plan, st, h, s, 0, cas, steady_used, rerolls)
                elif plan.cavalry[s]:
                    tests[s] = RETIRE
                elif plan.test_on_casualty[h, s] and inflicted[1 - s] > 0:
                    tests[s] = _break_test(plan, st, h, s, 0, cas, steady_used, rerolls)
        for s in range(2):
            cas[s] = min(cas[s], plan.stamina[s])  # excess casualties are discarded (§5.4)
        winner, end, over = _ending(tests)
        if over:
            return winner, end, k + 1
    return NONE, UNRESOLVED, plan.max_rounds


@njit(cache=True, inline="always")
def play_fight(plan, st, cas, total, won, steady_used, rerolls, tests, inflicted, result,
               out, t):
    """One charge and its melee into column t of out."""
    c = plan.charger
    winner, end, rounds = NONE, UNRESOLVED, 0
    for s in range(2):
        cas[s] = plan.start_casualties[s]
        total[s] = 0
        won[s] = 0
        steady_used[s] = False
    if plan.start == EVADED or plan.start == HALTED:
        end = NO_FIGHT  # R4-4 evade; §5.4 cavalry halts short of a steady square
    elif plan.start == EVADER_DESTROYED:
        winner, end = (ATTACKER if c == 0 else DEFENDER), DESTROYED  # R4-4: no room to evade
    else:
        h = 0
        if plan.hedgehog_order > 0 and two_d6(st) <= plan.hedgehog_order:
            h = 1  # R4-4: the order roll succeeds and the hedgehog forms
        for s in range(2):
            rerolls[s] = plan.test_rerolls[h, s]
        fight = True
        if plan.closing_dice > 0:  # R4-4 closing fire, +1 to hit
            hits = successes(st, plan.closing_dice, plan.closing_p_hit)
            lost = successes(st, hits, plan.closing_p_unsaved)
            cas[c] += lost
            total[c] += lost
            if lost > 0 and (cas[c] >= plan.stamina[c] or plan.test_on_casualty[h, c]):
                test = _break_test(plan, st, h, c, max(0, cas[c] - plan.stamina[c]), cas,
                                   steady_used, rerolls)
                cas[c] = min(cas[c], plan.stamina[c])
                if test != HOLD:
                    fight = False
                    winner = DEFENDER if c == 0 else ATTACKER
                    end = DESTROYED if test == BREAK else FLED
        if fight:
            winner, end, rounds = _melee(plan, st, h, cas, total, won, steady_used, rerolls,
                                         tests, inflicted, result)
    out[0, t] = winner
    out[1, t] = end
    out[2, t] = rounds
    for s in range(2):
        out[3 + s, t] = cas[s] - plan.start_casualties[s]
        out[5 + s, t] = total[s]
        out[7 + s, t] = cas[s] >= plan.stamina[s]
    w = winner - 1  # §5.4: an unshaken victorious cavalry unit sweeps on
    out[9, t] = 1 if (rounds > 0 and w >= 0 and plan.sweeps[w]
                      and cas[w] < plan.stamina[w]) else 0


@njit(cache=True, parallel=True)
def play_chunk(plan, seed, first_trial, out):
    """Play trials first_trial .. first_trial + out.shape[1] - 1 into out (10, n)."""
    n = out.shape[1]
    for b in prange((n + BLOCK - 1) // BLOCK):
        st = np.empty(4, np.uint64)
        cas = np.zeros(2, np.int64)
        total = np.zeros(2, np.int64)
        won = np.zeros(2, np.int64)
        steady_used = np.zeros(2, np.bool_)
        rerolls = np.zeros(2, np.int64)
        tests = np.zeros(2, np.int64)
        inflicted = np.zeros(2, np.int64)
        result = np.zeros(2, np.int64)
        for t in range(b * BLOCK, min(n, (b + 1) * BLOCK)):
            seed_stream(st, seed, first_trial + t)
            play_fight(plan, st, cas, total, won, steady_used, rerolls, tests, inflicted,
                       result, out, t)
