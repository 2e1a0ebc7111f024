"""Sides of several units in the scenario model (every ruleset) and the wh40k3 unit keys
(R0-12, R0-13): what loads, what is refused with which field named, and that paths of
comparisons and sweeps reach into units."""
from __future__ import annotations

import copy

import pytest

import odds
from odds.rulesets import get_ruleset
from conftest import SCENARIOS
from odds.cli import main
from odds.scenario import MAX_UNITS

UNITS = SCENARIOS / "wh40k3_two_squads_vs_ork_mob.toml"
ONE_UNIT_FILES = {"mordheim": "mordheim_two_on_one.toml",
                  "whfb8": "whfb8_flank_charge_spearmen.toml",
                  "d10skirmish": "d10skirmish_blademaster_vs_brute.toml",
                  "blackpowder": "blackpowder_infantry_flank_charge.toml",
                  "wh40k3": "wh40k3_assault_marines_vs_boyz.toml"}


def units_data() -> dict:
    return odds.load(UNITS).to_dict()


def refused(data: dict, field: str, words: str) -> None:
    with pytest.raises(odds.ScenarioError) as info:
        odds.from_dict(data, "fight.toml")
    assert info.value.field == field, info.value
    assert words in info.value.message, info.value


def test_the_bundled_example_loads_with_its_units_R0_13():
    sc = odds.load(UNITS)
    assert [u.name for u in sc.attacker.units] == ["Assault Squad", "Tactical Squad"]
    assert [u.name for u in sc.defender.every_unit] == ["Ork Boyz", "Gretchin"]
    assert sc.attacker.name == "Assault Squad and Tactical Squad"
    boyz, gretchin = sc.defender.units
    assert boyz.options["strikes"] == "Tactical Squad" and boyz.options["engaged"]
    assert not gretchin.options["engaged"] and gretchin.options["distance"] == 6
    assert sc.validated() == sc


def test_a_side_of_several_units_may_be_named():
    data = units_data()
    data["attacker"]["name"] = "Strike force"
    assert odds.from_dict(data).attacker.name == "Strike force"


@pytest.mark.parametrize("ruleset", [r for r in sorted(ONE_UNIT_FILES)
                                     if not get_ruleset(r).multi_unit])
def test_other_rulesets_refuse_a_second_unit(ruleset):
    data = odds.load(SCENARIOS / ONE_UNIT_FILES[ruleset]).to_dict()
    unit = copy.deepcopy(data["attacker"])
    second = {**copy.deepcopy(unit), "name": "Second"}
    data["attacker"] = {"units": [unit, second]}
    refused(data, "attacker.units[1]", f"{ruleset} plays one unit a side")


@pytest.mark.parametrize("ruleset", sorted(ONE_UNIT_FILES))
def test_a_list_of_one_unit_is_that_unit(ruleset):
    plain = odds.load(SCENARIOS / ONE_UNIT_FILES[ruleset])
    data = plain.to_dict()
    data["defender"] = {"units": [data["defender"]]}
    listed = odds.from_dict(data, str(SCENARIOS / ONE_UNIT_FILES[ruleset]))
    assert listed == plain
    a = odds.simulate(plain, trials=2_000, seed=4, quiet=True)
    b = odds.simulate(listed, trials=2_000, seed=4, quiet=True)
    assert (a.tally.outcomes == b.tally.outcomes).all()


def test_a_one_unit_list_blames_its_own_fields():
    """Errors in a list of one unit name the field where it was written."""
    data = odds.load(SCENARIOS / ONE_UNIT_FILES["wh40k3"]).to_dict()
    data["attacker"] = {"units": [{**data["attacker"], "in_contact": 99}]}
    refused(data, "attacker.units[0].in_contact", "in_contact + within_2in is 99")
    data = odds.load(SCENARIOS / ONE_UNIT_FILES["whfb8"]).to_dict()
    unit = data["attacker"]
    unit["models"].append({**unit["models"][0], "name": "Other"})
    data["attacker"] = {"units": [unit]}
    with pytest.raises(odds.ScenarioError) as info:
        odds.from_dict(data, "fight.toml")
    assert info.value.field.startswith("attacker.units[0].models"), info.value


