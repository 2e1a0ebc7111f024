"""The ``odds`` command line: ``odds simulate SCENARIO`` and ``odds examples``."""
from __future__ import annotations

import argparse
import sys

from odds.errors import ScenarioError

EXIT_BAD_INPUT = 2


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="odds", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sim = sub.add_parser("simulate", help="play a scenario's fights and print the odds")
    sim.add_argument("scenario", help="scenario TOML file (see `odds examples`)")
    sim.add_argument("--trials", type=_positive, help="fights to play (default: the file's)")
    sim.add_argument("--seed", type=_non_negative, help="random seed (default: the file's)")
    sim.add_argument("--threads", type=_positive, help="threads (default: all cores)")
    sim.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    sim.add_argument("--csv", metavar="FILE", help="write the summary as tidy CSV")
    sim.add_argument("--quiet", action="store_true", help="no progress bar")
    sub.add_parser("examples", help="list the bundled example scenarios")
    args = parser.parse_args(argv)
    try:
        if args.command == "examples":
            return _examples()
        return _simulate(args)
    except ScenarioError as e:
        print(f"odds: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT


def _simulate(args) -> int:
    from odds.api import simulate

    result = simulate(args.scenario, trials=args.trials, seed=args.seed, threads=args.threads,
                      progress=not args.quiet and not args.json)
    if args.csv:
        try:
            result.to_csv(args.csv)
        except OSError as e:
            raise ScenarioError(f"cannot write CSV: {e.strerror}", args.csv) from None
    print(result.to_json() if args.json else result)
    return 0


def _examples() -> int:
    from odds.core.data import examples

    for path in examples():
        print(path)
    return 0


def _positive(text: str) -> int:
    value = _integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _non_negative(text: str) -> int:
    value = _integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, got {value}")
    return value


def _integer(text: str) -> int:
    try:
        return int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
