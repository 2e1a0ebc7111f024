"""The mordheim exact solver: the rule text (fight.py) replayed once for every way each stage
can go, from the same compiled plan the kernel reads; the walk and its state table are
odds.core.walk's. The counts (wounds, knocked-down and stunned results, parries, criticals)
are tallies: each state carries their distributions, so they multiply no states."""
from __future__ import annotations

from odds.core import walk
from odds.rulesets.mordheim import fight

COMPILED = walk.solver(fight)
# each state carries its ten counts' distributions over the values they reached (odds.core.
# states keeps them sparse): 40,000 states is about 0.5 GB, and three against two fits
# (23,000-27,000 states, 11-13 s); three against three (161,000 states, 100 s, 2 GB) does not
MAX_STATES = 40_000


def covers(plan) -> str | None:
    """None: the solver plays every rule the kernel plays (R1-1 ... R1-12)."""
    return None


def solve(plan, max_states: int):
    """(rows, weights, most live states): see :mod:`odds.core.exact`."""
    return walk.solve(COMPILED, fight, plan, max_states)
