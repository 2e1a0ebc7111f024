"""The whfb8 exact solver of one unit a side without characters or champions (the fast path
these fights keep until the rule text, fight.py, solves them as fast, issue 27): the rule
text's fight of one unit a side, computed round by round from distributions instead of
state by state, from its own plan (compile_one.py). Checked against the rule text's kernel
and tests/naive_whfb8.py.

A fight between rounds is the wounds each side has left and whether each is still Frenzied
(R2-7): ``left = models * W - wounds on the wounded model``, so the models and the wounded
model's damage follow from ``left``, and the wounds a side caused in a round are what its
enemy lost. Fear is tested afresh every round, so its four outcomes are branches of a round,
not part of the state. Within a round each strike step (R2-6) turns the distribution of
(wounds lost by each side) into the next: the two sides' losses in one step are independent
given the step's start, each the convolution of its striking parts' unsaved wounds, folded at
the wounds the enemy has left. The combat result, break test and pursuit (R2-11 ... R2-13)
then weigh each end of the round by the probabilities of their 2D6 (or Swiftstride) rolls.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from odds.core.exact import (
    binomial_pmf,
    check_states,
    dice_sum,
    drop_highest,
    drop_lowest,
    p_ge,
    p_gt,
)
from odds.core.outcome import (
    ATTACKER,
    CAUGHT,
    DEFENDER,
    DESTROYED,
    FLED,
    MUTUAL,
    NO_FIGHT,
    NONE,
    UNRESOLVED,
)
from odds.rulesets.whfb8.compile_one import (
    FIGHTING,
    FIRST,
    FLANK,
    FRONT,
    IMPACT,
    LATER,
    MOUNT,
    PARTS,
    SUPPORTING,
)

TWO_D6 = dice_sum(2)
SWIFT = drop_lowest(3)  # Swiftstride: 3D6, the lowest dropped (R2-13)
COLD = drop_highest(3)  # Cold-blooded: 3D6, the highest dropped (R2-12)
DOUBLE_ONE = (1 / 36, 16 / 216)  # P(the dice kept are 1 and 1): 2D6, Cold-blooded
N_ENDS = 6
STANDING_OFFSET = 1 << 20  # _standing packs a combat result difference this far from 0
CACHED_STANDINGS = 1 << 22  # _standing kept for every (round type, models standing) up to this
POOL = 256  # strikes' distributions kept (rows of pmf and tail)
DENSE_BOX = 1 << 18  # a round's fights indexed by their wounds left when their box is this small
STRIKERS = 2 * PARTS  # striking parts at one step, and strike steps, at most


# -- the plan's geometry: who fights, ranks, Leadership (R2-3, R2-5, R2-11, R2-12) --


@njit(cache=True, _nrt=False, forceinline=True)
def _front(plan, n, s):
    """Models in side s's front rank (R2-6: casualties come off the rear)."""
    return min(plan.width[s], n[s])


@njit(cache=True, _nrt=False, forceinline=True)
def _face(plan, n, s):
    """Length of side s's engaged face: its ranks on a flank, else its front (R2-3)."""
    if s != plan.charger and plan.face == FLANK:
        return (n[s] + plan.width[s] - 1) // plan.width[s]
    return _front(plan, n, s)


@njit(cache=True, _nrt=False, forceinline=True)
def _in_contact(plan, n, s):
    """Side s's models in base contact: the scenario's number, else its whole face when it is
    the narrower, else the narrower face plus a corner model at each end (R2-3)."""
    face = _face(plan, n, s)
    if plan.in_contact[s] > 0:
        return min(plan.in_contact[s], face)
    return min(face, _face(plan, n, 1 - s) + 2)


@njit(cache=True, _nrt=False, forceinline=True)
def _supporters(plan, n, s, contact):
    """Side s's supporting attacks: ``support_attacks`` per model directly behind a model in
    contact, in each supporting rank; a Horde adds a rank while its front is wide enough
    (R2-5)."""
    if plan.supports[s] == 0:
        return 0
    w = plan.width[s]
    ranks = plan.support_ranks[s]
    if plan.horde_files[s] > 0 and _front(plan, n, s) >= plan.horde_files[s]:
        ranks += 1
    total = 0
    for k in range(1, ranks + 1):
        total += min(contact, max(0, min(w, n[s] - k * w)))
    return total * plan.support_attacks[s]


