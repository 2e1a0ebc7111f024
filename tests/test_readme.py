"""The README's and the ruleset pages' own examples run as written: every Python block, and
every `odds` command line of a shell block whose files exist (the usage synopsis, installs
and a Dask cluster's commands are not runnable as they stand). Run from a folder holding the
checkout's data/, so that the files they write (report.csv, grid.csv) land in a temporary
folder."""
from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import matplotlib
import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", ROOT / "odds" / "rulesets" / "README.md",
         *sorted((ROOT / "odds" / "rulesets").glob("*/README.md"))]
BLOCKS = [block for page in PAGES for block in re.findall(
    r"^```(\w*)\n(.*?)^```", page.read_text(encoding="utf-8"), re.S | re.M)]
PYTHON = [code for kind, code in BLOCKS if kind == "python"]
COMMANDS = [line.split("#")[0].strip() for kind, code in BLOCKS if kind == "sh"
            for line in code.splitlines() if line.startswith("odds ")]


def _runnable(command: str) -> bool:
    """A command as a user would type it: no placeholder (SCENARIO.toml, [options], RULESET)
    and every file it names there to read."""
    words = shlex.split(command)
    placeholder = any("[" in w or (w.isupper() and w.isalpha()) or w.split(".")[0].isupper()
                      for w in words)
    return not placeholder and all((ROOT / w).exists() for w in words if w.endswith(".toml"))


@pytest.fixture
def in_a_copy(tmp_path, monkeypatch):
    (tmp_path / "data").symlink_to(ROOT / "data")
    monkeypatch.chdir(tmp_path)
    matplotlib.use("Agg")
    return tmp_path


def test_the_pages_have_examples_to_run():
    assert len(PYTHON) >= 4 and sum(map(_runnable, COMMANDS)) >= 5


@pytest.mark.parametrize("code", PYTHON, ids=lambda code: next(
    line for line in code.splitlines() if line and not line.startswith("import"))[:40])
def test_a_python_block_runs_as_written(in_a_copy, code):
    if "odds.explore" in code:
        pytest.importorskip("ipywidgets")
    exec(compile(code, "README.md", "exec"), {"__name__": "readme"})
    if "report.csv" in code:
        assert (in_a_copy / "report.csv").stat().st_size > 0


@pytest.mark.parametrize("command", [c for c in COMMANDS if _runnable(c)])
def test_a_command_runs_as_written(in_a_copy, command):
    done = subprocess.run([sys.executable, "-m", "odds", *shlex.split(command)[1:]],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() and "Traceback" not in done.stderr
