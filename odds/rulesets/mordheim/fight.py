"""The mordheim rule text: a close combat of individual warriors written once, for a kernel
and the exact solver alike (the shape is described in ``odds/rulesets/README.md``): the
kernel (kernel.py) samples it, the exact solver (exact.py) enumerates it.

- **Laws** (:mod:`odds.rulesets.mordheim.laws`, once a plan): a strike's blows and the parry
  as one pick, each hit's wounds and injuries as one pick, Fear and All Alone tests, the
  helmet and the roll-off between equal strikers.
- **Stages** (:func:`stage`): round by round (R1-12): recovery (R1-9), Fear (R1-6), the
  strikes in order (R1-2 ... R1-9), All Alone (R1-11); a stage asks ``pick(dice, law)`` for
  every chance, and in the solver ends before its second pick.
- **The row** (:func:`row`): the outcome record of an ended fight.

The state is one int64 vector: the fields below, then nine fields per warrior (status,
wounds left, pistol fired, Frenzy lost; this round's parry used, critical used, Fear
failed, still to strike, stood up). The counts of wounds, knocked-down and stunned results,
parries and criticals are tallies: added to, never read.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from odds.core.dice import pick, picked, resumed
from odds.core.outcome import ATTACKER, DEFENDER, DESTROYED, FLED, MUTUAL, NONE, UNRESOLVED
from odds.core.casts import slot
from odds.core.walk import clear
from odds.rulesets.mordheim.compile import Plan
from odds.rulesets.mordheim.laws import (
    INJURIES,
    KNOCKED_DOWN,
    OUT_OF_ACTION,
    STUNNED,
    WOUND_CLASSES,
)

STANDING, GONE = 0, 4  # a warrior's status, with the injuries (laws.py); GONE: fled (R1-11)
START, STRIKE, BLOWS, HITS, ALONE, TEST = range(6)  # the phases of a round

# the state's fields: OVER (odds.core.walk) is 0 while the fight goes on
OVER, WINNER, END, ROUNDS, PHASE, AT, X, Y, H0, H1, WORST, J = range(12)
PRESENT, LOST, WOUNDS, KD, STUN, PARRIES, CRITS = 12, 14, 16, 18, 20, 22, 24  # two sides each
HEAD = 26
ST, WN, PI, CA, PU, CU, FE, RE, SO = range(9)  # a warrior's fields, each a block of n
COLUMNS = 15
TALLIES = tuple(range(WOUNDS, CRITS + 2))


@njit(cache=True, inline="always")
def _w(plan, what, i):
    """Where warrior i keeps ``what`` (ST ... SO), unsigned (odds.core.casts.slot)."""
    return slot(HEAD + what * plan.warriors + i)


@njit(cache=True, _nrt=False, forceinline=True)
def known(plan, sizes):
    """``plan`` with its number of warriors a constant of a kernel variant's compiled code
    (odds.core.walk.kernel): the loops over the warriors unroll."""
    return Plan(*plan[:-1], sizes[0])  # warriors: the plan's last field


@njit(cache=True, inline="always")
def fields(plan):
    return HEAD + 9 * plan.warriors


@njit(cache=True, inline="always")
def columns(plan):
    return COLUMNS


@njit(cache=True)
def spans(plan):
    """The tallies' spans, a round's most times max_rounds: a side suffers at most two
    wounds from each hit of each enemy's strike and free hit (R1-7, R1-11), an injury from
    each, and parries once and strikes one critical a warrior (R1-5, R1-7)."""
    n = plan.warriors
    out = np.zeros((len(TALLIES), 2), np.int64)
    for s in range(2):
        mine, enemies, wounds = 0, 0, 0
        for x in range(n):
            if plan.side[x] == s:
                mine += 1
            else:
                enemies += 1
                wounds += 2 * (plan.fury_blows[x] + 2)  # his blows, off hand, free hit
        for c, most in ((WOUNDS, wounds), (KD, 2 * enemies), (STUN, 2 * enemies),
                        (PARRIES, mine), (CRITS, mine)):
            out[c - WOUNDS + s, 1] = plan.max_rounds * most
    return out


@njit(cache=True, _nrt=False, forceinline=True)
def clock(plan, state):
    """How far the fight has come: the round, then its phase, the striker (or the warrior
    testing All Alone) and the hit he is at."""
    n = plan.warriors
    most = plan.most_hits
    strike = 3 + most
    alone = 1 + 2 * n
    at = state[AT]
    phase = state[PHASE]
    if phase == START:
        pos = at
    elif phase == STRIKE:
        pos = n + 1 + at * strike
    elif phase == BLOWS:
        pos = n + 1 + at * strike + 1
    elif phase == HITS:
        pos = n + 1 + at * strike + 2 + most - state[H0] - state[H1]
    elif phase == ALONE:
        pos = n + 1 + n * strike + at * alone
    else:  # TEST: the foe J's free hit on the warrior at AT
        pos = n + 1 + n * strike + at * alone + 1 + 2 * state[J] + 1 - state[H0]
    return state[ROUNDS] * (n + 2 + n * strike + n * alone) + pos


# -- stages ----------------------------------------------------------------------------

@njit(cache=True, _nrt=False, forceinline=True)
def begin(plan, state):
    """The state before the fight: every warrior standing, unhurt."""
    clear(state)
    for i in range(plan.warriors):
        state[_w(plan, WN, i)] = plan.wounds[i]
        state[PRESENT + plan.side[i]] += 1
    state[WINNER] = NONE
    state[END] = UNRESOLVED
    _next_round(plan, state)


@njit(inline="always")
def stage(plan, dice, state):
    """Play on to the end, or (the exact solver) to just before the stage's second pick."""
    stopped = False
    while not state[OVER] and not stopped:
        phase = state[PHASE]
        if phase == START:
            stopped = _fear(plan, dice, state)
        elif phase == STRIKE:
            stopped = _next_striker(plan, dice, state)
        elif phase == BLOWS:
            stopped = _blows(plan, dice, state)
        elif phase == HITS:
            stopped = _hits(plan, dice, state)
        elif phase == ALONE:
            stopped = _all_alone(plan, dice, state)
        else:
            stopped = _free_hits(plan, dice, state)


