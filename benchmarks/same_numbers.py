"""Whether this tree gives bit-identical per-fight records to another tree, scenario by scenario.

    python benchmarks/same_numbers.py OLD_TREE [--trials N] [--only TEXT]

OLD_TREE is a checkout of an earlier commit (e.g. ``git worktree add /tmp/before HEAD~3``).
Every bundled scenario that both trees have is played with the same seed in one process per
tree (``PYTHONPATH=TREE``), keeping every fight; the shared outcome columns are compared by
SHA-256. A change that must not move any number (new options off, a refactor) prints
"same" on every line.
"""
from __future__ import annotations

import argparse
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


def digest(tree: Path, scenario: Path, trials: int) -> str:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run([sys.executable, "-c", WORKER, str(scenario), str(trials)], env=env,
                          cwd=tree, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("old", type=Path, help="the other tree (an earlier checkout)")
    parser.add_argument("--trials", type=int, default=200_000)
    parser.add_argument("--only", default="", help="only scenarios whose file name has this")
    args = parser.parse_args()
    old = args.old.resolve()
    print(f"{args.trials:,} fights, seed 7; new = {ROOT}, old = {old}")
    for scenario in sorted((ROOT / "data" / "scenarios").glob("*.toml")):
        if args.only in scenario.name and (old / "data" / "scenarios" / scenario.name).exists():
            same = digest(old, scenario, args.trials) == digest(ROOT, scenario, args.trials)
            print(f"{scenario.stem:<52}{'same' if same else 'DIFFERENT'}")


if __name__ == "__main__":
    main()
