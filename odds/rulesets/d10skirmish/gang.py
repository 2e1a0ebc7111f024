"""The d10skirmish rule text of gangs: several fighters a side, each activating in turn with
its action points, written once for the kernel and the exact solver alike (the shape is
described in ``odds/rulesets/README.md``).

Who fights whom now follows from the dice (a fighter down leaves its contacts free, a
fighter's policy picks its next target), so there is no schedule as in ``fight.py``: the
stages play the activations themselves (R3-1, R3-2, R3-4, R3-8, R3-9). A fight of one fighter
a side plays here too when a fighter has a flight threshold (``flee_below``), and the tests
check that this rule text, given any fight of one fighter a side, draws the same numbers as
``fight.py``'s schedule, pick for pick.

- **Laws** (``compile.gang_plan``): one wound law for each fighter starting an exchange,
  its target and how the target answers (all its attacks, one die, or none as it flees),
  from ``fight.exchange_law`` and ``fight.wound_law``; a push's MS test and each fighter's
  armour roll. An exchange too large to tabulate is rolled die by die.
- **Stages** (:func:`stage`): one step at a time (the next fighter's activation, a move, a
  charge, a push, an exchange) to the end in the kernel; in the solver, up to the step that
  picks (:func:`odds.core.dice.picked`).
- **The row** (:func:`row`): the sides' figures, then with a side of several fighters each
  fighter's fate, lost, wounds, whether it got into the fight, and its exchanges.

Distances are whole hundredths of an inch (compile rounds them). Each fighter has a gap to
the melee point (0: at it); two fighters are the sum of their gaps apart. A move takes M off
its gap, down to 0; a charge reaches an enemy within 2M and puts the charger where its
target stands.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from odds.core.dice import pick, picked
from odds.core.outcome import (ATTACKER, DEFENDER, DESTROYED, FLED, MUTUAL, NO_FIGHT, NONE,
                               UNIT_DESTROYED, UNIT_FLED, UNIT_STANDING, UNIT_UNREACHED,
                               UNRESOLVED)
from odds.core.casts import slot
from odds.core.walk import clear
from odds.rulesets.d10skirmish.fight import rolled
from odds.rulesets.d10skirmish.rules import CHARGE_AP

NEAREST, WEAKEST, ENGAGED = 0, 1, 2  # target policies
FULL, ONE, FLEES = 0, 1, 2  # how a target answers an exchange: all its attacks, 1 die, none
IN, DOWN, GONE, PUSHED_OUT = 0, 1, 2, 3  # a fighter's status (GONE: fled, R3-8)

# the state's head: OVER (odds.core.walk) is 0 while the fight goes on
OVER, WINNER, END, ROUNDS, ACTOR, NEXT, STARTER, MELEE, PUSHED, EXCHANGES = range(10)
HEAD = 10
# then a block of n fields each, one a fighter: wounds taken, AP left, gap to the melee point
# (hundredths of an inch), its contacts (a bit for each enemy, by its place in its side),
# status, activated this turn, got into contact; exchanges fought (a tally)
TAKEN, AP, GAP, CONTACT, STATUS, DONE, MET, XCH = range(8)
SHARED = 9  # the outcome row's columns: the shared ones, exchanges, pushed
PARTS = 5   # and, with a side of several fighters, each one's: fate, lost, wounds, fought,
            # exchanges


class Gang(NamedTuple):
    """The plan of a gang's fight (compile.gang_plan): arrays indexed by fighter, the
    attacker's first in file order, and the engagement as numbers."""

    side: np.ndarray           # [i] 0 attacker, 1 defender
    pos: np.ndarray            # [i] its place in its side
    members: np.ndarray        # [s, j] side s's j-th fighter (-1 past its last)
    size: np.ndarray           # [s] fighters a side
    ap: np.ndarray             # AP each turn (R3-2)
    wounds: np.ndarray         # W (A1)
    attacks: np.ndarray        # dice it rolls when it fights fully (R3-3)
    skill: np.ndarray          # effective MS (R3-5)
    damage: np.ndarray         # effective DMG (A2, A4)
    armour: np.ndarray         # ARM (A2)
    adjust: np.ndarray         # dice it may turn (R3-6)
    adjust_blocks: np.ndarray  # 1: it turns dice for blocks (R3-6)
    move: np.ndarray           # M, hundredths of an inch (R3-1)
    gap: np.ndarray            # its gap to the melee point at the start, hundredths
    named: np.ndarray          # the enemy it charges (-1: none)
    sight: np.ndarray          # it sees its first target (R3-1)
    fresh: np.ndarray          # out of the fight at the start (engaged = false)
    policy: np.ndarray         # whom it goes for: gang.NEAREST, WEAKEST, ENGAGED
    flee_below: np.ndarray     # it flees instead of answering at this many wounds left
    per_fighter: bool          # a side has several fighters: each one's columns
    charger: int
    push: bool                 # a named charge opens with a push (R3-9)
    flee: bool                 # the charged side flees when it may (R3-8)
    charged_ap_left: int       # -1: the charged side has not activated in turn 1 (R3-4)
    opening_ends_activation: bool
    melee_attack_ap: int
    reaction_ap: int
    alternate: bool
    crit_blockable: bool
    create_crit: bool
    crit_ignores_armour: bool
    crit_multiplier: int
    push_ap: int
    fall_damage: int
    max_rounds: int
    move_ap: int
    law_of: np.ndarray         # [a, t, answer]: row of wound_law (-1: rolled die by die)
    wound_law: np.ndarray      # wounds to the attacker's fighter x (W + 1) + to the defender's
    push_law: np.ndarray       # [i]: its push fails, succeeds (R3-9)
    armour_law: np.ndarray     # [i]: a hit on it is saved, gets through (A2)
    d10_law: np.ndarray        # one D10: faces 1 .. 10 at 0 .. 9
    law_states: int = 0        # the most states tabulating a law held (the exact bound)
    n: int = 0                 # fighters (a constant in a kernel variant: known)


