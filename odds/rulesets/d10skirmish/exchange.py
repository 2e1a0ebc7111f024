"""One exchange of blows (R3-5, R3-6, R3-7; README.md "The exchange"), on the dice as counts
per face packed in one integer (5 bits a face): blocks pair equal dice of the two sides, so a
roll is known by how many dice show each face. The one statement of the exchange in the
package: the rule text derives each exchange's law from it (``fight.exchange_law``) and rolls
through it the exchanges too large to tabulate. tests/naive_exchange.py states it die by die,
and the tests check the two agree on every roll of small dice counts.
"""
from __future__ import annotations

from numba import njit

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
    showing 1). Equal hits block pairwise, non-critical dice first.
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
    """The score of a turned roll (R3-6) packed in one integer (each part 0..63; at most 20 dice a side)."""
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
    each the best single change if it beats none (R3-6, §4.2(5)).
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

    Returns (crits 0, hits 0, crits 1, hits 1, blocked pairs) landed.
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
