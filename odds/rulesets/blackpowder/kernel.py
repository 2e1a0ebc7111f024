"""The blackpowder kernel: plays whole fights by the rule text (fight.py), drawing each law
with one random number, one outcome row per fight. Checked against tests/naive_blackpowder.py.

The rule text is compiled in variants: one for a unit a side (fight.known: its loops over
the units unrolled), one for any number of units, each compiled on its first use."""
from __future__ import annotations

from odds.core import walk
from odds.rulesets.blackpowder import fight


def variant(plan) -> str:
    """The variant's name, for the compile notice."""
    return "one unit a side" if _sizes(plan) else "several units a side"


def _sizes(plan):
    return (2,) if plan.units == 2 else None


entry = walk.variants(fight, _sizes)  # the plan's variant, compiled on its first use


def play_chunk(plan, seed, first_trial, out):
    """Play trials first_trial .. first_trial + out.shape[1] - 1 into out (10 columns, and
    each unit's with several units a side)."""
    walk.play_in_threads(entry(plan), plan, seed, first_trial, out)
