"""The d10skirmish exact solver: the rule text (fight.py, or gang.py for a gang) replayed once
for every way each stage can go, from the same compiled plan the kernel reads, every
exchange's law tabulated (up to ``max_states`` rolls); the walk and its state table are
odds.core.walk's."""
from __future__ import annotations

from odds.core import walk
from odds.core.exact import check_states
from odds.rulesets.d10skirmish import fight, gang
from odds.rulesets.d10skirmish.compile import Gang, gang_laws

COMPILED = walk.solver(fight)
GANG = walk.solver(gang)


def covers(plan) -> str | None:
    """None: the solver plays every rule the d10skirmish kernel plays (the dice of large
    exchanges are bounded by ``max_states`` instead)."""
    return None


def variant(plan) -> str:
    """The solver's name, for the compile notice and the cold-start benchmark."""
    return "a gang" if isinstance(plan, Gang) else "one fighter a side"


def compiled(plan) -> tuple:
    """The compiled parts the plan's rule text walks."""
    return GANG if isinstance(plan, Gang) else COMPILED


def solve(plan, max_states: int):
    """(rows, weights, most states): see :mod:`odds.core.exact`. Every exchange's law is
    tabulated from at most ``max_states`` states (else TooManyStates), which count too."""
    if isinstance(plan, Gang):
        enemies = plan.side[:, None] != plan.side[None, :]
        if (plan.law_of[enemies] < 0).any():
            plan = gang_laws(plan, max_states)
        check_states(plan.law_states, max_states, 1)
        rows, weights, most = walk.solve(GANG, gang, plan, max_states)
        return rows, weights, max(most, plan.law_states)
    if not plan.tabled.all():
        plan = fight.with_laws(plan, max_states)
    check_states(plan.law_states, max_states, plan.law_turn)
    rows, weights, most = walk.solve(COMPILED, fight, plan, max_states)
    return rows, weights, max(most, plan.law_states)
