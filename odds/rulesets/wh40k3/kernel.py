"""The wh40k3 kernel: plays whole close combats by the rule text (fight.py), one outcome row
per fight, one side of one unit or several alike. Checked against tests/naive_wh40k3.py.

It is compiled in variants: for a plan of at most ``MOST_GROUPS`` model groups and
``MOST_UNITS`` units a side, one for its sizes (fight.known: its loops over groups and units
unrolled or gone, 5-25% faster), each compiled on its first use; for bigger plans one for
any size."""
from __future__ import annotations

from odds.core import walk
from odds.rulesets.wh40k3 import fight

MOST_GROUPS, MOST_UNITS = 3, 2


def variant(plan) -> str:
    """The variant's name, for the compile notice."""
    sizes = _sizes(plan)
    if sizes is None:
        return "any number of model groups and units"
    groups, units = sizes
    return (f"{groups} model group{'s' if groups > 1 else ''} and "
            f"{units} unit{'s' if units > 1 else ''} a side")


def _sizes(plan):
    groups, units = plan.packed.G, plan.packed.U
    return (groups, units) if groups <= MOST_GROUPS and units <= MOST_UNITS else None


entry = walk.variants(fight, _sizes)  # the plan's variant, compiled on its first use


def play_chunk(plan, seed, first_trial, out):
    """Play trials first_trial .. first_trial + out.shape[1] - 1 into out (columns, n)."""
    walk.play_in_threads(entry(plan), plan.packed, seed, first_trial, out)
