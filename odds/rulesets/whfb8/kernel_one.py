"""The whfb8 kernel of one unit a side without characters or champions: the fast path these
fights keep until the rule text (fight.py, which plays them too) plays them as fast (issue 27).
Plays whole combats of two ranked units, one outcome row per fight.

Only counts matter between the strikes, so the unsaved wounds of each striking part are one
draw from the exact Binomial(attacks, P(hit) P(wound) P(armour fails) P(ward fails)); the dice
the rules compare (Fear and break tests, flee, pursuit, charge) are rolled. Its parts are
compiled each on its own and inlined by LLVM (``forceinline``), not by numba's IR inliner,
which took more than half of its compile time.
Semantics: README.md beside this file. Checked against tests/naive_whfb8.py.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from odds.core.binomial import searched_draw
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
from odds.core.rng import d6, seed_stream, successes
from odds.rulesets.whfb8.compile_one import (
    FIGHTING,
    FIRST,
    FLANK,
    FRONT,
    IMPACT,
    LATER,
    MOUNT,
    SUPPORTING,
)

BLOCK = 256  # trials per parallel work item


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
def _roll(st, count, sides, plus):
    """One roll of a dice spec (odds.core.effects.dice): ``count`` D3s or D6s + ``plus``."""
    total = plus
    for _ in range(count):
        total += d6(st) if sides == 6 else (d6(st) + 1) // 2
    return total


@njit(cache=True)
def _rolled(st, models, count, sides, plus):
    """The attacks or hits ``models`` models roll, each ``count`` D3s or D6s + ``plus``
    (Random Attacks, Impact Hits, Thunderstomps, R2-4). Not inlined, and given numbers only,
    never the plan: the common fight rolls none, and its kernel stays as it was."""
    total = 0
    for _ in range(models):
        total += _roll(st, count, sides, plus)
    return total


@njit(cache=True)
def _wound_models(st, n, dmg, t, wounds, unsaved, others, p_slay, multiplied, count, sides,
                  plus):
    """A striking part's ``unsaved`` wounds on side t (models of ``wounds`` W) one by one,
    each worth ``count`` D3s or D6s + ``plus`` if ``multiplied`` (Multiple Wounds) but never
    more than its model has left; then the Killing Blows among its ``others`` attacks, each
    with probability ``p_slay``, slay a model each (R2-8). Returns the wounds caused. Not
    inlined, as _rolled."""
    slain = successes(st, others, p_slay) if p_slay > 0 else 0
    caused = 0
    for _ in range(unsaved):
        if n[t] == 0:
            return caused
        dealt = min(_roll(st, count, sides, plus), wounds - dmg[t]) if multiplied else 1
        caused += dealt
        dmg[t] += dealt
        if dmg[t] == wounds:
            n[t] -= 1
            dmg[t] = 0
    for _ in range(slain):
        if n[t] == 0:
            return caused
        caused += wounds - dmg[t]
        n[t] -= 1
        dmg[t] = 0
    return caused


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
def _movement_dice(plan, st, s):
    """Side s's flee, pursuit or charge roll (:func:`_movement`)."""
    return _movement(st, plan.swiftstride[s] > 0)


@njit(cache=True, _nrt=False, forceinline=True)
def _movement(st, swiftstride):
    """A flee, pursuit or charge roll: 2D6, or 3D6 dropping the lowest with Swiftstride."""
    a, b = d6(st), d6(st)
    if swiftstride:
        c = d6(st)
        return a + b + c - min(a, min(b, c))
    return a + b


@njit(cache=True, _nrt=False, forceinline=True)
def _ld_dice(plan, st, s, extra):
    """A Leadership test's two dice: 2D6, or with Cold-blooded the lowest two of 3D6
    (``extra``: the plan may have it, see :func:`entry`)."""
    return _ld_pair(st, extra and plan.cold_blooded[s] > 0)


@njit(cache=True, _nrt=False, forceinline=True)
def _ld_pair(st, cold_blooded):
    """2D6, or the lowest two of 3D6."""
    a, b = d6(st), d6(st)
    if cold_blooded:
        c = d6(st)
        high = max(a, max(b, c))
        if high == a:
            a = c
        elif high == b:
            b = c
    return a, b


