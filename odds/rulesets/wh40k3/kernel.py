"""The wh40k3 numba kernel: plays whole close combats, one outcome row per fight.

The wounds of a striking part are one draw from the exact Binomial(attacks,
P(hit) * P(wound)) (independent dice make the count binomial; the round type's layer of the
plan's chances holds the special rules' re-rolls and modifiers); the unsaved ones are one more
binomial draw when they all fall on one kind of model, else one save roll per wound. A side
may be several units (R0-13): each strikes one enemy unit, wounds stay inside the unit struck,
and an advance may carry the winners into a fresh unit (R0-12).
Semantics: README.md beside this file. Checked against tests/naive_wh40k3.py.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from odds.core.binomial import draw
from odds.core.outcome import (ATTACKER, CAUGHT, COLUMNS, DESTROYED, FLED, MUTUAL,
                               NO_FIGHT, NONE, UNIT_CAUGHT, UNIT_DESTROYED, UNIT_FLED,
                               UNIT_STANDING, UNIT_UNREACHED, UNRESOLVED)
from odds.core.rng import d6, seed_stream, two_d6, uniform
from odds.rulesets.wh40k3.compile import ADVANCE, CONTACT, FIRST, LATER, OUT, REACH, SAVES

BLOCK = 256  # trials per parallel work item
HELD, FELL_BACK, PURSUED = 0, 1, 2  # the loser's morale check (R0-11, R0-12)
UNITS_COLUMN = len(COLUMNS)  # the first per-unit column (wh40k3 has no columns of its own)


@njit(cache=True, inline="always")
def _n(plan, s, multi):
    """Side s's units: ``multi`` is a constant of each compiled entry function, so with one
    unit a side every loop over units below is a single pass the compiler unrolls."""
    return plan.units[s] if multi else 1


@njit(cache=True, inline="always")
def _place(plan, cnt, s, u, everyone_in_contact):
    """Put unit u's models in contact / within 2" / beyond, in contact order (R0-2, R0-14)."""
    room_contact = plan.limits[s, u, 0]
    room_reach = plan.limits[s, u, 1]
    for j in range(plan.fill.shape[2]):
        g = plan.fill[s, u, j]
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
def _pile_in(plan, cnt, inside, multi):
    """Every unit in the fight moves in again before the next round (R0-11, R0-14)."""
    for s in range(2):
        for u in range(_n(plan, s, multi)):
            if not multi or inside[s, u]:
                _place(plan, cnt, s, u, not plan.refill)


@njit(cache=True, inline="always")
def _front(plan, cnt, s, u):
    """Unit u's front group: the first in its removal order with a model standing (R0-6)."""
    for k in range(plan.removal_group.shape[2]):
        g = plan.removal_group[s, u, k]
        if g < 0:
            break
        if cnt[s, g, plan.removal_place[s, u, k]] > 0:
            return g
    return -1


@njit(cache=True, inline="always")
def _retarget(plan, inside, target, multi):
    """Each unit's target: its ``strikes`` unit if in the fight, else the next listed enemy
    unit in the fight, going round the list (R0-13). Called whenever a unit joins or leaves
    the fight, so every strike step starts with the targets of the units then in it."""
    if not multi:
        return  # one unit a side: each strikes unit 0
    for s in range(2):
        n = plan.units[1 - s]
        for u in range(_n(plan, s, multi)):
            target[s, u] = -1
            for k in range(n):
                v = (plan.prefer[s, u] + k) % n
                if inside[1 - s, v]:
                    target[s, u] = v
                    break


@njit(cache=True, inline="always")
def _groups(plan, cnt, t, u, multi):
    """The first group of unit u of side t and how many it has (one unit a side: all)."""
    if not multi:
        return 0, cnt.shape[1]
    return plan.unit_start[t, u], plan.unit_start[t, u + 1] - plan.unit_start[t, u]


