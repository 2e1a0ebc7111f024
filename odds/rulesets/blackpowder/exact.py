"""The blackpowder exact solver (issue 12): kernel.py's charge and melee, computed instead of
sampled, round by round, from the same compiled plan.

A live fight between rounds is (h, won, steady used, re-rolls left, T0, T1): whether the
hedgehog formed (R4-4), who won the last round (none / attacker / defender, §5.4), each side's
*steady* and *valiant* state (§5.5) and each side's failed saves so far (T, the ``wounds``
column). Casualties are discarded only beyond stamina (§5.4), so the casualties that count
follow from T: ``min(start + T, stamina)``; T is kept, not both. The first six parts form a
small "core"; each live core holds a dense 2-D array over (T0, T1), and a round moves each
array's mass by (casualties suffered) into the next cores' arrays or into the ways a fight
ends that round. Hits, saves, re-rolls, the D3 and the 2D6 break tests are enumerated exactly
(dice counts as binomials, as the kernel draws them).
"""
from __future__ import annotations

import numpy as np
from numba import njit
from numba.typed import List

from odds.core import exact
from odds.core.outcome import (
    ATTACKER,
    DEFENDER,
    DESTROYED,
    ENDS,
    FLED,
    MUTUAL,
    NO_FIGHT,
    NONE,
    UNRESOLVED,
)
from odds.rulesets.blackpowder.compile import (
    BREAK,
    EVADED,
    EVADER_DESTROYED,
    HALTED,
    HOLD,
    LOWEST,
    RETIRE,
)
from odds.rulesets.blackpowder.kernel import _ending

# the ways a melee or closing fire ends, (winner, end) at index KIND
KINDS = ((ATTACKER, DESTROYED), (DEFENDER, DESTROYED), (ATTACKER, FLED), (DEFENDER, FLED),
         (NONE, MUTUAL), (NONE, UNRESOLVED))
KIND = np.full(3 * len(ENDS), -1, np.int64)
for _i, (_w, _e) in enumerate(KINDS):
    KIND[_w * len(ENDS) + _e] = _i
N_ENDS = len(ENDS)
DEDUCTIONS = 13 - LOWEST  # from this deduction on every 2D6 roll scores LOWEST or less


def covers(scenario) -> str | None:
    """Every rule the blackpowder kernel plays is solved exactly: one unit a side (all the
    ruleset takes), every reaction, special rule, support and modifier."""
    return None


@njit(cache=True, inline="always")
def _decode(key, nr0, nr1):
    """(h, won, steady used 0, steady used 1, re-rolls left 0, re-rolls left 1) of a core."""
    rr1 = key % nr1
    key //= nr1
    rr0 = key % nr0
    key //= nr0
    su1 = key % 2
    key //= 2
    su0 = key % 2
    key //= 2
    return key // 3, key % 3, su0, su1, rr0, rr1


@njit(cache=True, inline="always")
def _encode(h, won, su0, su1, rr0, rr1, nr0, nr1):
    return ((((h * 3 + won) * 2 + su0) * 2 + su1) * nr0 + rr0) * nr1 + rr1


@njit(cache=True)
def _hits_then_saves(n, p_hit, reroll_misses, reroll_one, p_unsaved, stubborn, p_save):
    """P(k casualties) from n dice: kernel._hits then kernel._casualties, enumerated (R4-6,
    re-rolls and stubborn §5.3)."""
    if reroll_misses:
        hits = exact.binomial_pmf(n, p_hit + (1.0 - p_hit) * p_hit)
    else:
        hits = exact.binomial_pmf(n, p_hit)
        if reroll_one:  # one miss re-rolled: k < n hits become k + 1 with P(hit)
            for k in range(n - 1, -1, -1):
                moved = hits[k] * p_hit
                hits[k] -= moved
                hits[k + 1] += moved
    lost = np.zeros(n + 1)
    for k in range(n + 1):
        if hits[k] > 0.0:
            lost[:k + 1] += hits[k] * exact.binomial_pmf(k, p_unsaved)
    if stubborn:  # one failed save re-rolled: k > 0 casualties become k - 1 with P(save)
        for k in range(1, n + 1):
            moved = lost[k] * p_save
            lost[k] -= moved
            lost[k - 1] += moved
    return lost