@njit(cache=True, _nrt=False, forceinline=True)
def _leadership(plan, n, s):
    """The Ld side s tests on (R2-12): its own or its general's; with Strength in Numbers its
    own + 1 per rank of 5 behind the front, at most 10, if that is higher."""
    if plan.strength_in_numbers[s] == 0:
        return plan.leadership[s]
    return max(plan.leadership[s], min(10, plan.own_leadership[s] + max(0, _ranks(plan, n, s)
                                                                        - 1)))


@njit(cache=True, _nrt=False, forceinline=True)
def _fails_ld(plan, st, n, s, extra):
    """A Fear or restraint test of side s fails: its roll is above its Ld (R2-7, R2-13), and
    so does its re-roll if a battle standard gives one (``reroll_tests``)."""
    return _fails_once(plan, st, n, s, extra) and (plan.reroll_tests[s] == 0
                                                   or _fails_once(plan, st, n, s, extra))


@njit(cache=True, _nrt=False, forceinline=True)
def _fails_once(plan, st, n, s, extra):
    """One roll of a Fear or restraint test of side s is above its Ld."""
    a, b = _ld_dice(plan, st, s, extra)
    return a + b > (_leadership(plan, n, s) if extra else plan.leadership[s])


@njit(cache=True, _nrt=False, forceinline=True)
def _break_test(plan, st, s, target, extra):
    """Side s's break test: its roll against target; a double 1 always passes (Insane
    Courage, R2-12)."""
    a, b = _ld_dice(plan, st, s, extra)
    return _holds(a, b, target)


@njit(cache=True, _nrt=False, forceinline=True)
def _holds(a, b, target):
    """A break test of dice a, b holds: at most target, or a double 1 (Insane Courage)."""
    return a + b <= target or (a == 1 and b == 1)


@njit(cache=True, _nrt=False, forceinline=True)
def _fight_round(plan, st, n, dmg, frenzied, afraid, attacks, r, caused, extra):
    """One round of strikes in strike-key order (R2-6); adds each side's unsaved wounds
    (at most the wounds the enemy has left) to caused. Parts striking at one key attack with
    the models standing at its start; casualties are removed at its end."""
    for k in range(plan.steps.shape[0]):
        contact0 = _in_contact(plan, n, 0)
        contact1 = _in_contact(plan, n, 1)
        for j in range(plan.striker_side.shape[1]):
            s = plan.striker_side[k, j]
            if s < 0:
                break
            part = plan.striker_part[k, j]
            contact = contact0 if s == 0 else contact1
            attacks[j] = _part_attacks(plan, n, frenzied, s, part, contact, r)
            if extra and plan.rolled[s, part, 0] > 0 and (part != IMPACT or (r == FIRST
                                                                   and s == plan.charger)):
                attacks[j] += _rolled(st, contact, plan.rolled[s, part, 0],
                                      plan.rolled[s, part, 1], plan.rolled[s, part, 2])
        for j in range(plan.striker_side.shape[1]):
            s = plan.striker_side[k, j]
            if s < 0:
                break
            t = 1 - s
            part = plan.striker_part[k, j]
            a, b, c = afraid[s], afraid[t], frenzied[t]
            unsaved = searched_draw(st, plan.cdf, plan.cdf_offset[r, a, b, c, s, part],
                           plan.cdf_top[r, a, b, c, s, part], attacks[j],
                           plan.p_unsaved[r, a, b, c, s, part])
            if extra and plan.one_by_one[s] > 0:  # Killing Blows on W > 1, Multiple Wounds
                p = plan.p_unsaved[r, a, b, c, s, part]
                caused[s] += _wound_models(
                    st, n, dmg, t, plan.wounds[t], unsaved, attacks[j] - unsaved,
                    plan.p_slay[r, a, b, c, s, part] / (1.0 - p) if p < 1.0 else 0.0,
                    part <= SUPPORTING and plan.multiplies[r, s] > 0,
                    plan.multiple_wounds[r, s, 0], plan.multiple_wounds[r, s, 1],
                    plan.multiple_wounds[r, s, 2])
                continue
            unsaved = min(unsaved, n[t] * plan.wounds[t] - dmg[t])
            caused[s] += unsaved
            w = dmg[t] + unsaved
            while w >= plan.wounds[t]:
                w -= plan.wounds[t]
                n[t] -= 1
            dmg[t] = w
        if n[0] == 0 or n[1] == 0:
            return