@njit(cache=True, inline="always")
def _receiver(plan, cnt, dmg, t, u, multi):
    """Who in unit u of side t takes the next wound: a wounded model, else the next in
    removal order (R0-9). Returns (group, place), or (-1, -1) when the unit has no model."""
    first, n = _groups(plan, cnt, t, u, multi)
    for i in range(n):
        h = first + i
        if dmg[t, h] > 0:
            for place in range(3):
                if cnt[t, h, place] > 0:
                    return h, place
    for k in range(plan.removal_group.shape[2]):
        h = plan.removal_group[t, u, k]
        if h < 0:
            break
        if cnt[t, h, plan.removal_place[t, u, k]] > 0:
            return h, plan.removal_place[t, u, k]
    return -1, -1


@njit(cache=True, inline="always")
def _wound(plan, cnt, dmg, alive, t, u, g, place, n):
    """n unsaved wounds on group g's models at ``place``; wounds stay on a wounded model (R0-9)."""
    w = dmg[t, g] + n
    while w >= plan.wounds[t, g]:
        w -= plan.wounds[t, g]
        cnt[t, g, place] -= 1
        alive[t, u] -= 1
    dmg[t, g] = w


@njit(cache=True, inline="always")
def _take_wounds(plan, st, cnt, dmg, alive, t, u, s, g, p, n, multi):
    """Allocate n wounds from side s's part (g, p) to unit u of side t; return how many went
    unsaved. Wounds beyond the unit's last model are lost (R0-13).

    Each wound goes to the model that would be removed next, which rolls its own save (R0-8,
    R0-9). When all n fit on the models of one place of one group, the unsaved count is one
    binomial draw; otherwise the wounds are saved one at a time.
    """
    rg, rp = _receiver(plan, cnt, dmg, t, u, multi)
    if rg < 0:
        return 0
    if n <= cnt[t, rg, rp] * plan.wounds[t, rg] - dmg[t, rg]:
        unsaved = draw(st, plan.cdf, plan.cdf_offset[SAVES, s, g, p, rg],
                       plan.cdf_top[SAVES, s, g, p, rg], n, plan.p_unsaved[s, g, p, rg])
        _wound(plan, cnt, dmg, alive, t, u, rg, rp, unsaved)
        return unsaved
    unsaved = 0
    for _ in range(n):
        rg, rp = _receiver(plan, cnt, dmg, t, u, multi)
        if rg < 0:
            break
        if uniform(st) < plan.p_unsaved[s, g, p, rg]:
            unsaved += 1
            _wound(plan, cnt, dmg, alive, t, u, rg, rp, 1)
    return unsaved


@njit(cache=True, inline="always")
def _leadership(plan, cnt, s, u, multi):
    """The Ld unit u tests on: its override, else its best surviving model's (R0-11)."""
    if plan.ld_override[s, u] > 0:
        return plan.ld_override[s, u]
    best = 0
    first, n = _groups(plan, cnt, s, u, multi)
    for i in range(n):
        g = first + i
        if cnt[s, g, CONTACT] + cnt[s, g, REACH] + cnt[s, g, OUT] > 0:
            best = max(best, plan.leadership[s, g])
    return best


@njit(cache=True, inline="always")
def _in_fight(plan, inside, s, multi):
    """How many of side s's units are in the fight (one unit a side: whether it is)."""
    n = 0
    for u in range(_n(plan, s, multi)):
        n += inside[s, u]
    return n


@njit(cache=True, inline="always")
def _standing(plan, inside, alive, s, multi):
    """How many of side s's units are in the fight after the strikes: with one unit a side,
    whether it has a model left (it can only have left the fight by losing them all)."""
    if not multi:
        return 1 if alive[s, 0] > 0 else 0
    return _in_fight(plan, inside, s, multi)


