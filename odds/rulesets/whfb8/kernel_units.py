"""The whfb8 numba kernel of combats with several units a side, characters and champions:
one outcome row per fight (README.md here, "Characters, champions and several units").

As in kernel.py, the unsaved wounds of a striking part on one body (a unit's rank-and-file
or a hero) are one draw from the exact binomial; the dice the rules compare are rolled.
Checked against tests/naive_whfb8_units.py.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from odds.core.binomial import draw
from odds.core.outcome import (
    ATTACKER,
    CAUGHT,
    DESTROYED,
    FLED,
    MUTUAL,
    NONE,
    UNIT_CAUGHT,
    UNIT_DESTROYED,
    UNIT_FLED,
    UNIT_STANDING,
    UNRESOLVED,
)
from odds.core.rng import seed_stream, successes
from odds.rulesets.whfb8.compile import FIRST, FLANK, FRONT, LATER, REAR
from odds.rulesets.whfb8.compile_units import (
    FIGHTING,
    HERO,
    IMPACT,
    MOUNT,
    STOMP,
    SUPPORTING,
)
from odds.rulesets.whfb8.compile_units import (
    BODY_FIELDS,
    ENGAGEMENT_FIELDS,
    SIDE_FIELDS,
    STRIKER_FIELDS,
    UNIT_FIELDS,
)
from odds.rulesets.whfb8.kernel import _holds, _ld_pair, _movement, _roll, _rolled

# the rows of the plan's packed arrays (compile_units.*_FIELDS)
B_BODY_UNIT = BODY_FIELDS.index("body_unit")
B_CHAMPION = BODY_FIELDS.index("champion")
B_COUNT = BODY_FIELDS.index("count")
B_HERO_ATTACKS = BODY_FIELDS.index("hero_attacks")
B_HERO_LD = BODY_FIELDS.index("hero_ld")
B_WOUNDS = BODY_FIELDS.index("wounds")
E_CHARGED = ENGAGEMENT_FIELDS.index("charged")
E_CHARGING = ENGAGEMENT_FIELDS.index("charging")
E_FACE = ENGAGEMENT_FIELDS.index("face")
J_FIRST = STRIKER_FIELDS.index("first")
J_FIXED = STRIKER_FIELDS.index("fixed")
J_HERO = STRIKER_FIELDS.index("hero")
J_KIND = STRIKER_FIELDS.index("kind")
J_SIDE = STRIKER_FIELDS.index("side")
J_UNIT = STRIKER_FIELDS.index("unit")
S_ACCEPT = SIDE_FIELDS.index("accept")
S_BEARER = SIDE_FIELDS.index("bearer")
S_CHALLENGE = SIDE_FIELDS.index("challenge")
S_GENERAL = SIDE_FIELDS.index("general")
S_HEROES = SIDE_FIELDS.index("heroes")
S_UNITS = SIDE_FIELDS.index("units")
U_AIMS = UNIT_FIELDS.index("aims")
U_ATTACKS = UNIT_FIELDS.index("attacks")
U_BSB_KEY = UNIT_FIELDS.index("bsb_key")
U_CAUSES_FEAR = UNIT_FIELDS.index("causes_fear")
U_CHAMPION_BONUS = UNIT_FIELDS.index("champion_bonus")
U_COLD_BLOODED = UNIT_FIELDS.index("cold_blooded")
U_FEAR_IMMUNE = UNIT_FIELDS.index("fear_immune")
U_FIRST_ATTACKS = UNIT_FIELDS.index("first_attacks")
U_FRENZY = UNIT_FIELDS.index("frenzy")
U_HERO_COUNT = UNIT_FIELDS.index("hero_count")
U_HERO_FIRST = UNIT_FIELDS.index("hero_first")
U_HORDE_FILES = UNIT_FIELDS.index("horde_files")
U_IMPACT_HITS = UNIT_FIELDS.index("impact_hits")
U_LD = UNIT_FIELDS.index("ld")
U_LENT_LD = UNIT_FIELDS.index("lent_ld")
U_MOUNT_ATTACKS = UNIT_FIELDS.index("mount_attacks")
U_MUSICIAN = UNIT_FIELDS.index("musician")
U_RANK_MODELS = UNIT_FIELDS.index("rank_models")
U_STANDARD = UNIT_FIELDS.index("standard")
U_STOMPS = UNIT_FIELDS.index("stomps")
U_STRENGTH_IN_NUMBERS = UNIT_FIELDS.index("strength_in_numbers")
U_STUBBORN = UNIT_FIELDS.index("stubborn")
U_SUPPORT_ATTACKS = UNIT_FIELDS.index("support_attacks")
U_SUPPORT_RANKS = UNIT_FIELDS.index("support_ranks")
U_SWIFTSTRIDE = UNIT_FIELDS.index("swiftstride")
U_UNBREAKABLE = UNIT_FIELDS.index("unbreakable")
U_UNIT_SIZE = UNIT_FIELDS.index("unit_size")
U_WIDTH = UNIT_FIELDS.index("width")

BLOCK = 256
HERO_COLUMN = 7    # challenges, challenges won, characters slain, champions slain by side
UNITS_COLUMN = 14  # then each unit's fate, lost, wounds
ALWAYS, CHAMPION_ONLY = 1, 2          # challenge policies (compile_units.CHALLENGES)
REFUSE, CHAMPION_FIRST = 1, 2         # accept policies (compile_units.ACCEPTS)


@njit(cache=True, inline="always")
def _standing(plan, n, s, u):
    """Models of side s's unit u standing: its rank-and-file and its heroes."""
    total = n[s, u]
    U = plan.unit.shape[2]
    for h in range(plan.unit[U_HERO_FIRST, s, u], plan.unit[U_HERO_FIRST, s, u] + plan.unit[U_HERO_COUNT, s, u]):
        total += n[s, U + h]
    return total


