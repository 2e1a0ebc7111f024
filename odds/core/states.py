"""The exact walk's table of fight states (:func:`odds.core.walk.solver`), compiled once for
every rule text.

An entry is a **core** (the state vector with its graded fields at 0) and, for each graded
field, the distribution of its value given the core: a dense row of masses over the field's
span (``odds.core.walk``: a rule text's tallies, and its signed field), with the range its
mass occupies (``low`` .. ``high``), so that adding one entry's masses into another, shifted
by what a stage added to the field, touches only that range. A rule text without graded
fields keeps one mass an entry. A core is kept **packed**, four fields of 16 bits a word
(every field of a rule text's state is a count, a code or a mark far inside ±32,767;
:func:`entry` refuses one outside), so that hashing, comparing and copying it reads a
quarter of the memory. The walk's state vectors are :func:`width` long, the fields padded
to whole words. Entries are found by an open-addressing hash of the core: each slot holds
an entry's index and its core's hash, so that a probe compares whole cores only where the
hashes agree.

A table is a tuple (keys, mass, low, high, clock, live, slots, count, packed): count[0]
entries are used, count[1] of them no longer live (played: their stage's children are
elsewhere); packed is room for the core being looked up.
"""
from __future__ import annotations

import numpy as np
from numba import njit

EMPTY = -1
LANES = 4  # fields packed in a word
OUTSIDE = -2  # entry(): a field outside -32,768 .. 32,767
_ODD = np.random.default_rng(40).integers(1, 1 << 62, size=4096, dtype=np.int64) * 2 + 1


@njit(cache=True)
def table(cap, fields, width, graded):
    """An empty table with room for ``cap`` entries of ``fields`` fields, ``width`` masses
    (every graded field's span, one after another; 1 without graded fields) and ``graded``
    graded fields."""
    size = 16
    while size < 2 * cap:
        size *= 2
    words = (fields + LANES - 1) // LANES
    return (np.empty((cap, words), np.int64), np.zeros((cap, width)),
            np.zeros((cap, max(graded, 1)), np.int64), np.zeros((cap, max(graded, 1)), np.int64),
            np.zeros(cap, np.int64), np.zeros(cap, np.bool_), np.full((size, 2), EMPTY, np.int64),
            np.zeros(2, np.int64), np.zeros(words, np.int64))


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
    _empty(tab, e)
    tab[4][e] = clock
    tab[5][e] = True
    tab[6][at, 0] = e
    tab[6][at, 1] = h
    return e


@njit(cache=True, _nrt=False, forceinline=True)
def _empty(tab, e):
    for x in range(tab[1].shape[1]):
        tab[1][e, x] = 0.0
    for j in range(tab[2].shape[1]):
        tab[2][e, j] = np.iinfo(np.int64).max
        tab[3][e, j] = -1


@njit(cache=True, _nrt=False, forceinline=True)
def copy(source, target):
    """``target[:] = source`` in a plain loop: an array assigned to a row compiles numba's
    shape checks and their messages, seconds of compiling."""
    for i in range(len(source)):
        target[i] = source[i]


@njit(cache=True, _nrt=False)
def earliest(tab):
    """The least clock of a live entry (the table has one)."""
    keys, mass, low, high, clock, live, _, count, _ = tab
    least = np.iinfo(np.int64).max
    for e in range(count[0]):
        if live[e] and clock[e] < least:
            least = clock[e]
    return least


@njit(cache=True)
def taken(tab, least):
    """The live entries whose clock is ``least``, copied out (state vectors, masses, lows,
    highs) and no longer live: the stage to play."""
    keys, mass, low, high, clock, live, _, count, _ = tab
    n = 0
    for e in range(count[0]):
        n += live[e] and clock[e] == least
    out = (np.empty((n, keys.shape[1] * LANES), np.int64), np.empty((n, mass.shape[1])),
           np.empty((n, low.shape[1]), np.int64), np.empty((n, high.shape[1]), np.int64))
    b = 0
    for e in range(count[0]):
        if live[e] and clock[e] == least:
            unpack(keys[e], out[0][b])
            copy(mass[e], out[1][b])
            copy(low[e], out[2][b])
            copy(high[e], out[3][b])
            live[e] = False
            b += 1
    count[1] += n
    return out


