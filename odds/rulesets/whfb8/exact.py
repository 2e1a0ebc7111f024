"""The whfb8 exact solver (:mod:`odds.core.exact`): the kernel's fight, computed instead of
sampled, from the same plan and binomial tables.

A fight between rounds is the wounds each side has left and whether each is still Frenzied
(R2-7): ``left = models * W - wounds on the wounded model``, so the models and the wounded
model's damage follow from ``left``, and the wounds a side caused in a round are what its
enemy lost. Fear is tested afresh every round, so its four outcomes are branches of a round,
not part of the state. Within a round each strike step (R2-6) turns the distribution of
(wounds lost by each side) into the next: the two sides' losses in one step are independent
given the step's start, each the convolution of its striking parts' unsaved wounds, folded at
the wounds the enemy has left. The combat result, break test and pursuit (R2-11 ... R2-13)
then weigh each end of the round by the probabilities of their 2D6 (or Swiftstride) rolls.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from odds.core.exact import binomial_pmf, check_states, dice_sum, drop_lowest, p_ge, p_gt
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
from odds.rulesets.whfb8.compile import FIGHTING, FIRST, LATER, SUPPORTING
from odds.rulesets.whfb8.kernel import _in_contact, _ranks, _score, _supporters

TWO_D6 = dice_sum(2)
SWIFT = drop_lowest(3)  # Swiftstride: 3D6, the lowest dropped (R2-13)
N_ENDS = 6


class Sides(NamedTuple):
    """The plan's per-side numbers as pairs (and its scalars), for the kernel's formation
    helpers and the walk: numba passes tuples without counting references to arrays, which
    would cost more than the helpers themselves."""

    count: tuple
    width: tuple
    wounds: tuple
    leadership: tuple
    attacks: tuple
    mount_attacks: tuple
    champion: tuple
    frenzy: tuple
    support_ranks: tuple
    horde_files: tuple
    supports: tuple
    in_contact: tuple
    bonus: tuple
    musician: tuple
    stubborn: tuple
    unbreakable: tuple
    reroll_break: tuple
    tests_fear: tuple
    face: int
    charger: int
    pursue: int
    max_rounds: int


def sides(plan) -> Sides:
    return Sides(*(tuple(int(v) for v in x) if isinstance(x, np.ndarray) else int(x)
                   for x in (getattr(plan, name) for name in Sides._fields)))


def covers(scenario) -> str | None:
    """Every whfb8 fight: one unit a side, with every rule the kernel plays."""
    return None


def solve(plan, max_states: int):
    """Every distinct outcome row of the fight, its probability and the most live states."""
    if plan.flee_reaction:
        return _flee_reaction(plan)
    moves = [SWIFT if plan.swiftstride[s] else TWO_D6 for s in range(2)]
    fails_ld = np.array([p_gt(TWO_D6, plan.leadership[s]) for s in range(2)])
    catch = np.array([_p_catch(moves[1 - s], moves[s]) for s in range(2)])  # by the loser
    keys, probs, live = _walk(sides(plan), plan.striker_side, plan.striker_part,
                              plan.p_unsaved, plan.cdf, plan.cdf_offset, plan.cdf_top,
                              fails_ld, catch, np.cumsum(TWO_D6), max_states)
    for r, states in enumerate(live):
        check_states(int(states), max_states, r)
    order = np.argsort(keys)
    return _rows(plan, keys[order]), probs[order], int(live.max())


def _p_catch(pursuit: np.ndarray, flee: np.ndarray) -> float:
    """P(pursuit roll >= flee roll), the rolls independent (R2-13)."""
    return sum(flee[f] * p_ge(pursuit, f) for f in range(len(flee)))


def _flee_reaction(plan):
    """R2-2: the charged unit flees; the charger's M + roll reaches it, or no fight."""
    charger, charged = plan.charger, 1 - plan.charger
    flee = SWIFT if plan.swiftstride[charged] else TWO_D6
    move = SWIFT if plan.swiftstride[charger] else TWO_D6
    caught = sum(flee[f] * p_ge(move, plan.charge_distance + f - plan.movement[charger])
                 for f in range(len(flee)))
    lost = np.zeros(2, np.int64)
    lost[charged] = plan.count[charged]
    winner = ATTACKER if charger == 0 else DEFENDER
    rows = np.array([[winner, CAUGHT, 0, lost[0], lost[1], 0, 0],
                     [NONE, NO_FIGHT, 0, 0, 0, 0, 0]], np.int64).T
    probs = np.array([caught, 1.0 - caught])
    keep = probs > 0
    return rows[:, keep], probs[keep], 1