@njit(cache=True, inline="always")
def _f(plan, what, i):
    """Where fighter i keeps ``what`` (TAKEN ... XCH), unsigned (odds.core.casts.slot)."""
    return slot(HEAD + what * plan.n + i)


@njit(cache=True, inline="always")
def fields(plan):
    return np.int64(HEAD + 8 * plan.n)


@njit(cache=True, inline="always")
def columns(plan):
    return np.int64(SHARED + (PARTS * plan.n if plan.per_fighter else 0))


@njit(cache=True)
def tallies(plan):
    """The exchanges, the fight's and each fighter's (odds.core.walk: only added to)."""
    out = np.empty(plan.n + 1, np.int64)
    out[0] = EXCHANGES
    for i in range(plan.n):
        out[i + 1] = HEAD + XCH * plan.n + i
    return out


@njit(cache=True)
def spans(plan):
    """The tallies' spans: an exchange costs its starter at least one AP, so a turn has at
    most as many as the fighters' AP add up to."""
    out = np.zeros((plan.n + 1, 2), np.int64)
    out[:, 1] = plan.max_rounds * plan.ap.sum()
    return out


@njit(cache=True, _nrt=False, forceinline=True)
def clock(plan, state):
    """How far the fight has come (odds.core.walk.solve): the turn, then each fighter's AP
    spent and whether it has activated, a fighter out of the fight counting as done. Every
    stage spends AP before its pick (a strike, a charge, a push), so the clock moves on."""
    top = 11  # more than any fighter's AP (at most 10)
    pos = 0
    for i in range(plan.n):
        if state[_f(plan, STATUS, i)] == IN:
            pos += plan.ap[i] - state[_f(plan, AP, i)] + top * state[_f(plan, DONE, i)]
        else:
            pos += plan.ap[i] + top
    return state[ROUNDS] * (2 * top * plan.n + 1) + pos


