"""The exact walk's table of fight states (:func:`odds.core.walk.solver`), compiled once for
every rule text.

An entry is a **core** (the state vector with its graded fields at 0) and, for each graded
field, the distribution of its value given the core: masses over the values its mass
occupies (``low`` .. ``high``, counted from the field's lowest value), so that adding one
entry's masses into another, shifted by what a stage added to the field, touches only that
range. The masses are kept **sparse**: each field of an entry has a window of the table's
pool (``at``: where it starts, ``origin``: the value its first mass stands for, ``room``:
its length), made when its first mass comes and moved, a half again as long, when a mass
falls outside it (:func:`add`; the pool is compacted and grown by :func:`rebuilt`). A window
covers the values the entry has reached, not the field's whole span (a round's most times
the rounds: about 1,300 numbers a state for three Mordheim warriors against two, of which
an ended state used about 150). A rule text without graded fields keeps one mass an entry,
a window of one. A core is kept **packed**, four fields of 16 bits a word (every field of a
rule text's state is a count, a code or a mark far inside ±32,767; :func:`entry` refuses one
outside), so that hashing, comparing and copying it reads a quarter of the memory. The
walk's state vectors are :func:`width` long, the fields padded to whole words. Entries are
found by an open-addressing hash of the core: each slot holds an entry's index and its
core's hash, so that a probe compares whole cores only where the hashes agree.

A table is a tuple (keys, pool, low, high, clock, live, slots, count, packed, at, origin,
room): count[0] entries are used, count[1] of them no longer live (played: their stage's
children are elsewhere), count[2] numbers of the pool; packed is room for the core being
looked up. The walk plays a stage's entries (:func:`taken`) one at a time from a dense row
(:func:`spread`: each field's masses over its whole span, from ``base[j]``).
"""
from __future__ import annotations

import numpy as np
from numba import njit

EMPTY = -1
LANES = 4  # fields packed in a word
OUTSIDE = -2  # entry(): a field outside -32,768 .. 32,767
ADDED, BEYOND, NO_ROOM = 0, 1, 2  # add(): done; a mass beyond its span; the pool is full
_ODD = np.random.default_rng(40).integers(1, 1 << 62, size=4096, dtype=np.int64) * 2 + 1


@njit(cache=True)
def table(cap, fields, graded, pool=0):
    """An empty table with room for ``cap`` entries of ``fields`` fields with ``graded``
    graded fields (0: one mass an entry), and a pool of ``pool`` masses (at least 8 an
    entry's field)."""
    size = 16
    while size < 2 * cap:
        size *= 2
    words = (fields + LANES - 1) // LANES
    g = max(graded, 1)
    return (np.empty((cap, words), np.int64), np.zeros(max(pool, 8 * cap * g)),
            np.zeros((cap, g), np.int64), np.zeros((cap, g), np.int64),
            np.zeros(cap, np.int64), np.zeros(cap, np.bool_), np.full((size, 2), EMPTY, np.int64),
            np.zeros(3, np.int64), np.zeros(words, np.int64), np.zeros((cap, g), np.int64),
            np.zeros((cap, g), np.int64), np.zeros((cap, g), np.int64))


@njit(cache=True)
def width(fields):
    """The length of the walk's state vectors: ``fields`` padded to whole packed words."""
    return (fields + LANES - 1) // LANES * LANES


@njit(cache=True, _nrt=False, forceinline=True)
def _pack(key, out):
    """``key``'s fields (:func:`width` of them) into ``out``, LANES (four) 16-bit fields a word;
    False when one is outside -32,768 .. 32,767."""
    outside = 0
    for w in range(len(out)):
        a, b, c, d = key[4 * w], key[4 * w + 1], key[4 * w + 2], key[4 * w + 3]
        outside |= (a + 32768) | (b + 32768) | (c + 32768) | (d + 32768)
        out[w] = (a & 0xFFFF) | ((b & 0xFFFF) << 16) | ((c & 0xFFFF) << 32) | (d << 48)
    return outside >> 16 == 0  # each field within -32,768 .. 32,767


@njit(cache=True, _nrt=False)
def unpack(words, key):
    """A packed core ``words`` back into the state vector ``key`` (:func:`width` long)."""
    for w in range(len(words)):
        for lane in range(LANES):
            key[w * LANES + lane] = (words[w] << (48 - 16 * lane)) >> 48


@njit(cache=True, _nrt=False, forceinline=True)
def _hash(key):
    """A sum of the fields times odd numbers (independent products), then mixed."""
    h = np.int64(0)
    for i in range(len(key)):
        h += key[i] * _ODD[i & 4095]
    h ^= h >> np.int64(33)
    h *= np.int64(-49064778989728563)  # 0xff51afd7ed558ccd, the murmur3 finaliser
    h ^= h >> np.int64(33)
    return h