@njit(cache=True, inline="always")
def _fight_round(plan, st, cnt, dmg, alive, inside, fate, wounded, hits, aimed, target, r,
                 caused, multi):
    """One round of strikes in step order (R0-4); adds each side's unsaved wounds to caused.

    At the start of each step every unit picks its target unit (R0-13), and every part rolls
    against that unit's front group as it stands then; casualties are removed at the step's
    end, and a unit with no model left leaves the fight at once.
    """
    c = plan.chance[r]  # the layer of p_wound this round type reads
    for k in range(plan.steps.shape[1]):
        if plan.steps[r, k] < 0:
            break
        front0 = front1 = -1  # what side 0 and side 1 strike at, one unit a side
        if multi:  # the front group each unit strikes at, -1: not in the fight
            for s in range(2):
                for u in range(plan.units[s]):
                    aimed[s, u] = _front(plan, cnt, 1 - s, target[s, u]) if inside[s, u] else -1
        else:
            front0 = _front(plan, cnt, 1, 0)
            front1 = _front(plan, cnt, 0, 0)
        for j in range(plan.striker_side.shape[2]):
            s = plan.striker_side[r, k, j]
            if s < 0:
                break
            g, p = plan.striker_group[r, k, j], plan.striker_place[r, k, j]
            f = aimed[s, plan.unit_of[s, g]] if multi else (front0 if s == 0 else front1)
            hits[j] = 0 if multi and f < 0 else draw(
                st, plan.cdf, plan.cdf_offset[1 + c, s, g, p, f], plan.cdf_top[1 + c, s, g, p, f],
                cnt[s, g, p] * plan.attacks[r, s, g, p], plan.p_wound[c, s, g, p, f])
        for j in range(plan.striker_side.shape[2]):
            s = plan.striker_side[r, k, j]
            if s < 0:
                break
            if hits[j] > 0:
                g = plan.striker_group[r, k, j]
                v = target[s, plan.unit_of[s, g]] if multi else 0
                unsaved = _take_wounds(plan, st, cnt, dmg, alive, 1 - s, v, s, g,
                                       plan.striker_place[r, k, j], hits[j], multi)
                caused[s] += unsaved
                if multi:
                    wounded[1 - s, v] += unsaved
        if not multi:  # one unit a side: the fight is over when one has no model left
            if alive[0, 0] == 0 or alive[1, 0] == 0:
                return
            continue
        left = False
        for s in range(2):
            for u in range(plan.units[s]):
                if inside[s, u] and alive[s, u] == 0:  # R0-13: it leaves the fight at once
                    inside[s, u] = 0
                    fate[s, u] = UNIT_DESTROYED
                    left = True
        if left:
            if _in_fight(plan, inside, 0, multi) == 0 or _in_fight(plan, inside, 1, multi) == 0:
                return
            _retarget(plan, inside, target, multi)


@njit(cache=True, inline="always")
def _advance(plan, st, cnt, inside, fate, roll, y, own_roll, multi):
    """Side y's units in the fight advance after the last enemy unit left it (R0-10, R0-12):
    each moves its pursuit roll (``roll``), or with ``own_roll`` a new 2D6, halved in
    difficult terrain; those that reach the enemy's fresh unit start a new combat with it,
    the others leave the fight. Returns whether a new combat starts."""
    x = 1 - y
    f = plan.fresh[x] if multi else -1
    if f < 0 or not plan.pursue or fate[x, f] != UNIT_UNREACHED:
        return False
    needed = 2 * plan.reach[x] if plan.halved_move else plan.reach[x]
    reached = False
    for u in range(_n(plan, y, multi)):
        if inside[y, u]:
            moved = two_d6(st) if own_roll else roll[y, u]
            if moved >= needed:
                reached = True
            else:
                inside[y, u] = 0  # fell short: it stands where it stopped (UNIT_STANDING)
    if reached:
        inside[x, f] = 1
        fate[x, f] = UNIT_STANDING
        for s in range(2):
            for u in range(_n(plan, s, multi)):
                if inside[s, u]:
                    _place(plan, cnt, s, u, False)
    return reached


