"""The kernel's loop, the exact solver's walk and the kernel's threads, shared by every
ruleset written as one rule text (``odds/rulesets/README.md``).

A rule text (a ruleset's ``fight.py``) keeps a fight's **state** as one int64 vector of
``FIELDS`` fields, ``OVER`` (field 0) 0 while the fight goes on (and, where it counts rounds,
``ROUNDS`` the field that does, named when the states outgrow their bound); ``begin(plan,
state)`` sets the state before the fight, ``stage(plan, dice, state)`` plays the next stage
(the charge, a round, an exchange) in place, asking ``odds.core.dice.pick`` for every chance,
and ``row(plan, state, out, t)`` writes an ended fight's ``COLUMNS`` outcome columns. A rule
text whose state or row grows with the scenario (e.g. its model groups) defines compiled
``fields(plan)`` and ``columns(plan)`` instead of the two constants; one whose stages take
fights unevenly far (one pick a stage, however many a round needs) defines ``clock(plan,
state)``, how far a fight has come, never less after a stage (see :func:`solve`); one whose
tallies sit where the plan puts them (one a unit) defines compiled ``tallies(plan)``, their
fields, instead of ``TALLIES``. A rule text's ``stage`` is best written
``@njit(inline="always")``, typed into the kernel's loop and the walk where they call it:
numba optimizes and emits each compiled function with all it calls linked in, so a
``stage`` compiled on its own would have the whole rule text optimized and emitted once
more (whfb8: about 3 CPU s of a kernel's 30 cold).
:func:`kernel` compiles the loop that samples it, :func:`solver` the parts :func:`solve`
walks exactly. They are compiled per rule text from closures (numba caches them, keyed on
the rule text, see :mod:`odds.core.cache`): no ruleset writes a loop of its own.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import numpy as np
from numba import config, get_num_threads, njit, types
from numba.core import cgutils
from numba.core.cpu import CPUTargetOptions
from numba.core.options import TargetOptions
from numba.extending import intrinsic

from odds.core.cache import variant_name
from odds.core.casts import whole
from odds.core.dice import MOST_MIXED, again, chance, mix, new_path, next_path
from odds.core import states
from odds.core.exact import TooManyStates, TooWide
from odds.core.outcome import CAUGHT, DESTROYED, FLED, UNIT_CAUGHT, UNIT_FLED
from odds.core.rng import seed_stream

# numba's own flag, not a jit option: the kernel's arrays (the plan's, read only, and the
# record, written) are told apart for LLVM, which then keeps a table's value in a register
# across writes to the state or the record
if not hasattr(CPUTargetOptions, "noalias"):
    CPUTargetOptions.noalias = TargetOptions.Mapping("noalias")

OVER = 0    # state field: 0 while the fight goes on
BLOCK = 256  # fewest trials worth a thread of their own


def _sized(fight):
    """``fight`` with compiled ``fields(plan)`` and ``columns(plan)``: its own, or made here
    from its ``FIELDS`` and ``COLUMNS`` (the same for every plan); and, where it has none,
    ``spans(plan)`` (no graded fields), ``reads_sign(plan, state)`` (never),
    ``lead_classes(plan, state, first, last, classes, chances)`` (each value its own class,
    nothing mixed) and ``clock(plan, state)`` (-1: every stage takes every fight one step)."""
    for name, constant in (("fields", "FIELDS"), ("columns", "COLUMNS")):
        if not hasattr(fight, name):
            setattr(fight, name, _constant(getattr(fight, constant)))
    if not hasattr(fight, "tallies"):
        fight.tallies = _constant_fields(np.asarray(fight.TALLIES, np.int64))
    fight.TALLIED = len(getattr(fight, "TALLIES", (0,))) > 0
    if not hasattr(fight, "spans"):
        if fight.TALLIED or _signs(fight):
            raise TypeError(f"{fight.__name__} has graded fields but no spans(plan)")
        fight.spans = _no_spans
    if not hasattr(fight, "reads_sign"):
        fight.reads_sign = _never
    if not hasattr(fight, "lead_classes"):
        fight.lead_classes = _each_its_own
    if not hasattr(fight, "clock"):
        fight.clock = _evenly
    return fight


@njit(cache=True, inline="always")
def _no_spans(plan):
    return np.zeros((0, 2), np.int64)


@njit(cache=True, inline="always")
def _never(plan, state):
    return False


def _constant(n):
    @njit(inline="always")
    def size(plan):
        return n
    return size


def _constant_fields(fields):
    @njit(inline="always")
    def tallies(plan):
        return fields.copy()
    return tallies


def _own(fight, variant=0, **options):
    """``njit(**options)`` for a closure over the rule text ``fight`` (and a kernel
    ``variant``), named after them. numba names compiled code after its qualified name and a
    count kept by each process, so the same closure compiled for two rule texts in two
    processes could get one name; a process that then loaded both from the cache linked
    the second one's calls to the first one's code (a walk replayed another rule text's
    stages). With the rule text and the variant in the name, no two share one."""
    def compiled(function):
        sizes = variant_name(variant) if variant else ""
        function.__qualname__ = ".".join(filter(None, (function.__qualname__,
                                                       fight.__name__, sizes)))
        return njit(**options)(function)
    return compiled


def kernel(fight, variant=0):
    """The compiled loop that plays a rule text's fights: ``play_trials(plan, seed,
    first_trial, out, start, stop)`` plays trials start .. stop - 1 into out[:, start:stop],
    GIL-free (one thread's share, :func:`play_in_threads`). A ``variant`` other than 0 is a
    copy compiled for the plans the rule text's ``known(plan, variant)`` says more of as
    constants (e.g. one unit a side), which the compiler then folds away."""
    fight = _sized(fight)

    @_own(fight, variant, cache=True, nogil=True, noalias=True)
    def play_trials(plan, seed, first_trial, out, start, stop):
        plan = unowned(plan)
        if variant:
            plan = fight.known(plan, variant)
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


def variants(fight, sizes):
    """A rule text's kernel compiled in variants: ``entry(plan)``, the compiled loop over
    trials (:func:`kernel`) of the variant ``sizes(plan)`` names (a tuple of whole numbers,
    the sizes its ``known`` makes constants; None for the variant for any size), each
    compiled on its first use."""
    compiled = {}

    def entry(plan):
        """The compiled loop over trials (one thread's share) of the plan's variant."""
        key = sizes(plan)
        if key not in compiled:
            compiled[key] = kernel(fight, variant=key or 0)
        return compiled[key]

    return entry


def solver(fight):
    """The compiled parts of a rule text's exact solver, for :func:`solve`: ``walk(plan,
    max_states)``, the whole walk, and ``rows(plan, states)``, the outcome record of ended
    states."""
    fight = _sized(fight)
    signs = _signs(fight)
    the_signed = fight.SIGNED if signs else 0
    by_value = getattr(fight, "BY_VALUE", False)  # the signed field is read by its value
    rounds = getattr(fight, "ROUNDS", -1)  # the field naming the round, if any
    tallied = fight.TALLIED  # else an ended state keeps its whole mass only

    @_own(fight, inline="always")
    def paths(plan, state, child, path, mass, low, high, shift, base, live, ended, least,
              graded):
        """Replay the stage from ``state`` (its graded fields' masses ``mass``) for every
        path left of ``path``, adding each child to its table; FULL_LIVE or FULL_ENDED when
        a table is full (the path not yet played: grow it and call again), an error
        status, or 0 when every path was played. Everything is given without reference
        counts (the caller keeps the arrays alive), so nothing is counted here. Typed into
        the walk where it is called (inline): compiled on its own, the whole rule text it
        replays was optimized and emitted twice (whfb8: the walk 10% faster inline, and
        about 2 CPU s less to compile)."""
        k = len(graded)
        total = states.total(mass, low, high, base)
        more = True
        while more:
            states.copy(state, child)
            fight.stage(plan, path, child)
            p = chance(path)
            for j in range(k):
                shift[j] = child[graded[j]] - state[graded[j]]
                child[graded[j]] = 0
            over = child[OVER] != 0
            clock = 0 if over else _after(fight.clock(plan, child), least)
            if not over and clock <= least:
                return STALLED
            table = ended if over else live
            f = states.entry(table, child, clock)
            if f == states.OUTSIDE:
                return WIDE
            if f < 0:
                again(path)
                return FULL_ENDED if over else FULL_LIVE
            added = states.add_one(table, f, p * total) if over and not tallied else \
                states.add(table, f, mass, low, high, shift, base, p)
            if added == states.NO_ROOM:  # the pool is full: the walk grows it
                again(path)
                return FULL_ENDED if over else FULL_LIVE
            if added == states.BEYOND:
                return OUTSIDE
            more = next_path(path)
        return 0

    # walk finds paths on the rule text, not in its closure: numba keys its cache on what a
    # closure holds, and a compiled function pickles differently in every process
    fight.solver_paths = paths

    @_own(fight, cache=True)
    def walk(plan, max_states):
        plan = unowned(plan)
        owned_spans = fight.spans(plan)
        tallies = fight.tallies(plan)  # the graded fields: the tallies, then the signed one
        owned_graded = np.empty(len(tallies) + signs, np.int64)
        for j in range(len(tallies)):  # not a slice: numba's slice copy compiles its
            owned_graded[j] = tallies[j]  # error message's formatting, seconds of it
        if signs:
            owned_graded[-1] = the_signed
        k = len(owned_graded)
        signed = k - 1 if signs else -1  # its place among the graded fields
        owned_base = np.zeros(k + 1, np.int64)
        for j in range(k):
            owned_base[j + 1] = owned_base[j] + owned_spans[j, 1] - owned_spans[j, 0] + 1
        width = max(owned_base[k], 1)
        spans, base, graded = unowned((owned_spans, owned_base, owned_graded))
        first = np.zeros(states.width(fight.fields(plan)), np.int64)
        fight.begin(plan, first)
        buffers = (np.empty(len(first), np.int64), np.empty(len(first), np.int64), new_path(),
                   np.zeros(width), np.zeros(max(k, 1), np.int64),
                   np.zeros(max(k, 1), np.int64), np.zeros(max(k, 1), np.int64),
                   np.zeros(width, np.int64), np.zeros((width, MOST_MIXED)),
                   np.zeros(MOST_MIXED))
        # kept alive here: the loop below counts no references on them
        state, child, path, mass, low, high, shift, classes, chances, mixed = \
            unowned(buffers)
        for j in range(k):  # the start's graded values, as masses of one
            low[j] = high[j] = first[graded[j]] - spans[j, 0]
            mass[base[j] + low[j]] = 1.0
            first[graded[j]] = 0
        if k == 0:
            mass[0] = 1.0
        # (whole numbers, not constants: one compile of table, as rebuilt calls it)
        live = states.table(whole(64), len(first), k, 2 * width)  # room to move every window
        ended = states.table(whole(64), len(first), whole(k if tallied else 0),
                             whole(2 * width if tallied else 0))
        view, done = unowned(live), unowned(ended)
        e = states.entry(view, first, _after(fight.clock(plan, first), 0))
        if e == states.OUTSIDE:
            return WIDE, 1, 0, ended
        states.add(view, e, mass, low, high, shift, base, 1.0)
        most, stages = 1, 0
        while True:
            count = view[7]
            if count[0] == count[1]:
                return 0, most, stages, ended
            least = states.earliest(view)
            played = states.taken(view, least)  # the stage: the states furthest behind
            cores, core_mass, core_first, core_low, core_high = unowned(played)
            for b in range(len(cores)):
                split = signed >= 0 and fight.reads_sign(plan, cores[b])
                first, last, m = 0, 0, 0  # the classes of the signed field's values read:
                if split:                 # its signs -1 .. 1, or each of its values
                    first, last = (core_low[b][signed], core_high[b][signed]) if by_value \
                        else (-1, 1)
                    if by_value:  # the rule text's class of each value: one play a class,
                        #           its first pick's chances mixed where it gives them (m)
                        m = fight.lead_classes(plan, cores[b], spans[signed, 0] + first,
                                               spans[signed, 0] + last, classes, chances)
                for sign in range(first, last + 1):
                    if split and by_value and _met(classes, sign - first):
                        continue  # its class was played at an earlier value
                    states.copy(cores[b], state)
                    states.spread(core_mass, core_first[b], core_low[b], core_high[b], base,
                                  mass)
                    states.copy(core_low[b], low)
                    states.copy(core_high[b], high)
                    mixing = split and m > 0 and chances[sign - first, 0] >= 0.0
                    if split:  # read: one class of its values at a time
                        weight = 0.0
                        if mixing:
                            for j in range(m):
                                mixed[j] = 0.0
                        for x in range(low[signed], high[signed] + 1):
                            v = spans[signed, 0] + x
                            if (classes[x - first] == classes[sign - first]) if by_value \
                                    else ((v > 0) - (v < 0) == sign):
                                weight += mass[base[signed] + x]
                                if mixing:
                                    for j in range(m):
                                        mixed[j] += mass[base[signed] + x] * chances[x - first, j]
                        if weight == 0.0:
                            continue
                        if mixing:  # each value's chances by its share of the class
                            for j in range(m):
                                mixed[j] /= weight
                            mix(path, mixed, m)
                        if k > 1:
                            return BOTH, most, stages, ended
                        for x in range(len(mass)):
                            mass[x] = 0.0
                        low[signed] = high[signed] = sign if by_value \
                            else sign - spans[signed, 0]
                        mass[base[signed] + low[signed]] = weight
                    for j in range(k):  # a field of one value is shown as it is
                        if low[j] == high[j]:
                            state[graded[j]] = spans[j, 0] + low[j]
                    while True:  # every way the stage goes, the tables grown when full
                        status = fight.solver_paths(plan, state, child, path, mass, low,
                                                    high, shift, base, view, done, least,
                                                    graded)
                        if status == FULL_LIVE:
                            count = view[7]  # played entries dropped; grown if need be
                            live = states.rebuilt(live, max(len(live[0]),
                                                            4 * (count[0] - count[1])), width)
                            view = unowned(live)
                        elif status == FULL_ENDED:
                            ended = states.rebuilt(ended, 2 * len(ended[0]), width)
                            done = unowned(ended)
                        elif status:
                            return status, most, stages, ended
                        else:
                            break
                    if mixing:
                        mix(path, mixed, whole(0))
            stages += 1
            named = max(cores[0, rounds], 1) if rounds >= 0 else stages  # the stage's round
            played[0][0, 0] = cores[0, 0]  # the owners of the views, alive to here (the
            buffers[0][0] = state[0]       # views are not read past this)
            owned_base[0] = base[0]
            if k:
                owned_spans[0, 0] = spans[0, 0]
                owned_graded[0] = graded[0]
            count = view[7]
            most = max(most, count[0] - count[1])
            if count[0] - count[1] > max_states:
                return TOO_MANY, count[0] - count[1], named, ended

    @_own(fight, cache=True)
    def rows(plan, states):
        plan = unowned(plan)
        out = np.zeros((fight.columns(plan), len(states)), np.int32)
        for t in range(len(states)):
            fight.row(plan, states[t], out, t)
        return out

    return walk, rows


@njit(cache=True, inline="always")
def _each_its_own(plan, state, first, last, classes, chances):
    for v in range(first, last + 1):
        classes[v - first] = v
    return 0


@njit(cache=True, inline="always")
def _met(classes, i):
    """Whether the class of value i was met at an earlier value."""
    for j in range(i):
        if classes[j] == classes[i]:
            return True
    return False


@njit(cache=True, inline="always")
def _after(clock, least):
    """A state's clock: the rule text's, or where it has none (-1: every stage takes every
    fight one step) one past the stage's."""
    return least + 1 if clock < 0 else clock


@njit(cache=True, inline="always")
def _evenly(plan, state):
    return -1


def _signs(fight) -> bool:
    """Whether the rule text has a signed field (read only by its sign, :func:`solve`)."""
    return getattr(fight, "SIGNED", None) is not None


OUTSIDE, BOTH, STALLED, TOO_MANY, FULL_LIVE, FULL_ENDED, WIDE = range(1, 8)  # the walk's status
WHY = {OUTSIDE: "a stage moved a graded field outside its span (the rule text's spans)",
       BOTH: "a rule text may have tallies or a signed field, not both",
       STALLED: "a stage did not advance the fight's clock"}


def solve(compiled, fight, plan, max_states: int):
    """The exact outcome rows and their probabilities: ``(rows (columns, m), weights (m,),
    most live states)``, walking stage by stage from the state before the fight with the
    ``compiled`` parts of the rule text ``fight`` (:func:`solver`), all in one compiled
    call. Raises :class:`odds.core.exact.TooManyStates` beyond ``max_states`` live states,
    :class:`odds.core.exact.TooWide` when a state field leaves 16 bits.

    Equal states met at the same stage are one entry of the walk's table
    (:mod:`odds.core.states`); each stage advances only the states whose ``fight.clock`` is
    least, the others wait, so that when stages take fights unevenly far equal states still
    meet. **Graded fields** are kept apart from the state, as distributions given the rest
    of it (so they multiply no states):

    - ``fight.TALLIES`` (or ``fight.tallies(plan)``), fields that stages only add to and
      never read (e.g. failed saves so far). That is all the solver's contract asks
      (:mod:`odds.core.exact`: each column's distribution, per winner): an ended state's
      tallies are paired by quantile;
    - ``fight.SIGNED``, a field that stages add to and read only by its sign where
      ``fight.reads_sign(plan, state)`` (e.g. the round's lead in wounds, read at the
      round's end): there the state is played once for each sign, with that sign's mass; a
      stage may set the field only once it has been read (it is then one value). With
      ``fight.BY_VALUE`` true it is read by its value: the state is played once for each
      class of the values it may have, at the class's first value with the class's mass
      (whfb8's combat result, whose margin the break tests read only so far). The rule text
      names the classes with ``fight.lead_classes(plan, state, first, last, classes,
      chances)``: classes[v - first], a whole number, for each value v from first to last
      (by default each value its own). Values of one class play the rest of the stage
      alike, but where chances[v - first, 0] >= 0: the stage's first pick (e.g. a break
      test on the margin) then has chances[v - first, :m] at v (m, the count it returns,
      at most :data:`odds.core.dice.MOST_MIXED`), and the class is played once with each
      value's chances weighted by its share of the class (:func:`odds.core.dice.mix`).

    A rule text with graded fields gives their spans, ``fight.spans(plan)``: (fields, 2)
    lowest and highest values, tallies first."""
    walk, rows = compiled
    with _scalar(opt=1):
        status, most, stages, ended = walk(plan, max_states)
        return _outcomes(status, most, stages, ended, fight, plan, rows, max_states)


def _outcomes(status, most, stages, ended, fight, plan, rows, max_states):
    """The walk's ended states as :func:`solve` returns them."""
    if status == TOO_MANY:
        raise TooManyStates(most, max_states, stages)
    if status == WIDE:
        raise TooWide()
    if status:
        raise RuntimeError(f"the exact walk stopped: {WHY[status]}")
    if fight.TALLIED:
        states_, weights = states.paired(ended, _lows(fight, plan), fight.tallies(plan))
    else:
        states_, weights = states.unpacked(ended[0][:ended[7][0]]), states.one_masses(ended)
    kept = weights > 0.0
    ways, way = _distinct(rows(plan, states_[kept]))  # states that end alike: one row
    return ways, np.bincount(way, weights=weights[kept], minlength=ways.shape[1]), most


def _distinct(table):
    """The distinct columns of ``table`` (columns, m), in lexicographic order, and which of
    them each column is: ``np.unique(table.T, axis=0)`` by a lexsort of the rows (numpy's
    compares of whole rows as bytes took four fifths of a solve's time after the walk)."""
    order = np.lexsort(table[::-1])
    ordered = table[:, order]
    new = np.ones(len(order), np.bool_)
    new[1:] = (ordered[:, 1:] != ordered[:, :-1]).any(axis=0)
    way = np.empty(len(order), np.int64)
    way[order] = np.cumsum(new) - 1
    return ordered[:, new], way


def _lows(fight, plan):
    """Each graded field's lowest value."""
    return np.asarray(fight.spans(plan), np.int64)[:, 0].copy()


@njit(cache=True, inline="always")
def clear(state):
    """Every field of ``state`` to 0 (a rule text's ``begin``): a plain loop, which numba
    compiles to a few stores where ``state[:] = 0`` goes through its general slice code."""
    for i in range(len(state)):
        state[i] = 0


@njit(cache=True, _nrt=False, forceinline=True)
def how_beaten(state, first, units):
    """How a side left with no unit in the fight lost (a rule text's ending), from its
    units' fates, kept together at state[first:first + units]: fled if any unit fled, else
    caught if any was caught, else destroyed."""
    end = DESTROYED
    for u in range(units):
        fate = state[first + u]
        if fate == UNIT_FLED:
            return FLED
        if fate == UNIT_CAUGHT:
            end = CAUGHT
    return end


@contextmanager
def _scalar(opt=None):
    """Loop and SLP vectorizing off while a rule text compiles (numba reads them when it
    optimizes each function): its loops run over a few groups or units, where vector code
    (masked gathers) was 10-25% slower, and compiling it costs a sixth more. ``opt``: LLVM's
    optimization level meanwhile (the solver's walk: 1 compiles a sixth faster than 3, and
    solved as fast)."""
    saved = config.LOOP_VECTORIZE, config.SLP_VECTORIZE, config.OPT
    config.LOOP_VECTORIZE = config.SLP_VECTORIZE = 0
    if opt is not None:
        config.OPT = type(config.OPT)(opt)
    try:
        yield
    finally:
        config.LOOP_VECTORIZE, config.SLP_VECTORIZE, config.OPT = saved


def play_in_threads(play_trials, plan, seed, first_trial, out):
    """Play trials first_trial .. first_trial + out.shape[1] - 1 into out, the columns split
    into one slice per thread (``numba.get_num_threads()``), each a GIL-free ``play_trials``
    call. Each trial's stream comes from (seed, trial), so the split changes no number.
    Not ``prange``: a thread pool over one plain compiled loop compiles in a fraction of the
    time at the same speed (benchmarks/cold_start.py)."""
    n = out.shape[1]
    with _scalar():  # compiled here (or loaded from the cache), before any thread plays
        play_trials(plan, seed, first_trial, out, 0, 0)
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
