"""Shared fixtures: paths of the bundled scenarios; the kernels compiled before xdist's
workers start."""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "data" / "scenarios"


@pytest.fixture
def marines_vs_boyz() -> Path:
    return SCENARIOS / "wh40k3_assault_marines_vs_boyz.toml"


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    """Under pytest-xdist with several workers, compile the kernels once first, two
    processes at a time (tests/warm_cache.py), instead of once in every worker."""
    config = session.config
    workers = getattr(config.option, "numprocesses", None)
    if hasattr(config, "workerinput") or not isinstance(workers, int) or workers < 2:
        return
    script = Path(__file__).with_name("warm_cache.py")
    runs = [subprocess.Popen([sys.executable, str(script), str(half)], cwd=ROOT)
            for half in (0, 1)]
    for run in runs:
        run.wait()  # a failure shows again, and is reported, in the tests themselves
