"""Fuzz and property tests: no input makes odds crash, hang or answer nonsense.

Seeded mutants (tests/mutants.py) of every bundled scenario and comparison file, bad command
line options and bad Python arguments. For every mutant the CLI, run in-process, must exit 0
(or 3, output written, for a precision run that missed), or exit 2 with nothing on stdout
and exactly one line ``odds: error: FILE: FIELD: message`` on stderr (``odds: error: FILE:
message`` for file-level errors), never a traceback, never hang. The Python API must raise
only ScenarioError (or a deliberate TypeError), and every result it returns must be
consistent: probabilities that partition the trials sum to 1 and
every 95% interval contains its estimate.

This suite is expected to pass once the fixes of issue 10 ("Hardening") land; until then many
mutants fail, on purpose: nothing here is marked xfail or loosened. A failure lists every
failing mutant, grouped by kind; ``python tests/mutants.py FILE K`` prints mutant ``FILE#K``.
"""
from __future__ import annotations

import contextlib
import faulthandler
import io
import json
import math
import random
import re
import shutil
import signal
import tomllib
import traceback
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest

import mutants as m
import odds
from odds.cli import main

TRIALS = 50
PER_SCENARIO = 150  # mutants per bundled scenario file
PER_COMPARISON = 300  # mutants per bundled comparison file
PER_EDIT = 40  # in-place edits of each bundled scenario's Scenario object
STEP_LIMIT = 10  # seconds for one mutant at TRIALS fights: a hang guard, not a speed test
HARD_LIMIT = 120  # seconds: if a kernel never returns, end the run with a traceback dump
ERROR_LINE = re.compile(r"odds: error: (?P<where>.+?): (?P<message>\S.*)")
NO_NONE = re.compile(r"\bNone\b")  # no input is None: "cannot write: None" hides the reason


# --------------------------------------------------------------------- running one step


class StepTimeout(BaseException):
    """A mutant ran past STEP_LIMIT (a BaseException, so no `except Exception` hides it)."""


@dataclass
class Failure:
    mutant: str  # what was run: mutant description and arguments
    kind: str  # what went wrong, the grouping key of the report
    detail: str = ""

    def line(self) -> str:
        return f"  {self.mutant} -> {self.detail}" if self.detail else f"  {self.mutant}"


@contextlib.contextmanager
def guarded():
    """Run one mutant under a soft time limit (a signal) and a hard one (faulthandler, which
    fires even inside a numba kernel), recording numeric RuntimeWarnings."""
    alarm = hasattr(signal, "setitimer")

    def expire(signum, frame):
        raise StepTimeout(f"still running after {STEP_LIMIT} s")

    if alarm:
        previous = signal.signal(signal.SIGALRM, expire)
        signal.setitimer(signal.ITIMER_REAL, STEP_LIMIT)
    faulthandler.dump_traceback_later(HARD_LIMIT, exit=True)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield caught
    finally:
        faulthandler.cancel_dump_traceback_later()
        if alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        _restore_threads()


def _restore_threads() -> None:
    import numba

    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)


ODDS = Path(odds.__file__).parent


def where_raised(exc: BaseException) -> tuple[str, str]:
    """(kind, detail) of an exception: its type, where odds raised or called it (the innermost
    frame in odds, then the innermost of all) and its message with numbers and quoted words
    blanked, so that one bug is one kind; the detail is the message itself."""
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if Path(f.filename).is_relative_to(ODDS)]
    at = [f"{Path(f.filename).relative_to(ODDS.parent)}:{f.lineno}" for f in ours[-1:]]
    if frames and (not ours or frames[-1] is not ours[-1]):
        at.append(f"{Path(frames[-1].filename).name}:{frames[-1].lineno}")
    gist = re.sub(r"'[^']*'|\"[^\"]*\"|\b\d[\d.e+-]*\b", "_", str(exc))
    return f"{type(exc).__name__} @ {' > '.join(at)}: {_clip(gist, 90)}", _clip(str(exc))


