"""Play a scenario's trials in fixed-size chunks: bounded memory, optional progress bar.

Each trial's random stream comes from ``(seed, trial index)`` (see :mod:`odds.core.rng`), so
the numbers do not depend on the chunk size or the thread count.
"""
from __future__ import annotations

import sys

import numpy as np

from odds.core.outcome import COLUMNS, empty_record
from odds.core.tally import Tally

CHUNK = 1 << 18  # trials per kernel call: 2**18 rows of int32 columns, about 7 MB


def set_threads(threads: int | None) -> None:
    """Use this many threads for the kernels (None: all cores)."""
    import numba

    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS if threads is None else
                          max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))


def run(ruleset, plan, trials: int, seed: int, *, first_trial: int = 0,
        keep_fights: bool = False, progress: bool = False, chunk: int = CHUNK,
        tally: Tally | None = None) -> tuple[Tally, np.ndarray | None]:
    """Play ``trials`` fights starting at ``first_trial``; fold them into a :class:`Tally`.

    Returns the tally and, with ``keep_fights``, the per-fight record (columns x trials).
    """
    columns = COLUMNS + ruleset.extra_columns
    tally = tally if tally is not None else Tally(columns)
    rows = [] if keep_fights else None
    bar = _progress_bar(trials, progress)
    done = 0
    while done < trials:
        n = min(chunk, trials - done)
        out = empty_record(n, ruleset.extra_columns)
        ruleset.play(plan, seed, first_trial + done, out)
        tally.add(out)
        if rows is not None:
            rows.append(out)
        done += n
        if bar is not None:
            bar.update(n)
    if bar is not None:
        bar.close()
    return tally, (np.concatenate(rows, axis=1) if rows is not None else None)


def _progress_bar(total: int, wanted: bool):
    """A tqdm bar on stderr that appears only after 2 s, and only on a terminal."""
    if not wanted or not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="fight", unit_scale=True, delay=2.0, file=sys.stderr,
                leave=False)