@njit(cache=True, inline="always")
def _front(plan, n, s, u):
    return min(plan.unit[U_WIDTH, s, u], _standing(plan, n, s, u))


@njit(cache=True, inline="always")
def _ranks(plan, n, s, u):
    """Ranks of rank_models or more models, the front one included (R2-11, R2-12)."""
    w = plan.unit[U_WIDTH, s, u]
    m = plan.unit[U_RANK_MODELS, s, u]
    if w < m:
        return 0
    total = _standing(plan, n, s, u)
    full = total // w
    return full + (total - full * w >= m)


@njit(cache=True, inline="always")
def _supporters(plan, n, s, u, files):
    """Supporting attacks behind the first ``files`` files of unit u (R2-5)."""
    w = plan.unit[U_WIDTH, s, u]
    total = _standing(plan, n, s, u)
    ranks = plan.unit[U_SUPPORT_RANKS, s, u]
    if plan.unit[U_HORDE_FILES, s, u] > 0 and min(w, total) >= plan.unit[U_HORDE_FILES, s, u]:
        ranks += 1
    out = 0
    for k in range(1, ranks + 1):
        out += min(files, max(0, min(w, total - k * w)))
    return out * plan.unit[U_SUPPORT_ATTACKS, s, u]


@njit(cache=True, inline="always")
def _active(plan, inside, e):
    c = plan.charger
    return inside[c, plan.engagement[E_CHARGING, e]] > 0 and inside[1 - c, plan.engagement[E_CHARGED, e]] > 0


@njit(cache=True, inline="always")
def _of(plan, e, s):
    """Side s's unit in engagement e."""
    return plan.engagement[E_CHARGING, e] if s == plan.charger else plan.engagement[E_CHARGED, e]


@njit(cache=True, inline="always")
def _in(plan, e, s, u):
    """Side s's unit u fights in engagement e."""
    return _of(plan, e, s) == u


@njit(cache=True)
def _hero_engagements(plan, inside, heng):
    """Each unit's heroes fight through one engagement: its front one, else its first."""
    for s in range(2):
        for u in range(plan.side[S_UNITS, s]):
            heng[s, u] = -1
            for e in range(plan.engagement.shape[1]):
                if _in(plan, e, s, u) and _active(plan, inside, e):
                    if heng[s, u] < 0:
                        heng[s, u] = e
                    if s != plan.charger and plan.engagement[E_FACE, e] == FRONT:
                        heng[s, u] = e
                        break


@njit(cache=True)
def _contacts(plan, n, inside, contact, before):
    """Models in base contact in each engagement: contact[e, 0] the charging unit's,
    contact[e, 1] the charged unit's; before[e] the charged unit's models in contact on the
    same face in earlier engagements (R2-3)."""
    c = plan.charger
    for e in range(plan.engagement.shape[1]):
        contact[e, 0] = 0
        contact[e, 1] = 0
        before[e] = 0
        if not _active(plan, inside, e):
            continue
        u, v, f = plan.engagement[E_CHARGING, e], plan.engagement[E_CHARGED, e], plan.engagement[E_FACE, e]
        if f == FLANK:
            w = plan.unit[U_WIDTH, 1 - c, v]
            face = (_standing(plan, n, 1 - c, v) + w - 1) // w
            for x in range(plan.engagement.shape[1]):
                if plan.engagement[E_CHARGED, x] == v and plan.engagement[E_FACE, x] == FRONT and \
                        _active(plan, inside, x):
                    face -= 1
                    break
            face = max(0, face)
        else:
            face = _front(plan, n, 1 - c, v)
        used = 0
        for x in range(e):
            if plan.engagement[E_CHARGED, x] == v and plan.engagement[E_FACE, x] == f:
                used += contact[x, 1]
        front_u = _front(plan, n, c, u)
        contact[e, 0] = min(front_u, face + 2)
        contact[e, 1] = min(max(0, face - used), front_u + 2)
        before[e] = used


@njit(cache=True, inline="always")
def _alive(plan, n, s, h):
    return n[s, plan.unit.shape[2] + h] > 0


