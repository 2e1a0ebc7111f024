"""Rosters and round robins: every cell equals `odds simulate` of its pair bit for bit, who
charges, the ranking's arithmetic on a hand-made grid, outputs, and mistakes named where
they were written."""
from __future__ import annotations

import json
import math
import textwrap
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

import odds
from odds.analysis.roster_file import as_roster
from odds.analysis.intervals import Z95, wilson
from odds.analysis.round_robin import RoundRobin
from odds.cli import main
from odds.errors import ScenarioError
from odds.analysis.pack_listing import listing
from tests.test_packs import PACK

ROSTERS = Path(__file__).resolve().parents[1] / "data" / "rosters"

MINE = """\
ruleset = "wh40k3"
name = "Orks"
packs = ["army.toml"]

[[units]]
unit = "Ork Boyz"

[[units]]
unit = "Ork Boyz"
name = "Big mob"
set = { "models[Boy].count" = 30 }

[[units]]
name = "Grots"
[[units.models]]
name = "Grot"
count = 15
points = 3
profile = { WS = 2, S = 2, T = 2, W = 1, I = 2, A = 1, Ld = 5, Sv = 6 }
"""

THEIRS = """\
ruleset = "wh40k3"
name = "Marines"
packs = ["army.toml"]

[[units]]
unit = "Marines"

[[units]]
unit = "Marines"
name = "Sergeant's squad"
set = { "models[Space Marine].count" = 6 }
"""


@pytest.fixture
def rosters(tmp_path):
    (tmp_path / "army.toml").write_text(PACK, encoding="utf-8")
    (tmp_path / "mine.toml").write_text(MINE, encoding="utf-8")
    (tmp_path / "theirs.toml").write_text(THEIRS, encoding="utf-8")
    return tmp_path / "mine.toml", tmp_path / "theirs.toml"


def _scenario(mine, i, theirs, j, charger):
    """The cell written as a scenario by hand: MINE's unit i attacks THEIRS' unit j."""
    return odds.from_dict({"ruleset": "wh40k3", "attacker": as_roster(mine).units[i],
                           "defender": as_roster(theirs).units[j],
                           "engagement": {"charger": charger}})


def _same(a, b) -> None:
    assert a.trials == b.trials and a.seed == b.seed
    assert np.array_equal(a.tally.outcomes, b.tally.outcomes)
    for column, histogram in a.tally.by_winner.items():
        assert np.array_equal(histogram, b.tally.by_winner[column]), column


def test_every_cell_is_the_simulation_of_its_pair(rosters):
    mine, theirs = rosters
    robin = odds.roster(mine, theirs, both_ways=True, trials=4000, seed=7, quiet=True)
    assert len(robin.frame) == 3 * 2 * 2
    assert list(robin.frame["charger"]).count("theirs") == 6
    for (unit, label), result in robin.comparison.results.items():
        i = as_roster(mine).unit_names.index(unit)
        them = label.rsplit(" (", 1)[0]
        j = as_roster(theirs).unit_names.index(them)
        charger = "defender" if label.endswith("(they charge)") else "attacker"
        _same(result, odds.simulate(_scenario(mine, i, theirs, j, charger), trials=4000,
                                    seed=7, quiet=True))
    row = robin.frame.iloc[0]
    assert (row["variant"], row["opponent"], row["charger"]) == ("Ork Boyz", "Marines", "mine")


def test_a_list_against_itself_plays_every_ordered_pair(rosters):
    mine, _ = rosters
    robin = odds.roster(mine, trials=500, quiet=True)
    pairs = list(zip(robin.frame["variant"], robin.frame["opponent"]))
    names = as_roster(mine).unit_names
    assert sorted(pairs) == sorted((a, b) for a in names for b in names)
    assert set(robin.frame["charger"]) == {"mine"}
    rank = robin.ranking()
    assert set(rank["cells"]) == {2}  # a unit's fight with its own copy is not ranked
    rating = robin.rating()
    assert math.isfinite(rating.charge_advantage)  # every pair was played both ways round


