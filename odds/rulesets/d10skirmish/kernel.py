"""The d10skirmish numba kernel: plays whole fights, one outcome row per fight.

Every die is rolled: blocks pair equal dice of the two sides (R3-5), so hits have no simple
closed form to draw from. An exchange keeps its dice as counts per face packed in one
integer (5 bits a face), and :func:`resolve` mirrors ``exchange.resolve`` on those counts.
Semantics: README.md beside this file; checked against tests/naive_d10skirmish.py.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import get_num_threads, njit

from odds.core.outcome import ATTACKER, DEFENDER, DESTROYED, FLED, MUTUAL, NONE, UNRESOLVED
from odds.core.rng import d10, seed_stream
from odds.rulesets.d10skirmish.rules import CHARGE_AP

BLOCK = 256    # fewest trials worth a thread of their own
ONGOING = -1   # end code while the fight goes on
SHIFT = 5      # bits per face in a packed count of dice (at most 20 dice a side, so < 32)
FACE = 31      # mask of one face's count


@njit(cache=True)
def _count(packed, v):
    """How many of the dice packed in ``packed`` show v (v = 1..10, 5 bits each)."""
    return (packed >> (SHIFT * v)) & FACE


@njit(cache=True)
def _landed(plain0, crit0, plain1, crit1, skill0, skill1, crit_blockable):
    """(crits 0, hits 0, crits 1, hits 1, blocked pairs) as the dice stand (R3-5, R3-7).

    ``plain``: a side's non-critical dice, packed by face; ``crit``: its critical dice (all
    showing 1). Equal hits block pairwise, non-critical dice first (exchange._landed).
    """
    h0 = 0
    h1 = 0
    blocked = 0
    for v in range(2, 11):
        a = _count(plain0, v) if v <= skill0 else 0
        b = _count(plain1, v) if v <= skill1 else 0
        m = min(a, b)
        blocked += m
        h0 += a - m
        h1 += b - m
    p0 = _count(plain0, 1)
    p1 = _count(plain1, 1)
    k0 = 0  # critical dice blocked
    k1 = 0
    if crit_blockable:
        m = min(p0 + crit0, p1 + crit1)
        k0 = max(0, m - p0)
        k1 = max(0, m - p1)
    else:
        m = min(p0, p1)
    blocked += m
    return crit0 - k0, h0 + p0 - (m - k0), crit1 - k1, h1 + p1 - (m - k1), blocked


@njit(cache=True)
def _score(crits, hits, enemy_crits, enemy_hits, blocks_first):
    """exchange._score packed in one integer (each part 0..63; at most 20 dice a side)."""
    mine = (crits + hits) * 64 + crits
    theirs = (63 - enemy_crits - enemy_hits) * 64 + (63 - enemy_crits)
    return theirs * 4096 + mine if blocks_first else mine * 4096 + theirs


@njit(cache=True)
def _turned(plain, crit, v, w, create_crit):
    """(plain, crit) after one unturned die goes from v to w (an unturned 1 is critical)."""
    if v == 1:
        crit -= 1
    else:
        plain -= 1 << (SHIFT * v)
    if w == 1 and create_crit:
        crit += 1
    else:
        plain += 1 << (SHIFT * w)
    return plain, crit


@njit(cache=True)
def _turn_dice(plain, crit, free, enemy_plain, enemy_crit, skill, enemy_skill, n, blocks_first,
               crit_blockable, create_crit):
    """A side turns up to n of its unturned dice (``free``, packed) by +-1, one at a time,
    each the best single change if it beats none (exchange._turn_dice, R3-6, §4.2(5)).
    Returns its (plain, crit)."""
    for _ in range(n):
        c, h, ec, eh, _b = _landed(plain, crit, enemy_plain, enemy_crit, skill, enemy_skill,
                                   crit_blockable)
        best = _score(c, h, ec, eh, blocks_first)
        best_v = 0
        best_w = 0
        for v in range(1, 11):
            if _count(free, v) == 0:
                continue
            for w in range(v - 1, v + 2, 2):
                if w < 1 or w > 10:
                    continue
                p, k = _turned(plain, crit, v, w, create_crit)
                c, h, ec, eh, _b = _landed(p, k, enemy_plain, enemy_crit, skill, enemy_skill,
                                           crit_blockable)
                score = _score(c, h, ec, eh, blocks_first)
                if score > best:
                    best, best_v, best_w = score, v, w
        if best_v == 0:
            break
        plain, crit = _turned(plain, crit, best_v, best_w, create_crit)
        free -= 1 << (SHIFT * best_v)
    return plain, crit


@njit(cache=True)
def resolve(rolled0, rolled1, skill0, skill1, adjust0, adjust1, blocks_first0, blocks_first1,
            first, crit_blockable, create_crit):
    """One exchange from the dice rolled, packed by face (``rolled`` holds the count of dice
    showing v in bits 5v .. 5v+4). Side ``first`` turns its dice first (R3-6).

    Returns (crits 0, hits 0, crits 1, hits 1, blocked pairs) landed, as
    ``exchange.resolve`` does die by die.
    """
    crit0 = _count(rolled0, 1)
    crit1 = _count(rolled1, 1)
    plain0 = rolled0 - (crit0 << SHIFT)
    plain1 = rolled1 - (crit1 << SHIFT)
    for k in range(2):
        if (k == 0) == (first == 0):
            if adjust0 > 0:
                plain0, crit0 = _turn_dice(plain0, crit0, rolled0, plain1, crit1, skill0, skill1,
                                           adjust0, blocks_first0, crit_blockable, create_crit)
        elif adjust1 > 0:
            plain1, crit1 = _turn_dice(plain1, crit1, rolled1, plain0, crit0, skill1, skill0,
                                       adjust1, blocks_first1, crit_blockable, create_crit)
    return _landed(plain0, crit0, plain1, crit1, skill0, skill1, crit_blockable)


@njit(cache=True, inline="always")
def _roll(st, n):
    """n D10s, packed by face."""
    packed = 0
    for _ in range(n):
        packed += 1 << (SHIFT * d10(st))
    return packed


@njit(cache=True, inline="always")
def _roll_and_resolve(plan, st, active, answer):
    """Side ``active`` rolls its attacks, the other ``answer`` dice; :func:`resolve` them."""
    dice_active = _roll(st, plan.attacks[active])
    dice_answer = _roll(st, answer)
    r0, r1 = (dice_active, dice_answer) if active == 0 else (dice_answer, dice_active)
    return resolve(r0, r1, plan.skill[0], plan.skill[1], plan.adjust[0], plan.adjust[1],
                   plan.adjust_blocks[0], plan.adjust_blocks[1], active, plan.crit_blockable,
                   plan.create_crit)


@njit(cache=True, inline="always")
def _wounds(plan, st, s, crits, hits):
    """Wounds side s's landed hits deal to the other fighter (A2 armour, A3 criticals)."""
    e = 1 - s
    total = 0
    for _ in range(hits):
        if plan.armour[e] == 0 or d10(st) > plan.armour[e]:
            total += plan.damage[s]
    for _ in range(crits):
        if plan.crit_ignores_armour or plan.armour[e] == 0 or d10(st) > plan.armour[e]:
            total += plan.damage[s] * plan.crit_multiplier
    return total


