"""The shared outcome record: one row per simulated fight, the same columns in every ruleset.

Kernels write these columns as small integers; :mod:`odds.analysis` reads them.
"""
from __future__ import annotations

import numpy as np

# winner
NONE, ATTACKER, DEFENDER = 0, 1, 2
WINNERS = ("none", "attacker", "defender")

# end: how the fight ended
DESTROYED = 0   # a side was wiped out in the fight
CAUGHT = 1      # a side broke and was caught (destroyed) by the pursuit
FLED = 2        # a side broke and escaped (fled, fell back, retired)
MUTUAL = 3      # both sides destroyed in the same step
UNRESOLVED = 4  # still fighting after max_rounds
NO_FIGHT = 5    # the fight never started (failed charge, evaded)
ENDS = ("destroyed", "caught", "fled", "mutual destruction", "unresolved", "no fight")

# a unit's fate, in a side of several units (R0-13): where it was when the fight ended
UNIT_STANDING = 0   # in the fight at the end, or left it unbroken (its side won, fell short)
UNIT_DESTROYED = 1  # no model left
UNIT_CAUGHT = 2     # fell back and was caught by the pursuit (destroyed)
UNIT_FLED = 3       # fell back and escaped
UNIT_UNREACHED = 4  # out of the fight at the start (engaged = false) and never reached
UNIT_FATES = ("standing", "destroyed", "caught", "fled", "unreached")
UNIT_PARTS = ("fate", "lost", "wounds")  # a unit's columns, after the ruleset's own

COLUMNS = ("winner", "end", "rounds", "attacker_lost", "defender_lost",
           "attacker_wounds", "defender_wounds")


def empty_record(n: int, extra: tuple[str, ...] = ()) -> np.ndarray:
    """An (n_columns, n) int32 array for a kernel to fill, columns in COLUMNS + extra order."""
    return np.zeros((len(COLUMNS) + len(extra), n), dtype=np.int32)


def unit_columns(scenario, own: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The per-unit columns of a scenario where a side has several units:
    ``attacker.units[0].fate``, ``.lost``, ``.wounds``, then the ruleset's ``own`` (its
    unit flags, 0 or 1 a fight, and unit counts), ... attacker units first; none when every
    side is one unit (its unit outcome is then its side's)."""
    sides = [(key, scenario.side(key)) for key in ("attacker", "defender")]
    if not any(side.units for _, side in sides):
        return ()
    return tuple(f"{key}.units[{i}].{part}" for key, side in sides
                 for i in range(len(side.every_unit)) for part in UNIT_PARTS + own)
