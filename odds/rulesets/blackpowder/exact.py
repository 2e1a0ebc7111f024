"""The blackpowder exact solver: the rule text (fight.py) replayed once for every way each
stage can go, from the same compiled plan the kernel reads; the walk and its state table are
odds.core.walk's."""
from __future__ import annotations

import numpy as np
from numba import njit

from odds.core import walk
from odds.core.dice import chance, new_path, next_path
from odds.core.outcome import COLUMNS
from odds.rulesets.blackpowder import fight

N_COLUMNS = len(COLUMNS) + 3


def covers(scenario) -> str | None:
    """Every rule the blackpowder kernel plays is solved exactly: one unit a side (all the
    ruleset takes), every reaction, special rule, support and modifier."""
    return None


def solve(plan, max_states: int = 10**6):
    """(rows, weights, most live states): see :mod:`odds.core.exact`."""
    start = np.empty(fight.FIELDS, np.int64)
    _begin(plan, start)
    return walk.solve(_leaves, _rows, plan, start, fight.TALLIES, max_states)


@njit(cache=True)
def _begin(plan, state):
    fight.begin(plan, state)


@njit(cache=True)
def _leaves(plan, states, chances):
    """Every way the next stage goes from each state: (states, chances, parents)."""
    plan = walk.unowned(plan)
    out = np.empty((16, states.shape[1]), np.int64)
    p = np.empty(16)
    parent = np.empty(16, np.int64)
    n = 0
    path = new_path()
    for i in range(len(states)):
        more = True
        while more:
            out, p, parent = walk.room(out, p, parent, n)
            out[n] = states[i]
            fight.stage(plan, path, out[n])
            p[n] = chances[i] * chance(path)
            parent[n] = i
            n += 1
            more = next_path(path)
    return out[:n], p[:n], parent[:n]


@njit(cache=True)
def _rows(plan, states):
    """The outcome record of ended states."""
    plan = walk.unowned(plan)
    out = np.zeros((N_COLUMNS, len(states)), np.int32)
    for t in range(len(states)):
        fight.row(plan, states[t], out, t)
    return out