# -- stages ----------------------------------------------------------------------------

@njit(cache=True, _nrt=False, forceinline=True)
def begin(plan, state):
    """Turn 1: every fighter at its gap with its AP, the charging side to activate first;
    the charged side's with ``charged_ap_left`` have activated already (R3-4)."""
    clear(state)
    state[WINNER] = NONE
    state[END] = UNRESOLVED
    state[ROUNDS] = 1
    state[ACTOR] = -1
    state[NEXT] = plan.charger
    state[STARTER] = plan.charger if plan.charged_ap_left < 0 else 1 - plan.charger
    for i in range(plan.n):
        state[_f(plan, AP, i)] = plan.ap[i]
        state[_f(plan, GAP, i)] = plan.gap[i]
        if plan.side[i] != plan.charger and plan.charged_ap_left >= 0:
            state[_f(plan, AP, i)] = plan.charged_ap_left
            state[_f(plan, DONE, i)] = 1


@njit(inline="always")
def stage(plan, dice, state):
    """Step on to the end (the kernel), or through the first step that picks (the solver)."""
    while not state[OVER] and not picked(dice):
        _step(plan, dice, state)


@njit(cache=True, _nrt=False, forceinline=True)
def _step(plan, dice, state):
    """The next fighter's activation, or one action of the fighter activating: strike an
    enemy in contact (R3-4, §4.2(7)), else go for its target: charge (R3-2) or push (R3-9)
    it within reach, walk into contact unseen, or move towards it (R3-1); an activation ends
    when the fighter can do none of these."""
    i = state[ACTOR]
    if i < 0:
        _next_activation(plan, state)
        return
    ap = state[_f(plan, AP, i)]
    if state[_f(plan, CONTACT, i)]:
        if ap >= plan.melee_attack_ap:
            state[_f(plan, AP, i)] = ap - plan.melee_attack_ap
            _exchange(plan, dice, state, i, _struck(plan, state, i))
        else:
            _done(plan, state, i)
        return
    t = -1 if _holds(plan, state, i) else _target(plan, state, i)
    if t < 0:
        _done(plan, state, i)
        return
    gap = state[_f(plan, GAP, i)]
    apart = gap + state[_f(plan, GAP, t)]
    met = state[_f(plan, MET, i)]
    pushes = plan.push and plan.named[i] == t and not met
    reach = plan.move[i] if pushes else 2 * plan.move[i]
    cost = plan.push_ap if pushes else CHARGE_AP
    if (plan.sight[i] or met) and apart <= reach:
        if ap < cost:  # in reach: it waits for the AP of its next activation
            _done(plan, state, i)
            return
        state[_f(plan, AP, i)] = ap - cost
        _meet(plan, state, i, t)
        if pushes:
            _push(plan, dice, state, i, t)
        else:
            _exchange(plan, dice, state, i, t)  # the charge's own exchange
        if plan.opening_ends_activation and state[ACTOR] == i:
            _done(plan, state, i)
    elif apart <= 0:  # unseen, at its target: in contact, to strike with the AP it has
        _meet(plan, state, i, t)
    elif gap > 0 and ap >= plan.move_ap:
        state[_f(plan, AP, i)] = ap - plan.move_ap
        state[_f(plan, GAP, i)] = max(gap - plan.move[i], 0)
    else:
        _done(plan, state, i)