@njit(cache=True)
def _losses(plan):
    """P(side s inflicts k casualties) at [h, round (0 first, 1 later), s, won last round,
    shaken now, k]."""
    n_max = int(plan.dice.max())
    out = np.zeros((2, 2, 2, 2, 2, n_max + 1))
    for h in range(2):
        for r in range(2):
            for s in range(2):
                for won in range(2):
                    for shaken in range(2):
                        n = plan.dice[h, r, s]
                        out[h, r, s, won, shaken, :n + 1] = _hits_then_saves(
                            n, plan.p_hit[h, r, s, won, shaken], plan.reroll_misses[h, r, s],
                            plan.reroll_one_miss[h, s], plan.p_unsaved[h, r, s],
                            plan.reroll_one_save[h, 1 - s], plan.p_save[h, r, s])
    return out


@njit(cache=True)
def _single_rolls(plan):
    """P(hold), P(retire), P(break) of one 2D6 break-test roll (§5.5, as kernel._break_test
    reads the bands: a square ignores all but break, a shaken unit breaks instead of
    retiring) at [h, side, deduction (capped where every roll breaks), shaken, result]."""
    out = np.zeros((2, 2, DEDUCTIONS, 2, 3))
    for h in range(2):
        for s in range(2):
            for deduction in range(DEDUCTIONS):
                for shaken in range(2):
                    for a in range(1, 7):
                        for b in range(1, 7):
                            result = plan.band[max(a + b - deduction - LOWEST, 0)]
                            if plan.square[h, s] and result != BREAK:
                                result = HOLD
                            if result == RETIRE and plan.shaken_retire_breaks and shaken:
                                result = BREAK
                            out[h, s, deduction, shaken, result] += 1.0 / 36.0
    return out


@njit(cache=True, inline="always")
def _test(plan, rolls, h, s, deduction, shaken, su, rr, out, iout):
    """Side s's break test at 2D6 - deduction (kernel._break_test, §5.5: steady holds first,
    valiant re-rolls a failed test) as its outcomes: result out[0], probability out[1],
    steady used iout[0], re-rolls left iout[1]. Returns how many."""
    if plan.first_test_passed[h, s] and su == 0:
        return _stand(1, rr, out, iout)
    q = rolls[h, s, min(deduction, DEDUCTIONS - 1), 1 if shaken else 0]
    n = 0
    reach = 1.0  # P(this many failed tests re-rolled so far)
    for j in range(rr + 1):
        if q[HOLD] > 0.0:
            out[0, n], out[1, n], iout[0, n], iout[1, n] = HOLD, reach * q[HOLD], su, rr - j
            n += 1
        if j < rr:
            reach *= 1.0 - q[HOLD]
    for result in (RETIRE, BREAK):
        if q[result] > 0.0 and reach > 0.0:
            out[0, n], out[1, n], iout[0, n], iout[1, n] = result, reach * q[result], su, 0
            n += 1
    return n


@njit(cache=True, inline="always")
def _stand(su, rr, out, iout, result=HOLD):
    """One certain outcome, in _test's form: no test (hold), or a retirement without one."""
    out[0, 0], out[1, 0], iout[0, 0], iout[1, 0] = result, 1.0, su, rr
    return 1


@njit(cache=True, inline="always")
def _add(dest, wt, n, d, p):
    """Add probability p to destination d in the short list (dest, wt) of n entries."""
    for j in range(n):
        if dest[j] == d:
            wt[j] += p
            return n
    dest[n] = d
    wt[n] = p
    return n + 1


