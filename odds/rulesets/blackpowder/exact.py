"""The blackpowder exact solver: the rule text (fight.py) replayed once for every way each
stage can go, from the same compiled plan the kernel reads; the walk and its state table are
odds.core.walk's."""
from __future__ import annotations

from odds.core import walk
from odds.rulesets.blackpowder import fight

COMPILED = walk.solver(fight)


def covers(plan) -> str | None:
    """Every rule the blackpowder kernel plays is solved exactly: one unit a side (all the
    ruleset takes), every reaction, special rule, support and modifier."""
    return None


def solve(plan, max_states: int = 10**6):
    """(rows, weights, most live states): see :mod:`odds.core.exact`."""
    return walk.solve(COMPILED, fight, plan, max_states)