@njit(cache=True, _nrt=False, forceinline=True)
def _next_activation(plan, state):
    """The first fighter in file order of the side whose turn it is to activate that is in
    the fight and has not activated, else the other side's; the sides alternate (R3-2).
    When neither has one, a new turn: AP back to full, started by the charging side, or
    (``turn_order = "alternate"``, once the melee has begun) by the side that did not start
    the last; past ``max_rounds`` the fight is unresolved (A5), or no fight if no one ever
    reached an enemy (R3-1)."""
    for k in range(2):
        s = state[NEXT] ^ k
        for j in range(plan.size[s]):
            i = plan.members[s, j]
            if state[_f(plan, STATUS, i)] == IN and not state[_f(plan, DONE, i)]:
                state[ACTOR] = i
                state[NEXT] = 1 - s
                return
    if state[ROUNDS] >= plan.max_rounds:
        _end(plan, state, NONE, UNRESOLVED if state[MELEE] else NO_FIGHT)
        return
    state[ROUNDS] += 1
    starter = plan.charger
    if plan.alternate and state[MELEE]:
        starter = 1 - state[STARTER]
    state[STARTER] = starter
    state[NEXT] = starter
    for i in range(plan.n):
        if state[_f(plan, STATUS, i)] == IN:
            state[_f(plan, AP, i)] = plan.ap[i]
        state[_f(plan, DONE, i)] = 0


@njit(cache=True, inline="always")
def _done(plan, state, i):
    """Fighter i's activation ends."""
    state[_f(plan, DONE, i)] = 1
    state[ACTOR] = -1


@njit(cache=True, _nrt=False, forceinline=True)
def _holds(plan, state, i):
    """A fighter of the charged side that starts in the fight waits to be charged: it goes
    for no one before the first contact of the fight."""
    return plan.side[i] != plan.charger and not plan.fresh[i] and not state[MELEE]


@njit(cache=True, _nrt=False, forceinline=True)
def _left(plan, state, i):
    return plan.wounds[i] - state[_f(plan, TAKEN, i)]


@njit(cache=True, _nrt=False, forceinline=True)
def _ganged(plan, state, t):
    """How many fighters are in contact with t (all of them its enemies)."""
    return _popcount(state[_f(plan, CONTACT, t)])


@njit(cache=True, inline="always")
def _popcount(x):
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@njit(cache=True, _nrt=False, forceinline=True)
def _better(plan, state, i, t, u):
    """Whether enemy t is a better target than u (-1: none yet) for fighter i's policy:
    nearest (fewest inches away), weakest (fewest wounds left), or engaged (most of i's
    side already in contact with it); ties to the nearer, then the first in file order."""
    if u < 0:
        return True
    gi = state[_f(plan, GAP, i)]
    dt = gi + state[_f(plan, GAP, t)]
    du = gi + state[_f(plan, GAP, u)]
    policy = plan.policy[i]
    if policy == WEAKEST:
        a, b = _left(plan, state, t), _left(plan, state, u)
        if a != b:
            return a < b
    elif policy == ENGAGED:
        a, b = _ganged(plan, state, t), _ganged(plan, state, u)
        if a != b:
            return a > b
    return dt < du


@njit(cache=True, _nrt=False, forceinline=True)
def _target(plan, state, i):
    """The enemy fighter i goes for: the one it charges (``charges``) while that one is in
    the fight, else the best in the fight by its policy; -1 when none is."""
    named = plan.named[i]
    if named >= 0 and state[_f(plan, STATUS, named)] == IN:
        return named
    e = 1 - plan.side[i]
    best = -1
    for j in range(plan.size[e]):
        t = plan.members[e, j]
        if state[_f(plan, STATUS, t)] == IN and _better(plan, state, i, t, best):
            best = t
    return best


@njit(cache=True, _nrt=False, forceinline=True)
def _struck(plan, state, i):
    """The enemy in contact that fighter i starts an exchange with, by its policy."""
    e = 1 - plan.side[i]
    contacts = state[_f(plan, CONTACT, i)]
    best = -1
    for j in range(plan.size[e]):
        if contacts >> j & 1:
            t = plan.members[e, j]
            if _better(plan, state, i, t, best):
                best = t
    return best


