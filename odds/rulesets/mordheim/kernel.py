"""The mordheim kernel: plays whole close combats by the rule text (fight.py), drawing each
law with one random number, one outcome row per fight. Checked against tests/naive_mordheim.py.

The rule text is compiled in variants: for a fight of at most ``MOST_WARRIORS`` warriors one
for their number (fight.known: its loops over the warriors unrolled), each compiled on its
first use; for more warriors one for any number."""
from __future__ import annotations

from odds.core import walk
from odds.rulesets.mordheim import fight

MOST_WARRIORS = 4


def variant(plan) -> str:
    """The variant's name, for the compile notice."""
    sizes = _sizes(plan)
    return f"{sizes[0]} warriors" if sizes else "any number of warriors"


def _sizes(plan):
    return (plan.warriors,) if plan.warriors <= MOST_WARRIORS else None


entry = walk.variants(fight, _sizes)  # the plan's variant, compiled on its first use


def play_chunk(plan, seed, first_trial, out):
    """Play trials first_trial .. first_trial + out.shape[1] - 1 into out (15, n)."""
    walk.play_in_threads(entry(plan), plan, seed, first_trial, out)
