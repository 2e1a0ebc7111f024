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
from odds.analysis.result import Result, code_indicators, mean_keys, outcome_codes
from odds.api import BATCH, next_target
from odds.core import runner
from odds.rulesets import get_ruleset


@dataclass
class Pairing:
    """Running sums of one cell's fights against its baseline's, fight by fight: how often
    each pair (cell's outcome code, baseline's code) occurred, and the paired differences of
    every counted column."""

    columns: tuple[str, ...]
    trials: int = 0
    same: bool = True  # every paired fight had the same record so far
    pairs: np.ndarray | None = None  # [cell code, baseline code] counts (outcome_codes)
    sums: dict = field(default_factory=dict)    # mean -> [sum of d, sum of d^2]

    def add(self, record, code, base_record, base_code) -> None:
        self.trials += record.shape[1]
        self.same = self.same and np.array_equal(record, base_record)
        k = len(next(iter(code_indicators(self.columns).values())))  # codes there are
        pairs = np.bincount(code * k + base_code, minlength=k * k).reshape(k, k)
        self.pairs = pairs if self.pairs is None else self.pairs + pairs
        for column, key in mean_keys(self.columns).items():
            i = self.columns.index(column)
            d = np.subtract(record[i], base_record[i], dtype=np.int64)
            sums = self.sums.setdefault(key, [0, 0])
            sums[0] += int(d.sum())
            sums[1] += int(d @ d)

    def differences(self) -> dict:
        """``<key>_diff``, ``_diff_low``, ``_diff_high`` for every probability (Newcombe's
        paired interval) and mean (normal interval), and ``paired_trials``. Fights that were
        all identical give exactly 0 [0, 0]."""
        n, out = self.trials, {}
        for key, m in code_indicators(self.columns).items():
            both, cell_only, base_only = (int(self.pairs[np.ix_(a, b)].sum())
                                          for a, b in ((m, m), (m, ~m), (~m, m)))
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
    hashes: list = field(default_factory=list)  # one SHA-256 per record column

    def digest(self) -> tuple:
        """The whole per-fight record's fingerprint: each column's hash over its trials in
        order, so it does not depend on where chunks were cut."""
        return tuple(h.digest() for h in self.hashes)

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
                                                columns=cell.ruleset.columns(cell.scenario),
                                                first_trial=done, tally=cell.tally,
                                                keep_fights=True, notice=not quiet)
                if not cell.hashes:
                    cell.hashes = [hashlib.sha256() for _ in record]
                for h, column in zip(cell.hashes, record):  # rows of a C-ordered record
                    h.update(column)
                code = outcome_codes(record, cell.tally.columns)
                if i in baselines.values():
                    kept[i] = record, code
                if baselines.get(i) in kept:
                    pairing = pairings.setdefault(i, Pairing(cell.tally.columns))
                    pairing.add(record, code, *kept[baselines[i]])
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
    return Played(results, pairings, [c.digest() for c in cells])


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