@njit(cache=True, inline="always")
def _unit_body(plan, n, duel, t, v):
    """The body attacks at side t's unit v go at: its rank-and-file, else its champion, else
    its first character; never a hero in a challenge; -1 if none."""
    if n[t, v] > 0:
        return v
    U = plan.unit.shape[2]
    for pick in range(2):
        for h in range(plan.unit[U_HERO_FIRST, t, v], plan.unit[U_HERO_FIRST, t, v] + plan.unit[U_HERO_COUNT, t, v]):
            if _alive(plan, n, t, h) and duel[t] != h and plan.body[B_CHAMPION, t, U + h] == 1 - pick:
                return U + h
    return -1


@njit(cache=True)
def _allocate(plan, st, n, inside, frenzied, duel, refused, heng, contact, before, alloc,
              front_of, k, r):
    """Every striker's attacks at step k, split between the enemy bodies it aims at, before
    any die is rolled (R2-4)."""
    U = plan.unit.shape[2]
    c = plan.charger
    for i in range(plan.steps.shape[1]):
        j = plan.steps[k, i]
        if j < 0:
            break
        alloc[j, :] = 0
        s, u, h, kind = (plan.striker[J_SIDE, j], plan.striker[J_UNIT, j], plan.striker[J_HERO, j],
                         plan.striker[J_KIND, j])
        t = 1 - s
        if inside[s, u] == 0:
            continue
        if h >= 0:
            if not _alive(plan, n, s, h) or refused[s] == h:
                continue
            a = plan.striker[J_FIXED, j]
            if kind == HERO:
                a += (r == FIRST) * plan.striker[J_FIRST, j]
                if plan.rolled[j, 0] > 0:
                    a += _roll(st, plan.rolled[j, 0], plan.rolled[j, 1],
                               plan.rolled[j, 2])
            if duel[s] == h:
                alloc[j, U + duel[t]] += a
                front_of[j, U + duel[t]] = 1
                continue
            e = heng[s, u]
            if e < 0:
                continue
            v = _of(plan, e, t)
            b = -1
            if plan.unit[U_AIMS, s, u] > 0:
                for h2 in range(plan.unit[U_HERO_FIRST, t, v], plan.unit[U_HERO_FIRST, t, v]
                                + plan.unit[U_HERO_COUNT, t, v]):
                    if _alive(plan, n, t, h2) and duel[t] != h2 and heng[t, v] == e and (
                            plan.unit[U_AIMS, s, u] == 1 or plan.can_wound[r, j, U + h2] > 0):
                        b = U + h2
                        break
            if b < 0:
                b = _unit_body(plan, n, duel, t, v)
            if b >= 0:
                alloc[j, b] += a
                front_of[j, b] = 1 if (t == c or plan.engagement[E_FACE, e] == FRONT) else 0
            continue
        for e in range(plan.engagement.shape[1]):
            if not _in(plan, e, s, u) or not _active(plan, inside, e):
                continue
            side = 0 if s == c else 1
            files = contact[e, side]
            here = 0
            if heng[s, u] == e:
                for h2 in range(plan.unit[U_HERO_FIRST, s, u], plan.unit[U_HERO_FIRST, s, u]
                                + plan.unit[U_HERO_COUNT, s, u]):
                    if _alive(plan, n, s, h2) and refused[s] != h2:
                        here += 1
            here = min(here, files)
            models = min(files - here, n[s, u])
            v = _of(plan, e, t)
            front = 1 if (t == c or plan.engagement[E_FACE, e] == FRONT) else 0
            offset = 0 if s == c else before[e]
            supports = s == c or plan.engagement[E_FACE, e] == FRONT
            per_model = 0
            if kind == FIGHTING:
                per_model = plan.unit[U_ATTACKS, s, u] + frenzied[s, u] + (r == FIRST) * \
                    plan.unit[U_FIRST_ATTACKS, s, u]
            elif kind == MOUNT:
                per_model = plan.unit[U_MOUNT_ATTACKS, s, u]
            elif kind == IMPACT:
                per_model = plan.unit[U_IMPACT_HITS, s, u] * (r == FIRST)
            elif kind == STOMP:
                per_model = plan.unit[U_STOMPS, s, u]
            rolls = plan.rolled[j, 0] > 0 and (kind != IMPACT or r == FIRST)
            left = models
            done = here
            aimed = 0
            if plan.unit[U_AIMS, s, u] > 0 and (kind == FIGHTING or kind == SUPPORTING
                                        or kind == MOUNT):
                for h2 in range(plan.unit[U_HERO_FIRST, t, v], plan.unit[U_HERO_FIRST, t, v]
                                + plan.unit[U_HERO_COUNT, t, v]):
                    if left == 0:
                        break
                    if not (_alive(plan, n, t, h2) and duel[t] != h2 and heng[t, v] == e and (
                            plan.unit[U_AIMS, s, u] == 1 or plan.can_wound[r, j, U + h2] > 0)):
                        continue
                    m = min(3, left)
                    if kind == SUPPORTING:
                        a = 0
                        if supports:
                            a = _supporters(plan, n, s, u, offset + done + m) - \
                                _supporters(plan, n, s, u, offset + done)
                    else:
                        a = m * per_model
                        if rolls:
                            a += _rolled(st, m, plan.rolled[j, 0], plan.rolled[j, 1],
                                         plan.rolled[j, 2])
                    alloc[j, U + h2] += a
                    front_of[j, U + h2] = front
                    aimed += a
                    left -= m
                    done += m
            if kind == SUPPORTING:  # the rest, behind its heroes' files too
                a = 0
                if supports:
                    a = _supporters(plan, n, s, u, offset + files) - \
                        _supporters(plan, n, s, u, offset) - aimed
            else:
                a = left * per_model
                if kind == FIGHTING and (heng[s, u] == e or heng[s, u] < 0):
                    a += min(left, plan.unit[U_CHAMPION_BONUS, s, u])
                if rolls:
                    a += _rolled(st, left, plan.rolled[j, 0], plan.rolled[j, 1],
                                 plan.rolled[j, 2])
            if a > 0:
                b = _unit_body(plan, n, duel, t, v)
                if b >= 0:
                    alloc[j, b] += a
                    front_of[j, b] = front


