"""The d10skirmish rule text: a fight written once, for the kernel and the exact solver alike
(the shape is described in ``odds/rulesets/README.md``).

Who starts which exchange, with how many dice answering, follows from the AP rules alone
(R3-2, R3-4, R3-8, R3-9, §4.2(6)-(7)): no die changes it. So the plan holds the fight's
:func:`schedule` of exchanges, compiled once, and both paths walk it.

- **Laws** (:func:`with_laws`): for each kind of exchange (who rolls how many dice, who turns
  dice first), the wounds it deals to both fighters, from every roll of the dice through
  ``exchange.resolve`` (:func:`exchange_law`) and the binomial armour rolls (A2, A3)
  (:func:`wound_law`); the push's MS test (R3-9). An exchange whose rolls are too many to
  tabulate (more than ``LAW_ROLLS``) is rolled die by die instead, through the same
  ``exchange.resolve``, with a D10 law a die and an armour law a hit.
- **Stages** (:func:`stage`): the opening (a push, R3-9), then one exchange of the schedule at
  a time, with its wounds taken together (A6), a fighter down, or a flight (R3-8).
- **The row** (:func:`row`).
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from odds.core.dice import law, laws, pick
from odds.core.exact import TooManyStates, binomial_pmf, check_states
from odds.core.outcome import (ATTACKER, DEFENDER, DESTROYED, FLED, MUTUAL, NO_FIGHT, NONE,
                               UNRESOLVED)
from odds.core.walk import clear
from odds.rulesets.d10skirmish.exchange import SHIFT, _landed, resolve
from odds.rulesets.d10skirmish.rules import CHARGE_AP

FACES = 10
LAW_ROLLS = 200_000  # the most rolls an exchange's law is tabulated from for the kernel
CODE = (ATTACKER, DEFENDER)  # the outcome code of side 0, 1

# the state's fields: OVER (odds.core.walk) is 0 while the fight goes on
OVER, WINNER, END, ROUNDS, AT, OPENED, PUSHED, TAKEN = 0, 1, 2, 3, 4, 5, 6, 7  # TAKEN: 2
COLUMNS = 9  # of the outcome row: the shared ones and the ruleset's own
FIELDS = 9
TALLIES = ()  # every field is read by the rules


# -- the schedule ----------------------------------------------------------------------

class Exchange(NamedTuple):
    """One exchange of the schedule."""

    turn: int    # the turn it is fought in
    active: int  # the side that starts it and rolls all its attacks (0 attacker, 1 defender)
    answer: int  # dice the other side rolls back: its attacks, 1 (no AP left) or 0 (flees)
    fled: bool   # the other side flees: the fight ends after it (R3-8)


OPENS, MOVED = 0, 1  # how the charger reaches its target: by its opening, or by a move


def contact(plan) -> tuple[int, int, int] | None:
    """(turn, AP left, how) of the charger's contact with its target (R3-1), or None when it
    does not reach it in ``max_rounds`` turns. Without a distance, turn 1 with all its AP,
    by its opening. With one, in each of its activations: within reach of its opening (a
    charge's double move, a push's one move) and seeing its target, it opens if it has the
    AP, else waits for its next activation; farther, it moves (``move_ap``, its M) while it
    has the AP; a move that ends in contact makes contact. The charged fighter waits."""
    c = plan.charger
    if plan.distance < 0:
        return 1, plan.ap[c], OPENS
    reach, cost = (plan.move, plan.push_ap) if plan.push else (2 * plan.move, CHARGE_AP)
    gap = plan.distance
    for turn in range(1, plan.max_rounds + 1):
        ap = plan.ap[c]
        while True:
            if plan.sight and gap <= reach:
                if ap >= cost:
                    return turn, ap, OPENS
                break
            if gap <= 0:  # unseen, in contact: after a move, or from the start
                return turn, ap, MOVED
            if ap < plan.move_ap:
                break
            ap -= plan.move_ap
            gap -= plan.move
    return None


def schedule(plan) -> list[Exchange]:
    """The exchanges of a fight that nobody leaves, in order, up to ``max_rounds`` turns or
    the one its charged fighter flees from; for a push, those after a failed push (R3-9).
    No exchange before the charger reaches its target (:func:`contact`, R3-1).

    The turn of contact (turn 1 without a distance): the charger's activation opens with the
    charge (R3-2) or push (R3-9), with the AP its moves left it, or after a move into contact
    goes on attacking; then the charged fighter activates unless it had already
    (``charged_ap_left``). Later turns: AP
    back to full, the starter (charger, or alternating) then the other. An activation spends
    ``melee_attack_ap`` per exchange while it can (§4.2(7)); the other fighter reacts with
    its AP (R3-4): fights back, answers with one die, or flees (R3-8).
    """
    c = plan.charger
    met = contact(plan)
    if met is None:
        return []
    turn, left, how = met
    ap = list(plan.ap)
    ap[c] = left
    if plan.charged_ap_left >= 0:
        ap[1 - c] = plan.charged_ap_left
    out = []
    starter = c if plan.charged_ap_left < 0 else 1 - c
    actor = c
    other_to_act = plan.charged_ap_left < 0
    opening = how == OPENS
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


# -- laws ------------------------------------------------------------------------------

def with_laws(plan, max_rolls: int | None = None):
    """``plan`` with its schedule and laws. An exchange of more than ``max_rolls`` rolls
    (default ``LAW_ROLLS``) is left to be rolled die by die; with ``max_rolls`` given (the
    exact solver's bound), such an exchange raises :class:`odds.core.exact.TooManyStates`."""
    strict = max_rolls is not None
    exchanges = schedule(plan)
    met = contact(plan)
    kinds = {}
    for x in exchanges:
        kinds.setdefault(_kind(plan, x), x)
    w0, w1 = plan.wounds
    wound_laws = np.zeros((max(len(kinds), 1), (w0 + 1) * (w1 + 1)))
    tabled = np.zeros(max(len(kinds), 1), np.bool_)
    held, turn = 0, 1  # the most states a law's tabulation held, and its exchange's turn
    for k, x in enumerate(kinds.values()):
        try:
            table, states = exchange_law(plan, x.active, x.answer,
                                         max_rolls if strict else LAW_ROLLS, x.turn)
        except TooManyStates:
            if strict:
                raise
            continue
        wound_laws[k] = wound_law(plan, table).ravel()
        tabled[k] = True
        if states > held:
            held, turn = states, x.turn
    dice = np.array([kind[:2] for kind in kinds] or [[0, 0]], np.int64)
    index = {kind: k for k, kind in enumerate(kinds)}
    return plan._replace(
        contact_turn=0 if met is None else met[0],
        turn=np.array([x.turn for x in exchanges], np.int64),
        active=np.array([x.active for x in exchanges], np.int64),
        kind=np.array([index[_kind(plan, x)] for x in exchanges], np.int64),
        fled=np.array([x.fled for x in exchanges], np.bool_),
        wound_law=laws(wound_laws), tabled=tabled, kind_dice=dice,
        push_law=push_laws([plan.skill[plan.charger]])[0], d10_law=d10_law(),
        armour_law=armour_laws(plan.armour), law_states=held,
        law_turn=turn)


def d10_law() -> np.ndarray:
    """One D10: faces 1 .. 10 at 0 .. 9."""
    return law(np.full(FACES, 1 / FACES))


def push_laws(skills) -> np.ndarray:
    """[i]: a push by a fighter of MS skills[i] fails, succeeds (R3-9: a D10 at most MS)."""
    return laws(np.array([[1 - m / FACES, m / FACES] for m in skills]))


def armour_laws(armours) -> np.ndarray:
    """[i]: a hit on a fighter of ARM armours[i] is saved, gets through (A2: D10 > ARM)."""
    return laws(np.array([[1 - t, t] for t in ((FACES - a) / FACES for a in armours)]))


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



def _dealt(plan, s: int, most: int) -> np.ndarray:
    """dealt[c, h, w]: P(side s's c landed criticals and h other hits deal w wounds to the
    other fighter), w capped at ``most`` (its W). Each hit gets through its armour roll with
    P(D10 > ARM) and deals DMG (A2); a critical per ``crit_mode`` (A3), as :func:`_wounds` rolls them."""
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


def _kind(plan, x: Exchange) -> tuple[int, int, int]:
    """What an exchange's law depends on: the dice of side 0 and side 1, and who turns dice
    first when both may (R3-6); otherwise who started it makes no difference."""
    dice = (plan.attacks[0], x.answer) if x.active == 0 else (x.answer, plan.attacks[1])
    return (*dice, x.active if plan.adjust[0] and plan.adjust[1] else -1)



# -- stages ----------------------------------------------------------------------------

@njit(cache=True, inline="always")
def begin(plan, state):
    """The state before the opening."""
    clear(state)
    state[WINNER] = NONE
    state[END] = UNRESOLVED


@njit(cache=True, inline="always")
def _end(state, winner, end, rounds):
    state[OVER] = 1
    state[WINNER] = winner
    state[END] = end
    state[ROUNDS] = rounds


@njit(inline="always")
def stage(plan, dice, state):
    """The opening, or the schedule's next exchange; past the schedule's last, the fight is
    unresolved after ``max_rounds`` turns (A5). A charger that never reaches its target
    makes no fight (R3-1)."""
    if state[OPENED]:
        _exchange(plan, dice, state)
    else:
        state[OPENED] = 1
        c = plan.charger
        if plan.contact_turn == 0:
            _end(state, NONE, NO_FIGHT, plan.max_rounds)
        elif plan.push and pick(dice, plan.push_law):  # R3-9: the target leaves contact
            state[PUSHED] = 1
            state[TAKEN + 1 - c] = min(plan.fall_damage, plan.wounds[1 - c])
            down = state[TAKEN + 1 - c] >= plan.wounds[1 - c]
            _end(state, CODE[c], DESTROYED if down else FLED, plan.contact_turn)
    if not state[OVER] and state[AT] == len(plan.turn):
        _end(state, NONE, UNRESOLVED, plan.max_rounds)


@njit(cache=True, inline="always")
def _exchange(plan, dice, state):
    """Exchange ``state[AT]`` of the schedule: wounds to both fighters at once (A6), then a
    fighter down (both: mutual) or the reacting fighter's flight (R3-8)."""
    k = state[AT]
    kind = plan.kind[k]
    if plan.tabled[kind]:
        dealt = pick(dice, plan.wound_law[kind])
        to0 = dealt // (plan.wounds[1] + 1)
        to1 = dealt % (plan.wounds[1] + 1)
    else:
        to0, to1 = _rolled(plan, dice, kind, plan.active[k])
    state[TAKEN] = min(state[TAKEN] + to0, plan.wounds[0])
    state[TAKEN + 1] = min(state[TAKEN + 1] + to1, plan.wounds[1])
    state[AT] = k + 1
    down0 = state[TAKEN] >= plan.wounds[0]
    down1 = state[TAKEN + 1] >= plan.wounds[1]
    if down0 and down1:
        _end(state, NONE, MUTUAL, plan.turn[k])
    elif down0 or down1:
        _end(state, DEFENDER if down0 else ATTACKER, DESTROYED, plan.turn[k])
    elif plan.fled[k]:  # the other fighter took the hits and left
        _end(state, CODE[plan.active[k]], FLED, plan.turn[k])


@njit(cache=True, inline="always")
def _rolled(plan, dice, kind, first):
    """(wounds to side 0, to side 1) of an exchange rolled die by die (R3-5 ... R3-7, A2, A3)."""
    return rolled(plan, dice, plan.kind_dice[kind, 0], plan.kind_dice[kind, 1], 0, 1, first)


@njit(cache=True, inline="always")
def rolled(plan, dice, n0, n1, f0, f1, first):
    """(wounds to f0, to f1) of an exchange of fighters f0 (the attacker's) and f1 rolled
    die by die, n0 and n1 dice, side ``first`` turning dice first (R3-5 ... R3-7, A2, A3);
    f0's dice first, then f1's, then the armour rolls of the hits on f0, then on f1. For a
    plan of one fighter a side f0, f1 are 0, 1; gang.py passes its fighters."""
    rolled0 = 0
    for _ in range(n0):
        rolled0 += 1 << (SHIFT * (pick(dice, plan.d10_law) + 1))
    rolled1 = 0
    for _ in range(n1):
        rolled1 += 1 << (SHIFT * (pick(dice, plan.d10_law) + 1))
    c0, h0, c1, h1, _b = resolve(rolled0, rolled1, plan.skill[f0], plan.skill[f1],
                                 plan.adjust[f0], plan.adjust[f1], plan.adjust_blocks[f0],
                                 plan.adjust_blocks[f1], first, plan.crit_blockable,
                                 plan.create_crit)
    return _wounds(plan, dice, f1, f0, c1, h1), _wounds(plan, dice, f0, f1, c0, h0)


@njit(cache=True, inline="always")
def _wounds(plan, dice, s, e, crits, hits):
    """Wounds fighter s's landed hits deal to fighter e (A2 armour, A3 criticals)."""
    total = 0
    for _ in range(hits):
        total += plan.damage[s] * pick(dice, plan.armour_law[e])
    for _ in range(crits):
        if plan.crit_ignores_armour or pick(dice, plan.armour_law[e]):
            total += plan.damage[s] * plan.crit_multiplier
    return total


# -- the row ---------------------------------------------------------------------------

@njit(cache=True, inline="always")
def row(plan, state, out, t):
    """The outcome record of an ended fight into column t of ``out``."""
    out[0, t] = state[WINNER]
    out[1, t] = state[END]
    out[2, t] = state[ROUNDS]
    for s in range(2):
        out[3 + s, t] = state[TAKEN + s] >= plan.wounds[s]
        out[5 + s, t] = state[TAKEN + s]
    out[7, t] = state[AT]
    out[8, t] = state[PUSHED]
