"""The kernel's loop, the exact solver's walk and the kernel's threads, shared by every
ruleset written as one rule text (``odds/rulesets/README.md``).

A rule text (a ruleset's ``fight.py``) keeps a fight's **state** as one int64 vector of
``FIELDS`` fields, ``OVER`` (field 0) 0 while the fight goes on; ``begin(plan, state)`` sets
the state before the fight, ``stage(plan, dice, state)`` plays the next stage (the charge, a
round, an exchange) in place, asking ``odds.core.dice.pick`` for every chance, and
``row(plan, state, out, t)`` writes an ended fight's ``COLUMNS`` outcome columns.
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


def kernel(fight):
    """The compiled loop that plays a rule text's fights: ``play_trials(plan, seed,
    first_trial, out, start, stop)`` plays trials start .. stop - 1 into out[:, start:stop],
    GIL-free (one thread's share, :func:`play_in_threads`)."""
    @njit(cache=True, nogil=True)
    def play_trials(plan, seed, first_trial, out, start, stop):
        plan = unowned(plan)
        st = np.empty(4, np.uint64)
        state = np.empty(fight.FIELDS, np.int64)
        for t in range(start, stop):
            seed_stream(st, seed, first_trial + t)
            fight.begin(plan, state)
            while not state[OVER]:
                fight.stage(plan, st, state)
            fight.row(plan, state, out, t)

    return play_trials


def solver(fight):
    """The compiled parts of a rule text's exact solver, for :func:`solve`: ``begin(plan,
    state)``; ``leaves(plan, states)`` -> (states, chances, parents), every way the next
    stage goes from each state, each once (``odds.core.dice`` paths); ``rows(plan, states)``
    -> the outcome record of ended states."""
    @njit(cache=True)
    def begin(plan, state):
        fight.begin(plan, state)

    @njit(cache=True)
    def leaves(plan, states):
        plan = unowned(plan)
        out = np.empty((16, states.shape[1]), np.int64)
        p = np.empty(16)
        parent = np.empty(16, np.int64)
        n = 0
        path = new_path()
        for i in range(len(states)):
            more = True
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
        out = np.zeros((fight.COLUMNS, len(states)), np.int32)
        for t in range(len(states)):
            fight.row(plan, states[t], out, t)
        return out

    return begin, leaves, rows


def solve(compiled, fight, plan, max_states: int):
    """The exact outcome rows and their probabilities: ``(rows (columns, m), weights (m,),
    most live states)``, walking stage by stage from the state before the fight, with the
    ``compiled`` parts of the rule text ``fight`` (:func:`solver`). Raises
    :class:`odds.core.exact.TooManyStates` beyond ``max_states`` live states.

    ``fight.TALLIES`` are the state's fields that stages only add to and never read (e.g. failed
    saves so far): the walk keeps a **core** (the state with its tallies at 0) once, with the
    distribution of its tallies as a dense box, so ``leaves`` replays each core once however
    many tally values it carries, and equal states merge by adding boxes."""
    begin, leaves, rows = compiled
    tallies = np.asarray(fight.TALLIES, np.int64)
    start = np.empty(fight.FIELDS, np.int64)
    begin(plan, start)
    cores = start[None, :].copy()
    cells = start[tallies][None, :].copy()  # each live state: (core index, tally values)
    owner, mass = np.zeros(1, np.int64), np.ones(1)
    ended, weights, most, stage = [], [], 1, 0
    while len(mass):
        states, p, parent = leaves(plan, cores)
        cores, child, parent, delta, p = _ways(states, p, parent, tallies)
        cells, mass, owner = _spread(child, delta, p, parent, owner, cells, mass)
        cores, owner, cells, mass, over, over_mass = _split(cores, owner, cells, mass, tallies)
        if len(over_mass):
            ended.append(over)
            weights.append(over_mass)
        stage += 1
        check_states(len(mass), max_states, stage)
        most = max(most, len(mass))
    ways, way = distinct(rows(plan, np.concatenate(ended)).T.copy())  # ending alike: one row
    return ways.T, np.bincount(way, weights=np.concatenate(weights), minlength=len(ways)), most


@njit(cache=True)
def _ways(states, p, parent, tallies):
    """The leaves of a stage as (cores, child, parent, delta, p): each leaf's state split
    into its core (tallies at 0) and its tallies' delta, leaves alike merged."""
    delta = np.empty((len(states), len(tallies)), np.int64)
    for j in range(len(tallies)):
        delta[:, j] = states[:, tallies[j]]
        states[:, tallies[j]] = 0
    cores, child = distinct(states)
    alike = np.empty((len(states), 2 + len(tallies)), np.int64)  # a child's leaves together
    alike[:, 0] = child
    alike[:, 1] = parent
    alike[:, 2:] = delta
    ways, way = distinct(alike)
    chance = np.zeros(len(ways))
    for i in range(len(way)):
        chance[way[i]] += p[i]
    return cores, ways[:, 0].copy(), ways[:, 1].copy(), ways[:, 2:].copy(), chance


@njit(cache=True)
def _split(cores, owner, cells, mass, tallies):
    """The states reached, as (live cores, owner, cells, mass, ended states, their mass); the
    live cores numbered again from 0 (``owner`` is sorted)."""
    n_over = 0
    for i in range(len(owner)):
        n_over += cores[owner[i], OVER] != 0
    over = np.empty((n_over, cores.shape[1]), np.int64)
    over_mass = np.empty(n_over)
    live = len(owner) - n_over
    out_owner = np.empty(live, np.int64)
    out_cells = np.empty((live, cells.shape[1]), np.int64)
    out_mass = np.empty(live)
    used = np.empty(len(cores), np.int64)
    n_used = 0
    m = 0
    k = 0
    for i in range(len(owner)):
        c = owner[i]
        if cores[c, OVER] != 0:
            over[m] = cores[c]
            for j in range(len(tallies)):
                over[m, tallies[j]] = cells[i, j]
            over_mass[m] = mass[i]
            m += 1
        else:
            if n_used == 0 or used[n_used - 1] != c:
                used[n_used] = c
                n_used += 1
            out_owner[k] = n_used - 1
            out_cells[k] = cells[i]
            out_mass[k] = mass[i]
            k += 1
    return cores[used[:n_used]], out_owner, out_cells, out_mass, over, over_mass


@njit(cache=True)
def distinct(rows):
    """The distinct rows of ``rows`` (sorted) and each row's index among them: by one
    mixed-radix int64 key a row when the fields' ranges allow, else column by column."""
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
    keyed = room < 2.0 ** 62
    keys = np.zeros(n, np.int64)
    if keyed:
        for i in range(n):
            key = 0
            for j in range(f):
                key = key * span[j] + rows[i, j] - low[j]
            keys[i] = key
        if room <= 4.0 * n + 65536:  # few keys possible: counted, not sorted
            return _counted(rows, keys, int(room))
        order = np.argsort(keys, kind="mergesort")
    else:  # lexicographic: stable sorts from the last column to the first
        order = np.arange(n)
        for j in range(f - 1, -1, -1):
            order = order[np.argsort(rows[order, j], kind="mergesort")]
    inverse = np.empty(n, np.int64)
    first = np.empty(n, np.int64)
    count = -1
    for m in range(n):
        i = order[m]
        new = m == 0
        if not new:
            if keyed:
                new = keys[i] != keys[order[m - 1]]
            else:
                new = (rows[i] != rows[order[m - 1]]).any()
        if new:
            count += 1
            first[count] = i
        inverse[i] = count
    return rows[first[:count + 1]], inverse


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


@njit(cache=True)
def _spread(child, delta, p, parent, owner, cells, mass):
    """Every live state (owner core, tally cells, mass) moved along every leaf of its core
    (child core, tally delta, chance), equal (child, tallies) merged in a dense box.
    Returns (cells, mass, owner) of the states reached, ordered by owner."""
    k = cells.shape[1]
    low = np.zeros(k, np.int64)
    dims = np.ones(k, np.int64)
    for j in range(k):
        low[j] = cells[:, j].min()
        dims[j] = cells[:, j].max() - low[j] + delta[:, j].max() + 1
    size = 1
    for j in range(k):
        size *= dims[j]
    order = np.argsort(owner, kind="mergesort")  # the states of each core, contiguous
    first = np.zeros(int(max(parent.max(), owner.max())) + 2, np.int64)
    base = np.empty(len(order), np.int64)
    weight = np.empty(len(order))
    for m in range(len(order)):
        i = order[m]
        first[owner[i] + 1] = m + 1
        at = 0
        for j in range(k):
            at = at * dims[j] + cells[i, j] - low[j]
        base[m] = at
        weight[m] = mass[i]
    for a in range(1, len(first)):
        first[a] = max(first[a], first[a - 1])
    least = np.empty(len(first) - 1, np.int64)  # each core's lowest and highest cell
    most = np.empty(len(first) - 1, np.int64)
    for a in range(len(first) - 1):
        if first[a] < first[a + 1]:
            least[a] = base[first[a]:first[a + 1]].min()
            most[a] = base[first[a]:first[a + 1]].max()
    # a core's states as runs of neighbouring cells (base ascends within a core: the states
    # come ordered by cell), so that a leaf adds each run as one contiguous, vectorized loop
    run_first = np.zeros(len(first), np.int64)
    run_m = np.empty(len(base), np.int64)
    run_len = np.empty(len(base), np.int64)
    runs = 0
    for a in range(len(first) - 1):
        run_first[a] = runs
        for m in range(first[a], first[a + 1]):
            if m > first[a] and base[m] == base[m - 1] + 1:
                run_len[runs - 1] += 1
            else:
                run_m[runs] = m
                run_len[runs] = 1
                runs += 1
    run_first[len(first) - 1] = runs
    n_children = int(child.max()) + 1
    box = np.zeros(n_children * size)  # pages the walk never touches are never written
    lowest = np.full(n_children, n_children * size)
    highest = np.full(n_children, -1)
    for leaf in range(len(child)):
        a = parent[leaf]
        if first[a] == first[a + 1]:
            continue
        off = child[leaf] * size
        for j in range(k):
            step = 1
            for jj in range(j + 1, k):
                step *= dims[jj]
            off += delta[leaf, j] * step
        q = p[leaf]
        for r in range(run_first[a], run_first[a + 1]):
            m = run_m[r]
            at = off + base[m]
            for x in range(run_len[r]):
                box[at + x] += q * weight[m + x]
        c = child[leaf]
        lowest[c] = min(lowest[c], off + least[a])
        highest[c] = max(highest[c], off + most[a])
    n = 0
    for c in range(n_children):
        for at in range(lowest[c], highest[c] + 1):
            n += box[at] > 0.0
    out_cells = np.empty((n, k), np.int64)
    out_mass = np.empty(n)
    out_owner = np.empty(n, np.int64)
    n = 0
    for c in range(n_children):
        for at in range(lowest[c], highest[c] + 1):
            if box[at] > 0.0:
                out_mass[n] = box[at]
                out_owner[n] = c
                rest = at - c * size
                for j in range(k - 1, -1, -1):
                    out_cells[n, j] = rest % dims[j] + low[j]
                    rest //= dims[j]
                n += 1
    return out_cells, out_mass, out_owner


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