@njit(cache=True, inline="always")
def _present(plan, state, s):
    """Side s still has a warrior standing, knocked down or stunned."""
    return state[PRESENT + s] > 0


@njit(cache=True, _nrt=False, forceinline=True)
def _active(plan, state):
    """The side whose turn it is: the charger's in odd rounds (R1-12)."""
    return plan.charger if state[ROUNDS] & 1 else 1 - plan.charger


@njit(cache=True, _nrt=False, forceinline=True)
def _next_round(plan, state):
    """A new round (R1-12): this round's flags cleared, the active side's knocked-down
    warriors stand up (striking last) and its stunned ones are knocked down (R1-9, from the
    second round); who strikes (standing, touching an enemy still in the fight); then the
    Fear tests of the first round (R1-6). The round cap ends a fight unresolved."""
    if state[ROUNDS] >= plan.max_rounds:
        _end(plan, state, NONE, UNRESOLVED)
        return
    state[ROUNDS] += 1
    n = plan.warriors
    active = _active(plan, state)
    for i in range(n):
        for f in (PU, CU, RE, SO):
            state[_w(plan, f, i)] = 0
        if state[ROUNDS] == 2:
            state[_w(plan, FE, i)] = 0  # a failed Fear test holds in the first round only
        if plan.side[i] == active and state[ROUNDS] > 1:
            if state[_w(plan, ST, i)] == KNOCKED_DOWN:
                state[_w(plan, ST, i)] = STANDING
                state[_w(plan, SO, i)] = 1
            elif state[_w(plan, ST, i)] == STUNNED:
                state[_w(plan, ST, i)] = KNOCKED_DOWN
    for i in range(n):
        if state[_w(plan, ST, i)] != STANDING:
            continue
        for j in range(n):
            if plan.contact[i, j] == 1 and state[_w(plan, ST, j)] <= STUNNED:
                state[_w(plan, RE, i)] = 1
                break
    state[PHASE] = START
    state[AT] = 0