def warned(label: str, caught) -> list[Failure]:
    """A numeric RuntimeWarning (division by zero, nan) reaching the user is a failure."""
    return [Failure(label, f"warning {w.category.__name__} @ {Path(w.filename).name}:{w.lineno}:"
                           f" {_clip(str(w.message))}")
            for w in caught if issubclass(w.category, RuntimeWarning)]


def deliberate(exc: BaseException) -> bool:
    """A TypeError that odds raises on purpose (a ``raise`` statement), not one Python raised
    deep inside (``'NoneType' object is not subscriptable``)."""
    frames = traceback.extract_tb(exc.__traceback__)
    return bool(frames and (frames[-1].line or "").lstrip().startswith("raise") and str(exc))


def _clip(text: str, width: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width] + "..."


def no_failures(failures: list[Failure], total: int) -> None:
    """Fail the test with the :func:`report` alone (no traceback: it names every mutant)."""
    if failures:
        pytest.fail(report(failures, total), pytrace=False)


def report(failures: list[Failure], total: int) -> str:
    """Every failing mutant, grouped by kind of failure, most frequent kind first."""
    kinds: dict[str, list[Failure]] = {}
    for f in failures:
        kinds.setdefault(f.kind, []).append(f)
    failed = len({f.mutant for f in failures})
    lines = [f"{failed} of {total} mutants failed, {len(failures)} failures of {len(kinds)} kinds:"]
    for kind, group in sorted(kinds.items(), key=lambda kv: -len(kv[1])):
        lines.append(f"- {kind} ({len(group)}x)")
        lines += [f.line() for f in group]
    return "\n".join(lines)


# ------------------------------------------------------------------------------- the CLI


def run_cli(argv: list[str], label: str, files: tuple[str, ...] | None,
            names: tuple[str, ...] = (), csv: Path | None = None,
            must_fail: str = "", must_pass: bool = False) -> list[Failure]:
    """Run ``odds ARGV`` in-process and check the exit contract.

    ``files``: an error line must start with one of these paths (None: any); ``names``: the
    error line must name one of these; ``must_fail``: why exit 0 is wrong here;
    ``must_pass``: the arguments are good, so exit 2 is wrong. With
    ``--json`` stdout must be strict JSON, with ``csv`` that file must have been written."""
    out, err = io.StringIO(), io.StringIO()
    shown = " ".join(_argv_shown(argv))
    label = f"{label} `odds {shown}`"
    try:
        with guarded() as caught, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as e:
                code = e.code
    except StepTimeout as e:
        return [Failure(label, "hang", str(e))]
    except BaseException as e:  # anything else is a traceback for the user
        kind, detail = where_raised(e)
        return [Failure(label, f"traceback {kind}", detail)]
    code = 0 if code is None else code
    stdout, lines = out.getvalue(), err.getvalue().splitlines()
    failures = warned(label, caught)
    if code == 3 and not ("--precision" in argv and lines
                          and lines[-1].startswith("odds: --precision ")):
        failures.append(Failure(label, "exit 3 without a --precision run that missed"))
    if code in (0, 3):  # 3: done, output written, but --precision was not met
        if must_fail:
            failures.append(Failure(label, f"exit 0, accepting {must_fail}"))
        if any("Traceback" in line for line in lines):
            failures.append(Failure(label, "traceback on stderr after exit 0", lines[-1]))
        if "--json" in argv:
            try:
                json.loads(stdout, parse_constant=_reject)
            except ValueError as e:
                failures.append(Failure(label, "--json output is not strict JSON", _clip(str(e))))
        if csv is not None and not (csv.exists() and csv.read_text().strip()):
            failures.append(Failure(label, "--csv wrote nothing, exit 0"))
        return failures
    last = _clip(lines[-1]) if lines else "(stderr empty)"
    if code != 2:
        return failures + [Failure(label, f"exit {code!r}", last)]
    problems = error_line_problems(lines, files, names)
    if must_pass:
        problems.append("valid input rejected")
    if stdout.strip():
        problems.append("stdout not empty")
    failures += [Failure(label, p, last) for p in problems]
    return failures