@njit(cache=True)
def _wound(st, n, dmg, t, b, wounds, unsaved, slain, multiplied, count, sides, plus, dealt):
    """``unsaved`` wounds, then ``slain`` Killing Blows, on body b of side t (models of
    ``wounds`` W); with Multiple Wounds (``multiplied``) each unsaved wound is ``count`` D3s
    or D6s + ``plus``, never more than its model has left (R2-8).
    Returns (wounds caused, unsaved wounds left over, Killing Blows left over); adds to
    dealt[0] every wound as dealt, for overkill (a Killing Blow: the wounds left, at least
    1)."""
    caused = 0
    if not multiplied:
        take = min(unsaved, n[t, b] * wounds - dmg[t, b])
        caused = take
        dealt[0] += unsaved
        w = dmg[t, b] + take
        n[t, b] -= w // wounds
        dmg[t, b] = w % wounds
        left = unsaved - take
    else:
        left = 0
        for _ in range(unsaved):
            value = _roll(st, count, sides, plus)
            dealt[0] += value
            if n[t, b] == 0:
                left += 1
                continue
            value = min(value, wounds - dmg[t, b])
            caused += value
            dmg[t, b] += value
            if dmg[t, b] == wounds:
                n[t, b] -= 1
                dmg[t, b] = 0
    killed = 0
    for _ in range(slain):
        if n[t, b] == 0:
            break
        caused += wounds - dmg[t, b]
        dealt[0] += wounds - dmg[t, b]
        n[t, b] -= 1
        dmg[t, b] = 0
        killed += 1
    dealt[0] += slain - killed
    return caused, left, slain - killed


@njit(cache=True)
def _strike(plan, st, n, dmg, duel, afraid, frenzied, wounded, alloc, front_of, caused,
            dealt, spill, k, r, out, t_row):
    """The draws of step k: each striker's unsaved wounds on each body it aims at, taken at
    once (R2-6); wounds past a unit's last rank-and-file model fall on its champion."""
    U = plan.unit.shape[2]
    B = plan.body.shape[2]
    for i in range(plan.steps.shape[1]):
        j = plan.steps[k, i]
        if j < 0:
            break
        s = plan.striker[J_SIDE, j]
        t = 1 - s
        su = plan.striker[J_UNIT, j]
        in_duel = plan.striker[J_HERO, j] >= 0 and duel[s] == plan.striker[J_HERO, j]
        for b in range(B):
            a = alloc[j, b]
            if a == 0:
                continue
            tu = plan.body[B_BODY_UNIT, t, b]
            fz = frenzied[t, tu] if b < U else 0
            x = (r, afraid[s, su], afraid[t, tu], fz, front_of[j, b], j, b)
            p = plan.p_unsaved[x]
            unsaved = draw(st, plan.cdf, plan.cdf_offset[x], plan.cdf_top[x], a, p)
            p_slay = plan.p_slay[x]
            slain = 0
            if p_slay > 0 and a > unsaved:
                slain = successes(st, a - unsaved, p_slay / (1.0 - p) if p < 1.0 else 0.0)
            mw = plan.multiple_wounds[r, j]
            multiplied = plan.multiplies[r, j] > 0
            spill[0] = 0
            got, left, left_slain = _wound(st, n, dmg, t, b, plan.body[B_WOUNDS, t, b], unsaved, slain,
                                           multiplied, mw[0], mw[1], mw[2], spill)
            if b < U and (left > 0 or left_slain > 0):
                for h in range(plan.unit[U_HERO_FIRST, t, b], plan.unit[U_HERO_FIRST, t, b]
                               + plan.unit[U_HERO_COUNT, t, b]):
                    if plan.body[B_CHAMPION, t, U + h] and n[t, U + h] > 0 and duel[t] != h:
                        more, _, _ = _wound(st, n, dmg, t, U + h, plan.body[B_WOUNDS, t, U + h], left,
                                            left_slain, multiplied, mw[0], mw[1], mw[2], spill)
                        got += more
            wounded[t, tu] += got
            out[5 + t, t_row] += got
            if in_duel:
                dealt[s] += spill[0]
            else:
                caused[s] += got


