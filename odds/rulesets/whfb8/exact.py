"""The whfb8 exact solver: the rule text (fight.py) replayed once for every way each stage
can go, from the same compiled plan the kernel reads; the walk and its state table are
odds.core.walk's. One unit a side or several, characters, champions and challenges. A fight
of one unit a side without characters or champions that exact_one.py takes is solved there
until the walk solves it as fast (issue 27)."""
from __future__ import annotations

from odds.core import walk
from odds.rulesets.whfb8 import exact_one, fight

COMPILED = walk.solver(fight)
# The live states the walk may hold (those waiting for others to catch up included); past
# about 70,000 it takes longer than simulating to a 0.1-point half-width (the Chaos Lord's
# Warriors alone: 34,002 states, 1.8 s against 0.62 s on a slow day; the bundled combined
# charge, 768,403 states, one to two minutes). max_states lets a bigger fight be solved
# anyway.
MAX_STATES = 70_000


def covers(plan) -> str | None:
    """None, but for fights whose rules roll a number of attacks or hits (Random Attacks,
    Impact Hits or Stomps in dice) or of wounds (Multiple Wounds against models of more than
    one wound): left to the simulation, with the reason."""
    if plan.rolls:
        return ("it rolls a number of attacks or hits (Random Attacks, Impact Hits or Stomps "
                "in dice)")
    if plan.multiplies:
        return "Multiple Wounds against models of more than one wound"
    return None


def variant(plan) -> str:
    """Which solver takes ``plan``, in words (benchmarks/cold_start.py times each)."""
    return "one unit a side" if _one_unit(plan) else "the rule text"


def _one_unit(plan) -> bool:
    return plan.one_unit is not None and exact_one.refusal(plan.one_unit) is None


def compiled(plan) -> tuple:
    """The compiled parts a solve of ``plan`` calls (the compile notice looks at them)."""
    return exact_one.compiled(plan.one_unit) if _one_unit(plan) else COMPILED


def solve(plan, max_states: int):
    """(rows, weights, most live states): see :mod:`odds.core.exact`."""
    if _one_unit(plan):
        return exact_one.solve(plan.one_unit, max_states)
    return walk.solve(COMPILED, fight, plan.packed, max_states)
