"""The d10skirmish kernel: plays whole fights by the rule text (fight.py for one fighter a
side, gang.py for a gang), drawing each exchange's wounds with one random number (or its dice
one by one, for an exchange too large to tabulate), one outcome row per fight. Checked
against tests/naive_d10skirmish.py and tests/naive_d10skirmish_gang.py.

The gang's rule text is compiled in variants: for a fight of at most ``MOST_FIGHTERS``
fighters one for their number (gang.known: its loops over the fighters unrolled, 13-14%
faster), each compiled on its first use; for more fighters one for any number."""
from __future__ import annotations

import numpy as np
from numba import njit

from odds.core import walk
from odds.core.rng import d10, seed_stream
from odds.rulesets.d10skirmish import fight, gang
from odds.rulesets.d10skirmish.compile import Gang
from odds.rulesets.d10skirmish.exchange import SHIFT, resolve

MOST_FIGHTERS = 4

play_trials = walk.kernel(fight)  # the compiled loop over trials, one thread's share


def _sizes(plan):
    return (plan.n,) if plan.n <= MOST_FIGHTERS else None


play_gang = walk.variants(gang, _sizes)  # a gang's variant, compiled on its first use


def variant(plan) -> str:
    """The variant's name, for the compile notice."""
    if not isinstance(plan, Gang):
        return "one fighter a side"
    return f"gangs of {plan.n} fighters" if _sizes(plan) else "gangs of any size"


def entry(plan):
    """The compiled loop over trials of the plan's rule text (and variant)."""
    return play_gang(plan) if isinstance(plan, Gang) else play_trials


def play_chunk(plan, seed, first_trial, out):
    """Play trials first_trial .. first_trial + out.shape[1] - 1 into out (9 columns, and
    each fighter's with a side of several)."""
    walk.play_in_threads(entry(plan), plan, seed, first_trial, out)


@njit(cache=True)
def _roll(st, n):
    """n D10s, packed by face."""
    packed = 0
    for _ in range(n):
        packed += 1 << (SHIFT * d10(st))
    return packed


@njit(cache=True)
def tally_exchanges(plan, active, answer, trials, seed, counts):
    """Add ``trials`` exchanges to ``counts[crits 0, hits 0, crits 1, hits 1, blocked]``: side
    ``active`` rolls its attacks, the other ``answer`` dice (R3-4 ... R3-7). One stream."""
    st = np.empty(4, np.uint64)
    seed_stream(st, seed, 0)
    for _ in range(trials):
        dice_active = _roll(st, plan.attacks[active])
        dice_answer = _roll(st, answer)
        r0, r1 = (dice_active, dice_answer) if active == 0 else (dice_answer, dice_active)
        c0, h0, c1, h1, b = resolve(r0, r1, plan.skill[0], plan.skill[1], plan.adjust[0],
                                    plan.adjust[1], plan.adjust_blocks[0], plan.adjust_blocks[1],
                                    active, plan.crit_blockable, plan.create_crit)
        counts[c0, h0, c1, h1, b] += 1