@njit(cache=True, _nrt=False, forceinline=True)
def _meet(plan, state, i, t):
    """Fighters i and t in base contact, i where t stands."""
    state[_f(plan, CONTACT, i)] |= 1 << plan.pos[t]
    state[_f(plan, CONTACT, t)] |= 1 << plan.pos[i]
    state[_f(plan, GAP, i)] = state[_f(plan, GAP, t)]
    state[_f(plan, MET, i)] = 1
    state[_f(plan, MET, t)] = 1
    state[MELEE] = 1


@njit(cache=True, _nrt=False, forceinline=True)
def _exchange(plan, dice, state, a, t):
    """One exchange started by fighter a against t (R3-4 ... R3-7): t answers with all its
    attacks while it has the AP to react (``reaction_ap``), flees instead if it may (R3-8:
    the charged side with ``reaction = "flee"``, or its wounds left at most its
    ``flee_below``), else answers with one die; the wounds land together (A6)."""
    answer = ONE
    ap = state[_f(plan, AP, t)]
    if ap >= max(1, plan.reaction_ap):
        state[_f(plan, AP, t)] = ap - plan.reaction_ap
        flees = (plan.flee and plan.side[t] != plan.charger) or \
            _left(plan, state, t) <= plan.flee_below[t]
        answer = FLEES if flees else FULL
    k = plan.law_of[a, t, answer]
    f0, f1 = (a, t) if plan.side[a] == 0 else (t, a)
    if k >= 0:
        dealt = pick(dice, plan.wound_law[k])
        to0 = dealt // (plan.wounds[f1] + 1)
        to1 = dealt % (plan.wounds[f1] + 1)
    else:
        to0, to1 = _rolled(plan, dice, a, t, answer, f0, f1)
    state[_f(plan, TAKEN, f0)] = min(state[_f(plan, TAKEN, f0)] + to0, plan.wounds[f0])
    state[_f(plan, TAKEN, f1)] = min(state[_f(plan, TAKEN, f1)] + to1, plan.wounds[f1])
    state[EXCHANGES] += 1
    state[_f(plan, XCH, a)] += 1
    state[_f(plan, XCH, t)] += 1
    for f in (f0, f1):
        if state[_f(plan, TAKEN, f)] >= plan.wounds[f]:
            _leave(plan, state, f, DOWN)
    if answer == FLEES and state[_f(plan, STATUS, t)] == IN:
        _leave(plan, state, t, GONE)
    _settle(plan, state)


@njit(cache=True, _nrt=False, forceinline=True)
def _push(plan, dice, state, i, t):
    """R3-9: fighter i's MS test; passed, t falls (``fall_damage``) and is out of the
    fight."""
    if pick(dice, plan.push_law[i]):
        state[PUSHED] = 1
        state[_f(plan, TAKEN, t)] = min(state[_f(plan, TAKEN, t)] + plan.fall_damage,
                                       plan.wounds[t])
        _leave(plan, state, t, DOWN if state[_f(plan, TAKEN, t)] >= plan.wounds[t]
               else PUSHED_OUT)
        _settle(plan, state)


@njit(cache=True, _nrt=False, forceinline=True)
def _leave(plan, state, i, status):
    """Fighter i is out of the fight (down, fled, pushed): its contacts are free; if it was
    activating, the activation ends."""
    state[_f(plan, STATUS, i)] = status
    state[_f(plan, AP, i)] = 0  # what no later stage reads, cleared for the solver
    state[_f(plan, GAP, i)] = 0
    state[_f(plan, DONE, i)] = 0
    e = 1 - plan.side[i]
    contacts = state[_f(plan, CONTACT, i)]
    for j in range(plan.size[e]):
        if contacts >> j & 1:
            state[_f(plan, CONTACT, plan.members[e, j])] &= ~(1 << plan.pos[i])
    state[_f(plan, CONTACT, i)] = 0
    if state[ACTOR] == i:
        state[ACTOR] = -1


