"""Reading a whfb8 plan and its rule text (odds/rulesets/whfb8/fight.py) from the tests: a
striker by its side and kind, its chance against a body, and the rule text's own functions
on a state of the models standing, called from Python."""
from __future__ import annotations

import numpy as np

from odds.rulesets.whfb8 import fight


def striker(plan, side: int, kind: int, unit: int = 0, hero: int = -1) -> int:
    """The index of the striker of ``side``'s unit (or hero) of ``kind`` (fight.FIGHTING ...)."""
    return plan.strikers.index((side, unit, hero, kind))


def has(plan, side: int, kind: int) -> bool:
    """Whether ``side``'s first unit has a striker of ``kind``."""
    return (side, 0, -1, kind) in plan.strikers


def p_unsaved(plan, r: int, side: int, kind: int, front: int = 1, body: int = 0) -> float:
    """P(an attack of ``side``'s ``kind`` causes an unsaved wound on enemy ``body``) in round
    type r, nobody afraid or Frenzied."""
    return plan.tables["p_unsaved"][r, 0, 0, 0, front, striker(plan, side, kind), body]


def state(plan, standing=None) -> np.ndarray:
    """The state before the charge, with ``standing`` (per side) rank-and-file models of
    each side's first unit if given."""
    out = np.zeros(fight.fields(plan.packed), np.int64)
    fight.begin(plan.packed, out)
    if standing is not None:
        for s in range(2):
            out[fight._n(plan.packed, s, 0)] = standing[s]
    return out


def contact(plan, standing, side: int) -> int:
    """``side``'s models in base contact in the first engagement (R2-3)."""
    c = plan.tables["charger"]
    return int(fight._contact(plan.packed, state(plan, standing), 0, 0 if side == c else 1)[0])


def supporters(plan, standing, side: int, files: int) -> int:
    """``side``'s supporting attacks behind ``files`` files (R2-5)."""
    return int(fight._supporters(plan.packed, state(plan, standing), side, 0, 0, files))


def ranks(plan, standing, side: int) -> int:
    """``side``'s ranks (R2-11, R2-12)."""
    return int(fight._ranks(plan.packed, state(plan, standing), side, 0))


def leadership(plan, standing, side: int) -> int:
    """The Ld ``side``'s first unit tests on (R2-12)."""
    return int(fight._unit_ld(plan.packed, state(plan, standing), side, 0))


def attacks(plan, standing, side: int, kind: int, r: int = 0) -> int:
    """The attacks ``side``'s striker of ``kind`` makes in round type r (R2-4, R2-5): all it
    aims, on every enemy body (no dice rolled), alone on a fresh state, so also where they
    join another striker's count (compile._merged)."""
    st = state(plan, standing)
    st[fight.ROUND] = r
    st[fight.ROUNDS] = r + 1
    j = striker(plan, side, kind)
    fight._allocate(plan.packed, np.zeros(4, np.uint64), st, j)
    into = plan.tables["merged_into"][j]  # the striker whose count its attacks join
    return int(sum(st[fight._alloc(plan.packed, into, b)] >> 1 for b in range(plan.packed.G)))
