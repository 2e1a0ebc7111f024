"""The wh40k3 exact solver (issue 12): the kernel's fight, computed instead of sampled.

It walks the distribution of fight states round by round and strike step by strike step
(R0-4), from the same compiled plan and binomial tables the kernel reads, and calls the
kernel's own helpers (placing, front group, receiver of the next wound, wounding, Ld,
retargeting, how a beaten side ended) so that each rule is written once. Where the kernel
rolls dice the walk enumerates them: wound counts (Binomial from the plan's tables, or one
save roll per wound where the kernel saves them one at a time), the charge through difficult
terrain (R0-1), the roll-off (R0-10), each unit's Ld test (R0-11), the fall-back, pursuit and
advance rolls (R0-12), the last two jointly since the pursuit roll is also the advance.

A fight state is one int64 vector: every group's models per place and the wounds on its
wounded model, each unit's in-the-fight flag and fate, and the round type (the charge round,
a later round, the charge round of a new combat after an advance), and side 0's lead in
unsaved wounds this round (R0-10). Between the strike steps of a round the states that
differ only in their lead share one row with a probability per lead; at the round's end only
the lead's sign is kept.
Targets follow from who is in the fight, and a unit's losses and wounds from its models, so
neither is stored. Equal states are merged in hash tables (rows of int64), so the work grows
with the reachable states, not with the paths.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from odds.core.exact import binomial_pmf, check_states
from odds.core.outcome import (ATTACKER, COLUMNS, MUTUAL, NO_FIGHT, NONE,
                               UNIT_CAUGHT, UNIT_DESTROYED, UNIT_FLED, UNIT_STANDING,
                               UNIT_UNREACHED, UNRESOLVED)
from odds.rulesets.wh40k3.compile import ADVANCE, CONTACT, FEARLESS_LD, FIRST, LATER, SAVES
from odds.rulesets.wh40k3.kernel import (_end, _front, _groups, _in_fight, _leadership, _n,
                                         _place, _receiver, _retarget, _standing, _wound)

# Past about 20,000 states a round the walk takes longer than simulating the fight to a
# 0.1-point half-width (the bundled two squads against a mob: 50,376 states, about 13 s,
# against 0.6 s), so by default such a fight is refused early and method 'auto' simulates it;
# max_states lets it be solved anyway.
MAX_STATES = 20_000
TWO_D6 = np.array([0, 0, 1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1]) / 36.0  # P(2D6 = t), t = 0..12
N_SHARED = len(COLUMNS)


def covers(scenario) -> str | None:
    """None: the solver plays every rule the wh40k3 kernel plays, one unit a side or several
    (R0-1 ... R0-16)."""
    return None


def solve(plan, max_states: int):
    """(rows, weights, states): every distinct outcome row the kernel can write for this
    plan, its probability, and the most live fight states a round held (see
    :mod:`odds.core.exact`)."""
    multi = bool(plan.units.max() > 1)
    n_columns = N_SHARED + (3 * int(plan.units.sum()) if multi else 0)
    rows, weights, counts = _walk(plan, multi, int(max_states), n_columns, _p_charge(plan))
    for r, count in enumerate(counts):
        check_states(int(count), max_states, r)
    return rows.T.copy(), weights, int(counts.max())


def _p_charge(plan) -> float:
    """P(the charge reaches) (R0-1): the higher of 2D6 at least the distance."""
    if plan.charge_distance < 0:
        return 1.0
    short = sum(1 for face in range(1, 7) if face < plan.charge_distance) / 6
    return 1.0 - short * short


# --- hash tables of int64 rows ---------------------------------------------------------------

@njit(cache=True)
def _table(cap, width):
    """An empty table (rows, probabilities, slots, [size]) with room for ``cap`` rows."""
    size = 16
    while size < 2 * cap:
        size *= 2
    return (np.empty((cap, width), np.int64), np.empty(cap), np.full(size, -1, np.int64),
            np.zeros(1, np.int64))


HASH = np.random.default_rng(40).integers(1, 1 << 62, size=4096) * 2 + 1  # odd multipliers


@njit(cache=True, inline="always")
def _hash(vec):
    """A row's hash: additive, so a step can build it from its parts' hashes."""
    h = np.int64(0)
    for i in range(vec.shape[0]):
        h += vec[i] * HASH[i]
    return h


@njit(cache=True, inline="always")
def _slot(keys, slots, vec, h):
    """The slot of ``vec`` (hash h): where it is, or the empty slot where it would go."""
    h ^= h >> np.int64(33)
    h *= np.int64(-49064778989728563)  # 0xff51afd7ed558ccd, the murmur3 finaliser
    h ^= h >> np.int64(33)
    mask = slots.shape[0] - 1
    i = h & mask
    width = keys.shape[1]
    while True:
        e = slots[i]
        if e < 0:
            return i
        same = True
        for c in range(width):
            if keys[e, c] != vec[c]:
                same = False
                break
        if same:
            return i
        i = (i + 1) & mask


@njit(cache=True, inline="always")
def _clear(table):
    table[2][:] = -1
    table[3][0] = 0


@njit(cache=True)
def _moved(table, bigger):
    """``bigger``, an empty table (of either kind), holding ``table``'s rows."""
    keys, probs, _, n = table
    k2, p2, s2, n2 = bigger
    for e in range(n[0]):
        k2[e] = keys[e]
        p2[e] = probs[e]
        s2[_slot(k2, s2, keys[e], _hash(keys[e]))] = e
    n2[0] = n[0]
    return bigger


