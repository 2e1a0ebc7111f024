"""Fights per second of the blackpowder kernel (1 and 2 threads) against the pure-Python
reference, on the bundled blackpowder scenarios.

    python benchmarks/bench_blackpowder.py [--trials N] [--reference-trials N] [--passes K]

Rates are medians of K passes after compilation. The machine is shared: compare the ratios
printed in one run rather than figures across runs.
"""
from __future__ import annotations

import random
from functools import partial

import odds

import common

naive_blackpowder = common.naive("blackpowder")  # tests/naive_blackpowder.py


def reference(scenario):
    return partial(naive_blackpowder.fight, scenario, random.Random(0))


if __name__ == "__main__":
    common.main(
        __doc__,
        [(path.name, odds.load(path))
         for path in sorted(common.SCENARIO_DIR.glob("blackpowder_*.toml"))],
        reference,
        heading=lambda label, tally: f"{label}: mean {common.mean_rounds(tally):.2f} rounds",
        trials=2_000_000, reference_trials=5_000, passes=3)
