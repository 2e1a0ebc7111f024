"""The whfb8 kernel: plays whole combats by the rule text (fight.py), one outcome row per
fight, one unit a side or several, with characters and champions. Checked against
tests/naive_whfb8.py and tests/naive_whfb8_units.py. A fight of one unit a side without
characters or champions is played by kernel_one.py until the rule text plays it as fast
(issue 27).

The rule text is compiled in variants: for a plan of at most ``MOST_BODIES`` bodies (units
and heroes) and ``MOST_UNITS`` units a side, one for its sizes and whether it has rare rules
(fight.known: its loops over bodies and units unrolled or gone, and the rare rules' steps
too where it has none: 1.06-1.10x), each compiled on its first use; for bigger plans one for
any size."""
from __future__ import annotations

from odds.core import walk
from odds.rulesets.whfb8 import fight, kernel_one

MOST_BODIES, MOST_UNITS = 4, 2


def variant(plan) -> str:
    """The variant's name, for the compile notice."""
    if plan.one_unit is not None:
        return kernel_one.variant(plan.one_unit)
    sizes = _sizes(plan)
    if sizes is None:
        return "any number of units, characters and champions"
    bodies, units, rare_rules = sizes
    heroes = bodies - units
    return (f"{units} unit{'s' if units > 1 else ''} and {heroes} "
            f"character{'s' if heroes != 1 else ''} or champion{'s' if heroes != 1 else ''}"
            f" a side" + (", with rare rules" if rare_rules else ""))


def _sizes(plan):
    bodies, units = plan.packed.G, plan.packed.U
    return (bodies, units, rare(plan)) if bodies <= MOST_BODIES and units <= MOST_UNITS else None


def rare(plan) -> int:
    """1 if the plan has a rule whose steps a variant without them leaves out (the rule text's
    ``plan.X``): attacks or hits rolled, Multiple Wounds, Killing Blow, Unstable, Daemonic
    Instability, Strength in Numbers."""
    if plan.rolls or plan.multiplies:
        return 1
    v = plan.tables
    return int(any(v[k].any() for k in ("p_slay", "unstable", "daemonic",
                                         "strength_in_numbers")))


entry = walk.variants(fight, _sizes)  # the plan's variant, compiled on its first use


def play_chunk(plan, seed, first_trial, out):
    """Play trials first_trial .. first_trial + out.shape[1] - 1 into out (columns, n)."""
    if plan.one_unit is not None:
        kernel_one.play_chunk(plan.one_unit, seed, first_trial, out)
    else:
        walk.play_in_threads(entry(plan), plan.packed, seed, first_trial, out)
