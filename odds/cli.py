"""The ``odds`` command line: simulate a scenario, compare loadouts, sweep a parameter, play
army lists against each other."""
from __future__ import annotations

import argparse
import errno
import os
import re
import shlex
import sys
from pathlib import Path

from odds.errors import ScenarioError

EXIT_BAD_INPUT = 2
EXIT_CLUSTER_FAILED = 1  # not the input's fault: the run may be tried again
EXIT_IMPRECISE = 3  # --precision was not met (a cell stopped at the trial cap); output written


class UsageError(Exception):
    """A mistake in the command line itself (an option, an argument): one line, exit 2."""


class _Parser(argparse.ArgumentParser):
    """argparse with errors as one line ``odds: error: ...`` (exit 2) instead of the usage."""

    def error(self, message: str):
        raise UsageError(f"{message.removeprefix('argument ')} (see `{self.prog} --help`)")


def main(argv: list[str] | None = None) -> int:
    try:
        args = _parser().parse_args(argv)
    except UsageError as e:
        return _fail(str(e))
    except SystemExit as e:  # --help, --version
        return e.code or 0
    try:
        return COMMANDS[args.command](args)
    except ScenarioError as e:
        return _fail(_option_error(e))
    except UsageError as e:
        return _fail(str(e))
    except BrokenPipeError:  # e.g. `odds simulate ... | head`: the reader has gone
        sys.stdout = open(os.devnull, "w")
        return 0
    except Exception as e:  # the Dask cluster failed (e.g. workers lost again and again)
        if type(e).__module__.split(".")[0] not in ("distributed", "dask"):
            raise
        said = " ".join(str(e).split())  # one line, whatever Dask's message holds
        print(f"odds: error: --scheduler: the cluster failed: {type(e).__name__}: {said}",
              file=sys.stderr)
        return EXIT_CLUSTER_FAILED


# how the Python API's messages name its arguments, and the options that set them here
_SPELLED = ((re.compile(r"\bmethod '(mc|exact|auto)'"), r"--method \1"),
            (re.compile(r"\b(max_states|max_trials|both_ways)\b"),
             lambda m: "--" + m[1].replace("_", "-")),
            (re.compile(r"(?<![-\w])(precision|trials)\b"), r"--\1"),
            (re.compile(r"\bdrop the client\b"), "drop --scheduler"))
_OPTIONS = {"client": "scheduler"}  # an argument of the Python API set by another option


def _option_error(e: ScenarioError) -> str:
    """A mistake the Python API blames on an argument (``<arguments>``, ``odds.compare``...)
    is the option's, in the command line's words: ``--method: ... give --method auto``."""
    if e.source not in ("<arguments>", "odds.compare", "odds.sweep", "odds.roster"):
        return str(e)
    message = e.message
    for pattern, spelled in _SPELLED:
        message = pattern.sub(spelled, message)
    option = _OPTIONS.get(e.field, e.field)
    return f"--{option.replace('_', '-')}: {message}" if e.field else message


