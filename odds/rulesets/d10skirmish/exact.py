"""The d10skirmish exact solver: the rule text (fight.py) replayed once for every way each
stage can go, from the same compiled plan the kernel reads, every exchange's law tabulated
(up to ``max_states`` rolls); the walk and its state table are odds.core.walk's."""
from __future__ import annotations

from odds.core import walk
from odds.core.exact import check_states
from odds.rulesets.d10skirmish import fight

COMPILED = walk.solver(fight)


def covers(scenario) -> str | None:
    """None: the solver plays every rule the d10skirmish kernel plays (the dice of large
    exchanges are bounded by ``max_states`` instead)."""
    return None


def solve(plan, max_states: int):
    """(rows, weights, most states): see :mod:`odds.core.exact`. Every exchange's law is
    tabulated from at most ``max_states`` states (else TooManyStates), which count too."""
    if not plan.tabled.all():
        plan = fight.with_laws(plan, max_states)
    check_states(plan.law_states, max_states, plan.law_turn)
    rows, weights, most = walk.solve(COMPILED, fight, plan, max_states)
    return rows, weights, max(most, plan.law_states)
