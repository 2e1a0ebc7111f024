"""The exact solver's shared part: dice as probability vectors, merging fight states, the
state bound, and folding a ruleset's solved outcome rows into a :class:`Tally` of masses.

A ruleset that solves fights exactly names a module (``Ruleset.exact``) with

- ``covers(plan) -> str | None``: None when the solver plays every rule the compiled
  scenario ``plan`` uses, else the reason it cannot (e.g. "several units a side");
- ``solve(plan, max_states) -> (rows, weights, states)``: outcome rows in the kernel's
  columns (columns x m integers) with their probabilities (m floats, summing to 1), such
  that their weighted histograms -- (winner, end, rounds), and per winner each other
  column -- are the fight's exact distributions (what a :class:`Tally` keeps); usually each
  row is one way a fight ends, as the kernel writes it (a rule text's tallies are paired by
  rank instead, :func:`odds.core.walk.solve`). ``states`` is the most fight states
  the walk held at once. It walks the distribution of fight states round by round from the
  same compiled plan the kernel reads, merging equal states (:func:`merge`), and raises
  :class:`TooManyStates` (through :func:`check_states`) when it would hold more than
  ``max_states``;
- optionally ``MAX_STATES``: its default bound, where its states are heavier than most.

Fights still live after ``max_rounds`` end as (none, unresolved, max_rounds), as in the kernel.
"""
from __future__ import annotations

import importlib
from functools import lru_cache

import numpy as np
from numba import njit

from odds.core.tally import Tally

MAX_STATES = 10**6  # default bound on the live fight states of one round

D6 = np.full(6, 1 / 6)  # faces 1..6 at index 0..5


def dice_sum(n: int, sides: int = 6) -> np.ndarray:
    """P(sum of ``n`` dice = t) at index t (0 .. n * sides)."""
    return _dice_sum(n, sides).copy()


@lru_cache(maxsize=None)
def _dice_sum(n: int, sides: int) -> np.ndarray:
    out = np.zeros(1)
    out[0] = 1.0
    face = np.concatenate([[0.0], np.full(sides, 1 / sides)])
    for _ in range(n):
        out = np.convolve(out, face)
    return out


def drop_lowest(n: int, sides: int = 6) -> np.ndarray:
    """P(sum of the highest n - 1 of ``n`` dice = t) at index t (e.g. 3D6 drop lowest)."""
    return _keep(n, sides, highest=True).copy()


def drop_highest(n: int, sides: int = 6) -> np.ndarray:
    """P(sum of the lowest n - 1 of ``n`` dice = t) at index t (e.g. 3D6 drop highest)."""
    return _keep(n, sides, highest=False).copy()


@lru_cache(maxsize=None)
def _keep(n: int, sides: int, highest: bool) -> np.ndarray:
    out = np.zeros((n - 1) * sides + 1)
    faces = np.indices((sides,) * n).reshape(n, -1) + 1
    kept = faces.sum(axis=0) - (faces.min(axis=0) if highest else faces.max(axis=0))
    np.add.at(out, kept, sides ** -n)
    return out


def p_ge(dist: np.ndarray, x: float) -> float:
    """P(roll >= x) for a distribution indexed by the roll's value."""
    t = np.arange(len(dist))
    return float(dist[t >= x].sum())


def p_gt(dist: np.ndarray, x: float) -> float:
    """P(roll > x)."""
    t = np.arange(len(dist))
    return float(dist[t > x].sum())


def p_le(dist: np.ndarray, x: float) -> float:
    """P(roll <= x)."""
    return 1.0 - p_gt(dist, x)


@njit(cache=True)
def binomial_pmf(n, p):
    """P(k successes of ``n`` tries at ``p``), k = 0 .. n, by the same recurrence as the
    kernels' tables (:mod:`odds.core.binomial`), so it is exact to rounding for any n."""
    pmf = np.zeros(n + 1)
    pmf[0] = 1.0
    for m in range(1, n + 1):
        for k in range(m, 0, -1):
            pmf[k] = pmf[k] * (1 - p) + pmf[k - 1] * p
        pmf[0] *= 1 - p
    return pmf


@njit(cache=True)
def merge(keys, probs):
    """Equal fight states as one: the distinct ``keys`` (sorted) and their summed ``probs``;
    states of zero probability are dropped."""
    order = np.argsort(keys, kind="mergesort")
    out_keys = np.empty(len(keys), keys.dtype)
    out_probs = np.empty(len(keys))
    m = -1
    for i in order:
        if probs[i] == 0.0:
            continue
        if m >= 0 and out_keys[m] == keys[i]:
            out_probs[m] += probs[i]
        else:
            m += 1
            out_keys[m] = keys[i]
            out_probs[m] = probs[i]
    return out_keys[:m + 1], out_probs[:m + 1]


class TooBig(Exception):
    """The fight is too big for the exact solver (``auto`` simulates it)."""


class TooManyStates(TooBig):
    """A round of the exact walk holds more live fight states than the bound allows."""

    def __init__(self, states: int, max_states: int, round: int):
        self.states, self.max_states, self.round = states, max_states, round
        super().__init__(f"exact solving needs more than {max_states:,} fight states "
                         f"(reached {states:,} in round {round})")


class TooWide(TooBig):
    """A fight state holds a number the exact walk's table does not keep (it packs each
    field in 16 bits, :mod:`odds.core.states`)."""

    def __init__(self):
        super().__init__("exact solving keeps every number of a fight state within -32,768 .. "
                         "32,767, and this fight goes past that (e.g. more dice in one roll)")


def check_states(states: int, max_states: int, round: int) -> None:
    """Raise :class:`TooManyStates` when ``states`` exceeds ``max_states``."""
    if states > max_states:
        raise TooManyStates(states, max_states, round)


def module(ruleset):
    """The ruleset's exact-solver module, or None when it has none."""
    return importlib.import_module(ruleset.exact) if ruleset.exact else None


def covers(ruleset, scenario, plan=None) -> str | None:
    """None when ``ruleset``'s exact solver plays every rule ``scenario`` uses, else why not.
    ``plan``: the scenario compiled, where the caller has it (else it is compiled here)."""
    solver = module(ruleset)
    if solver is None:
        return f"the {ruleset.id} ruleset has no exact solver"
    return solver.covers(ruleset.compile(scenario) if plan is None else plan)


def default_bound(ruleset) -> int:
    """The state bound when none is given: the ruleset solver's own, else :data:`MAX_STATES`."""
    return getattr(module(ruleset), "MAX_STATES", MAX_STATES)


def solve(ruleset, plan, columns: tuple[str, ...], max_states: int | None = None) -> Tally:
    """The exact distribution of the fight's outcome record as a :class:`Tally` of
    probabilities (``tally.exact``; ``tally.states`` is the most states the walk held).
    ``max_states``: default :func:`default_bound`."""
    bound = default_bound(ruleset) if max_states is None else max_states
    rows, weights, states = module(ruleset).solve(plan, bound)
    tally = Tally(columns, exact=True)
    if len(weights):
        tally.add(np.asarray(rows), np.asarray(weights, float))
    tally.states = int(states)
    return tally
