"""The `odds` command line: readable table, --json keys, --csv, exit code 2 on bad input."""
import json
import subprocess
import sys

import pandas as pd
import pytest

import odds

JSON_KEYS = ("trials", "seed", "attacker_wins", "defender_wins", "both_destroyed",
             "unresolved", "attacker_destroyed", "attacker_fled", "defender_destroyed",
             "defender_fled", "mean_rounds", "attacker_losses_mean", "defender_losses_mean",
             "attacker_wins_ci95", "defender_wins_ci95")


def odds_cli(*args):
    return subprocess.run([sys.executable, "-m", "odds", *map(str, args)],
                          capture_output=True, text=True, timeout=600)


def test_json_has_the_promised_keys(marines_vs_boyz):
    run = odds_cli("simulate", marines_vs_boyz, "--trials", 20_000, "--seed", 4, "--json")
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    for key in JSON_KEYS:
        assert key in out
    assert out["trials"] == 20_000 and out["seed"] == 4
    first_four = sum(out[k] for k in ("attacker_wins", "defender_wins", "both_destroyed",
                                      "unresolved"))
    assert first_four + out["no_fight"] == pytest.approx(1.0)
    lo, hi = out["attacker_wins_ci95"]
    assert 0 <= lo <= out["attacker_wins"] <= hi <= 1


def test_cli_matches_python_api(marines_vs_boyz):
    """Same scenario, seed and trials: the CLI prints what odds.simulate computes."""
    run = odds_cli("simulate", marines_vs_boyz, "--trials", 5000, "--seed", 9, "--json",
                   "--threads", 1)
    api = odds.simulate(marines_vs_boyz, trials=5000, seed=9).to_dict()
    assert json.loads(run.stdout) == json.loads(json.dumps(api))


def test_table_and_csv(marines_vs_boyz, tmp_path):
    csv = tmp_path / "out.csv"
    run = odds_cli("simulate", marines_vs_boyz, "--trials", 5000, "--csv", csv, "--quiet")
    assert run.returncode == 0, run.stderr
    assert "attacker wins" in run.stdout and "95% interval" in run.stdout
    frame = pd.read_csv(csv)
    assert set(frame.columns) >= {"scenario", "ruleset", "trials", "seed", "outcome", "value",
                                  "ci95_low", "ci95_high", "kind"}
    assert (frame["trials"] == 5000).all() and (frame["ruleset"] == "wh40k3").all()
    wins = frame.set_index("outcome").loc["attacker_wins"]
    assert wins["ci95_low"] <= wins["value"] <= wins["ci95_high"]


@pytest.mark.parametrize("content,words", [
    ('ruleset = "wh40k3"\n[attacker\n', "malformed TOML"),
    ('ruleset = "chess"\n', "unknown ruleset 'chess'"),
])
def test_bad_input_exits_2_without_traceback(tmp_path, content, words):
    path = tmp_path / "bad.toml"
    path.write_text(content)
    run = odds_cli("simulate", path)
    assert run.returncode == 2
    assert words in run.stderr and str(path) in run.stderr
    assert "Traceback" not in run.stderr


def test_bad_field_exits_2_naming_it(marines_vs_boyz, tmp_path):
    path = tmp_path / "zero.toml"
    path.write_text(marines_vs_boyz.read_text().replace("count = 20", "count = 0"))
    run = odds_cli("simulate", path)
    assert run.returncode == 2
    assert f"{path}: defender.models[0].count: must be from 1" in run.stderr
    assert "Traceback" not in run.stderr


def test_bad_option_exits_2():
    run = odds_cli("simulate", "x.toml", "--trials", "-5")
    assert run.returncode == 2 and "--trials" in run.stderr


def test_examples_lists_bundled_scenarios():
    run = odds_cli("examples")
    assert run.returncode == 0 and "wh40k3_assault_marines_vs_boyz.toml" in run.stdout


def test_compare_prints_csv_and_plots(tmp_path):
    from conftest import SCENARIOS

    comparison = SCENARIOS.parent / "comparisons" / "wh40k3_sergeant_weapon.toml"
    csv, png = tmp_path / "grid.csv", tmp_path / "grid.png"
    run = odds_cli("compare", comparison, "--trials", 2000, "--csv", csv, "--plot", png)
    assert run.returncode == 0, run.stderr
    assert "power fist" in run.stdout and "30 Boyz" in run.stdout
    frame = pd.read_csv(csv)
    assert len(frame) == 9 and set(frame["variant"]) == {"power fist", "power weapon",
                                                          "chainsword"}
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_simulate_precision_and_plot(marines_vs_boyz, tmp_path):
    png = tmp_path / "result.png"
    run = odds_cli("simulate", marines_vs_boyz, "--precision", "0.01", "--json", "--plot", png)
    out = json.loads(run.stdout)
    assert out["precision_met"] and out["ci95_half_width_max"] <= 0.01
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_sweep_range(marines_vs_boyz, tmp_path):
    run = odds_cli("sweep", marines_vs_boyz, "defender.models[0].count", "10..20..5",
                   "--trials", 2000, "--csv", tmp_path / "s.csv")
    assert run.returncode == 0, run.stderr
    assert list(pd.read_csv(tmp_path / "s.csv")["value"]) == [10, 15, 20]
    bad = odds_cli("sweep", marines_vs_boyz, "defender.models[0].count", "0,5", "--trials", 10)
    assert bad.returncode == 2 and "defender.models[0].count: must be from 1" in bad.stderr


def test_output_cut_short_by_a_closed_pipe_is_no_error(marines_vs_boyz):
    """`odds simulate ... | true` (the reader is gone before the table) exits quietly."""
    run = subprocess.run(f"{sys.executable} -m odds simulate '{marines_vs_boyz}' --trials 1000 "
                         f"| true", shell=True, capture_output=True, text=True, timeout=600)
    assert "Traceback" not in run.stderr and "BrokenPipe" not in run.stderr
