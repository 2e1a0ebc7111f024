"""The plug-in contract is enough: duel (tests/duel/), a ruleset that lives outside the
package, plays through every front door of odds with not a line of odds written for it:
simulate, exact solving, compare, sweep, roster, the command line (simulate, validate,
weapons, rulesets), an installed entry point, and the fuzz suite. Rules D-1 ... D-3 are in
tests/duel/__init__.py."""
from __future__ import annotations

import contextlib
import io
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

import odds
from odds import rulesets
from odds.cli import main

import duel
import mutants as m
import test_fuzz

HERE = Path(__file__).resolve().parent
SWORDS = HERE / "duel" / "duel_swords.toml"
WEAPONS = HERE / "duel" / "duel_weapons.toml"
ROSTER = HERE / "duel" / "duel_roster.toml"
Z_MAX = 4.0


@pytest.fixture(scope="module", autouse=True)
def registered():
    """duel made known in this process, as ``odds.rulesets.register`` does for a plug-in
    being written; forgotten after this module."""
    rulesets.register(duel.RULESET)
    yield
    del rulesets._REGISTERED["duel"]


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as e:
            code = e.code
    return code or 0, out.getvalue(), err.getvalue()


def one_wound_each(rounds: int, **engagement):
    data = odds.load(SWORDS).to_dict()
    for key in ("attacker", "defender"):
        data[key]["models"][0]["profile"]["W"] = 1
    data["simulation"]["max_rounds"] = rounds
    data["engagement"] = engagement
    return odds.from_dict(data)


def test_exact_answer_is_the_closed_form_D_1_to_D_3():
    """One wound each: in round 1 the charger strikes first (D-1) and one unsaved hit takes a
    fighter down (D-2, D-3); later rounds are simultaneous, both down at once is mutual."""
    p = (3 / 6) * (5 / 6)  # the swordsman hits on 4+; the spearman saves on 6+
    q = (4 / 6) * (4 / 6)  # the spearman hits on 3+ (4+, a spear's -1); the swordsman saves on 5+
    for charger in ("attacker", "defender"):
        first, second = (p, q) if charger == "attacker" else (q, p)
        wins = {"attacker": 0.0, "defender": 0.0, "mutual": 0.0}
        going = 1.0
        for r in range(1, 5):
            if r == 1:
                a_first = first * going
                b_first = (1 - first) * second * going
                wins["attacker" if charger == "attacker" else "defender"] += a_first
                wins["defender" if charger == "attacker" else "attacker"] += b_first
                going *= (1 - first) * (1 - second)
            else:
                wins["attacker"] += going * p * (1 - q)
                wins["defender"] += going * q * (1 - p)
                wins["mutual"] += going * p * q
                going *= (1 - p) * (1 - q)
        got = odds.simulate(one_wound_each(4, charger=charger), method="exact").counts()
        assert got["attacker_wins"] == pytest.approx(wins["attacker"], abs=1e-12)
        assert got["defender_wins"] == pytest.approx(wins["defender"], abs=1e-12)
        assert got["both_destroyed"] == pytest.approx(wins["mutual"], abs=1e-12)
        assert got["unresolved"] == pytest.approx(going, abs=1e-12)


def test_the_kernel_plays_the_exact_answer():
    """The core's kernel loop and its exact walk over the one rule text agree (|z| < 4)."""
    exact = odds.simulate(SWORDS, method="exact").counts()
    played = odds.simulate(SWORDS, trials=200_000, seed=5)
    n = played.trials
    for column, count in played.counts().items():
        p = exact[column]
        z = (count / n - p) / math.sqrt(max(p * (1 - p), 1 / n) / n)
        assert abs(z) < Z_MAX, (column, count / n, p)


def test_grids_and_the_command_line_take_it():
    grid = odds.compare(WEAPONS, trials=2000)
    assert grid.variants == ["sword", "spear"] and len(grid.frame) == 4
    swept = odds.sweep(SWORDS, "attacker.models[0].profile.W", [1, 2, 3], trials=2000)
    assert list(swept.frame["value"]) == [1, 2, 3]
    assert swept.frame["attacker_wins"].is_monotonic_increasing
    robin = odds.roster(ROSTER, ROSTER, trials=2000, both_ways=True)
    assert len(robin.frame) == 8 and set(robin.frame["charger"]) == {"mine", "theirs"}
    code, out, _ = cli("simulate", str(SWORDS), "--method", "exact")
    assert code == 0 and "exact" in out and "Swordsman" in out
    code, out, _ = cli("validate", str(SWORDS))
    assert code == 0
    code, out, _ = cli("weapons", "duel")
    assert code == 0 and "spear" in out and "club" in out
    code, out, _ = cli("rulesets")
    assert code == 0 and "duel" in out
    for argv in (("compare", str(WEAPONS), "--trials", "500", "--quiet"),
                 ("roster", str(ROSTER), "--trials", "500", "--quiet"),
                 ("sweep", str(SWORDS), "attacker.models[0].profile.W", "1,2", "--trials",
                  "500", "--quiet")):
        assert cli(*argv)[0] == 0, argv


def test_bad_input_names_the_file_and_field(tmp_path):
    path = tmp_path / "typo.toml"
    path.write_text(SWORDS.read_text("utf-8").replace('["spear"]', '["spaer"]'), "utf-8")
    with pytest.raises(odds.ScenarioError, match=r"defender\.models\[0\]\.equipment\[0\]: "
                                                 r"unknown weapon 'spaer'; did you mean 'spear'"):
        odds.load(path)
    code, _, err = cli("simulate", str(path))
    assert code == 2 and err.startswith(f"odds: error: {path}: ") and "Traceback" not in err


def test_an_installed_entry_point_is_found(tmp_path):
    """An installed package naming duel under the ``odds.rulesets`` entry-point group (here a
    distribution's metadata on the path, as ``pip install`` writes it) is found by a fresh
    process: listed, and played from a file."""
    info = tmp_path / "odds_duel-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: odds-duel\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[odds.rulesets]\nduel = duel:RULESET\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(HERE)])}
    listed = subprocess.run([sys.executable, "-m", "odds", "rulesets"], env=env,
                            capture_output=True, text=True)
    assert listed.returncode == 0 and "duel" in listed.stdout
    played = subprocess.run([sys.executable, "-m", "odds", "simulate", str(SWORDS),
                             "--trials", "2000", "--quiet", "--json"], env=env,
                            capture_output=True, text=True)
    assert played.returncode == 0, played.stderr
    assert '"ruleset": "duel"' in played.stdout


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("duel_fuzz")
    (root / "mutants").mkdir()
    odds.simulate(SWORDS, trials=test_fuzz.TRIALS)
    return root


@pytest.mark.parametrize("fuzz", [test_fuzz.test_cli_on_file_mutants,
                                  test_fuzz.test_api_on_file_mutants],
                         ids=lambda f: f.__name__)
def test_the_fuzz_suite_on_its_file(fuzz, workdir):
    """The fuzz suite's file mutants (tests/mutants.py), on duel's scenario: exit 0 or one
    error line naming the file, a Result or a ScenarioError, never a traceback."""
    assert m.mutants(SWORDS, 5)  # the suite draws mutants of a plug-in's file too
    fuzz(SWORDS, workdir)