@njit(cache=True, _nrt=False, forceinline=True)
def _part_attacks(plan, n, frenzied, s, part, contact, r):
    """Attacks of side s's striking part in round type r that are counted, not rolled (R2-4,
    R2-5): its fighting models (+1 A each when Frenzied, + their first-round A in the first
    round, + a champion's 1 A while anyone fights; the champion is removed last), its
    supporters, its mounts, its fixed Impact Hits (on the charge) or Stomps."""
    if part == FIGHTING:
        a = plan.attacks[s] + frenzied[s] + (r == FIRST) * plan.first_attacks[s]
        return contact * a + min(contact, plan.champion[s])
    if part == SUPPORTING:
        return _supporters(plan, n, s, contact)
    if part == MOUNT:
        return contact * plan.mount_attacks[s]
    if part == IMPACT:  # on the charge only
        return contact * plan.impact_hits[s] * (r == FIRST and s == plan.charger)
    return contact * plan.stomps[s]


@njit(cache=True, _nrt=False, forceinline=True)
def _ranks(plan, n, s):
    """Side s's ranks of ``rank_models`` or more models (5; 3 for monstrous troops), the
    front one included (R2-11, R2-12)."""
    w = plan.width[s]
    if w < plan.rank_models[s]:
        return 0
    full = n[s] // w
    return full + (n[s] - full * w >= plan.rank_models[s])


@njit(cache=True, _nrt=False, forceinline=True)
def _disrupted(plan, n, s):
    """Side s was charged in the flank or rear by a unit of two or more ranks (R2-11)."""
    return s != plan.charger and plan.face != FRONT and _ranks(plan, n, 1 - s) >= 2


@njit(cache=True, _nrt=False, forceinline=True)
def _steadfast(plan, n, s):
    """Side s, if it lost, tests on its unmodified Ld (R2-12): Stubborn, or more ranks than
    its enemy, unless disrupted with ``disrupted_steadfast`` false."""
    if plan.stubborn[s] > 0:
        return True
    if plan.disrupted_steadfast == 0 and _disrupted(plan, n, s):
        return False
    return _ranks(plan, n, s) > _ranks(plan, n, 1 - s)


@njit(cache=True, _nrt=False, forceinline=True)
def _leadership(plan, n, s):
    """The Ld side s tests on (R2-12): its own or its general's; with Strength in Numbers its
    own + 1 per rank of 5 behind the front, at most 10, if that is higher."""
    if plan.strength_in_numbers[s] == 0:
        return plan.leadership[s]
    return max(plan.leadership[s], min(10, plan.own_leadership[s] + max(0, _ranks(plan, n, s)
                                                                        - 1)))


@njit(cache=True, _nrt=False, forceinline=True)
def _score(plan, n, s, caused, r):
    """Side s's combat result (R2-11): wounds, charge, ranks unless disrupted, standard,
    battle standard, flank or rear."""
    score = caused[s] + plan.bonus[s] + (r == FIRST and s == plan.charger)
    if not _disrupted(plan, n, s):
        score += min(3, max(0, _ranks(plan, n, s) - 1))
    return score


class Sides(NamedTuple):
    """The plan's numbers the walk reads, as tuples: numba counts references to every array
    a function takes, which in the walk's inner loops would cost more than the rules.

    Per side: the plan's fields of the same names. ``strikers`` holds the plan's
    ``striker_side * PARTS + striker_part`` by step (``STRIKERS`` a step, -1 padded);
    ``catch`` P(caught) by the loser; at ``13 * s + t``, ``fails`` P(roll > t) and ``holds``
    P(roll <= t) of side s; ``insane`` P(a double 1); the roll is 2D6 or Cold-blooded's."""

    count: tuple
    width: tuple
    wounds: tuple
    leadership: tuple
    own_leadership: tuple
    strength_in_numbers: tuple
    attacks: tuple
    first_attacks: tuple
    mount_attacks: tuple
    impact_hits: tuple
    stomps: tuple
    champion: tuple
    frenzy: tuple
    support_ranks: tuple
    support_attacks: tuple
    horde_files: tuple
    rank_models: tuple
    supports: tuple
    in_contact: tuple
    bonus: tuple
    musician: tuple
    stubborn: tuple
    unbreakable: tuple
    reroll_break: tuple
    reroll_tests: tuple
    tests_fear: tuple
    disrupted_steadfast: int
    face: int
    charger: int
    pursue: int
    max_rounds: int
    steps: int
    strikers: tuple
    fails: tuple
    catch: tuple
    holds: tuple
    insane: tuple


