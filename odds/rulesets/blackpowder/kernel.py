"""The blackpowder kernel: plays whole fights by the rule text (fight.py), drawing each law
with one uniform, one outcome row per fight. Checked against tests/naive_blackpowder.py."""
from __future__ import annotations

import numpy as np
from numba import njit

from odds.core.rng import seed_stream
from odds.core.walk import OVER, play_in_threads, unowned
from odds.rulesets.blackpowder import fight


@njit(cache=True, nogil=True)
def play_trials(plan, seed, first_trial, out, start, stop):
    """Play the chunk's trials start .. stop - 1 into out[:, start:stop] (one thread)."""
    plan = unowned(plan)
    st = np.empty(4, np.uint64)
    state = np.empty(fight.FIELDS, np.int64)
    for t in range(start, stop):
        seed_stream(st, seed, first_trial + t)
        fight.begin(plan, state)
        while not state[OVER]:
            fight.stage(plan, st, state)
        fight.row(plan, state, out, t)


def play_chunk(plan, seed, first_trial, out):
    """Play trials first_trial .. first_trial + out.shape[1] - 1 into out (10, n)."""
    play_in_threads(play_trials, plan, seed, first_trial, out)