LIST_MISTAKES = [  # (edit of the bundled example's data, field blamed, words in the error)
    (lambda d: d["attacker"].update(units=[]), "attacker.units", "at least one unit"),
    (lambda d: d["attacker"].update(units="Assault Squad"), "attacker.units",
     "at least one unit"),
    (lambda d: d["attacker"]["units"][1].update(name="Assault Squad"),
     "attacker.units[1].name", "the units of a side need different names"),
    (lambda d: d["attacker"]["units"][1].pop("name"), "attacker.units[1].name", "is required"),
    (lambda d: d["attacker"].update(models=[]), "attacker.models", "unknown key"),
    (lambda d: d["attacker"].update(in_contact=3), "attacker.in_contact", "unknown key"),
    (lambda d: d["attacker"]["units"][0].update(units=[]), "attacker.units[0].units",
     "unknown key"),
    (lambda d: d["attacker"].update(units=[d["attacker"]["units"][0]] * (MAX_UNITS + 1)),
     "attacker.units", f"at most {MAX_UNITS}"),
]


def test_a_one_unit_list_may_not_name_the_side():
    data = units_data()
    data["attacker"]["units"].pop()
    data["attacker"]["name"] = "Strike force"
    refused(data, "attacker.name", "named by its unit")


UNIT_KEY_MISTAKES = [
    (lambda d: d["defender"]["units"][0].update(strikes="Devastators"),
     "defender.units[0].strikes", "must name an enemy unit"),
    (lambda d: d["attacker"]["units"][0].update(strikes="Gretchin"),
     "attacker.units[0].strikes", "not in the fight at the start"),
    (lambda d: d["defender"]["units"][1].pop("distance"), "defender.units[1].distance",
     "is required"),
    (lambda d: d["defender"]["units"][0].update(distance=3), "defender.units[0].distance",
     "needs engaged = false"),
    (lambda d: d["defender"]["units"][1].update(distance=25), "defender.units[1].distance",
     "from 0 to 24"),
    (lambda d: d["defender"]["units"][0].update(engaged=False, distance=2),
     "defender.units[0].engaged", "at least one unit in the fight"),
    (lambda d: d["attacker"]["units"][0].update(in_cover=True), "attacker.units[0].in_cover",
     "this one is charging"),
    (lambda d: d["attacker"]["units"][0].update(engaged=False, distance=3) or
     d["attacker"]["units"][1].update(engaged=False, distance=4), "attacker.units[0].engaged",
     "at least one unit in the fight"),
    (lambda d: d["attacker"]["units"].append({**d["attacker"]["units"][1], "name": "Third"})
     or d["attacker"]["units"][1].update(engaged=False, distance=3)
     or d["attacker"]["units"][2].update(engaged=False, distance=4),
     "attacker.units[2].engaged", "at most one unit out of the fight"),
    (lambda d: d["engagement"].update(charge_through_difficult_terrain=True,
                                      charge_distance=3),
     "engagement.charge_through_difficult_terrain", "one unit against one"),
]


@pytest.mark.parametrize("edit, field, words", LIST_MISTAKES + UNIT_KEY_MISTAKES)
def test_unit_lists_and_wh40k3_unit_keys_are_checked_R0_12_R0_13(edit, field, words):
    data = units_data()
    edit(data)
    refused(data, field, words)


def test_a_fresh_unit_in_cover_and_a_charged_unit_in_cover_load_R0_4():
    data = units_data()
    data["defender"]["units"][1]["in_cover"] = True
    data["defender"]["units"][0]["in_cover"] = True
    sc = odds.from_dict(data)
    assert [u.options["in_cover"] for u in sc.defender.units] == [True, True]