@njit(cache=True, inline="always")
def _exchange(plan, st, active, ap, left):
    """One exchange started by side ``active``; returns (end, winner), end ONGOING if the
    fight goes on (R3-4 reaction, R3-5 dice, R3-8 flee, A6 simultaneous wounds)."""
    r = 1 - active
    fled = False
    if ap[r] >= max(1, plan.reaction_ap):
        ap[r] -= plan.reaction_ap
        fled = plan.flee and r != plan.charger
        answer = 0 if fled else plan.attacks[r]
    else:
        answer = 1
    c0, h0, c1, h1, _b = _roll_and_resolve(plan, st, active, answer)
    to_defender = _wounds(plan, st, 0, c0, h0)
    to_attacker = _wounds(plan, st, 1, c1, h1)
    left[0] -= to_attacker
    left[1] -= to_defender
    if left[0] <= 0 and left[1] <= 0:
        return MUTUAL, NONE
    if left[0] <= 0:
        return DESTROYED, DEFENDER
    if left[1] <= 0:
        return DESTROYED, ATTACKER
    if fled:
        return FLED, ATTACKER if active == 0 else DEFENDER
    return ONGOING, NONE


@njit(cache=True, inline="always")
def play_fight(plan, st, ap, left, out, t):
    """Play one fight, turn by turn, and write its outcome row into out[:, t].

    Turn 1: the charger's activation opens with the charge (R3-2) or push (R3-9); then the
    charged fighter activates unless it had already (``charged_ap_left``). Later turns: AP
    back to full, the starter (charger, or alternating) then the other. An activation spends
    ``melee_attack_ap`` per exchange while it can (§4.2(7)).
    """
    c = plan.charger
    left[0], left[1] = plan.wounds[0], plan.wounds[1]
    ap[0], ap[1] = plan.ap[0], plan.ap[1]
    if plan.charged_ap_left >= 0:
        ap[1 - c] = plan.charged_ap_left
    end, winner = ONGOING, NONE
    exchanges = 0
    pushed = 0
    turn = 1
    starter = c if plan.charged_ap_left < 0 else 1 - c
    actor = c
    other_to_act = plan.charged_ap_left < 0
    opening = True
    while True:
        attacking = True
        cost = plan.melee_attack_ap
        if opening and plan.push:
            ap[c] -= plan.push_ap
            if d10(st) <= plan.skill[c]:  # R3-9: the push succeeds, the target leaves contact
                pushed = 1
                left[1 - c] -= plan.fall_damage
                end = DESTROYED if left[1 - c] <= 0 else FLED
                winner = ATTACKER if c == 0 else DEFENDER
                break
            attacking = not plan.opening_ends_activation
        elif opening:
            cost = CHARGE_AP
        while attacking and ap[actor] >= cost:
            ap[actor] -= cost
            exchanges += 1
            end, winner = _exchange(plan, st, actor, ap, left)
            if end != ONGOING:
                break
            cost = plan.melee_attack_ap
            attacking = not (opening and plan.opening_ends_activation)
        if end != ONGOING:
            break
        opening = False
        if other_to_act:
            actor, other_to_act = 1 - actor, False
            continue
        if turn == plan.max_rounds:
            end = UNRESOLVED
            break
        turn += 1
        starter = 1 - starter if plan.alternate else c
        actor, other_to_act = starter, True
        ap[0], ap[1] = plan.ap[0], plan.ap[1]
    out[0, t] = winner
    out[1, t] = end
    out[2, t] = turn
    for s in range(2):
        out[3 + s, t] = left[s] <= 0
        out[5 + s, t] = plan.wounds[s] - max(left[s], 0)
    out[7, t] = exchanges
    out[8, t] = pushed