@njit(cache=True, inline="always")
def _unit_ld(plan, n, inside, refused, s, u):
    """The Ld unit u tests on (R2-12): the highest of its models standing (a refusing
    character's only if it stands alone), with Strength in Numbers + 1 per rank behind the
    front (at most 10); the general's while it stands in the fight and did not refuse; the
    unit key general_Ld."""
    U = plan.unit.shape[2]
    own, benched = 0, 0
    if n[s, u] > 0:
        own = plan.unit[U_LD, s, u]
    for h in range(plan.unit[U_HERO_FIRST, s, u], plan.unit[U_HERO_FIRST, s, u]
                   + plan.unit[U_HERO_COUNT, s, u]):
        if n[s, U + h] > 0:
            if refused[s] != h:
                own = max(own, plan.body[B_HERO_LD, s, U + h])
            else:
                benched = plan.body[B_HERO_LD, s, U + h]
    if own == 0:
        own = benched
    if plan.unit[U_STRENGTH_IN_NUMBERS, s, u] > 0:
        own = min(10, own + max(0, _ranks(plan, n, s, u) - 1))
    ld = max(own, plan.unit[U_LENT_LD, s, u])
    g = plan.side[S_GENERAL, s]
    if g >= 0 and n[s, U + g] > 0 and inside[s, plan.body[B_BODY_UNIT, s, U + g]] > 0 and \
            refused[s] != g:
        ld = max(ld, plan.body[B_HERO_LD, s, U + g])
    return ld


@njit(cache=True, inline="always")
def _battle_standard(plan, n, inside, s):
    """Side s has a battle standard: its bearer standing in the fight, or a unit in the fight
    with the unit key."""
    g = plan.side[S_BEARER, s]
    U = plan.unit.shape[2]
    if g >= 0 and n[s, U + g] > 0 and inside[s, plan.body[B_BODY_UNIT, s, U + g]] > 0:
        return True
    for u in range(plan.side[S_UNITS, s]):
        if inside[s, u] > 0 and plan.unit[U_BSB_KEY, s, u] > 0:
            return True
    return False


@njit(cache=True, inline="always")
def _fails(plan, st, n, inside, refused, s, u, rerolls):
    """A Fear or restraint test of unit u fails: 2D6 (Cold-blooded: the lowest two of 3D6)
    above its Ld, re-rolled once with ``rerolls``."""
    ld = _unit_ld(plan, n, inside, refused, s, u)
    for _ in range(1 + rerolls):
        a, b = _ld_pair(st, plan.unit[U_COLD_BLOODED, s, u] > 0)
        if a + b <= ld:
            return False
    return True


@njit(cache=True, inline="always")
def _engaged(plan, inside, s, u, o):
    """Side s's unit u and the enemy unit o are engaged (both in the fight)."""
    for e in range(plan.engagement.shape[1]):
        if _in(plan, e, s, u) and _in(plan, e, 1 - s, o) and _active(plan, inside, e):
            return True
    return False


@njit(cache=True)
def _challenge(plan, n, inside, duel, refused, turn, out, t_row):
    """The challenge at the start of a round (R2-4): the side whose turn it is issues first,
    by its policy; the other side accepts by its own, or refuses."""
    U = plan.unit.shape[2]
    if duel[0] >= 0:
        if _alive(plan, n, 0, duel[0]) and _alive(plan, n, 1, duel[1]) and \
                inside[0, plan.body[B_BODY_UNIT, 0, U + duel[0]]] > 0 and \
                inside[1, plan.body[B_BODY_UNIT, 1, U + duel[1]]] > 0:
            return
        duel[0] = -1
        duel[1] = -1
    for i in range(2):
        s = turn if i == 0 else 1 - turn
        o = 1 - s
        if plan.side[S_CHALLENGE, s] == 0:
            continue
        for pick in range(2):  # characters first, then champions
            if pick == 0 and plan.side[S_CHALLENGE, s] == CHAMPION_ONLY:
                continue
            for h in range(plan.side[S_HEROES, s]):
                hb = U + h
                if not _alive(plan, n, s, h) or plan.body[B_CHAMPION, s, hb] != pick or \
                        inside[s, plan.body[B_BODY_UNIT, s, hb]] == 0:
                    continue
                first_character, first_champion, strongest = -1, -1, -1
                for h2 in range(plan.side[S_HEROES, o]):
                    if not _alive(plan, n, o, h2) or not _engaged(
                            plan, inside, s, plan.body[B_BODY_UNIT, s, hb], plan.body[B_BODY_UNIT, o, U + h2]):
                        continue
                    if plan.body[B_CHAMPION, o, U + h2]:
                        if first_champion < 0:
                            first_champion = h2
                    else:
                        if first_character < 0:
                            first_character = h2
                        if strongest < 0 or plan.body[B_HERO_ATTACKS, o, U + h2] > \
                                plan.body[B_HERO_ATTACKS, o, U + strongest]:
                            strongest = h2
                if first_character < 0 and first_champion < 0:
                    continue
                if plan.side[S_ACCEPT, o] == REFUSE:
                    if plan.refusal_penalty:
                        refused[o] = strongest
                    return
                taker = first_character if first_character >= 0 else first_champion
                if plan.side[S_ACCEPT, o] == CHAMPION_FIRST and first_champion >= 0:
                    taker = first_champion
                duel[s] = h
                duel[o] = taker
                if out.shape[0] > HERO_COLUMN:
                    out[HERO_COLUMN, t_row] += 1
                return