@njit(cache=True, _nrt=False, forceinline=True)
def _slot(tab, key, h):
    """Where ``key`` (of hash h) is in the table's slots, or the empty slot where it would
    go."""
    keys, slots = tab[0], tab[6]
    mask = np.uint64(len(slots) - 1)
    at = np.uint64(h) & mask
    while True:
        e = slots[at, 0]
        if e == EMPTY:
            return at
        if slots[at, 1] == h:
            same = True
            for i in range(len(key)):
                if keys[e, i] != key[i]:
                    same = False
                    break
            if same:
                return at
        at = (at + np.uint64(1)) & mask


@njit(cache=True, _nrt=False, forceinline=True)
def entry(tab, state, clock):
    """The entry of the state vector ``state`` (:func:`width` long): found, or added empty and
    live with its ``clock``; -1 when the table is full (:func:`rebuilt`), OUTSIDE when a
    field is outside 16 bits. An entry found no longer live is made live again, empty (its
    old masses were played). The table may be the walk's view without reference counts
    (``odds.core.walk.unowned``): nothing here allocates."""
    key = tab[8]
    if not _pack(state, key):
        return OUTSIDE
    h = _hash(key)
    at = _slot(tab, key, h)
    e = tab[6][at, 0]
    if e != EMPTY:
        if not tab[5][e]:
            _empty(tab, e)
            tab[5][e] = True
            tab[7][1] -= 1
        return e
    if tab[7][0] == len(tab[0]):
        return -1
    e = tab[7][0]
    tab[7][0] += 1
    for i in range(len(key)):
        tab[0][e, i] = key[i]
    for j in range(tab[11].shape[1]):
        tab[11][e, j] = 0  # no window yet
    _empty(tab, e)
    tab[4][e] = clock
    tab[5][e] = True
    tab[6][at, 0] = e
    tab[6][at, 1] = h
    return e


@njit(cache=True, _nrt=False, forceinline=True)
def _empty(tab, e):
    """Entry e without masses (its windows, if any, kept and cleared)."""
    pool, at, room = tab[1], tab[9], tab[11]
    for j in range(tab[2].shape[1]):
        for x in range(at[e, j], at[e, j] + room[e, j]):
            pool[x] = 0.0
        tab[2][e, j] = np.iinfo(np.int64).max
        tab[3][e, j] = -1


@njit(cache=True, _nrt=False, forceinline=True)
def _place(at, origin, e, j, v):
    """Where value v of entry e's field j is in the pool (its window starts at ``at`` with
    the value ``origin``)."""
    return at[e, j] + v - origin[e, j]


@njit(cache=True, _nrt=False, forceinline=True)
def copy(source, target):
    """``target[:] = source`` in a plain loop: an array assigned to a row compiles numba's
    shape checks and their messages, seconds of compiling."""
    for i in range(len(source)):
        target[i] = source[i]


@njit(cache=True, _nrt=False)
def earliest(tab):
    """The least clock of a live entry (the table has one)."""
    clock, live, count = tab[4], tab[5], tab[7]
    least = np.iinfo(np.int64).max
    for e in range(count[0]):
        if live[e] and clock[e] < least:
            least = clock[e]
    return least


@njit(cache=True)
def taken(tab, least):
    """The live entries whose clock is ``least``, copied out and no longer live: the stage to
    play. Their state vectors, their masses one after another (field j of the b-th from
    ``first[b, j]``: its masses over ``low[b, j]`` .. ``high[b, j]``), firsts, lows, highs;
    :func:`spread` makes one a dense row."""
    keys, low, high, clock, live, count = tab[0], tab[2], tab[3], tab[4], tab[5], tab[7]
    n, size = 0, 0
    for e in range(count[0]):
        if live[e] and clock[e] == least:
            n += 1
            for j in range(low.shape[1]):
                size += max(high[e, j] - low[e, j] + 1, 0)
    out = (np.empty((n, keys.shape[1] * LANES), np.int64), np.empty(size),
           np.empty((n, low.shape[1]), np.int64), np.empty((n, low.shape[1]), np.int64),
           np.empty((n, high.shape[1]), np.int64))
    cores, masses, first, lows, highs = out
    pool, at, origin = tab[1], tab[9], tab[10]
    b, f = 0, 0
    for e in range(count[0]):
        if live[e] and clock[e] == least:
            unpack(keys[e], cores[b])
            for j in range(low.shape[1]):
                first[b, j] = f
                for x in range(low[e, j], high[e, j] + 1):
                    masses[f] = pool[_place(at, origin, e, j, x)]
                    f += 1
            copy(low[e], lows[b])
            copy(high[e], highs[b])
            live[e] = False
            b += 1
    count[1] += n
    return out


