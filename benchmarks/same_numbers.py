"""Whether this tree gives bit-identical per-fight records to another tree, scenario by scenario.

    python benchmarks/same_numbers.py OLD_TREE [--trials N] [--only TEXT] [--law | --grids]

OLD_TREE is a checkout of an earlier commit (e.g. ``git worktree add /tmp/before HEAD~3``).
Every bundled scenario that both trees have is played with the same seed in one process per
tree (``PYTHONPATH=TREE``), keeping every fight; the shared outcome columns are compared by
SHA-256. A change that must not move any number (new options off, a refactor) prints
"same" on every line.

With ``--law`` (a release whose random streams change, e.g. 0.2.0), the two trees' records
are compared by law instead: for every outcome column, the share of each value it takes
(winner, end, flags) or its mean (counts), the two-sample z of new - old; the line prints
the largest |z| and "same law" when it is below 4.

With ``--grids``, every bundled comparison (``odds.compare``) and roster (``odds.roster``
of the list against itself) is played instead, ``--trials`` fights a cell, and the tidy
frames (every column, as CSV) are compared by SHA-256.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

WORKER = r"""
import hashlib, sys
# the tree's own odds.data too: an editable install's finder would map it to its checkout
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in getattr(f, "__module__", "")]
import odds
from odds.core.outcome import COLUMNS
result = odds.simulate(sys.argv[1], trials=int(sys.argv[2]), seed=7, keep_fights=True,
                       quiet=True)
print(hashlib.sha256(result.fights_record[:len(COLUMNS)].tobytes()).hexdigest())
"""


GRID = r"""
import hashlib, sys
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in getattr(f, "__module__", "")]
import odds
path, trials = sys.argv[1], int(sys.argv[2])
grid = (odds.compare(path, trials=trials, quiet=True) if "comparisons" in path
        else odds.roster(path, trials=trials, quiet=True))
print(hashlib.sha256(grid.frame.to_csv(index=False).encode()).hexdigest())
"""


LAW = r"""
import json, sys
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in getattr(f, "__module__", "")]
import odds
result = odds.simulate(sys.argv[1], trials=int(sys.argv[2]), seed=7, keep_fights=True,
                       quiet=True)
record = result.fights_record.astype(float)
out = {}
for name, column in zip(result.tally.columns, record):
    if name in ("winner", "end") or set(column.tolist()) <= {0.0, 1.0}:
        for value in sorted(set(column.tolist())):
            out[f"{name}={value:g}"] = [float((column == value).mean()), None]
    else:
        out[name] = [float(column.mean()), float(column.var())]
print(json.dumps(out))
"""


def digest(tree: Path, scenario: Path, trials: int, worker: str = WORKER) -> str:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run([sys.executable, "-c", worker, str(scenario), str(trials)], env=env,
                          cwd=tree, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def largest_z(old: dict, new: dict, n: int) -> tuple[float, str]:
    """The largest two-sample |z| of new - old over the keys either has, and its key."""
    worst, where = 0.0, ""
    for key in old.keys() | new.keys():
        a, var_a = old.get(key, [0.0, None])
        b, var_b = new.get(key, [0.0, None])
        if var_a is None:  # a share: the pooled binomial variance
            pooled = (a + b) / 2
            var_a = var_b = pooled * (1 - pooled)
        se = math.sqrt((var_a + var_b) / n)
        z = 0.0 if se == 0 else abs(b - a) / se
        if se == 0 and a != b:
            z = math.inf
        if z >= worst:
            worst, where = z, key
    return worst, where


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("old", type=Path, help="the other tree (an earlier checkout)")
    parser.add_argument("--trials", type=int, default=200_000)
    parser.add_argument("--only", default="", help="only scenarios whose file name has this")
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--law", action="store_true",
                     help="compare the records' laws by z instead of bit by bit")
    how.add_argument("--grids", action="store_true",
                     help="compare the bundled comparisons' and rosters' frames instead")
    args = parser.parse_args()
    old = args.old.resolve()
    if args.grids:
        print(f"{args.trials:,} fights a cell; new = {ROOT}, old = {old}")
        for folder in ("comparisons", "rosters"):
            for grid in sorted((ROOT / "data" / folder).glob("*.toml")):
                if args.only in grid.name and (old / "data" / folder / grid.name).exists():
                    same = (digest(old, old / "data" / folder / grid.name, args.trials, GRID)
                            == digest(ROOT, grid, args.trials, GRID))
                    print(f"{folder}/{grid.stem:<52}{'same' if same else 'DIFFERENT'}")
        return
    print(f"{args.trials:,} fights, seed 7; new = {ROOT}, old = {old}")
    for scenario in sorted((ROOT / "data" / "scenarios").glob("*.toml")):
        if args.only in scenario.name and (old / "data" / "scenarios" / scenario.name).exists():
            if args.law:
                z, key = largest_z(json.loads(digest(old, scenario, args.trials, LAW)),
                                   json.loads(digest(ROOT, scenario, args.trials, LAW)),
                                   args.trials)
                print(f"{scenario.stem:<52}max |z| {z:5.2f} ({key})  "
                      f"{'same law' if z < 4 else 'DIFFERENT LAW'}")
                continue
            same = digest(old, scenario, args.trials) == digest(ROOT, scenario, args.trials)
            print(f"{scenario.stem:<52}{'same' if same else 'DIFFERENT'}")


if __name__ == "__main__":
    main()
