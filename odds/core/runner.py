"""Play a scenario's trials in fixed-size chunks: bounded memory, optional progress bar.

Each trial's random stream comes from ``(seed, trial index)`` (see :mod:`odds.core.rng`), so
the numbers do not depend on the chunk size or the thread count.
"""
from __future__ import annotations

import importlib
import sys

import numpy as np

from odds.core import schema as s
from odds.core.outcome import COLUMNS, empty_record
from odds.core.tally import Tally

CHUNK = 1 << 18  # trials per kernel call: 2**18 rows of int32 columns, about 7 MB
MOST_KEPT_BYTES = 2 * 10**9  # keep_fights refuses a per-fight record larger than this
KEEP_FIGHTS = s.ARGUMENTS / "keep_fights"
COMPILING = "10 to 40 CPU seconds, by ruleset"  # benchmarks/cold_start.py


def set_threads(threads: int | None) -> None:
    """Use this many threads for the kernels (None: all cores; more than all: all)."""
    import numba

    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS if threads is None else
                          max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))


def most_kept_fights(ruleset, columns: tuple[str, ...] | None = None) -> int:
    """How many per-fight rows ``keep_fights`` keeps at most: ``MOST_KEPT_BYTES`` of int32
    columns (about 33 million fights with 15 columns, 71 million with 7). ``columns``: the
    record's (default: the ruleset's shared and own columns; a scenario of several units a
    side has more, see :meth:`odds.core.ruleset.Ruleset.columns`)."""
    return MOST_KEPT_BYTES // (4 * len(columns or _columns(ruleset)))


def new_record(ruleset, trials: int, where: s.Where = KEEP_FIGHTS,
               columns: tuple[str, ...] | None = None) -> np.ndarray:
    """Room for ``trials`` per-fight rows (columns x trials), allocated once; more than
    :func:`most_kept_fights` is a ScenarioError. Pages are taken as rows are written, so a
    precision run that stops early holds only the rows it played."""
    columns = columns or _columns(ruleset)
    most = most_kept_fights(ruleset, columns)
    if trials > most:
        raise where.error(
            f"keeping every fight's row needs {4 * len(columns) * trials / 1e9:.1f} GB for "
            f"{trials:,} fights; at most {most:,} fights of this {ruleset.id} scenario (2 GB) "
            "are kept: ask for fewer, or leave keep_fights off (summaries, histograms and "
            "means need no per-fight rows)")
    return np.empty((len(columns), trials), np.int32)


def _columns(ruleset) -> tuple[str, ...]:
    return COLUMNS + ruleset.extra_columns


def run(ruleset, plan, trials: int, seed: int, *, columns: tuple[str, ...] | None = None,
        first_trial: int = 0, keep_fights: bool = False, record: np.ndarray | None = None,
        progress: bool = False, notice: bool = False, chunk: int = CHUNK,
        tally: Tally | None = None) -> tuple[Tally, np.ndarray | None]:
    """Play ``trials`` fights starting at ``first_trial``; fold them into a :class:`Tally`.

    ``columns`` names the record's columns (default: the ruleset's shared and own ones; pass
    ``ruleset.columns(scenario)`` for a scenario of several units a side). Returns the tally
    and the per-fight record (columns x trials): ``record`` when given (it is filled, e.g. a
    slice of a bigger record), a new one (:func:`new_record`) with ``keep_fights``, else
    None. ``notice`` says on stderr when the kernel must be compiled first (see
    :meth:`odds.core.ruleset.Ruleset.needs_compiling`).
    """
    columns = columns or _columns(ruleset)
    tally = tally if tally is not None else Tally(columns)
    if record is None and keep_fights:
        record = new_record(ruleset, trials, columns=columns)
    if notice and trials and ruleset.needs_compiling(plan):
        print(f"odds: compiling {_kernel(ruleset, plan)}, once ({COMPILING}); later runs "
              "load it from the cache", file=sys.stderr, flush=True)
    bar = progress_bar(trials, progress)
    done = 0
    while done < trials:
        n = min(chunk, trials - done)
        out = empty_record(n, columns[len(COLUMNS):])
        ruleset.play(plan, seed, first_trial + done, out)
        tally.add(out)
        if record is not None:
            record[:, done:done + n] = out
        done += n
        if bar is not None:
            bar.update(n)
    if bar is not None:
        bar.close()
    return tally, record


def _kernel(ruleset, plan) -> str:
    """The kernel a plan is played by, in words: a ruleset whose kernel is compiled in
    variants (``variant(plan)`` beside ``entry``) names the variant, which compiles on its
    own."""
    kernel = importlib.import_module(ruleset.kernel)
    if not hasattr(kernel, "variant"):
        return f"the {ruleset.id} kernel"
    return (f"the {ruleset.id} kernel for {kernel.variant(plan)} (one of its variants, each "
            "compiled on its first use)")


class Watched:
    """A bar that calls ``watch(fights played, fights planned)`` after every chunk (the
    ``progress`` of a run given a callable); an exception it raises stops the run."""

    def __init__(self, total: int, watch):
        self.total, self.n, self.watch = total, 0, watch

    def update(self, n: int) -> None:
        self.n += n
        self.watch(self.n, self.total)

    def refresh(self) -> None:
        self.watch(self.n, self.total)

    def close(self) -> None:
        pass


def progress_bar(total: int, wanted):
    """A tqdm bar on stderr that appears only after 2 s, and only on a terminal; or, for a
    callable ``wanted``, a :class:`Watched` bar."""
    if callable(wanted):
        return Watched(total, wanted)
    if not wanted or not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="fight", unit_scale=True, delay=2.0, file=sys.stderr,
                leave=False)
