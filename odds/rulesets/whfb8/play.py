"""The whfb8 kernels' one entry: a plan of several units or heroes (compile_units.UnitsPlan)
is played by kernel_units, a plan of one unit a side by kernel."""
from __future__ import annotations

from odds.rulesets.whfb8 import kernel, kernel_units
from odds.rulesets.whfb8.compile_units import UnitsPlan


def entry(plan):
    """The compiled function that plays ``plan``."""
    return kernel_units.entry(plan) if isinstance(plan, UnitsPlan) else kernel.entry(plan)


def variant(plan) -> str:
    """The compiled variant :func:`entry` picks, in words (for the compile notice)."""
    return kernel_units.variant(plan) if isinstance(plan, UnitsPlan) else kernel.variant(plan)


def play_chunk(plan, seed, first_trial, out):
    """Play trials first_trial .. first_trial + out.shape[1] - 1 into out."""
    entry(plan)(plan, seed, first_trial, out)
