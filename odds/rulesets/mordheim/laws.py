"""The laws of a Mordheim fight, worked out once per warrior pair from the plan (numpy, at
compile time), for the rule text (fight.py): every die of a strike folded into two picks.

- **The blows' law** (:func:`hit_laws`): a striker's blows on his target (R1-4) and the
  target's parry (R1-5), as (main-hand hits, off-hand hit, parried). A parry beats the
  highest to-hit roll, so the law follows (hits, highest roll) die by die, then the parry
  of the first hit showing it.
- **A hit's law** (:func:`blow_laws`): one hit's roll to wound, Critical Hit chart, armour
  save, special saves and injury rolls (R1-7 ... R1-9), as (wounds, wounds taken off the
  target's W, the worst injury, a critical struck), given the target's wounds left (1, 2,
  3 or more), whether he lies knocked down, and whether the striker's critical is used.
- Fear, All Alone (2D6 above Ld fails, R1-6, R1-11), the helmet (R1-8) and the roll-off
  between strikers of one tier and Initiative (R1-2).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from odds.core import exact
from odds.core.dice import laws

KNOCKED_DOWN, STUNNED, OUT_OF_ACTION = 1, 2, 3  # the worst injury of a strike (0: none)
INJURIES = 4
WOUND_CLASSES = 4  # a target's wounds left: 0, 1, 2, 3 or more (a hit deals at most 2)
BLOW_OUTCOMES = 3 * 3 * INJURIES * 2  # (wounds, taken off W, injury, critical)


def pairs(plan) -> np.ndarray:
    """pair[x, y]: the index of the ordered pair of warriors x, y in base contact, else -1."""
    contact = np.asarray(plan.contact)
    out = np.full(contact.shape, -1, np.int64)
    xs, ys = np.nonzero(contact)
    out[xs, ys] = np.arange(len(xs))
    return out


def blow_index(wounds, taken, injury, critical):
    """A hit's outcome as the index of its law."""
    return ((wounds * 3 + taken) * INJURIES + injury) * 2 + critical


def with_laws(plan):
    """``plan`` with its laws (:mod:`odds.core.dice` laws, padded to a common width)."""
    pair = pairs(plan)
    xs, ys = np.nonzero(pair >= 0)
    order = np.argsort(pair[xs, ys])
    between = list(zip(xs[order], ys[order]))
    n = len(plan.side)
    fails = np.array([exact.p_gt(exact.dice_sum(2), ld) for ld in plan.leadership])
    helmet = np.where(plan.avoid_stun <= 6, (7 - plan.avoid_stun) / 6, 0.0)
    ties = np.zeros((n + 1, max(n, 1)))
    for m in range(1, n + 1):
        ties[m, :m] = 1 / m
    hits, blows = hit_laws(plan, between), blow_laws(plan, between)
    return plan._replace(  # the pair's laws one after another: read at one flat index
        pair=pair, ganged=bool((np.asarray(plan.contact).sum(axis=1) >= 2).any()),
        most_hits=int(np.max(plan.fury_blows, initial=0)) + 1,
        hit_law=laws(hits.reshape(-1, hits.shape[-1])),
        blow_law=laws(blows.reshape(-1, blows.shape[-1])),
        ld_law=laws(np.stack([1 - fails, fails], axis=-1)),
        helmet_law=laws(np.stack([1 - helmet, helmet], axis=-1)),
        tie_law=laws(ties))


def hit_laws(plan, between) -> np.ndarray:
    """P(main-hand hits, off-hand hit, parried) at [pair, round type, calm (Frenzy lost),
    off hand striking, failed Fear, the target may parry]: the blows of a striker at a target
    standing (R1-3 ... R1-5). Hits of the highest roll go first to the main hand, as the
    striker's blows are rolled main hand first."""
    most = int(np.max(plan.fury_blows, initial=1))
    out = np.zeros((max(len(between), 1), 2, 2, 2, 2, 2, most + 1, 2, 2))
    for p, r, calm, off, fear, can_parry in np.ndindex(out.shape[:6]):
        if p >= len(between):
            out[p, r, calm, off, fear, can_parry, 0, 0, 0] = 1.0
            continue
        x, y = between[p]
        out[p, r, calm, off, fear, can_parry] = _blows(plan, r, x, y, calm, off, fear,
                                                       can_parry, most)
    return out.reshape(out.shape[:6] + (-1,))


