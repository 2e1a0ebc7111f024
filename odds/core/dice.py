"""Laws, and the one ``pick`` that reads them for the kernel and for the exact solver.

A ruleset writes each rule once (its ``fight.py``, see ``odds/rulesets/README.md``): every
chance in a fight is a **law**, a table of its outcomes' probabilities compiled into the plan,
and the rule text asks ``pick(dice, law)`` for an outcome's index. What ``dice`` is decides
what ``pick`` does, when numba compiles the call (no run-time branch):

- the kernel passes a trial's random stream (:mod:`odds.core.rng`, 4 x uint64): ``pick``
  draws the outcome from one 64-bit random number, by Walker's alias method: the column
  from its top 32 bits by multiply-shift (bias below m / 2**32 for a law of m outcomes),
  the keep-or-alias test from its low 32 bits (to 2**-32);
- the exact solver passes a **path** (:func:`new_path`, float64): ``pick`` returns the
  path's next outcome and multiplies the path's chance by its probability. The solver replays
  one stage of the rule text once for every path of outcomes (:func:`next_path`), so it meets
  every way the stage can go, each with its probability.

A law is a (3, m) float array: row ``CHANCE`` the outcomes' probabilities (index 0 .. m - 1,
zeros allowed: the solver skips them), rows ``KEPT`` and ``ALIAS`` the alias table.

Two counts whose laws would be too many to tabulate (one per number of dice) have picks of
their own, read the same two ways: :func:`pick_binomial` (how many of n dice succeed, from a
row of :mod:`odds.core.binomial`'s tables) and :func:`pick_until` (how many of n dice are
rolled until the w-th success).
"""
from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import overload

from odds.core.binomial import draw
from odds.core.casts import whole
from odds.core.rng import next_u64, uniform

KEPT, ALIAS, CHANCE = 0, 1, 2  # the rows of a law
MOST_PICKS = 64                # picks one stage of a rule text may make (the solver's paths)
_TO_UNIT_32 = 1.0 / 4294967296.0  # 2**-32: 32 random bits to [0, 1)
MOST_MIXED = 16                # outcomes of a mixed first pick (:func:`mix`) at most
_AT, _DEPTH, _PATH = 1, 2, 3   # a path: chance, picks made, picks fixed, outcomes, ends,
_ENDS = _PATH + MOST_PICKS     # then a mixed first pick: its outcomes' count and chances
_MIXED = _ENDS + MOST_PICKS


def law(probs) -> np.ndarray:
    """The law of outcomes 0 .. m - 1 with probabilities ``probs`` (they sum to 1)."""
    return laws(np.asarray(probs, float)[None, :])[0]


def laws(probs: np.ndarray) -> np.ndarray:
    """One law per row of ``probs`` (..., m) -> (..., 3, m): the alias tables by Vose's
    method. A row of zeros (a state that cannot happen) gets an all-zero law."""
    probs = np.asarray(probs, float)
    out = _aliases(np.ascontiguousarray(probs.reshape(-1, probs.shape[-1])))
    return out.reshape(probs.shape[:-1] + (3, probs.shape[-1]))


@njit(cache=True)
def _aliases(flat):
    n, m = flat.shape
    out = np.zeros((n, 3, m))
    scaled, small, large = np.empty(m), np.empty(m, np.int64), np.empty(m, np.int64)
    for i in range(n):
        _alias(flat[i], out[i], scaled, small, large)
    return out


@njit(cache=True)
def _alias(p, out, scaled, small, large):
    """Vose's alias table of the chances ``p`` into ``out`` (3, m), in plain loops (quick to
    compile); ``scaled``, ``small``, ``large`` are room to work in."""
    m = len(p)
    total = 0.0
    for j in range(m):
        out[CHANCE, j] = p[j]
        total += p[j]
    if total == 0:
        return
    n_small = 0
    n_large = 0
    for j in range(m):
        scaled[j] = p[j] * m / total
        out[ALIAS, j] = j
        if scaled[j] < 1.0:
            small[n_small] = j
            n_small += 1
        else:
            large[n_large] = j
            n_large += 1
    while n_small and n_large:
        n_small -= 1
        n_large -= 1
        j = small[n_small]
        k = large[n_large]
        out[KEPT, j] = scaled[j]
        out[ALIAS, j] = k
        scaled[k] -= 1.0 - scaled[j]
        if scaled[k] < 1.0:
            small[n_small] = k
            n_small += 1
        else:
            large[n_large] = k
            n_large += 1
    for i in range(n_small):
        out[KEPT, small[i]] = 1.0  # what rounding leaves over keeps its own outcome
    for i in range(n_large):
        out[KEPT, large[i]] = 1.0


def pick(dice, law):
    """The index of ``law``'s outcome: drawn (kernel) or replayed (solver); jitted code only."""
    raise TypeError("pick is called from numba-compiled rule text only")


@overload(pick, inline="always")
def _pick(dice, law):
    if isinstance(dice, types.Array) and dice.dtype == types.uint64:
        return _draw
    return _replay