@njit(cache=True, _nrt=False, forceinline=True)
def _fear(plan, dice, state):
    """R1-6: in the first round each charged warrior who tests for Fear and touches a
    Fear-causing enemy tests: 2D6 above his Ld fails, and he hits only on 6s this round."""
    n = plan.warriors
    if state[ROUNDS] == 1:
        for i in range(resumed(dice, state, AT), n):
            if plan.side[i] == plan.charger or plan.tests_fear[i] == 0:
                continue
            feared = False
            for j in range(n):
                if plan.contact[i, j] == 1 and plan.causes_fear[j] == 1:
                    feared = True
            if feared:
                if picked(dice):
                    state[AT] = i
                    return True
                state[_w(plan, FE, i)] = pick(dice, plan.ld_law[i])
    state[AT] = 0
    state[PHASE] = STRIKE
    return False


@njit(cache=True, _nrt=False, forceinline=True)
def _key(plan, state, r, i):
    """R1-2: strikers go by tier (first, normal, last; stood up: after all), then by
    Initiative, highest first."""
    tier = 3 if state[_w(plan, SO, i)] == 1 else plan.tier_first[r, i]
    return tier * 16 + 15 - plan.initiative[i]


@njit(cache=True, _nrt=False, forceinline=True)
def _next_striker(plan, dice, state):
    """The next striker: of those still to strike, the first by :func:`_key`, a roll-off
    between equals (one of them, each as likely); he strikes if he still stands. After the
    last, All Alone (R1-11), then the round's end."""
    n = plan.warriors
    r = 0 if state[ROUNDS] == 1 else 1
    while True:
        if not (_present(plan, state, 0) and _present(plan, state, 1)):
            for i in range(n):
                state[_w(plan, RE, i)] = 0
        best, ties, x = 1 << 30, 0, -1
        for i in range(n):
            if state[_w(plan, RE, i)] == 1:
                key = _key(plan, state, r, i)
                if key < best:
                    best, ties, x = key, 1, i
                elif key == best:
                    ties += 1
        if ties == 0:
            state[AT] = 0
            state[PHASE] = ALONE
            return False
        if ties > 1:
            if picked(dice):
                return True
            k = pick(dice, plan.tie_law[ties])
            for i in range(x, n):
                if state[_w(plan, RE, i)] == 1 and _key(plan, state, r, i) == best:
                    if k == 0:
                        x = i
                        break
                    k -= 1
        state[_w(plan, RE, x)] = 0
        state[_w(plan, SO, x)] = 0  # read for the order of those still to strike only
        if state[_w(plan, ST, x)] == STANDING and _target(plan, state, x):
            state[PHASE] = BLOWS
            return False
        state[AT] += 1


@njit(cache=True, _nrt=False, forceinline=True)
def _target(plan, state, x):
    """Whom x strikes (R1-3): the first standing enemy he touches; else he takes a stunned
    one out of action (no dice: False), else he strikes a knocked-down one. False when he
    strikes no one."""
    n = plan.warriors
    stunned, down = -1, -1
    for j in range(n):
        if plan.contact[x, j] == 1:
            status = state[_w(plan, ST, j)]
            if status == STANDING:
                state[X], state[Y] = x, j
                return True
            if status == STUNNED and stunned < 0:
                stunned = j
            if status == KNOCKED_DOWN and down < 0:
                down = j
    if stunned >= 0:
        _retire(plan, state, stunned, OUT_OF_ACTION)
        return False
    if down >= 0:
        state[X], state[Y] = x, down
        return True
    return False


@njit(cache=True, _nrt=False, forceinline=True)
def _blows(plan, dice, state):
    """Striker X's blows at Y (R1-3 ... R1-5): his attacks with the main hand (doubled while
    frenzied), one with the off hand (a pistol once a combat); all hit a knocked-down
    target, else one pick of the blows' law gives the hits and whether Y parried one."""
    x, y = state[X], state[Y]
    calm = state[_w(plan, CA, x)]
    h0 = plan.blows[x] if calm else plan.fury_blows[x]
    h1 = 0
    if plan.hands[x] == 2:
        if plan.once[x, 1] == 0 or state[_w(plan, PI, x)] == 0:
            h1 = 1
    if state[_w(plan, ST, y)] != KNOCKED_DOWN:
        if picked(dice):
            return True
        r = 0 if state[ROUNDS] == 1 else 1
        fear = state[_w(plan, FE, x)] if r == 0 else 0
        state[_w(plan, FE, x)] = 0  # read at his strike only
        can_parry = 1 if plan.parry_items[y] > 0 and state[_w(plan, PU, y)] == 0 else 0
        got = pick(dice, plan.hit_law[slot(
            plan.pair[x, y] * 32 + r * 16 + calm * 8 + h1 * 4 + fear * 2 + can_parry)])
        parried = got & 1
        h1 = (got >> 1) & 1
        h0 = got >> 2
        if plan.parry_items[y] > 0 and (parried or h0 + h1 > 0):
            state[_w(plan, PU, y)] = 1
        state[PARRIES + plan.side[y]] += parried
    if plan.hands[x] == 2 and plan.once[x, 1] == 1:
        state[_w(plan, PI, x)] = 1
    state[H0], state[H1] = h0, h1
    state[PHASE] = HITS
    return False


