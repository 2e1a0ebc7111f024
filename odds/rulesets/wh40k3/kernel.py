"""The wh40k3 numba kernel: plays whole close combats, one outcome row per fight.

The wounds of a striking part are one draw from the exact Binomial(attacks,
P(hit) * P(wound)) (independent dice make the count binomial); the unsaved ones are one more
binomial draw when they all fall on one kind of model, else one save roll per wound.
Semantics: README.md beside this file. Checked against tests/naive_wh40k3.py.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from odds.core.outcome import (ATTACKER, CAUGHT, DEFENDER, DESTROYED, FLED, MUTUAL, NO_FIGHT,
                               NONE, UNRESOLVED)
from odds.core.binomial import draw
from odds.core.rng import d6, seed_stream, two_d6, uniform
from odds.rulesets.wh40k3.compile import CONTACT, FIRST, LATER, OUT, REACH

BLOCK = 256  # trials per parallel work item


@njit(cache=True, inline="always")
def _place(plan, cnt, s, everyone_in_contact):
    """Put side s's models in contact / within 2" / beyond, in contact order (R0-2, R0-14)."""
    room_contact = plan.limits[s, 0]
    room_reach = plan.limits[s, 1]
    for j in range(plan.fill.shape[1]):
        g = plan.fill[s, j]
        if g < 0:
            break
        n = cnt[s, g, CONTACT] + cnt[s, g, REACH] + cnt[s, g, OUT]
        if everyone_in_contact:
            cnt[s, g, CONTACT], cnt[s, g, REACH], cnt[s, g, OUT] = n, 0, 0
            continue
        c = min(n, room_contact)
        room_contact -= c
        r = min(n - c, room_reach)
        room_reach -= r
        cnt[s, g, CONTACT], cnt[s, g, REACH], cnt[s, g, OUT] = c, r, n - c - r


@njit(cache=True, inline="always")
def _front(plan, cnt, s):
    """Side s's front group: the first in removal order with a model standing (R0-6)."""
    for k in range(plan.removal_group.shape[1]):
        g = plan.removal_group[s, k]
        if g < 0:
            break
        if cnt[s, g, plan.removal_place[s, k]] > 0:
            return g
    return -1


@njit(cache=True, inline="always")
def _receiver(plan, cnt, dmg, t):
    """Who takes side t's next wound: a wounded model, else the next in removal order (R0-9).

    Returns (group, place), or (-1, -1) when side t has no model left.
    """
    for h in range(cnt.shape[1]):
        if dmg[t, h] > 0:
            for place in range(3):
                if cnt[t, h, place] > 0:
                    return h, place
    for k in range(plan.removal_group.shape[1]):
        h = plan.removal_group[t, k]
        if h < 0:
            break
        if cnt[t, h, plan.removal_place[t, k]] > 0:
            return h, plan.removal_place[t, k]
    return -1, -1


@njit(cache=True, inline="always")
def _wound(plan, cnt, dmg, alive, t, g, place, n):
    """n unsaved wounds on group g's models at ``place``; wounds stay on a wounded model (R0-9)."""
    w = dmg[t, g] + n
    while w >= plan.wounds[t, g]:
        w -= plan.wounds[t, g]
        cnt[t, g, place] -= 1
        alive[t] -= 1
    dmg[t, g] = w


@njit(cache=True, inline="always")
def _take_wounds(plan, st, cnt, dmg, alive, t, s, g, p, n):
    """Allocate n wounds from side s's part (g, p) to side t; return how many went unsaved.

    Each wound goes to the model that would be removed next, which rolls its own save (R0-8,
    R0-9). When all n fit on the models of one place of one group, the unsaved count is one
    binomial draw; otherwise the wounds are saved one at a time.
    """
    rg, rp = _receiver(plan, cnt, dmg, t)
    if rg < 0:
        return 0
    if n <= cnt[t, rg, rp] * plan.wounds[t, rg] - dmg[t, rg]:
        unsaved = draw(st, plan.cdf, plan.cdf_offset[1, s, g, p, rg],
                       plan.cdf_top[1, s, g, p, rg], n, plan.p_unsaved[s, g, p, rg])
        _wound(plan, cnt, dmg, alive, t, rg, rp, unsaved)
        return unsaved
    unsaved = 0
    for _ in range(n):
        rg, rp = _receiver(plan, cnt, dmg, t)
        if rg < 0:
            break
        if uniform(st) < plan.p_unsaved[s, g, p, rg]:
            unsaved += 1
            _wound(plan, cnt, dmg, alive, t, rg, rp, 1)
    return unsaved


@njit(cache=True, inline="always")
def _leadership(plan, cnt, s):
    """The Ld a side tests on: its override, else its best surviving model's (R0-11)."""
    if plan.ld_override[s] > 0:
        return plan.ld_override[s]
    best = 0
    for g in range(cnt.shape[1]):
        if cnt[s, g, CONTACT] + cnt[s, g, REACH] + cnt[s, g, OUT] > 0:
            best = max(best, plan.leadership[s, g])
    return best