def _rows(plan, keys: np.ndarray) -> np.ndarray:
    """Outcome rows (7 x m) from end keys (:func:`_end_key`), as the kernel writes them."""
    left_max = plan.count * plan.wounds
    rest, left1 = np.divmod(keys, left_max[1] + 1)
    rest, left0 = np.divmod(rest, left_max[0] + 1)
    rest, rounds = np.divmod(rest, plan.max_rounds + 1)
    winner, end = np.divmod(rest, N_ENDS)
    rows = np.zeros((7, len(keys)), np.int64)
    rows[0], rows[1], rows[2] = winner, end, rounds
    for s, left in enumerate((left0, left1)):
        models = (left + plan.wounds[s] - 1) // plan.wounds[s]
        caught = (end == CAUGHT) & (winner == (DEFENDER if s == 0 else ATTACKER))
        rows[3 + s] = np.where(caught, plan.count[s], plan.count[s] - models)
        rows[5 + s] = left_max[s] - left
    return rows


# --- keys -----------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def _state_key(left0, left1, frenzied, radix1):
    """A live fight: wounds left per side and Frenzy per side."""
    return ((left0 * radix1 + left1) * 2 + frenzied[0]) * 2 + frenzied[1]


@njit(cache=True, inline="always")
def _end_key(sd, winner, end, rounds, left0, left1):
    """An ended fight: winner, end, rounds and wounds left per side (the outcome row)."""
    key = (winner * N_ENDS + end) * (sd.max_rounds + 1) + rounds
    return ((key * (sd.count[0] * sd.wounds[0] + 1) + left0)
            * (sd.count[1] * sd.wounds[1] + 1) + left1)


# --- a hash table of masses keyed by int64, merging equal states ------------------------

@njit(cache=True)
def _table(size, width):
    """An empty table: keys (-1 empty), masses (size x width), keys in use."""
    return np.full(size, -1, np.int64), np.zeros((size, width)), np.zeros(1, np.int64)


@njit(cache=True, inline="always")
def _slot(keys, key):
    """Where ``key`` is, or the empty slot it goes to (open addressing, linear probing)."""
    mask = len(keys) - 1
    h = key * 0x5851F42D4C957F2D
    h = (h ^ (h >> 29)) & mask
    while keys[h] != key and keys[h] >= 0:
        h = (h + 1) & mask
    return h


@njit(cache=True, inline="always")
def _put(keys, masses, used, key, column, mass):
    """Add ``mass`` to ``key``'s entry; the table must have room (:func:`_room`)."""
    if mass != 0.0:
        h = _slot(keys, key)
        if keys[h] < 0:
            keys[h] = key
            used[0] += 1
        masses[h, column] += mass


@njit(cache=True)
def _room(keys, masses, used, more):
    """The table, grown to hold ``more`` new keys at most half full."""
    size = len(keys)
    while 2 * (used[0] + more) > size:
        size *= 2
    if size == len(keys):
        return keys, masses
    grown_keys, grown_masses, _ = _table(size, masses.shape[1])
    for i in range(len(keys)):
        if keys[i] >= 0:
            g = _slot(grown_keys, keys[i])
            grown_keys[g] = keys[i]
            grown_masses[g] = masses[i]
    return grown_keys, grown_masses