def _blows(plan, r, x, y, calm, off, fear, can_parry, most):
    """The law of x's blows at y (:func:`_blow_law`, given the numbers it reads)."""
    need = plan.to_hit[plan.ws[x] - 1, plan.ws[y] - 1]
    if fear and r == 0:
        need = 6  # R1-6: a warrior who failed his Fear test hits on 6s in the first round
    parryable = tuple(bool(plan.hit_strength[r, x, hand] < 2 * plan.strength[y])
                      for hand in (0, 1)) if can_parry and plan.parry_items[y] > 0 else None
    return _blow_law(int(plan.blows[x] if calm else plan.fury_blows[x]), off, int(need),
                     tuple(plan.hit_faces[r, x, need]), parryable,
                     int(plan.parry_items[y] >= 2), most)


@lru_cache(maxsize=1024)
def _blow_law(main, off, need, face, parryable, rerolled, most) -> np.ndarray:
    """P(main-hand hits, off-hand hit, parried) of ``main`` blows and ``off`` (0 or 1) with
    the off hand, to hit on ``need`` (the final faces' odds ``face``); the target parries
    the first hit of the highest roll, short of a 6, with a die that beats it (re-rolled
    if ``rerolled``) unless that hit's hand is not ``parryable`` (twice his S, R1-5);
    ``parryable`` None: he cannot parry."""
    face = np.asarray(face)
    miss = face[1:need].sum()
    best = np.zeros((most + 1, 7))  # [main-hand hits, their highest roll]
    best[0, 0] = 1.0
    for _ in range(main):
        nxt = best * miss
        for roll in range(need, 7):  # a hit: the highest roll is now at least this one
            nxt[1:, roll] += best[:-1, :roll].sum(axis=1) * face[roll]
            nxt[1:, roll:] += best[:-1, roll:] * face[roll]
        best = nxt
    out = np.zeros((most + 1, 2, 2))
    off_rolls = [(miss, 0, 0)] + [(face[roll], 1, roll) for roll in range(need, 7)] if off \
        else [(1.0, 0, 0)]
    for k, v in zip(*np.nonzero(best)):
        for q, h1, v1 in off_rolls:
            q = best[k, v] * q
            top = max(v, v1)
            hand = 0 if k > 0 and v >= v1 else 1
            saved = 0.0
            if parryable is not None and k + h1 > 0 and top < 6 and parryable[hand]:
                saved = 1 - (top / 6) ** (2 if rerolled else 1)  # R1-5
            out[k, h1, 0] += q * (1 - saved)
            if saved > 0:
                out[(k - 1, h1) if hand == 0 else (k, 0)][1] += q * saved
    out.flags.writeable = False
    return out


def blow_laws(plan, between) -> np.ndarray:
    """P(a hit's outcome) (:func:`blow_index`) at [pair, round type, hand, critical used,
    the target's wounds left (3: 3 or more), the target knocked down] (R1-7 ... R1-9)."""
    out = np.zeros((max(len(between), 1), 2, 2, 2, WOUND_CLASSES, 2, BLOW_OUTCOMES))
    for p, r, hand, used, left, down in np.ndindex(out.shape[:6]):
        if p >= len(between):
            out[p, r, hand, used, left, down, 0] = 1.0
            continue
        x, y = between[p]
        out[p, r, hand, used, left, down] = _hit(plan, r, x, y, hand, used, left, down)
    return out


def _hit(plan, r, x, y, hand, used, left, down) -> np.ndarray:
    """The law of one hit of x's ``hand`` on y (:func:`_hit_law`, given the numbers it
    reads)."""
    need = int(plan.wound_need[r, x, hand, y])
    s = plan.hit_strength[r, x, hand]
    needed = max(2, plan.save[y] + plan.save_by_strength[s - 1] - plan.save_modifier[x, hand])
    crit_on = int(plan.crit_on[x, hand]) if used == 0 and need < 6 else 7
    return _hit_law(need, int(needed), int(plan.special_save[y]),
                    tuple(plan.wound_faces[r, x, min(need, 7)]), crit_on,
                    tuple(plan.critical_chart[x]), int(plan.injury_modifier[x]),
                    int(plan.concussion[x, hand]), left, down)


