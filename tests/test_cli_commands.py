"""The command line in-process (odds.cli.main): one-line errors naming the option, the shared
options of simulate/compare/sweep, validate, examples, rulesets, weapons, --csv -."""
import io
import json
import subprocess
import sys

import pandas as pd
import pytest

import odds
from odds.cli import main

from conftest import SCENARIOS

COMPARISON = SCENARIOS.parent / "comparisons" / "wh40k3_sergeant_weapon.toml"
PIKES = SCENARIOS / "blackpowder_cuirassiers_vs_pike_block.toml"
COUNT = "defender.models[0].count"


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def one_error(capsys, *args) -> str:
    """The command fails with exit 2 and exactly one line on stderr, nothing on stdout."""
    code, out, err = run(capsys, *args)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith("odds: error: ")
    return err


@pytest.mark.parametrize("args,words", [
    (["--trials", "10000000000000"], "--trials: must be from 1 to 1000000000000, got"),
    (["--seed", "18446744073709551616"], "--seed: must be from 0 to 9223372036854775807"),
    (["--threads", "0"], "--threads: must be at least 1, got 0"),
    (["--threads", "-1"], "--threads: must be at least 1, got -1"),
    (["--threads", "2.5"], "--threads: must be a whole number, got '2.5'"),
    (["--threads", "True"], "--threads: must be a whole number, got 'True'"),
    (["--precision", "nan"], "--precision: must be between 0 and 0.5"),
    (["--max-trials", "0", "--precision", "0.01"], "--max-trials: must be from 1"),
    (["--bogus"], "unrecognized arguments: --bogus"),
    (["--trials"], "--trials: expected one argument"),
    (["--trials", "10", "--precision", "0.01"], "--trials: give --trials or --precision, not "
                                                "both (a --precision run plays until it is "
                                                "met; --max-trials caps its fights)"),
    (["--max-trials", "10"], "--max-trials: caps a --precision run: give --precision with it, "
                             "or --trials alone"),
    (["--csv", "-", "--json"], "--csv - and --json both write to standard output"),
    (["--csv", "/no/such/dir/x.csv"],
     "--csv: cannot write '/no/such/dir/x.csv': No such file or directory"),
    (["--plot", "/no/such/dir/x.png"],
     "--plot: cannot write '/no/such/dir/x.png': No such file or directory"),
    (["--plot", "chart.txt"], "--plot: name the image with one of the extensions"),
])
def test_argument_errors_name_the_option(capsys, marines_vs_boyz, args, words):
    err = one_error(capsys, "simulate", marines_vs_boyz, *args)
    assert words in err and str(marines_vs_boyz) not in err


def test_usage_errors_are_one_line(capsys):
    assert "the following arguments are required: scenario" in one_error(capsys, "simulate")
    assert "invalid choice: 'simulat'" in one_error(capsys, "simulat", "x.toml")
    assert "RULESET: invalid choice: 'chess'" in one_error(capsys, "weapons", "chess")


def test_help_and_version_still_work(capsys):
    code, out, _ = run(capsys, "simulate", "--help")
    assert code == 0 and "--max-trials" in out and "--csv" in out
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.strip() == f"odds {odds.__version__}"


def test_a_csv_that_cannot_be_written_gives_the_os_reason(capsys, marines_vs_boyz, tmp_path):
    folder = tmp_path / "folder"
    folder.mkdir()
    err = one_error(capsys, "simulate", marines_vs_boyz, "--trials", 10, "--csv", folder)
    assert f"--csv: cannot write '{folder}': Is a directory" in err


def test_the_file_must_be_what_the_command_plays(capsys, marines_vs_boyz):
    err = one_error(capsys, "compare", marines_vs_boyz)
    assert f"{marines_vs_boyz}: is a scenario" in err and "odds simulate" in err
    for command in (["simulate", COMPARISON], ["sweep", COMPARISON, COUNT, "5"]):
        err = one_error(capsys, *command)
        assert f"{COMPARISON}: is a comparison" in err and "odds compare" in err


@pytest.mark.parametrize("values,words", [
    ("1..10..0", "the STEP must be a whole number of at least 1, got 0"),
    ("1..10..-2", "the STEP must be a whole number of at least 1, got -2"),
    ("1..2..3..4", "at most three parts"),
    ("10..1", "FIRST must not be above LAST (10 > 1)"),
    ("1..x", "in whole numbers"),
    ("..5", "in whole numbers"),
    ("5,,10", "an empty value"),
    ("5,10,", "an empty value"),
    ("1..100000000000", "100,000,000,000 values; a sweep has at most 1,000"),
])
def test_sweep_values_errors_name_the_argument(capsys, marines_vs_boyz, values, words):
    err = one_error(capsys, "sweep", marines_vs_boyz, COUNT, values, "--trials", 10)
    assert err.startswith(f"odds: error: VALUES {values!r}: ") and words in err


