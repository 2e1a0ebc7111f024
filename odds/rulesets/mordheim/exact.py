"""The Mordheim exact solver (issue 12): the kernel's close combat, computed instead of sampled.

The walk goes strike by strike. A fight state is one int row: for every warrior his status
(standing, knocked down, stunned, out of action, fled), wounds left, whether his pistol has
fired and whether his Frenzy is lost, and this round's parry used, critical used, failed Fear
test, still to strike and stood up flags. Equal states are merged after every step, so the
work grows with the distinct states, not with the paths.

The ten count columns (wounds, knocked-down and stunned results, parries, criticals, per side)
never change how the fight goes, and kept in the state they would multiply it (a duel passes
10^6 states by turn 9). So each state carries every count's distribution given the state
(``counts[state, column, value]``); a step's branch adds its increments (the row's fields
after the state) to the distributions of its parent (the last field). A fight's outcome
(winner, end, rounds, warriors lost) and each count's distribution with it are exact; the
outcome rows :func:`solve` returns put the counts' quantiles side by side, so every column's
histogram per outcome is exact but two counts' joint distribution is not given.

Every die the kernel rolls is enumerated (``kernel.py``): the Fear tests, the strike order's
roll-off between warriors of equal tier and Initiative (a uniform order, drawn one striker at
a time), to hit, the parry and its re-roll, to wound, the critical chart, the armour save, the
special save of each wound, each injury roll, the helmet, All Alone's Ld test and its free
hits. A re-rolled to-hit or to-wound die enters as the odds of its final face (the plan's
``hit_faces`` and ``wound_faces``, from :mod:`odds.core.effects`). The kernel's helpers roll
their dice inline, so only its presence test is reused; the rules are followed line by line.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from odds.core import exact
from odds.core.outcome import ATTACKER, DEFENDER, DESTROYED, FLED, MUTUAL, NONE, UNRESOLVED
from odds.rulesets.mordheim import kernel
from odds.rulesets.mordheim.kernel import (
    CRITS,
    GONE,
    KD,
    KNOCKED_DOWN,
    LOST,
    OUT_OF_ACTION,
    PARRIES,
    STANDING,
    STUN,
    STUNNED,
    WOUNDS,
)

# each state carries ten count distributions, and a step makes about 25 branches a state:
# 20,000 states (a three-on-one or a two-on-two fight) take seconds and about 1 GB at most
MAX_STATES = 20_000
N_COLUMNS = 15  # the kernel's outcome row: winner, end, rounds and 12 counts
# fields of a state row, each a block of n (one per warrior); then the step's increments of
# the N_COUNTERS count columns and the parent state's index
# status, wounds left, pistol fired, Frenzy lost (these last the fight); parry used, critical
# used, Fear failed, to strike, stood up (this round's)
ST, WN, PI, CA, PU, CU, FE, RE, SO = range(9)
N_FIELDS = 9
N_COUNTERS = N_COLUMNS - WOUNDS  # outcome columns 5.. (wounds .. criticals) kept in the row


def covers(scenario) -> str | None:
    """None: the solver plays every rule the Mordheim kernel plays (R1-1 ... R1-12)."""
    return None


def compiled(plan) -> tuple:
    """The compiled parts a solve of ``plan`` calls (the compile notice looks at them): the
    All Alone step only where a warrior may be all alone, in contact with two or more foes
    (R1-11)."""
    if not plan.all_alone:
        return _start_round, _strike_step
    alone = bool((np.asarray(plan.contact).sum(axis=1) >= 2).any())
    return (_start_round, _strike_step, _any_tests) + ((_all_alone_step,) if alone else ())


def solve(plan, max_states):
    """The exact outcome distribution (see :mod:`odds.core.exact`) from the walk of the fight
    states, each carrying the distribution of every counter column given that state."""
    n = len(plan.side)
    dyn = N_FIELDS * n  # the fight state; then the step's counter increments, the parent
    rows = np.zeros((1, dyn + N_COUNTERS + 1), np.int32)
    rows[0, WN * n:(WN + 1) * n] = plan.wounds
    # counts[state, counter, value]: probability; and each counter's lowest and past-highest
    # value of positive probability
    counts = (np.ones((1, N_COUNTERS, 1)), np.zeros((1, N_COUNTERS), np.int64),
              np.ones((1, N_COUNTERS), np.int64))
    ended: dict[tuple, np.ndarray] = {}
    states = 1
    for rounds in range(1, plan.max_rounds + 1):
        r = 0 if rounds == 1 else 1
        active = plan.charger if rounds & 1 else 1 - plan.charger
        rows, w = _start_round(plan, rows, _branch_from(rows, dyn), r, active)
        for step in range(n + 1):  # n strikes (the first one carries the round start), All Alone
            if step < n:
                if step and not rows[:, RE * n:(RE + 1) * n].any():
                    continue  # nobody left to strike
                rows, w = _strike_step(plan, rows, w, r)
            elif plan.all_alone and _any_tests(plan, rows, active):
                rows, w = _all_alone_step(plan, rows, w, r, active)
            else:
                continue
            rows, counts = _merged(rows, w, counts, dyn, (max_states, rounds))
            states = max(states, len(rows))
            w = _branch_from(rows, dyn)
        live = _end_step(plan, rows, rounds, ended, counts)
        rows, counts = rows[live], tuple(a[live] for a in counts)
        rows[:, PU * n:dyn] = 0  # this round's flags
        rows, counts = _merged(rows, _branch_from(rows, dyn), counts, dyn)
        if len(rows) == 0:
            break
    if len(rows):  # still fighting after max_rounds (R1-12)
        _end_step(plan, rows, plan.max_rounds, ended, counts, unresolved=True)
    out, weights = _outcome_rows(ended)
    return out, weights, states


def _branch_from(rows, dyn):
    """Make each state the parent of the next step's branches (no increments yet); their
    probabilities so far, all 1."""
    rows[:, dyn:] = 0
    rows[:, -1] = np.arange(len(rows))
    return np.ones(len(rows))


def _merged(rows, w, counts, dyn, bound=None):
    """Equal fight states as one: each new state's counter distributions are its parents',
    shifted by the step's increments and weighted by the step's probability. ``bound``:
    (max_states, round) to check the new states against before they are built."""
    if len(w) == 0:
        return rows, tuple(a[:0] for a in counts)
    first, inverse = _groups(rows)  # the same state, increments and parent: one branch
    rows, w = rows[first], np.bincount(inverse, w)
    first, inverse = _groups(rows[:, :dyn])
    if bound is not None:
        exact.check_states(len(first), *bound)
    deltas = rows[:, dyn:dyn + N_COUNTERS]
    return rows[first], _carry(*counts, rows[:, -1], w, deltas, inverse, len(first))


def _groups(rows):
    """The first index of each distinct row and every row's group (mixed-radix keys when they
    fit in 63 bits, else the rows' bytes)."""
    lo, hi = rows.min(axis=0).astype(np.int64), rows.max(axis=0).astype(np.int64)
    radix = hi - lo + 1
    if np.log2(radix.astype(float)).sum() > 62:
        _, first, inverse = np.unique(np.ascontiguousarray(rows).view(
            np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel(),
            return_index=True, return_inverse=True)
        return first, inverse.ravel()
    return _group_keys(_encode(rows, lo, radix))


@njit(cache=True)
def _encode(rows, lo, radix):
    keys = np.zeros(rows.shape[0], np.int64)
    for q in range(rows.shape[0]):
        k = 0
        for f in range(rows.shape[1]):
            k = k * radix[f] + (rows[q, f] - lo[f])
        keys[q] = k
    return keys


@njit(cache=True)
def _group_keys(keys):
    order = np.argsort(keys, kind="mergesort")
    first = np.empty(len(keys), np.int64)
    inverse = np.empty(len(keys), np.int64)
    m = -1
    for i in order:
        if m < 0 or keys[i] != keys[first[m]]:
            m += 1
            first[m] = i
        inverse[i] = m
    return first[:m + 1], inverse


@njit(cache=True)
def _carry(counts, lo, hi, parents, w, deltas, inverse, n_states):
    n_counters = counts.shape[1]
    out_lo = np.full((n_states, n_counters), 1 << 30)
    out_hi = np.zeros((n_states, n_counters), np.int64)
    for e in range(len(w)):
        u, q = inverse[e], parents[e]
        for c in range(n_counters):
            out_lo[u, c] = min(out_lo[u, c], lo[q, c] + deltas[e, c])
            out_hi[u, c] = max(out_hi[u, c], hi[q, c] + deltas[e, c])
    out = np.zeros((n_states, n_counters, out_hi.max()))
    for e in range(len(w)):
        u, q, p = inverse[e], parents[e], w[e]
        for c in range(n_counters):
            d = deltas[e, c]
            src, dst = counts[q, c], out[u, c]
            for v in range(lo[q, c], hi[q, c]):
                dst[v + d] += p * src[v]
    return out, out_lo, out_hi


def _end_step(plan, rows, rounds, ended, counts, unresolved=False):
    """Fold the fights that ended (R1-12; all of them when ``unresolved``) into ``ended``,
    keyed by their outcome (winner, end, rounds, warriors lost); the live ones' indices."""
    n = len(plan.side)
    status = rows[:, ST * n:(ST + 1) * n]
    present = [(status[:, plan.side == s] <= STUNNED).any(axis=1) for s in (0, 1)]
    fled = [(status[:, plan.side == s] == GONE).any(axis=1) for s in (0, 1)]
    lost = [(status[:, plan.side == s] == OUT_OF_ACTION).sum(axis=1) for s in (0, 1)]
    live = present[0] & present[1]
    for q in (range(len(rows)) if unresolved else np.flatnonzero(~live)):
        if unresolved:
            winner, end = NONE, UNRESOLVED
        elif not present[0][q] and not present[1][q]:
            winner, end = NONE, MUTUAL
        else:
            loser = 0 if not present[0][q] else 1
            winner = DEFENDER if loser == 0 else ATTACKER
            end = FLED if fled[loser][q] else DESTROYED
        key = (winner, end, rounds, int(lost[0][q]), int(lost[1][q]))
        got = ended.get(key)
        ended[key] = counts[0][q] if got is None else _added(got, counts[0][q])
    return np.flatnonzero(live)


def _added(a, b):
    out = np.zeros((a.shape[0], max(a.shape[1], b.shape[1])))
    out[:, :a.shape[1]] += a
    out[:, :b.shape[1]] += b
    return out


def _outcome_rows(ended):
    """Outcome rows carrying, per outcome (winner, end, rounds, lost), each counter column's
    exact distribution: the counters' quantiles side by side (one row per step of any of
    their cumulative distributions)."""
    rows, weights = [], []
    for (winner, end, rounds, lost0, lost1), dist in ended.items():
        total = dist[0].sum()
        cum = np.cumsum(dist, axis=1)
        cum[:, -1] = total
        cuts = np.unique(np.concatenate([[0.0], cum.ravel()]))
        cuts = cuts[cuts <= total]
        width = np.diff(cuts)
        keep = width > 0
        value = np.array([np.searchsorted(c, cuts[1:][keep], side="left") for c in cum])
        block = np.zeros((N_COLUMNS, keep.sum()), np.int32)
        block[0], block[1], block[2], block[LOST], block[LOST + 1] = (
            winner, end, rounds, lost0, lost1)
        block[WOUNDS:] = np.minimum(value, dist.shape[1] - 1)
        rows.append(block)
        weights.append(width[keep])
    return np.concatenate(rows, axis=1), np.concatenate(weights)


# --- buffers ---------------------------------------------------------------------------------

@njit(cache=True)
def _emit(buf, p_buf, m, row, p):
    """Append (row, p) to a growing buffer; returns it (reallocated when full) and m + 1."""
    if m == len(p_buf):
        bigger = np.empty((2 * m, buf.shape[1]), buf.dtype)
        bigger[:m] = buf
        p_bigger = np.empty(2 * m)
        p_bigger[:m] = p_buf
        buf, p_buf = bigger, p_bigger
    buf[m] = row
    p_buf[m] = p
    return buf, p_buf, m + 1


@njit(cache=True)
def _buffer(width, size):
    return np.empty((max(size, 16), width), np.int32), np.empty(max(size, 16))


@njit(cache=True)
def _counter(n, column, side):
    """The row index of an outcome column's counter (column: the kernel's WOUNDS, KD, ...)."""
    return N_FIELDS * n + column - WOUNDS + side


@njit(cache=True)
def _present(plan, row, s):
    """Side s still has a warrior standing, knocked down or stunned (the kernel's test)."""
    return kernel._present(plan, row[ST * len(plan.side):(ST + 1) * len(plan.side)], s)


@njit(cache=True)
def _retire(row, n, i, status):
    """Warrior i leaves the fight (out of action or fled); his other fields no longer matter."""
    row[ST * n + i] = status
    for f in (WN, PI, CA, PU, CU, FE, RE, SO):
        row[f * n + i] = 0


# --- round start: recovery, Fear, who strikes (R1-9, R1-6, R1-2) ----------------------------

@njit(cache=True)
def _start_round(plan, rows, probs, r, active):
    n = len(plan.side)
    buf, p_buf = _buffer(rows.shape[1], 2 * len(probs))
    m = 0
    testers = np.zeros(n, np.int64)
    fail = np.zeros(n)
    for q in range(len(probs)):
        row = rows[q].copy()
        for i in range(n):
            for f in (PU, CU, FE, RE, SO):
                row[f * n + i] = 0
            if plan.side[i] == active and r == 1:  # R1-9 recovery
                if row[ST * n + i] == KNOCKED_DOWN:
                    row[ST * n + i], row[SO * n + i] = STANDING, 1
                elif row[ST * n + i] == STUNNED:
                    row[ST * n + i] = KNOCKED_DOWN
        for i in range(n):
            if row[ST * n + i] != STANDING:
                continue
            for j in range(n):
                if plan.contact[i, j] == 1 and row[ST * n + j] <= STUNNED:
                    row[RE * n + i] = 1
        t = 0
        if r == 0:  # R1-6: 2D6 > Ld fails
            for i in range(n):
                if plan.side[i] != plan.charger and plan.tests_fear[i] == 1:
                    for j in range(n):
                        if plan.contact[i, j] == 1 and plan.causes_fear[j] == 1:
                            testers[t] = i
                            fail[t] = _above_2d6(plan.leadership[i])
                            t += 1
                            break
        for subset in range(1 << t):
            p = probs[q]
            new = row.copy()
            for k in range(t):
                if subset >> k & 1:
                    p *= fail[k]
                    new[FE * n + testers[k]] = 1
                else:
                    p *= 1 - fail[k]
            if p > 0:
                buf, p_buf, m = _emit(buf, p_buf, m, new, p)
    return buf[:m], p_buf[:m]


@njit(cache=True)
def _above_2d6(x):
    """P(2D6 > x)."""
    ways = 0
    for a in range(1, 7):
        for b in range(1, 7):
            if a + b > x:
                ways += 1
    return ways / 36


# --- one strike (R1-2 ... R1-9) ---------------------------------------------------------------

@njit(cache=True)
def _strike_step(plan, rows, probs, r):
    """The next striker of each state: the highest tier and Initiative still to strike, ties
    in a uniformly random order (the kernel's roll-off), then his strike."""
    n = len(plan.side)
    buf, p_buf = _buffer(rows.shape[1], 4 * len(probs))
    m = 0
    for q in range(len(probs)):
        row = rows[q]
        best, ties = 1 << 30, 0
        for i in range(n):
            if row[RE * n + i] == 1:
                tier = 3 if row[SO * n + i] == 1 else plan.tier_first[r, i]
                key = tier * 16 + 15 - plan.initiative[i]
                if key < best:
                    best, ties = key, 1
                elif key == best:
                    ties += 1
        if ties == 0:
            buf, p_buf, m = _emit(buf, p_buf, m, row, probs[q])
            continue
        for x in range(n):
            if row[RE * n + x] != 1:
                continue
            tier = 3 if row[SO * n + x] == 1 else plan.tier_first[r, x]
            if tier * 16 + 15 - plan.initiative[x] != best:
                continue
            new = row.copy()
            new[RE * n + x] = 0
            p = probs[q] / ties
            if new[ST * n + x] == STANDING:
                buf, p_buf, m = _strike(plan, r, new, x, p, buf, p_buf, m)
            else:
                buf, p_buf, m = _emit(buf, p_buf, m, new, p)
    return buf[:m], p_buf[:m]


@njit(cache=True)
def _strike(plan, r, row, x, p, buf, p_buf, m):
    """Warrior x strikes (kernel ``_strike``): his target, blows, to hit and the parry."""
    n = len(plan.side)
    y, stunned, down = -1, -1, -1
    for j in range(n):
        if plan.contact[x, j] == 1:
            status = row[ST * n + j]
            if status == STANDING:
                y = j
                break
            if status == STUNNED and stunned < 0:
                stunned = j
            if status == KNOCKED_DOWN and down < 0:
                down = j
    if y < 0:
        if stunned >= 0:
            _retire(row, n, stunned, OUT_OF_ACTION)
        elif down >= 0:
            y = down
        if y < 0:
            return _emit(buf, p_buf, m, row, p)
    main = plan.blows[x] if row[CA * n + x] == 1 else plan.fury_blows[x]
    off = 0
    if plan.hands[x] == 2:
        if plan.once[x, 1] == 0 or row[PI * n + x] == 0:
            off = 1
        if plan.once[x, 1] == 1:
            row[PI * n + x] = 1
    # hit[h0, h1, parried]: main-hand hits, off-hand hit, one of them parried (R1-4, R1-5)
    hit = np.zeros((main + 1, 2, 2))
    rolled = row[ST * n + y] != KNOCKED_DOWN  # blows on the knocked down hit automatically
    if not rolled:
        hit[main, off, 0] = 1.0
    else:
        need = plan.to_hit[plan.ws[x] - 1, plan.ws[y] - 1]
        if row[FE * n + x] == 1 and r == 0:
            need = 6
        face = plan.hit_faces[r, x, need]  # the odds of each final face, after any re-roll
        miss = face[1:need].sum()
        best = np.zeros((main + 1, 7))  # main-hand hits and their highest roll
        best[0, 0] = 1.0
        for _ in range(main):
            nxt = np.zeros((main + 1, 7))
            for k in range(main):
                for v in range(7):
                    if best[k, v] > 0:
                        nxt[k, v] += best[k, v] * miss
                        for roll in range(need, 7):
                            nxt[k + 1, max(v, roll)] += best[k, v] * face[roll]
            best = nxt
        can_parry = plan.parry_items[y] > 0 and row[PU * n + y] == 0
        for k in range(main + 1):
            for v in range(7):
                if best[k, v] == 0:
                    continue
                for roll in range(need - 1 if off else 6, 7):
                    if off == 0:
                        q, h1, v1 = best[k, v], 0, 0
                    elif roll == need - 1:
                        q, h1, v1 = best[k, v] * miss, 0, 0
                    else:
                        q, h1, v1 = best[k, v] * face[roll], 1, roll
                    top = max(v, v1)
                    hand = 0 if k > 0 and v >= v1 else 1
                    saved = 0.0
                    if (can_parry and k + h1 > 0 and top < 6
                            and plan.hit_strength[r, x, hand] < 2 * plan.strength[y]):
                        fails = top / 6
                        if plan.parry_items[y] >= 2:
                            fails *= top / 6
                        saved = 1 - fails
                    hit[k, h1, 0] += q * (1 - saved)
                    if saved > 0:
                        if hand == 0:
                            hit[k - 1, h1, 1] += q * saved
                        else:
                            hit[k, 0, 1] += q * saved
    for h0 in range(main + 1):
        for h1 in range(2):
            for parried in range(2):
                q = hit[h0, h1, parried]
                if q == 0:
                    continue
                new = row.copy()
                if rolled and plan.parry_items[y] > 0 and (parried == 1 or h0 + h1 > 0):
                    new[PU * n + y] = 1
                new[_counter(n, PARRIES, plan.side[y])] += parried
                buf, p_buf, m = _wound(plan, r, new, x, y, h0, h1, p * q, buf, p_buf, m)
    return buf, p_buf, m


@njit(cache=True)
def _injury(bonus, concussion):
    """P(knocked down, stunned, out of action) of one injury roll plus ``bonus`` (R1-9)."""
    out = np.zeros(4)
    for face in range(1, 7):
        roll = face + bonus
        if roll >= 5:
            out[OUT_OF_ACTION] += 1 / 6
        elif roll >= 3 or (concussion == 1 and roll == 2):
            out[STUNNED] += 1 / 6
        else:
            out[KNOCKED_DOWN] += 1 / 6
    return out


@njit(cache=True)
def _take(cells, cu, wnd, worst, dw, n_wounds, injury, was_down, p):
    """Put the unsaved wounds of one hit on the target (kernel ``_wound``'s inner loop):
    cells[wounds left, worst injury, critical used, wounds counted] += p per outcome;
    ``injury``: the injury roll's odds (:func:`_injury`)."""
    for k in range(n_wounds):
        dw += 1
        if was_down:
            cells[wnd, OUT_OF_ACTION, cu, dw] += p
            return
        if wnd > 0:
            wnd -= 1
            if wnd > 0:
                continue
        if k == n_wounds - 1:
            for result in (KNOCKED_DOWN, STUNNED, OUT_OF_ACTION):
                cells[wnd, max(worst, result), cu, dw] += p * injury[result]
            return
        cells[wnd, OUT_OF_ACTION, cu, dw] += p * injury[OUT_OF_ACTION]
        for result in (KNOCKED_DOWN, STUNNED):  # the second wound rolls again (n_wounds 2)
            w2 = max(worst, result)
            for last in (KNOCKED_DOWN, STUNNED, OUT_OF_ACTION):
                cells[wnd, max(w2, last), cu, dw + 1] += p * injury[result] * injury[last]
        return
    cells[wnd, worst, cu, dw] += p


@njit(cache=True)
def _hurt(cells, cu, wnd, worst, dw, n_wounds, injury, was_down, p, kept):
    """:func:`_take` after the target's special save against each of the ``n_wounds`` (1 or
    2): ``kept`` is the chance that one wound is not saved."""
    if kept == 1.0:
        _take(cells, cu, wnd, worst, dw, n_wounds, injury, was_down, p)
        return
    saved = 1.0 - kept
    if n_wounds == 2:
        cells[wnd, worst, cu, dw] += p * saved * saved
        _take(cells, cu, wnd, worst, dw, 1, injury, was_down, p * 2 * saved * kept)
        _take(cells, cu, wnd, worst, dw, 2, injury, was_down, p * kept * kept)
    else:
        cells[wnd, worst, cu, dw] += p * saved
        _take(cells, cu, wnd, worst, dw, 1, injury, was_down, p * kept)


@njit(cache=True)
def _wound(plan, r, row, x, y, h0, h1, p, buf, p_buf, m):
    """x's h0 main-hand and h1 off-hand hits on y (kernel ``_wound``, R1-7 ... R1-9): to
    wound, criticals, armour and special saves, injuries (the highest kept) and the helmet."""
    n = len(plan.side)
    was_down = row[ST * n + y] == KNOCKED_DOWN
    cu0 = row[CU * n + x]
    top = h0 + h1 + 2
    cells = np.zeros((plan.wounds[y] + 1, 4, 2, top))
    cells[row[WN * n + y], 0, cu0, 0] = 1.0
    for k in range(h0 + h1):
        hand = 0 if k < h0 else 1
        s = plan.hit_strength[r, x, hand]
        need = plan.wound_need[r, x, hand, y]
        if need == 7:
            continue
        needed = max(2, plan.save[y] + plan.save_by_strength[s - 1] - plan.save_modifier[x, hand])
        unsaved = 1.0 if needed > 6 else (needed - 1) / 6
        kept = 1.0 if plan.special_save[y] > 6 else (plan.special_save[y] - 1) / 6
        face = plan.wound_faces[r, x, need]  # the odds of each final face, after any re-roll
        miss = face[1:need].sum()
        vital, exposed, master = (plan.critical_chart[x, 0], plan.critical_chart[x, 1],
                                  plan.critical_chart[x, 2])
        normal_injury = _injury(plan.injury_modifier[x], plan.concussion[x, hand])
        master_injury = _injury(2 + plan.injury_modifier[x], plan.concussion[x, hand])
        nxt = np.zeros_like(cells)
        for wnd in range(cells.shape[0]):
            for worst in range(4):
                for cu in range(2):
                    for dw in range(top):
                        q = cells[wnd, worst, cu, dw]
                        if q == 0:
                            continue
                        if worst == OUT_OF_ACTION:
                            nxt[wnd, worst, cu, dw] += q
                            continue
                        low = 7  # the lowest face that is a critical
                        if cu == 0 and need < 6:
                            low = max(need, plan.crit_on[x, hand])
                        normal = face[need:low].sum()
                        nxt[wnd, worst, cu, dw] += q * (miss + normal * (1 - unsaved))
                        _hurt(nxt, cu, wnd, worst, dw, 1, normal_injury, was_down,
                              q * normal * unsaved, kept)
                        if low < 7:  # R1-7 chart: vital part, exposed spot, master strike
                            c = q * face[low:].sum()
                            nxt[wnd, worst, 1, dw] += c * vital * (1 - unsaved)
                            _hurt(nxt, 1, wnd, worst, dw, 2, normal_injury, was_down,
                                  c * vital * unsaved, kept)
                            _hurt(nxt, 1, wnd, worst, dw, 2, normal_injury, was_down,
                                  c * exposed, kept)
                            _hurt(nxt, 1, wnd, worst, dw, 2, master_injury, was_down,
                                  c * master, kept)
        cells = nxt
    sy = plan.side[y]
    helmet = (7 - plan.avoid_stun[y]) / 6 if plan.avoid_stun[y] <= 6 else 0.0
    for wnd in range(cells.shape[0]):
        for worst in range(4):
            for cu in range(2):
                for dw in range(top):
                    q = cells[wnd, worst, cu, dw]
                    if q == 0:
                        continue
                    new = row.copy()
                    new[WN * n + y] = wnd
                    new[CU * n + x] = cu
                    new[_counter(n, WOUNDS, sy)] += dw
                    new[_counter(n, CRITS, plan.side[x])] += cu - cu0
                    if worst == STUNNED and helmet > 0:
                        down = new.copy()
                        _injured(plan, down, n, y, sy, KNOCKED_DOWN)
                        buf, p_buf, m = _emit(buf, p_buf, m, down, p * q * helmet)
                        q *= 1 - helmet
                    _injured(plan, new, n, y, sy, worst)
                    buf, p_buf, m = _emit(buf, p_buf, m, new, p * q)
    return buf, p_buf, m


@njit(cache=True)
def _injured(plan, row, n, y, sy, worst):
    if worst == OUT_OF_ACTION:
        _retire(row, n, y, OUT_OF_ACTION)
    elif worst > 0:
        row[ST * n + y] = max(row[ST * n + y], worst)
        if plan.frenzied[y] == 1:  # only a frenzied warrior's state changes: no new states
            row[CA * n + y] = 1
        row[_counter(n, KD if worst == KNOCKED_DOWN else STUN, sy)] += 1


# --- All Alone (R1-11) and the end of the round (R1-12) ---------------------------------------

@njit(cache=True)
def _all_alone_step(plan, rows, probs, r, active):
    n = len(plan.side)
    buf, p_buf = _buffer(rows.shape[1], 2 * len(probs))
    m = 0
    for q in range(len(probs)):
        if not _tests(plan, rows[q], active):
            buf, p_buf, m = _emit(buf, p_buf, m, rows[q], probs[q])
            continue
        cur, cur_p = _buffer(rows.shape[1], 4)
        cur[0], cur_p[0], k = rows[q], probs[q], 1
        for x in range(n):
            nxt, nxt_p = _buffer(rows.shape[1], 2 * k)
            kept = 0
            for c in range(k):
                row = cur[c]
                fail = _all_alone_fails(plan, row, x, active)
                if fail == 0:
                    nxt, nxt_p, kept = _emit(nxt, nxt_p, kept, row, cur_p[c])
                    continue
                if fail < 1:
                    nxt, nxt_p, kept = _emit(nxt, nxt_p, kept, row, cur_p[c] * (1 - fail))
                hit, hit_p = _buffer(rows.shape[1], 4)
                hit[0], hit_p[0], h = row, cur_p[c] * fail, 1
                for j in range(n):
                    more, more_p = _buffer(rows.shape[1], 4 * h)
                    g = 0
                    for e in range(h):
                        if (plan.contact[x, j] == 1 and hit[e, ST * n + j] == STANDING
                                and hit[e, ST * n + x] <= STUNNED):
                            more, more_p, g = _wound(plan, r, hit[e].copy(), j, x, 1, 0,
                                                     hit_p[e], more, more_p, g)
                        else:
                            more, more_p, g = _emit(more, more_p, g, hit[e], hit_p[e])
                    hit, hit_p, h = more, more_p, g
                for e in range(h):
                    if hit[e, ST * n + x] <= STUNNED:
                        _retire(hit[e], n, x, GONE)
                    nxt, nxt_p, kept = _emit(nxt, nxt_p, kept, hit[e], hit_p[e])
            cur, cur_p, k = nxt, nxt_p, kept
        for c in range(k):
            buf, p_buf, m = _emit(buf, p_buf, m, cur[c], cur_p[c])
    return buf[:m], p_buf[:m]


@njit(cache=True)
def _tests(plan, row, active):
    """Some warrior of the state tests All Alone (a failure, and its hits, come only after
    a test)."""
    if not (_present(plan, row, 0) and _present(plan, row, 1)):
        return False
    for x in range(len(plan.side)):
        if _all_alone_fails(plan, row, x, active) > 0:
            return True
    return False


@njit(cache=True)
def _any_tests(plan, rows, active):
    for q in range(len(rows)):
        if _tests(plan, rows[q], active):
            return True
    return False


@njit(cache=True)
def _all_alone_fails(plan, row, x, active):
    """P(x tests All Alone and fails): 0 when he does not test."""
    n = len(plan.side)
    if plan.side[x] != active or row[ST * n + x] != STANDING:
        return 0.0
    if plan.steady[x] == 1 or (plan.frenzied[x] == 1 and row[CA * n + x] == 0):
        return 0.0  # immune: Immune to Psychology, or frenzied
    for j in range(n):
        if j != x and plan.side[j] == active and row[ST * n + j] == STANDING:
            return 0.0
    foes = 0
    for j in range(n):
        if plan.contact[x, j] == 1 and row[ST * n + j] == STANDING:
            foes += 1
    if foes < 2:
        return 0.0
    return _above_2d6(plan.leadership[x])