def error_line_problems(lines: list[str], files, names: tuple[str, ...]) -> list[str]:
    if len(lines) != 1:
        return [f"exit 2 with {len(lines)} stderr lines, not 1"]
    match = ERROR_LINE.fullmatch(lines[0])
    if not match:
        return ["exit 2, stderr is not `odds: error: FILE: [FIELD: ]message`"]
    problems = []
    if files is not None and not lines[0].startswith(tuple(f"odds: error: {f}: " for f in files)):
        problems.append("error names the wrong file")
    if names and not any(n.lower() in lines[0].lower() for n in names):
        problems.append(f"error does not name {' or '.join(names)}")
    if NO_NONE.search(match["message"]):
        problems.append("error message shows None")
    return problems


def _reject(constant: str):
    raise ValueError(f"{constant} is not JSON")


def _argv_shown(argv):
    """The arguments, absolute paths shortened to their file names."""
    return [Path(a).name if Path(a).is_absolute() and a != "/" else
            (repr(a) if not a or " " in a else a) for a in argv]


# ---------------------------------------------------------------------------- the files


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    """scenarios/ (copies of the bundled ones, which comparisons name), comparisons/ and
    mutants/; every kernel has been loaded (or compiled) once before any step is timed."""
    root = tmp_path_factory.mktemp("fuzz")
    shutil.copytree(m.DATA / "scenarios", root / "scenarios")
    (root / "comparisons").mkdir()
    (root / "mutants").mkdir()
    import matplotlib

    matplotlib.use("Agg")
    for path in m.SCENARIOS:
        odds.simulate(path, trials=TRIALS)
    return root


def _scenario_command(rng, mutant: m.Mutant, path: Path, workdir: Path):
    """One command for a scenario mutant: simulate (table, --json or --csv), sweep or compare."""
    head = ["--trials", str(TRIALS), "--quiet", "--seed", str(rng.randrange(2**32))]
    command = rng.choices(("table", "json", "csv", "sweep", "compare"), (4, 2, 2, 3, 1))[0]
    if command == "sweep":
        spath, values = m.sweep_target(rng, tomllib.loads(mutant.source.read_text("utf-8")))
        return ["sweep", str(path), spath, values, *head], None
    if command == "compare":  # a scenario is not a comparison: always exit 2, saying so
        return ["compare", str(path), *head], None
    if command == "json":
        return ["simulate", str(path), *head, "--json"], None
    if command == "csv":
        csv = workdir / "out.csv"
        csv.unlink(missing_ok=True)
        return ["simulate", str(path), *head, "--csv", str(csv)], csv
    return ["simulate", str(path), *head], None


FILES = m.SCENARIOS + m.COMPARISONS


@pytest.mark.parametrize("source", FILES, ids=lambda p: p.name)
def test_cli_on_file_mutants(source: Path, workdir: Path):
    """Every mutant of the file: exit 0, or exit 2 with one `odds: error: FILE: ...` line."""
    is_comparison = source in m.COMPARISONS
    folder = workdir / ("comparisons" if is_comparison else "mutants")
    path = folder / source.name
    failures, batch = [], m.mutants(source, PER_COMPARISON if is_comparison else PER_SCENARIO)
    for mutant in batch:
        path.write_bytes(mutant.text)
        rng = random.Random(mutant.id)
        csv = None
        if is_comparison:
            command = rng.choices(("compare", "json", "simulate", "sweep"), (6, 2, 1, 1))[0]
            head = [str(path), "--trials", str(TRIALS), "--quiet"]
            argv = {"compare": ["compare", *head], "json": ["compare", *head, "--json"],
                    "simulate": ["simulate", *head],
                    "sweep": ["sweep", head[0], "defender.models[0].count", "1,2", *head[1:]]
                    }[command]
        else:
            argv, csv = _scenario_command(rng, mutant, path, workdir)
        files = None if mutant.refs_changed else (str(path),)
        wrong_kind = (argv[0] != "compare") if is_comparison else (argv[0] == "compare")
        must_fail = "a file of the wrong kind for the command" if wrong_kind else mutant.must_fail
        failures += run_cli(argv, mutant.describe(), files, csv=csv, must_fail=must_fail,
                            must_pass=mutant.must_pass and argv[0] != "sweep"  # VALUES may be bad
                            and not wrong_kind)
    no_failures(failures, len(batch))