def test_precision_cells_are_the_simulations_too(rosters):
    mine, theirs = rosters
    robin = odds.roster(mine, theirs, precision=0.02, quiet=True)
    for (unit, them), result in robin.comparison.results.items():
        alone = odds.simulate(_scenario(mine, as_roster(mine).unit_names.index(unit), theirs,
                                        as_roster(theirs).unit_names.index(them), "attacker"),
                              precision=0.02, quiet=True)
        _same(result, alone)


def _hand_made(variants, opponents, trials, wins, losses, **columns):
    """A round robin over a hand-made frame: every cell's wins with its Wilson interval."""
    low, high = wilson(np.round(np.multiply(wins, trials)), np.asarray(trials))
    frame = pd.DataFrame({"variant": variants, "opponent": opponents,
                          "charger": ["mine"] * len(wins), "trials": trials,
                          "attacker_wins": wins, "attacker_wins_low": low,
                          "attacker_wins_high": high, "defender_wins": losses, **columns})
    mine = SimpleNamespace(unit_names=list(dict.fromkeys(variants)), name="Mine")
    theirs = SimpleNamespace(unit_names=list(dict.fromkeys(opponents)), name="Theirs")
    return RoundRobin(mine, theirs, False, SimpleNamespace(name="grid"), frame)


def test_ranking_arithmetic_on_a_hand_made_grid():
    """Two units against two opponents: the means, the interval (the mean of the cells'
    Wilson bounds), points ratio summed over cells and wins per 100 points."""
    robin = _hand_made(["A", "A", "B", "B"], ["X", "Y", "X", "Y"], [1000, 1000, 4000, 4000],
                       [0.8, 0.6, 0.3, 0.1], [0.1, 0.3, 0.6, 0.8],
                       attacker_points=[100.0, 100.0, 50.0, 50.0],
                       points_destroyed=[80.0, 40.0, 10.0, 5.0],
                       points_lost=[20.0, 20.0, 30.0, 45.0])
    rank = robin.ranking().set_index("unit")
    assert list(rank.index) == ["A", "B"]
    low, high = wilson(np.array([800, 600]), np.array([1000, 1000]))
    assert rank.loc["A", "win"] == pytest.approx(0.7, abs=1e-15)
    assert (rank.loc["A", "win_low"], rank.loc["A", "win_high"]) == pytest.approx(
        (low.mean(), high.mean()), abs=1e-15)
    # for many fights: mean +- 1.96 x the mean standard error, to well under 0.1 points
    se_a = (math.sqrt(0.8 * 0.2 / 1000) + math.sqrt(0.6 * 0.4 / 1000)) / 2
    assert rank.loc["A", "win_low"] == pytest.approx(0.7 - Z95 * se_a, abs=1e-3)
    assert rank.loc["B", "loss"] == pytest.approx(0.7, abs=1e-15)
    assert rank.loc["A", "points_ratio"] == pytest.approx(120 / 40, abs=1e-15)
    assert rank.loc["B", "points_ratio"] == pytest.approx(15 / 75, abs=1e-15)
    assert rank.loc["A", "wins_per_100_points"] == pytest.approx(0.7, abs=1e-15)
    assert rank.loc["B", "wins_per_100_points"] == pytest.approx(0.4, abs=1e-15)
    # the rating: one list always charged, so no charge advantage; A above B
    assert rank.loc["A", "elo"] > rank.loc["B", "elo"]
    assert math.isnan(robin.rating().charge_advantage)