@njit(cache=True, inline="always")
def _round_outcomes(plan, rolls, h, r, core, cas, inflicted, q, nr0, nr1, work, iwork, counts,
                    tests, dest, wt):
    """Where a live fight goes after one round in which side s inflicted inflicted[s]
    casualties (probability q): next cores (>= 0) or ends (-1 - kind), with probabilities,
    summed over the D3 (§5.3) and both break tests (kernel._melee). cas[s] is side s's
    casualties with this round's, before excess is discarded. Returns how many."""
    su = (core[2], core[3])
    rr = (core[4], core[5])
    stamina = plan.stamina
    n = 0
    nd = (3 if plan.result_d3[h, r, 0] else 1, 3 if plan.result_d3[h, r, 1] else 1)
    for d0 in range(nd[0]):
        for d1 in range(nd[1]):
            pd = q / (nd[0] * nd[1])
            result0 = inflicted[0] + plan.result_bonus[h, r, 0] + (d0 + 1 if nd[0] == 3 else 0)
            result1 = inflicted[1] + plan.result_bonus[h, r, 1] + (d1 + 1 if nd[1] == 3 else 0)
            won = 0 if result0 == result1 else (1 if result0 > result1 else 2)
            for s in range(2):
                shaken = cas[s] >= stamina[s]
                wavers = plan.test_on_casualty[h, s] and inflicted[1 - s] > 0
                if won == 0:  # drawn combat (§5.4): shaken test, unshaken cavalry retires
                    retires = plan.cavalry[s] and not shaken
                    tested = shaken or (wavers and not plan.cavalry[s])
                    deduction = 0
                else:
                    retires = False
                    tested = won != s + 1 or wavers  # the loser, or a wavering winner
                    deduction = abs(result0 - result1) if won != s + 1 else 0
                if tested:
                    counts[s] = _test(plan, rolls, h, s, deduction, shaken, su[s], rr[s],
                                      work[s], iwork[s])
                else:
                    counts[s] = _stand(su[s], rr[s], work[s], iwork[s],
                                       RETIRE if retires else HOLD)
            for i in range(counts[0]):
                for j in range(counts[1]):
                    p = pd * work[0, 1, i] * work[1, 1, j]
                    tests[0] = np.int64(work[0, 0, i])
                    tests[1] = np.int64(work[1, 0, j])
                    winner, end, over = _ending(tests)
                    if over:
                        d = -1 - KIND[winner * N_ENDS + end]
                    else:
                        d = _encode(h, won, iwork[0, 0, i], iwork[1, 0, j], iwork[0, 1, i],
                                    iwork[1, 1, j], nr0, nr1)
                    n = _add(dest, wt, n, d, p)
    return n


@njit(cache=True)
def _spread(target, src, weight, lo0, hi0, lo1, hi1):
    """target[x + a1, y + a0] += weight[a1, a0] * src[x, y] over the region [lo0, hi0) x
    [lo1, hi1) of src: a fight's failed saves grow by the casualties suffered."""
    if hi1 - lo1 == 1:  # one T1 (an unshaken defender): run along T0
        for a1 in range(weight.shape[0]):
            for a0 in range(weight.shape[1]):
                w = weight[a1, a0]
                if w != 0.0:
                    for x in range(lo0, hi0):
                        target[x + a1, lo1 + a0] += w * src[x, lo1]
        return
    n = hi1 - lo1
    for x in range(lo0, hi0):
        srow = src[x, lo1:hi1]
        for a1 in range(weight.shape[0]):
            trow = target[x + a1]
            for a0 in range(weight.shape[1]):
                w = weight[a1, a0]
                if w != 0.0:
                    t = trow[lo1 + a0:hi1 + a0]
                    for y in range(n):
                        t[y] += w * srow[y]


