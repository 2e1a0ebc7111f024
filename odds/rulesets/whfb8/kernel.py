"""The whfb8 kernel: plays whole combats by the rule text (fight.py), one outcome row per
fight, one unit a side or several, with characters and champions. Checked against
tests/naive_whfb8.py and tests/naive_whfb8_units.py.

The rule text is compiled in variants: for a plan of at most ``MOST_BODIES`` bodies (units
and heroes) and ``MOST_UNITS`` units a side, one for its sizes and whether it has rare rules
(fight.known: its loops over bodies and units unrolled or gone, and the rare rules' steps
too where it has none: 1.06-1.10x), and for one unit a side without heroes its number of
strikers too (loops over them unrolled, its tables' places constants: 1.05-1.20x; only
there, as it would multiply the variants of bigger fights), each compiled on its first use;
for bigger plans one for any size."""
from __future__ import annotations

from odds.core import walk
from odds.rulesets.whfb8 import fight

MOST_BODIES, MOST_UNITS = 4, 2


def variant(plan) -> str:
    """The variant's name, for the compile notice."""
    sizes = _sizes(plan)
    if sizes is None:
        return "any number of units, characters and champions"
    bodies, units, rare_rules, strikers = sizes
    heroes = bodies - units
    return (f"{units} unit{'s' if units > 1 else ''} and {heroes} "
            f"character{'s' if heroes != 1 else ''} or champion{'s' if heroes != 1 else ''}"
            f" a side" + (f", {strikers} strikers" if strikers else "")
            + (", with rare rules" if rare_rules else ""))


def _sizes(plan):
    bodies, units = plan.packed.G, plan.packed.U
    if bodies > MOST_BODIES or units > MOST_UNITS:
        return None
    return bodies, units, rare(plan), plan.packed.L if bodies == 1 else 0


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
    walk.play_in_threads(entry(plan), plan.packed, seed, first_trial, out)