def _draw(dice, law):
    m = law.shape[1]
    r = next_u64(dice)
    j = np.int64(((r >> np.uint64(32)) * np.uint64(m)) >> np.uint64(32))  # the column
    kept = np.int64(r & np.uint64(0xFFFFFFFF)) * _TO_UNIT_32 < law[KEPT, j]
    alias = int(law[ALIAS, j])
    return alias + (j - alias) * kept  # branch-free: kept or alias


def _replay(dice, law):
    if dice[_MIXED] > 0.0 and dice[_AT] == 0:  # the stage's first pick, mixed by the solver
        return _mixed(dice, law.shape[1])
    return _replayed(dice, law[CHANCE], law.shape[1], whole(LAW), whole(0), whole(0),
                     whole(0), 0.0)


@njit(cache=True, _nrt=False)
def _mixed(dice, outcomes):
    """The path's outcome of a first pick mixed by :func:`mix`, in place of a law of
    ``outcomes`` outcomes (those past the mixture's: of chance 0)."""
    m = int(dice[_MIXED])
    if m > outcomes:
        raise ValueError("a mixed first pick has more outcomes than the law the rule text "
                         "picks from")
    return _replayed(dice, dice[_MIXED + 1:_MIXED + 1 + m], m, whole(LAW), whole(0),
                     whole(0), whole(0), 0.0)


LAW, BINOMIAL, UNTIL = 0, 1, 2  # what a replayed pick's chances are read from


@njit(cache=True, _nrt=False)
def _chance(kind, chances, j, m, a, b, n, p):
    """The chance of outcome j of a pick of m outcomes: a law's (``chances``); P(j of n
    succeed) from the binomial table row (offset ``a``, top ``b``, ``chances`` the cdf) or,
    past the table, by formula, the last of m < n + 1 outcomes taking every count from it
    up; or :func:`pick_until`'s (``b`` the success waited for). Nothing is allocated, so
    rule texts compiled without reference counting may replay."""
    if kind == LAW:
        return chances[j]
    if kind == BINOMIAL:
        if j == m - 1 and j < n:  # at least j
            return 1.0 - _below(chances, j, a, b, n, p)
        if n <= b:
            row = a + ((n * (n + 1)) >> 1)
            return chances[row + j] - (chances[row + j - 1] if j > 0 else 0.0)
        return _ways(n, j) * p ** j * (1.0 - p) ** (n - j)
    if j < b:
        return _ways(n, j) * p ** j * (1.0 - p) ** (n - j)
    return _ways(j - 1, b - 1) * p ** b * (1.0 - p) ** (j - b)


@njit(cache=True, _nrt=False)
def _below(cdf, j, offset, top, n, p):
    """P(fewer than j of n succeed)."""
    if j == 0:
        return 0.0
    if n <= top:
        return cdf[offset + ((n * (n + 1)) >> 1) + j - 1]
    out = 0.0
    for k in range(j):
        out += _ways(n, k) * p ** k * (1.0 - p) ** (n - k)
    return out


@njit(cache=True, _nrt=False)
def _replayed(dice, chances, m, kind, a, b, n, p):
    """The path's outcome of its next pick among m outcomes whose chances ``_chance`` reads
    (zeros skipped)."""
    at = int(dice[_AT])
    if at >= MOST_PICKS:
        raise ValueError("a stage of the rule text picks more than MOST_PICKS times")
    if at < dice[_DEPTH]:
        j = int(dice[_PATH + at])
        while _chance(kind, chances, j, m, a, b, n, p) == 0.0:  # the path was advanced past
            j += 1                                              # the last outcome
    else:  # a new pick on this path: its first possible outcome, and where they end
        j = whole(0)  # (not the constant: _chance would be compiled again for it)
        while _chance(kind, chances, j, m, a, b, n, p) == 0.0:
            j += 1
        end = m
        while _chance(kind, chances, end - 1, m, a, b, n, p) == 0.0:
            end -= 1
        dice[_ENDS + at] = end
        dice[_DEPTH] = at + 1
    dice[_PATH + at] = j
    dice[0] *= _chance(kind, chances, j, m, a, b, n, p)
    dice[_AT] = at + 1
    return j


def replaying(dice):
    """Whether ``dice`` is the exact solver's path (decided when numba compiles the call):
    the rule text may then forget what no later stage reads, so that fights alike are one
    state, and stop where a stage must end (e.g. before a field is read by its sign)."""
    raise TypeError("replaying is called from numba-compiled rule text only")


@overload(replaying, inline="always")
def _replaying(dice):
    if isinstance(dice, types.Array) and dice.dtype == types.uint64:
        return lambda dice: False
    return lambda dice: True


@njit(inline="always")
def resumed(dice, state, at):
    """Where a phase's loop over its parts starts: where the solver's last stage stopped in
    it (``state[at]``), or 0 in the kernel, for a loop the kernel always plays from its
    first part (a kernel's stage plays a whole phase). numba then knows where the kernel's
    loop starts, and unrolls it or drops it for a variant's sizes (whfb8's one-unit variant
    about a tenth faster, one run)."""
    return state[at] if replaying(dice) else 0


