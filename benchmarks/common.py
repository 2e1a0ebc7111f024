"""What the benchmarks/bench_<ruleset>.py scripts share: options, machine line, kernel and
reference rates, cold start and the printed report.

A script names its scenarios, how to play one fight with its pure-Python reference
(tests/naive_<ruleset>.py) and, optionally, what to say about a scenario, then calls
:func:`main`. Kernel rates are medians of K passes after compilation, with 1 and 2 threads;
the reference runs on one thread. The machine is shared: compare the ratios printed in one
run, not figures across runs.
"""
from __future__ import annotations

import argparse
import importlib
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path

import numba

ROOT = Path(__file__).resolve().parents[1]
SCENARIO_DIR = ROOT / "data" / "scenarios"

from odds.core import runner
from odds.rulesets import get_ruleset


def naive(ruleset: str):
    """The pure-Python reference of ``ruleset``: the module tests/naive_<ruleset>.py."""
    tests = str(ROOT / "tests")
    if tests not in sys.path:
        sys.path.insert(0, tests)
    return importlib.import_module(f"naive_{ruleset}")


def parse_args(doc: str, *, trials: int = 2_000_000, reference_trials: int = 5_000,
               passes: int = 3, argv: list[str] | None = None) -> argparse.Namespace:
    """``--trials N --reference-trials M --passes K``, defaults as given."""
    parser = argparse.ArgumentParser(description=doc.strip().splitlines()[0])
    parser.add_argument("--trials", type=int, default=trials,
                        help=f"kernel fights per pass (default {trials:,})")
    parser.add_argument("--reference-trials", type=int, default=reference_trials,
                        help=f"fights played by the reference (default {reference_trials:,})")
    parser.add_argument("--passes", type=int, default=passes,
                        help=f"kernel passes, the median is reported (default {passes})")
    return parser.parse_args(argv)


def machine_line() -> str:
    return (f"machine: {platform.machine()}, {os.cpu_count()} cores, "
            f"{platform.processor() or '?'}; Python {platform.python_version()}, "
            f"numba {numba.__version__}")


def kernel_rate(scenario, trials: int, threads: int, passes: int):
    """(median fights/s of ``passes`` runs after compilation, the last pass's Tally)."""
    ruleset = get_ruleset(scenario.ruleset)
    plan = ruleset.compile(scenario)
    runner.set_threads(threads)
    columns = ruleset.columns(scenario)  # with several units a side, each unit's columns too
    runner.run(ruleset, plan, 1000, 0, columns=columns)  # compile, or load from numba's cache
    rates, tally = [], None
    for k in range(passes):
        start = time.perf_counter()
        tally, _ = runner.run(ruleset, plan, trials, k, columns=columns)
        rates.append(trials / (time.perf_counter() - start))
    return statistics.median(rates), tally


def mean_rounds(tally) -> float:
    """Mean number of rounds a fight, from the tally's (winner, end, rounds) counts."""
    per_round = tally.outcomes.sum(axis=(0, 1))
    return float(per_round @ range(len(per_round)) / max(1, tally.trials))


def reference_rate(play_one: Callable[[], object], trials: int) -> float:
    """Fights/s of ``play_one()``, a callable playing one fight with all set up beforehand."""
    start = time.perf_counter()
    for _ in range(trials):
        play_one()
    return trials / (time.perf_counter() - start)


def cold_start(path: Path, trials: int = 10_000) -> float:
    """Wall time of ``odds simulate PATH --trials N --quiet`` in a fresh process."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "odds", "simulate", str(path), "--trials", str(trials),
                    "--quiet"], check=True, capture_output=True)
    return time.perf_counter() - start


def report(heading: str, one: float, two: float, ref: float) -> None:
    """The block printed for one scenario: kernel rates, 1 and 2 threads, and the reference."""
    print(f"\n{heading}")
    print(f"  kernel, 1 thread : {one / 1e6:6.2f} M fights/s  ({one / ref:,.0f}x reference)")
    print(f"  kernel, 2 threads: {two / 1e6:6.2f} M fights/s  ({two / ref:,.0f}x reference)")
    print(f"  reference        : {ref / 1e3:6.1f} k fights/s")


def report_cold_start(path: Path, runs: int = 3, trials: int = 10_000) -> None:
    times = sorted(cold_start(path, trials) for _ in range(runs))
    print(f"\ncold start, `odds simulate` {trials:,} fights in a fresh process (warm cache): "
          f"median {statistics.median(times):.2f} s (min {times[0]:.2f}, max {times[-1]:.2f})")


def main(doc: str, cases: Iterable[tuple[str, object]],
         reference: Callable[[object], Callable[[], object]], *,
         heading: Callable[[str, object], str] | None = None, cold_start_path: Path | None = None,
         **defaults) -> None:
    """Benchmark each ``(label, scenario)`` of ``cases`` and print the report.

    ``reference(scenario)`` returns a callable that plays one fight with the pure-Python
    reference; ``heading(label, tally)`` says what to print above a scenario's figures (the
    label alone by default); ``cold_start_path``, when given, is also timed in a fresh process;
    ``defaults`` go to :func:`parse_args`.
    """
    args = parse_args(doc, **defaults)
    print(machine_line())
    print(f"kernel: {args.trials:,} fights per pass, median of {args.passes} passes; "
          f"reference: {args.reference_trials:,} fights, 1 thread")
    for label, scenario in cases:
        one, tally = kernel_rate(scenario, args.trials, 1, args.passes)
        two, _ = kernel_rate(scenario, args.trials, 2, args.passes)
        ref = reference_rate(reference(scenario), args.reference_trials)
        report(heading(label, tally) if heading else label, one, two, ref)
    if cold_start_path is not None:
        report_cold_start(cold_start_path)