@njit(cache=True)
def _round(plan, r, cores, mass, lq, rolls, nr0, nr1):
    """One melee round (R4-6, §5.3-§5.5) from the live cores and their (T0, T1) masses:
    (next cores, their masses, the mass of each way of ending this round over (T0, T1))."""
    m, b0, b1 = mass.shape
    grow = (plan.dice[:, r, 1].max(), plan.dice[:, r, 0].max())  # most casualties suffered
    n0, n1 = b0 + grow[0], b1 + grow[1]
    ended = np.zeros((len(KINDS), n0, n1))
    slot = np.full(24 * nr0 * nr1, -1, np.int64)
    keys = List()
    arrays = List()
    outcomes = max(nr0, nr1) + 2  # one side's break-test outcomes at most
    work = np.zeros((2, 2, outcomes))
    iwork = np.zeros((2, 2, outcomes), np.int64)
    tests = np.zeros(2, np.int64)
    counts = np.zeros(2, np.int64)
    places = 12 * nr0 * nr1 + len(KINDS)  # the cores of one h and the ways to end
    dest = np.zeros(places, np.int64)
    wt = np.zeros(places)
    local = np.zeros(places, np.int64)
    weight = np.zeros((places, plan.dice[:, r, 1].max() + 1, plan.dice[:, r, 0].max() + 1))
    cas = np.zeros(2, np.int64)
    inflicted = np.zeros(2, np.int64)
    stamina, start = plan.stamina, plan.start_casualties
    for i in range(m):
        core = _decode(cores[i], nr0, nr1)
        h, won = core[0], core[1]
        src = mass[i]
        for c0 in range(start[0], stamina[0] + 1):
            lo0 = c0 - start[0]
            hi0 = lo0 + 1 if c0 < stamina[0] else b0
            for c1 in range(start[1], stamina[1] + 1):
                lo1 = c1 - start[1]
                hi1 = lo1 + 1 if c1 < stamina[1] else b1
                if lo0 >= b0 or lo1 >= b1 or not src[lo0:hi0, lo1:hi1].any():
                    continue
                q0 = lq[h, r, 0, 1 if won == 1 else 0, 1 if c0 >= stamina[0] else 0]
                q1 = lq[h, r, 1, 1 if won == 2 else 0, 1 if c1 >= stamina[1] else 0]
                n_a0, n_a1 = plan.dice[h, r, 0] + 1, plan.dice[h, r, 1] + 1
                n_local = 0  # destinations of this region, with their weights by (a1, a0)
                for a0 in range(n_a0):
                    for a1 in range(n_a1):
                        q = q0[a0] * q1[a1]
                        if q == 0.0:
                            continue
                        inflicted[0], inflicted[1] = a0, a1
                        cas[0], cas[1] = c0 + a1, c1 + a0
                        k = _round_outcomes(plan, rolls, h, r, core, cas, inflicted, q, nr0, nr1,
                                            work, iwork, counts, tests, dest, wt)
                        for j in range(k):
                            u = 0
                            while u < n_local and local[u] != dest[j]:
                                u += 1
                            if u == n_local:
                                local[u] = dest[j]
                                n_local += 1
                            weight[u, a1, a0] += wt[j]
                for u in range(n_local):
                    if local[u] < 0:
                        target = ended[-1 - local[u]]
                    else:
                        if slot[local[u]] < 0:
                            slot[local[u]] = len(arrays)
                            keys.append(local[u])
                            arrays.append(np.zeros((n0, n1)))
                        target = arrays[slot[local[u]]]
                    _spread(target, src, weight[u, :n_a1, :n_a0], lo0, hi0, lo1, hi1)
                    weight[u, :n_a1, :n_a0] = 0.0
    out_keys = np.empty(len(keys), np.int64)
    out = np.empty((len(keys), n0, n1))
    for j in range(len(keys)):
        out_keys[j] = keys[j]
        out[j] = arrays[j]
    return out_keys, out, ended


@njit(cache=True)
def _charge(plan, rolls, p_hedgehog, nr0, nr1):
    """The hedgehog's order roll and closing fire (R4-4) before the melee: the live cores and
    their (T0, T1) masses, and the mass of each way closing fire ends the fight."""
    c = plan.charger
    n_c = plan.closing_dice + 1
    shape = (n_c, 1) if c == 0 else (1, n_c)
    ended = np.zeros((len(KINDS),) + shape)
    live = np.zeros((24 * nr0 * nr1,) + shape)
    work = np.zeros((2, max(nr0, nr1) + 2))
    iwork = np.zeros((2, max(nr0, nr1) + 2), np.int64)
    winner = DEFENDER if c == 0 else ATTACKER
    for h in range(2):
        ph = p_hedgehog if h else 1.0 - p_hedgehog
        if ph == 0.0:
            continue
        rr = (plan.test_rerolls[h, 0], plan.test_rerolls[h, 1])
        lost = np.ones(1)
        if plan.closing_dice > 0:
            lost = _hits_then_saves(plan.closing_dice, plan.closing_p_hit, False, False,
                                    plan.closing_p_unsaved, False, 0.0)
        for k in range(len(lost)):
            at = (k, 0) if c == 0 else (0, k)
            p = ph * lost[k]
            cas = plan.start_casualties[c] + k
            n = _stand(0, rr[c], work, iwork)
            if k > 0 and (cas >= plan.stamina[c] or plan.test_on_casualty[h, c]):
                n = _test(plan, rolls, h, c, max(0, cas - plan.stamina[c]),
                          cas >= plan.stamina[c], 0, rr[c], work, iwork)
            for j in range(n):
                if work[0, j] == HOLD:
                    su, left = (iwork[0, j], 0), (iwork[1, j], rr[1])
                    if c == 1:
                        su, left = (0, iwork[0, j]), (rr[0], iwork[1, j])
                    key = _encode(h, 0, su[0], su[1], left[0], left[1], nr0, nr1)
                    live[key][at] += p * work[1, j]
                else:
                    end = DESTROYED if work[0, j] == BREAK else FLED
                    ended[KIND[winner * N_ENDS + end]][at] += p * work[1, j]
    keys = np.nonzero(live.reshape(live.shape[0], -1).sum(axis=1) > 0.0)[0]
    return keys.astype(np.int64), live[keys], ended