def test_sweep_shares_the_output_conventions(capsys, marines_vs_boyz):
    code, out, _ = run(capsys, "sweep", marines_vs_boyz, COUNT, "10..20..10", "--trials", 500,
                       "--seed", 3)
    assert code == 0
    assert out.startswith("Assault Marines charge Ork Boyz  [wh40k3]\n")
    assert f"{COUNT} = 10, 20" in out and "500 fights per value, seed 3" in out
    assert "attacker wins" in out and "%" in out and "[" in out
    code, out, _ = run(capsys, "sweep", marines_vs_boyz, COUNT, "10,20", "--trials", 500,
                       "--json")
    data = json.loads(out)
    assert data["parameter"] == COUNT and data["values"] == [10, 20]
    assert [r["trials"] for r in data["rows"]] == [500, 500]
    direct = odds.sweep(marines_vs_boyz, COUNT, [10, 20], trials=500)
    assert data["rows"][1]["attacker_wins"] == direct.frame["attacker_wins"].iloc[1]


def test_csv_to_stdout_replaces_the_table(capsys, marines_vs_boyz):
    code, out, _ = run(capsys, "simulate", marines_vs_boyz, "--trials", 500, "--csv", "-")
    frame = pd.read_csv(io.StringIO(out))
    assert code == 0 and "95% interval" not in out
    assert frame.set_index("outcome").loc["attacker_wins", "trials"] == 500
    code, out, _ = run(capsys, "compare", COMPARISON, "--trials", 300, "--csv", "-")
    assert len(pd.read_csv(io.StringIO(out))) == 9


def test_compare_max_trials_and_precision_per_cell(capsys):
    code, out, _ = run(capsys, "compare", COMPARISON, "--precision", "0.001", "--max-trials",
                       16384, "--json")
    data = json.loads(out)
    assert code == 3 and {r["trials"] for r in data["rows"]} == {16384}  # 3: not met
    assert data["precision"] == 0.001 and not any(r["precision_met"] for r in data["rows"])
    code, out, _ = run(capsys, "compare", COMPARISON, "--precision", "0.001", "--max-trials",
                       16384, "--quiet")
    assert "16,384 fights per cell, seed 1; precision ±0.10% met in 0 of 9 cells" in out
    assert "16,384*" in out


def test_compare_baseline_option_and_json(capsys):
    code, out, _ = run(capsys, "compare", COMPARISON, "--trials", 400, "--baseline",
                       "chainsword", "--json")
    data = json.loads(out)
    assert code == 0 and data["baseline"] == "chainsword"
    rows = {(r["variant"], r["opponent"]): r for r in data["rows"]}
    assert rows["chainsword", "30 Boyz"]["attacker_wins_diff"] == 0
    assert rows["power fist", "30 Boyz"]["attacker_wins_diff_low"] < rows[
        "power fist", "30 Boyz"]["attacker_wins_diff_high"]
    assert "--baseline: no variant named 'sword'" in one_error(
        capsys, "compare", COMPARISON, "--baseline", "sword")


def test_metric_is_checked_before_any_fight(capsys, marines_vs_boyz, tmp_path):
    err = one_error(capsys, "compare", COMPARISON, "--plot", tmp_path / "h.png", "--metric",
                    "atacker_wins")
    assert "--metric: no column 'atacker_wins'; did you mean attacker_wins" in err
    assert "give --plot too" in one_error(capsys, "sweep", marines_vs_boyz, COUNT, "5",
                                          "--metric", "mean_rounds")


def test_per_ruleset_columns_in_table_json_and_csv(capsys, tmp_path):
    csv = tmp_path / "bp.csv"
    code, out, _ = run(capsys, "simulate", PIKES, "--trials", 2000, "--csv", csv)
    assert code == 0 and "attacker shaken" in out and "sweeping advance" in out
    tidy = pd.read_csv(csv).set_index("outcome")
    assert tidy.loc["attacker_shaken", "kind"] == "probability"
    assert tidy.loc["attacker_shaken", "ci95_low"] <= tidy.loc["attacker_shaken", "value"]
    code, out, _ = run(capsys, "simulate", PIKES, "--trials", 2000, "--json")
    own = json.loads(out)["ruleset_outcomes"]
    result = odds.simulate(PIKES, trials=2000)
    assert own["attacker_shaken"] == result.counts()["attacker_shaken"] / 2000
    assert own["sweeping_advance_ci95"][0] <= own["sweeping_advance"]
    mordheim = SCENARIOS / "mordheim_two_on_one.toml"
    code, out, _ = run(capsys, "simulate", mordheim, "--trials", 1000, "--json")
    assert set(json.loads(out)["ruleset_outcomes"]) == {
        f"{side}_{what}_mean" for side in ("attacker", "defender")
        for what in ("knocked_down", "stunned", "parries", "criticals")}
    code, out, _ = run(capsys, "simulate", mordheim, "--trials", 1000)
    assert "knocked down" in out and "parries" in out and "criticals" in out


