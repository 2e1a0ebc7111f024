"""Playing the cells of a grid together, chunk by chunk, so that each variant's fights can be
paired with its baseline's.

Every cell uses the same seed and trial i draws from the stream of (seed, i) (common random
numbers), so fight i of a variant and fight i of the baseline saw the same dice wherever the
two consumed them alike. The cells of one group (one opponent) are played in lockstep over
the same trial indices, and each chunk of a variant's per-fight record is compared with the
baseline's and thrown away: only running sums are kept, so memory stays bounded.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

from odds.analysis.intervals import mean_difference, paired_difference
from odds.analysis.result import Result, indicators, mean_keys
from odds.api import BATCH, next_target
from odds.core import runner
from odds.rulesets import get_ruleset


@dataclass
class Pairing:
    """Running sums of one cell's fights against its baseline's, fight by fight."""

    columns: tuple[str, ...]
    trials: int = 0
    same: bool = True  # every paired fight had the same record so far
    tables: dict = field(default_factory=dict)  # probability -> [both, cell only, baseline only]
    sums: dict = field(default_factory=dict)    # mean -> [sum of d, sum of d^2]

    def add(self, record, marks, base_record, base_marks) -> None:
        self.trials += record.shape[1]
        self.same = self.same and np.array_equal(record, base_record)
        for key, x in marks.items():
            y = base_marks[key]
            table = self.tables.setdefault(key, [0, 0, 0])
            table[0] += int(np.count_nonzero(x & y))
            table[1] += int(np.count_nonzero(x & ~y))
            table[2] += int(np.count_nonzero(~x & y))
        for column, key in mean_keys(self.columns).items():
            i = self.columns.index(column)
            d = record[i].astype(np.int64) - base_record[i]
            sums = self.sums.setdefault(key, [0, 0])
            sums[0] += int(d.sum())
            sums[1] += int(d @ d)

    def differences(self) -> dict:
        """``<key>_diff``, ``_diff_low``, ``_diff_high`` for every probability (Newcombe's
        paired interval) and mean (normal interval), and ``paired_trials``. Fights that were
        all identical give exactly 0 [0, 0]."""
        n, out = self.trials, {}
        for key, (both, cell_only, base_only) in self.tables.items():
            diff = (0.0, 0.0, 0.0) if self.same else paired_difference(
                both, cell_only, base_only, n - both - cell_only - base_only)
            out.update(zip((f"{key}_diff", f"{key}_diff_low", f"{key}_diff_high"), diff))
        for key, (sum_d, sum_d2) in self.sums.items():
            out.update(zip((f"{key}_diff", f"{key}_diff_low", f"{key}_diff_high"),
                           mean_difference(n, sum_d, sum_d2)))
        out["paired_trials"] = n
        return out


@dataclass
class _Cell:
    """One scenario being played: its plan, its tally so far and where it stops."""

    scenario: object
    ruleset: object
    plan: object
    target: int
    tally: object = None
    precision_met: bool | None = None
    digest: object = field(default_factory=lambda: hashlib.blake2b(digest_size=16))

    @property
    def played(self) -> int:
        return 0 if self.tally is None else self.tally.trials


@dataclass
class Played:
    """What :func:`play` returns: a Result per cell, the pairings of the cells that have a
    baseline, and a digest of each cell's whole per-fight record (equal digests: identical
    fights)."""

    results: list
    pairings: dict
    digests: list


def play(scenarios: list, groups: list[list[int]], baselines: dict[int, int], *, seed: int,
         trials: int, precision: float | None, max_trials: int, threads: int | None,
         progress: bool, quiet: bool) -> Played:
    """Play every scenario (cell) with ``seed``: ``trials`` fights each, or with ``precision``
    the batches ``simulate(precision=...)`` would play, so each cell's Result is the one
    ``simulate`` gives. The cells of each group are played in lockstep; a cell with a baseline
    (``baselines[cell] = baseline cell``, in the same group) is paired with it over the
    fights both played (the common prefix, when they stop at different counts). Unless
    ``quiet``, a kernel about to be compiled is announced on stderr, as in ``simulate``."""
    runner.set_threads(threads)
    first = trials if precision is None else min(BATCH, max_trials)
    cells = []
    for scenario in scenarios:
        ruleset = get_ruleset(scenario.ruleset)
        cells.append(_Cell(scenario, ruleset, ruleset.compile(scenario), first))
    pairings = {}
    bar = runner.progress_bar(sum(c.target for c in cells), progress and not quiet)
    for group in groups:
        order = sorted(group, key=lambda i: i not in baselines.values())  # baselines first
        done = 0
        while any(cells[i].target > done for i in group):
            active = [i for i in order if cells[i].target > done]
            end = min(done + runner.CHUNK, *(cells[i].target for i in active))
            kept = {}
            for i in active:
                cell = cells[i]
                cell.tally, record = runner.run(cell.ruleset, cell.plan, end - done, seed,
                                                first_trial=done, tally=cell.tally,
                                                keep_fights=True, notice=not quiet)
                cell.digest.update(np.ascontiguousarray(record.T).tobytes())  # trial-major
                marks = indicators(record, cell.tally.columns)
                if i in baselines.values():
                    kept[i] = record, marks
                if baselines.get(i) in kept:
                    pairing = pairings.setdefault(i, Pairing(cell.tally.columns))
                    pairing.add(record, marks, *kept[baselines[i]])
                if bar is not None:
                    bar.update(end - done)
            done = end
            for i in active:
                grown = _advance(cells[i], seed, precision, max_trials)
                if bar is not None and grown:
                    bar.total += grown
                    bar.refresh()
    if bar is not None:
        bar.close()
    results = [Result(c.scenario, c.tally, seed, precision_met=c.precision_met,
                      precision=precision) for c in cells]
    return Played(results, pairings, [c.digest.digest() for c in cells])


def _advance(cell: _Cell, seed: int, precision: float | None, max_trials: int) -> int:
    """After a chunk: a precision cell that reached its target stops or gets a new one.
    Returns how many more fights it will play."""
    if precision is None or cell.played < cell.target:
        return 0
    width = Result(cell.scenario, cell.tally, seed).headline_half_width()
    target = next_target(cell.played, width, precision, max_trials)
    if target is None:
        cell.precision_met = width <= precision
        return 0
    grown, cell.target = target - cell.target, target
    return grown
