"""The ``odds`` command line: simulate a scenario, compare loadouts, sweep a parameter."""
from __future__ import annotations

import argparse
import os
import sys

from odds.errors import ScenarioError

EXIT_BAD_INPUT = 2


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="odds", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    sim = sub.add_parser("simulate", help="play a scenario's fights and print the odds")
    sim.add_argument("scenario", help="scenario TOML file (see `odds examples`)")
    _common(sim)
    sim.add_argument("--json", action="store_true", help="print one JSON object on stdout")

    cmp = sub.add_parser("compare", help="play every variant against every opponent")
    cmp.add_argument("comparison", help="comparison TOML file (base, variants, opponents)")
    _common(cmp)
    cmp.add_argument("--json", action="store_true", help="print the grid as JSON records")

    swp = sub.add_parser("sweep", help="play a scenario for each value of one parameter")
    swp.add_argument("scenario", help="scenario TOML file")
    swp.add_argument("path", help="what to vary, e.g. defender.models[0].count")
    swp.add_argument("values", help="comma-separated values, or a range FIRST..LAST[..STEP]")
    _common(swp)

    sub.add_parser("examples", help="list the bundled example scenarios and comparisons")
    args = parser.parse_args(argv)
    try:
        if args.command == "examples":
            return _examples()
        return {"simulate": _simulate, "compare": _compare, "sweep": _sweep}[args.command](args)
    except ScenarioError as e:
        print(f"odds: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:  # e.g. `odds simulate ... | head`: the reader has gone
        sys.stdout = open(os.devnull, "w")
        return 0


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--trials", type=_whole(1), help="fights to play (default: the file's)")
    p.add_argument("--seed", type=_whole(0), help="random seed (default: the file's)")
    p.add_argument("--threads", type=_whole(1), help="threads (default: all cores)")
    p.add_argument("--precision", type=_fraction, metavar="HALF_WIDTH",
                   help="play until every headline 95%% interval is at most this wide on each "
                        "side (e.g. 0.005), instead of a fixed number of trials")
    p.add_argument("--max-trials", type=_whole(1), default=100_000_000,
                   help="trial cap for --precision (default 100,000,000)")
    p.add_argument("--csv", metavar="FILE", help="write tidy CSV")
    p.add_argument("--plot", metavar="FILE.png", help="write the charts")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def _simulate(args) -> int:
    from odds.api import simulate

    result = simulate(args.scenario, trials=args.trials, seed=args.seed, threads=args.threads,
                      precision=args.precision, max_trials=args.max_trials,
                      progress=not args.quiet and not args.json)
    _write(args.csv, result.to_csv)
    if args.plot:
        from odds.plots import result_figure

        _write(args.plot, result_figure(result).savefig)
    print(result.to_json() if args.json else result)
    return 0


def _compare(args) -> int:
    from odds.analysis.compare import compare

    comparison = compare(args.comparison, trials=args.trials, seed=args.seed,
                         threads=args.threads, precision=args.precision,
                         progress=not args.quiet and not args.json)
    _write(args.csv, comparison.to_csv)
    if args.plot:
        _write(args.plot, comparison.heatmap().figure.savefig)
    print(comparison.frame.to_json(orient="records", indent=2) if args.json else comparison)
    return 0


def _sweep(args) -> int:
    from odds.analysis.sweep import sweep

    result = sweep(args.scenario, args.path, _values(args.values), trials=args.trials,
                   seed=args.seed, threads=args.threads, precision=args.precision)
    _write(args.csv, result.to_csv)
    if args.plot:
        _write(args.plot, result.plot().figure.savefig)
    f = result.frame
    print(f[["value", "attacker_wins", "attacker_wins_low", "attacker_wins_high",
             "mean_rounds", "attacker_losses_mean", "defender_losses_mean"]]
          .to_string(index=False, float_format="{:.4f}".format))
    return 0


def _write(path, writer) -> None:
    if path:
        try:
            writer(path)
        except OSError as e:
            raise ScenarioError(f"cannot write: {e.strerror}", path) from None


def _values(text: str) -> list:
    """"5,10,20" -> [5, 10, 20]; "5..30..5" -> [5, 10, ..., 30]; words stay strings."""
    if ".." in text:
        try:
            first, last, *step = (int(x) for x in text.split(".."))
        except ValueError:
            raise ScenarioError(f"a range is FIRST..LAST[..STEP] in whole numbers, got {text!r}",
                                "command line", "values") from None
        return list(range(first, last + 1, step[0] if step else 1))
    return [_scalar(v.strip()) for v in text.split(",") if v.strip()]


def _scalar(text: str):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text, text)


def _examples() -> int:
    from odds.core.data import data_path

    for folder in ("scenarios", "comparisons"):
        for path in sorted(data_path(folder).glob("*.toml")):
            print(path)
    return 0


def _whole(least: int):
    def parse(text: str) -> int:
        try:
            value = int(text.replace("_", ""))
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"must be at least {least}, got {value}")
        return value

    return parse


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if not 0 < value < 0.5:
        raise argparse.ArgumentTypeError(f"must be between 0 and 0.5, got {value}")
    return value
