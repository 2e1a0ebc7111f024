"""Fights per second of the Mordheim kernel against the pure-Python reference.

    python benchmarks/bench_mordheim.py [--trials N] [--reference-trials M] [--passes K]

Prints the machine, the trial counts and, for each bundled Mordheim scenario, the median of K
passes with 1 and 2 threads (after compilation), the reference's rate and the ratio. The
machine is shared: compare the ratios printed in one run, not figures across runs.
"""
from __future__ import annotations

from functools import partial

import odds

import common

naive_mordheim = common.naive("mordheim")  # tests/naive_mordheim.py

SCENARIOS = ("mordheim_captain_vs_night_runner.toml", "mordheim_captain_vs_skaven.toml",
             "mordheim_two_on_one.toml")


def reference(scenario):
    return partial(naive_mordheim.play_fight, naive_mordheim.prepare(scenario),
                   naive_mordheim.Dice(0))


if __name__ == "__main__":
    scenarios = [odds.load(common.SCENARIO_DIR / name) for name in SCENARIOS]
    common.main(__doc__, [(s.name, s) for s in scenarios], reference,
                trials=1_000_000, reference_trials=20_000, passes=3)