def test_the_cli_refuses_a_bad_unit_in_one_line(tmp_path, capsys):
    text = UNITS.read_text().replace('strikes = "Tactical Squad"', 'strikes = "Tactical"')
    (tmp_path / "bad.toml").write_text(text)
    assert main(["simulate", str(tmp_path / "bad.toml")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "defender.units[0].strikes: must name an enemy unit" in err


@pytest.mark.parametrize("path, value", [
    ("attacker.units[Tactical Squad].models[Space Marine].count", 8),
    ("defender.units[0].in_contact", 6),
    ("defender.units[Gretchin].distance", 12),
])
def test_paths_reach_into_units_R0_13(path, value):
    """A sweep's path sets a unit's key; the other cells keep the base's."""
    sweep = odds.sweep(UNITS, path, [value], trials=3_000, seed=2, quiet=True)
    assert len(sweep.frame) == 1
    from odds.overrides import get_path
    assert get_path(sweep.results[0].scenario.to_dict(), path) == value


def test_a_comparison_changes_a_unit(tmp_path):
    """A comparison file's variant edits a unit by name: fewer Gretchin reached from 12"."""
    (tmp_path / "cmp.toml").write_text(
        f'base = "{UNITS}"\n'
        '[[variants]]\nname = "near"\nset = {"defender.units[Gretchin].distance" = 6}\n'
        '[[variants]]\nname = "far"\nset = {"defender.units[Gretchin].distance" = 12}\n')
    comparison = odds.compare(tmp_path / "cmp.toml", trials=20_000, seed=2, quiet=True)
    unreached = {cell: result.units().set_index("unit").loc["Gretchin", "unreached"]
                 for cell, result in comparison.results.items()}
    near, far = (v for (variant, _), v in sorted(unreached.items(), reverse=True))
    assert far > near  # fewer advances reach 12" than 6"


def test_grids_carry_each_units_figures_R0_13(tmp_path, capsys):
    """A sweep over a unit's key has each unit's figures as columns (and --metric may draw
    one); the text table keeps to the sides' figures."""
    sweep = odds.sweep(UNITS, "defender.units[Gretchin].distance", [2, 12], trials=5_000,
                       seed=2, quiet=True)
    f = sweep.frame
    near, far = f["defender.units[Gretchin].unreached"]
    assert far > near
    assert f["defender.units[Gretchin].unreached_low"].lt(f["defender.units[Gretchin]"
                                                             ".unreached"]).all()
    assert "unreached" not in str(sweep) and "losses_mean" not in str(sweep)
    plain = odds.sweep(SCENARIOS / ONE_UNIT_FILES["wh40k3"], "defender.models[Boy].count",
                       [10], trials=1_000, quiet=True)
    assert not any(".units[" in c for c in plain.frame.columns)
    png = tmp_path / "unreached.png"
    assert main(["sweep", str(UNITS), "defender.units[Gretchin].distance", "4..8..4",
                 "--trials", "2000", "--quiet", "--plot", str(png),
                 "--metric", "defender.units[Gretchin].unreached"]) == 0
    assert png.stat().st_size > 0
    capsys.readouterr()
    assert main(["sweep", str(UNITS), "defender.units[Gretchin].distance", "4..8..4",
                 "--plot", str(png), "--metric", "defender.units[Gretchn].unreached"]) == 2
    assert "did you mean defender.units[Gretchin].unreached" in capsys.readouterr().err


def test_unit_figures_in_words():
    from odds.plots import _label, parameter_label

    assert _label("defender.units[Gretchin].unreached") == "Gretchin unreached (defender)"
    sc = odds.load(UNITS)
    assert parameter_label("defender.units[1].distance", sc) == "Gretchin distance (defender)"


def test_a_python_side_of_units_keeps_nothing_of_its_own():
    """A Side built in Python with units and models too is refused, not half dropped."""
    sc = odds.load(UNITS)
    sc.attacker.models = list(sc.attacker.units[0].models)
    with pytest.raises(odds.ScenarioError) as info:
        sc.validated()
    assert info.value.field == "attacker" and "no models or options" in info.value.message


def test_a_path_into_a_list_of_one_unit_reaches_that_unit():
    """A side written as [[defender.units]] with one unit is that unit: paths written the
    way the file was (`defender.units[0]`, `defender.units[NAME]`) still reach it, in sweeps
    and comparisons; another index or name is an error."""
    from odds.overrides import get_path, set_path
    from odds.core.schema import Where

    data = odds.load(SCENARIOS / "whfb8_chaos_lord_combined_charge.toml").to_dict()
    assert "units" not in data["defender"]
    for path in ("defender.units[0].models[0].count",
                 "defender.units[Night Goblins].models[Night Goblin].count"):
        set_path(data, path, 33, Where("case", path))
        assert get_path(data, path) == 33 == data["defender"]["models"][0]["count"]
    with pytest.raises(odds.ScenarioError, match="units does not exist"):
        set_path(data, "defender.units[1].models[0].count", 3, Where("case", "x"))
