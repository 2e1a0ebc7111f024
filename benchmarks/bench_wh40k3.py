"""Fights per second of the wh40k3 kernel against the pure-Python reference, and cold start.

    python benchmarks/bench_wh40k3.py [--trials N] [--passes K]

Prints the machine, the trial counts and, for each scenario, the median of K passes with 1
and 2 threads (after compilation), the reference implementation's rate and the ratio, then
the wall time of `odds simulate SCENARIO --trials 10000` in a fresh process (warm cache).
The machine is shared: compare the ratios printed in one run, not figures across runs.
"""
from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numba

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import naive_wh40k3  # noqa: E402  the reference implementation lives with the tests

import odds  # noqa: E402
from odds.core import runner  # noqa: E402
from odds.rulesets import get_ruleset  # noqa: E402

SCENARIOS = {
    "bundled (10 Assault Marines charge 20 Boyz)": "wh40k3_assault_marines_vs_boyz.toml",
    "10 vs 10 to the end (2 vs 1 A, 4+/4+/3+)": "wh40k3_ten_vs_ten.toml",
}


def kernel_rate(scenario, trials: int, threads: int, passes: int) -> tuple[float, float]:
    ruleset = get_ruleset(scenario.ruleset)
    plan = ruleset.compile(scenario)
    runner.set_threads(threads)
    runner.run(ruleset, plan, 1000, 0)  # compile or load from cache
    rates, rounds = [], 0.0
    for k in range(passes):
        start = time.perf_counter()
        tally, _ = runner.run(ruleset, plan, trials, k)
        rates.append(trials / (time.perf_counter() - start))
        rounds = tally.outcomes.sum(axis=(0, 1)) @ range(tally.outcomes.shape[2]) / trials
    return statistics.median(rates), rounds


def reference_rate(scenario, trials: int) -> float:
    prepared = naive_wh40k3.prepare(scenario)
    rng = random.Random(0)
    start = time.perf_counter()
    for _ in range(trials):
        naive_wh40k3.play_fight(scenario, rng, prepared)
    return trials / (time.perf_counter() - start)


def cold_start(path: Path) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "odds", "simulate", str(path), "--trials", "10000",
                    "--quiet"], check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=2_000_000)
    parser.add_argument("--reference-trials", type=int, default=5_000)
    parser.add_argument("--passes", type=int, default=3)
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.processor() or '?'}"
          f"; Python {platform.python_version()}, numba {numba.__version__}")
    print(f"kernel: {args.trials:,} fights per pass, median of {args.passes} passes; "
          f"reference: {args.reference_trials:,} fights, 1 thread")
    for label, name in SCENARIOS.items():
        path = ROOT / "data" / "scenarios" / name
        scenario = odds.load(path)
        one, rounds = kernel_rate(scenario, args.trials, 1, args.passes)
        two, _ = kernel_rate(scenario, args.trials, 2, args.passes)
        ref = reference_rate(scenario, args.reference_trials)
        print(f"\n{label}: {name}, mean {rounds:.2f} rounds")
        print(f"  kernel, 1 thread : {one / 1e6:6.2f} M fights/s  ({one / ref:,.0f}x reference)")
        print(f"  kernel, 2 threads: {two / 1e6:6.2f} M fights/s  ({two / ref:,.0f}x reference)")
        print(f"  reference        : {ref / 1e3:6.1f} k fights/s")
    path = ROOT / "data" / "scenarios" / SCENARIOS[next(iter(SCENARIOS))]
    times = sorted(cold_start(path) for _ in range(3))
    print(f"\ncold start, `odds simulate` 10,000 fights in a fresh process (warm cache): "
          f"median {times[1]:.2f} s (min {times[0]:.2f}, max {times[2]:.2f})")


if __name__ == "__main__":
    main()
