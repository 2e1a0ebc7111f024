"""A toy rule text with a signed field, for the exact walk (tests/test_rule_text_core.py):
each round three dice add +1 or -1 to the round's lead (the plan is that law); at the
round's end the lead is read by its sign (a round won, lost or drawn) and cleared; after
ROUNDS rounds the row is the rounds won and the rounds lost."""
from __future__ import annotations

import numpy as np
from numba import njit

from odds.core.dice import pick, replaying
from odds.core.walk import clear

OVER, STEP, LEAD, WON, LOST = range(5)
FIELDS, COLUMNS, TALLIES, SIGNED = 5, 2, (), LEAD
ROUNDS, DICE = 2, 3


@njit(cache=True, inline="always")
def begin(plan, state):
    clear(state)


@njit(cache=True)
def stage(plan, dice, state):
    while not state[OVER]:
        if state[STEP] % (DICE + 1) < DICE:
            state[LEAD] += 2 * pick(dice, plan) - 1
        else:
            state[WON] += state[LEAD] > 0
            state[LOST] += state[LEAD] < 0
            state[LEAD] = 0
        state[STEP] += 1
        state[OVER] = state[STEP] == ROUNDS * (DICE + 1)
        if replaying(dice):
            return


@njit(cache=True)
def clock(plan, state):
    return state[STEP]


@njit(cache=True)
def reads_sign(plan, state):
    return state[STEP] % (DICE + 1) == DICE


@njit(cache=True)
def spans(plan):
    out = np.zeros((1, 2), np.int64)
    out[0, 0], out[0, 1] = -DICE, DICE
    return out


@njit(cache=True)
def row(plan, state, out, t):
    out[0, t] = state[WON]
    out[1, t] = state[LOST]
