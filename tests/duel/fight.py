"""duel's rule text, once for the kernel and the exact solver (D-1 ... D-3): a law per
fighter (does his strike this round take a wound?), one stage per round, one row writer."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from odds.core.dice import laws, pick
from odds.core.outcome import ATTACKER, COLUMNS as SHARED, DEFENDER, DESTROYED, MUTUAL, NONE, \
    UNRESOLVED
from odds.core.walk import clear

from duel.rules import SIDES, hit_score, weapons

OVER, WINNER, END, ROUNDS, TAKEN = 0, 1, 2, 3, 4  # the state's fields; TAKEN: one a side
FIELDS = 6
COLUMNS = len(SHARED)  # the shared columns only
TALLIES = ()           # every field is read by the rules


class Plan(NamedTuple):
    wounds: np.ndarray   # (2,) each fighter's W
    strike: np.ndarray   # (2, 3, 2) the law of each fighter's strike: 0 or 1 wound (D-1, D-2)
    charger: int         # 0 the attacker, 1 the defender: strikes first in round 1 (D-1)
    max_rounds: int


def compile_plan(scenario) -> Plan:
    table = weapons(scenario)
    groups = [scenario.side(key).models[0] for key in SIDES]
    chance = []
    for s in range(2):
        hit = (7 - hit_score(groups[s], table)) / 6
        unsaved = (groups[1 - s].profile["save"] - 1) / 6
        chance.append([1 - hit * unsaved, hit * unsaved])
    return Plan(wounds=np.array([g.profile["W"] for g in groups], np.int64),
                strike=laws(np.array(chance)),
                charger=SIDES.index(scenario.engagement["charger"]),
                max_rounds=int(scenario.simulation["max_rounds"]))


@njit(cache=True, inline="always")
def begin(plan, state):
    clear(state)
    state[WINNER] = NONE
    state[END] = UNRESOLVED


@njit(cache=True, inline="always")
def stage(plan, dice, state):
    """One round: both strike at once, the charger first in round 1 (D-1, D-2), then who is
    down (D-3)."""
    state[ROUNDS] += 1
    for k in range(2):
        s = plan.charger if k == 0 else 1 - plan.charger
        if k == 1 and state[ROUNDS] == 1 and state[TAKEN + s] >= plan.wounds[s]:
            break  # D-1: taken down by the charger before striking back
        state[TAKEN + 1 - s] += pick(dice, plan.strike[s])
    down0 = state[TAKEN] >= plan.wounds[0]
    down1 = state[TAKEN + 1] >= plan.wounds[1]
    if down0 or down1:
        state[OVER] = 1
        state[WINNER] = NONE if down0 and down1 else (DEFENDER if down0 else ATTACKER)
        state[END] = MUTUAL if down0 and down1 else DESTROYED
    elif state[ROUNDS] >= plan.max_rounds:
        state[OVER] = 1


@njit(cache=True, inline="always")
def row(plan, state, out, t):
    out[0, t] = state[WINNER]
    out[1, t] = state[END]
    out[2, t] = state[ROUNDS]
    for s in range(2):
        out[3 + s, t] = state[TAKEN + s] >= plan.wounds[s]
        out[5 + s, t] = state[TAKEN + s]
