"""The wh40k3 exact solver: the rule text (fight.py) replayed once for every way each stage
can go, from the same compiled plan the kernel reads; the walk and its state table are
odds.core.walk's. Every rule R0-1 ... R0-16 is solved, one unit a side or several."""
from __future__ import annotations

from odds.core import walk
from odds.rulesets.wh40k3 import fight

COMPILED = walk.solver(fight)
# The live states the walk may hold (every stage's, those waiting for the next included);
# past about 70,000 it takes longer than simulating to a 0.1-point half-width (three units
# against a mob of Nobz: 19,560 states, 0.4 s against 0.9 s simulated; the bundled two
# squads against a mob: 280,214, 10 s). max_states lets a bigger fight be solved anyway.
MAX_STATES = 70_000


def covers(plan) -> str | None:
    """None: the solver plays every rule the wh40k3 kernel plays, one unit a side or several
    (R0-1 ... R0-16)."""
    return None


def solve(plan, max_states: int):
    """(rows, weights, most live states): see :mod:`odds.core.exact`."""
    return walk.solve(COMPILED, fight, plan.packed, max_states)
