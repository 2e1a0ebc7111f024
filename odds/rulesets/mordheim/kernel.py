"""The Mordheim numba kernel: whole close combats of individual warriors, one die at a time.

Every blow is a real D6 (parries compare against the highest to-hit roll, criticals need the
natural roll, injuries keep the highest roll). Semantics: README.md beside this file; checked
against tests/naive_mordheim.py. Its parts are compiled each on its own and inlined by LLVM
(``forceinline``), not by numba's IR inliner, which took three quarters of its compile
time.
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
    NONE,
    UNRESOLVED,
)
from odds.core.rng import d6, next_u64, seed_stream, two_d6

BLOCK = 256  # trials per parallel work item
STANDING, KNOCKED_DOWN, STUNNED, OUT_OF_ACTION, GONE = 0, 1, 2, 3, 4  # GONE: fled (R1-11)
AUTO = 7  # the "roll" of an automatic hit: above any parry die (R1-5)
LOST, WOUNDS, KD, STUN, PARRIES, CRITS = 3, 5, 7, 9, 11, 13  # outcome columns (+ side)


@njit(cache=True, _nrt=False, forceinline=True)
def _present(plan, status, s):
    """Side s still has a warrior standing, knocked down or stunned."""
    for i in range(status.shape[0]):
        if plan.side[i] == s and status[i] <= STUNNED:
            return True
    return False


@njit(cache=True, _nrt=False, forceinline=True)
def _injury(st, concussion, bonus):
    """One Injury roll plus ``bonus`` (R1-9): 1 knocked down, 2 stunned, 3 out of action."""
    roll = d6(st) + bonus
    if roll >= 5:
        return OUT_OF_ACTION
    if roll >= 3 or (concussion == 1 and roll == 2):
        return STUNNED
    return KNOCKED_DOWN


@njit(cache=True, _nrt=False, forceinline=True)
def _again_below(reroll, need):
    """A die showing less than this is re-rolled: never (code 0), a 1 (code 1), a failure
    to roll ``need`` (code 2)."""
    return need if reroll == 2 else reroll + 1


@njit(cache=True, _nrt=False, forceinline=True)
def _wound(plan, st, r, status, wnd, crit_used, calm, x, y, hand, roll_n, out, t):
    """Roll to wound, criticals, saves and injuries for x's hits on y (R1-7 ... R1-9).

    ``hand[:roll_n]`` are the hands of the hits; injuries keep the highest result. A
    knocked-down or stunned result calms a frenzied warrior for the rest of the fight.
    """
    was_down = status[y] == KNOCKED_DOWN
    worst = 0
    sx, sy = plan.side[x], plan.side[y]
    reroll, special = plan.reroll_wound[r, x], plan.special_save[y]
    for k in range(roll_n):
        h = hand[k]
        s = plan.hit_strength[r, x, h]
        need = plan.wound_need[r, x, h, y]
        if need == 7:
            continue
        roll = d6(st)
        if roll < _again_below(reroll, need):
            roll = d6(st)
        if roll < need:
            continue
        n_wounds, save, master = 1, True, 0
        if roll >= plan.crit_on[x, h] and need < 6 and crit_used[x] == 0:
            crit_used[x] = 1
            out[CRITS + sx, t] += 1
            chart = d6(st) + plan.critical_modifier[x]
            n_wounds, save, master = 2, chart <= 2, 1 if chart >= 5 else 0
        if save:
            needed = max(2, plan.save[y] + plan.save_by_strength[s - 1] - plan.save_modifier[x, h])
            if needed <= 6 and d6(st) >= needed:
                continue
        if special <= 6:  # Step Aside: a save against each wound
            kept = 0
            for _ in range(n_wounds):
                if d6(st) < special:
                    kept += 1
            n_wounds = kept
        for _ in range(n_wounds):
            out[WOUNDS + sy, t] += 1
            if was_down:
                worst = OUT_OF_ACTION
                break
            if wnd[y] > 0:
                wnd[y] -= 1
                if wnd[y] > 0:
                    continue
            worst = max(worst, _injury(st, plan.concussion[x, h],
                                       2 * master + plan.injury_modifier[x]))
            if worst == OUT_OF_ACTION:
                break
        if worst == OUT_OF_ACTION:
            break
    if worst == STUNNED and plan.avoid_stun[y] <= 6 and d6(st) >= plan.avoid_stun[y]:
        worst = KNOCKED_DOWN
    if worst == OUT_OF_ACTION:
        status[y] = OUT_OF_ACTION
        out[LOST + sy, t] += 1
    elif worst > 0:
        status[y] = max(status[y], worst)
        calm[y] = 1
        out[(KD if worst == KNOCKED_DOWN else STUN) + sy, t] += 1


@njit(cache=True, _nrt=False, forceinline=True)
def _strike(plan, st, r, status, wnd, pistol, parry_used, crit_used, calm, fear, x, hand,
            rolls, out, t):
    """Warrior x strikes (R1-3 ... R1-9): at the first standing enemy he touches, else he
    takes a stunned one out of action, else he hits a knocked-down one automatically."""
    n = status.shape[0]
    y, stunned, down = -1, -1, -1
    for j in range(n):
        if plan.contact[x, j] == 1:
            if status[j] == STANDING:
                y = j
                break
            if status[j] == STUNNED and stunned < 0:
                stunned = j
            if status[j] == KNOCKED_DOWN and down < 0:
                down = j
    if y < 0:
        if stunned >= 0:
            status[stunned] = OUT_OF_ACTION
            out[LOST + plan.side[stunned], t] += 1
            return
        if down < 0:
            return
        y = down
    blows = 0
    for _ in range(plan.fury_blows[x] if calm[x] == 0 else plan.blows[x]):
        hand[blows] = 0
        blows += 1
    if plan.hands[x] == 2:
        if plan.once[x, 1] == 0 or pistol[x] == 0:
            hand[blows] = 1
            blows += 1
        if plan.once[x, 1] == 1:
            pistol[x] = 1
    hits = 0
    if status[y] == KNOCKED_DOWN:
        hits = blows
    else:
        need = plan.to_hit[plan.ws[x] - 1, plan.ws[y] - 1]
        if fear[x] == 1 and r == 0:
            need = 6
        again = _again_below(plan.reroll_hit[r, x], need)
        for k in range(blows):
            roll = d6(st)
            if roll < again:
                roll = d6(st)
            if roll >= need:
                hand[hits] = hand[k]
                rolls[hits] = roll
                hits += 1
        if hits > 0 and plan.parry_items[y] > 0 and parry_used[y] == 0:  # R1-5
            parry_used[y] = 1
            best, kb = 0, 0
            for k in range(hits):
                if rolls[k] > best:
                    best, kb = rolls[k], k
            if best < 6 and plan.hit_strength[r, x, hand[kb]] < 2 * plan.strength[y]:
                parried = d6(st) > best
                if not parried and plan.parry_items[y] >= 2:
                    parried = d6(st) > best
                if parried:
                    for k in range(kb, hits - 1):
                        hand[k] = hand[k + 1]
                        rolls[k] = rolls[k + 1]
                    hits -= 1
                    out[PARRIES + plan.side[y], t] += 1
    _wound(plan, st, r, status, wnd, crit_used, calm, x, y, hand, hits, out, t)


@njit(cache=True, _nrt=False, forceinline=True)
def _all_alone(plan, st, r, status, wnd, crit_used, calm, active, hand, out, t):
    """R1-11: a lone standing warrior of the active side touching 2+ standing enemies tests Ld
    (unless immune: Immune to Psychology, or frenzied); on a failure each of them hits him once
    automatically, and if he survives he flees."""
    n = status.shape[0]
    for x in range(n):
        if plan.side[x] != active or status[x] != STANDING:
            continue
        if plan.steady[x] == 1 or (plan.frenzied[x] == 1 and calm[x] == 0):
            continue
        alone = True
        for j in range(n):
            if j != x and plan.side[j] == active and status[j] == STANDING:
                alone = False
        if not alone:
            continue
        foes = 0
        for j in range(n):
            if plan.contact[x, j] == 1 and status[j] == STANDING:
                foes += 1
        if foes < 2 or two_d6(st) <= plan.leadership[x]:
            continue
        for j in range(n):
            if plan.contact[x, j] == 1 and status[j] == STANDING and status[x] <= STUNNED:
                hand[0] = 0
                _wound(plan, st, r, status, wnd, crit_used, calm, j, x, hand, 1, out, t)
        if status[x] <= STUNNED:
            status[x] = GONE


@njit(cache=True, _nrt=False, forceinline=True)
def play_fight(plan, st, status, wnd, stood, pistol, parry_used, crit_used, calm, fear, key,
               order, hand, rolls, out, t):
    """Play one fight (R1-12) and write its outcome row into out[:, t]."""
    n = status.shape[0]
    for i in range(n):
        status[i], wnd[i], pistol[i], fear[i], calm[i] = STANDING, plan.wounds[i], 0, 0, 0
    winner, end, rounds = NONE, UNRESOLVED, 0
    while rounds < plan.max_rounds:
        rounds += 1
        r = 0 if rounds == 1 else 1
        active = plan.charger if rounds & 1 else 1 - plan.charger
        for i in range(n):
            stood[i], parry_used[i], crit_used[i] = 0, 0, 0
            if plan.side[i] == active and r == 1:  # R1-9 recovery
                if status[i] == KNOCKED_DOWN:
                    status[i], stood[i] = STANDING, 1
                elif status[i] == STUNNED:
                    status[i] = KNOCKED_DOWN
        if r == 0:  # R1-6
            for i in range(n):
                if plan.side[i] != plan.charger and plan.tests_fear[i] == 1:
                    feared = False
                    for j in range(n):
                        if plan.contact[i, j] == 1 and plan.causes_fear[j] == 1:
                            feared = True
                    if feared and two_d6(st) > plan.leadership[i]:
                        fear[i] = 1
        # R1-2: tier, then Initiative, then a random roll-off, packed in one sort key
        m = 0
        for i in range(n):
            if status[i] != STANDING:
                continue
            touching = False
            for j in range(n):
                if plan.contact[i, j] == 1 and status[j] <= STUNNED:
                    touching = True
            if not touching:
                continue
            tier = 3 if stood[i] == 1 else plan.tier_first[r, i]
            key[m] = ((tier * 16 + 15 - plan.initiative[i]) << 32) | np.int64(
                next_u64(st) >> np.uint64(33))
            order[m] = i
            m += 1
        for a in range(1, m):  # insertion sort of the strikers by key
            k, o = key[a], order[a]
            b = a - 1
            while b >= 0 and key[b] > k:
                key[b + 1], order[b + 1] = key[b], order[b]
                b -= 1
            key[b + 1], order[b + 1] = k, o
        for a in range(m):
            x = order[a]
            if status[x] == STANDING:
                _strike(plan, st, r, status, wnd, pistol, parry_used, crit_used, calm, fear,
                        x, hand, rolls, out, t)
            if not _present(plan, status, 0) or not _present(plan, status, 1):
                break
        if plan.all_alone and _present(plan, status, 0) and _present(plan, status, 1):
            _all_alone(plan, st, r, status, wnd, crit_used, calm, active, hand, out, t)
        left0, left1 = _present(plan, status, 0), _present(plan, status, 1)
        if not left0 and not left1:
            end = MUTUAL
            break
        if not left0 or not left1:
            loser = 0 if not left0 else 1
            winner = DEFENDER if loser == 0 else ATTACKER
            end = DESTROYED
            for i in range(n):
                if plan.side[i] == loser and status[i] == GONE:
                    end = FLED
            break
    out[0, t] = winner
    out[1, t] = end
    out[2, t] = rounds


@njit(cache=True, inline="always")
def _play_block(plan, seed, first_trial, out, b):
    """Play the trials of block b (BLOCK of them) into out, with working arrays of its own."""
    n_trials = out.shape[1]
    n = plan.side.shape[0]
    most = 2
    for i in range(n):
        most = max(most, plan.fury_blows[i] + 1)
    st = np.empty(4, np.uint64)
    status = np.zeros(n, np.int64)
    wnd = np.zeros(n, np.int64)
    stood = np.zeros(n, np.int64)
    pistol = np.zeros(n, np.int64)
    parry_used = np.zeros(n, np.int64)
    crit_used = np.zeros(n, np.int64)
    calm = np.zeros(n, np.int64)
    fear = np.zeros(n, np.int64)
    key = np.zeros(n, np.int64)
    order = np.zeros(n, np.int64)
    hand = np.zeros(most, np.int64)
    rolls = np.zeros(most, np.int64)
    for t in range(b * BLOCK, min(n_trials, (b + 1) * BLOCK)):
        out[:, t] = 0
        seed_stream(st, seed, first_trial + t)
        play_fight(plan, st, status, wnd, stood, pistol, parry_used, crit_used, calm, fear,
                   key, order, hand, rolls, out, t)


@njit(cache=True, parallel=True)
def _play(plan, seed, first_trial, out):
    for b in prange((out.shape[1] + BLOCK - 1) // BLOCK):
        _play_block(plan, seed, first_trial, out, b)


def play_chunk(plan, seed, first_trial, out):
    """Play trials first_trial .. first_trial + out.shape[1] - 1 into out (15, n)."""
    _play(plan, seed, first_trial, out)