def test_the_interval_covers_however_the_cells_are_correlated():
    """Identical cells (fully correlated): the interval of the mean is the cells' own."""
    p, n = 0.3, 2500
    nan = [np.nan] * 3
    robin = _hand_made(["A"] * 3, ["X", "Y", "Z"], [n] * 3, [p] * 3, [1 - p] * 3,
                       attacker_points=nan, points_destroyed=nan, points_lost=nan)
    rank = robin.ranking().iloc[0]
    low, high = wilson(np.array([750]), np.array([n]))
    assert (rank["win_low"], rank["win_high"]) == pytest.approx((low[0], high[0]), abs=1e-15)
    assert math.isnan(rank["points_ratio"]) and math.isnan(rank["wins_per_100_points"])


def test_a_fight_a_cell_still_has_an_honest_interval():
    """One fight a cell, every one won: the interval is Wilson's for one fight, not 0 wide."""
    nan = [np.nan] * 2
    robin = _hand_made(["A"] * 2, ["X", "Y"], [1, 1], [1.0, 1.0], [0.0, 0.0],
                       attacker_points=nan, points_destroyed=nan, points_lost=nan)
    rank = robin.ranking().iloc[0]
    assert rank["win_high"] == 1.0 and rank["win_low"] < 0.25


def test_the_roster_example_of_a_blood_angels_list_loads():
    """The documented roster form, bundled as written: bundled units as they are, a loadout
    by `set`, and a unit written inline."""
    path = ROSTERS / "wh40k3_blood_angels.toml"
    roster = as_roster(path)
    assert roster.unit_names == ["Assault Squad", "Assault Squad (fist)", "Death Company"]
    fist = next(g for g in roster.units[1]["models"] if g["name"] == "Veteran Sergeant")
    assert fist["equipment"] == ["bolt pistol", "power fist", "frag grenades"]
    robin = odds.roster(path, ROSTERS / "wh40k3_orks.toml", trials=300, quiet=True)
    assert len(robin.frame) == 15