@njit(cache=True, _nrt=False, forceinline=True)
def spread(masses, first, low, high, base, out):
    """One entry's masses as :func:`taken` gives them (``masses`` from ``first[j]``, field
    j's over ``low[j]`` .. ``high[j]``) into the dense row ``out``: field j's over its span
    from ``base[j]`` (the one mass at 0 without graded fields), zeros elsewhere."""
    for x in range(len(out)):
        out[x] = 0.0
    for j in range(len(low)):
        start = base[j] if len(base) > 1 else 0
        for x in range(low[j], high[j] + 1):
            out[start + x] = masses[first[j] + x - low[j]]


@njit(cache=True, _nrt=False)
def dense(tab, e, base, out):
    """Entry e's masses into the zeroed row ``out``, as :func:`spread` does."""
    pool, low, high, at, origin = tab[1], tab[2], tab[3], tab[9], tab[10]
    for j in range(low.shape[1]):
        start = base[j] if len(base) > 1 else 0
        for x in range(low[e, j], high[e, j] + 1):
            out[start + x] = pool[_place(at, origin, e, j, x)]


@njit(cache=True)
def rebuilt(tab, cap, most):
    """The table's live entries in a new table with room for ``cap`` (at least them all), each
    window cut to the values its field reached, in a pool twice their size or as large as
    before (what the old one's moved windows held is free again), and ``most`` more (room
    for the add that found the pool full: at most every graded field's span)."""
    keys, pool, low, high, clock, live, _, count, _, at, origin, room = tab
    n, used = 0, 0
    for e in range(count[0]):
        if live[e]:
            n += 1
            for j in range(low.shape[1]):
                used += max(high[e, j] - low[e, j] + 1, 0)
    cap = max(cap, 2 * n, 16)
    out = table(cap, keys.shape[1] * LANES, low.shape[1], max(2 * used, len(pool)) + most)
    new_pool, new_at, new_origin, new_room = out[1], out[9], out[10], out[11]
    for e in range(count[0]):
        if live[e]:
            f = out[7][0]
            out[7][0] += 1
            copy(keys[e], out[0][f])
            copy(low[e], out[2][f])
            copy(high[e], out[3][f])
            for j in range(low.shape[1]):
                length = max(high[e, j] - low[e, j] + 1, 0)
                new_at[f, j], new_origin[f, j], new_room[f, j] = out[7][2], low[e, j], length
                for x in range(length):
                    new_pool[out[7][2] + x] = pool[_place(at, origin, e, j, low[e, j] + x)]
                out[7][2] += length
            out[4][f] = clock[e]
            out[5][f] = True
            h = _hash(keys[e])
            at_slot = _slot(out, keys[e], h)
            out[6][at_slot, 0] = f
            out[6][at_slot, 1] = h
    return out


@njit(cache=True, _nrt=False, forceinline=True)
def add(tab, e, mass, low, high, shift, base, p):
    """Add the masses ``mass`` (a dense row: each graded field j's over its ``low[j]`` ..
    ``high[j]``, from ``base[j]``), each field's shifted by ``shift[j]`` and times ``p``, into
    entry e. Returns ADDED; BEYOND when a shifted mass falls outside its field's span (the
    rule text's spans are too narrow: the walk stops); NO_ROOM, adding nothing, when a
    window must move and the pool may be too full (:func:`rebuilt`, then add again)."""
    graded = len(base) - 1
    if graded == 0:
        return add_one(tab, e, p * mass[0])
    pool, lo, hi, at, origin, room, count = tab[1], tab[2], tab[3], tab[9], tab[10], tab[11], \
        tab[7]
    if count[2] + base[graded] > len(pool):  # maybe no room to move every window (its span)
        for j in range(graded):
            a, b = low[j] + shift[j], high[j] + shift[j]
            if a < origin[e, j] or b >= origin[e, j] + room[e, j]:
                return NO_ROOM
    for j in range(graded):
        a, b = low[j] + shift[j], high[j] + shift[j]
        span = base[j + 1] - base[j]
        if a < 0 or b >= span:
            return BEYOND
        if a < origin[e, j] or b >= origin[e, j] + room[e, j]:
            _move(tab, e, j, a, b, span)
        start, offset = _place(at, origin, e, j, a), base[j] + low[j]
        for x in range(b - a + 1):
            pool[start + x] += p * mass[offset + x]
        lo[e, j] = min(lo[e, j], a)
        hi[e, j] = max(hi[e, j], b)
    return ADDED