def _fail(message: str) -> int:
    print(f"odds: error: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def _parser() -> argparse.ArgumentParser:
    from odds.rulesets import ruleset_ids
    from odds.version import __version__

    known = ruleset_ids()
    parser = _Parser(prog="odds", description="Monte Carlo combat odds for tabletop wargame "
                     "melee: simulate a scenario, compare loadouts, sweep a parameter, rank "
                     "the units of army lists.")
    parser.add_argument("--version", action="version", version=f"odds {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    sim = sub.add_parser("simulate", help="play a scenario's fights and print the odds")
    sim.add_argument("scenario", help="scenario TOML file (see `odds examples`)")
    _common(sim)

    cmp = sub.add_parser("compare", help="play every variant against every opponent")
    cmp.add_argument("comparison", help="comparison TOML file (base, variants, opponents)")
    cmp.add_argument("--baseline", metavar="VARIANT",
                     help="the variant the others are measured against (default: the file's "
                          "baseline, else its first variant)")
    _common(cmp, metric=True)

    swp = sub.add_parser("sweep", help="play a scenario for each value of one parameter")
    swp.add_argument("scenario", help="scenario TOML file")
    swp.add_argument("path", help="what to vary, e.g. defender.models[0].count")
    swp.add_argument("values", help="comma-separated values (5,10,20), or a range of whole "
                                    "numbers FIRST..LAST or FIRST..LAST..STEP (10..40..5)")
    _common(swp, metric=True)

    rst = sub.add_parser("roster", help="play every unit of one army list against every unit "
                                        "of another (or of itself)")
    rst.add_argument("mine", help="roster TOML file: the list whose units are ranked")
    rst.add_argument("theirs", nargs="?",
                     help="the opponents' roster (default: MINE against itself, every "
                          "ordered pair)")
    rst.add_argument("--both-ways", action="store_true",
                     help="also play each pair with THEIRS charging")
    rst.add_argument("--baseline", metavar="UNIT",
                     help="MINE's unit the others are paired with (default: the first)")
    _list_options(rst)
    _common(rst, metric=True)

    imp = sub.add_parser("import", help="read an army list exported from BattleScribe or New "
                                        "Recruit (.ros, .rosz) into an odds roster")
    imp.add_argument("army_list", metavar="LIST", help="the exported list: .ros or .rosz")
    imp.add_argument("-o", "--output", metavar="FILE",
                     help="write the roster TOML here (default: standard output)")
    _list_options(imp)

    val = sub.add_parser("validate", help="check scenario, comparison, roster or pack files "
                                          "(or exported army lists) without playing")
    val.add_argument("files", nargs="+", metavar="FILE",
                     help="scenario, comparison, roster or pack TOML files, or .ros/.rosz "
                          "army lists")
    _list_options(val)

    ex = sub.add_parser("examples", help="list the bundled example scenarios, comparisons, "
                                         "rosters and army lists")
    ex.add_argument("--kind", choices=("scenario", "comparison", "roster", "army-list"),
                    help="only files of this kind")
    ex.add_argument("--paths", action="store_true",
                    help="bare paths, one a line (for shell loops)")

    sub.add_parser("rulesets", help="list the rulesets a scenario may name")
    wpn = sub.add_parser("weapons", help="list what a scenario of one ruleset may name: "
                                         "weapons, armour, special rules")
    wpn.add_argument("ruleset", choices=known, metavar="RULESET",
                     help=f"one of {', '.join(known)}")
    uni = sub.add_parser("units", help="list the units a scenario or roster of one ruleset "
                                       "may pick by name (unit = \"...\"), with points")
    uni.add_argument("ruleset", choices=known, metavar="RULESET",
                     help=f"one of {', '.join(known)}")
    uni.add_argument("names", nargs="*", metavar="NAME",
                     help="show these units in full: stat lines, equipment and rules, as "
                          "TOML a scenario may hold")
    uni.add_argument("--pack", action="append", default=[], metavar="FILE",
                     help="a pack of your own, listed before the bundled one (repeatable)")
    srv = sub.add_parser("serve", help="a web app in your browser, served from this machine "
                                       '(needs pip install "odds[web]")')
    srv.add_argument("--port", type=_port, default=5006, help="port (default 5006; 0: any free)")
    srv.add_argument("--host", default="127.0.0.1",
                     help="address to listen on (default 127.0.0.1: this machine only)")
    srv.add_argument("--show", action="store_true", help="open the page in a browser")
    return parser


def _list_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--map", metavar="FILE",
                   help="your own names for an exported list's entries, on top of odds' "
                        "(TOML with the keys of odds' army_lists.toml)")
    p.add_argument("--skip-unknown", action="store_true",
                   help="drop the entries odds cannot play (each is listed) instead of "
                        "failing")


def _common(p: argparse.ArgumentParser, metric: bool = False) -> None:
    """The options simulate, compare, sweep and roster share."""
    from odds.scenario import SIMULATION

    trials, seed = SIMULATION["trials"][0], SIMULATION["seed"][0]
    p.add_argument("--trials", type=_checked("--trials", trials, int),
                   help="fights to play, 1 to 10^12 (default: the file's)")
    p.add_argument("--seed", type=_checked("--seed", seed, int),
                   help="random seed, 0 to 2^63-1 (default: the file's)")
    p.add_argument("--threads", type=_checked("--threads", _at_least_one, int),
                   help="threads (default: all cores; more than the cores are capped)")
    p.add_argument("--precision", type=_checked("--precision", _half_width, float),
                   metavar="HALF_WIDTH",
                   help="play until every outcome's 95%% interval is at most this wide on each "
                        "side (e.g. 0.005), instead of a fixed number of trials")
    p.add_argument("--max-trials", type=_checked("--max-trials", trials, int),
                   help="fights at most per run with --precision (default 100,000,000)")
    p.add_argument("--method", choices=("mc", "exact", "auto"), default="mc",
                   help="mc: simulate (default); exact: solve the fights exactly (exact "
                        "probabilities, no noise; an error when the solver cannot); auto: "
                        "solve when it can, else simulate, and say which")
    p.add_argument("--max-states", type=_checked("--max-states", _at_least_one, int),
                   help="fight states the exact solver may hold at once (default "
                        "1,000,000; mordheim 20,000, wh40k3 70,000)")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.add_argument("--csv", metavar="FILE", help="write tidy CSV (- for standard output, "
                                                 "instead of the table)")
    p.add_argument("--plot", metavar="FILE.png", help="write the chart(s) (.png, .svg, .pdf...)")
    if metric:
        p.add_argument("--metric", metavar="COLUMN",
                       help="the column --plot draws: a probability or a mean, e.g. "
                            "defender_wins, mean_rounds (default attacker_wins)")
    p.add_argument("--quiet", action="store_true",
                   help="no progress bar, no notice that a kernel is being compiled")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="play the fights on the Dask cluster of this scheduler, e.g. "
                        "tcp://HOST:8786 (same numbers; needs pip install \"odds[dask]\")")