def test_outputs(rosters, tmp_path, capsys):
    mine, theirs = rosters
    csv, png = tmp_path / "cells.csv", tmp_path / "grid.png"
    assert main(["roster", str(mine), str(theirs), "--both-ways", "--trials", "300",
                 "--csv", str(csv), "--plot", str(png), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "Orks vs Marines  [wh40k3]" in out and "ranking" in out and "rating:" in out
    assert "P(the unit wins), Marines charging" in out
    frame = pd.read_csv(csv)
    assert len(frame) == 12 and {"variant", "opponent", "charger", "attacker_wins_diff",
                                 "identical_to", "points_ratio"} <= set(frame.columns)
    assert png.stat().st_size > 10_000
    assert main(["roster", str(mine), "--json", "--trials", "200", "--quiet"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["mine"] == data["theirs"] == "Orks" and len(data["rows"]) == 9
    assert [r["unit"] for r in data["ranking"]] and data["rating"]["units"]
    robin = odds.roster(mine, theirs, trials=200, quiet=True)
    assert "RoundRobin 'Orks vs Marines'" in repr(robin)
    assert "<h4>" in robin._repr_html_() and robin.to_csv().count("\n") == 7


@pytest.mark.parametrize("args, words", [
    (["--both-ways"], "--both-ways: a list played against itself"),
    (["--baseline", "Nobody"], "--baseline: "),
    (["--metric", "nothing", "--plot", "x.png"], "--metric: no column 'nothing'"),
])
def test_cli_mistakes_in_options(rosters, capsys, args, words, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    mine, _ = rosters
    assert main(["roster", str(mine), *args, "--trials", "10"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err


def test_cli_wrong_kind_of_file(rosters, capsys):
    mine, _ = rosters
    scenario = str(ROSTERS.parent / "scenarios" / "wh40k3_ten_vs_ten.toml")
    assert main(["roster", scenario]) == 2
    assert "is a scenario file, not a roster" in capsys.readouterr().err
    assert main(["simulate", str(mine)]) == 2
    assert "is a roster file, not a scenario" in capsys.readouterr().err


def _written(tmp_path, name, text):
    (tmp_path / "army.toml").write_text(PACK, encoding="utf-8")
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


@pytest.mark.parametrize("theirs_text, field, words", [
    (THEIRS + '[engagement]\npursue = false\n', "engagement", "differs from the first"),
    (THEIRS.replace('unit = "Marines"\n\n', 'unit = "Marines"\nin_cover = 3\n\n', 1),
     "units[0].in_cover", "must be true or false"),
    (THEIRS.replace('"models[Space Marine].count" = 6', '"models[Space Marine].count" = 0'),
     'units[1].set."models[Space Marine].count"', "must be from 1"),
    (THEIRS.replace('name = "Sergeant\'s squad"', 'name = "Marines"'), "units[1].name",
     "need different names"),
])
def test_mistakes_in_the_other_roster(tmp_path, theirs_text, field, words):
    mine = _written(tmp_path, "mine.toml", MINE)
    theirs = _written(tmp_path, "theirs.toml", theirs_text)
    with pytest.raises(ScenarioError) as e:
        odds.roster(mine, theirs, trials=10, quiet=True)
    assert (e.value.source, e.value.field) == (str(theirs), field)
    assert words in e.value.message


def test_both_lists_play_one_ruleset(tmp_path):
    mine = _written(tmp_path, "mine.toml", MINE)
    theirs = _written(tmp_path, "theirs.toml", 'ruleset = "whfb8"\n[[units]]\nunit = '
                      f'"{listing("whfb8")[0]["unit"]}"\n')
    with pytest.raises(ScenarioError) as e:
        odds.roster(mine, theirs, trials=10, quiet=True)
    assert (e.value.source, e.value.field) == (str(theirs), "ruleset")
    assert "both lists play one ruleset" in e.value.message


def test_a_unit_mistake_is_found_when_the_roster_is_read(tmp_path):
    """An unknown weapon is named in the roster entry of the unit that carries it, before
    any cell is built."""
    mine = _written(tmp_path, "mine.toml", MINE.replace('count = 15\npoints = 3\n',
                                                         'count = 15\npoints = 3\nequipment = '
                                                         '["grot blasta"]\n'))
    with pytest.raises(ScenarioError) as e:
        as_roster(mine)
    assert (e.value.source, e.value.field) == (str(mine), "units[2].models[0].equipment[0]")
    assert "unknown weapon 'grot blasta'" in e.value.message


def test_a_cell_mistake_is_blamed_on_the_unit_and_the_cell(tmp_path):
    """A d10skirmish fighter with 1 AP may be charged but may not charge (a charge costs 2
    AP): the cells where it charges are refused, naming its roster entry and the cell."""
    mine = _written(tmp_path, "mine.toml", 'ruleset = "d10skirmish"\n[[units]]\nunit = '
                    '"Trooper"\nname = "Slow trooper"\nset = { "models[Trooper].profile.AP" = 1 }\n')
    as_roster(mine)  # a unit that cannot charge is still a unit
    theirs = _written(tmp_path, "theirs.toml", 'ruleset = "d10skirmish"\n[[units]]\nunit = '
                      '"Sniper"\n')
    odds.roster(theirs, mine, trials=10, quiet=True)  # it is charged: fine
    with pytest.raises(ScenarioError) as e:
        odds.roster(mine, theirs, trials=10, quiet=True)
    assert e.value.source == str(mine) and e.value.field.startswith("units[0]")
    assert "in the cell 'Slow trooper' vs 'Sniper'" in e.value.message


@pytest.mark.parametrize("text, field, words", [
    ('ruleset = "wh40k3"\nunits = []\n', "units", "at least one unit"),
    ('ruleset = "wh40k3"\n[[units]]\nunit = "Nobody"\n', "units[0].unit", "unknown unit"),
    ('ruleset = "wh40k3"\nwhat = 1\n[[units]]\nunit = "Marines"\n', "what", "unknown key"),
    ('ruleset = "wh40k3"\n[[units]]\nname = "A"\n', "units[0].models", "is required"),
])
def test_mistakes_in_a_roster(tmp_path, text, field, words):
    path = _written(tmp_path, "mine.toml", text.replace('ruleset = "wh40k3"\n',
                                                        'ruleset = "wh40k3"\npacks = ["army.toml"]\n'))
    with pytest.raises(ScenarioError) as e:
        as_roster(path)
    assert (e.value.source, e.value.field) == (str(path), field)
    assert words in e.value.message


def test_bad_arguments():
    with pytest.raises(TypeError, match="mine must be a roster"):
        odds.roster(3)
    with pytest.raises(ScenarioError, match="must be true or false"):
        odds.roster({"ruleset": "wh40k3", "units": [{"unit": "x"}]}, both_ways="yes")


def test_a_list_of_one_unit_against_itself(tmp_path, capsys):
    """Its only cell is the unit against its own copy: played and shown, nothing ranked."""
    solo = _written(tmp_path, "solo.toml", 'ruleset = "wh40k3"\npacks = ["army.toml"]\n'
                    '[[units]]\nunit = "Marines"\n')
    robin = odds.roster(solo, trials=50, quiet=True)
    rank = robin.ranking().iloc[0]
    assert rank["cells"] == 0 and math.isnan(rank["win"]) and rank["points"] == 150
    assert robin.rating() is None and "no other unit" in str(robin)
    assert json.loads(robin.to_json())["rating"] is None and "<h4>" in robin._repr_html_()


def test_two_lists_of_one_name_sharing_a_unit_name(rosters):
    mine, _ = rosters
    robin = odds.roster(mine, mine, trials=50, quiet=True)
    names = set(robin.rating().names)
    assert {"Ork Boyz (mine)", "Ork Boyz (theirs)"} <= names and len(names) == 6


def test_a_points_ratio_needs_points_in_every_cell():
    half = [np.nan, 10.0]
    robin = _hand_made(["A", "A"], ["X", "Y"], [100, 100], [0.5, 0.5], [0.5, 0.5],
                       attacker_points=[100.0, 100.0], points_destroyed=half,
                       points_lost=[5.0, 5.0])
    assert math.isnan(robin.ranking().iloc[0]["points_ratio"])


def test_an_edited_roster_object_is_checked_again(rosters):
    mine, _ = rosters
    roster = as_roster(mine)
    roster.units[1]["name"] = roster.units[0]["name"]
    with pytest.raises(ScenarioError, match="the units of a roster need different names"):
        odds.roster(roster, trials=10, quiet=True)


@pytest.mark.parametrize("changes", [{"attacker.unit": "Marines"},
                                     {"defender.units[0].unit": "Marines"}])
def test_a_unit_name_cannot_be_changed_by_a_path(rosters, changes):
    """A picked unit is written out when its file is read: changing `unit` by a path would
    change nothing, so it is refused."""
    scenario = rosters[0].parent / "pick.toml"
    scenario.write_text('ruleset = "wh40k3"\npacks = ["army.toml"]\n[attacker]\nunit = '
                        '"Ork Boyz"\n[defender]\nunit = "Marines"\n', encoding="utf-8")
    with pytest.raises(ScenarioError, match="cannot be changed by a path"):
        odds.compare(scenario, variants={"a": {}, "b": changes}, trials=10, quiet=True)
    with pytest.raises(ScenarioError, match="cannot be changed by a path"):
        as_roster({"ruleset": "wh40k3", "packs": [str(rosters[0].parent / "army.toml")],
                   "units": [{"unit": "Ork Boyz", "set": {"unit": "Marines"}}]})


def test_the_cli_checks_the_input_before_reaching_the_scheduler(rosters, capsys):
    mine, _ = rosters
    assert main(["roster", str(mine), "--both-ways", "--scheduler", "tcp://127.0.0.1:1"]) == 2
    assert capsys.readouterr().err.startswith("odds: error: --both-ways: ")
