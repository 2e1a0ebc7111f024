"""The mordheim exact solver: the rule text (fight.py) replayed once for every way each stage
can go, from the compiled plan; the walk and its state table are odds.core.walk's. (The
simulation still plays kernel.py, one die at a time, until the rule text simulates as
fast: issue 28.) The counts (wounds, knocked-down and stunned results, parries, criticals)
are tallies: each state carries their distributions, so they multiply no states."""
from __future__ import annotations

from odds.core import walk
from odds.rulesets.mordheim import fight

COMPILED = walk.solver(fight)
MAX_STATES = 20_000


def covers(scenario) -> str | None:
    """None: the solver plays every rule the kernel plays (R1-1 ... R1-12)."""
    return None


def solve(plan, max_states: int):
    """(rows, weights, most live states): see :mod:`odds.core.exact`."""
    return walk.solve(COMPILED, fight, plan, max_states)