@njit(cache=True)
def _grown(table):
    return _moved(table, _table(2 * table[0].shape[0], table[0].shape[1]))


@njit(cache=True)
def _add(table, vec, p):
    """Add probability p to the row ``vec`` (inserted if new); returns the table (grown when
    full)."""
    return _add_hashed(table, vec, _hash(vec), p)


@njit(cache=True)
def _add_hashed(table, vec, h, p):
    """:func:`_add` of a row whose hash h is known."""
    if p == 0.0:
        return table
    if table[3][0] == table[0].shape[0]:
        table = _grown(table)
    keys, probs, slots, n = table
    i = _slot(keys, slots, vec, h)
    e = slots[i]
    if e >= 0:
        probs[e] += p
    else:
        m = n[0]
        keys[m] = vec
        probs[m] = p
        slots[i] = m
        n[0] = m + 1
    return table


@njit(cache=True)
def _vtable(cap, width, spread):
    """An empty table of rows, each with a probability per lead (see :func:`_lead_index`)."""
    size = 16
    while size < 2 * cap:
        size *= 2
    return (np.empty((cap, width), np.int64), np.empty((cap, 2 * spread + 3)),
            np.full(size, -1, np.int64), np.zeros(1, np.int64))


@njit(cache=True)
def _vgrown(table):
    keys, probs = table[0], table[1]
    return _moved(table, _vtable(2 * keys.shape[0], keys.shape[1], (probs.shape[1] - 3) // 2))


@njit(cache=True)
def _vrow(table, vec, h):
    """The table (grown when full) and the index of row ``vec`` (hash h), inserted with no
    probability if new."""
    if table[3][0] == table[0].shape[0]:
        table = _vgrown(table)
    keys, probs, slots, n = table
    i = _slot(keys, slots, vec, h)
    e = slots[i]
    if e < 0:
        e = n[0]
        keys[e] = vec
        probs[e] = 0.0
        slots[i] = e
        n[0] = e + 1
    return table, e


@njit(cache=True)
def _reserve(table, extra):
    """The table, grown so that ``extra`` more rows fit."""
    while table[3][0] + extra > table[0].shape[0]:
        table = _grown(table)
    return table


@njit(cache=True)
def _vreserve(table, extra):
    """:func:`_reserve` for a table with a probability per lead."""
    while table[3][0] + extra > table[0].shape[0]:
        table = _vgrown(table)
    return table


@njit(cache=True)
def _put(keys, slots, n, vec, h):
    """The index of row ``vec`` (hash h) in a table with room for it, inserted if new (its
    probability then to be set by the caller)."""
    i = _slot(keys, slots, vec, h)
    e = slots[i]
    if e < 0:
        e = n[0]
        keys[e] = vec
        slots[i] = e
        n[0] = e + 1
        return e, True
    return e, False


# --- fight states ------------------------------------------------------------------------

@njit(cache=True, inline="always")
def _offsets(G, U):
    """Where the parts of a state vector start: cnt (2, G, 3), dmg (2, G), inside (2, U),
    fate (2, U), then the round type and the unsaved wounds side 0 caused this round less
    those side 1 caused (at the round's end only its sign)."""
    inside = 8 * G
    fate = inside + 2 * U
    return 6 * G, inside, fate, fate + 2 * U


@njit(cache=True)
def _decode(vec, cnt, dmg, inside, fate):
    G, U = cnt.shape[1], inside.shape[1]
    o_dmg, o_in, o_fate, _ = _offsets(G, U)
    for s in range(2):
        for g in range(G):
            for p in range(3):
                cnt[s, g, p] = vec[(s * G + g) * 3 + p]
            dmg[s, g] = vec[o_dmg + s * G + g]
        for u in range(U):
            inside[s, u] = vec[o_in + s * U + u]
            fate[s, u] = vec[o_fate + s * U + u]


@njit(cache=True)
def _encode(cnt, dmg, inside, fate, r, vec):
    """The state vector of a fight at a round's start (no lead yet)."""
    G, U = cnt.shape[1], inside.shape[1]
    o_dmg, o_in, o_fate, o_r = _offsets(G, U)
    for s in range(2):
        for g in range(G):
            for p in range(3):
                vec[(s * G + g) * 3 + p] = cnt[s, g, p]
            vec[o_dmg + s * G + g] = dmg[s, g]
        for u in range(U):
            vec[o_in + s * U + u] = inside[s, u]
            vec[o_fate + s * U + u] = fate[s, u]
    vec[o_r] = r
    vec[o_r + 1] = 0


@njit(cache=True)
def _side_vec(cnt, dmg, t, out):
    """Side t's models: (cnt[t] flattened, dmg[t])."""
    G = cnt.shape[1]
    for g in range(G):
        for p in range(3):
            out[g * 3 + p] = cnt[t, g, p]
        out[3 * G + g] = dmg[t, g]


@njit(cache=True)
def _load_side(vec, cnt, dmg, t):
    G = cnt.shape[1]
    for g in range(G):
        for p in range(3):
            cnt[t, g, p] = vec[g * 3 + p]
        dmg[t, g] = vec[3 * G + g]


@njit(cache=True)
def _wounds_taken(plan, side, t, first, n):
    """Unsaved wounds side t's groups first .. first + n - 1 have taken (side vector)."""
    G = plan.count.shape[1]
    w = 0
    for g in range(first, first + n):
        w += (plan.count[t, g] - side[g * 3] - side[g * 3 + 1] - side[g * 3 + 2]) \
            * plan.wounds[t, g] + side[3 * G + g]
    return w


@njit(cache=True)
def _alive(plan, cnt, alive, multi):
    for s in range(2):
        for u in range(_n(plan, s, multi)):
            first, n = _groups(plan, cnt, s, u, multi)
            a = 0
            for g in range(first, first + n):
                a += cnt[s, g, 0] + cnt[s, g, 1] + cnt[s, g, 2]
            alive[s, u] = a


@njit(cache=True)
def _pmf(cdf, offset, top, chance, n, out):
    """Binomial(n, chance) into out[:n + 1]: the kernel's table row (``offset``, ``top``
    from the plan's cdf_offset and cdf_top), or past the table the same recurrence. The
    plan's arrays are not passed, so the call costs no reference counting of them."""
    if n > top:
        out[:n + 1] = binomial_pmf(n, chance)
        return
    row = offset + ((n * (n + 1)) >> 1)
    before = 0.0
    for k in range(n + 1):
        c = cdf[row + k]
        out[k] = c - before
        before = c


# --- one strike step ---------------------------------------------------------------------

@njit(cache=True)
def _allocate(plan, table, x, px, pmf, n, t, v, s, g, p, multi, w):
    """Part (s, g, p) hits unit v of side t (models ``x``) with Binomial hits ``pmf[:n+1]``;
    add every resulting side-t vector to ``table`` (R0-8, R0-9, the kernel's
    ``_take_wounds``): when the hits fit on the receiver's models the unsaved count is one
    binomial, else each wound is saved in turn by the model then next in line."""
    wc, wd, alive, tmp, bpmf, acc_b, acc_c, d, seq, seqp = w[:10]
    table = _add(table, x, px * pmf[0])
    if n == 0:
        return table
    _load_side(x, wc, wd, t)
    rg, rp = _receiver(plan, wc, wd, t, v, multi)
    if rg < 0:  # no model left: the wounds are lost
        rest = 0.0
        for h in range(1, n + 1):
            rest += pmf[h]
        return _add(table, x, px * rest)
    room = wc[t, rg, rp] * plan.wounds[t, rg] - wd[t, rg]
    fit = min(n, room)
    acc_b[:fit + 1] = 0.0
    for h in range(1, fit + 1):
        if pmf[h] == 0.0:
            continue
        _pmf(plan.cdf, plan.cdf_offset[SAVES, s, g, p, rg], plan.cdf_top[SAVES, s, g, p, rg],
             plan.p_unsaved[s, g, p, rg], h, bpmf)
        for u in range(h + 1):
            acc_b[u] += pmf[h] * bpmf[u]
    for u in range(fit + 1):
        if acc_b[u] > 0.0:
            _load_side(x, wc, wd, t)
            _wound(plan, wc, wd, alive, t, v, rg, rp, u)
            _side_vec(wc, wd, t, tmp)
            table = _add(table, tmp, px * acc_b[u])
    if n <= room:
        return table
    # one save at a time: after u unsaved wounds the models are seq[u], whose next
    # receiver saves with chance 1 - seqp[u]; seqp[u] < 0 when no model is left
    _load_side(x, wc, wd, t)
    seq[0] = x
    last = n
    for i in range(n):
        hg, hp = _receiver(plan, wc, wd, t, v, multi)
        if hg < 0:
            last = i
            break
        seqp[i] = plan.p_unsaved[s, g, p, hg]
        _wound(plan, wc, wd, alive, t, v, hg, hp, 1)
        _side_vec(wc, wd, t, seq[i + 1])
    d[:n + 1] = 0.0
    d[0] = 1.0
    acc_c[:n + 1] = 0.0
    for k in range(n):
        for u in range(min(k, last), -1, -1):
            if u == last or d[u] == 0.0:
                continue
            q = d[u] * seqp[u]
            d[u + 1] += q
            d[u] -= q
        h = k + 1
        if h > room and pmf[h] > 0.0:
            for u in range(min(h, last) + 1):
                acc_c[u] += pmf[h] * d[u]
    for u in range(min(n, last) + 1):
        if acc_c[u] > 0.0:
            table = _add(table, seq[u], px * acc_c[u])
    return table


@njit(cache=True)
def _struck(plan, r, k, t, cnt, dmg, hp, nh, target, multi, w, table, spare):
    """The distribution of side t's models after the parts of the enemy striking in step k
    allocate their hits, in the kernel's part order. ``table`` and ``spare`` are reused;
    returns (the distribution, the other table)."""
    s = 1 - t
    start = w[3]
    _clear(table)
    _side_vec(cnt, dmg, t, start)
    table = _add(table, start, 1.0)
    for j in range(plan.striker_side.shape[2]):
        sj = plan.striker_side[r, k, j]
        if sj < 0:
            break
        if sj != s or nh[j] == 0:
            continue
        g, p = plan.striker_group[r, k, j], plan.striker_place[r, k, j]
        v = target[s, plan.unit_of[s, g]] if multi else 0
        keys, probs, _, size = table
        _clear(spare)
        for i in range(size[0]):
            spare = _allocate(plan, spare, keys[i], probs[i], hp[j], nh[j], t, v, s, g, p,
                              multi, w)
        table, spare = spare, table
    return table, spare


@njit(cache=True)
def _later_attacks(plan, r, k, side, t, later):
    """At most how many attacks side t's parts (models ``side``) make after step k."""
    G = plan.count.shape[1]
    n = 0
    for g in range(G):
        for p in range(2):
            if later[r, t, g, p] > k:
                n += side[g * 3 + p] * plan.attacks[r, t, g, p]
    return n


DECIDED = 1 << 40  # the round's result is decided: no later step can turn it (R0-10)


@njit(cache=True)
def _strike(plan, r, k, state, lead, out, ended, multi, w, st, tables, later):
    """Strike step k of round type r from one state (R0-4 ... R0-9, R0-13): every part
    rolls against the models standing at the step's start, each side's losses are
    independent given them, casualties go at the step's end. The wounds caused are kept as
    side 0's lead: ``lead`` is the probability of each (the states that differ only in it
    step together), DECIDED once the later steps cannot change who caused more. States after
    the round's last step, or after a side left the fight, go into ``ended`` with the sign
    of the lead alone."""
    cnt, dmg, inside, fate, alive, target, aimed, hp, nh, vec = st
    G, U = cnt.shape[1], inside.shape[1]
    o_dmg, o_in, o_fate, o_r = _offsets(G, U)
    _decode(state, cnt, dmg, inside, fate)
    if multi:
        _retarget(plan, inside, target, multi)
        for s in range(2):
            for u in range(plan.units[s]):
                aimed[s, u] = _front(plan, cnt, 1 - s, target[s, u]) if inside[s, u] else -1
    else:
        target[:, :] = 0
        aimed[0, 0] = _front(plan, cnt, 1, 0)
        aimed[1, 0] = _front(plan, cnt, 0, 0)
    for j in range(plan.striker_side.shape[2]):
        s = plan.striker_side[r, k, j]
        if s < 0:
            break
        g, p = plan.striker_group[r, k, j], plan.striker_place[r, k, j]
        f = aimed[s, plan.unit_of[s, g]] if multi else aimed[s, 0]
        n = 0 if f < 0 else cnt[s, g, p] * plan.attacks[r, s, g, p]
        nh[j] = n
        if n > 0:
            c = 1 + plan.chance[r]  # the round type's layer of p_wound
            _pmf(plan.cdf, plan.cdf_offset[c, s, g, p, f], plan.cdf_top[c, s, g, p, f],
                 plan.p_wound[c - 1, s, g, p, f], n, hp[j])
    _side_vec(cnt, dmg, 0, vec)
    before0 = _wounds_taken(plan, vec, 0, 0, G)
    _side_vec(cnt, dmg, 1, vec)
    before1 = _wounds_taken(plan, vec, 1, 0, G)
    a0, b0, a1, b1 = tables
    side0, b0 = _struck(plan, r, k, 0, cnt, dmg, hp, nh, target, multi, w, a0, b0)
    side1, b1 = _struck(plan, r, k, 1, cnt, dmg, hp, nh, target, multi, w, a1, b1)
    keys0, probs0, _, n0 = side0
    keys1, probs1, _, n1 = side1
    full0, full1 = 0, 0  # each side's wound points at the start of the fight
    for g in range(G):
        full0 += plan.count[0, g] * plan.wounds[0, g]
        full1 += plan.count[1, g] * plan.wounds[1, g]
    final = k + 1 == plan.steps.shape[1] or plan.steps[r, k + 1] < 0
    # each outcome of either side: wounds taken, attacks left this round, how the units in
    # the fight change (R0-13: a unit with no model left leaves at once), its hash part
    taken = np.empty((2, max(n0[0], n1[0])), np.int64)
    attacks = np.empty((2, max(n0[0], n1[0])), np.int64)
    out_of_it = np.zeros((2, max(n0[0], n1[0]), U), np.int64)
    emptied = np.zeros((2, max(n0[0], n1[0])), np.int64)
    part = np.empty((2, max(n0[0], n1[0])), np.int64)
    gone = w[10]
    vec[:] = state
    vec[o_r + 1] = 0
    base = _hash(vec)
    for t in range(2):
        keys_t, n_t = (keys0, n0[0]) if t == 0 else (keys1, n1[0])
        for c in range(3 * G):
            base -= state[t * 3 * G + c] * HASH[t * 3 * G + c]
        for g in range(G):
            base -= state[o_dmg + t * G + g] * HASH[o_dmg + t * G + g]
        for a in range(n_t):
            row = keys_t[a]
            taken[t, a] = _wounds_taken(plan, row, t, 0, G)
            attacks[t, a] = _later_attacks(plan, r, k, row, t, later)
            h = np.int64(0)
            for c in range(3 * G):
                h += row[c] * HASH[t * 3 * G + c]
            for g in range(G):
                h += row[3 * G + g] * HASH[o_dmg + t * G + g]
            _gone(plan, row, t, multi, gone)
            left = 0
            for u in range(_n(plan, t, multi)):
                if state[o_in + t * U + u] or not multi:
                    if gone[t, u]:
                        out_of_it[t, a, u] = 1
                        if multi:
                            h -= HASH[o_in + t * U + u]
                            h += (UNIT_DESTROYED - state[o_fate + t * U + u]) \
                                * HASH[o_fate + t * U + u]
                    else:
                        left += 1
            emptied[t, a] = left == 0
            part[t, a] = h
    spread = (lead.shape[0] - 3) // 2
    won, lost = 2 * spread + 1, 2 * spread + 2  # side 0 is sure to cause more, or fewer
    low, high = 2 * spread + 1, -1  # the leads still open, as indices
    for i in range(2 * spread + 1):
        if lead[i] > 0.0:
            low = min(low, i)
            high = i
    # room for every pair, so that the tables do not move while they are filled
    out = _vreserve(out, n0[0] * n1[0])
    ended = _reserve(ended, 3 * n0[0] * n1[0])
    out_keys, out_leads, out_slots, out_n = out
    end_keys, end_probs, end_slots, end_n = ended
    for a in range(n0[0]):
        for b in range(n1[0]):
            vec[:] = state
            for i in range(3 * G):
                vec[i] = keys0[a, i]
                vec[3 * G + i] = keys1[b, i]
            for g in range(G):
                vec[o_dmg + g] = keys0[a, 3 * G + g]
                vec[o_dmg + G + g] = keys1[b, 3 * G + g]
            if multi:
                for u in range(U):
                    for t in range(2):
                        if out_of_it[t, a if t == 0 else b, u]:
                            vec[o_in + t * U + u] = 0
                            vec[o_fate + t * U + u] = UNIT_DESTROYED
            stopped = emptied[0, a] or emptied[1, b]
            h = base + part[0, a] + part[1, b]
            # the most unsaved wounds each side can still cause this round
            more0 = min(full1 - taken[1, b], attacks[0, a])
            more1 = min(full0 - taken[0, a], attacks[1, b])
            change = (taken[1, b] - before1) - (taken[0, a] - before0)
            pab = probs0[a] * probs1[b]
            if final or stopped:  # the round's end: only who caused more matters now
                ahead, level, behind = lead[won] * pab, 0.0, lead[lost] * pab
                for i in range(low, high + 1):
                    if lead[i] > 0.0:
                        d = i - spread + change
                        if d > 0:
                            ahead += lead[i] * pab
                        elif d < 0:
                            behind += lead[i] * pab
                        else:
                            level += lead[i] * pab
                for sign, mass in ((1, ahead), (0, level), (-1, behind)):
                    if mass > 0.0:
                        vec[o_r + 1] = sign
                        e, new = _put(end_keys, end_slots, end_n, vec,
                                      h + sign * HASH[o_r + 1])
                        end_probs[e] = mass if new else end_probs[e] + mass
            else:
                vec[o_r + 1] = 0
                e, new = _put(out_keys, out_slots, out_n, vec, h)
                if new:
                    out_leads[e, :] = 0.0
                out_leads[e, won] += lead[won] * pab
                out_leads[e, lost] += lead[lost] * pab
                for i in range(low, high + 1):
                    if lead[i] > 0.0:
                        d = i - spread + change
                        j = won if d > more1 else (lost if -d > more0 else d + spread)
                        out_leads[e, j] += lead[i] * pab
    return out, ended, (side0, b0, side1, b1)


@njit(cache=True)
def _step(plan, k, now, ended, multi, w, st, tables, later, limit):
    """Strike step k of every state in ``now`` (each of its own round type); returns the
    states after it, the round's ended states and the reused side tables. It stops early
    once either holds more than ``limit`` states."""
    G, U = plan.count.shape[1], plan.unit_size.shape[1]
    o_r = _offsets(G, U)[3]
    keys, leads, _, n = now
    spread = (leads.shape[1] - 3) // 2
    after = _vtable(max(16, 2 * n[0]), keys.shape[1], spread)
    vec = st[-1]
    for i in range(n[0]):
        r = keys[i, o_r]
        if plan.steps[r, k] >= 0:
            after, ended, tables = _strike(plan, r, k, keys[i], leads[i], after, ended, multi,
                                           w, st, tables, later)
            if after[3][0] > limit or ended[3][0] > limit:
                break
            continue
        vec[:] = keys[i]  # no such step: the round is over
        for j in range(2 * spread + 3):
            if leads[i, j] > 0.0:
                d = j - spread
                sign = 1 if j == 2 * spread + 1 else (-1 if j == 2 * spread + 2
                                                      else (d > 0) - (d < 0))
                vec[o_r + 1] = sign
                ended = _add(ended, vec, leads[i, j])
    return after, ended, tables


@njit(cache=True)
def _gone(plan, side, t, multi, gone):
    """gone[t, u]: whether unit u of side t (models ``side``) has no model left."""
    for u in range(_n(plan, t, multi)):
        first = plan.unit_start[t, u] if multi else 0
        n = plan.unit_start[t, u + 1] - first if multi else plan.count.shape[1]
        left = 0
        for g in range(first, first + n):
            left += side[g * 3] + side[g * 3 + 1] + side[g * 3 + 2]
        gone[t, u] = left == 0


@njit(cache=True)
def _strikes(plan, live, multi, st, w, tables, later, limit):
    """The strike steps of one round from every live state at once (states of several round
    types step together); returns the states at the round's end, keeping of the wounds
    caused only which side caused more (R0-10), so that they merge before the result, and
    the most states a step held. It stops once a step holds more than ``limit``."""
    G = plan.count.shape[1]
    width = live[0].shape[1]
    ended = _table(max(16, 4 * live[3][0]), width)
    spread = 0  # the largest lead either side can have: its enemy's wound points
    for t in range(2):
        full = 0
        for g in range(G):
            full += plan.count[t, g] * plan.wounds[t, g]
        spread = max(spread, full)
    keys, probs, _, n = live
    now = _vtable(max(16, n[0]), width, spread)
    for i in range(n[0]):
        now, e = _vrow(now, keys[i], _hash(keys[i]))
        now[1][e, spread] = probs[i]
    for k in range(plan.steps.shape[1]):
        if now[3][0] == 0:
            break
        now, ended, tables = _step(plan, k, now, ended, multi, w, st, tables, later, limit)
        if now[3][0] > limit or ended[3][0] > limit:
            return ended, tables, max(now[3][0], ended[3][0])
    return ended, tables, ended[3][0]


# --- the result, morale, pursuit and advance -----------------------------------------------

@njit(cache=True)
def _emit(plan, rows, cnt, dmg, fate, winner, end, rounds, multi, row, prob):
    """Add the kernel's outcome row of a fight that ended so (R0-13 per-unit columns)."""
    row[0], row[1], row[2] = winner, end, rounds
    column = N_SHARED
    for s in range(2):
        lost_side = 0
        wounds_side = 0
        for u in range(_n(plan, s, multi)):
            first, n = _groups(plan, cnt, s, u, multi)
            alive = 0
            wounds = 0
            for g in range(first, first + n):
                left = cnt[s, g, 0] + cnt[s, g, 1] + cnt[s, g, 2]
                alive += left
                wounds += (plan.count[s, g] - left) * plan.wounds[s, g] + dmg[s, g]
            lost = plan.unit_size[s, u] if fate[s, u] == UNIT_CAUGHT else \
                plan.unit_size[s, u] - alive
            lost_side += lost
            wounds_side += wounds
            if multi:
                row[column], row[column + 1], row[column + 2] = fate[s, u], lost, wounds
                column += 3
        row[3 + s] = lost_side
        row[5 + s] = wounds_side
    return _add(rows, row, prob)


@njit(cache=True)
def _go_on(plan, nxt, cnt, dmg, inside, fate, r, multi, vec, work, prob):
    """A fight that goes on: every unit in it piles in (R0-11, R0-14), or after an advance
    (r >= ADVANCE) is placed anew by its limits (R0-12); units out of the fight keep only
    their models, written as all in contact."""
    work[:, :, :] = cnt
    for s in range(2):
        for u in range(_n(plan, s, multi)):
            if not multi or inside[s, u]:
                _place(plan, work, s, u, r < ADVANCE and not plan.refill)
            else:
                first, n = _groups(plan, work, s, u, multi)
                for g in range(first, first + n):
                    work[s, g, CONTACT] += work[s, g, 1] + work[s, g, 2]
                    work[s, g, 1] = 0
                    work[s, g, 2] = 0
    _encode(work, dmg, inside, fate, r, vec)
    return _add(nxt, vec, prob)


@njit(cache=True)
def _results(plan, ended, rnd, multi, nxt, rows, mo, max_states):
    """The result and morale of every state at the end of round ``rnd``; stops once more
    than ``max_states`` fights go on."""
    keys, probs, _, n = ended
    for i in range(n[0]):
        nxt, rows = _after_round(plan, keys[i], probs[i], rnd, multi, nxt, rows, mo)
        if nxt[3][0] > max_states:
            break
    return nxt, rows


@njit(cache=True)
def _after_round(plan, state, pe, rnd, multi, nxt, rows, mo):
    """The combat result (R0-10), the loser's Ld tests and fall-back (R0-11), pursuit and
    the advance into a fresh unit (R0-12, R0-13), each die enumerated."""
    cnt, dmg, inside, fate, alive, row, vec, work, idx, _, dice = mo
    G, U = cnt.shape[1], inside.shape[1]
    o_r = _offsets(G, U)[3]
    _decode(state, cnt, dmg, inside, fate)
    _alive(plan, cnt, alive[0], multi)
    more = state[o_r + 1]  # 1: side 0 caused more unsaved wounds, -1: side 1, 0: as many
    n0 = _standing(plan, inside, alive[0], 0, multi)
    n1 = _standing(plan, inside, alive[0], 1, multi)
    if n0 == 0 or n1 == 0:  # R0-10: a destroyed side loses whatever the wounds
        if n0 == n1:
            return nxt, _emit(plan, rows, cnt, dmg, fate, NONE, MUTUAL, rnd, multi, row, pe)
        y = 0 if n1 == 0 else 1
        x = 1 - y
        f = plan.fresh[x] if multi else -1
        if f < 0 or not plan.pursue or fate[x, f] != UNIT_UNREACHED:
            return nxt, _emit(plan, rows, cnt, dmg, fate, ATTACKER + y,
                              _end(plan, fate, x, multi), rnd, multi, row, pe)
        reach = dice[2 + x, 12]
        ins, fates, units = alive[1], alive[2], idx[0]
        k = 0
        for u in range(plan.units[y]):
            if inside[y, u]:
                units[k] = u
                k += 1
        for mask in range(1 << k):  # which units' own 2D6 reach the fresh unit
            p = pe
            for i in range(k):
                p *= reach if (mask >> i) & 1 else 1.0 - reach
            if p == 0.0:
                continue
            if mask == 0:
                rows = _emit(plan, rows, cnt, dmg, fate, ATTACKER + y,
                             _end(plan, fate, x, multi), rnd, multi, row, p)
                continue
            ins[:, :] = inside
            fates[:, :] = fate
            for i in range(k):
                if not (mask >> i) & 1:
                    ins[y, units[i]] = 0
            ins[x, f] = 1
            fates[x, f] = UNIT_STANDING
            nxt = _go_on(plan, nxt, cnt, dmg, ins, fates, ADVANCE + y, multi, vec, work, p)
        return nxt, rows
    if more == 0:  # R0-10: equal wounds, a D6 roll-off; equal again is a draw (R0-14)
        nxt = _go_on(plan, nxt, cnt, dmg, inside, fate, LATER, multi, vec, work, pe / 6)
    for loser in range(2):  # side 1 loses when side 0 caused more or won the roll-off
        if more == 0 or (more > 0) == (loser == 1):
            nxt, rows = _fall_back(plan, loser, more == 0, pe * 5 / 12 if more == 0 else pe,
                                   rnd, multi, nxt, rows, mo)
    return nxt, rows


@njit(cache=True)
def _fall_back(plan, loser, rolled_off, pe, rnd, multi, nxt, rows, mo):
    """The loser's units test Ld, those that fail fall back 2D6 and the winners pursue: each
    fleeing unit is caught if the best pursuit roll beats its own; after the last unit left,
    the same pursuit rolls carry the winners into a fresh unit (R0-11, R0-12, R0-13)."""
    cnt, dmg, inside, fate, alive, row, vec, work, idx, buf, dice = mo
    tested, pursuers, fled = idx[0], idx[1], idx[2]
    p_fail, best = buf[0], buf[1]
    ins, fates, after, moved = alive[1], alive[2], alive[3], alive[4]
    below, caught, reaching, short = dice[0], dice[1], dice[2 + loser], dice[4 + loser]
    y = 1 - loser
    m = 0
    for u in range(_n(plan, loser, multi)):
        if not multi or inside[loser, u]:
            tested[m] = u
            ld = _leadership(plan, cnt, loser, u, multi)
            p_fail[m] = 0.0 if ld >= FEARLESS_LD else 1.0 - below[ld]  # Fearless: never
            m += 1
    k = 0
    for u in range(_n(plan, y, multi)):
        if not multi or inside[y, u]:
            pursuers[k] = u
            k += 1
    f = plan.fresh[loser] if multi else -1
    for failed in range(1 << m):
        p = pe
        for i in range(m):
            p *= p_fail[i] if (failed >> i) & 1 else 1.0 - p_fail[i]
        if p == 0.0:
            continue
        if failed == 0:  # every unit held: pile in, fight on
            nxt = _go_on(plan, nxt, cnt, dmg, inside, fate, LATER, multi, vec, work, p)
            continue
        ins[:, :] = inside
        fates[:, :] = fate
        q = 0
        for i in range(m):
            if (failed >> i) & 1:
                ins[loser, tested[i]] = 0
                fates[loser, tested[i]] = UNIT_FLED
                fled[q] = tested[i]
                q += 1
        still = multi and _in_fight(plan, ins, loser, multi) > 0
        if not plan.pursue or rolled_off:
            if still:
                nxt = _go_on(plan, nxt, cnt, dmg, ins, fates, LATER, multi, vec, work, p)
            else:
                rows = _emit(plan, rows, cnt, dmg, fates, ATTACKER + y,
                             _end(plan, fates, loser, multi), rnd, multi, row, p)
            continue
        advance = not still and f >= 0 and fates[loser, f] == UNIT_UNREACHED
        for reached in range((1 << k) if advance else 1):
            for b in range(2, 13):  # P(these units reach, best pursuit roll = b)
                upto, before = 1.0, 1.0
                for i in range(k):
                    if not advance:
                        upto *= below[b]
                        before *= below[b - 1]
                    elif (reached >> i) & 1:
                        upto *= reaching[b]
                        before *= reaching[b - 1]
                    else:
                        upto *= short[b]
                        before *= short[b - 1]
                best[b] = upto - before
            for catch in range(1 << q):  # which fleeing units the best roll catches
                pc = 0.0
                for b in range(2, 13):
                    pb = best[b]
                    for i in range(q):
                        pb *= caught[b] if (catch >> i) & 1 else 1.0 - caught[b]
                    pc += pb
                pc *= p
                if pc <= 0.0:
                    continue
                after[:, :] = fates
                for i in range(q):
                    if (catch >> i) & 1:
                        after[loser, fled[i]] = UNIT_CAUGHT
                if still:
                    nxt = _go_on(plan, nxt, cnt, dmg, ins, after, LATER, multi, vec, work, pc)
                elif reached:
                    moved[:, :] = ins
                    for i in range(k):
                        if not (reached >> i) & 1:
                            moved[y, pursuers[i]] = 0
                    moved[loser, f] = 1
                    after[loser, f] = UNIT_STANDING
                    nxt = _go_on(plan, nxt, cnt, dmg, moved, after, ADVANCE + y, multi, vec,
                                 work, pc)
                else:
                    rows = _emit(plan, rows, cnt, dmg, after, ATTACKER + y,
                                 _end(plan, after, loser, multi), rnd, multi, row, pc)
    return nxt, rows


@njit(cache=True)
def _dice(plan):
    """The 2D6 sums the morale tree needs, by the roll b = 0 .. 12: P(2D6 <= b); P(a fleeing
    unit is caught | best pursuit roll b); for each side x with a fresh unit, P(2D6 <= b and
    the roll reaches x's fresh unit) and P(2D6 <= b and it falls short) (R0-11, R0-12)."""
    dice = np.zeros((6, 13))
    for b in range(2, 13):
        dice[0, b] = dice[0, b - 1] + TWO_D6[b]
        for t in range(2, 13):
            if b > (2 * t if plan.halved_catch else t):
                dice[1, b] += TWO_D6[t]
        for x in range(2):
            needed = 2 * plan.reach[x] if plan.halved_move else plan.reach[x]
            far = b >= needed
            dice[2 + x, b] = dice[2 + x, b - 1] + (TWO_D6[b] if far else 0.0)
            dice[4 + x, b] = dice[4 + x, b - 1] + (0.0 if far else TWO_D6[b])
    return dice


# --- the walk ----------------------------------------------------------------------------

@njit(cache=True)
def _walk(plan, multi, max_states, n_columns, p_fight):
    """Every round's states from the charge to the end or max_rounds; returns the ended
    fights' rows, their probabilities and the live states after each round (stopping early
    once a round holds more than ``max_states``)."""
    G, U = plan.count.shape[1], plan.unit_size.shape[1]
    width = _offsets(G, U)[3] + 2
    most = 1
    for r in range(plan.attacks.shape[0]):
        for s in range(2):
            for g in range(G):
                for p in range(2):
                    most = max(most, plan.count[s, g] * plan.attacks[r, s, g, p])
    parts = plan.striker_side.shape[2]
    cnt = np.zeros((2, G, 3), np.int64)
    dmg = np.zeros((2, G), np.int64)
    inside = np.zeros((2, U), np.int64)
    fate = np.zeros((2, U), np.int64)
    alive = np.zeros((2, U), np.int64)
    vec = np.zeros(width, np.int64)
    st = (cnt, dmg, inside, fate, alive, np.zeros((2, U), np.int64),
          np.zeros((2, U), np.int64), np.zeros((parts, most + 1)), np.zeros(parts, np.int64),
          vec)
    w = (np.zeros((2, G, 3), np.int64), np.zeros((2, G), np.int64), np.zeros((2, U), np.int64),
         np.zeros(4 * G, np.int64), np.zeros(most + 1), np.zeros(most + 1), np.zeros(most + 1),
         np.zeros(most + 1), np.zeros((most + 1, 4 * G), np.int64), np.zeros(most + 1),
         np.zeros((2, U), np.int64))
    row = np.zeros(n_columns, np.int64)
    tables = (_table(64, 4 * G), _table(64, 4 * G), _table(64, 4 * G), _table(64, 4 * G))
    later = np.full((plan.steps.shape[0], 2, G, 2), -1, np.int64)  # each part's step index
    for r in range(plan.steps.shape[0]):
        for k in range(plan.steps.shape[1]):
            for j in range(plan.striker_side.shape[2]):
                s = plan.striker_side[r, k, j]
                if s >= 0:
                    later[r, s, plan.striker_group[r, k, j], plan.striker_place[r, k, j]] = k
    mo = (np.zeros((2, G, 3), np.int64), np.zeros((2, G), np.int64), np.zeros((2, U), np.int64),
          np.zeros((2, U), np.int64), np.zeros((5, 2, U), np.int64), row,
          np.zeros(width, np.int64), np.zeros((2, G, 3), np.int64), np.zeros((3, U), np.int64),
          np.zeros((2, max(U, 13))), _dice(plan))
    for s in range(2):
        for g in range(G):
            cnt[s, g, CONTACT] = plan.count[s, g]
        for u in range(_n(plan, s, multi)):
            inside[s, u] = 1 if not multi or plan.fresh[s] != u else 0
            fate[s, u] = UNIT_STANDING if inside[s, u] else UNIT_UNREACHED
            if inside[s, u]:
                _place(plan, cnt, s, u, False)
    rows = _table(64, n_columns)
    if p_fight < 1.0:  # R0-1: the charge through difficult terrain falls short
        rows = _emit(plan, rows, cnt, dmg, fate, NONE, NO_FIGHT, 0, multi, row, 1.0 - p_fight)
    live = _table(16, width)
    _encode(cnt, dmg, inside, fate, FIRST, vec)
    live = _add(live, vec, p_fight)
    counts = np.zeros(plan.max_rounds + 1, np.int64)
    counts[0] = live[3][0]
    for rnd in range(1, plan.max_rounds + 1):
        keys, probs, _, n = live
        # within a round a step may hold a few times the live states, at most 4 max_states
        ended, tables, held = _strikes(plan, live, multi, st, w, tables, later, 4 * max_states)
        if held > 4 * max_states:
            counts[rnd] = held
            return rows[0][:rows[3][0]].copy(), rows[1][:rows[3][0]].copy(), \
                counts[:rnd + 1].copy()
        keys, probs, _, n = ended
        nxt, rows = _results(plan, ended, rnd, multi, _table(max(16, n[0]), width), rows, mo,
                             max_states)
        counts[rnd] = nxt[3][0]
        if nxt[3][0] > max_states:
            return rows[0][:rows[3][0]].copy(), rows[1][:rows[3][0]].copy(), \
                counts[:rnd + 1].copy()
        live = nxt
    keys, probs, _, n = live
    for i in range(n[0]):  # still fighting after max_rounds
        _decode(keys[i], cnt, dmg, inside, fate)
        rows = _emit(plan, rows, cnt, dmg, fate, NONE, UNRESOLVED, plan.max_rounds, multi,
                     row, probs[i])
    return rows[0][:rows[3][0]].copy(), rows[1][:rows[3][0]].copy(), counts
