"""A 10 x 10 wh40k3 round robin played here and on a local Dask cluster: total time and
overhead.

    python benchmarks/bench_distributed.py [--trials N] [--passes K] [--workers W] [--big N]

The round robin is ``odds.roster`` of the bundled ten-unit wh40k3 roster against itself
(data/rosters/wh40k3_ten_units.toml: every ordered pair of its ten units, 100 cells of
``--trials`` fights each, default 100,000). It is played on this machine with 2 kernel threads, then on a
``LocalCluster`` of ``--workers`` worker processes of one thread each (default 2), passes
alternating (the machine is shared); the median of ``--passes`` passes is printed, with the
ratio cluster / local (the goal: under 1.2). Both are timed warm: kernels loaded, cluster
started (its start is printed apart). The frames are checked equal. ``--big N`` also times one
scenario of N fights (default 20,000,000) both ways.
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

import pandas as pd

import odds
from odds.core.distributed import blocks

import common

SCENARIO = common.SCENARIO_DIR / "wh40k3_ten_vs_ten.toml"
ROSTER = common.SCENARIO_DIR.parent / "rosters" / "wh40k3_ten_units.toml"
UNITS = 10


def grid(trials: int, **run):
    """The 100-cell round robin: ten units, every ordered pair."""
    return odds.roster(ROSTER, trials=trials, seed=1, quiet=True, **run)


def timed(play) -> tuple[float, object]:
    start = time.perf_counter()
    out = play()
    return time.perf_counter() - start, out


def compare_ways(label: str, fights: int, here, there, passes: int, same) -> None:
    """Median times of ``here()`` and ``there()`` over alternating passes, fights/s, ratio."""
    times = {"local": [], "cluster": []}
    outs = {}
    for _ in range(passes):
        for way, play in (("local", here), ("cluster", there)):
            seconds, outs[way] = timed(play)
            times[way].append(seconds)
    if not same(outs["local"], outs["cluster"]):
        raise SystemExit(f"{label}: the cluster's numbers differ from the local ones")
    local, cluster = (statistics.median(times[w]) for w in ("local", "cluster"))
    print(f"{label}: local {local:.2f} s ({fights / local / 1e6:.2f} M fights/s), cluster "
          f"{cluster:.2f} s ({fights / cluster / 1e6:.2f} M fights/s), cluster / local "
          f"{cluster / local:.2f}; same numbers")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--trials", type=int, default=100_000, help="fights a cell")
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2, help="worker processes, 1 thread each")
    parser.add_argument("--big", type=int, default=20_000_000,
                        help="fights of the one-scenario run (0: skip it)")
    args = parser.parse_args()
    from distributed import Client, LocalCluster

    print(common.machine_line())
    cells = UNITS ** 2
    print(f"round robin: {cells} cells ({UNITS} units x {UNITS} opponents) of "
          f"{args.trials:,} fights = {cells * args.trials:,} fights; local: 2 threads; "
          f"cluster: {args.workers} worker processes x 1 thread; median of {args.passes} passes")
    start = time.perf_counter()
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        print(f"cluster started in {time.perf_counter() - start:.1f} s")
        seconds, _ = timed(lambda: grid(1000, client=client))
        print(f"first run on the cluster (workers load the kernels): {seconds:.1f} s")
        grid(1000, threads=2)
        n = len(blocks(0, args.trials, args.workers))
        print(f"tasks: {UNITS * n} ({UNITS} opponents, each with its "
              f"{UNITS} cells in lockstep, x {n} block(s) of trials); load average "
              f"{os.getloadavg()[0]:.1f}")
        compare_ways("round robin", cells * args.trials, lambda: grid(args.trials, threads=2),
                     lambda: grid(args.trials, client=client), args.passes,
                     lambda a, b: _frames_equal(a.frame, b.frame))
        if args.big:
            print(f"one scenario of {args.big:,} fights in "
                  f"{len(blocks(0, args.big, args.workers))} blocks:")
            compare_ways("big", args.big,
                         lambda: odds.simulate(SCENARIO, trials=args.big, threads=2, quiet=True),
                         lambda: odds.simulate(SCENARIO, trials=args.big, client=client,
                                               quiet=True), args.passes,
                         lambda a, b: a.probabilities() == b.probabilities()
                         and a.means() == b.means())


def _frames_equal(a, b) -> bool:
    try:
        pd.testing.assert_frame_equal(a, b, check_exact=True)
    except AssertionError:
        return False
    return True


if __name__ == "__main__":
    main()