@njit(cache=True)
def _entries(keys, masses, used):
    """The keys in use and their first column of masses."""
    out_keys = np.empty(used[0], np.int64)
    out_masses = np.empty(used[0])
    m = 0
    for i in range(len(keys)):
        if keys[i] >= 0:
            out_keys[m] = keys[i]
            out_masses[m] = masses[i, 0]
            m += 1
    return out_keys, out_masses


@njit(cache=True)
def _append(keys, masses, m, key, mass):
    """Append to growing output arrays holding m entries; returns them."""
    if m == len(keys):
        keys = np.concatenate((keys, np.empty(len(keys), np.int64)))
        masses = np.concatenate((masses, np.empty(len(masses))))
    keys[m] = key
    masses[m] = mass
    return keys, masses


# --- one round ------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def _models(sd, left, s):
    return (left + sd.wounds[s] - 1) // sd.wounds[s]


@njit(cache=True, inline="always")
def _part_attacks(sd, n, frenzied, s, part, contact):
    """Attacks of side s's striking part, as the kernel's _fight_round counts them (R2-4,
    R2-5): fighting models (+ Frenzy, + a champion's 1 A), supporters, or mounts."""
    if part == FIGHTING:
        return contact * (sd.attacks[s] + frenzied[s]) + min(contact, sd.champion[s])
    if part == SUPPORTING:
        return _supporters(sd, n, s, contact)
    return contact * sd.mount_attacks[s]


@njit(cache=True, inline="always")
def _step_attacks(sd, striker_side, striker_part, n, frenzied, k, s):
    """All attacks side s strikes at step k with n models standing."""
    contact = _in_contact(sd, n, s)
    total = 0
    for j in range(striker_side.shape[1]):
        if striker_side[k, j] < 0:
            break
        if striker_side[k, j] == s:
            total += _part_attacks(sd, n, frenzied, s, striker_part[k, j], contact)
    return total


@njit(cache=True, inline="always")
def _round_attacks(sd, striker_side, striker_part, n, frenzied, s):
    """All attacks side s strikes in a round if nobody fell: the most wounds it can cause,
    since casualties only ever take attacks away (R2-3 ... R2-6)."""
    total = 0
    for k in range(striker_side.shape[0]):
        total += _step_attacks(sd, striker_side, striker_part, n, frenzied, k, s)
    return total


@njit(cache=True)
def _losses(sd, striker_side, striker_part, p_unsaved, cdf, cdf_offset, cdf_top, n, frenzied,
            afraid, r, k, s, last, pmf, tail, scratch, conv):
    """P(side s's parts striking at step k cause u unsaved wounds) into ``pmf[s]`` and
    P(at least u) into ``tail[s]``, u = 0 .. (returned top): each part's Binomial from the
    kernel's table, convolved (R2-8, R2-9). ``last[s]`` remembers the attacks and dice the
    buffers hold, so equal strikes are not convolved again."""
    t = 1 - s
    contact = _in_contact(sd, n, s)
    fighting, supporting, mounts = 0, 0, 0
    for j in range(striker_side.shape[1]):
        if striker_side[k, j] < 0:
            break
        if striker_side[k, j] == s:
            part = striker_part[k, j]
            a = _part_attacks(sd, n, frenzied, s, part, contact)
            if part == FIGHTING:
                fighting = a
            elif part == SUPPORTING:
                supporting = a
            else:
                mounts = a
    dice = (r, afraid[s], afraid[t], frenzied[t], fighting, supporting, mounts)
    same = True
    for i in range(7):
        same = same and last[s, 1 + i] == dice[i]
    if same:
        return last[s, 0]
    pmf[s, 0] = 1.0
    top = 0
    for part in range(3):
        a = dice[4 + part]
        if a == 0:
            continue
        if a <= cdf_top[r, afraid[s], afraid[t], frenzied[t], s, part]:
            row = cdf_offset[r, afraid[s], afraid[t], frenzied[t], s, part] + ((a * (a + 1)) >> 1)
            scratch[0] = cdf[row]
            for u in range(1, a + 1):
                scratch[u] = cdf[row + u] - cdf[row + u - 1]
        else:  # the kernel draws past its table one uniform per attack: the same Binomial
            binomial = binomial_pmf(a, p_unsaved[r, afraid[s], afraid[t], frenzied[t], s, part])
            for u in range(a + 1):
                scratch[u] = binomial[u]
        for x in range(top + a + 1):
            conv[x] = 0.0
        for x in range(top + 1):
            if pmf[s, x] != 0.0:
                for u in range(a + 1):
                    conv[x + u] += pmf[s, x] * scratch[u]
        top += a
        for x in range(top + 1):
            pmf[s, x] = conv[x]
    tail[s, top] = pmf[s, top]
    for u in range(top - 1, -1, -1):
        tail[s, u] = tail[s, u + 1] + pmf[s, u]
    last[s, 0] = top
    for i in range(7):
        last[s, 1 + i] = dice[i]
    return top