@pytest.mark.parametrize("command", ["simulate", "simulate --json", "compare", "sweep"])
def test_cli_on_option_mutants(command: str, workdir: Path):
    """Bad --trials, --seed, --threads, --precision, --max-trials, --csv values (and some
    good edge values) on the bundled files; an error must name the option."""
    failures, batch = [], m.option_mutants()
    verb, *flags = command.split()
    for i, option in enumerate(batch):
        rng = random.Random(f"{command}#{i}")
        source = rng.choice(m.COMPARISONS if verb == "compare" else m.SCENARIOS)
        text = source.read_text("utf-8") if verb == "sweep" else ""
        target = ["defender.models[0].count", "1"] if verb == "sweep" else []
        if verb == "sweep" and "models" not in text:  # units without model groups
            target = ["simulation.max_rounds", "5,10"]
        elif "[[defender.units]]" in text:  # a side of several units
            target = ["defender.units[0].models[0].count", "1"]
        argv = [verb, str(source), *target, *flags, *option.args]
        if "--trials" not in option.args and "--precision" not in option.args:
            argv += ["--trials", str(TRIALS)]
        failures += run_cli(argv + ["--quiet"], f"{source.name} {option.describe()}", None,
                            names=option.names, must_fail="a bad option" if option.bad else "",
                            must_pass=option.bad is False)
    no_failures(failures, len(batch))


def test_cli_on_sweep_arguments(workdir: Path):
    """Bad sweep VALUES (step 0, too many parts, words, empty) and PATHs on every bundled
    scenario that has model groups; a VALUES error names VALUES, a PATH error the path."""
    failures, total = [], 0
    for source in m.SCENARIOS:
        if "models" not in source.read_text("utf-8"):
            continue
        for option in m.sweep_mutants():
            total += 1
            argv = ["sweep", str(source), *option.args, "--trials", str(TRIALS), "--quiet"]
            failures += run_cli(argv, source.name, None, names=option.names,
                                must_fail="bad sweep arguments" if option.bad else "",
                                must_pass=option.bad is False)
    no_failures(failures, total)


def test_cli_plots_the_bundled_files(workdir: Path):
    """--plot at a small trial count, where some outcomes never happen (counts of 0)."""
    failures = []
    for source in FILES:
        verb = "compare" if source in m.COMPARISONS else "simulate"
        png = workdir / "chart.png"
        failures += run_cli([verb, str(source), "--trials", str(TRIALS), "--quiet", "--plot",
                             str(png)], source.name, (str(source),))
    sweep = m.SCENARIOS[-1]
    failures += run_cli(["sweep", str(sweep), "defender.models[0].count", "1,2", "--trials",
                         str(TRIALS), "--quiet", "--plot", str(workdir / "chart.png")],
                        sweep.name, (str(sweep),))
    assert not failures, report(failures, len(FILES) + 1)


COMMANDS = (["--version"], ["examples"], ["examples", "--paths"], ["rulesets"],
            ["weapons", "wh40k3"], ["weapons", "chess"], ["weapons", ""],
            ["validate", "no/such/file.toml"])