@njit(cache=True)
def _score(plan, n, inside, s, caused, dealt, cap, r):
    """Side s's combat result (R2-11): wounds and overkill, charge, the best unit's ranks,
    a standard, the battle standard, flank and rear once per enemy unit."""
    c = plan.charger
    score = caused[s] + min(dealt[s], cap[s]) + (r == FIRST and s == c)
    best = 0
    standard = 0
    for u in range(plan.side[S_UNITS, s]):
        if inside[s, u] == 0:
            continue
        standard = max(standard, plan.unit[U_STANDARD, s, u])
        if not _disrupted(plan, n, inside, s, u):
            best = max(best, min(3, max(0, _ranks(plan, n, s, u) - 1)))
    score += best + standard + _battle_standard(plan, n, inside, s)
    if s == c:
        for v in range(plan.side[S_UNITS, 1 - c]):
            flank, rear = 0, 0
            for e in range(plan.engagement.shape[1]):
                if plan.engagement[E_CHARGED, e] == v and _active(plan, inside, e):
                    flank = max(flank, plan.engagement[E_FACE, e] == FLANK)
                    rear = max(rear, plan.engagement[E_FACE, e] == REAR)
            score += flank + 2 * rear
    return score


@njit(cache=True, inline="always")
def _disrupted(plan, n, inside, s, u):
    """A charged unit engaged in a flank or the rear by a unit of two or more ranks (R2-11)."""
    if s == plan.charger:
        return False
    for e in range(plan.engagement.shape[1]):
        if plan.engagement[E_CHARGED, e] == u and plan.engagement[E_FACE, e] != FRONT and _active(plan, inside, e) \
                and _ranks(plan, n, plan.charger, plan.engagement[E_CHARGING, e]) >= 2:
            return True
    return False


@njit(cache=True, inline="always")
def _left(plan, inside, s):
    """Side s's units still in the fight."""
    total = 0
    for u in range(plan.side[S_UNITS, s]):
        total += inside[s, u]
    return total


@njit(cache=True)
def _end(plan, fate, x):
    """How side x, left with no unit in the fight, lost: fled if any unit fled, else caught
    if any was caught, else destroyed."""
    end = DESTROYED
    for u in range(plan.side[S_UNITS, x]):
        if fate[x, u] == UNIT_FLED:
            return FLED
        if fate[x, u] == UNIT_CAUGHT:
            end = CAUGHT
    return end


@njit(cache=True)
def _casualties(plan, n, inside, fate, duel, out, t_row):
    """Units with no model left leave the fight (destroyed); a challenge ends when one of
    the two falls, won by the other."""
    for s in range(2):
        for u in range(plan.side[S_UNITS, s]):
            if inside[s, u] > 0 and _standing(plan, n, s, u) == 0:
                inside[s, u] = 0
                fate[s, u] = UNIT_DESTROYED
    if duel[0] >= 0:
        a, b = _alive(plan, n, 0, duel[0]), _alive(plan, n, 1, duel[1])
        if not (a and b):
            if a and out.shape[0] > HERO_COLUMN + 1:
                out[HERO_COLUMN + 1, t_row] += 1
            if b and out.shape[0] > HERO_COLUMN + 2:
                out[HERO_COLUMN + 2, t_row] += 1
            duel[0] = -1
            duel[1] = -1


