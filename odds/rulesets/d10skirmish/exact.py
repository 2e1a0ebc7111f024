"""The d10skirmish exact solver (issue 12): the kernel's fight, computed instead of sampled.

Who starts which exchange, with how many dice answering, follows from the AP rules alone
(R3-2, R3-4, R3-8, R3-9, §4.2(6)-(7)): no die changes it. So the fight is a fixed
:func:`schedule` of exchanges, and its state between two exchanges is the pair of wounds the
fighters have taken. Each kind of exchange (who starts, how many dice answer) gets its exact
law of wounds dealt, from every roll of the dice (:func:`exchange_law`, through the kernel's
own :func:`~odds.rulesets.d10skirmish.kernel.resolve` or ``_landed``) and the binomial
armour rolls (A2, A3); :func:`solve` walks the wound states through the schedule, merging
equal ones.

``states`` counts the most merged states any step held: the wound states after an exchange,
the tallies of dice counted face by face in an exchange's law (no ±1 ability), or, when a
fighter turns dice (R3-6), the distinct pairs of rolls (dice sorted) that are resolved one
by one.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from odds.core.exact import binomial_pmf, check_states
from odds.core.outcome import ATTACKER, DEFENDER, DESTROYED, FLED, MUTUAL, NONE, UNRESOLVED
from odds.rulesets.d10skirmish.kernel import SHIFT, _landed, resolve
from odds.rulesets.d10skirmish.rules import CHARGE_AP

FACES = 10
WINNER = (ATTACKER, DEFENDER)  # the outcome code of side 0, 1


def covers(scenario) -> str | None:
    """None: the solver plays every rule the d10skirmish kernel plays (the dice of large
    exchanges are bounded by ``max_states`` instead)."""
    return None


class Exchange(NamedTuple):
    """One exchange of the schedule."""

    turn: int    # the turn it is fought in
    active: int  # the side that starts it and rolls all its attacks (0 attacker, 1 defender)
    answer: int  # dice the other side rolls back: its attacks, 1 (no AP left) or 0 (flees)
    fled: bool   # the other side flees: the fight ends after it (R3-8)


def schedule(plan) -> list[Exchange]:
    """The exchanges of a fight that nobody leaves, in order, up to ``max_rounds`` turns or
    the one its charged fighter flees from; for a push, those after a failed push (R3-9).

    The control flow of ``kernel.play_fight`` and the reaction of ``kernel._exchange`` with
    the dice taken out: AP are spent the same whatever the dice show.
    """
    c = plan.charger
    ap = list(plan.ap)
    if plan.charged_ap_left >= 0:
        ap[1 - c] = plan.charged_ap_left
    out = []
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
            attacking = not plan.opening_ends_activation
        elif opening:
            cost = CHARGE_AP
        while attacking and ap[actor] >= cost:
            ap[actor] -= cost
            r = 1 - actor
            if ap[r] >= max(1, plan.reaction_ap):
                ap[r] -= plan.reaction_ap
                fled = plan.flee and r != plan.charger
                out.append(Exchange(turn, actor, 0 if fled else plan.attacks[r], fled))
                if fled:
                    return out
            else:
                out.append(Exchange(turn, actor, 1, False))
            cost = plan.melee_attack_ap
            attacking = not (opening and plan.opening_ends_activation)
        opening = False
        if other_to_act:
            actor, other_to_act = 1 - actor, False
            continue
        if turn == plan.max_rounds:
            return out
        turn += 1
        starter = 1 - starter if plan.alternate else c
        actor, other_to_act = starter, True
        ap = list(plan.ap)


# --- one exchange: the exact law of what lands (R3-4 ... R3-7) -----------------------------

def exchange_law(plan, active: int, answer: int, max_states: int, turn: int = 1):
    """(law, states): law[c0, h0, c1, h1] is the probability that side 0 lands c0 criticals
    and h0 other hits and side 1 c1 and h1, when side ``active`` rolls all its attacks and
    the other ``answer`` dice (R3-4 ... R3-7); ``states`` as in the module docstring."""
    dice = [0, 0]
    dice[active] = plan.attacks[active]
    dice[1 - active] = answer
    if plan.adjust[0] == 0 and plan.adjust[1] == 0:
        law, states = _tally_faces(dice[0], dice[1], plan.skill[0], plan.skill[1],
                                   plan.crit_blockable)
        check_states(states, max_states, turn)
        return law, states
    faces = [_faces(plan, s) for s in (0, 1)]
    states = math.comb(dice[0] + len(faces[0]) - 1, dice[0]) * \
        math.comb(dice[1] + len(faces[1]) - 1, dice[1])
    check_states(states, max_states, turn)  # before resolving them one by one
    rolls = [_rolls(dice[s], faces[s]) for s in (0, 1)]
    law = _tally_rolls(*rolls[0], *rolls[1], dice[0], dice[1], plan.skill[0], plan.skill[1],
                       plan.adjust[0], plan.adjust[1], plan.adjust_blocks[0],
                       plan.adjust_blocks[1], active, plan.crit_blockable, plan.create_crit)
    return law, states


def _faces(plan, s: int) -> dict[int, float]:
    """The faces that tell side s's dice apart when dice are turned (R3-5, R3-6), each the
    face shown for all the faces it stands for, with their probability:

    - each face that an enemy hit may equal, as it shows or turned by one (it may block or be
      blocked), and a 2 that may be turned to a critical 1;
    - the hits above: no enemy hit (at most the enemy's MS, whatever it turns) can ever equal
      them, so they land and turning them never helps: shown as its MS;
    - one above its MS, if it turns dice: a miss it may turn into a hit;
    - the faces above: misses whatever is turned, shown as a 10.
    """
    skill = plan.skill[s]
    turns = plan.adjust[s] > 0
    kept = min(skill, plan.skill[1 - s] + turns)
    faces = {f: 1 / FACES for f in range(1, kept + 1)}
    if skill > kept:
        faces[skill] = (skill - kept) / FACES
    top = min(FACES, skill + turns)
    if top > skill:
        faces[top] = 1 / FACES
    if top < FACES:
        faces[FACES] = (FACES - top) / FACES
    return faces


def _rolls(n: int, faces: dict[int, float]) -> tuple[np.ndarray, np.ndarray]:
    """Every roll of n dice over ``faces`` (see :func:`_faces`), sorted, as the kernel's
    packed counts by face, and its probability."""
    return _sorted_rolls(n, np.array(list(faces), np.int64), np.array(list(faces.values())),
                         math.comb(n + len(faces) - 1, n))


@njit(cache=True)
def _sorted_rolls(n, shown, p, m):
    """The m rolls of :func:`_rolls`: each count of dice per face (the faces ``shown`` with
    probabilities ``p``), in turn, with its multinomial probability."""
    fact = np.ones(n + 1)
    for k in range(1, n + 1):
        fact[k] = fact[k - 1] * k
    last = len(shown) - 1
    counts = np.zeros(len(shown), np.int64)
    counts[0] = n
    packed = np.zeros(m, np.int64)
    weights = np.zeros(m)
    for r in range(m):
        weight = fact[n]
        for f in range(len(shown)):
            packed[r] += counts[f] << (SHIFT * shown[f])
            weight *= p[f] ** counts[f] / fact[counts[f]]
        weights[r] = weight
        if r + 1 < m:  # the next count: one die moves from the last face that has any
            j = last - 1
            while counts[j] == 0:
                j -= 1
            tail = counts[last]
            counts[last] = 0
            counts[j] -= 1
            counts[j + 1] = tail + 1
    return packed, weights


@njit(cache=True)
def _tally_rolls(packed0, weight0, packed1, weight1, n0, n1, skill0, skill1, adjust0, adjust1,
                 blocks0, blocks1, first, crit_blockable, create_crit):
    """The law of (c0, h0, c1, h1) over every pair of rolls, each through the kernel's
    ``resolve`` (R3-5 ... R3-7 with dice turned, R3-6)."""
    law = np.zeros((n0 + 1, n0 + 1, n1 + 1, n1 + 1))
    for i in range(len(packed0)):
        for j in range(len(packed1)):
            c0, h0, c1, h1, _b = resolve(packed0[i], packed1[j], skill0, skill1, adjust0,
                                         adjust1, blocks0, blocks1, first, crit_blockable,
                                         create_crit)
            law[c0, h0, c1, h1] += weight0[i] * weight1[j]
    return law


@njit(cache=True)
def _tally_faces(n0, n1, skill0, skill1, crit_blockable):
    """(law, states) of (c0, h0, c1, h1) when nobody turns dice: the dice counted face by
    face. Blocks pair equal faces only, so the kernel's ``_landed`` of one face at a time adds
    up to that of the whole roll (R3-5, R3-7). Tallies (dice placed, plain hits landed) of
    each side are merged; the weights are multinomial, prod(p^k / k!) times n0! n1! at the
    end. Misses first, then faces 2 .. 10, then the 1s take the dice left."""
    tally = np.zeros((n0 + 1, n0 + 1, n1 + 1, n1 + 1))
    fact = np.ones(max(n0, n1) + 1)
    for k in range(1, len(fact)):
        fact[k] = fact[k - 1] * k
    miss0 = (FACES - skill0) / FACES
    miss1 = (FACES - skill1) / FACES
    for m0 in range(n0 + 1):
        for m1 in range(n1 + 1):
            tally[m0, 0, m1, 0] = miss0 ** m0 / fact[m0] * miss1 ** m1 / fact[m1]
    states = _live(tally)
    for v in range(2, FACES + 1):
        if v > skill0 and v > skill1:
            continue
        top0 = n0 if v <= skill0 else 0
        top1 = n1 if v <= skill1 else 0
        new = np.zeros_like(tally)
        for u0 in range(n0 + 1):
            for g0 in range(u0 + 1):
                for u1 in range(n1 + 1):
                    for g1 in range(u1 + 1):
                        p = tally[u0, g0, u1, g1]
                        if p == 0.0:
                            continue
                        for k0 in range(min(top0, n0 - u0) + 1):
                            for k1 in range(min(top1, n1 - u1) + 1):
                                _c0, a, _c1, b, _b = _landed(k0 << (SHIFT * v), 0,
                                                             k1 << (SHIFT * v), 0, skill0,
                                                             skill1, crit_blockable)
                                new[u0 + k0, g0 + a, u1 + k1, g1 + b] += (
                                    p * (1 / FACES) ** (k0 + k1) / (fact[k0] * fact[k1]))
        tally = new
        states = max(states, _live(tally))
    law = np.zeros_like(tally)
    for u0 in range(n0 + 1):
        for g0 in range(u0 + 1):
            for u1 in range(n1 + 1):
                for g1 in range(u1 + 1):
                    p = tally[u0, g0, u1, g1]
                    if p == 0.0:
                        continue
                    k0, k1 = n0 - u0, n1 - u1
                    c0, _h0, c1, _h1, _b = _landed(0, k0, 0, k1, skill0, skill1,
                                                   crit_blockable)
                    law[c0, g0, c1, g1] += (p * (1 / FACES) ** (k0 + k1) / (fact[k0] * fact[k1])
                                            * fact[n0] * fact[n1])
    return law, states


@njit(cache=True)
def _live(a):
    """How many entries of ``a`` hold probability."""
    n = 0
    for x in a.ravel():
        n += x != 0.0
    return n


# --- wounds (A1 ... A3, A6) ----------------------------------------------------------------

def _dealt(plan, s: int, most: int) -> np.ndarray:
    """dealt[c, h, w]: P(side s's c landed criticals and h other hits deal w wounds to the
    other fighter), w capped at ``most`` (its W). Each hit gets through its armour roll with
    P(D10 > ARM) and deals DMG (A2); a critical per ``crit_mode`` (A3), as ``kernel._wounds``."""
    e = 1 - s
    n = plan.attacks[s]
    through = (FACES - plan.armour[e]) / FACES
    crit_through = 1.0 if plan.crit_ignores_armour else through
    hit, crit = plan.damage[s], plan.damage[s] * plan.crit_multiplier
    dealt = np.zeros((n + 1, n + 1, most + 1))
    for c in range(n + 1):
        crits = binomial_pmf(c, crit_through)
        for h in range(n + 1 - c):
            hits = binomial_pmf(h, through)
            wounds = np.minimum(np.add.outer(crit * np.arange(c + 1), hit * np.arange(h + 1)),
                                most)
            np.add.at(dealt[c, h], wounds.ravel(), np.outer(crits, hits).ravel())
    return dealt


def wound_law(plan, law) -> np.ndarray:
    """wounds[i, j]: P(the exchange deals i wounds to the attacker and j to the defender),
    each capped at its W; both land together (A6)."""
    n0, n1 = law.shape[0] - 1, law.shape[2] - 1
    to_defender = _dealt(plan, 0, plan.wounds[1])[:n0 + 1, :n0 + 1]
    to_attacker = _dealt(plan, 1, plan.wounds[0])[:n1 + 1, :n1 + 1]
    by_side1 = np.tensordot(law, to_defender, axes=([0, 1], [0, 1]))  # (c1, h1, j)
    return np.tensordot(to_attacker, by_side1, axes=([0, 1], [0, 1]))  # (i, j)


# --- the fight -----------------------------------------------------------------------------

@njit(cache=True)
def _walk(laws, kinds, w0, w1, start):
    """The wound states through the exchanges: laws[kinds[k]] is exchange k's wound law.
    Returns the states still live after the last, the mass of each exchange's fights that
    took the attacker down (by the defender's wounds; both down at w1) and the defender
    alone (by the attacker's wounds), and the live states after each exchange."""
    live = np.zeros((w0, w1))
    live[0, 0] = start
    attacker_down = np.zeros((len(kinds), w1 + 1))
    defender_down = np.zeros((len(kinds), w0))
    states = np.zeros(len(kinds), np.int64)
    # each law's possible outcomes: wounds to the attacker, to the defender, probability
    n = np.zeros(len(laws), np.int64)
    to0 = np.zeros((len(laws), (w0 + 1) * (w1 + 1)), np.int64)
    to1 = np.zeros_like(to0)
    mass = np.zeros(to0.shape)
    for m in range(len(laws)):
        for i in range(w0 + 1):
            for j in range(w1 + 1):
                if laws[m, i, j] != 0.0:
                    to0[m, n[m]], to1[m, n[m]], mass[m, n[m]] = i, j, laws[m, i, j]
                    n[m] += 1
    for k in range(len(kinds)):
        m = kinds[k]
        new = np.zeros((w0, w1))
        for a in range(w0):
            for b in range(w1):
                p = live[a, b]
                if p == 0.0:
                    continue
                for e in range(n[m]):
                    x = min(a + to0[m, e], w0)
                    y = min(b + to1[m, e], w1)
                    q = p * mass[m, e]
                    if x == w0:
                        attacker_down[k, y] += q
                    elif y == w1:
                        defender_down[k, x] += q
                    else:
                        new[x, y] += q
        live = new
        states[k] = _live(live)
    return live, attacker_down, defender_down, states


def _kind(plan, x: Exchange) -> tuple[int, int, int]:
    """What an exchange's law depends on: the dice of side 0 and side 1, and who turns dice
    first when both may (R3-6); otherwise who started it makes no difference."""
    dice = (plan.attacks[0], x.answer) if x.active == 0 else (x.answer, plan.attacks[1])
    return (*dice, x.active if plan.adjust[0] and plan.adjust[1] else -1)


def solve(plan, max_states: int):
    """(rows, weights, states): every way the fight ends, as ``kernel.play_fight`` writes it
    (winner, end, rounds, attacker_lost, defender_lost, attacker_wounds, defender_wounds,
    exchanges, pushed), its probability, and the most states a step held."""
    w0, w1 = plan.wounds
    c = plan.charger
    parts = []
    start = 1.0
    if plan.push:  # R3-9: an MS test; on a success the target falls and the melee ends
        success = plan.skill[c] / FACES
        fall = min(plan.fall_damage, plan.wounds[1 - c])
        lost = fall == plan.wounds[1 - c]
        taken = [0, 0]
        taken[1 - c] = fall
        parts.append(_rows(success, WINNER[c], DESTROYED if lost else FLED, 1, c == 1 and lost,
                           c == 0 and lost, taken[0], taken[1], 0, 1))
        start = 1.0 - success
    exchanges = schedule(plan)
    kinds, laws, states = {}, [], 1
    for x in exchanges:
        if _kind(plan, x) not in kinds:
            law, held = exchange_law(plan, x.active, x.answer, max_states, x.turn)
            states = max(states, held)
            kinds[_kind(plan, x)] = len(laws)
            laws.append(wound_law(plan, law))
    kind = np.array([kinds[_kind(plan, x)] for x in exchanges], np.int64)
    laws = np.array(laws) if laws else np.zeros((1, w0 + 1, w1 + 1))
    live, attacker_down, defender_down, held = _walk(laws, kind, w0, w1, start)
    for x, n in zip(exchanges, held):
        check_states(int(n), max_states, x.turn)
        states = max(states, int(n))
    turns = np.array([x.turn for x in exchanges], np.int64)
    k, j = np.nonzero(attacker_down)
    both = j == w1  # A6
    parts.append(_rows(attacker_down[k, j], np.where(both, NONE, DEFENDER),
                       np.where(both, MUTUAL, DESTROYED), turns[k], 1, both, w0, j, k + 1, 0))
    k, i = np.nonzero(defender_down)
    parts.append(_rows(defender_down[k, i], ATTACKER, DESTROYED, turns[k], 0, 1, i, w1, k + 1,
                       0))
    i, j = np.nonzero(live)
    if exchanges and exchanges[-1].fled:  # R3-8: the fleeing fighter took the hits and left
        last = exchanges[-1]
        parts.append(_rows(live[i, j], WINNER[last.active], FLED, last.turn, 0, 0, i, j,
                           len(exchanges), 0))
    else:  # A5
        parts.append(_rows(live[i, j], NONE, UNRESOLVED, plan.max_rounds, 0, 0, i, j,
                           len(exchanges), 0))
    return (np.concatenate([rows for rows, _ in parts], axis=1),
            np.concatenate([weights for _, weights in parts]), states)


def _rows(weights, *columns):
    """(rows, weights) of outcome rows whose columns are given as values or arrays."""
    weights = np.atleast_1d(weights)
    rows = np.stack([np.broadcast_to(np.asarray(x, np.int64), weights.shape) for x in columns])
    return rows, weights