def _checked(option: str, check, kind):
    """An argparse type: ``kind`` from the text, then ``check(value, where)``, errors naming
    the option (``--trials: must be from 1 to ...``)."""
    from odds.core.schema import Where

    def parse(text: str):
        try:
            value = _whole(text) if kind is int else kind(text)
        except ValueError:
            noun = "a whole number" if kind is int else "a number"
            raise argparse.ArgumentTypeError(f"must be {noun}, got {text!r}") from None
        try:
            return check(value, Where(option, ""))
        except ScenarioError as e:
            raise argparse.ArgumentTypeError(e.message) from None

    return parse


def _whole(text: str) -> int:
    """A whole number as people write one: 1000000, 1_000_000, 1,000,000, 1e6 or 2.5e5."""
    plain = text.strip().replace("_", "").replace(",", "")
    try:
        return int(plain)
    except ValueError:
        value = float(plain)  # 1e6; a ValueError for words
    if not value.is_integer():  # also nan and inf
        raise ValueError(text)
    return int(value)


def _at_least_one(value: int, where) -> int:
    if value < 1:
        raise where.error(f"must be at least 1, got {value}")
    return value


def _half_width(value: float, where) -> float:
    if not 0 < value < 0.5:  # also rejects nan
        raise where.error(f"must be between 0 and 0.5, got {value}")
    return value


def _run_options(args) -> dict:
    """The shared run options, after the checks that span options."""
    if args.csv == "-" and args.json:
        raise UsageError("--csv - and --json both write to standard output: give one")
    for option, path in (("--csv", args.csv), ("--plot", args.plot)):
        if path is not None and path != "-":
            _check_writable(option, Path(path))
    if args.plot == "-":
        raise UsageError("--plot: give a file name, e.g. odds.png")
    if args.plot is not None:
        _check_image(Path(args.plot))
    _check_run(args)
    return dict(trials=args.trials, seed=args.seed, threads=args.threads,
                precision=args.precision, max_trials=args.max_trials,
                progress=not args.quiet, quiet=args.quiet, scheduler=args.scheduler,
                method=args.method, max_states=args.max_states)


