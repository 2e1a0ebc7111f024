"""Shared fixtures: paths of the bundled scenarios; the kernels compiled before xdist's
workers start."""
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "data" / "scenarios"


@pytest.fixture
def marines_vs_boyz() -> Path:
    return SCENARIOS / "wh40k3_assault_marines_vs_boyz.toml"


WARM = ("import runpy, sys; sys.argv = ['warm_cache', {folder!r}]; "
        "runpy.run_path({script!r}, run_name='__main__')")


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    """Under pytest-xdist with several workers, compile the kernels once first, in two
    processes sharing out the paths (tests/warm_cache.py), instead of once in every
    worker."""
    config = session.config
    workers = getattr(config.option, "numprocesses", None)
    if hasattr(config, "workerinput") or not isinstance(workers, int) or workers < 2:
        return
    config.pluginmanager.get_plugin("terminalreporter").write_line(
        "odds: compiling every kernel variant and exact solver into numba's cache before the "
        "tests (tests/warm_cache.py, two processes): about 10 minutes on a 2-core machine "
        "with an empty cache, seconds with a full one; each path is reported when ready")
    # started as the workers are (``python -c`` in this directory), so that they import the
    # same odds, a checkout's or an installed one, and share its numba cache
    script = Path(__file__).with_name("warm_cache.py")
    with tempfile.TemporaryDirectory() as claims:
        runs = [subprocess.Popen([sys.executable, "-c",
                                  WARM.format(script=str(script), folder=claims)])
                for _ in range(2)]
        for run in runs:
            run.wait()  # a failure shows again, and is reported, in the tests themselves