@njit(cache=True, _nrt=False, forceinline=True)
def _score(plan, n, s, caused, r):
    """Side s's combat result (R2-11): wounds, charge, ranks unless disrupted, standard,
    battle standard, flank or rear."""
    score = caused[s] + plan.bonus[s] + (r == FIRST and s == plan.charger)
    if not _disrupted(plan, n, s):
        score += min(3, max(0, _ranks(plan, n, s) - 1))
    return score


@njit(cache=True)
def _instability(st, n, dmg, started, s, target, wounds, rerolls, cold_blooded):
    """Side s's Daemonic Instability test (R2-12), for a unit (models of ``wounds`` W) that
    lost a round: 2D6 against ``target``, re-rolled once if ``rerolls`` (a battle standard).
    A double 1 restores the models and wounds it lost this round; a double 6 destroys it;
    otherwise it loses a wound, with no saves, per point the roll is above target. Returns
    the wounds lost; not inlined, and given numbers only, as _rolled."""
    a, b = _ld_pair(st, cold_blooded)
    if rerolls and ((a == 6 and b == 6) or (a + b > target and not (a == 1 and b == 1))):
        a, b = _ld_pair(st, cold_blooded)
    if a == 1 and b == 1:  # Reality Blinks
        n[s], dmg[s] = started[s], started[2 + s]
        return 0
    if a == 6 and b == 6:  # Banished
        lost = n[s] * wounds - dmg[s]
        n[s], dmg[s] = 0, 0
        return lost
    lost = min(max(0, a + b - target), n[s] * wounds - dmg[s])
    w = dmg[s] + lost
    while w >= wounds:
        w -= wounds
        n[s] -= 1
    dmg[s] = w
    return lost


@njit(cache=True, _nrt=False, forceinline=True)
def play_fight(plan, st, n, dmg, frenzied, afraid, attacks, caused, started, out, t, extra):
    """Play one combat (R2-1, R2-14) and write its outcome row into out[:, t]."""
    for s in range(2):
        n[s], dmg[s], frenzied[s], afraid[s] = plan.count[s], 0, plan.frenzy[s], 0
    winner, end, rounds, loser = NONE, UNRESOLVED, 0, -1
    charged = 1 - plan.charger
    if plan.flee_reaction:  # R2-2: the charged unit flees; the charge catches it or not
        fled = _movement_dice(plan, st, charged)
        reach = plan.movement[plan.charger] + _movement_dice(plan, st, plan.charger)
        if reach >= plan.charge_distance + fled:
            winner = ATTACKER if plan.charger == 0 else DEFENDER
            end, loser = CAUGHT, charged
        else:
            end = NO_FIGHT
    while end == UNRESOLVED and rounds < plan.max_rounds:
        r = FIRST if rounds == 0 else LATER
        rounds += 1
        for s in range(2):  # R2-7: Fear test at the start of each round
            afraid[s] = 0
            if plan.tests_fear[s] > 0 and frenzied[s] == 0:
                afraid[s] = _fails_ld(plan, st, n, s, extra)
        caused[0] = 0
        caused[1] = 0
        for s in range(2):
            started[s], started[2 + s] = n[s], dmg[s]
        _fight_round(plan, st, n, dmg, frenzied, afraid, attacks, r, caused, extra)
        out[5, t] += caused[1]
        out[6, t] += caused[0]
        if n[0] == 0 or n[1] == 0:
            end = MUTUAL if n[0] == n[1] else DESTROYED
            winner = NONE if n[0] == n[1] else (ATTACKER if n[1] == 0 else DEFENDER)
            break
        diff = _score(plan, n, 0, caused, r) - _score(plan, n, 1, caused, r)
        if diff == 0:  # R2-11: a lone musician wins a drawn combat by 1
            if plan.musician[0] == plan.musician[1]:
                continue
            diff = 1 if plan.musician[0] else -1
        loser = 1 if diff > 0 else 0
        won = 1 - loser
        margin = abs(diff)
        frenzied[loser] = 0  # R2-7: a defeated unit loses Frenzy
        if extra and plan.unstable[loser]:  # R2-12: Unstable loses a wound a point
            lost = min(margin, n[loser] * plan.wounds[loser] - dmg[loser])
            out[5 + loser, t] += lost
            w = dmg[loser] + lost
            while w >= plan.wounds[loser]:
                w -= plan.wounds[loser]
                n[loser] -= 1
            dmg[loser] = w
            if n[loser] == 0:
                end, winner = DESTROYED, ATTACKER if won == 0 else DEFENDER
                break
            continue
        if plan.unbreakable[loser]:
            continue
        steadfast = _steadfast(plan, n, loser)
        ld = _leadership(plan, n, loser) if extra else plan.leadership[loser]
        target = ld - (0 if steadfast else margin)
        if extra and plan.daemonic[loser]:  # R2-12: Daemonic Instability instead of a break test
            lost = _instability(st, n, dmg, started, loser, target, plan.wounds[loser],
                                plan.reroll_break[loser] > 0, plan.cold_blooded[loser] > 0)
            out[5 + loser, t] += lost
            if n[loser] == 0:
                end, winner = DESTROYED, ATTACKER if won == 0 else DEFENDER
                break
            continue
        if _break_test(plan, st, loser, target, extra) or (
                plan.reroll_break[loser] > 0 and _break_test(plan, st, loser, target, extra)):
            continue
        winner = ATTACKER if won == 0 else DEFENDER
        end = FLED  # R2-13: pursue (Frenzy must; restraining needs a Ld test), flee, Caught!
        pursues = frenzied[won] > 0 or plan.pursue or _fails_ld(plan, st, n, won, extra)
        fled = _movement_dice(plan, st, loser)
        if pursues and _movement_dice(plan, st, won) >= fled:
            end = CAUGHT
    out[0, t] = winner
    out[1, t] = end
    out[2, t] = rounds
    for s in range(2):
        out[3 + s, t] = plan.count[s] if (end == CAUGHT and s == loser) else plan.count[s] - n[s]