def _check_run(args) -> None:
    """The run options, alone and together (--trials or --precision, --max-trials with
    --precision, --method and --max-states...): the run engine's own check
    (odds.play.options), its messages in the command line's words."""
    from odds.play import options

    options.check(method=args.method, max_states=args.max_states, trials=args.trials,
                  seed=args.seed, threads=args.threads, precision=args.precision,
                  max_trials=args.max_trials,
                  client=args.scheduler if args.method == "exact" else None)


def _connected(options: dict) -> dict:
    """The run options with ``--scheduler`` connected (after every check of the input, so a
    mistake is reported first): ``client``, or None to play here."""
    return {**{k: v for k, v in options.items() if k != "scheduler"},
            "client": _client(options.get("scheduler"))}


def _client(address: str | None):
    """The Dask client of ``--scheduler``, closed when odds exits (None: play here)."""
    if address is None:
        return None
    import atexit

    from odds.core import distributed

    try:
        client = distributed.connect(address)
    except (ImportError, ConnectionError, ValueError) as e:  # no dask, no scheduler, no odds
        raise UsageError(f"--scheduler: {e}") from None
    import logging

    logging.getLogger("distributed").setLevel(logging.CRITICAL)  # odds says what failed
    atexit.register(client.close)
    return client


def _check_writable(option: str, path: Path) -> None:
    """Before any fight: the file can be written (its folder exists, it is not a folder)."""
    folder = path.parent
    code = (errno.ENOENT if not folder.is_dir() else errno.EISDIR if path.is_dir()
            else errno.EACCES if not os.access(folder, os.W_OK)
            or (path.exists() and not os.access(path, os.W_OK)) else None)
    if code is not None:
        raise UsageError(f"{option}: cannot write {str(path)!r}: {os.strerror(code)}")


def _inputs(args, load):
    """``load()``, which reads the run's input files, then the check that no output option
    names one of them (so `--csv scenario.toml` cannot replace the scenario), before any
    fight is played."""
    from odds.core.data import files_read

    with files_read() as read:
        loaded = load()
    outputs = [(option, Path(path)) for option, path in _outputs(args)]
    for option, path in outputs:
        for file in sorted(read):
            if _same_file(path, file):
                also = "" if str(file) == str(path) else f" ({file})"
                raise UsageError(f"{option}: {str(path)!r} is one of this run's input "
                                 f"files{also}; writing there would replace it: name another "
                                 "file")
    for (first, a), (second, b) in zip(outputs, outputs[1:]):
        if _same_file(a, b):
            raise UsageError(f"{first} and {second} name the same file {str(a)!r}: give each "
                             "its own")
    return loaded


def _outputs(args) -> list[tuple[str, str]]:
    """The files the command writes, by option (``-`` is standard output, not a file)."""
    return [(option, path) for option, path in (("--csv", getattr(args, "csv", None)),
                                                ("--plot", getattr(args, "plot", None)),
                                                ("--output", getattr(args, "output", None)))
            if path is not None and path != "-"]


def _same_file(a: Path, b: Path) -> bool:
    """Whether two paths name one file (also through links, or letter case where the file
    system ignores it)."""
    if a.resolve() == b.resolve():
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist yet
        return False


def _check_image(path: Path) -> None:
    from matplotlib.backend_bases import FigureCanvasBase

    formats = FigureCanvasBase.get_supported_filetypes()
    if path.suffix[1:].lower() not in formats:
        raise UsageError(f"--plot: name the image with one of the extensions "
                         f"{', '.join('.' + f for f in sorted(formats))}; got {str(path)!r}")


def _write(option: str, path: str, writer) -> None:
    """Write one output file; an OS error names the option, the file and the reason."""
    try:
        writer(path)
    except OSError as e:
        reason = e.strerror or str(e)
        raise UsageError(f"{option}: cannot write {path!r}: {reason}") from None


