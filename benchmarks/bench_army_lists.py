"""Importing exported army lists, and playing two of them against each other.

    python benchmarks/bench_army_lists.py [--trials N] [--passes K] [--threads T]

Prints the machine, then (1) the time to import each bundled 2,000-point list
(data/army_lists/: median of K imports in one process, and one `odds import` command from
process start) and a list six times as long, and (2) `odds roster LIST THEIRS --both-ways`
of the two lists at N fights a cell (default 100,000): wall and CPU seconds, cells and
fights per second. The kernel is compiled first (its time is not counted). The machine is
shared: repeat, and compare runs of one sitting.
"""
from __future__ import annotations

import argparse
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import common

import odds

LISTS = common.ROOT / "data" / "army_lists"
MINE, THEIRS = LISTS / "wh40k3_angels_2000.ros", LISTS / "wh40k3_orks_2000.rosz"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _long_list(passes: int) -> None:
    """The Blood Angels force six times over in one roster: the size of a real export whose
    entries carry their rules' descriptions (~0.3 MB)."""
    xml = MINE.read_bytes()
    force = re.search(rb"<force .*</force>", xml, re.S).group(0)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "long.ros"
        path.write_bytes(xml.replace(force, force * 6))
        times = []
        for _ in range(passes):
            start = time.perf_counter()
            imported = odds.import_list(path)
            times.append(time.perf_counter() - start)
        print(f"import of the list six times over ({path.stat().st_size:,} bytes, "
              f"{len(imported.units)} units): {statistics.median(times) * 1000:.1f} ms in "
              f"Python (median of {passes})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--trials", type=int, default=100_000)
    parser.add_argument("--passes", type=int, default=7)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    print(common.machine_line())
    for path in (MINE, THEIRS):
        times = []
        for _ in range(args.passes):
            start = time.perf_counter()
            imported = odds.import_list(path)
            times.append(time.perf_counter() - start)
        units = len(imported.units)
        models = sum(g["count"] for u in imported.roster.units for g in u["models"])
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "odds", "import", str(path)], check=True,
                       capture_output=True)
        command = time.perf_counter() - start
        print(f"import {path.name} ({path.stat().st_size:,} bytes, {units} units, {models} "
              f"models): {statistics.median(times) * 1000:.1f} ms in Python (median of "
              f"{args.passes}); `odds import` {command:.2f} s from process start")
    _long_list(args.passes)
    odds.roster(MINE, THEIRS, trials=200, quiet=True)  # compiled (and cached) first
    argv = [sys.executable, "-m", "odds", "roster", str(MINE), str(THEIRS), "--both-ways",
            "--trials", str(args.trials)]
    if args.threads:
        argv += ["--threads", str(args.threads)]
    cpu, start = _children_cpu(), time.perf_counter()
    out = subprocess.run(argv, check=True, capture_output=True, text=True).stdout
    wall, cpu = time.perf_counter() - start, _children_cpu() - cpu
    robin = odds.roster(MINE, THEIRS, both_ways=True, trials=10, quiet=True)
    cells = len(robin.frame)
    print(f"odds roster {MINE.name} {THEIRS.name} --both-ways --trials {args.trials:,}"
          f"{f' --threads {args.threads}' if args.threads else ''}: {cells} cells, "
          f"{wall:.1f} s wall, {cpu:.1f} CPU s, {cells * args.trials / wall / 1e6:.2f} M "
          f"fights/s")
    print(out.splitlines()[0])


if __name__ == "__main__":
    main()