def sides(plan) -> Sides:
    """The walk's view of ``plan``, with the dice of the break test, restraint and pursuit."""
    moves = [SWIFT if plan.swiftstride[s] else TWO_D6 for s in range(2)]
    tests = [COLD if plan.cold_blooded[s] else TWO_D6 for s in range(2)]
    strikers = np.where(plan.striker_side >= 0, plan.striker_side * PARTS + plan.striker_part,
                        -1)
    own = {name: getattr(plan, name)  # up to max_rounds
           for name in Sides._fields[:Sides._fields.index("max_rounds") + 1]}
    return Sides(
        **{name: tuple(int(v) for v in x) if isinstance(x, np.ndarray) else int(x)
           for name, x in own.items()},
        steps=len(plan.steps),
        strikers=tuple(int(v) for v in np.pad(strikers, ((0, STRIKERS - len(strikers)), (0, 0)),
                                              constant_values=-1).ravel()),
        fails=tuple(p_gt(tests[s], ld) for s in range(2) for ld in range(13)),
        catch=tuple(_p_catch(moves[1 - s], moves[s]) for s in range(2)),
        holds=tuple(float(h) for s in range(2) for h in np.cumsum(tests[s])),
        insane=tuple(DOUBLE_ONE[int(plan.cold_blooded[s])] for s in range(2)))


def refusal(plan) -> str | None:
    """Why this solver cannot take ``plan``, or None: rules that roll a number of attacks,
    hits or wounds (Random Attacks, dice of Impact Hits or Stomps, Multiple Wounds against
    models of more than one wound), Killing Blow against such models, Unstable and Daemonic
    Instability (the rule text's walk solves the last three, exact.py)."""
    if (plan.rolled[:, :, 0] > 0).any():
        return "it rolls a number of attacks or hits (Random Attacks, Impact Hits or Stomps in dice)"
    if plan.multiplies.any():
        return "Multiple Wounds against models of more than one wound"
    if plan.p_slay.any():
        return "Killing Blow against models of more than one wound"
    if plan.unstable.any() or plan.daemonic.any():
        return ("an Unstable or Daemonic Instability unit (it loses wounds after the combat "
                "result)")
    return None


def compiled(plan) -> tuple:
    """The compiled parts a solve of ``plan`` calls (the compile notice looks at them): none
    where the charged unit flees (R2-2), solved by formula."""
    return () if plan.flee_reaction else (_walk,)


def solve(plan, max_states: int):
    """Every distinct outcome row of the fight, its probability and the most live states."""
    if plan.flee_reaction:
        return _flee_reaction(plan)
    keys, probs, live = _walk(sides(plan), plan.p_unsaved, plan.cdf, plan.cdf_offset,
                              plan.cdf_top, max_states, DENSE_BOX, CACHED_STANDINGS, POOL)
    for r, states in enumerate(live):
        check_states(int(states), max_states, r)
    return _rows(plan, keys), probs, int(live.max())


def _p_catch(pursuit: np.ndarray, flee: np.ndarray) -> float:
    """P(pursuit roll >= flee roll), the rolls independent (R2-13)."""
    return sum(flee[f] * p_ge(pursuit, f) for f in range(len(flee)))


def _flee_reaction(plan):
    """R2-2: the charged unit flees; the charger's M + roll reaches it, or no fight."""
    charger, charged = plan.charger, 1 - plan.charger
    flee = SWIFT if plan.swiftstride[charged] else TWO_D6
    move = SWIFT if plan.swiftstride[charger] else TWO_D6
    caught = sum(flee[f] * p_ge(move, plan.charge_distance + f - plan.movement[charger])
                 for f in range(len(flee)))
    lost = np.zeros(2, np.int64)
    lost[charged] = plan.count[charged]
    winner = ATTACKER if charger == 0 else DEFENDER
    rows = np.array([[winner, CAUGHT, 0, lost[0], lost[1], 0, 0],
                     [NONE, NO_FIGHT, 0, 0, 0, 0, 0]], np.int64).T
    probs = np.array([caught, 1.0 - caught])
    keep = probs > 0
    return rows[:, keep], probs[keep], 1