def test_cli_commands_and_validate_on_mutants(workdir: Path):
    """`--version`, `examples`, `rulesets`, `weapons RULESET` (good and bad), and
    `odds validate FILE` on mutants: exit 0, or exit 2 with one error line."""
    failures, total = [], len(COMMANDS)
    for argv in COMMANDS:
        failures += run_cli(argv, "", None)
    for mutant in m.mutants(m.SCENARIOS[0], 30) + m.mutants(m.COMPARISONS[0], 30):
        total += 1
        folder = "comparisons" if mutant.source in m.COMPARISONS else "mutants"
        path = workdir / folder / f"validate_{mutant.source.name}"
        path.write_bytes(mutant.text)
        failures += run_cli(["validate", str(path)], mutant.describe(),
                            None if mutant.refs_changed else (str(path),),
                            must_fail=mutant.must_fail, must_pass=mutant.must_pass)
    no_failures(failures, total)


# ------------------------------------------------------------------------ the Python API


def result_problems(result, trials: int, keep_fights: bool = False) -> list[tuple[str, str]]:
    """What is inconsistent in a Result: its trial count, the partition of outcomes summing
    to 1, any 95% interval not containing its estimate, non-finite means."""
    problems = []
    if result.trials != trials:
        problems.append(("trials differ from those asked", f"{result.trials}, asked {trials!r}"))
    counts = result.counts()
    partition = ("attacker_wins", "defender_wins", "both_destroyed", "unresolved", "no_fight")
    if sum(counts[k] for k in partition) != result.trials:
        problems.append(("outcomes do not partition the trials", str(counts)))
    probabilities = result.probabilities()
    if not math.isclose(sum(probabilities[k][0] for k in partition), 1.0, abs_tol=1e-12):
        problems.append(("outcome probabilities do not sum to 1", ""))
    for key, (p, low, high) in probabilities.items():
        if not 0 <= low <= p <= high <= 1:
            problems.append(("probabilities(): an interval does not contain its estimate",
                             f"{key}: {low!r} <= {p!r} <= {high!r}"))
            break
    for key, value in result.means().items():
        if not math.isfinite(value):
            problems.append(("a mean is not finite", f"{key} = {value}"))
    for name, table in (("losses(attacker)", result.losses("attacker")),
                        ("losses(defender)", result.losses("defender")),
                        ("cumulative()", result.cumulative()), ("rounds()", result.rounds())):
        for column in [c for c in table.columns if f"{c}_low" in table.columns]:
            low, value, high = table[f"{column}_low"], table[column], table[f"{column}_high"]
            bad = ~((low <= value) & (value <= high))
            if bad.any():
                i = bad.to_numpy().nonzero()[0][0]
                problems.append((f"{name}: an interval does not contain its estimate",
                                 f"{column}[{i}]: {low.iloc[i]!r} <= {value.iloc[i]!r} <= "
                                 f"{high.iloc[i]!r}"))
                break
    if keep_fights and (result.fights_record is None or len(result.fights()) != result.trials):
        problems.append(("keep_fights=True but no per-fight row for each trial", ""))
    return problems


def call_api(label: str, call, check=None) -> list[Failure]:
    """Run ``call()`` and then ``check(its value)`` (a list of (kind, detail) problems).

    A ScenarioError, or a TypeError odds raises on purpose, is fine; any other exception (in
    the call or in the Result methods the check reads), a RuntimeWarning, a problem, is not."""
    caught, failures = [], []
    try:
        with guarded() as caught:
            try:
                value = call()
            except odds.ScenarioError as e:
                if not e.message.strip():
                    failures.append(Failure(label, "ScenarioError with no message"))
            except TypeError as e:
                if not deliberate(e):
                    failures.append(Failure(label, f"raw {where_raised(e)[0]}",
                                            where_raised(e)[1]))
            else:
                if check is not None:
                    failures += [Failure(label, *problem) for problem in check(value)]
    except StepTimeout as e:
        failures.append(Failure(label, "hang", str(e)))
    except BaseException as e:
        failures.append(Failure(label, f"raises {where_raised(e)[0]}", where_raised(e)[1]))
    return failures + warned(label, caught)