@njit(cache=True)
def rebuilt(tab, cap):
    """The table's live entries in a new table with room for ``cap`` (at least them all)."""
    keys, mass, low, high, clock, live, _, count, _ = tab
    n = 0
    for e in range(count[0]):
        n += live[e]
    out = table(max(cap, 2 * n, 16), keys.shape[1] * LANES, mass.shape[1], low.shape[1])
    for e in range(count[0]):
        if live[e]:
            f = out[7][0]
            out[7][0] += 1
            copy(keys[e], out[0][f])
            copy(mass[e], out[1][f])
            copy(low[e], out[2][f])
            copy(high[e], out[3][f])
            out[4][f] = clock[e]
            out[5][f] = True
            h = _hash(keys[e])
            at = _slot(out, keys[e], h)
            out[6][at, 0] = f
            out[6][at, 1] = h
    return out


@njit(cache=True, _nrt=False, forceinline=True)
def add(tab, e, mass, low, high, shift, base, p):
    """Add the masses ``mass`` (each graded field j's over its ``low[j]`` .. ``high[j]``),
    each field's shifted by ``shift[j]`` and times ``p``, into entry e. Returns False when a
    shifted mass falls outside its field's span (the rule text's spans are too narrow)."""
    row, lo, hi = tab[1], tab[2], tab[3]
    graded = len(base) - 1
    if graded == 0:
        row[e, 0] += p * mass[0]
        return True
    for j in range(graded):
        a, b = low[j] + shift[j], high[j] + shift[j]
        if a < 0 or b >= base[j + 1] - base[j]:
            return False
        start, offset = base[j] + a, base[j] + low[j]
        for x in range(b - a + 1):
            row[e, start + x] += p * mass[offset + x]
        lo[e, j] = min(lo[e, j], a)
        hi[e, j] = max(hi[e, j], b)
    return True


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
def unpacked(keys):
    """Packed cores as state vectors, one a row."""
    out = np.empty((len(keys), keys.shape[1] * LANES), np.int64)
    for e in range(len(keys)):
        unpack(keys[e], out[e])
    return out


@njit(cache=True)
def paired(keys, mass, low, high, base, lows, graded):
    """The ended entries (``keys`` packed) as state vectors with their masses: each entry's
    tallies ``graded`` (state fields; the field of span start ``lows[j]``) paired by
    quantile, walking their values upward together (the north-west corner rule: a state
    takes the least mass left at the current values, then every field whose mass there is
    used up moves on), so each keeps its distribution given the core exactly, at most one
    state a value."""
    k = len(graded)
    rows = 0
    for e in range(len(keys)):
        rows += 1
        for j in range(k):
            rows += high[e, j] - low[e, j] + 1
    states = np.empty((rows, keys.shape[1] * LANES), np.int64)
    weights = np.empty(rows)
    n = 0
    at = np.zeros(k, np.int64)
    left = np.zeros(k)
    for e in range(len(keys)):
        for j in range(k):
            at[j] = low[e, j]
            left[j] = mass[e, base[j] + at[j]]
        while True:
            w = left.min()
            unpack(keys[e], states[n])
            for j in range(k):
                states[n, graded[j]] = lows[j] + at[j]
            weights[n] = w
            n += 1
            done = False
            for j in range(k):
                left[j] -= w
                if left[j] <= 0.0:
                    at[j] += 1
                    while at[j] <= high[e, j] and mass[e, base[j] + at[j]] == 0.0:
                        at[j] += 1
                    if at[j] > high[e, j]:
                        done = True
                    else:
                        left[j] = mass[e, base[j] + at[j]]
            if done:
                break
    return states[:n], weights[:n]