def _emit(args, outcome, figure) -> int:
    """The shared outputs: --csv, --plot, then the table or --json on stdout; why --method
    auto simulated goes to stderr too (unless --quiet)."""
    if getattr(outcome, "method_note", None) and not args.quiet:
        print(f"odds: {outcome.method_note}", file=sys.stderr)
    if args.csv == "-":
        outcome.to_csv(sys.stdout)
    elif args.csv:
        _write("--csv", args.csv, outcome.to_csv)
    if args.plot:  # closed once written: main() called again must not pile figures up
        import matplotlib.pyplot as plt

        drawn = figure()
        try:
            _write("--plot", args.plot, drawn.savefig)
        finally:
            plt.close(drawn)
    if args.json:
        print(outcome.to_json())
    elif args.csv != "-":
        print(outcome)
    missed = _imprecise(outcome)
    if missed:
        print(f"odds: --precision {args.precision} was not met in {missed} (the trial cap, "
              f"--max-trials, was reached first); exit code {EXIT_IMPRECISE}", file=sys.stderr)
        return EXIT_IMPRECISE
    return 0


def _imprecise(outcome) -> str | None:
    """What stopped at the trial cap before reaching --precision ("the run", "2 of 6
    cells"), or None."""
    frame = getattr(outcome, "frame", None)
    met = [outcome.precision_met] if frame is None else list(frame["precision_met"])
    missed = sum(m is False for m in met)
    if not missed:
        return None
    return "the run" if frame is None else f"{missed} of {len(met)} cells"


def _check_kind(path: str, wanted: str, command: str) -> None:
    """The file is what the command plays: a scenario, a comparison or a roster."""
    from odds.analysis.roster_file import file_kind
    from odds.lists import is_army_list

    if is_army_list(path):
        raise ScenarioError(f"is an exported army list, not a {wanted} file: play its units "
                            f"against another list's with `odds roster {path} THEIRS`, or "
                            f"write it out as a roster with `odds import {path} -o "
                            "roster.toml`", path)
    kind = file_kind(path)
    if kind == wanted:
        return
    if kind in ("roster", "pack") or wanted == "roster":
        plays = {"scenario": "odds simulate", "comparison": "odds compare",
                 "roster": "odds roster", "pack": "odds units RULESET --pack"}
        raise ScenarioError(f"is a {kind} file, not a {wanted}: `odds {command}` needs a "
                            f"{wanted} file; to use this one: {plays[kind]} {path}", path)
    if kind == "scenario":
        from odds.core.data import read_toml

        named = "ruleset" in read_toml(path)
        what = ("is a scenario (it names a ruleset), not a comparison" if named else
                "is not a comparison: it has no base, variants or opponents")
        hint = f"; to play this scenario: odds simulate {path}" if named else ""
        raise ScenarioError(f"{what}: `odds compare` needs a comparison file with base = "
                            "\"SCENARIO.toml\" and [[variants]] / [[opponents]] (see `odds "
                            f"examples --kind comparison`){hint}", path)
    raise ScenarioError(f"is a comparison (no ruleset; a base, variants or opponents), not a "
                        f"scenario: `odds {command}` needs a scenario file; to play this "
                        f"comparison: odds compare {path}", path)


def _metric(args, scenario, paired: bool) -> str:
    """The column --plot draws (checked before any fight), attacker_wins by default."""
    from odds.analysis.compare import metrics

    if args.metric is None:
        return "attacker_wins"
    if args.plot is None:
        raise UsageError("--metric chooses the column --plot draws: give --plot too")
    metric, columns = args.metric, metrics(scenario, paired)
    if metric not in columns:
        import difflib

        near = difflib.get_close_matches(metric, columns, n=3)
        hint = f"; did you mean {', '.join(near)}?" if near else ""
        raise UsageError(f"--metric: no column {metric!r}{hint} (a probability such as "
                         f"attacker_wins, or a mean such as mean_rounds; see the --csv header)")
    return metric


def _simulate(args) -> int:
    from odds.api import simulate
    from odds.scenario import load

    _check_kind(args.scenario, "scenario", "simulate")
    options = _run_options(args)
    _inputs(args, lambda: load(args.scenario))
    if options["precision"] is None:
        options.pop("max_trials")
    result = simulate(args.scenario, **_connected(options))

    def figure():
        from odds.plots import result_figure

        return result_figure(result)

    return _emit(args, result, figure)