@njit(cache=True, _nrt=False, forceinline=True)
def _hits(plan, dice, state):
    """X's hits on Y one at a time, main hand first: one pick each of its wounds and
    injuries (R1-7 ... R1-9), until Y is out of action; then the helmet and Y's worst
    injury (:func:`_struck`), and the next striker."""
    x, y = state[X], state[Y]
    if _wounded(plan, dice, state, x, y):
        return True
    state[X], state[Y] = 0, 0
    state[AT] += 1
    state[PHASE] = STRIKE
    return False


@njit(cache=True, _nrt=False, forceinline=True)
def _wounded(plan, dice, state, x, y):
    """x's hits (H0 main hand, H1 off hand) on y, then the helmet and y's worst injury;
    True where the solver's stage stops before a pick."""
    r = 0 if state[ROUNDS] == 1 else 1
    p = plan.pair[x, y] * 64 + r * 32 + (state[_w(plan, ST, y)] == KNOCKED_DOWN)
    h0, h1, worst = state[H0], state[H1], state[WORST]
    wnd, used = state[_w(plan, WN, y)], state[_w(plan, CU, x)]
    dealt, struck = 0, 0  # the tallies' wounds and criticals, added once
    while h0 + h1 > 0 and worst != OUT_OF_ACTION:
        if picked(dice):
            break
        hand = 0 if h0 > 0 else 1
        h0, h1 = h0 - (1 - hand), h1 - hand
        got = pick(dice, plan.blow_law[slot(p + hand * 16 + used * 8
                                            + min(wnd, WOUND_CLASSES - 1) * 2)])
        if got & 1:
            used = 1
            struck += 1
        got >>= 1
        worst = max(worst, got % INJURIES)
        got //= INJURIES
        wnd -= got % 3
        dealt += got // 3
    state[_w(plan, WN, y)], state[_w(plan, CU, x)] = wnd, used
    state[WOUNDS + plan.side[y]] += dealt
    state[CRITS + plan.side[x]] += struck
    state[H0], state[H1], state[WORST] = h0, h1, worst
    if h0 + h1 > 0 and worst != OUT_OF_ACTION:
        return True  # the solver's stage stops before this hit's pick
    state[H0], state[H1] = 0, 0
    worst = state[WORST]
    if worst == STUNNED and plan.avoid_stun[y] <= 6:
        if picked(dice):
            return True
        if pick(dice, plan.helmet_law[y]):
            worst = KNOCKED_DOWN  # R1-8: the helmet turns a stun into knocked down
    state[WORST] = 0
    if worst == OUT_OF_ACTION:
        _retire(plan, state, y, OUT_OF_ACTION)
    elif worst > 0:
        state[_w(plan, ST, y)] = max(state[_w(plan, ST, y)], worst)
        if plan.frenzied[y] == 1:
            state[_w(plan, CA, y)] = 1  # knocked down or stunned: his Frenzy is lost
        state[(KD if worst == KNOCKED_DOWN else STUN) + plan.side[y]] += 1
    return False


@njit(cache=True, _nrt=False, forceinline=True)
def _retire(plan, state, i, status):
    """Warrior i leaves the fight (out of action, or fled): his other fields no longer
    matter."""
    state[_w(plan, ST, i)] = status
    state[PRESENT + plan.side[i]] -= 1
    for f in (WN, PI, CA, PU, CU, FE, RE, SO):
        state[_w(plan, f, i)] = 0


