"""Random streams and dice for the kernels: xoshiro256** seeded per trial by SplitMix64.

Each trial's stream is derived from ``(seed, trial index)`` alone, so results are bit-identical
whatever the thread count or chunk size. Every constant is cast to ``uint64``: numba promotes
a ``uint64`` mixed with a plain int literal to int64/float and silently corrupts the stream.
"""
from __future__ import annotations

import numpy as np
from numba import njit, uint64

_GOLDEN = uint64(0x9E3779B97F4A7C15)
_MIX1 = uint64(0xBF58476D1CE4E5B9)
_MIX2 = uint64(0x94D049BB133111EB)
_TO_UNIT = 1.0 / 9007199254740992.0  # 2**-53


@njit(cache=True, inline="always")
def _rotl(x, k):
    return (x << uint64(k)) | (x >> uint64(64 - k))


@njit(cache=True, inline="always")
def _splitmix(x):
    z = x + _GOLDEN
    z = (z ^ (z >> uint64(30))) * _MIX1
    z = (z ^ (z >> uint64(27))) * _MIX2
    return z ^ (z >> uint64(31))


@njit(cache=True)
def seed_stream(state, seed, trial):
    """Seed ``state`` (4 x uint64) for one trial from ``(seed, trial)`` via SplitMix64."""
    x = _splitmix(uint64(seed)) ^ (uint64(trial) * _GOLDEN)
    for i in range(4):
        x = _splitmix(x)
        state[i] = x


@njit(cache=True, inline="always")
def next_u64(state):
    """xoshiro256**: the next 64 random bits."""
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    result = _rotl(s1 * uint64(5), 7) * uint64(9)
    t = s1 << uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3
    return result


@njit(cache=True, inline="always")
def uniform(state):
    """A uniform float in [0, 1) with 53 random bits."""
    return float(next_u64(state) >> uint64(11)) * _TO_UNIT


@njit(cache=True, inline="always")
def d6(state):
    """One D6 (1..6) by multiply-shift of 32 random bits (bias below 2**-29)."""
    return np.int64(((next_u64(state) >> uint64(32)) * uint64(6)) >> uint64(32)) + 1


@njit(cache=True, inline="always")
def two_d6(state):
    """2D6: the sum of two dice."""
    return d6(state) + d6(state)


@njit(cache=True, inline="always")
def successes(state, n, p):
    """How many of ``n`` independent trials with probability ``p`` succeed (one draw each)."""
    won = 0
    for _ in range(n):
        won += uniform(state) < p
    return won


@njit(cache=True, inline="always")
def d10(state):
    """One D10 (1..10) by multiply-shift of 32 random bits (bias below 2**-28)."""
    return np.int64(((next_u64(state) >> uint64(32)) * uint64(10)) >> uint64(32)) + 1