def _compare(args) -> int:
    from odds.analysis.compare import compare
    from odds.analysis.comparison_file import check_baseline, load_comparison

    _check_kind(args.comparison, "comparison", "compare")
    options = _run_options(args)
    spec = _inputs(args, lambda: load_comparison(args.comparison))
    if args.baseline is not None:
        check_baseline(spec["variants"], args.baseline, "--baseline", field="")
    metric = _metric(args, spec["base"], paired=True)
    comparison = compare(args.comparison, baseline=args.baseline, **_connected(options))
    return _emit(args, comparison, lambda: comparison.heatmap(metric).figure)


def _sweep(args) -> int:
    from odds.analysis.sweep import sweep
    from odds.scenario import load

    _check_kind(args.scenario, "scenario", "sweep")
    options = _run_options(args)
    values = _values(args.values)
    metric = _metric(args, _inputs(args, lambda: load(args.scenario)), paired=False)
    result = sweep(args.scenario, args.path, values, **_connected(options))
    return _emit(args, result, lambda: result.plot(metric).figure)


def _roster(args) -> int:
    from odds.analysis.round_robin import cells, play_cells
    from odds.analysis.roster_file import as_roster
    from odds.core.schema import Where

    from odds.lists import is_army_list

    lists = [p for p in (args.mine, args.theirs) if p is not None and is_army_list(p)]
    for path in filter(None, (args.mine, args.theirs)):
        if path not in lists:
            _check_kind(path, "roster", "roster")
    if not lists and (args.map or args.skip_unknown):
        raise UsageError("--map and --skip-unknown read exported army lists (.ros, .rosz): "
                         "neither roster is one")
    options = _run_options(args)

    read_once: dict = {}  # a list played against itself is read (and reported) once

    def read(path):
        if path is None or path not in lists:
            return None if path is None else as_roster(path)
        if path not in read_once:
            read_once[path] = _imported(path, args).roster
        return read_once[path]

    mine, theirs = _inputs(args, lambda: (read(args.mine), read(args.theirs)))
    grid, labels = cells(mine, theirs, args.both_ways, args.baseline,
                         named=lambda name: Where("--" + name.replace("_", "-"), ""))
    metric = _metric(args, next(iter(grid.values())), paired=True)
    robin = play_cells(mine, theirs, args.both_ways, grid, labels, args.baseline,
                       **_connected(options))

    def figure():
        from odds.plots import round_robin_figure

        return round_robin_figure(robin, metric)

    return _emit(args, robin, figure)


def _import(args) -> int:
    from odds.lists import is_army_list

    if not is_army_list(args.army_list):
        raise UsageError(f"LIST: {args.army_list!r} is not an exported army list: give a "
                         ".ros or .rosz file (BattleScribe or New Recruit's roster export)")
    out = None if args.output in (None, "-") else Path(args.output)
    if out is not None:
        _check_writable("--output", out)
        if out.suffix.lower() in (".ros", ".rosz"):
            raise UsageError(f"--output: {args.output!r} would be an army list; the roster "
                             "odds writes is TOML: name a .toml file")
    imported = _inputs(args, lambda: _imported(args.army_list, args, brief=False))
    text = imported.toml()
    if out is None:
        sys.stdout.write(text)
    else:
        _write("--output", str(out), lambda path: Path(path).write_text(text, "utf-8"))
        print(f"wrote {out} ({len(imported.units)} units): play it with `odds roster {out}`",
              file=sys.stderr)
    return 0


def _imported(path: str, args, brief: bool = True):
    """An exported list read with the command's --map and --skip-unknown; its report on
    stderr (in full for `odds import`, counted for `odds roster`)."""
    from odds.lists import import_list
    from odds.lists.report import said

    imported = import_list(path, map=args.map, skip_unknown=args.skip_unknown)
    again = shlex.join(["odds", "import", path] + (["--map", args.map] if args.map else [])
                       + (["--skip-unknown"] if args.skip_unknown else []))
    print(said(imported, again if brief else None), file=sys.stderr)
    return imported