@njit(cache=True, inline="always")
def _play_block(plan, seed, first_trial, out, b, extra):
    """Play the trials of block b (BLOCK of them) into out, with working arrays of its own."""
    n_trials = out.shape[1]
    st = np.empty(4, np.uint64)
    n = np.zeros(2, np.int64)
    dmg = np.zeros(2, np.int64)
    frenzied = np.zeros(2, np.int64)
    afraid = np.zeros(2, np.int64)
    attacks = np.zeros(plan.striker_side.shape[1], np.int64)
    caused = np.zeros(2, np.int64)
    started = np.zeros(4, np.int64)  # models and damage of each side as the round began
    for t in range(b * BLOCK, min(n_trials, (b + 1) * BLOCK)):
        out[5, t] = 0
        out[6, t] = 0
        seed_stream(st, seed, first_trial + t)
        play_fight(plan, st, n, dmg, frenzied, afraid, attacks, caused, started, out, t, extra)


@njit(cache=True, parallel=True)
def _play_plain(plan, seed, first_trial, out):
    for b in prange((out.shape[1] + BLOCK - 1) // BLOCK):
        _play_block(plan, seed, first_trial, out, b, False)


@njit(cache=True, parallel=True)
def _play_extra(plan, seed, first_trial, out):
    for b in prange((out.shape[1] + BLOCK - 1) // BLOCK):
        _play_block(plan, seed, first_trial, out, b, True)


def entry(plan):
    """The compiled function that plays this plan: a plan with none of the rules that roll
    counts or take wounds one by one (Random Attacks, Impact Hits or Stomps in dice, Multiple
    Wounds, Killing Blow against several wounds), nor Unstable, Daemonic Instability,
    Strength in Numbers or Cold-blooded (``plan.extra`` false) has its own, without them."""
    return _play_extra if plan.extra else _play_plain


def variant(plan) -> str:
    """The compiled variant :func:`entry` picks, in words (for the compile notice)."""
    return ("one unit a side, with rules that roll counts or take wounds one by one"
            if plan.extra else "one unit a side")


def play_chunk(plan, seed, first_trial, out):
    """Play trials first_trial .. first_trial + out.shape[1] - 1 into out (7, n)."""
    entry(plan)(plan, seed, first_trial, out)
