"""CPU seconds to a first answer, per ruleset and path, with an empty numba cache (cold) and
with the cache that run left (warm), as a new user meets them.

    python benchmarks/cold_start.py [--only RULESET ...] [--trials N] [--warm-trials N]

A path is what compiles on its own: each compiled variant of a ruleset's kernel (a bundled
scenario that plays it is found through ``variant(plan)`` beside the kernel's ``entry``) and
its exact solver. Each cold figure is one ``odds simulate FILE`` in a fresh process with
``NUMBA_CACHE_DIR`` set to a new empty folder (``--method exact`` for the solver); the warm
figures repeat the command, and ``odds simulate`` of ``--warm-trials`` fights, with the cache
that run wrote. CPU seconds are the child process's user + system time (what compiling
costs, whatever else the machine is doing); wall seconds are shown beside them.
"""
from __future__ import annotations

import argparse
import importlib
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "data" / "scenarios"


def paths(ruleset_id: str) -> list[tuple[str, Path, list[str]]]:
    """(path name, a bundled scenario that takes it, extra options) for each path of the
    ruleset: every compiled kernel variant the bundled scenarios play, then each exact
    solver (its module's ``variant(plan)`` names it, where it has several), with the
    scenarios it covers: the first that solves under the default bound is timed."""
    import odds
    from odds.core import exact
    from odds.rulesets import get_ruleset

    ruleset = get_ruleset(ruleset_id)
    kernel = importlib.import_module(ruleset.kernel)
    out, seen, solved = [], set(), {}
    for file in sorted(SCENARIOS.glob(f"{ruleset_id}_*.toml")):
        scenario = odds.load(file)
        variant = kernel.variant(ruleset.compile(scenario)) if hasattr(kernel, "variant") \
            else "kernel"
        if variant not in seen:
            seen.add(variant)
            out.append((f"simulate ({variant})", file, []))
        if exact.covers(ruleset, scenario) is None:
            module = exact.module(ruleset)
            name = f"exact ({module.variant(ruleset.compile(scenario))})" \
                if hasattr(module, "variant") else "exact solver"
            solved.setdefault(name, []).append(file)
    for name, files in solved.items():
        out.append((name, files, ["--method", "exact"]))
    return out


def cpu_run(argv: list[str], cache: Path, may_fail: bool = False):
    """(CPU seconds, wall seconds) of ``odds ARGV`` in a fresh process using ``cache``; None
    if it failed and ``may_fail``."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    run = subprocess.run([sys.executable, "-m", "odds", *argv, "--quiet"], env=env,
                         capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if run.returncode != 0:
        if may_fail:
            return None
        raise SystemExit(f"odds {' '.join(argv)} failed:\n{run.stderr}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def main() -> None:
    from odds.rulesets import RULESETS

    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--only", nargs="*", choices=RULESETS, default=list(RULESETS))
    parser.add_argument("--trials", type=int, default=1_000,
                        help="fights of the first answer (default 1,000)")
    parser.add_argument("--warm-trials", type=int, default=100_000,
                        help="fights of the warm run (default 100,000)")
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores; Python "
          f"{platform.python_version()}, numba {numba.__version__}; "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"{'ruleset':12} {'path':58} {'cold CPU s':>10} {'wall s':>7} {'warm CPU s':>10} "
          f"{f'warm {args.warm_trials:,} CPU s':>20}")
    for ruleset in args.only:
        for name, files, extra in paths(ruleset):
            for k, file in enumerate(files if extra else [files]):
                with tempfile.TemporaryDirectory(prefix="odds-cold-") as cache:
                    sized = [] if extra else ["--trials", str(args.trials)]
                    first = [str(file.relative_to(ROOT))] + sized + extra
                    ran = cpu_run(["simulate", *first], Path(cache),
                                  may_fail=bool(extra) and k + 1 < len(files))
                    if ran is not None:  # else past the solver's bound: the next one
                        measure(ruleset, name, file, extra, ran, first, Path(cache), args)
                        break


def measure(ruleset, name, file, extra, ran, first, cache, args) -> None:
    """Print one path's line: its cold run ``ran``, then the same warm, and (a kernel) a
    warm run of ``--warm-trials`` fights."""
    cold, wall = ran
    warm, _ = cpu_run(["simulate", *first], cache)
    line = f"{ruleset:12} {name + ': ' + file.stem:58} {cold:10.1f} {wall:7.1f} {warm:10.1f}"
    if not extra:
        big, _ = cpu_run(["simulate", str(file.relative_to(ROOT)), "--trials",
                          str(args.warm_trials)], cache)
        line += f" {big:20.1f}"
    print(line, flush=True)


if __name__ == "__main__":
    main()