def _values(text: str) -> list:
    """"5,10,20" -> [5, 10, 20]; "5..30..5" -> [5, 10, ..., 30]; words stay strings."""
    from odds.analysis.sweep import MAX_VALUES

    def bad(why: str) -> UsageError:
        return UsageError(f"VALUES {text!r}: {why}")

    if ".." in text:
        parts = text.split("..")
        if len(parts) > 3:
            raise bad("a range is FIRST..LAST or FIRST..LAST..STEP, with at most three parts")
        try:
            first, last, step = (int(p.strip()) for p in parts + ["1"] * (3 - len(parts)))
        except ValueError:
            raise bad("a range is FIRST..LAST or FIRST..LAST..STEP in whole numbers; list "
                      "other values with commas") from None
        if step < 1:
            raise bad(f"the STEP must be a whole number of at least 1, got {step}")
        if first > last:
            raise bad(f"FIRST must not be above LAST ({first} > {last})")
        count = (last - first) // step + 1
        if count > MAX_VALUES:
            raise bad(f"{count:,} values; a sweep has at most {MAX_VALUES:,}")
        return list(range(first, last + 1, step))
    items = _items(text)
    if not all(items):
        raise bad("an empty value (two commas in a row, or one at an end)")
    if len(items) > MAX_VALUES:
        raise bad(f"{len(items):,} values; a sweep has at most {MAX_VALUES:,}")
    return [_toml_value(v, bad) if v[0] in "[{\"'" else _scalar(v) for v in items]


def _items(text: str) -> list[str]:
    """``text`` cut at its commas outside brackets, braces and quotes: one sweep value each
    (``["bolt pistol", "power fist"], ["bolt pistol"]`` is two lists)."""
    items, depth, quote, start = [], 0, None, 0
    for i, c in enumerate(text):
        if quote:
            quote = None if c == quote else quote
        elif c in "\"'":
            quote = c
        elif c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
        elif c == "," and depth == 0:
            items.append(text[start:i].strip())
            start = i + 1
    return items + [text[start:].strip()]


def _toml_value(text: str, bad):
    """One value written in TOML: a list (``["bolt pistol", "power fist"]``), a quoted
    string or an inline table."""
    import tomllib

    try:
        return tomllib.loads(f"value = {text}")["value"]
    except tomllib.TOMLDecodeError as e:
        raise bad(f"{text!r} is not a TOML value ({e}); write a list as [\"a\", \"b\"] "
                  "and quote names that hold commas") from None


def _scalar(text: str):
    """A value as TOML would read it: a whole number, a finite number, true/false, or text."""
    import math

    for kind in (int, float):
        try:
            value = kind(text)
        except ValueError:
            continue
        if math.isfinite(value):
            return value
    return {"true": True, "false": False}.get(text, text)


def _validate(args) -> int:
    from odds.analysis.comparison_file import load_comparison
    from odds.analysis.report import count
    from odds.analysis.roster_file import file_kind
    from odds.scenario import load

    from odds.lists import import_list, is_army_list

    if (args.map or args.skip_unknown) and not any(map(is_army_list, args.files)):
        raise UsageError("--map and --skip-unknown read exported army lists (.ros, .rosz): "
                         "no FILE is one")
    for path in args.files:
        if is_army_list(path):
            imported = import_list(path, map=args.map, skip_unknown=args.skip_unknown)
            dropped = len(imported.report.problems)
            print(f"{path}: ok (army list, {imported.roster.ruleset}, {imported.roster.name!r}, "
                  f"{count(len(imported.units), 'unit')}"
                  + (f", {dropped} entr{'y' if dropped == 1 else 'ies'} dropped" if dropped
                     else "") + ")")
            continue
        kind = file_kind(path)
        if kind == "roster":
            from odds.analysis.roster_file import as_roster

            r = as_roster(path)
            print(f"{path}: ok (roster, {r.ruleset}, {r.name!r}, "
                  f"{count(len(r.units), 'unit')})")
        elif kind == "pack":
            from odds.analysis.pack_listing import check_pack

            ruleset, units = check_pack(path)
            print(f"{path}: ok (pack, {ruleset}, {count(units, 'unit')})")
        elif kind == "comparison":
            spec = load_comparison(path)  # checks the baseline too
            base = spec["base"]
            print(f"{path}: ok (comparison, {base.ruleset}, {spec['name']!r}, "
                  f"{count(len(spec['variants']), 'variant')} x "
                  f"{count(len(spec['opponents']), 'opponent')}, "
                  f"base {base.source})")
        else:
            sc = load(path)
            print(f"{path}: ok (scenario, {sc.ruleset}, {sc.name!r}, "
                  f"{count(sc.simulation['trials'], 'fight')}, seed {sc.simulation['seed']})")
    return 0