def test_validate(capsys, marines_vs_boyz, tmp_path):
    code, out, _ = run(capsys, "validate", marines_vs_boyz, COMPARISON)
    lines = out.splitlines()
    assert code == 0 and len(lines) == 2
    assert lines[0] == (f"{marines_vs_boyz}: ok (scenario, wh40k3, 'Assault Marines charge Ork "
                        f"Boyz', 100,000 fights, seed 1)")
    assert lines[1].startswith(f"{COMPARISON}: ok (comparison, wh40k3, ")
    assert "3 variants x 3 opponents" in lines[1]
    bad = tmp_path / "bad.toml"
    bad.write_text(marines_vs_boyz.read_text().replace("count = 20", "count = 0"))
    err = one_error(capsys, "validate", bad)
    assert f"{bad}: defender.models[0].count: must be from 1" in err


def test_examples_say_what_each_file_is(capsys):
    code, out, _ = run(capsys, "examples")
    rows = [line.split() for line in out.splitlines()]
    assert code == 0 and rows[0] == ["kind", "ruleset", "title", "path"]
    kinds = {row[-1].rsplit("/", 1)[-1]: (row[0], row[1]) for row in rows[1:]}
    assert kinds["wh40k3_sergeant_weapon.toml"] == ("comparison", "wh40k3")
    assert kinds["mordheim_two_on_one.toml"] == ("scenario", "mordheim")
    code, out, _ = run(capsys, "examples", "--kind", "scenario", "--paths")
    paths = out.splitlines()
    assert len(paths) == len(list(SCENARIOS.glob("*.toml")))
    for path in paths:  # the loop a user writes: every one of them simulates
        assert odds.load(path).ruleset in odds.rulesets.RULESETS


def test_rulesets_and_weapons(capsys):
    code, out, _ = run(capsys, "rulesets")
    assert code == 0 and "wh40k3       Warhammer 40,000 3rd edition" in out
    code, out, _ = run(capsys, "weapons", "wh40k3")
    line = next(l for l in out.splitlines() if l.startswith("power fist"))
    assert code == 0 and "strength_mult = 2" in line and "strikes_last" in line
    code, out, _ = run(capsys, "weapons", "mordheim")
    assert "shield" in out and "save_bonus = 1" in out
    code, out, _ = run(capsys, "weapons", "whfb8")
    assert "great weapon" in out and "Always Strikes Last" in out and "cavalry" in out
    code, out, _ = run(capsys, "weapons", "blackpowder")
    assert "lancers" in out and "enemy_save_on_charge = -1" in out
    assert 'reroll_misses = "charge"' in out
    code, out, _ = run(capsys, "weapons", "d10skirmish")
    assert "extra melee weapon  attacks = 1" in out


def test_every_listed_weapon_is_accepted_by_a_scenario(capsys, marines_vs_boyz):
    """What `odds weapons wh40k3` lists, a scenario may name."""
    _, out, _ = run(capsys, "weapons", "wh40k3")
    weapons, rules = out.split("\n\n")  # two sections: weapons and wargear, special rules
    names = [line.split("  ")[0] for line in weapons.splitlines()[2:]]
    assert len(names) > 10
    scenario = odds.load(marines_vs_boyz)
    for name in names:
        scenario.attacker.models[0].equipment = [name]
        assert scenario.validated().attacker.models[0].equipment == [name]
    for name in [line.split("  ")[0] for line in rules.splitlines()[2:]]:
        for group in scenario.attacker.models:  # some are a whole unit's rules
            group.options["rules"] = [name]
        assert scenario.validated().attacker.models[0].options["rules"] == [name]


def test_argparse_errors_in_a_real_process():
    run = subprocess.run([sys.executable, "-m", "odds", "simulate", "x.toml", "--trails", "5"],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.splitlines() == [
        "odds: error: unrecognized arguments: --trails 5 (see `odds --help`)"]


def test_plot_closes_its_figure(capsys, tmp_path, marines_vs_boyz):
    """--plot writes the chart and closes it: main() called again in one process (a
    notebook, a script) does not pile figures up."""
    import matplotlib.pyplot as plt

    plt.close("all")
    for k in range(2):
        code, _, _ = run(capsys, "simulate", marines_vs_boyz, "--trials", 200, "--quiet",
                         "--plot", tmp_path / f"chart{k}.png")
        assert code == 0 and (tmp_path / f"chart{k}.png").stat().st_size > 0
    assert plt.get_fignums() == []
