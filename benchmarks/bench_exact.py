"""The exact solver against the simulation, per bundled scenario it covers.

For each scenario: the exact solve's time (median of K solves after a warm-up solve, so
numba compilation is excluded; the warm-up's time, which includes compiling or loading the
cache, is shown as "first"), its fight states, and the time the simulation takes to reach a
95% half-width of 0.1 points on every headline probability (``simulate(precision=0.001)``,
median of K after a warm-up run, all threads), with the ratio simulation / exact in one run.

    python benchmarks/bench_exact.py [--only TEXT] [--passes K] [--threads T]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import SCENARIO_DIR, machine_line  # noqa: E402

import odds  # noqa: E402
from odds.core import exact, runner  # noqa: E402
from odds.rulesets import get_ruleset  # noqa: E402
from odds.scenario import load  # noqa: E402

PRECISION = 0.001


def timed(call, passes: int) -> tuple[float, object]:
    """(median seconds of ``passes`` calls, the last call's value)."""
    times, value = [], None
    for _ in range(passes):
        start = time.perf_counter()
        value = call()
        times.append(time.perf_counter() - start)
    return statistics.median(times), value


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--only", help="only scenarios whose file name contains this")
    parser.add_argument("--passes", type=int, default=3, help="timed passes (default 3)")
    parser.add_argument("--threads", type=int, default=None,
                        help="simulation threads (default all cores)")
    parser.add_argument("--max-states", type=int, default=exact.MAX_STATES,
                        help="the solver's state bound, for every ruleset (default "
                             f"{exact.MAX_STATES:,}, above the smaller defaults of some)")
    args = parser.parse_args(argv)
    runner.set_threads(args.threads)
    print(machine_line())
    print(f"simulation: simulate(precision={PRECISION}) on {args.threads or 'all'} threads; "
          f"exact: one thread, max_states {args.max_states:,}; medians of {args.passes} after "
          "a warm-up; both times from the scenario to the Result\n")
    head = (f"{'scenario':47} {'states':>8} {'first s':>8} {'exact ms':>9} {'sim s':>7} "
            f"{'fights':>11} {'sim/exact':>10}")
    print(head)
    for path in sorted(SCENARIO_DIR.glob("*.toml")):
        if args.only and args.only not in path.name:
            continue
        scenario = load(path)
        ruleset = get_ruleset(scenario.ruleset)
        reason = exact.covers(ruleset, scenario)
        if reason is not None:
            print(f"{path.stem:47} not covered: {reason}")
            continue
        solve = lambda: odds.simulate(scenario, method="exact", quiet=True,  # noqa: E731
                                      max_states=args.max_states)
        first, solved = timed(solve, 1)
        t_exact, solved = timed(solve, args.passes)
        sim = lambda: odds.simulate(scenario, precision=PRECISION, quiet=True)  # noqa: E731
        odds.simulate(scenario, trials=1000, quiet=True)  # compile or load the kernel
        t_sim, simulated = timed(sim, args.passes)
        print(f"{path.stem:47} {solved.states:>8,} {first:>8.2f} {1000 * t_exact:>9.1f} "
              f"{t_sim:>7.2f} {simulated.trials:>11,} {t_sim / t_exact:>9.0f}x")


if __name__ == "__main__":
    main()
