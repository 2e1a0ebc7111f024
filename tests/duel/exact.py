"""duel's exact solver: the core's walk over the same rule text (fight.py)."""
from odds.core import walk

from duel import fight

COMPILED = walk.solver(fight)


def covers(plan) -> str | None:
    """None: every rule is solved."""
    return None


def solve(plan, max_states: int):
    """(rows, weights, most states): see odds.core.exact."""
    return walk.solve(COMPILED, fight, plan, max_states)
