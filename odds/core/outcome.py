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

COLUMNS = ("winner", "end", "rounds", "attacker_lost", "defender_lost",
           "attacker_wounds", "defender_wounds")


def empty_record(n: int, extra: tuple[str, ...] = ()) -> np.ndarray:
    """An (n_columns, n) int32 array for a kernel to fill, columns in COLUMNS + extra order."""
    return np.zeros((len(COLUMNS) + len(extra), n), dtype=np.int32)