@njit(cache=True, _nrt=False, forceinline=True)
def _alone(plan, state, x, active):
    """x tests All Alone (R1-11): the active side's only warrior standing, touching two or
    more standing enemies, not Immune to Psychology nor (still) frenzied."""
    n = plan.warriors
    if plan.side[x] != active or state[_w(plan, ST, x)] != STANDING:
        return False
    if plan.steady[x] == 1 or (plan.frenzied[x] == 1 and state[_w(plan, CA, x)] == 0):
        return False
    for j in range(n):
        if j != x and plan.side[j] == active and state[_w(plan, ST, j)] == STANDING:
            return False
    foes = 0
    for j in range(n):
        if plan.contact[x, j] == 1 and state[_w(plan, ST, j)] == STANDING:
            foes += 1
    return foes >= 2


@njit(cache=True, _nrt=False, forceinline=True)
def _all_alone(plan, dice, state):
    """R1-11, after the strikes while both sides are in the fight: a warrior all alone tests
    2D6 against his Ld; on a failure each standing enemy touching him hits him once
    (:func:`_free_hits`), and if he is still in the fight he flees. Then the round ends."""
    n = plan.warriors
    if plan.all_alone and plan.ganged:
        active = _active(plan, state)
        for x in range(state[AT], n):  # the kernel too comes back after free hits
            if not (_present(plan, state, 0) and _present(plan, state, 1)):
                break
            if not _alone(plan, state, x, active):
                continue
            if picked(dice):
                state[AT] = x
                return True
            if pick(dice, plan.ld_law[x]):
                state[AT] = x
                state[J] = 0
                state[PHASE] = TEST
                return False
    state[AT] = 0
    _round_end(plan, state)
    return False


@njit(cache=True, _nrt=False, forceinline=True)
def _free_hits(plan, dice, state):
    """The free hits on the warrior at AT who failed All Alone: each standing enemy
    touching him, in order, one hit with his main hand, while he is in the fight; then he
    flees if he still is (R1-11)."""
    n = plan.warriors
    x = state[AT]
    for j in range(state[J], n):
        if state[Y] == 0:  # Y: 1 while j's hit is under way
            if not (plan.contact[x, j] == 1 and state[_w(plan, ST, j)] == STANDING
                    and state[_w(plan, ST, x)] <= STUNNED):
                continue
            state[J], state[Y], state[H0] = j, 1, 1
        if _wounded(plan, dice, state, j, x):
            return True
        state[Y] = 0
    state[J] = 0
    if state[_w(plan, ST, x)] <= STUNNED:
        _retire(plan, state, x, GONE)
    state[AT] = x + 1
    state[PHASE] = ALONE
    return False


@njit(cache=True, _nrt=False, forceinline=True)
def _round_end(plan, state):
    """R1-12: a side with no warrior standing, knocked down or stunned has lost (fled if
    any of its warriors fled); both at once, mutual destruction; else the next round."""
    left0, left1 = _present(plan, state, 0), _present(plan, state, 1)
    if left0 and left1:
        _next_round(plan, state)
    elif not left0 and not left1:
        _end(plan, state, NONE, MUTUAL)
    else:
        loser = 0 if not left0 else 1
        end = DESTROYED
        for i in range(plan.warriors):
            if plan.side[i] == loser and state[_w(plan, ST, i)] == GONE:
                end = FLED
        _end(plan, state, DEFENDER if loser == 0 else ATTACKER, end)


@njit(cache=True, _nrt=False, forceinline=True)
def _end(plan, state, winner, end):
    """The fight is over: its outcome and each side's warriors out of action kept, the rest
    forgotten, so that fights that end alike are one state."""
    for i in range(plan.warriors):
        state[LOST + plan.side[i]] += state[_w(plan, ST, i)] == OUT_OF_ACTION
    for f in range(PHASE, LOST):  # PRESENT too
        state[f] = 0
    for f in range(HEAD, len(state)):
        state[f] = 0
    state[OVER] = 1
    state[WINNER] = winner
    state[END] = end


@njit(cache=True, _nrt=False, forceinline=True)
def row(plan, state, out, t):
    """The outcome record of an ended fight into column t of ``out``."""
    out[0, t] = state[WINNER]
    out[1, t] = state[END]
    out[2, t] = state[ROUNDS]
    for c in range(LOST, CRITS + 2):
        out[3 + c - LOST, t] = state[c]
