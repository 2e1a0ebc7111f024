"""Speed of every bundled scenario in this tree against another tree, in one run.

    python benchmarks/before_after.py OLD_TREE [--trials N] [--passes K] [--threads T] [--only TEXT]
                                               [--clock wall|cpu] [--call kernel|simulate|compare]
                                               [--pin CPUS]

OLD_TREE is a checkout of an earlier commit (e.g. ``git worktree add /tmp/before HEAD~3``).
For each bundled scenario, one worker process per tree (``PYTHONPATH=TREE``, each with its own
numba cache, compiled before timing) plays ``--trials`` fights per pass; the passes of the
two trees alternate, so load from other jobs on a shared machine hits both alike. Prints the
median fights/s of each and the ratio new/old: the project's rule is that a change keeps
every existing scenario at 0.95 of its speed or better. ``--call`` times the kernel alone
(``runner.run``, the default), a whole ``odds.simulate`` call (the API's own work included),
or ``odds.compare`` of each bundled comparison file (fights of every cell counted).
``--pin`` runs both workers on the same cores (``taskset -c CPUS``, e.g. ``0`` with one
thread): on a shared virtual machine two unpinned workers may land on cores of different
speed, and a ratio then says more about the cores than about the trees (mordheim's kernels,
the same code, 0.86-1.20 unpinned; 0.99-1.02 pinned).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

WORKER = r"""
import json, sys, time
# the tree's own odds.data too: an editable install's finder would map it to its checkout
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in getattr(f, "__module__", "")]
import odds
from odds.core import runner
from odds.rulesets import get_ruleset
path, trials, threads, call = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[5]
clock = time.process_time if sys.argv[4] == "cpu" else time.perf_counter
runner.set_threads(threads)
if call == "compare":
    cells = len(odds.compare(path, trials=1000, quiet=True).frame)
    play = lambda seed: odds.compare(path, trials=trials, seed=seed, threads=threads,
                                     quiet=True)
    fights = trials * cells
elif call == "simulate":
    play = lambda seed: odds.simulate(path, trials=trials, seed=seed, threads=threads,
                                      quiet=True)
    fights = trials
else:
    scenario = odds.load(path)
    ruleset = get_ruleset(scenario.ruleset)
    plan = ruleset.compile(scenario)
    play = lambda seed: runner.run(ruleset, plan, trials, seed)
    fights = trials
play(0)  # compile, or load from the cache
print("ready", flush=True)
for line in sys.stdin:  # one pass per line read
    start = clock()
    play(int(line))
    print(json.dumps(fights / (clock() - start)), flush=True)
"""


def worker(tree: Path, scenario: Path, trials: int, threads: int, clock: str,
           call: str, pin: str = "") -> subprocess.Popen:
    # idle OpenMP threads sleep instead of spinning: the other tree's worker, waiting for
    # its turn, must not take a core from the one being timed
    env = {"OMP_WAIT_POLICY": "PASSIVE", **os.environ, "PYTHONPATH": str(tree)}
    pinned = ["taskset", "-c", pin] if pin else []
    proc = subprocess.Popen(pinned + [sys.executable, "-c", WORKER, str(scenario), str(trials),
                                      str(threads), clock, call],
                            env=env, cwd=tree, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    if proc.stdout.readline().strip() != "ready":
        raise SystemExit(f"worker for {tree} failed on {scenario.name}")
    return proc


def one_pass(proc: subprocess.Popen, seed: int) -> float:
    proc.stdin.write(f"{seed}\n")
    proc.stdin.flush()
    return json.loads(proc.stdout.readline())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("old", type=Path, help="the other tree (an earlier checkout)")
    parser.add_argument("--trials", type=int, default=1_000_000)
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--only", default="", help="only scenarios whose file name has this")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="time each pass by the wall clock, or by the CPU time of its "
                             "process (steadier when other jobs share the machine)")
    parser.add_argument("--call", choices=("kernel", "simulate", "compare"), default="kernel",
                        help="what a pass times (default: the kernel alone)")
    parser.add_argument("--pin", default="", metavar="CPUS",
                        help="run both trees' workers on these cores (taskset -c CPUS)")
    args = parser.parse_args()
    old = args.old.resolve()
    print(f"{args.trials:,} fights per pass, median of {args.passes} alternating passes, "
          f"{args.threads} thread(s), {args.clock} clock, {args.call}"
          f"{f', pinned to CPUs {args.pin}' if args.pin else ''}; new = {ROOT}, old = {old}")
    print(f"{'scenario':<52}{'old M/s':>9}{'new M/s':>9}{'new/old':>9}")
    folder = "comparisons" if args.call == "compare" else "scenarios"
    for scenario in sorted((ROOT / "data" / folder).glob("*.toml")):
        if args.only not in scenario.name or not (old / "data" / folder
                                                  / scenario.name).exists():
            continue
        procs = {name: worker(tree, scenario, args.trials, args.threads, args.clock,
                              args.call, args.pin)
                 for name, tree in (("old", old), ("new", ROOT))}
        rates = {"old": [], "new": []}
        for k in range(args.passes):  # which tree goes first alternates too
            for name in ("old", "new") if k % 2 == 0 else ("new", "old"):
                rates[name].append(one_pass(procs[name], k))
        for proc in procs.values():
            proc.stdin.close()
            proc.wait()
        o, n = (statistics.median(rates[name]) for name in ("old", "new"))
        print(f"{scenario.stem:<52}{o / 1e6:>9.2f}{n / 1e6:>9.2f}{n / o:>9.3f}")


if __name__ == "__main__":
    main()