def _examples(args) -> int:
    from odds.analysis.report import table
    from odds.analysis.roster_file import file_kind
    from odds.core.data import data_path, read_toml

    rows = []
    for folder in ("scenarios", "comparisons", "rosters"):
        for path in sorted(data_path(folder).glob("*.toml")):
            data = read_toml(path)
            kind = file_kind(str(path))
            title = data.get("name", path.stem)
            if kind == "comparison":
                data = read_toml(path.parent / data["base"])
            if args.kind in (None, kind):
                rows.append([kind, data["ruleset"], title, str(path)])
    if args.kind in (None, "army-list"):
        from odds.lists import bundled_lists

        rows += [["army-list", ruleset, title, str(path)] for path, ruleset, title in
                 bundled_lists()]
    if args.paths:
        print("\n".join(path for *_, path in rows))
    else:
        print("\n".join(table(rows, ["kind", "ruleset", "title", "path"], left=4)))
    return 0


def _rulesets(args) -> int:
    from odds.analysis.report import table
    from odds.rulesets import get_ruleset, ruleset_ids

    rows = [[r, get_ruleset(r).title] for r in ruleset_ids()]
    print("\n".join(table(rows, ["ruleset", "title"], left=2)))
    return 0


def _units(args) -> int:
    from odds.analysis.report import number, table
    from odds.analysis.pack_listing import listing

    from odds.lists import is_army_list

    for path in args.pack:
        if not Path(path).is_file():
            raise UsageError(f"--pack: no pack file {path!r}")
        if is_army_list(path):
            raise UsageError(f"--pack: {path!r} is an exported army list, not a pack: write "
                             f"it out as a roster with `odds import {path} -o roster.toml`")
    if args.names:
        from odds.analysis.pack_listing import written_out

        print("\n".join(written_out(args.ruleset, name, args.pack) for name in args.names),
              end="")
        return 0
    own = bool(args.pack)  # which pack each unit is from matters only with packs of one's own
    rows = [[r["unit"], r["models"], r["source"]] + [r["pack"]] * own + [number(r["points"], 0)]
            for r in listing(args.ruleset, args.pack)]
    names = ["unit", "models", "source"] + ["pack"] * own + ["points"]
    print("\n".join(table(rows, names, left=len(names) - 1)))
    print(f"\n`odds units {args.ruleset} NAME` shows a unit's stat lines, equipment and rules")
    return 0


def _weapons(args) -> int:
    from odds.analysis.catalogues import listing

    print("\n".join(listing(args.ruleset)))
    return 0


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise UsageError(f"--port: must be a whole number from 0 to 65535, got {text!r}")
    return port


def _serve(args) -> int:
    try:
        from odds.web.server import serve
    except ImportError as error:
        raise UsageError(str(error)) from None
    try:
        serve(args.port, args.host, args.show)
    except ImportError as error:
        raise UsageError(str(error)) from None
    except OSError as error:
        raise UsageError(f"--port: cannot listen on {args.host}:{args.port}: "
                         f"{error.strerror or error}") from None
    return 0


COMMANDS = {"simulate": _simulate, "compare": _compare, "sweep": _sweep, "validate": _validate,
            "examples": _examples, "rulesets": _rulesets, "weapons": _weapons,
            "roster": _roster, "units": _units, "import": _import, "serve": _serve}