def _rows(plan, keys: np.ndarray) -> np.ndarray:
    """Outcome rows (7 x m) from end keys (:func:`_end_key`), as the kernel writes them."""
    left_max = plan.count * plan.wounds
    rest, left1 = np.divmod(keys, left_max[1] + 1)
    rest, left0 = np.divmod(rest, left_max[0] + 1)
    rest, rounds = np.divmod(rest, plan.max_rounds + 1)
    winner, end = np.divmod(rest, N_ENDS)
    rows = np.zeros((7, len(keys)), np.int64)
    rows[0], rows[1], rows[2] = winner, end, rounds
    for s, left in enumerate((left0, left1)):
        models = (left + plan.wounds[s] - 1) // plan.wounds[s]
        caught = (end == CAUGHT) & (winner == (DEFENDER if s == 0 else ATTACKER))
        rows[3 + s] = np.where(caught, plan.count[s], plan.count[s] - models)
        rows[5 + s] = left_max[s] - left
    return rows


# --- keys and tables ------------------------------------------------------------------------
# A table merges equal states: keys (-1 empty) with open addressing and linear probing, and
# masses (size x columns). The walk probes it in place (a helper taking the arrays would
# count references on every call), after _room has made space.

@njit(cache=True, inline="always")
def _state_key(left0, left1, frenzied, radix1):
    """A live fight: wounds left per side and Frenzy per side."""
    return ((left0 * radix1 + left1) * 2 + frenzied[0]) * 2 + frenzied[1]


@njit(cache=True, inline="always")
def _end_key(sd, winner, end, rounds, left0, left1):
    """An ended fight: winner, end, rounds and wounds left per side (the outcome row)."""
    key = (winner * N_ENDS + end) * (sd.max_rounds + 1) + rounds
    return ((key * (sd.count[0] * sd.wounds[0] + 1) + left0)
            * (sd.count[1] * sd.wounds[1] + 1) + left1)


@njit(cache=True, inline="always")
def _hash(key, mask):
    h = key * 0x5851F42D4C957F2D
    return (h ^ (h >> 29)) & mask


@njit(cache=True)
def _table(size, columns):
    return np.full(size, -1, np.int64), np.zeros((size, columns))


@njit(cache=True)
def _room(keys, masses, used, more):
    """The table, grown to hold ``more`` new keys at most half full."""
    size = len(keys)
    while 2 * (used + more) > size:
        size *= 2
    if size == len(keys):
        return keys, masses
    grown_keys, grown_masses = _table(size, masses.shape[1])
    for i in range(len(keys)):
        if keys[i] >= 0:
            h = _hash(keys[i], size - 1)
            while grown_keys[h] >= 0:
                h = (h + 1) & (size - 1)
            grown_keys[h] = keys[i]
            grown_masses[h] = masses[i]
    return grown_keys, grown_masses


@njit(cache=True)
def _entries(keys, masses, used):
    """The keys in use and their first column."""
    out_keys, out_masses = np.empty(used, np.int64), np.empty(used)
    m = 0
    for i in range(len(keys)):
        if keys[i] >= 0:
            out_keys[m], out_masses[m] = keys[i], masses[i, 0]
            m += 1
    return out_keys, out_masses


# --- the rules of one round, on tuples --------------------------------------------------

@njit(cache=True, inline="always")
def _models(sd, left, s):
    return (left + sd.wounds[s] - 1) // sd.wounds[s]


@njit(cache=True, inline="always")
def _strike(sd, n, frenzied, afraid, r, k, s):
    """What decides side s's unsaved wounds at step k (R2-4 ... R2-9): the round, the
    Fear and Frenzy the dice depend on, and each part's attacks (fighting, supporting,
    mounts, Impact Hits, Stomps) from the models standing."""
    contact = _in_contact(sd, n, s)
    a0, a1, a2, a3, a4 = 0, 0, 0, 0, 0
    for j in range(STRIKERS):
        code = sd.strikers[k * STRIKERS + j]
        if code < 0:
            break
        if code // PARTS != s:
            continue
        part = code % PARTS
        a = _part_attacks(sd, n, frenzied, s, part, contact, r)
        if part == 0:
            a0 = a
        elif part == 1:
            a1 = a
        elif part == 2:
            a2 = a
        elif part == 3:
            a3 = a
        else:
            a4 = a
    return (r, afraid[s], afraid[1 - s], frenzied[1 - s], a0, a1, a2, a3, a4)


