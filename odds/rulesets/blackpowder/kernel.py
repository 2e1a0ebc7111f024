"""The blackpowder kernel: plays whole fights by the rule text (fight.py), drawing each law
with one random number, one outcome row per fight. Checked against tests/naive_blackpowder.py."""
from __future__ import annotations

from odds.core import walk
from odds.rulesets.blackpowder import fight

play_trials = walk.kernel(fight)  # the compiled loop over trials, one thread's share


def play_chunk(plan, seed, first_trial, out):
    """Play trials first_trial .. first_trial + out.shape[1] - 1 into out (10, n)."""
    walk.play_in_threads(play_trials, plan, seed, first_trial, out)