@lru_cache(maxsize=4096)
def _hit_law(need, needed, special_save, face, crit_on, chart, modifier, concussion, left,
             down) -> np.ndarray:
    """P(wounds, taken off W, worst injury, critical) (:func:`blow_index`) of one hit: to
    wound on ``need`` (7: it cannot), the final faces' odds ``face``; a critical from
    ``crit_on`` (7: none) rolls on the chart (``chart``: vital part, exposed spot, master
    strike); the armour save on ``needed``, the special save on ``special_save`` (7: none)
    against each wound; the injuries + ``modifier`` (R1-7 ... R1-9). Kept for the plan's
    other pairs and conditions (warriors alike meet the same numbers)."""
    out = np.zeros(BLOW_OUTCOMES)
    if need == 7:  # cannot wound
        out[0] = 1.0
        return out
    face = np.asarray(face)
    unsaved = 1.0 if needed > 6 else (needed - 1) / 6
    kept = 1.0 if special_save > 6 else (special_save - 1) / 6
    low = max(need, crit_on)
    normal, critical_hit = face[need:low].sum(), face[low:].sum()
    out[0] += face[1:need].sum() + normal * (1 - unsaved)
    normal_injury = _injury(modifier, concussion)
    master_injury = _injury(2 + modifier, concussion)
    for wounds_in, q, injury, critical in (
            (1, normal * unsaved, normal_injury, 0),
            (2, critical_hit * chart[0] * unsaved, normal_injury, 1),
            (2, critical_hit * chart[1], normal_injury, 1),
            (2, critical_hit * chart[2], master_injury, 1)):
        if low == 7 and critical:
            continue
        for n_wounds, k in _special_saves(wounds_in, kept):
            for (wounds, taken, worst), w in _take(n_wounds, left, down, injury).items():
                out[blow_index(wounds, taken, worst, critical)] += q * k * w
    if low < 7:  # a critical saved by armour (vital part): struck all the same
        out[blow_index(0, 0, 0, 1)] += critical_hit * chart[0] * (1 - unsaved)
    out.flags.writeable = False
    return out


def _special_saves(n_wounds, kept):
    """(wounds left, P) after a special save against each of ``n_wounds``."""
    return [(k, exact.binomial_pmf(n_wounds, kept)[k]) for k in range(n_wounds + 1)]


@lru_cache(maxsize=256)
def _take(n_wounds, left, down, injury) -> dict:
    """{(wounds, taken off W, worst injury): P} of ``n_wounds`` unsaved wounds on a target
    with ``left`` wounds (3: 3 or more), knocked down or not: a wound on a knocked-down
    warrior takes him out of action; past his last wound each rolls on the injury chart,
    the worst kept, and out of action stops them (R1-9)."""
    ways = {(0, 0, 0, left): 1.0}  # (wounds, taken, worst, wounds left)
    for _ in range(n_wounds):
        nxt: dict = {}
        for (wounds, taken, worst, w), q in ways.items():
            if worst == OUT_OF_ACTION:
                nxt[(wounds, taken, worst, w)] = nxt.get((wounds, taken, worst, w), 0) + q
                continue
            if down:
                key = (wounds + 1, taken, OUT_OF_ACTION, w)
                nxt[key] = nxt.get(key, 0) + q
                continue
            if w > 0:
                w, taken = w - 1, taken + 1
                if w > 0:
                    key = (wounds + 1, taken, worst, w)
                    nxt[key] = nxt.get(key, 0) + q
                    continue
            for result, c in enumerate(injury):
                if c > 0:
                    key = (wounds + 1, taken, max(worst, result), w)
                    nxt[key] = nxt.get(key, 0) + q * c
        ways = nxt
    out: dict = {}
    for (wounds, taken, worst, _), q in ways.items():
        out[(wounds, taken, worst)] = out.get((wounds, taken, worst), 0) + q
    return out


def _injury(bonus, concussion) -> tuple:
    """P(none, knocked down, stunned, out of action) of one injury roll + ``bonus`` (R1-9);
    a concussion weapon stuns on a 2 as well."""
    out = [0.0] * INJURIES
    for face in range(1, 7):
        roll = face + bonus
        if roll >= 5:
            out[OUT_OF_ACTION] += 1 / 6
        elif roll >= 3 or (concussion == 1 and roll == 2):
            out[STUNNED] += 1 / 6
        else:
            out[KNOCKED_DOWN] += 1 / 6
    return tuple(out)