@njit(cache=True, inline="always")
def _most_wounds(sd, n, frenzied, s):
    """All attacks side s strikes in a round if nobody fell: the most wounds it can cause,
    since casualties and the loss of Frenzy only ever take attacks away (R2-3 ... R2-7)."""
    total = 0
    for k in range(sd.steps):
        strike = _strike(sd, n, frenzied, (0, 0), FIRST, k, s)
        total += strike[4] + strike[5] + strike[6] + strike[7] + strike[8]
    return total


@njit(cache=True, inline="always")
def _standing(sd, n, r):
    """What a round's result takes from the models left standing (R2-11, R2-12), packed:
    side 0's combat result less side 1's before the wounds caused (the kernel's _score adds
    those), and whether side 0, side 1 would be Steadfast if it lost."""
    base = _score(sd, n, 0, (0, 0), r) - _score(sd, n, 1, (0, 0), r)
    return (base + STANDING_OFFSET) * 4 + _steadfast(sd, n, 0) * 2 + _steadfast(sd, n, 1)


@njit(cache=True, inline="always")
def _settle(sd, n, caused, frenzied, standing):
    """How a round that left n models standing ends (R2-11 ... R2-13), as fractions of it:
    (Frenzy after it, P(the fight goes on), winner, P(caught) or P(destroyed), P(fled))."""
    if n[0] == 0 or n[1] == 0:
        winner = NONE if n[0] == n[1] else (ATTACKER if n[1] == 0 else DEFENDER)
        return frenzied, 0.0, winner, 1.0, 0.0
    diff = caused[0] - caused[1] + (standing >> 2) - STANDING_OFFSET
    if diff == 0 and sd.musician[0] == sd.musician[1]:  # R2-11: a draw
        return frenzied, 1.0, NONE, 0.0, 0.0
    if diff == 0:  # a lone musician wins a drawn combat by 1
        diff = 1 if sd.musician[0] else -1
    loser = 1 if diff > 0 else 0
    won = 1 - loser
    after = (frenzied[0] * (loser != 0), frenzied[1] * (loser != 1))  # R2-7: Frenzy lost
    if sd.unbreakable[loser]:
        return after, 1.0, NONE, 0.0, 0.0
    steadfast = (standing >> (1 - loser)) & 1
    target = _leadership(sd, n, loser) - (0 if steadfast else abs(diff))
    hold = sd.holds[13 * loser + min(target, 12)] if target >= 2 else sd.insane[loser]
    if sd.reroll_break[loser]:  # battle standard: re-roll a failed test
        hold = 1.0 - (1.0 - hold) * (1.0 - hold)
    # R2-13: pursue (Frenzy must; restraining needs a Ld test, a battle standard may
    # re-roll it), flee, Caught!
    restraint = sd.fails[13 * won + _leadership(sd, n, won)]
    if sd.reroll_tests[won]:
        restraint *= restraint
    caught = sd.catch[loser] * (1.0 if after[won] > 0 or sd.pursue else restraint)
    winner = ATTACKER if won == 0 else DEFENDER
    return after, hold, winner, (1.0 - hold) * caught, (1.0 - hold) * (1.0 - caught)


# --- the walk ---------------------------------------------------------------------------

@njit(cache=True)
def _convolve(strike, s, row, p_unsaved, cdf, cdf_offset, cdf_top, pmf, tail, scratch):
    """P(side s's strike causes u unsaved wounds) into ``pmf[row]`` and P(at least u) into
    ``tail[row]``, u = 0 .. (returned top): each part's Binomial from the kernel's table,
    convolved (R2-8, R2-9)."""
    r, afraid, enemy_afraid, enemy_frenzied = strike[0], strike[1], strike[2], strike[3]
    pmf[row, 0] = 1.0
    top = 0
    for part in range(PARTS):
        a = strike[4 + part]
        if a == 0:
            continue
        i = (r, afraid, enemy_afraid, enemy_frenzied, s, part)
        if a <= cdf_top[i]:
            at = cdf_offset[i] + ((a * (a + 1)) >> 1)
            scratch[0] = cdf[at]
            for u in range(1, a + 1):
                scratch[u] = cdf[at + u] - cdf[at + u - 1]
        else:  # the kernel draws past its table one uniform per attack: the same Binomial
            scratch[:a + 1] = binomial_pmf(a, p_unsaved[i])
        for x in range(top + 1, top + a + 1):
            pmf[row, x] = 0.0
        for x in range(top, -1, -1):  # in place, from the top down
            px = pmf[row, x]
            pmf[row, x] = px * scratch[0]
            for u in range(1, a + 1):
                pmf[row, x + u] += px * scratch[u]
        top += a
    tail[row, top] = pmf[row, top]
    for u in range(top - 1, -1, -1):
        tail[row, u] = tail[row, u + 1] + pmf[row, u]
    return top


