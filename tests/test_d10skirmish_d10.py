"""The kernels' D10 (odds.core.rng.d10), used by the D10 skirmish game (R3-5, R3-9, A2)."""
import numpy as np
from numba import njit

from odds.core.rng import d10, seed_stream


@njit
def _faces(n, seed):
    """Counts of each face (index = face) over n rolls, and of face pairs of consecutive rolls."""
    st = np.empty(4, np.uint64)
    seed_stream(st, seed, 0)
    counts = np.zeros(12, np.int64)
    pairs = np.zeros((11, 11), np.int64)
    last = d10(st)
    for _ in range(n):
        face = d10(st)
        counts[face] += 1
        pairs[last, face] += 1
        last = face
    return counts, pairs


def test_d10_faces_are_uniform_and_independent():
    """Each face 1..10 has probability 1/10 (|z| < 4 over 1,000,000 rolls), no other value
    occurs, and each ordered pair of consecutive rolls 1/100 (|z| < 4.5 over 100 cells)."""
    n = 1_000_000
    counts, pairs = _faces(n, 99)
    assert counts[0] == 0 and counts[11] == 0 and counts.sum() == n
    z = (counts[1:11] - n / 10) / np.sqrt(n * 0.1 * 0.9)
    assert np.all(np.abs(z) < 4), z
    z_pairs = (pairs[1:, 1:] - n / 100) / np.sqrt(n * 0.01 * 0.99)
    assert np.all(np.abs(z_pairs) < 4.5), z_pairs.max()