@njit(cache=True)
def _break_and_pursue(plan, st, n, inside, fate, frenzied, refused, flee, best, fled_now,
                      loser, margin):
    """Every unit of the losing side takes its break test (R2-12); those that fail flee;
    each winning unit whose enemies all fled pursues, and a fleeing unit is caught if any
    pursuer rolls at least its flee roll (R2-13). Units with no enemy left leave the fight."""
    won = 1 - loser
    most = 0
    for w in range(plan.side[S_UNITS, won]):
        if inside[won, w] > 0:
            most = max(most, _ranks(plan, n, won, w))
    bsb = 1 if _battle_standard(plan, n, inside, loser) else 0
    for u in range(plan.side[S_UNITS, loser]):
        fled_now[loser, u] = 0
        best[loser, u] = -1
    for u in range(plan.side[S_UNITS, loser]):
        if inside[loser, u] == 0:
            continue
        frenzied[loser, u] = 0  # R2-7: a defeated unit loses Frenzy
        if plan.unit[U_UNBREAKABLE, loser, u] > 0:
            continue
        steadfast = plan.unit[U_STUBBORN, loser, u] > 0 or (
            _ranks(plan, n, loser, u) > most and (plan.disrupted_steadfast or not _disrupted(
                plan, n, inside, loser, u)))
        target = _unit_ld(plan, n, inside, refused, loser, u) - (0 if steadfast else margin)
        held = False
        for _ in range(1 + bsb):
            a, b = _ld_pair(st, plan.unit[U_COLD_BLOODED, loser, u] > 0)
            if _holds(a, b, target):
                held = True
                break
        if not held:
            fled_now[loser, u] = 1
            flee[loser, u] = _movement(st, plan.unit[U_SWIFTSTRIDE, loser, u] > 0)
    for u in range(plan.side[S_UNITS, loser]):
        if fled_now[loser, u]:
            inside[loser, u] = 0
            fate[loser, u] = UNIT_FLED
    rerolls = 1 if plan.reroll_all and _battle_standard(plan, n, inside, won) else 0
    for w in range(plan.side[S_UNITS, won]):
        if inside[won, w] == 0:
            continue
        fought, still = False, False
        for e in range(plan.engagement.shape[1]):
            if not _in(plan, e, won, w):
                continue
            o = _of(plan, e, loser)
            if fled_now[loser, o]:
                fought = True
            elif inside[loser, o] > 0:
                still = True
        if still or not fought:
            continue
        pursues = frenzied[won, w] > 0 or plan.pursue or _fails(plan, st, n, inside, refused,
                                                                 won, w, rerolls)
        if pursues:
            roll = _movement(st, plan.unit[U_SWIFTSTRIDE, won, w] > 0)
            for e in range(plan.engagement.shape[1]):
                if _in(plan, e, won, w):
                    o = _of(plan, e, loser)
                    if fled_now[loser, o]:
                        best[loser, o] = max(best[loser, o], roll)
        inside[won, w] = 0  # it leaves the fight, pursuing or standing
    for u in range(plan.side[S_UNITS, loser]):
        if fled_now[loser, u] and best[loser, u] >= flee[loser, u]:
            fate[loser, u] = UNIT_CAUGHT
    _disengage(plan, inside)


@njit(cache=True)
def _disengage(plan, inside):
    """Units with no enemy left in contact leave the fight, standing."""
    for s in range(2):
        for u in range(plan.side[S_UNITS, s]):
            if inside[s, u] == 0:
                continue
            engaged = False
            for e in range(plan.engagement.shape[1]):
                if _in(plan, e, s, u) and _active(plan, inside, e):
                    engaged = True
            if not engaged:
                inside[s, u] = 0


@njit(cache=True)
def _fear(plan, st, n, inside, frenzied, afraid, refused):
    """R2-7: each unit engaged with a Fear-causing enemy unit tests at the start of the
    round, unless it is immune or Frenzied."""
    for s in range(2):
        rerolls = 1 if plan.reroll_all and _battle_standard(plan, n, inside, s) else 0
        for u in range(plan.side[S_UNITS, s]):
            afraid[s, u] = 0
            if inside[s, u] == 0 or plan.unit[U_FEAR_IMMUNE, s, u] or frenzied[s, u]:
                continue
            scared = False
            for e in range(plan.engagement.shape[1]):
                if _in(plan, e, s, u) and _active(plan, inside, e) and \
                        plan.unit[U_CAUSES_FEAR, 1 - s, _of(plan, e, 1 - s)]:
                    scared = True
            if scared:
                afraid[s, u] = _fails(plan, st, n, inside, refused, s, u, rerolls)