@njit(cache=True, inline="always")
def _strike_key(strike, s, reach):
    """A strike (:func:`_strike`) of side s as one number; its attacks are below ``reach``."""
    key = strike[4]
    for part in range(1, PARTS):
        key = key * reach + strike[4 + part]
    for i in range(4):
        key = key * 2 + strike[i]
    return key * 2 + s


@njit(cache=True)
def _strikes(sd, p_unsaved, cdf, cdf_offset, cdf_top, r, frenzied, most0, most1, models, lost,
             cur, nxt, pool, tops, pmf, tail, scratch):
    """P(side 0 loses d0 wounds and side 1 d1 this round) into ``lost``, d <= most: each
    Fear outcome (R2-7), then the strike steps in order (R2-6), each from the models standing
    at its start (``models[s, d]``); the fight stops when a side is wiped out. The kernel
    clips each side's wounds at those its enemy has left: ``tail`` at the window's edge.
    Rows of ``pmf`` and ``tail`` hold strikes from call to call, their tops in ``tops``
    (the rows in use last): ``pool`` is a hash table from _strike_key to the row, of twice
    as many slots; the last row of ``pmf`` is no strike at all."""
    lost[:most0 + 1, :most1 + 1] = 0.0
    start = (models[0, 0], models[1, 0])
    idle = pmf.shape[0] - 1
    mask = len(pool) - 1
    for branch in range(4):
        afraid = (branch >> 1, branch & 1)
        p = 1.0
        for s in range(2):  # R2-7: Fear tested at the start of the round
            fear = (sd.fails[13 * s + _leadership(sd, start, s)]
                    if sd.tests_fear[s] > 0 and frenzied[s] == 0 else 0.0)
            if sd.reroll_tests[s]:  # a battle standard re-rolls a failed Fear test
                fear *= fear
            p *= fear if afraid[s] else 1.0 - fear
        if p == 0.0:
            continue
        cur[0, 0] = p
        ext0, ext1 = 0, 0  # the wounds lost so far are at most these
        for k in range(sd.steps):
            final = k == sd.steps - 1
            out = lost if final else nxt
            by0 = _strike(sd, start, frenzied, afraid, r, k, 0)
            by1 = _strike(sd, start, frenzied, afraid, r, k, 1)
            strikes0 = by0[4] + by0[5] + by0[6] + by0[7] + by0[8]
            strikes1 = by1[4] + by1[5] + by1[6] + by1[7] + by1[8]
            new0 = min(most0, ext0 + strikes1)
            new1 = min(most1, ext1 + strikes0)
            if not final:
                out[:new0 + 1, :new1 + 1] = 0.0
            for d0 in range(ext0 + 1):
                for d1 in range(ext1 + 1):
                    q = cur[d0, d1]
                    if q == 0.0:
                        continue
                    cur[d0, d1] = 0.0
                    n = (models[0, d0], models[1, d1])
                    if n[0] == 0 or n[1] == 0:  # the fight stops at once
                        out[d0, d1] += q
                        continue
                    if tops[-1] + 2 > idle:  # too few rows free for this cell: start again
                        pool[:, 0] = -1
                        tops[-1] = 0
                    row0, row1 = idle, idle  # a side with no attack at the step's start
                    for s in range(2):       # has none at any of its cells
                        if (strikes0 if s == 0 else strikes1) == 0:
                            continue
                        strike = _strike(sd, n, frenzied, afraid, r, k, s)
                        key = _strike_key(strike, s, pmf.shape[1])
                        h = _hash(key, mask)
                        while pool[h, 0] >= 0 and pool[h, 0] != key:
                            h = (h + 1) & mask
                        if pool[h, 0] < 0:  # a new strike: convolve it into a free row
                            row = tops[-1]
                            tops[-1] += 1
                            pool[h, 0], pool[h, 1] = key, row
                            tops[row] = _convolve(strike, s, row, p_unsaved, cdf, cdf_offset,
                                                  cdf_top, pmf, tail, scratch)
                        row = pool[h, 1]
                        if s == 0:
                            row0 = row
                        else:
                            row1 = row
                    fold0 = min(tops[row1], most0 - d0)
                    fold1 = min(tops[row0], most1 - d1)
                    for u0 in range(fold0 + 1):
                        q0 = q * (pmf[row1, u0] if u0 < fold0 else tail[row1, u0])
                        if q0 == 0.0:
                            continue
                        for u1 in range(fold1):
                            out[d0 + u0, d1 + u1] += q0 * pmf[row0, u1]
                        out[d0 + u0, d1 + fold1] += q0 * tail[row0, fold1]
            ext0, ext1 = new0, new1
            cur, nxt = nxt, cur


