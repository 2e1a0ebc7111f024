"""What a new user's run found (issue 34), on the command line: an output option never
overwrites one of the run's inputs; a precision not met has its own exit code; the options'
own spellings in errors; values people write (``1e6``, lists in a sweep); the listings."""
from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

import odds
from odds.cli import EXIT_BAD_INPUT, EXIT_IMPRECISE, main
from odds.core.data import data_path

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "data" / "scenarios"

SIDE = '''
name = "{name}"
[[{side}.models]]
name = "Marine"
count = 5
profile = {{ WS = 4, S = 4, T = 4, W = 1, I = 4, A = 1, Ld = 8, Sv = 3 }}
equipment = ["big choppa"]
'''
PACK = '''ruleset = "wh40k3"
[[units]]
name = "Own Boyz"
source = "a test"
[[units.models]]
name = "Boy"
count = 10
profile = { WS = 4, S = 3, T = 4, W = 1, I = 2, A = 2, Ld = 7, Sv = 6 }
'''


def inputs(folder: Path, suffix: str) -> dict[str, Path]:
    """Every kind of input file a run reads, each named ``<kind><suffix>`` (a TOML file
    may be called anything): a scenario with a weapons file and a pack, another scenario a
    comparison takes a side from, the comparison, and two rosters."""
    files = {kind: folder / f"{kind}{suffix}" for kind in
             ("scenario", "weapons", "pack", "other", "comparison", "mine", "theirs")}
    names = {kind: path.name for kind, path in files.items()}
    head = (f'ruleset = "wh40k3"\nweapons = "{names["weapons"]}"\n'
            f'packs = ["{names["pack"]}"]\n')
    files["weapons"].write_text('["big choppa"]\nstrength_bonus = 1\n')
    files["pack"].write_text(PACK)
    files["scenario"].write_text(head + "[attacker]" + SIDE.format(name="Squad", side="attacker")
                                 + '[defender]\nunit = "Own Boyz"\n')
    files["other"].write_text(head + "[attacker]" + SIDE.format(name="Other", side="attacker")
                              + '[defender]\nunit = "Own Boyz"\n')
    files["comparison"].write_text(
        f'base = "{names["scenario"]}"\n[[variants]]\nname = "as is"\n[[variants]]\n'
        f'name = "other"\nattacker_from = "{names["other"]}"\n')
    roster = (f'ruleset = "wh40k3"\npacks = ["{names["pack"]}"]\n[[units]]\nunit = "Own Boyz"\n'
              '[[units]]\nunit = "Ork Boyz"\n')
    files["mine"].write_text(roster)
    files["theirs"].write_text(roster)
    return files


def commands(files: dict[str, Path]) -> dict[str, tuple[list, tuple]]:
    """Each command line, with the input kinds it reads."""
    return {
        "simulate": (["simulate", files["scenario"]], ("scenario", "weapons", "pack")),
        "sweep": (["sweep", files["scenario"], "attacker.models[0].count", "4,5"],
                  ("scenario", "weapons", "pack")),
        "compare": (["compare", files["comparison"]],
                    ("comparison", "scenario", "other", "weapons", "pack")),
        "roster": (["roster", files["mine"], files["theirs"]], ("mine", "theirs", "pack")),
    }