@njit(cache=True, inline="always")
def _clear(window, last0, last1):
    for d0 in range(last0 + 1):
        for d1 in range(last1 + 1):
            window[d0, d1] = 0.0


@njit(cache=True, inline="always")
def _hold(cum_two, target):
    """P(break test held): 2D6 <= target, or a double 1 (Insane Courage, R2-12)."""
    if target < 2:
        return 1.0 / 36.0
    return cum_two[min(target, 12)]


@njit(cache=True)
def _strikes(sd, striker_side, striker_part, p_unsaved, cdf, cdf_offset, cdf_top, fails_ld, r,
             frenzied, most0, most1, lost, cur, nxt, models, last, pmf, tail, scratch, conv):
    """P(side 0 loses d0 wounds and side 1 d1 this round) into ``lost``, d <= most: each
    Fear outcome (R2-7), then the strike steps in order (R2-6), each from the models standing
    at its start; the fight stops when a side is wiped out."""
    _clear(lost, most0, most1)
    for branch in range(4):
        afraid = (branch >> 1, branch & 1)
        p = 1.0
        for s in range(2):  # R2-7: Fear tested at the start of the round
            fear = fails_ld[s] if sd.tests_fear[s] > 0 and frenzied[s] == 0 else 0.0
            p *= fear if afraid[s] else 1.0 - fear
        if p == 0.0:
            continue
        cur[0, 0] = p
        ext0, ext1 = 0, 0  # the wounds lost so far are at most these
        for k in range(striker_side.shape[0]):
            final = k == striker_side.shape[0] - 1
            out = lost if final else nxt
            start = (models[0, 0], models[1, 0])
            new0 = min(most0, ext0 + _step_attacks(sd, striker_side, striker_part, start,
                                                    frenzied, k, 1))
            new1 = min(most1, ext1 + _step_attacks(sd, striker_side, striker_part, start,
                                                    frenzied, k, 0))
            if not final:
                _clear(nxt, new0, new1)
            for d0 in range(ext0 + 1):
                for d1 in range(ext1 + 1):
                    q = cur[d0, d1]
                    if q == 0.0:
                        continue
                    cur[d0, d1] = 0.0
                    n = (models[0, d0], models[1, d1])
                    if n[0] == 0 or n[1] == 0:  # the fight stops at once
                        out[d0, d1] += q
                        continue
                    top0 = _losses(sd, striker_side, striker_part, p_unsaved, cdf, cdf_offset,
                                   cdf_top, n, frenzied, afraid, r, k, 0, last, pmf, tail,
                                   scratch, conv)
                    top1 = _losses(sd, striker_side, striker_part, p_unsaved, cdf, cdf_offset,
                                   cdf_top, n, frenzied, afraid, r, k, 1, last, pmf, tail,
                                   scratch, conv)
                    # the kernel clips the wounds at those the enemy has left; the window
                    # ends there or where the round can take no more
                    fold0, fold1 = min(top1, most0 - d0), min(top0, most1 - d1)
                    for u0 in range(fold0 + 1):
                        q0 = q * (pmf[1, u0] if u0 < fold0 else tail[1, u0])
                        if q0 == 0.0:
                            continue
                        for u1 in range(fold1):
                            out[d0 + u0, d1 + u1] += q0 * pmf[0, u1]
                        out[d0 + u0, d1 + fold1] += q0 * tail[0, fold1]
            ext0, ext1 = new0, new1
            cur, nxt = nxt, cur


