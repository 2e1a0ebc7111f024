"""Fights per second of the wh40k3 kernel against the pure-Python reference, and cold start.

    python benchmarks/bench_wh40k3.py [--trials N] [--reference-trials M] [--passes K]

Prints the machine, the trial counts and, for each scenario, the median of K passes with 1
and 2 threads (after compilation), the reference implementation's rate and the ratio, then
the wall time of `odds simulate SCENARIO --trials 10000` in a fresh process (warm cache).
The machine is shared: compare the ratios printed in one run, not figures across runs.
"""
from __future__ import annotations

import random
from functools import partial

import odds

import common

naive_wh40k3 = common.naive("wh40k3")  # tests/naive_wh40k3.py

SCENARIOS = {
    "bundled (10 Assault Marines charge 20 Boyz)": "wh40k3_assault_marines_vs_boyz.toml",
    "10 vs 10 to the end (2 vs 1 A, 4+/4+/3+)": "wh40k3_ten_vs_ten.toml",
    "2 v 1 (Assault + Tactical Squads charge 15 Boyz; 10 Gretchin wait 6\" away, R0-13)":
        "wh40k3_two_squads_vs_ork_mob.toml",
}


def reference(scenario):
    return partial(naive_wh40k3.play_fight, scenario, random.Random(0),
                   naive_wh40k3.prepare(scenario))


if __name__ == "__main__":
    common.main(
        __doc__,
        [(f"{label}: {name}", odds.load(common.SCENARIO_DIR / name))
         for label, name in SCENARIOS.items()],
        reference,
        heading=lambda label, tally: f"{label}, mean {common.mean_rounds(tally):.2f} rounds",
        cold_start_path=common.SCENARIO_DIR / next(iter(SCENARIOS.values())),
        trials=2_000_000, reference_trials=5_000, passes=3)