@pytest.mark.parametrize("source", FILES, ids=lambda p: p.name)
def test_api_on_file_mutants(source: Path, workdir: Path):
    """load (or compare) each mutant: ScenarioError or success; simulate what loads:
    ScenarioError or a consistent Result."""
    is_comparison = source in m.COMPARISONS
    path = workdir / ("comparisons" if is_comparison else "mutants") / f"api_{source.name}"
    failures, batch = [], m.mutants(source, PER_COMPARISON if is_comparison else PER_SCENARIO)
    for mutant in batch:
        path.write_bytes(mutant.text)
        accepted = [(f"accepted {mutant.must_fail}", "")] if mutant.must_fail else []
        done = []
        if is_comparison:
            failures += call_api(mutant.describe(),
                                 lambda: done.append(odds.compare(path, trials=TRIALS)),
                                 lambda _: accepted + [p for r in done[0].results.values()
                                                       for p in result_problems(r, TRIALS)])
        else:
            failures += call_api(mutant.describe(), lambda: done.append(odds.load(path)))
            if done:
                failures += call_api(mutant.describe() + " simulate()",
                                     lambda: done.append(odds.simulate(done[0], trials=TRIALS)),
                                     lambda _: accepted + result_problems(done[1], TRIALS))
        if mutant.must_pass and len(done) < (1 if is_comparison else 2):
            failures.append(Failure(mutant.describe(), "valid input rejected"))
    no_failures(failures, len(batch))


# In-place edits of a loaded Scenario object: (what is edited, how to reach it).
_OBJECT_PARTS = {
    "scenario": lambda sc: sc,
    "attacker": lambda sc: sc.attacker,
    "defender": lambda sc: sc.defender,
    "first group": lambda sc: sc.attacker.models[0],
    "last group": lambda sc: sc.defender.models[-1],
}
_OBJECT_VALUES = (None, 0, -1, 10**13, math.nan, "", "x", [], {}, [None], {"x": None},
                  ("a", "b"), True, b"bytes", object())


def _object_edits(rng, scenario):
    """One in-place edit of ``scenario``: an attribute, a dict entry or a list entry."""
    parts = ["scenario", "attacker", "defender"]
    if scenario.attacker.models and scenario.defender.models:
        parts += ["first group", "last group"]
    part = rng.choice(parts)
    node = _OBJECT_PARTS[part](scenario)
    attribute = rng.choice(sorted(vars(node)))
    value = rng.choice(_OBJECT_VALUES)
    current = getattr(node, attribute)
    how = rng.randrange(3)
    if how == 1 and isinstance(current, dict) and current:
        key = rng.choice(sorted(current))
        current[key] = value
        return f"{part}.{attribute}[{key!r}] = {short_value(value)}"
    if how == 2 and isinstance(current, list) and current:
        current.append(current[0] if rng.random() < 0.5 else value)
        return f"{part}.{attribute}.append(...)"
    setattr(node, attribute, value)
    return f"{part}.{attribute} = {short_value(value)}"


def short_value(value) -> str:
    return "object()" if type(value) is object else m.short(value)


@pytest.mark.parametrize("source", m.SCENARIOS, ids=lambda p: p.name)
def test_api_on_edited_scenario_objects(source: Path, workdir: Path):
    """A Scenario edited in place (profile = None, models = [None], count = nan...) then
    simulated: ScenarioError, a deliberate TypeError, or a consistent Result."""
    failures = []
    for k in range(PER_EDIT):
        rng = random.Random(f"{source.name}@{k}")
        scenario = odds.load(source)
        edit = _object_edits(rng, scenario)
        failures += call_api(f"{source.name}@{k} [{edit}]",
                             lambda: odds.simulate(scenario, trials=TRIALS),
                             lambda r: result_problems(r, TRIALS))
    no_failures(failures, PER_EDIT)


_ARGUMENT_VALUES = (None, 0, -1, 1, 2, 2.5, 10**13, 2**64, math.nan, math.inf, "2", "x", True,
                    False, [], 0.3)