@njit(cache=True)
def play_fight(plan, st, w, out, t_row):
    """Play one combat and write its outcome row into out[:, t_row]: the shared columns,
    then, as far as ``out`` has rows for them, the hero columns and each unit's."""
    (n, dmg, inside, fate, wounded, frenzied, afraid, flee, best, fled_now, duel, refused,
     caused, dealt, cap, alloc, front_of, contact, before, heng, spill) = w
    U = plan.unit.shape[2]
    for s in range(2):
        for b in range(plan.body.shape[2]):
            n[s, b] = plan.body[B_COUNT, s, b]
            dmg[s, b] = 0
        for u in range(U):
            inside[s, u] = u < plan.side[S_UNITS, s]
            fate[s, u] = UNIT_STANDING
            wounded[s, u] = 0
            frenzied[s, u] = plan.unit[U_FRENZY, s, u]
    duel[0], duel[1] = -1, -1
    winner, end, rounds = NONE, UNRESOLVED, 0
    while rounds < plan.max_rounds:
        r = FIRST if rounds == 0 else LATER
        rounds += 1
        turn = plan.charger if rounds % 2 == 1 else 1 - plan.charger
        refused[0], refused[1] = -1, -1
        _challenge(plan, n, inside, duel, refused, turn, out, t_row)
        _fear(plan, st, n, inside, frenzied, afraid, refused)
        for s in range(2):
            caused[s] = 0
            dealt[s] = 0
            cap[s] = 0
            if duel[s] >= 0:
                foe = U + duel[1 - s]
                cap[s] = plan.body[B_WOUNDS, 1 - s, foe] - dmg[1 - s, foe] + 5
        for k in range(plan.steps.shape[0]):
            _hero_engagements(plan, inside, heng)
            _contacts(plan, n, inside, contact, before)
            _allocate(plan, st, n, inside, frenzied, duel, refused, heng, contact, before,
                      alloc, front_of, k, r)
            _strike(plan, st, n, dmg, duel, afraid, frenzied, wounded, alloc, front_of, caused,
                    dealt, spill, k, r, out, t_row)
            _casualties(plan, n, inside, fate, duel, out, t_row)
            if _left(plan, inside, 0) == 0 or _left(plan, inside, 1) == 0:
                break
        a_left, d_left = _left(plan, inside, 0), _left(plan, inside, 1)
        if a_left == 0 or d_left == 0:
            if a_left == d_left:
                end = MUTUAL
            else:
                y = 0 if d_left == 0 else 1
                winner, end = ATTACKER + y, _end(plan, fate, 1 - y)
            break
        diff = _score(plan, n, inside, 0, caused, dealt, cap, r) - \
            _score(plan, n, inside, 1, caused, dealt, cap, r)
        if diff == 0:  # R2-11: a lone musician wins a drawn combat by 1
            m0, m1 = _musician(plan, inside, 0), _musician(plan, inside, 1)
            if m0 == m1:
                _disengage(plan, inside)
                continue
            diff = 1 if m0 else -1
        loser = 1 if diff > 0 else 0
        _break_and_pursue(plan, st, n, inside, fate, frenzied, refused, flee, best, fled_now,
                          loser, abs(diff))
        _casualties(plan, n, inside, fate, duel, out, t_row)
        a_left, d_left = _left(plan, inside, 0), _left(plan, inside, 1)
        if a_left == 0 or d_left == 0:
            y = 0 if d_left == 0 else 1
            if a_left == d_left:
                y = 1 - loser
            winner, end = ATTACKER + y, _end(plan, fate, 1 - y)
            break
    out[0, t_row] = winner
    out[1, t_row] = end
    out[2, t_row] = rounds
    column = UNITS_COLUMN
    for s in range(2):
        total, slain, champions = 0, 0, 0
        for h in range(plan.side[S_HEROES, s]):
            if plan.body[B_CHAMPION, s, U + h]:
                champions += n[s, U + h] == 0
            else:
                slain += n[s, U + h] == 0
        for u in range(plan.side[S_UNITS, s]):
            lost = plan.unit[U_UNIT_SIZE, s, u] if fate[s, u] == UNIT_CAUGHT else \
                plan.unit[U_UNIT_SIZE, s, u] - _standing(plan, n, s, u)
            total += lost
            if plan.unit_columns and out.shape[0] >= column + 3:
                out[column, t_row] = fate[s, u]
                out[column + 1, t_row] = lost
                out[column + 2, t_row] = wounded[s, u]
                column += 3
        out[3 + s, t_row] = total
        if out.shape[0] > HERO_COLUMN + 5 + s:
            out[HERO_COLUMN + 3 + s, t_row] = slain
            out[HERO_COLUMN + 5 + s, t_row] = champions


@njit(cache=True, inline="always")
def _musician(plan, inside, s):
    for u in range(plan.side[S_UNITS, s]):
        if inside[s, u] > 0 and plan.unit[U_MUSICIAN, s, u] > 0:
            return True
    return False


@njit(cache=True)
def _play_block(plan, seed, first_trial, out, b):
    """Play the trials of block b (BLOCK of them) into out, with working arrays of its own."""
    U = plan.unit.shape[2]
    B = plan.body.shape[2]
    J = plan.striker.shape[1]
    E = plan.engagement.shape[1]
    st = np.empty(4, np.uint64)
    w = (np.zeros((2, B), np.int64), np.zeros((2, B), np.int64),
         np.zeros((2, U), np.int64), np.zeros((2, U), np.int64), np.zeros((2, U), np.int64),
         np.zeros((2, U), np.int64), np.zeros((2, U), np.int64), np.zeros((2, U), np.int64),
         np.zeros((2, U), np.int64), np.zeros((2, U), np.int64), np.zeros(2, np.int64),
         np.zeros(2, np.int64), np.zeros(2, np.int64), np.zeros(2, np.int64),
         np.zeros(2, np.int64), np.zeros((J, B), np.int64), np.zeros((J, B), np.int64),
         np.zeros((E, 2), np.int64), np.zeros(E, np.int64), np.zeros((2, U), np.int64),
         np.zeros(1, np.int64))
    for t in range(b * BLOCK, min(out.shape[1], (b + 1) * BLOCK)):
        for c in range(5, out.shape[0]):
            out[c, t] = 0
        seed_stream(st, seed, first_trial + t)
        play_fight(plan, st, w, out, t)


@njit(cache=True, parallel=True)
def _play(plan, seed, first_trial, out):
    for b in prange((out.shape[1] + BLOCK - 1) // BLOCK):
        _play_block(plan, seed, first_trial, out, b)


def entry(plan):
    """The compiled function that plays a plan of several units or heroes."""
    return _play


def variant(plan) -> str:
    """The compiled variant :func:`entry` picks, in words (for the compile notice)."""
    return "several units, characters and champions"


def play_chunk(plan, seed, first_trial, out):
    """Play trials first_trial .. first_trial + out.shape[1] - 1 into out."""
    _play(plan, seed, first_trial, out)
