"""duel's kernel: the core's loop over the rule text (fight.py)."""
from odds.core import walk

from duel import fight

play_trials = walk.kernel(fight)


def play_chunk(plan, seed, first_trial, out):
    """Play trials first_trial .. first_trial + out.shape[1] - 1 into out."""
    walk.play_in_threads(play_trials, plan, seed, first_trial, out)
