"""Running histograms of the outcome record, so summaries never need one row per fight."""
from __future__ import annotations

import numpy as np

from odds.core.outcome import ENDS, WINNERS


class Tally:
    """Counts of (winner, end, rounds) and, per winner, histograms of every other column.

    An ``exact`` tally holds probabilities instead of counts (the exact solver's, see
    :mod:`odds.core.exact`): its arrays are floats summing to 1, ``trials`` is None and
    ``states`` the most live fight states a round of the walk held."""

    def __init__(self, columns: tuple[str, ...], exact: bool = False):
        self.columns = columns
        self.exact = exact
        self.trials = None if exact else 0
        self.states = None
        dtype = np.float64 if exact else np.int64
        self.outcomes = np.zeros((len(WINNERS), len(ENDS), 1), dtype)
        self.by_winner = {c: np.zeros((len(WINNERS), 1), dtype) for c in columns[3:]}

    @property
    def total(self) -> float:
        """The trials, or for an exact tally the probability it holds (1 up to rounding)."""
        return float(self.outcomes.sum()) if self.exact else self.trials

    def add(self, out: np.ndarray, weights: np.ndarray | None = None) -> None:
        """Fold one chunk of the outcome record (columns x trials) in; an exact tally takes
        each row's probability as ``weights``."""
        if (weights is None) == self.exact:
            raise ValueError("an exact tally adds rows with their weights; a count tally "
                             "adds rows alone")
        winner, end, rounds = (out[i].astype(np.int64) for i in range(3))
        shape = self.outcomes.shape
        r = max(shape[2], int(rounds.max()) + 1)
        key = (winner * shape[1] + end) * r + rounds
        counts = np.bincount(key, weights, minlength=shape[0] * shape[1] * r)
        counts = counts.reshape(shape[0], shape[1], r)
        self.outcomes = _grow(self.outcomes, counts.shape) + counts
        for i, name in enumerate(self.columns[3:], start=3):
            values = out[i].astype(np.int64)
            v = max(self.by_winner[name].shape[1], int(values.max()) + 1)
            counts = np.bincount(winner * v + values, weights, minlength=shape[0] * v)
            counts = counts.reshape(shape[0], v)
            self.by_winner[name] = _grow(self.by_winner[name], counts.shape) + counts
        if not self.exact:
            self.trials += out.shape[1]

    def merge(self, other: Tally) -> Tally:
        """Fold another tally of the same columns in (e.g. another block of trials); integer
        counts, so the order tallies are merged in does not matter. Returns self."""
        if other.columns != self.columns:
            raise ValueError(f"cannot merge tallies of different columns: {self.columns} and "
                             f"{other.columns}")
        if other.exact or self.exact:
            raise ValueError("exact tallies are not merged: each is a whole distribution")
        self.outcomes = _added(self.outcomes, other.outcomes)
        for name, counts in other.by_winner.items():
            self.by_winner[name] = _added(self.by_winner[name], counts)
        self.trials += other.trials
        return self

    __iadd__ = merge

    def histogram(self, column: str) -> np.ndarray:
        """Counts of each value of ``column`` (index = value), all winners together."""
        return self.by_winner[column].sum(axis=0)

    def mean(self, column: str) -> float:
        h = self.histogram(column)
        return float(np.arange(len(h)) @ h / (h.sum() or 1))


def _added(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    shape = tuple(map(max, a.shape, b.shape))
    return _grow(a, shape) + _grow(b, shape)


def _grow(a: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    if a.shape == shape:
        return a
    out = np.zeros(shape, a.dtype)
    out[tuple(slice(0, n) for n in a.shape)] = a
    return out
