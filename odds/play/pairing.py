"""What a grid keeps of each cell's fights beside its baseline's: running sums of the paired
fights (:class:`Pairing`) and a fingerprint of a cell's whole per-fight record
(:class:`Fingerprint`), both merged block by block, so memory stays bounded."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

from odds.analysis.intervals import mean_difference, paired_difference
from odds.analysis.result import code_indicators, mean_keys
from odds.play.options import BATCH


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

    def merge(self, other: Pairing) -> Pairing:
        """Fold in the sums of other fights of the same two cells (e.g. another block)."""
        self.trials += other.trials
        self.same = self.same and other.same
        if other.pairs is not None:
            self.pairs = other.pairs if self.pairs is None else self.pairs + other.pairs
        for key, (sum_d, sum_d2) in other.sums.items():
            sums = self.sums.setdefault(key, [0, 0])
            sums[0] += sum_d
            sums[1] += sum_d2
        return self


SEGMENT = BATCH  # trials a fingerprint hashes together: runs stop at multiples of BATCH


class Fingerprint:
    """A cell's whole per-fight record in 32 bytes a column, however its trials were cut
    into chunks and blocks: each column's XOR, over its segments of ``SEGMENT`` trials, of
    SHA-256(segment index, the segment's values). Cells stop only at a multiple of SEGMENT
    or at their last trial, so blocks cut at segment edges, fingerprinted apart and merged,
    give the fingerprint of the whole. Equal fingerprints: identical fights."""

    def __init__(self, columns: int, first_trial: int = 0):
        if first_trial % SEGMENT:
            raise ValueError(f"a fingerprint starts at a segment edge, not trial {first_trial}")
        self.next_trial = first_trial
        self.xor = [0] * columns
        self.open = [None] * columns  # each column's hash of its unfinished segment

    def add(self, record: np.ndarray, first_trial: int) -> None:
        """Hash the next trials' rows (columns x trials), which start at ``first_trial``."""
        if first_trial != self.next_trial:
            raise ValueError(f"trials {self.next_trial} onward come next, not {first_trial}")
        at, n = 0, record.shape[1]
        while at < n:
            trial = first_trial + at
            end = min(n, at + SEGMENT - trial % SEGMENT)
            for j, column in enumerate(record):  # rows of a C-ordered record
                if self.open[j] is None:
                    self.open[j] = hashlib.sha256((trial // SEGMENT).to_bytes(8, "little"))
                self.open[j].update(column[at:end])
            if (first_trial + end) % SEGMENT == 0:
                self.xor = self.digest()
                self.open = [None] * len(self.open)
            at = end
        self.next_trial += n

    def digest(self) -> tuple[int, ...]:
        """The fingerprint of the trials added so far."""
        return tuple(x ^ (0 if h is None else int.from_bytes(h.digest(), "little"))
                     for x, h in zip(self.xor, self.open))

    def merge(self, digest: tuple[int, ...]) -> None:
        """Fold in the digest of other trials of the same cell (a block cut at segment
        edges)."""
        self.xor = [x ^ y for x, y in zip(self.xor, digest)]