def picked(dice):
    """Whether ``dice`` is the exact solver's path and has made a pick in this replay
    (decided when numba compiles the call: never in the kernel). A stage of the rule text
    then ends before its next pick, having played on through all that follows its one pick
    surely, so that the solver merges equal states just before each pick."""
    raise TypeError("picked is called from numba-compiled rule text only")


@overload(picked, inline="always")
def _picked(dice):
    if isinstance(dice, types.Array) and dice.dtype == types.uint64:
        return lambda dice: False
    return lambda dice: dice[_AT] > 0


# the counts' implementations loop: numba's own inliner (inline="always") may confuse
# their names with the caller's (NumbaIRAssumptionWarning), so LLVM inlines them instead
_INLINED_BY_LLVM = {"_nrt": False, "forceinline": True}


def pick_binomial(dice, cdf, offset, top, n, p, most):
    """How many of ``n`` dice succeed, each with chance ``p``, counted up to ``most``: the
    row n of the table (``cdf``, ``offset``, ``top``) of :func:`odds.core.binomial.cdf_tables`,
    drawn with one uniform (kernel) or replayed (solver: the counts from ``most`` up are one
    outcome); past ``top`` one uniform a die, or by formula."""
    raise TypeError("pick_binomial is called from numba-compiled rule text only")


@overload(pick_binomial, jit_options=_INLINED_BY_LLVM)
def _pick_binomial(dice, cdf, offset, top, n, p, most):
    if isinstance(dice, types.Array) and dice.dtype == types.uint64:
        return _draw_binomial
    return _replay_binomial


def _draw_binomial(dice, cdf, offset, top, n, p, most):
    return min(draw(dice, cdf, offset, top, n, p), most)


def _replay_binomial(dice, cdf, offset, top, n, p, most):
    return _replayed(dice, cdf, whole(min(n, most) + 1), whole(BINOMIAL), whole(offset),
                     whole(top), whole(n), float(p))


def pick_until(dice, n, p, w):
    """Up to ``n`` dice rolled one at a time, each a success with chance ``p``, until the
    w-th success (w >= 1): the dice rolled when it comes (w .. n), or, when it never
    does, the successes (0 .. w - 1). One uniform a die (kernel), or replayed (solver)."""
    raise TypeError("pick_until is called from numba-compiled rule text only")


@overload(pick_until, jit_options=_INLINED_BY_LLVM)
def _pick_until(dice, n, p, w):
    if isinstance(dice, types.Array) and dice.dtype == types.uint64:
        return _draw_until
    return _replay_until


def _draw_until(dice, n, p, w):
    won = 0
    for rolled in range(1, n + 1):
        won += uniform(dice) < p
        if won == w:
            return rolled
    return won


def _replay_until(dice, n, p, w):
    return _replayed(dice, dice, whole(n + 1), whole(UNTIL), whole(0), whole(w), whole(n),
                     float(p))  # no chances read: the path stands in


@njit(cache=True, _nrt=False)
def _ways(n, k):
    """n choose k, as a float."""
    out = 1.0
    for i in range(min(k, n - k)):
        out = out * (n - i) / (i + 1)
    return out


@njit(cache=True)
def new_path():
    """A solver's path of picks, at its first path (every pick its first outcome)."""
    path = np.zeros(_MIXED + 1 + MOST_MIXED)
    path[0] = 1.0
    return path


@njit(cache=True, _nrt=False, forceinline=True)
def mix(path, chances, m):
    """The solver's path replays its stages' first pick with the chances chances[:m] (a
    mixture, e.g. a class of values read by their value, each value's law weighted by its
    share, :func:`odds.core.walk.solve`) instead of the law the rule text picks from, which
    must have no outcome past the first m (laws are padded with outcomes of chance 0); m =
    0: from the law again."""
    path[_MIXED] = m
    for j in range(m):
        path[_MIXED + 1 + j] = chances[j]


@njit(cache=True, inline="always", _nrt=False)
def chance(path):
    """The probability of the path just replayed."""
    return path[0]


@njit(cache=True, _nrt=False, forceinline=True)
def again(path):
    """Set ``path`` back to the start of the replay just made, to make it once more."""
    path[0] = 1.0
    path[_AT] = 0


@njit(cache=True, _nrt=False, forceinline=True)
def next_path(path):
    """Move to the next path after one replay (the last pick's next outcome, carrying
    leftwards); False when every path has been replayed (the path is then back at its first)."""
    i = int(path[_AT]) - 1
    while i >= 0 and path[_PATH + i] + 1 >= path[_ENDS + i]:
        i -= 1
    if i < 0:  # back to the first path, for the next state
        path[_DEPTH] = 0
        path[_AT] = 0
        path[0] = 1.0
        return False
    path[_PATH + i] += 1
    path[_DEPTH] = i + 1
    path[_AT] = 0
    path[0] = 1.0
    return True
