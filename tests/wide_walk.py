"""A toy rule text whose fights count past 16 bits, for the exact walk's refusal
(tests/test_rule_text_core.py): each stage adds 20,000 or 40,000 (the plan is that law) to
a count, until it passes 60,000; the row is whether it ended on 80,000 or more."""
from __future__ import annotations

from numba import njit

from odds.core.dice import pick
from odds.core.walk import clear

OVER, COUNT = 0, 1
FIELDS, COLUMNS, TALLIES = 2, 1, ()


@njit(cache=True, inline="always")
def begin(plan, state):
    clear(state)


@njit(cache=True, inline="always")
def stage(plan, dice, state):
    state[COUNT] += 20_000 * (1 + pick(dice, plan))
    state[OVER] = state[COUNT] > 60_000


@njit(cache=True, inline="always")
def row(plan, state, out, t):
    out[0, t] = state[COUNT] >= 80_000