@njit(cache=True, inline="always")
def _fight_round(plan, st, cnt, dmg, alive, hits, r, caused):
    """One round of strikes in step order (R0-4); adds each side's unsaved wounds to caused.

    All parts striking in a step roll against the models standing at its start; casualties
    are removed at its end.
    """
    for k in range(plan.steps.shape[1]):
        if plan.steps[r, k] < 0:
            break
        front0 = _front(plan, cnt, 0)
        front1 = _front(plan, cnt, 1)
        for j in range(plan.striker_side.shape[2]):
            s = plan.striker_side[r, k, j]
            if s < 0:
                break
            g, p = plan.striker_group[r, k, j], plan.striker_place[r, k, j]
            front = front1 if s == 0 else front0
            hits[j] = draw(st, plan.cdf, plan.cdf_offset[0, s, g, p, front],
                           plan.cdf_top[0, s, g, p, front], cnt[s, g, p] * plan.attacks[r, s, g, p],
                           plan.p_wound[s, g, p, front])
        for j in range(plan.striker_side.shape[2]):
            s = plan.striker_side[r, k, j]
            if s < 0:
                break
            if hits[j] > 0:
                caused[s] += _take_wounds(plan, st, cnt, dmg, alive, 1 - s, s,
                                          plan.striker_group[r, k, j],
                                          plan.striker_place[r, k, j], hits[j])
        if alive[0] == 0 or alive[1] == 0:
            return


@njit(cache=True, inline="always")
def play_fight(plan, st, cnt, dmg, alive, hits, row, out, t):
    """Play one fight (R0-16) and write its outcome row into out[:, t]."""
    G = cnt.shape[1]
    for s in range(2):
        alive[s] = 0
        for g in range(G):
            cnt[s, g, CONTACT], cnt[s, g, REACH], cnt[s, g, OUT] = plan.count[s, g], 0, 0
            dmg[s, g] = 0
            alive[s] += plan.count[s, g]
        _place(plan, cnt, s, False)
    row[:] = 0
    winner, end, rounds = NONE, UNRESOLVED, 0
    loser = -1
    if plan.charge_distance >= 0 and max(d6(st), d6(st)) < plan.charge_distance:
        end = NO_FIGHT  # R0-1: slowed by difficult terrain, the charge falls short
    else:
        while rounds < plan.max_rounds:
            r = FIRST if rounds == 0 else LATER
            rounds += 1
            row[0] = 0
            row[1] = 0
            _fight_round(plan, st, cnt, dmg, alive, hits, r, row)
            out[5, t] += row[1]
            out[6, t] += row[0]
            a0, a1 = alive[0], alive[1]
            if a0 == 0 or a1 == 0:  # R0-10: a destroyed side loses whatever the wounds
                end = MUTUAL if a0 == a1 else DESTROYED
                winner = NONE if a0 == a1 else (ATTACKER if a1 == 0 else DEFENDER)
                break
            rolled_off = False
            if row[0] != row[1]:
                loser = 1 if row[0] > row[1] else 0
            else:  # R0-10: equal wounds, D6 roll-off; equal again is a draw (R0-14)
                x, y = d6(st), d6(st)
                if x == y:
                    for s in range(2):
                        _place(plan, cnt, s, not plan.refill)
                    continue
                loser = 1 if x > y else 0
                rolled_off = True
            if two_d6(st) <= _leadership(plan, cnt, loser):  # R0-11: the loser holds
                for s in range(2):
                    _place(plan, cnt, s, not plan.refill)
                continue
            winner = ATTACKER if loser == 1 else DEFENDER
            end = FLED
            fall_back = two_d6(st)  # R0-12
            if plan.pursue and not rolled_off:
                pursuit = two_d6(st)
                if pursuit > (2 * fall_back if plan.halved_catch else fall_back):
                    end = CAUGHT
            break
    out[0, t] = winner
    out[1, t] = end
    out[2, t] = rounds
    for s in range(2):
        total = 0
        for g in range(G):
            total += plan.count[s, g]
        out[3 + s, t] = total if (end == CAUGHT and s == loser) else total - alive[s]


@njit(cache=True, parallel=True)
def play_chunk(plan, seed, first_trial, out):
    """Play trials first_trial .. first_trial + out.shape[1] - 1 into out (7, n)."""
    n = out.shape[1]
    G = plan.count.shape[1]
    for b in prange((n + BLOCK - 1) // BLOCK):
        st = np.empty(4, np.uint64)
        cnt = np.zeros((2, G, 3), np.int64)
        dmg = np.zeros((2, G), np.int64)
        alive = np.zeros(2, np.int64)
        hits = np.zeros(plan.striker_side.shape[2], np.int64)
        row = np.zeros(2, np.int64)
        for t in range(b * BLOCK, min(n, (b + 1) * BLOCK)):
            out[5, t] = 0
            out[6, t] = 0
            seed_stream(st, seed, first_trial + t)
            play_fight(plan, st, cnt, dmg, alive, hits, row, out, t)