@njit(cache=True)
def _rows(plan, ended, rounds):
    """The outcome rows (columns x m, as kernel.play_fight writes them) and probabilities of
    the fights that ended as ended[kind, T0, T1] after ``rounds`` melee rounds."""
    m = np.count_nonzero(ended)
    rows = np.zeros((10, m), np.int64)
    weights = np.zeros(m)
    stamina, start = plan.stamina, plan.start_casualties
    j = 0
    for kind in range(ended.shape[0]):
        winner, end = KINDS[kind]
        for t0 in range(ended.shape[1]):
            for t1 in range(ended.shape[2]):
                p = ended[kind, t0, t1]
                if p == 0.0:
                    continue
                cas0 = min(start[0] + t0, stamina[0])
                cas1 = min(start[1] + t1, stamina[1])
                w = winner - 1  # §5.4: an unshaken victorious cavalry unit sweeps on
                cas_w = cas0 if w == 0 else cas1
                rows[0, j], rows[1, j], rows[2, j] = winner, end, rounds
                rows[3, j], rows[4, j] = cas0 - start[0], cas1 - start[1]
                rows[5, j], rows[6, j] = t0, t1
                rows[7, j], rows[8, j] = cas0 >= stamina[0], cas1 >= stamina[1]
                rows[9, j] = (rounds > 0 and w >= 0 and plan.sweeps[max(w, 0)]
                              and cas_w < stamina[max(w, 0)])
                weights[j] = p
                j += 1
    return rows, weights


def _certain(plan, winner, end):
    """The one row of a fight that ends before any blow (evade, halt)."""
    shaken = plan.start_casualties >= plan.stamina
    row = [winner, end, 0, 0, 0, 0, 0, int(shaken[0]), int(shaken[1]), 0]
    return np.array(row, np.int64)[:, None], np.ones(1), 1


def solve(plan, max_states: int = exact.MAX_STATES):
    """(rows, weights, states) of the fight the plan describes; see odds.core.exact.

    ``states`` counts what the walk holds after a round: its live fights plus the distinct
    ways fights have ended so far (one outcome row each), so the bound also bounds the rows."""
    if plan.start in (EVADED, HALTED):
        return _certain(plan, NONE, NO_FIGHT)
    if plan.start == EVADER_DESTROYED:
        return _certain(plan, ATTACKER if plan.charger == 0 else DEFENDER, DESTROYED)
    two_d6 = exact.dice_sum(2)
    p_hedgehog = exact.p_le(two_d6, plan.hedgehog_order) if plan.hedgehog_order > 0 else 0.0
    nr0, nr1 = (int(plan.test_rerolls[:, s].max()) + 1 for s in range(2))
    rolls = _single_rolls(plan)
    cores, mass, ended = _charge(plan, rolls, p_hedgehog, nr0, nr1)
    parts = [_rows(plan, ended, 0)]
    ends = parts[0][1].size
    states = int(np.count_nonzero(mass)) + ends
    exact.check_states(states, max_states, 0)
    lq = _losses(plan)
    for k in range(plan.max_rounds):
        if len(cores) == 0:
            break
        cores, mass, ended = _round(plan, 0 if k == 0 else 1, cores, mass, lq, rolls, nr0, nr1)
        if k == plan.max_rounds - 1:  # still fighting after max_rounds (kernel._melee)
            ended[KIND[NONE * N_ENDS + UNRESOLVED]] += mass.sum(axis=0)
            cores, mass = cores[:0], mass[:0]
        ends += int(np.count_nonzero(ended))
        held = int(np.count_nonzero(mass)) + ends
        exact.check_states(held, max_states, k + 1)
        states = max(states, held)
        parts.append(_rows(plan, ended, k + 1))
        cores, mass = _trimmed(cores, mass)
    rows = np.concatenate([p[0] for p in parts], axis=1)
    weights = np.concatenate([p[1] for p in parts])
    return rows, weights, states


def _trimmed(cores, mass):
    """The live cores and their masses without those that hold nothing (their mass
    underflowed) and without the trailing (T0, T1) rows and columns that hold nothing."""
    if len(cores):
        held = mass.reshape(len(cores), -1).any(axis=1)
        cores, mass = cores[held], mass[held]
    if len(cores) == 0:
        return cores, mass
    hi = [int(np.nonzero(mass.any(axis=axes))[0].max()) + 1 for axes in ((0, 2), (0, 1))]
    return cores, np.ascontiguousarray(mass[:, :hi[0], :hi[1]])