@njit(cache=True, inline="always")
def _fall_back(plan, st, cnt, inside, fate, roll, loser, rolled_off, multi):
    """The loser's units test Ld; those that fail fall back 2D6 and the winners' units may
    pursue (R0-11, R0-12, R0-13). Returns HELD (every unit passed), FELL_BACK or PURSUED
    (the winners rolled pursuit)."""
    y = 1 - loser
    failed = False
    for u in range(_n(plan, loser, multi)):
        if (not multi or inside[loser, u]) and \
                two_d6(st) > _leadership(plan, cnt, loser, u, multi):
            roll[loser, u] = -1  # marked: falls back
            failed = True
        elif multi:
            roll[loser, u] = 0  # no fall-back roll of an earlier round is compared below
    if not failed:
        return HELD
    for u in range(_n(plan, loser, multi)):
        if roll[loser, u] < 0:
            roll[loser, u] = two_d6(st)
            inside[loser, u] = 0
            fate[loser, u] = UNIT_FLED
    if not plan.pursue or rolled_off:
        return FELL_BACK
    best = 0
    for u in range(_n(plan, y, multi)):
        if not multi or inside[y, u]:
            roll[y, u] = two_d6(st)
            best = max(best, roll[y, u])
    for u in range(_n(plan, loser, multi)):
        if fate[loser, u] == UNIT_FLED and roll[loser, u] > 0:
            if best > (2 * roll[loser, u] if plan.halved_catch else roll[loser, u]):
                fate[loser, u] = UNIT_CAUGHT
            roll[loser, u] = 0
    return PURSUED


@njit(cache=True, inline="always")
def _end(plan, fate, x, multi):
    """How side x, left with no unit in the fight, lost: fled if any unit fled, else caught if
    any was caught, else destroyed (R0-13)."""
    end = DESTROYED
    for u in range(_n(plan, x, multi)):
        if fate[x, u] == UNIT_FLED:
            return FLED
        if fate[x, u] == UNIT_CAUGHT:
            end = CAUGHT
    return end


@njit(cache=True, inline="always")
def play_fight(plan, st, cnt, dmg, alive, inside, fate, wounded, roll, hits, aimed, target,
               row, out, t, multi):
    """Play one fight (R0-16) and write its outcome row into out[:, t]: the shared columns,
    then, when ``out`` has room for them, each unit's fate, losses and wounds (R0-13)."""
    for s in range(2):
        for g in range(cnt.shape[1]):
            cnt[s, g, CONTACT], cnt[s, g, REACH], cnt[s, g, OUT] = plan.count[s, g], 0, 0
            dmg[s, g] = 0
        for u in range(_n(plan, s, multi)):
            alive[s, u] = plan.unit_size[s, u]
            wounded[s, u] = 0
            inside[s, u] = not multi or plan.fresh[s] != u
            fate[s, u] = UNIT_STANDING if inside[s, u] else UNIT_UNREACHED
            if not multi or inside[s, u]:
                _place(plan, cnt, s, u, False)
    _retarget(plan, inside, target, multi)
    row[:] = 0
    winner, end, rounds, r = NONE, UNRESOLVED, 0, FIRST
    if plan.charge_distance >= 0 and max(d6(st), d6(st)) < plan.charge_distance:
        end = NO_FIGHT  # R0-1: slowed by difficult terrain, the charge falls short
    else:
        while rounds < plan.max_rounds:
            rounds += 1
            row[0] = 0
            row[1] = 0
            _fight_round(plan, st, cnt, dmg, alive, inside, fate, wounded, hits, aimed, target, r,
                         row, multi)
            r = LATER
            out[5, t] += row[1]
            out[6, t] += row[0]
            n0 = _standing(plan, inside, alive, 0, multi)
            n1 = _standing(plan, inside, alive, 1, multi)
            if n0 == 0 or n1 == 0:  # R0-10: a destroyed side loses whatever the wounds
                if n0 == n1:
                    end = MUTUAL
                    break
                y = 0 if n1 == 0 else 1
                if _advance(plan, st, cnt, inside, fate, roll, y, True, multi):
                    r = ADVANCE + y
                    _retarget(plan, inside, target, multi)
                    continue
                winner, end = ATTACKER + y, _end(plan, fate, 1 - y, multi)
                break
            rolled_off = False
            if row[0] != row[1]:
                loser = 1 if row[0] > row[1] else 0
            else:  # R0-10: equal wounds, D6 roll-off; equal again is a draw (R0-14)
                x, y = d6(st), d6(st)
                if x == y:
                    _pile_in(plan, cnt, inside, multi)
                    continue
                loser = 1 if x > y else 0
                rolled_off = True
            morale = _fall_back(plan, st, cnt, inside, fate, roll, loser, rolled_off, multi)
            if morale == HELD or (multi and _in_fight(plan, inside, loser, multi) > 0):
                _retarget(plan, inside, target, multi)  # R0-11: units held; pile in, go on
                _pile_in(plan, cnt, inside, multi)
                continue
            y = 1 - loser
            if morale == PURSUED and _advance(plan, st, cnt, inside, fate, roll, y, False,
                                              multi):
                r = ADVANCE + y
                _retarget(plan, inside, target, multi)
                continue
            winner, end = ATTACKER + y, _end(plan, fate, loser, multi)
            break
    out[0, t] = winner
    out[1, t] = end
    out[2, t] = rounds
    column = UNITS_COLUMN
    per_unit = multi and out.shape[0] >= UNITS_COLUMN + 3 * (plan.units[0] + plan.units[1])
    for s in range(2):
        total = 0
        for u in range(_n(plan, s, multi)):
            lost = plan.unit_size[s, u] if fate[s, u] == UNIT_CAUGHT else \
                plan.unit_size[s, u] - alive[s, u]
            total += lost
            if per_unit:
                out[column, t] = fate[s, u]
                out[column + 1, t] = lost
                out[column + 2, t] = wounded[s, u]
                column += 3
        out[3 + s, t] = total