@njit(cache=True, nogil=True)
def play_trials(plan, seed, first_trial, out, start, stop):
    """Play the chunk's trials start .. stop - 1 into out[:, start:stop] (one thread)."""
    st = np.empty(4, np.uint64)
    ap = np.zeros(2, np.int64)
    left = np.zeros(2, np.int64)
    for t in range(start, stop):
        seed_stream(st, seed, first_trial + t)
        play_fight(plan, st, ap, left, out, t)


def play_chunk(plan, seed, first_trial, out):
    """Play trials first_trial .. first_trial + out.shape[1] - 1 into out (9, n).

    The trials are split into one run per thread (``numba.get_num_threads()``), each a
    GIL-free :func:`play_trials` call. Not ``prange``: its parallel loop cannot pass the plan's
    tuples, and numba arrays shared by the threads would have their reference counts updated
    at every access.
    """
    n = out.shape[1]
    threads = max(1, min(get_num_threads(), n // BLOCK))
    bounds = [n * i // threads for i in range(threads + 1)]
    if threads == 1:
        play_trials(plan, seed, first_trial, out, 0, n)
        return
    with ThreadPoolExecutor(threads) as pool:
        runs = [pool.submit(play_trials, plan, seed, first_trial, out, bounds[i], bounds[i + 1])
                for i in range(threads)]
        for run in runs:
            run.result()


@njit(cache=True)
def tally_exchanges(plan, active, answer, trials, seed, counts):
    """Add ``trials`` exchanges to ``counts[crits 0, hits 0, crits 1, hits 1, blocked]``: side
    ``active`` rolls its attacks, the other ``answer`` dice (R3-4 ... R3-7). One stream."""
    st = np.empty(4, np.uint64)
    seed_stream(st, seed, 0)
    for _ in range(trials):
        c0, h0, c1, h1, b = _roll_and_resolve(plan, st, active, answer)
        counts[c0, h0, c1, h1, b] += 1