@njit(cache=True, _nrt=False, forceinline=True)
def add_one(tab, e, m):
    """Add the mass ``m`` to entry e of a table without graded fields (ADDED or NO_ROOM)."""
    if tab[11][e, 0] == 0:
        if tab[7][2] + 1 > len(tab[1]):
            return NO_ROOM
        tab[9][e, 0], tab[10][e, 0], tab[11][e, 0] = tab[7][2], 0, 1
        tab[7][2] += 1
        tab[2][e, 0] = tab[3][e, 0] = 0
    tab[1][tab[9][e, 0]] += m
    return ADDED


@njit(cache=True, _nrt=False, forceinline=True)
def _window(lo, hi, a, b, span):
    """The window (first value, length) for a field whose masses cover lo .. hi (none: lo >
    hi) and take a .. b: both, and half their length again on the side they grew (above,
    for a field without masses: tallies grow), within the field's span."""
    if lo > hi:
        lo, hi = a, a - 1  # as if a .. b lay above: tallies grow
    first, last = min(lo, a), max(hi, b)
    extra = (last - first + 2) // 2
    if a < lo:
        first = max(first - extra, 0)
    if b > hi:
        last = min(last + extra, span - 1)
    return first, last - first + 1


@njit(cache=True, _nrt=False)
def _move(tab, e, j, a, b, span):
    """Field j of entry e to a new window at the pool's end taking a .. b as well, its masses
    moved along (the old window is left to :func:`rebuilt`)."""
    pool, lo, hi, at, origin, room, count = tab[1], tab[2], tab[3], tab[9], tab[10], tab[11], \
        tab[7]
    first, length = _window(lo[e, j], hi[e, j], a, b, span)
    new = count[2]
    for x in range(length):
        pool[new + x] = 0.0
    for v in range(lo[e, j], hi[e, j] + 1):
        pool[new + v - first] = pool[_place(at, origin, e, j, v)]
    at[e, j], origin[e, j], room[e, j] = new, first, length
    count[2] += length


@njit(cache=True)
def total(mass, low, high, base):
    """An entry's whole mass (its first graded field's masses, or its one mass)."""
    if len(base) == 1:
        return mass[0]
    out = 0.0
    for x in range(low[0], high[0] + 1):
        out += mass[base[0] + x]
    return out


@njit(cache=True)
def one_masses(tab):
    """Each entry's one mass, of a table without graded fields."""
    out = np.zeros(tab[7][0])
    for e in range(tab[7][0]):
        if tab[11][e, 0]:
            out[e] = tab[1][tab[9][e, 0]]
    return out


@njit(cache=True)
def unpacked(keys):
    """Packed cores as state vectors, one a row."""
    out = np.empty((len(keys), keys.shape[1] * LANES), np.int64)
    for e in range(len(keys)):
        unpack(keys[e], out[e])
    return out


@njit(cache=True)
def paired(tab, lows, graded):
    """The entries of the table ``tab`` (the walk's ended states) as state vectors with their
    masses: each entry's tallies ``graded`` (state fields; the field of span start ``lows[j]``) paired by
    quantile, walking their values upward together (the north-west corner rule: a state
    takes the least mass left at the current values, then every field whose mass there is
    used up moves on), so each keeps its distribution given the core exactly, at most one
    state a value."""
    pool, low, high, at, origin = tab[1], tab[2], tab[3], tab[9], tab[10]
    keys = tab[0][:tab[7][0]]
    k = len(graded)
    rows = 0
    for e in range(len(keys)):
        rows += 1
        for j in range(k):
            rows += high[e, j] - low[e, j] + 1
    states = np.empty((rows, keys.shape[1] * LANES), np.int64)
    weights = np.empty(rows)
    n = 0
    place = np.zeros(k, np.int64)
    left = np.zeros(k)
    for e in range(len(keys)):
        for j in range(k):
            place[j] = low[e, j]
            left[j] = pool[_place(at, origin, e, j, place[j])]
        while True:
            w = left.min()
            unpack(keys[e], states[n])
            for j in range(k):
                states[n, graded[j]] = lows[j] + place[j]
            weights[n] = w
            n += 1
            done = False
            for j in range(k):
                left[j] -= w
                if left[j] <= 0.0:
                    place[j] += 1
                    while place[j] <= high[e, j] and \
                            pool[_place(at, origin, e, j, place[j])] == 0.0:
                        place[j] += 1
                    if place[j] > high[e, j]:
                        done = True
                    else:
                        left[j] = pool[_place(at, origin, e, j, place[j])]
            if done:
                break
    return states[:n], weights[:n]