def test_api_on_bad_arguments(workdir: Path):
    """simulate/compare/sweep with arguments of every wrong type and at their edges."""
    source = m.SCENARIOS[0]
    failures, total = [], 0
    for argument in ("trials", "seed", "threads", "precision", "max_trials", "keep_fights",
                     "progress"):
        for value in _ARGUMENT_VALUES:
            kwargs = {argument: value}
            if argument != "trials":
                kwargs.setdefault("trials", TRIALS)
            if argument == "max_trials":
                kwargs["precision"] = 0.3
            total += 1
            failures += call_api(f"simulate({source.name}, **{kwargs})",
                                 lambda: odds.simulate(source, **kwargs),
                                 lambda r: _accepted_problems(argument, value, r, kwargs))
    for kwargs in ({"keep_fights": True, "precision": 0.3}, {"precision": 0.3, "max_trials": 1}):
        total += 1
        failures += call_api(f"simulate({source.name}, **{kwargs})",
                             lambda: odds.simulate(source, **kwargs),
                             lambda r: result_problems(r, r.trials, kwargs.get("keep_fights")))
    for scenario in (None, 123, {}, [], b"x", "no/such/file.toml", workdir, object()):
        total += 1
        failures += call_api(f"simulate({short_value(scenario)})",
                             lambda: odds.simulate(scenario, trials=TRIALS))
    base = m.SCENARIOS[-1]
    for changes in ([{"x": 1}], {"a": None}, {"a": {"bogus": 1}}, {"a": {"[0]": 1, "bogus": 2}},
                    {1: {}}, {"a": []}, {"a": {"defender.models[0].count": math.nan}}):
        for argument in ("variants", "opponents"):
            total += 1
            failures += call_api(f"compare({base.name}, {argument}={changes!r})",
                                 lambda: odds.compare(base, trials=TRIALS,
                                                      **{argument: changes}))
    for spath, values in (("defender.models[0].count", []), ("defender.models[0].count", "12"),
                          ("defender.models[0].count", None), ("defender.models[0].count",
                                                               [math.nan]),
                          ("bogus", [1]), (None, [1]), (3, [1]),
                          ("defender.models[0].count", [0, 1])):
        total += 1
        failures += call_api(f"sweep({base.name}, {spath!r}, {values!r})",
                             lambda: odds.sweep(base, spath, values, trials=TRIALS),
                             lambda s: [p for r in s.results for p in result_problems(r, TRIALS)])
    no_failures(failures, total)


def _accepted_problems(argument: str, value, result, kwargs) -> list[tuple[str, str]]:
    """A call that succeeded: a whole-number argument must have been a whole number in range
    (no bools, floats, strings, 0 threads; a seed or trial count below 2**63; more threads
    than cores may be clamped), and the result consistent."""
    least = 0 if argument == "seed" else 1
    most = 2**63 if argument in ("seed", "trials") else math.inf
    if argument in ("trials", "seed", "threads", "max_trials") and value is not None and (
            isinstance(value, bool) or not isinstance(value, int) or not least <= value < most):
        return [(f"accepted {argument}={value!r}", "")]
    trials = result.trials if kwargs.get("precision") is not None else kwargs["trials"]
    if trials is None:  # the file's
        trials = result.scenario.simulation["trials"]
    return result_problems(result, trials, kwargs.get("keep_fights") is True)


def test_mutants_are_deterministic_and_written_faithfully():
    """The same mutants on every run; the TOML writer round-trips every bundled file."""
    import tomllib

    for source in FILES:
        data = tomllib.loads(source.read_text("utf-8"))
        assert m.same(tomllib.loads(m.dumps(data)), data)
        first, again = m.mutants(source, 20), m.mutants(source, 20)
        assert [x.text for x in first] == [x.text for x in again]
        assert len({x.text for x in first}) >= 15  # most differ (some ops may coincide)