@njit(cache=True, _nrt=False, forceinline=True)
def _settle(plan, state):
    """The fight ends when a side has no fighter left in it: the other side wins, by
    destruction when all the losers are down, else by their flight; none left on either
    side is mutual destruction."""
    standing0, standing1, down0, down1 = 0, 0, 0, 0
    for i in range(plan.n):
        status = state[_f(plan, STATUS, i)]
        if plan.side[i] == 0:
            standing0 += status == IN
            down0 += status == DOWN
        else:
            standing1 += status == IN
            down1 += status == DOWN
    if standing0 and standing1:
        return
    if not standing0 and not standing1:
        _end(plan, state, NONE, MUTUAL)
    elif not standing0:
        _end(plan, state, DEFENDER, DESTROYED if down0 == plan.size[0] else FLED)
    else:
        _end(plan, state, ATTACKER, DESTROYED if down1 == plan.size[1] else FLED)


@njit(cache=True, _nrt=False, forceinline=True)
def _end(plan, state, winner, end):
    """The fight ends: what the row does not read is cleared, so that the solver's ended
    states that the row cannot tell apart are one."""
    state[OVER] = 1
    state[WINNER] = winner
    state[END] = end
    for f in (ACTOR, NEXT, STARTER, MELEE):
        state[f] = 0
    for i in range(plan.n):
        for f in (AP, GAP, CONTACT, DONE):
            state[_f(plan, f, i)] = 0


@njit(cache=True, _nrt=False, forceinline=True)
def _rolled(plan, dice, a, t, answer, f0, f1):
    """(wounds to f0, to f1) of an exchange rolled die by die (fight.rolled): a rolls its
    attacks, t answers with ``answer``."""
    answered = plan.attacks[t] if answer == FULL else (1 if answer == ONE else 0)
    n0, n1 = (plan.attacks[a], answered) if plan.side[a] == 0 else (answered, plan.attacks[a])
    return rolled(plan, dice, n0, n1, f0, f1, plan.side[a])


# -- the row ---------------------------------------------------------------------------

@njit(cache=True, _nrt=False, forceinline=True)
def row(plan, state, out, t):
    """The outcome record of an ended fight into column t of ``out``: a side's fighters down
    and wounds taken, the exchanges and whether a push succeeded; with a side of several
    fighters, each fighter's fate, down, wounds, got into contact, exchanges."""
    out[0, t] = state[WINNER]
    out[1, t] = state[END]
    out[2, t] = state[ROUNDS]
    for s in range(2):
        out[3 + s, t] = 0
        out[5 + s, t] = 0
    for i in range(plan.n):
        status = state[_f(plan, STATUS, i)]
        out[3 + plan.side[i], t] += status == DOWN
        out[5 + plan.side[i], t] += state[_f(plan, TAKEN, i)]
    out[7, t] = state[EXCHANGES]
    out[8, t] = state[PUSHED]
    if plan.per_fighter and out.shape[0] >= SHARED + PARTS * plan.n:  # asked for
        for i in range(plan.n):
            status = state[_f(plan, STATUS, i)]
            fate = UNIT_STANDING
            if status == DOWN:
                fate = UNIT_DESTROYED
            elif status != IN:
                fate = UNIT_FLED
            elif plan.fresh[i] and not state[_f(plan, MET, i)]:
                fate = UNIT_UNREACHED
            c = SHARED + PARTS * i  # attacker fighters first, in file order
            out[c, t] = fate
            out[c + 1, t] = status == DOWN
            out[c + 2, t] = state[_f(plan, TAKEN, i)]
            out[c + 3, t] = state[_f(plan, MET, i)]
            out[c + 4, t] = state[_f(plan, XCH, i)]


@njit(cache=True, _nrt=False, forceinline=True)
def known(plan, sizes):
    """``plan`` with its number of fighters a constant of a kernel variant's compiled code
    (odds.core.walk.kernel): the loops over the fighters unroll."""
    return Gang(*plan[:-1], sizes[0])  # n: the plan's last field
