"""The mordheim exact solver: the rule text (fight.py) replayed once for every way each stage
can go, from the same compiled plan the kernel reads; the walk and its state table are
odds.core.walk's. The counts (wounds, knocked-down and stunned results, parries, criticals)
are tallies: each state carries their distributions, so they multiply no states."""
from __future__ import annotations

from odds.core import walk
from odds.rulesets.mordheim import fight

COMPILED = walk.solver(fight)
# each state carries its ten counts' distributions over every value they could reach in
# max_rounds rounds (about 1,300 numbers for three against two): 20,000 states is about 1 GB
MAX_STATES = 20_000


def covers(scenario) -> str | None:
    """None: the solver plays every rule the kernel plays (R1-1 ... R1-12)."""
    return None


def solve(plan, max_states: int):
    """(rows, weights, most live states): see :mod:`odds.core.exact`."""
    return walk.solve(COMPILED, fight, plan, max_states)
