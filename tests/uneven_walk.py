"""A toy rule text whose stages take fights unevenly far, for the exact walk's clock
(tests/test_rule_text_core.py): a fight steps 1 or 2 (the plan is that law) until it reaches
GOAL; the row is the last step's length less one."""
from __future__ import annotations

from numba import njit

from odds.core.dice import pick
from odds.core.walk import clear

OVER, AT, LAST = 0, 1, 2
FIELDS, COLUMNS, TALLIES = 3, 1, ()
GOAL = 12


@njit(cache=True, inline="always")
def begin(plan, state):
    clear(state)


@njit(cache=True, inline="always")
def stage(plan, dice, state):
    state[LAST] = pick(dice, plan)
    state[AT] += 1 + state[LAST]
    if state[AT] >= GOAL:
        state[OVER] = 1
        state[AT] = GOAL


@njit(cache=True, inline="always")
def clock(plan, state):
    return state[AT]


@njit(cache=True, inline="always")
def row(plan, state, out, t):
    out[0, t] = state[LAST]