@njit(cache=True)
def _walk(sd, p_unsaved, cdf, cdf_offset, cdf_top, max_states, dense_box, cached_standings,
          pooled):
    """The whole walk: end keys and masses, and the live states after each round (index 0:
    the charge). Stops early once a round holds more than ``max_states``. The limits say when
    to index a round's fights directly, keep :func:`_standing`, and how many strikes'
    distributions to keep (:data:`DENSE_BOX`, :data:`CACHED_STANDINGS`, :data:`POOL`; tests
    lower them, with the same compiled signature)."""
    radix0, radix1 = sd.count[0] * sd.wounds[0] + 1, sd.count[1] * sd.wounds[1] + 1
    live = np.zeros(sd.max_rounds + 1, np.int64)
    live[0] = 1
    out_keys, out_masses, m = np.empty(1024, np.int64), np.empty(1024), 0
    front_keys = np.full(1, _state_key(radix0 - 1, radix1 - 1, sd.frenzy, radix1))
    front_masses = np.ones(1)
    reach0 = _most_wounds(sd, sd.count, sd.frenzy, 0)  # the largest round is the first
    reach1 = _most_wounds(sd, sd.count, sd.frenzy, 1)
    size0, size1 = min(reach1, radix0 - 1) + 1, min(reach0, radix1 - 1) + 1
    if size0 * size1 > max_states:  # one round from the charge holds that many fights
        live[1] = size0 * size1
        return out_keys[:0], out_masses[:0], live[:2]
    lost, cur, nxt = np.zeros((size0, size1)), np.zeros((size0, size1)), np.zeros((size0, size1))
    models = np.zeros((2, max(size0, size1)), np.int64)
    reach = max(reach0, reach1) + 1
    pmf, tail = np.zeros((pooled + 1, reach)), np.zeros((pooled + 1, reach))
    pmf[pooled, 0], tail[pooled, 0] = 1.0, 1.0  # no strike
    pool, tops = np.full((2 * pooled, 2), -1), np.zeros(pooled + 2, np.int64)
    scratch = np.zeros(reach)
    cached = 2 * (sd.count[0] + 1) * (sd.count[1] + 1) <= cached_standings
    standings = np.full((2, sd.count[0] + 1, sd.count[1] + 1) if cached else (1, 1, 1), -1)
    rounds = 0
    while len(front_keys) > 0 and rounds < sd.max_rounds:
        rounds += 1
        r = FIRST if rounds == 1 else LATER
        # the fights this round leaves, indexed directly by their wounds left when the box
        # they lie in is small, else hashed: the live ones (wounds left and Frenzy), and
        # those that end (winner and wounds left): destroyed or mutual destruction when a
        # side has no model left, else caught and fled
        low0 = max(0, (front_keys >> 2).min() // radix1 - size0 + 1)
        low1 = max(0, ((front_keys >> 2) % radix1).min() - size1 + 1)
        box0 = (front_keys >> 2).max() // radix1 - low0 + 1
        box1 = ((front_keys >> 2) % radix1).max() - low1 + 1
        dense = box0 * box1 <= dense_box
        next_keys, next_masses = _table(4 * box0 * box1 if dense else 1024, 1)
        end_keys, end_masses = _table(3 * box0 * box1 if dense else 1024, 2)
        next_used, ends_used = 0, 0
        for i in range(len(front_keys)):
            key, mass = front_keys[i], front_masses[i]
            frenzied = ((key >> 1) & 1, key & 1)
            left0, left1 = (key >> 2) // radix1, (key >> 2) % radix1
            start = (_models(sd, left0, 0), _models(sd, left1, 1))
            most0 = min(_most_wounds(sd, start, frenzied, 1), left0)
            most1 = min(_most_wounds(sd, start, frenzied, 0), left1)
            for d in range(most0 + 1):
                models[0, d] = _models(sd, left0 - d, 0)
            for d in range(most1 + 1):
                models[1, d] = _models(sd, left1 - d, 1)
            _strikes(sd, p_unsaved, cdf, cdf_offset, cdf_top, r, frenzied, most0, most1, models,
                     lost, cur, nxt, pool, tops, pmf, tail, scratch)
            if not dense:
                cells = (most0 + 1) * (most1 + 1)  # each ends, or goes on, or both
                next_keys, next_masses = _room(next_keys, next_masses, next_used, cells)
                end_keys, end_masses = _room(end_keys, end_masses, ends_used, cells)
            next_mask, end_mask = len(next_keys) - 1, len(end_keys) - 1
            for d0 in range(most0 + 1):
                for d1 in range(most1 + 1):
                    q = lost[d0, d1] * mass
                    if q == 0.0:
                        continue
                    after0, after1 = left0 - d0, left1 - d1
                    n = (models[0, d0], models[1, d1])
                    if not cached:
                        standing = _standing(sd, n, r)
                    else:
                        standing = standings[r, n[0], n[1]]
                        if standing < 0:
                            standing = _standing(sd, n, r)
                            standings[r, n[0], n[1]] = standing
                    after, going, winner, ended0, ended1 = _settle(sd, n, (d1, d0), frenzied,
                                                                   standing)
                    at = (after0 - low0) * box1 + after1 - low1  # in the box
                    if going > 0.0:
                        key = _state_key(after0, after1, after, radix1)
                        h = 4 * at + 2 * after[0] + after[1] if dense else _hash(key, next_mask)
                        while next_keys[h] != key and next_keys[h] >= 0:
                            h = (h + 1) & next_mask
                        if next_keys[h] < 0:
                            next_keys[h] = key
                            next_used += 1
                        next_masses[h, 0] += q * going
                    if going < 1.0:
                        key = (winner * radix0 + after0) * radix1 + after1
                        h = winner * box0 * box1 + at if dense else _hash(key, end_mask)
                        while end_keys[h] != key and end_keys[h] >= 0:
                            h = (h + 1) & end_mask
                        if end_keys[h] < 0:
                            end_keys[h] = key
                            ends_used += 1
                        end_masses[h, 0] += q * ended0
                        end_masses[h, 1] += q * ended1
            if next_used > max_states:
                live[rounds] = next_used
                return out_keys[:0], out_masses[:0], live[:rounds + 1]
        if m + 2 * ends_used > len(out_keys):
            out_keys = np.concatenate((out_keys, np.empty(m + 2 * ends_used, np.int64)))
            out_masses = np.concatenate((out_masses, np.empty(m + 2 * ends_used)))
        for h in range(len(end_keys)):
            if end_keys[h] < 0:
                continue
            after1, rest = end_keys[h] % radix1, end_keys[h] // radix1
            after0, winner = rest % radix0, rest // radix0
            wiped = _models(sd, after0, 0) == 0 or _models(sd, after1, 1) == 0
            for column in range(2):
                if end_masses[h, column] != 0.0:
                    end = (MUTUAL if winner == NONE else DESTROYED) if wiped else (
                        CAUGHT if column == 0 else FLED)
                    out_keys[m] = _end_key(sd, winner, end, rounds, after0, after1)
                    out_masses[m] = end_masses[h, column]
                    m += 1
        front_keys, front_masses = _entries(next_keys, next_masses, next_used)
        live[rounds] = len(front_keys)
    # still fighting after max_rounds: one row whatever Frenzy is left
    end_keys, end_masses = _table(1024, 1)
    end_keys, end_masses = _room(end_keys, end_masses, 0, len(front_keys))
    used, mask = 0, len(end_keys) - 1
    for i in range(len(front_keys)):
        key = _end_key(sd, NONE, UNRESOLVED, rounds, (front_keys[i] >> 2) // radix1,
                       (front_keys[i] >> 2) % radix1)
        h = _hash(key, mask)
        while end_keys[h] != key and end_keys[h] >= 0:
            h = (h + 1) & mask
        if end_keys[h] < 0:
            end_keys[h] = key
            used += 1
        end_masses[h, 0] += front_masses[i]
    keys, masses = _entries(end_keys, end_masses, used)
    return (np.concatenate((out_keys[:m], keys)), np.concatenate((out_masses[:m], masses)),
            live[:rounds + 1])