def run(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


CASES = [(command, kind, option) for command, (_, kinds) in
         commands({k: Path(k) for k in ("scenario", "weapons", "pack", "other", "comparison",
                                        "mine", "theirs")}).items()
         for kind in kinds for option in ("--csv", "--plot")]


@pytest.mark.parametrize("command,kind,option", CASES)
def test_an_output_never_overwrites_an_input(tmp_path, capsys, monkeypatch, command, kind,
                                             option):
    """Every output option against every input kind of every command: exit 2 naming the
    option, before any fight, and the input is left as it was (also written as another path
    to the same file)."""
    files = inputs(tmp_path, ".toml" if option == "--csv" else ".svg")
    line, _ = commands(files)[command]
    before = files[kind].read_bytes()
    monkeypatch.chdir(tmp_path)
    for path in (files[kind], Path("..") / tmp_path.name / files[kind].name):
        code, out, err = run(capsys, *line, "--trials", 100, option, path)
        assert code == EXIT_BAD_INPUT, err
        assert err.startswith(f"odds: error: {option}: ") and "input files" in err, err
        assert err.count("\n") == 1 and "compiling" not in err and out == ""
        assert files[kind].read_bytes() == before


def test_csv_and_plot_may_not_name_one_file(tmp_path, capsys):
    files = inputs(tmp_path, ".toml")
    out = tmp_path / "report.svg"
    code, _, err = run(capsys, "simulate", files["scenario"], "--csv", out, "--plot", out)
    assert code == EXIT_BAD_INPUT and "--csv and --plot name the same file" in err
    assert not out.exists()


def test_outputs_beside_the_inputs_are_written(tmp_path, capsys):
    """The check refuses inputs only: a new file in the same folder is written."""
    files = inputs(tmp_path, ".toml")
    code, _, err = run(capsys, "simulate", files["scenario"], "--trials", 200, "--quiet",
                       "--csv", tmp_path / "out.csv", "--plot", tmp_path / "out.svg")
    assert code == 0, err
    assert (tmp_path / "out.csv").stat().st_size and (tmp_path / "out.svg").stat().st_size


@pytest.mark.parametrize("command", ["simulate", "compare"])
def test_a_precision_not_met_exits_3_with_the_output_written(tmp_path, capsys, command):
    """--precision 0.001 capped at one batch cannot be met: the table is printed and the CSV
    written, a line on stderr says so, and the exit code is 3 (scripts can tell)."""
    target = {"simulate": SCENARIOS / "wh40k3_assault_marines_vs_boyz.toml",
              "compare": ROOT / "data" / "comparisons" / "wh40k3_sergeant_weapon.toml"}[command]
    csv = tmp_path / "out.csv"
    code, out, err = run(capsys, command, target, "--precision", 0.001, "--max-trials", 16384,
                         "--quiet", "--csv", csv)
    assert code == EXIT_IMPRECISE == 3
    assert ("NOT met" if command == "simulate" else "met in 0 of 9 cells") in out
    assert csv.stat().st_size
    said = "the run" if command == "simulate" else "9 of 9 cells"
    assert f"odds: --precision 0.001 was not met in {said}" in err


def test_a_precision_met_exits_0(capsys):
    code, out, err = run(capsys, "simulate", SCENARIOS / "wh40k3_assault_marines_vs_boyz.toml",
                         "--precision", 0.02, "--quiet")
    assert code == 0 and "met" in out and "was not met" not in err


def test_errors_name_the_options_not_the_python_arguments(capsys):
    """--method exact past the state bound: the message speaks of --max-states and
    --method auto, as a command-line user writes them."""
    code, _, err = run(capsys, "simulate", SCENARIOS / "wh40k3_ten_vs_ten.toml",
                       "--method", "exact", "--max-states", 2, "--quiet")
    assert code == EXIT_BAD_INPUT
    assert err.startswith("odds: error: --method: cannot solve exactly")
    assert "--max-states" in err and "--method auto" in err
    assert "max_states" not in err and "method 'auto'" not in err


@pytest.mark.parametrize("text,trials", [("1e3", 1000), ("2.5e3", 2500), ("1_000", 1000),
                                         ("1,000", 1000)])
def test_trials_as_people_write_them(capsys, text, trials):
    code, out, err = run(capsys, "simulate", SCENARIOS / "wh40k3_ten_vs_ten.toml", "--trials",
                         text, "--json", "--quiet")
    assert code == 0, err
    assert json.loads(out)["trials"] == trials


@pytest.mark.parametrize("text", ["1.5", "2.5e0", "1e0.5", "inf", "nan", "ten"])
def test_trials_that_are_not_whole_are_refused(capsys, text):
    code, _, err = run(capsys, "simulate", SCENARIOS / "wh40k3_ten_vs_ten.toml", "--trials",
                       text)
    assert code == EXIT_BAD_INPUT and "--trials: must be a whole number" in err


def test_a_sweep_over_lists_of_equipment(capsys):
    """A sweep value may be a TOML list: commas inside brackets do not cut values."""
    path = "attacker.models[Veteran Sergeant].equipment"
    values = '["bolt pistol", "power fist"], ["bolt pistol", "power weapon", "frag grenades"]'
    code, out, err = run(capsys, "sweep", SCENARIOS / "wh40k3_assault_marines_vs_boyz.toml",
                         path, values, "--trials", 2000, "--json", "--quiet")
    assert code == 0, err
    rows = json.loads(out)["rows"]
    assert [r["value"] for r in rows] == [["bolt pistol", "power fist"],
                                          ["bolt pistol", "power weapon", "frag grenades"]]


def test_a_malformed_sweep_list_is_one_clear_line(capsys):
    code, _, err = run(capsys, "sweep", SCENARIOS / "wh40k3_assault_marines_vs_boyz.toml",
                       "attacker.models[0].equipment", '["bolt pistol", "power fist"')
    assert code == EXIT_BAD_INPUT and err.count("\n") == 1
    assert "is not a TOML value" in err and 'write a list as ["a", "b"]' in err


@pytest.mark.parametrize("ruleset", ["wh40k3", "blackpowder", "whfb8"])
def test_units_shows_a_unit_in_full_as_toml(capsys, ruleset):
    """`odds units RULESET NAME` prints the pack entry as the side table a scenario holds,
    stat lines and equipment included; it reads back as that entry."""
    pack = tomllib.loads(data_path(ruleset, "units.toml").read_text())
    entry = pack["units"][0]
    code, out, err = run(capsys, "units", ruleset, entry["name"])
    assert code == 0, err
    assert out.startswith(f"# {entry['name']}") and f"# source: {entry['source']}" in out
    side = tomllib.loads(out)["attacker"]
    assert side == {k: v for k, v in entry.items() if k != "source"}


def test_units_names_a_misspelt_unit_with_the_closest(capsys):
    code, _, err = run(capsys, "units", "wh40k3", "Ork Boys")
    assert code == EXIT_BAD_INPUT and "did you mean 'Ork Boyz'" in err


def test_examples_have_titles(capsys):
    code, out, _ = run(capsys, "examples")
    assert code == 0 and out.splitlines()[0].split()[:4] == ["kind", "ruleset", "title", "path"]
    for path in sorted(SCENARIOS.glob("*.toml")):
        assert odds.load(path).name in out


def test_a_comparison_without_base_is_told_so(tmp_path, capsys):
    cmp = tmp_path / "cmp.toml"
    cmp.write_text('[[variants]]\nname = "a"\n')
    for command in ("compare", "validate"):
        code, _, err = run(capsys, command, cmp)
        assert code == EXIT_BAD_INPUT
        assert err == f"odds: error: {cmp}: base: is required\n"
    code, _, err = run(capsys, "simulate", cmp)
    assert "names a ruleset" not in err and "is a comparison" in err


def test_a_misspelt_table_gets_the_closest_name(tmp_path, capsys):
    path = tmp_path / "s.toml"
    path.write_text((SCENARIOS / "wh40k3_ten_vs_ten.toml").read_text()
                    .replace("[engagement]", "[engagment]"))
    code, _, err = run(capsys, "validate", path)
    assert code == EXIT_BAD_INPUT
    assert f"{path}: engagment: unknown key; did you mean 'engagement'?" in err


def test_a_change_names_its_field_once(tmp_path, capsys):
    """A comparison's change that the scenario refuses: the path as written, then the
    reason, not the same field twice."""
    cmp = tmp_path / "cmp.toml"
    base = SCENARIOS / "blackpowder_cuirassiers_charge_lancers.toml"
    cmp.write_text(f'base = "{base}"\n[[variants]]\nname = "a"\n'
                   'set = {{ "engagement.reaction" = "dance" }}\n'.replace("{{", "{")
                   .replace("}}", "}"))
    code, _, err = run(capsys, "compare", cmp)
    assert code == EXIT_BAD_INPUT
    assert 'set."engagement.reaction": must be one of' in err
    assert err.count("engagement.reaction") == 1


def test_the_api_refuses_trials_with_precision(marines_vs_boyz):
    with pytest.raises(odds.ScenarioError, match="trials: give trials or precision, not both"):
        odds.simulate(marines_vs_boyz, trials=100, precision=0.01)
    with pytest.raises(odds.ScenarioError, match="trials: give trials or precision, not both"):
        odds.sweep(marines_vs_boyz, "defender.models[0].count", [10, 20], trials=100,
                   precision=0.01)