@njit(cache=True)
def _walk(sd, striker_side, striker_part, p_unsaved, cdf, cdf_offset, cdf_top, fails_ld,
          catch, cum_two, max_states):
    """The whole walk: end keys and masses, and the live states after each round (index 0:
    the charge). Stops early once a round holds more than ``max_states``."""
    radix0, radix1 = sd.count[0] * sd.wounds[0] + 1, sd.count[1] * sd.wounds[1] + 1
    live = np.zeros(sd.max_rounds + 1, np.int64)
    live[0] = 1
    out_keys, out_masses, m = np.empty(1024, np.int64), np.empty(1024), 0
    front_keys = np.full(1, _state_key(radix0 - 1, radix1 - 1, sd.frenzy, radix1))
    front_masses = np.ones(1)
    # the largest round: casualties and the loss of Frenzy only take attacks away
    reach0 = _round_attacks(sd, striker_side, striker_part, sd.count, sd.frenzy, 0)
    reach1 = _round_attacks(sd, striker_side, striker_part, sd.count, sd.frenzy, 1)
    size0, size1 = min(reach1, radix0 - 1) + 1, min(reach0, radix1 - 1) + 1
    if size0 * size1 > max_states:  # one round from the charge holds that many fights
        live[1] = size0 * size1
        return out_keys[:0], out_masses[:0], live[:2]
    lost, cur, nxt = np.zeros((size0, size1)), np.zeros((size0, size1)), np.zeros((size0, size1))
    models = np.zeros((2, max(size0, size1)), np.int64)
    reach = max(reach0, reach1) + 1
    pmf, tail, last = np.zeros((2, reach)), np.zeros((2, reach)), np.full((2, 8), -1, np.int64)
    scratch, conv = np.zeros(reach), np.zeros(reach)
    rounds = 0
    while len(front_keys) > 0 and rounds < sd.max_rounds:
        rounds += 1
        r = FIRST if rounds == 1 else LATER
        next_k, next_m, next_used = _table(1024, 1)
        # the fights that end this round, by (winner, wounds left): destroyed or mutual
        # destruction in column 0 when a side has no model left, else caught, fled
        ends_k, ends_m, ends_used = _table(1024, 2)
        for i in range(len(front_keys)):
            key, mass = front_keys[i], front_masses[i]
            frenzied = ((key >> 1) & 1, key & 1)
            left0, left1 = (key >> 2) // radix1, (key >> 2) % radix1
            start = (_models(sd, left0, 0), _models(sd, left1, 1))
            most0 = min(_round_attacks(sd, striker_side, striker_part, start, frenzied, 1), left0)
            most1 = min(_round_attacks(sd, striker_side, striker_part, start, frenzied, 0), left1)
            for d in range(most0 + 1):
                models[0, d] = _models(sd, left0 - d, 0)
            for d in range(most1 + 1):
                models[1, d] = _models(sd, left1 - d, 1)
            _strikes(sd, striker_side, striker_part, p_unsaved, cdf, cdf_offset, cdf_top,
                     fails_ld, r, frenzied, most0, most1, lost, cur, nxt, models, last, pmf,
                     tail, scratch, conv)
            cells = (most0 + 1) * (most1 + 1)  # each ends or goes on
            next_k, next_m = _room(next_k, next_m, next_used, cells)
            ends_k, ends_m = _room(ends_k, ends_m, ends_used, cells)
            for d0 in range(most0 + 1):
                for d1 in range(most1 + 1):
                    q = lost[d0, d1] * mass
                    if q == 0.0:
                        continue
                    after0, after1 = left0 - d0, left1 - d1
                    n = (models[0, d0], models[1, d1])
                    if n[0] == 0 or n[1] == 0:
                        winner = NONE if n[0] == n[1] else (ATTACKER if n[1] == 0 else DEFENDER)
                        _put(ends_k, ends_m, ends_used, (winner * radix0 + after0) * radix1
                             + after1, 0, q)
                        continue
                    caused = (d1, d0)
                    diff = _score(sd, n, 0, caused, r) - _score(sd, n, 1, caused, r)
                    if diff == 0 and sd.musician[0] == sd.musician[1]:  # R2-11: a draw
                        _put(next_k, next_m, next_used,
                             _state_key(after0, after1, frenzied, radix1), 0, q)
                        continue
                    if diff == 0:  # a lone musician wins a drawn combat by 1
                        diff = 1 if sd.musician[0] else -1
                    loser = 1 if diff > 0 else 0
                    won = 1 - loser
                    # R2-7: a defeated unit loses Frenzy
                    after = (frenzied[0] * (loser != 0), frenzied[1] * (loser != 1))
                    stays = _state_key(after0, after1, after, radix1)
                    if sd.unbreakable[loser]:
                        _put(next_k, next_m, next_used, stays, 0, q)
                        continue
                    steadfast = sd.stubborn[loser] > 0 or _ranks(sd, n, loser) > _ranks(sd, n, won)
                    hold = _hold(cum_two, sd.leadership[loser] - (0 if steadfast else abs(diff)))
                    if sd.reroll_break[loser]:  # battle standard: re-roll a failed test
                        hold = 1.0 - (1.0 - hold) * (1.0 - hold)
                    _put(next_k, next_m, next_used, stays, 0, q * hold)
                    # R2-13: pursue (Frenzy must; restraining needs a Ld test), flee, Caught!
                    caught = catch[loser] * (1.0 if after[won] > 0 or sd.pursue else fails_ld[won])
                    broke = q * (1.0 - hold)
                    winner = ATTACKER if won == 0 else DEFENDER
                    here = (winner * radix0 + after0) * radix1 + after1
                    _put(ends_k, ends_m, ends_used, here, 0, broke * caught)
                    _put(ends_k, ends_m, ends_used, here, 1, broke * (1.0 - caught))
            if next_used[0] > max_states:
                live[rounds] = next_used[0]
                return out_keys[:0], out_masses[:0], live[:rounds + 1]
        for h in range(len(ends_k)):
            if ends_k[h] < 0:
                continue
            after1, rest = ends_k[h] % radix1, ends_k[h] // radix1
            after0, winner = rest % radix0, rest // radix0
            wiped = _models(sd, after0, 0) == 0 or _models(sd, after1, 1) == 0
            for column in range(2):
                if ends_m[h, column] == 0.0:
                    continue
                end = (MUTUAL if winner == NONE else DESTROYED) if wiped else (
                    CAUGHT if column == 0 else FLED)
                out_keys, out_masses = _append(out_keys, out_masses, m, _end_key(
                    sd, winner, end, rounds, after0, after1), ends_m[h, column])
                m += 1
        front_keys, front_masses = _entries(next_k, next_m, next_used)
        live[rounds] = len(front_keys)
    # still fighting after max_rounds: one row whatever Frenzy is left
    ends_k, ends_m, ends_used = _table(1024, 1)
    ends_k, ends_m = _room(ends_k, ends_m, ends_used, len(front_keys))
    for i in range(len(front_keys)):
        key = front_keys[i] >> 2
        _put(ends_k, ends_m, ends_used, _end_key(sd, NONE, UNRESOLVED, rounds, key // radix1,
                                                 key % radix1), 0, front_masses[i])
    keys, masses = _entries(ends_k, ends_m, ends_used)
    for i in range(len(keys)):
        out_keys, out_masses = _append(out_keys, out_masses, m, keys[i], masses[i])
        m += 1
    return out_keys[:m], out_masses[:m], live[:rounds + 1]