@njit(cache=True, inline="always")
def _play_block(plan, seed, first_trial, out, b, multi):
    """Play the trials of block b (BLOCK of them) into out, with working arrays of its own."""
    G = plan.count.shape[1]
    U = plan.unit_size.shape[1]
    parts = plan.striker_side.shape[2]
    st = np.empty(4, np.uint64)
    cnt = np.zeros((2, G, 3), np.int64)
    dmg = np.zeros((2, G), np.int64)
    alive, inside, fate = np.zeros((2, U), np.int64), np.zeros((2, U), np.int64), \
        np.zeros((2, U), np.int64)
    wounded, roll = np.zeros((2, U), np.int64), np.zeros((2, U), np.int64)
    aimed, target = np.zeros((2, U), np.int64), np.zeros((2, U), np.int64)
    hits = np.zeros(parts, np.int64)
    row = np.zeros(2, np.int64)
    for t in range(b * BLOCK, min(out.shape[1], (b + 1) * BLOCK)):
        out[5, t] = 0
        out[6, t] = 0
        seed_stream(st, seed, first_trial + t)
        play_fight(plan, st, cnt, dmg, alive, inside, fate, wounded, roll, hits, aimed,
                   target, row, out, t, multi)


@njit(cache=True, parallel=True)
def _play_one_unit_a_side(plan, seed, first_trial, out):
    for b in prange((out.shape[1] + BLOCK - 1) // BLOCK):
        _play_block(plan, seed, first_trial, out, b, False)


@njit(cache=True, parallel=True)
def _play_several_units(plan, seed, first_trial, out):
    for b in prange((out.shape[1] + BLOCK - 1) // BLOCK):
        _play_block(plan, seed, first_trial, out, b, True)


def entry(plan):
    """The compiled function that plays this plan: one unit a side has its own, where every
    loop over units is a single pass (``multi`` is a constant, R0-13)."""
    return _play_several_units if plan.units.max() > 1 else _play_one_unit_a_side


def variant(plan) -> str:
    """The compiled variant :func:`entry` picks, in words (for the compile notice)."""
    return "several units a side" if plan.units.max() > 1 else "one unit a side"


def play_chunk(plan, seed, first_trial, out):
    """Play trials first_trial .. first_trial + out.shape[1] - 1 into out (columns, n)."""
    entry(plan)(plan, seed, first_trial, out)
