"""The kernel's loop, the exact solver's walk and the kernel's threads, shared by every
ruleset written as one rule text (``odds/rulesets/README.md``).

A rule text (a ruleset's ``fight.py``) keeps a fight's **state** as one int64 vector of
``FIELDS`` fields, ``OVER`` (field 0) 0 while the fight goes on; ``begin(plan, state)`` sets
the state before the fight, ``stage(plan, dice, state)`` plays the next stage (the charge, a
round, an exchange) in place, asking ``odds.core.dice.pick`` for every chance, and
``row(plan, state, out, t)`` writes an ended fight's ``COLUMNS`` outcome columns. A rule
text whose state or row grows with the scenario (e.g. its model groups) defines compiled
``fields(plan)`` and ``columns(plan)`` instead of the two constants; one whose stages take
fights unevenly far (one pick a stage, however many a round needs) defines ``clock(plan,
state)``, how far a fight has come, never less after a stage (see :func:`solve`).
:func:`kernel` compiles the loop that samples it, :func:`solver` the parts :func:`solve`
walks exactly. They are compiled per rule text from closures (numba caches them, keyed on
the rule text, see :mod:`odds.core.cache`): no ruleset writes a loop of its own.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import get_num_threads, njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from odds.core.dice import chance, new_path, next_path
from odds.core.exact import check_states
from odds.core.rng import seed_stream

OVER = 0    # state field: 0 while the fight goes on
BLOCK = 256  # fewest trials worth a thread of their own


def _sized(fight):
    """``fight`` with compiled ``fields(plan)`` and ``columns(plan)``: its own, or made here
    from its ``FIELDS`` and ``COLUMNS`` (the same for every plan)."""
    for name, constant in (("fields", "FIELDS"), ("columns", "COLUMNS")):
        if not hasattr(fight, name):
            setattr(fight, name, _constant(getattr(fight, constant)))
    if not hasattr(fight, "clock"):
        fight.clock = _evenly
    return fight


@njit(cache=True, inline="always")
def _evenly(plan, state):
    """The clock of a rule text whose every stage takes every fight equally far."""
    return 0


def _constant(n):
    @njit(inline="always")
    def size(plan):
        return n
    return size


def kernel(fight):
    """The compiled loop that plays a rule text's fights: ``play_trials(plan, seed,
    first_trial, out, start, stop)`` plays trials start .. stop - 1 into out[:, start:stop],
    GIL-free (one thread's share, :func:`play_in_threads`)."""
    fight = _sized(fight)

    @njit(cache=True, nogil=True)
    def play_trials(plan, seed, first_trial, out, start, stop):
        plan = unowned(plan)
        stream = np.empty(4, np.uint64)
        vector = np.empty(fight.fields(plan), np.int64)
        st, state = unowned((stream, vector))  # kept alive below: no counting in the loop
        for t in range(start, stop):
            seed_stream(st, seed, first_trial + t)
            fight.begin(plan, state)
            while not state[OVER]:
                fight.stage(plan, st, state)
            fight.row(plan, state, out, t)
        stream[0] = vector[0]

    return play_trials


def solver(fight):
    """The compiled parts of a rule text's exact solver, for :func:`solve`: ``begin(plan,
    state)``; ``leaves(plan, states, now)`` -> (states, chances, parents), every way the next
    stage goes from each state, each once (``odds.core.dice`` paths), the states not ``now``
    kept as they are; ``rows(plan, states)`` -> the outcome record of ended states;
    ``fields(plan)``, the state's width; ``clocks(plan, states)``, each state's clock."""
    fight = _sized(fight)

    @njit(cache=True)
    def begin(plan, state):
        fight.begin(plan, state)

    @njit(cache=True)
    def leaves(plan, states, now):
        plan = unowned(plan)
        out = np.empty((16, states.shape[1]), np.int64)
        p = np.empty(16)
        parent = np.empty(16, np.int64)
        n = 0
        path = new_path()
        for i in range(len(states)):
            more = bool(now[i])
            if not more:  # behind the others: waits, so that equal states meet
                out, p, parent = room(out, p, parent, n)
                out[n] = states[i]
                p[n] = 1.0
                parent[n] = i
                n += 1
            while more:
                out, p, parent = room(out, p, parent, n)
                out[n] = states[i]
                fight.stage(plan, path, out[n])
                p[n] = chance(path)
                parent[n] = i
                n += 1
                more = next_path(path)
        return out[:n], p[:n], parent[:n]

    @njit(cache=True)
    def rows(plan, states):
        plan = unowned(plan)
        out = np.zeros((fight.columns(plan), len(states)), np.int32)
        for t in range(len(states)):
            fight.row(plan, states[t], out, t)
        return out

    @njit(cache=True)
    def fields(plan):
        return fight.fields(plan)

    @njit(cache=True)
    def clocks(plan, states):
        plan = unowned(plan)
        out = np.empty(len(states), np.int64)
        for i in range(len(states)):
            out[i] = fight.clock(plan, states[i])
        return out

    return begin, leaves, rows, fields, clocks


def solve(compiled, fight, plan, max_states: int):
    """The exact outcome rows and their probabilities: ``(rows (columns, m), weights (m,),
    most live states)``, walking stage by stage from the state before the fight, with the
    ``compiled`` parts of the rule text ``fight`` (:func:`solver`). Raises
    :class:`odds.core.exact.TooManyStates` beyond ``max_states`` live states.

    ``fight.TALLIES`` are the state's fields that stages only add to and never read (e.g.
    failed saves so far). The walk keeps a **core** (the state with its tallies at 0) once,
    and each tally's distribution given the core apart, as a **track** of (core, value,
    mass) entries: a tally never steers a stage, so (core, that tally) walks as a chain of its
    own, ``leaves`` replays each core once however many values its tallies take, and the work
    grows with the sum of the tallies' ranges, not their product. That is all the solver's
    contract asks (:mod:`odds.core.exact`: each column's distribution, per winner): the rows
    of an ended core pair its tallies' values by quantile (:func:`_pairs`). A rule text
    without tallies walks one track of zeros. The live states counted against
    ``max_states`` are the entries of the largest track (a core and one tally's value).

    Each stage advances only the cores whose ``fight.clock`` is least, the others wait: when
    stages take fights unevenly far, equal states still meet, at the same stage, and are
    merged."""
    begin, leaves, rows, fields, clocks = compiled
    tallies = np.asarray(fight.TALLIES, np.int64)
    start = np.empty(fields(plan), np.int64)
    begin(plan, start)
    values = start[tallies] if len(tallies) else np.zeros(1, np.int64)
    start[tallies] = 0
    cores = start[None, :].copy()
    k = len(values)  # the tracks, each entry (track, owner core, value, mass)
    track, owner, mass = np.arange(k), np.zeros(k, np.int64), np.ones(k)
    over_cores, over_entries, most, stage, n_over = [], [], 1, 0, 0
    while len(cores):
        clock = clocks(plan, cores)
        states, p, parent = leaves(plan, cores, clock == clock.min())
        ended, cores, reached, entries = _advance(states, p, parent, tallies, track, owner,
                                                  values, mass)
        if len(ended):  # ended cores numbered after those of earlier stages
            over_cores.append(ended)
            over_entries.append((reached[4], reached[5] + n_over, reached[6], reached[7]))
            n_over += len(ended)
        track, owner, values, mass = reached[:4]
        stage += 1
        check_states(entries, max_states, stage)
        most = max(most, entries)
    track, owner, values, mass = (np.concatenate(a) for a in zip(*over_entries))
    states, weights = _coupled(np.concatenate(over_cores), tallies, k, track, owner, values,
                               mass)
    ways, way = distinct(rows(plan, states).T.copy())  # ending alike: one row
    return ways.T, np.bincount(way, weights=weights, minlength=len(ways)), most


@njit(cache=True)
def _ways(states, tallies):
    """A stage's leaves as (cores, child, delta): each leaf's core (the state with its
    tallies at 0) among the distinct ``cores`` and its tallies' delta (one column of zeros
    when the rule text has no tallies)."""
    delta = np.zeros((len(states), max(len(tallies), 1)), np.int64)
    for j in range(len(tallies)):
        delta[:, j] = states[:, tallies[j]]
        states[:, tallies[j]] = 0
    cores, child = distinct(states)
    return cores, child, delta


@njit(cache=True)
def _moves(child, parent, delta, p):
    """One tally's moves from the leaves, as (child, delta, chance, parent), leaves alike
    (same parent, child core and delta) merged."""
    alike = np.empty((len(child), 3), np.int64)
    alike[:, 0] = child
    alike[:, 1] = parent
    alike[:, 2] = delta
    ways, way = distinct(alike)
    chance = np.zeros(len(ways))
    for i in range(len(way)):
        chance[way[i]] += p[i]
    return ways[:, 0].copy(), ways[:, 2].copy(), chance, ways[:, 1].copy()


@njit(cache=True)
def _spread(child, delta, p, parent, owner, value, mass):
    """One tally's entries (owner core, value, mass) moved along every move of their core
    (child core, delta, chance, parent core), equal (child, value) merged in a dense box of
    one page per child core. Returns the (owner, value, mass) reached, ordered by owner and
    value; a mass that underflows to 0 is no entry.

    A core's entries are laid out once as one dense segment (its lowest to its highest
    value), and each move adds the segment, shifted by its delta, in one contiguous loop the
    compiler vectorizes."""
    low = value.min() + min(delta.min(), 0)
    size = value.max() + max(delta.max(), 0) - low + 1
    cores = int(max(parent.max(), owner.max())) + 1
    least = np.full(cores, size, np.int64)  # each core's segment
    most = np.full(cores, -1, np.int64)
    for i in range(len(owner)):
        least[owner[i]] = min(least[owner[i]], value[i] - low)
        most[owner[i]] = max(most[owner[i]], value[i] - low)
    first = np.zeros(cores + 1, np.int64)
    for a in range(cores):
        first[a + 1] = first[a] + max(most[a] - least[a] + 1, 0)
    segments = np.zeros(first[cores])
    for i in range(len(owner)):
        segments[first[owner[i]] + value[i] - low - least[owner[i]]] += mass[i]
    n_children = int(child.max()) + 1
    box = np.zeros(n_children * size)
    lowest = np.full(n_children, n_children * size, np.int64)
    highest = np.full(n_children, -1, np.int64)
    for move in range(len(child)):
        a = parent[move]
        length = first[a + 1] - first[a]
        if length == 0:
            continue
        c = child[move]
        at = c * size + delta[move] + least[a]
        q = p[move]
        to = box[at:at + length]
        segment = segments[first[a]:first[a + 1]]
        for x in range(length):
            to[x] += q * segment[x]
        lowest[c] = min(lowest[c], at)
        highest[c] = max(highest[c], at + length - 1)
    n = 0
    for c in range(n_children):
        for x in range(lowest[c], highest[c] + 1):
            n += box[x] > 0.0
    out_owner = np.empty(n, np.int64)
    out_value = np.empty(n, np.int64)
    out_mass = np.empty(n)
    n = 0
    for c in range(n_children):
        for x in range(lowest[c], highest[c] + 1):
            if box[x] > 0.0:
                out_owner[n] = c
                out_value[n] = x - c * size + low
                out_mass[n] = box[x]
                n += 1
    return out_owner, out_value, out_mass


@njit(cache=True)
def _advance(states, p, parent, tallies, track, owner, value, mass):
    """Every track's entries moved along the stage's leaves (the ``states`` each live core
    reached, with their chances and parent cores; :func:`_ways`, :func:`_moves`,
    :func:`_spread`) and parted by their core's end: (ended cores, live cores, their entries,
    the largest track's live entries). A core whose mass underflowed in a track is neither.
    The entries are (track, owner, value, mass) of the live cores, then of the ended ones,
    owners numbered among their kind."""
    cores, child, delta = _ways(states, tallies)
    k = delta.shape[1]
    parts = []
    count = np.zeros((k, len(cores)), np.int64)
    for j in range(k):
        mine = track == j
        moved = _spread(*_moves(child, parent, delta[:, j], p), owner[mine], value[mine],
                        mass[mine])
        for c in moved[0]:
            count[j, c] += 1
        parts.append(moved)
    over = np.zeros(len(cores), np.bool_)
    live = np.zeros(len(cores), np.bool_)
    number = np.zeros(len(cores), np.int64)
    n_live = 0
    n_over = 0
    for c in range(len(cores)):
        if (count[:, c] > 0).all():
            if cores[c, OVER] != 0:
                over[c] = True
                number[c] = n_over
                n_over += 1
            else:
                live[c] = True
                number[c] = n_live
                n_live += 1
    n = [0, 0]
    for j in range(k):
        for c in parts[j][0]:
            if live[c]:
                n[0] += 1
            elif over[c]:
                n[1] += 1
    kinds = []
    for kind in range(2):
        kinds.append((np.empty(n[kind], np.int64), np.empty(n[kind], np.int64),
                      np.empty(n[kind], np.int64), np.empty(n[kind])))
    at = [0, 0]
    for j in range(k):
        moved_owner, moved_value, moved_mass = parts[j]
        for i in range(len(moved_owner)):
            c = moved_owner[i]
            kind = 0 if live[c] else 1
            if live[c] or over[c]:
                out = kinds[kind]
                out[0][at[kind]] = j
                out[1][at[kind]] = number[c]
                out[2][at[kind]] = moved_value[i]
                out[3][at[kind]] = moved_mass[i]
                at[kind] += 1
    most = 0
    for j in range(k):
        most = max(most, (count[j] * live).sum())
    return cores[over], cores[live], kinds[0] + kinds[1], most


def _coupled(over, tallies, k, track, owner, value, mass):
    """The ended states of the cores ``over`` and their masses, from each tally's entries
    (track, owner, value, mass; each track's values ascending for an owner): see
    :func:`_pairs`."""
    order = np.lexsort((track, owner))  # stable: each track's values stay ascending
    return _pairs(over, tallies, k, owner[order], track[order], value[order], mass[order])


@njit(cache=True)
def _pairs(over, tallies, k, owner, which, value, mass):
    """Each ended core's tallies paired by quantile (the north-west corner rule): walking
    the k tracks' values upward together, a row takes the least mass left at the current
    values, then every track whose mass there is used up moves on. Each tally keeps its
    distribution given the core exactly; at most one row per entry."""
    count = np.zeros((len(over), k), np.int64)  # core o's entries in track j
    for i in range(len(owner)):
        count[owner[i], which[i]] += 1
    first = np.zeros((len(over), k), np.int64)  # where they start
    place = 0
    for o in range(len(over)):
        for j in range(k):
            first[o, j] = place
            place += count[o, j]
    states = np.empty((len(owner), over.shape[1]), np.int64)
    weights = np.empty(len(owner))
    at = np.empty(k, np.int64)
    left = np.empty(k)
    n = 0
    for o in range(len(over)):
        for j in range(k):
            at[j] = first[o, j]
            left[j] = mass[at[j]]
        while True:
            w = left.min()
            states[n] = over[o]
            for j in range(len(tallies)):
                states[n, tallies[j]] = value[at[j]]
            weights[n] = w
            n += 1
            done = False
            for j in range(k):
                left[j] -= w
                if left[j] <= 0.0:
                    at[j] += 1
                    if at[j] == first[o, j] + count[o, j]:
                        done = True
                    else:
                        left[j] = mass[at[j]]
            if done:
                break
    return states[:n], weights[:n]


@njit(cache=True)
def distinct(rows):
    """The distinct rows of ``rows`` and each row's index among them: by one mixed-radix
    int64 key a row when the fields' ranges allow (counted in a table of every key, or
    hashed), else sorted column by column. The order of the rows is fixed by ``rows``."""
    n, f = rows.shape
    if n == 0:
        return rows[:0].copy(), np.zeros(0, np.int64)
    low = np.empty(f, np.int64)
    span = np.empty(f, np.int64)
    room = 1.0
    for j in range(f):
        low[j] = rows[:, j].min()
        span[j] = rows[:, j].max() - low[j] + 1
        room *= span[j]
    if room < 2.0 ** 62:
        keys = np.zeros(n, np.int64)
        for i in range(n):
            key = 0
            for j in range(f):
                key = key * span[j] + rows[i, j] - low[j]
            keys[i] = key
        if room <= 4.0 * n + 65536:  # few keys possible: counted, not hashed
            return _counted(rows, keys, int(room))
        return _hashed(rows, keys)
    order = np.arange(n)  # lexicographic: stable sorts from the last column to the first
    for j in range(f - 1, -1, -1):
        order = order[np.argsort(rows[order, j], kind="mergesort")]
    inverse = np.empty(n, np.int64)
    first = np.empty(n, np.int64)
    count = -1
    for m in range(n):
        i = order[m]
        if m == 0 or (rows[i] != rows[order[m - 1]]).any():
            count += 1
            first[count] = i
        inverse[i] = count
    return rows[first[:count + 1]], inverse


@njit(cache=True)
def _hashed(rows, keys):
    """distinct() by an open-addressing hash table of the keys (rows in first-seen order)."""
    bits = 1
    while (1 << bits) < 2 * len(keys):
        bits += 1
    held = np.full(1 << bits, -1, np.int64)  # a slot's distinct row
    first = np.empty(len(keys), np.int64)
    inverse = np.empty(len(keys), np.int64)
    count = 0
    for i in range(len(keys)):
        at = (np.uint64(keys[i]) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - bits)
        while held[at] >= 0 and keys[first[held[at]]] != keys[i]:
            at = (at + np.uint64(1)) & np.uint64((1 << bits) - 1)
        if held[at] < 0:
            held[at] = count
            first[count] = i
            count += 1
        inverse[i] = held[at]
    return rows[first[:count]], inverse


@njit(cache=True)
def _counted(rows, keys, room):
    """distinct() by marking each key in a table of every key possible."""
    at = np.full(room, -1, np.int64)
    for i in range(len(keys)):
        at[keys[i]] = 0
    count = 0
    first = np.empty(len(keys), np.int64)
    for key in range(room):
        if at[key] == 0:
            at[key] = count
            count += 1
    inverse = np.empty(len(keys), np.int64)
    seen = np.zeros(count, np.bool_)
    for i in range(len(keys)):
        inverse[i] = at[keys[i]]
        if not seen[inverse[i]]:
            seen[inverse[i]] = True
            first[inverse[i]] = i
    return rows[first[:count]], inverse


@njit(cache=True, inline="always")
def clear(state):
    """Every field of ``state`` to 0 (a rule text's ``begin``): a plain loop, which numba
    compiles to a few stores where ``state[:] = 0`` goes through its general slice code."""
    for i in range(len(state)):
        state[i] = 0


@njit(cache=True, inline="always")
def room(states, chances, parents, n):
    """The leaves' arrays with room for at least n + 1 rows (doubled when full)."""
    if n < len(chances):
        return states, chances, parents
    more = np.empty((2 * len(chances), states.shape[1]), states.dtype)
    more[:n] = states[:n]
    p = np.empty(2 * len(chances))
    p[:n] = chances[:n]
    q = np.empty(2 * len(chances), np.int64)
    q[:n] = parents[:n]
    return more, p, q


def play_in_threads(play_trials, plan, seed, first_trial, out):
    """Play trials first_trial .. first_trial + out.shape[1] - 1 into out, the columns split
    into one slice per thread (``numba.get_num_threads()``), each a GIL-free ``play_trials``
    call. Each trial's stream comes from (seed, trial), so the split changes no number.
    Not ``prange``: a thread pool over one plain compiled loop compiles in a fraction of the
    time at the same speed (benchmarks/cold_start.py)."""
    n = out.shape[1]
    threads = max(1, min(get_num_threads(), n // BLOCK))
    if threads == 1:
        play_trials(plan, seed, first_trial, out, 0, n)
        return
    bounds = [n * i // threads for i in range(threads + 1)]
    with ThreadPoolExecutor(threads) as pool:
        runs = [pool.submit(play_trials, plan, seed, first_trial, out, bounds[i], bounds[i + 1])
                for i in range(threads)]
        for run in runs:
            run.result()


@intrinsic
def unowned(typingctx, plan):
    """``plan`` (a tuple of arrays and numbers) as arrays without an owner: numba then keeps
    no reference counts on them, which the rule text's many reads of the plan's tables would
    otherwise update, atomically, at every access. Only for a plan its caller keeps alive
    for the whole call (the kernel's and solver's loops are given it as an argument)."""
    def codegen(context, builder, signature, args):
        return _unowned(context, builder, signature.args[0], args[0])
    return plan(plan), codegen


def _unowned(context, builder, ty, value):
    if isinstance(ty, types.Array):
        array = context.make_array(ty)(context, builder, value=value)
        array.meminfo = cgutils.get_null_value(array.meminfo.type)
        array.parent = cgutils.get_null_value(array.parent.type)
        return array._getvalue()
    if isinstance(ty, types.BaseTuple):
        items = [_unowned(context, builder, t, builder.extract_value(value, i))
                 for i, t in enumerate(ty)]
        out = cgutils.get_null_value(value.type)
        for i, item in enumerate(items):
            out = builder.insert_value(out, item, i)
        return out
    return value
