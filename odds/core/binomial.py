"""Binomial counts with one uniform draw: precomputed exact CDFs searched from zero.

The tables are built by the recurrence P_{n+1}(k) = P_n(k) (1 - p) + P_n(k - 1) p, which is
exact to rounding and needs no scipy import on the start-up path.

``n`` attacks that each succeed with probability ``p`` give Binomial(n, p) successes. A table
holds P(X <= k) for every n up to a cap; above the cap the kernel draws one uniform per trial.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from numba import njit

from odds.core.rng import successes, uniform

CAP = 255  # largest n with a table row; tables cost (n+1)(n+2)/2 floats per probability


def cdf_tables(p: np.ndarray, n_max: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Tables for each probability ``p.flat[q]`` and n = 0 .. min(n_max.flat[q], CAP).

    Returns (cdf, offset, top): the row for n of table q starts at
    ``offset[q] + n * (n + 1) // 2``; ``top[q]`` is the largest n tabulated. ``offset`` and
    ``top`` have ``p``'s shape.

    Equal probabilities share one table, built up to the largest n any of them needs: row n
    does not depend on how many rows follow it, so a longer table holds every shorter one
    at the same offsets, and memory grows with the distinct probabilities, not with ``p.size``.
    """
    p = np.asarray(p, float)
    top = np.minimum(np.broadcast_to(n_max, p.shape), CAP).astype(np.int64)
    distinct, which = np.unique(p.ravel(), return_inverse=True)
    shared_top = np.zeros(len(distinct), np.int64)
    np.maximum.at(shared_top, which, top.ravel())
    sizes = (shared_top + 1) * (shared_top + 2) // 2
    start = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    cdf = np.empty(int(sizes.sum()))
    for u, pq in enumerate(distinct):
        cdf[start[u]:start[u] + sizes[u]] = _table(pq, shared_top[u])
    return cdf, start[which].reshape(p.shape), top


@lru_cache(maxsize=128)
def _table(p: float, top: int) -> np.ndarray:
    """Rows n = 0 .. top of P(X <= k), k = 0 .. n, one after another (row n at n(n+1)/2);
    kept for the next plan (plans of one game meet the same few chances; a table of
    CAP rows is 260 KB, so the 128 kept hold at most 33 MB), read only."""
    out = np.empty((top + 1) * (top + 2) // 2)
    pmf = np.zeros(top + 1)
    pmf[0] = 1.0
    for n in range(top + 1):
        if n:
            pmf[1:n + 1] = pmf[1:n + 1] * (1 - p) + pmf[:n] * p
            pmf[0] *= 1 - p
        row = np.cumsum(pmf[:n + 1])
        row[-1] = 1.0
        out[n * (n + 1) // 2: (n + 1) * (n + 2) // 2] = row
    out.flags.writeable = False
    return out


@njit(cache=True, inline="always")
def draw(st, cdf, offset, top, n, p):
    """Binomial(n, p) from its table row (offset, top), or one uniform per trial past ``top``:
    the least k with u < P(X <= k). A chance below 1/8 searches the row from zero, a few
    steps (:func:`_searched`); a higher one counts over the whole row (:func:`_counted`),
    with no branch to mispredict (the rule texts' kernels: whfb8's 1.1-1.2x as fast, the
    others within their noise; counting every row made wh40k3's ten against ten 0.91-0.93x,
    one run each)."""
    if n > top:
        return successes(st, n, p)
    binomial_row = offset + ((n * (n + 1)) >> 1)
    binomial_u = uniform(st)
    if p < 0.125:
        return _searched(cdf, binomial_row, binomial_u, n)
    return _counted(cdf, binomial_row, binomial_u, n)


@njit(cache=True, inline="always")
def _searched(cdf, row, u, n):
    """The least k < n with u < P(X <= k), else n: the row searched from zero."""
    binomial_k = 0
    # unsigned: read without numba's check for a negative index (odds.core.casts.slot)
    while binomial_k < n and u >= cdf[np.uint64(row + binomial_k)]:
        binomial_k += 1
    return binomial_k


@njit(cache=True, inline="always")
def _counted(cdf, row, u, n):
    """The same k as :func:`_searched`, as the number of k < n with P(X <= k) <= u (the row
    rises): the whole row counted, with no branch on u (the rule texts compile it as a
    scalar loop, odds.core.walk._scalar)."""
    binomial_k = 0
    for binomial_i in range(n):  # names of their own: numba inlines these into its callers
        binomial_k += u >= cdf[np.uint64(row + binomial_i)]
    return binomial_k
