"""Hardening of the input (issue 10): files, Python objects, numbers, repeats, names,
simulate() arguments and kept fights. Every mistake is one ScenarioError (or a TypeError
saying what is expected), never a raw AttributeError, KeyError or silent acceptance."""
import copy
import math
import tomllib

import numpy as np
import pytest

import odds
from conftest import SCENARIOS
from edits import edited
from odds.core import runner
from odds.play.options import BATCH
from odds.errors import ScenarioError
from odds.rulesets import get_ruleset

MORDHEIM = SCENARIOS / "mordheim_two_on_one.toml"
LANCERS = SCENARIOS / "blackpowder_cuirassiers_counter_charge_lancers.toml"
KNIGHTS = SCENARIOS / "whfb8_knights_lance_charge.toml"
BLADEMASTER = SCENARIOS / "d10skirmish_blademaster_vs_brute.toml"
COMPARISON = SCENARIOS.parent / "comparisons" / "wh40k3_sergeant_weapon.toml"


def _data(path) -> dict:
    with open(path, "rb") as f:
        return tomllib.load(f)


@pytest.fixture
def base(marines_vs_boyz):
    return _data(marines_vs_boyz)


def _error(data, source="army.toml") -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        odds.from_dict(data, source)
    return info.value


# --- files ---------------------------------------------------------------------------------

def test_a_file_that_is_not_utf8_names_the_byte(tmp_path, marines_vs_boyz):
    text = marines_vs_boyz.read_text(encoding="utf-8").replace(
        'name = "Assault Marines charge Ork Boyz"', 'name = "Caf\xe9"')
    latin = tmp_path / "latin.toml"
    latin.write_bytes(text.encode("latin-1"))
    with pytest.raises(ScenarioError) as info:
        odds.load(latin)
    at = text.encode("latin-1").index(b"\xe9")
    assert info.value.source == str(latin)
    assert info.value.message.startswith(f"is not UTF-8 text: byte 0xe9 at position {at} ")


def test_a_byte_order_mark_is_skipped(tmp_path, marines_vs_boyz):
    """Some Windows editors start a UTF-8 file with a byte-order mark: it loads."""
    marked = tmp_path / "marked.toml"
    marked.write_bytes(b"\xef\xbb\xbf" + marines_vs_boyz.read_bytes())
    assert odds.load(marked).to_dict() == odds.load(marines_vs_boyz).to_dict()


def test_a_comparison_file_is_not_a_scenario():
    for run in (odds.load, odds.simulate):
        with pytest.raises(ScenarioError) as info:
            run(COMPARISON)
        assert info.value.field == ""
        assert "is a comparison file" in info.value.message
        assert "odds compare" in info.value.message


# --- keys and tables -----------------------------------------------------------------------

@pytest.mark.parametrize("path,field", [
    ([0], ""), (["engagement", 0], "engagement"),
    (["attacker", "models", 0, "profile", 1], "attacker.models[0].profile"),
    (["weapons", 2], "weapons"),
])
def test_a_key_that_is_not_a_string_is_named(base, path, field):
    """e.g. a comparison's set = { "[0]" = 1, "bogus" = 2 } once made sorted() fail."""
    err = _error(edited(edited(base, path, 1), path[:-1] + ["bogus"], 2))
    assert err.field == field
    assert f"has a key {path[-1]!r} that is not a string" in err.message


# --- Python objects ------------------------------------------------------------------------

@pytest.mark.parametrize("value,words", [(None, "got None"), (123, "got int 123"),
                                         (3.5, "got float 3.5"), ([], "got list []")])
def test_simulate_wants_a_scenario_a_dict_or_a_path(value, words):
    with pytest.raises(TypeError) as info:
        odds.simulate(value)
    assert str(info.value) == ("expected a Scenario, a dict of scenario data or the path of a "
                               f"scenario TOML file, {words}")


def test_load_wants_a_path():
    with pytest.raises(TypeError, match="expected the path of a scenario TOML file, got None"):
        odds.load(None)


def test_simulate_takes_toml_shaped_data(base, marines_vs_boyz):
    from_data = odds.simulate(base, trials=500, seed=3)
    from_file = odds.simulate(marines_vs_boyz, trials=500, seed=3)
    assert np.array_equal(from_data.tally.outcomes, from_file.tally.outcomes)
    with pytest.raises(ScenarioError, match="<python>: ruleset: is required"):
        odds.simulate({})


@pytest.mark.parametrize("edit,field,words", [
    (lambda sc: setattr(sc.attacker.models[0], "profile", None),
     "attacker.models[0].profile", "must be a table, got None"),
    (lambda sc: setattr(sc.attacker.models[0], "equipment", "sword"),
     "attacker.models[0].equipment", "must be a list of names, got 'sword'"),
    (lambda sc: setattr(sc.attacker.models[0], "count", "3"),
     "attacker.models[0].count", "must be a whole number, got '3'"),
    (lambda sc: setattr(sc.attacker.models[0], "options", None),
     "attacker.models[0]", "ModelGroup.options must be a dict"),
    (lambda sc: sc.attacker.models[0].options.update(count=4),
     "attacker.models[0]", "ModelGroup.options may not hold 'count'"),
    (lambda sc: setattr(sc.attacker, "models", [None]),
     "attacker.models[0]", "must be a ModelGroup, got None"),
    (lambda sc: setattr(sc.attacker, "models", None),
     "attacker.models", "at least one model group"),
    (lambda sc: setattr(sc, "defender", None), "defender", "must be a Side, got None"),
    (lambda sc: setattr(sc.defender, "options", []), "defender", "Side.options must be a dict"),
    (lambda sc: setattr(sc, "engagement", None), "engagement", "must be a table, got None"),
    (lambda sc: setattr(sc, "weapons", "mine"), "weapons", "no weapons file"),
    (lambda sc: setattr(sc, "name", None), "name", "must be a non-empty string, got None"),
])
def test_a_scenario_edited_in_place_is_checked(marines_vs_boyz, edit, field, words):
    scenario = odds.load(marines_vs_boyz)
    edit(scenario)
    with pytest.raises(ScenarioError) as info:
        odds.simulate(scenario, trials=10)
    assert (info.value.source, info.value.field) == (str(marines_vs_boyz), field)
    assert words in info.value.message


def test_a_scenario_built_without_a_name_is_named_after_its_sides(marines_vs_boyz):
    loaded = odds.load(marines_vs_boyz)
    built = odds.Scenario(ruleset="wh40k3", attacker=loaded.attacker, defender=loaded.defender)
    assert built.name == "Assault Squad vs Ork Boyz"
    assert odds.simulate(built, trials=10).scenario.name == "Assault Squad vs Ork Boyz"
    data = {k: v for k, v in loaded.to_dict().items() if k != "name"}
    assert odds.from_dict(data).name == "Assault Squad vs Ork Boyz"
    assert odds.from_dict(data, "dir/army.toml").name == "army"


def test_numpy_whole_numbers_are_whole_numbers(base):
    data = edited(base, ["defender", "models", 0, "count"], np.int64(12))
    assert odds.from_dict(data).defender.models[0].count == 12


# --- numbers -------------------------------------------------------------------------------

@pytest.mark.parametrize("path,field", [
    (["engagement", "charge_distance"], "engagement.charge_distance"),
    (["attacker", "models", 0, "points"], "attacker.models[0].points"),
])
@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 10**400])
def test_non_finite_numbers_are_refused(base, path, field, value):
    """charge_distance = nan once made every wh40k3 charge succeed."""
    err = _error(edited(base, path, value))
    assert err.field == field
    assert "must be a finite number" in err.message


def test_non_finite_numbers_are_refused_in_whfb8():
    data = edited(_data(KNIGHTS), ["engagement", "charge_distance"], math.nan)
    assert _error(data).field == "engagement.charge_distance"
    data = edited(_data(LANCERS), ["attacker", "points"], math.inf)
    assert "finite" in _error(data).message


# --- repeated names ------------------------------------------------------------------------

@pytest.mark.parametrize("path,items,field", [
    (["attacker", "rules"], ["lancers", "lancers"], "attacker.rules[1]"),
    (["defender", "status"], ["disordered", "disordered"], "defender.status[1]"),
])
def test_blackpowder_repeats_are_refused(path, items, field):
    """rules = ["lancers", "lancers"] once raised the attacker's wins from 16.5% to 28.8%."""
    err = _error(edited(_data(LANCERS), path, items))
    assert err.field == field
    assert f"{items[0]!r} is listed twice (first at [0])" in err.message


@pytest.mark.parametrize("key,items", [
    ("equipment", ["hand weapon", "shield", "shield"]),
    ("equipment", ["hand weapon", "light armour", "light armour"]),
    ("equipment", ["spear", "spear"]),
    ("rules", ["Fear", "Stubborn", "Fear"]),
])
def test_whfb8_repeats_are_refused(key, items):
    """A second shield was a second +1 to the save."""
    data = edited(_data(KNIGHTS), ["defender", "models", 0, key], items)
    err = _error(data)
    assert err.field == f"defender.models[0].{key}[{len(items) - 1}]"
    assert "listed twice" in err.message


def test_d10skirmish_repeats_are_refused():
    data = edited(_data(BLADEMASTER), ["attacker", "models", 0, "equipment"],
                  ["extra melee weapon", "melee weapon", "extra melee weapon"])
    err = _error(data)
    assert err.field == "attacker.models[0].equipment[2]"
    assert "'extra melee weapon' is listed twice (first at [0])" in err.message


def test_wh40k3_a_pair_of_weapons_is_the_two_weapon_bonus(base):
    """R0-3: two of the same close-combat weapon or pistol give +1 A, as two different ones;
    a third, or any other item listed again, is refused."""
    from odds.rulesets.wh40k3.compile import CONTACT, LATER, compile_plan

    sergeant = ["attacker", "models", 1, "equipment"]
    attacks = base["attacker"]["models"][1]["profile"]["A"]
    for pair in (["bolt pistol", "bolt pistol"], ["bolt pistol", "chainsword"]):
        plan = compile_plan(odds.from_dict(edited(base, sergeant, pair)))
        assert plan.attacks[LATER, 0, 1, CONTACT] == attacks + 1
    claws = odds.from_dict(edited(base, sergeant, ["power claw", "power claw"]))
    assert compile_plan(claws).step[LATER, 0, 1, CONTACT] == 0  # strikes last with the claws
    err = _error(edited(base, sergeant, ["pistol", "pistol", "pistol"]))
    assert (err.field, err.message) == ("attacker.models[1].equipment[2]",
                                        "'pistol' is listed 3 times (first at [0]); at most twice")
    err = _error(edited(base, sergeant, ["pistol", "frag grenades", "frag grenades"]))
    assert err.field == "attacker.models[1].equipment[2]" and "list it once" in err.message


def test_mordheim_a_weapon_in_each_hand_is_kept():
    """R1-3: two daggers are a weapon in each hand (the off-hand's extra attack)."""
    from odds.rulesets.mordheim.compile import compile_plan

    data = edited(_data(MORDHEIM), ["attacker", "models", 1, "equipment"], ["dagger", "dagger"])
    plan = compile_plan(odds.from_dict(data))
    assert list(plan.hands) == [1, 2, 2]
    data = edited(data, ["attacker", "models", 0, "equipment"], ["sword", "helmet", "helmet"])
    assert "more than one helmet" in _error(data).message


def test_mordheim_a_contact_listed_twice_is_refused():
    data = edited(_data(MORDHEIM), ["engagement", "contacts"],
                  [["Champion", "Night Runner"], ["Marksman", "Night Runner"],
                   ["Champion", "Night Runner"]])
    err = _error(data)
    assert err.field == "engagement.contacts[2]"
    assert "is listed twice (first at [0])" in err.message


# --- unique names --------------------------------------------------------------------------

@pytest.mark.parametrize("path", [SCENARIOS / "wh40k3_ten_vs_ten.toml", MORDHEIM])
def test_model_group_names_differ_within_a_side(path):
    data = _data(path)
    first = data["attacker"]["models"][0]["name"]
    data["attacker"]["models"].append({**copy.deepcopy(data["attacker"]["models"][0])})
    err = _error(data)
    index = len(data["attacker"]["models"]) - 1
    assert err.field == f"attacker.models[{index}].name"
    assert f"{first!r} is the name of models[0] too" in err.message
    data["defender"]["models"][0]["name"] = first  # the other side may use it
    data["attacker"]["models"][index]["name"] = "Another"
    odds.from_dict(data)


def test_mordheim_warrior_names_cannot_collide():
    """ "Marksman" x 2 makes "Marksman 1" and "Marksman 2": no group may be "Marksman 1"."""
    data = edited(_data(MORDHEIM), ["attacker", "models", 1, "count"], 2)
    data["attacker"]["models"].append(
        {**copy.deepcopy(data["attacker"]["models"][1]), "name": "Marksman 1", "count": 1})
    err = _error(data)
    assert err.field == "attacker.models[2].name"
    assert "two warriors would be named 'Marksman 1'" in err.message


def test_mordheim_contacts_work_through_every_path(tmp_path):
    """The pairs were turned into tuples, which simulate() then refused."""
    data = edited(_data(MORDHEIM), ["engagement", "contacts"],
                  [["Champion", "Night Runner"], ["Marksman", "Night Runner"]])
    scenario = odds.from_dict(data)
    assert scenario.validated() == scenario
    assert odds.simulate(scenario, trials=200).tally.trials == 200
    scenario.engagement["contacts"] = [("Champion", "Night Runner"), ("Marksman", "Night Runner")]
    assert odds.simulate(scenario, trials=200).tally.trials == 200


# --- simulate() arguments ------------------------------------------------------------------

@pytest.mark.parametrize("name,value,words", [
    ("threads", 0, "at least 1"), ("threads", -1, "at least 1"),
    ("threads", 2.5, "whole number"), ("threads", True, "whole number"),
    ("threads", "2", "whole number"),
    ("trials", 0, "from 1 to 1000000000000"), ("trials", 10**13, "from 1 to 1000000000000"),
    ("trials", 1.5, "whole number"),
    ("seed", -1, "from 0 to 9223372036854775807"), ("seed", 2**64, "from 0 to 9223372036854775807"),
    ("max_trials", 0, "from 1"), ("precision", 0.5, "between 0 and 0.5"),
    ("precision", "0.01", "must be a number"), ("precision", math.nan, "finite"),
    ("keep_fights", "yes", "true or false"), ("progress", 1, "true or false"),
    ("quiet", None, "true or false"),
])
def test_simulate_arguments_are_checked(marines_vs_boyz, name, value, words):
    """An argument's mistake is blamed on the argument, not on the file's [simulation]."""
    given = {"precision": 0.01} if name == "max_trials" else {}
    with pytest.raises(ScenarioError) as info:
        odds.simulate(marines_vs_boyz, **{**given, name: value})
    assert (info.value.source, info.value.field) == ("<arguments>", name)
    assert words in info.value.message


def test_threads_above_the_cores_use_them_all(marines_vs_boyz):
    import numba

    many = odds.simulate(marines_vs_boyz, trials=2000, seed=4, threads=10_000)
    assert numba.get_num_threads() == numba.config.NUMBA_NUM_THREADS
    one = odds.simulate(marines_vs_boyz, trials=2000, seed=4, threads=1)
    assert np.array_equal(many.tally.outcomes, one.tally.outcomes)
    runner.set_threads(None)


def test_keep_fights_with_precision_keeps_every_batch(marines_vs_boyz):
    kept = odds.simulate(marines_vs_boyz, precision=0.004, seed=2, keep_fights=True)
    played = kept.tally.trials
    assert played > BATCH  # more than one batch
    plain = odds.simulate(marines_vs_boyz, trials=played, seed=2, keep_fights=True)
    assert kept.fights_record.shape == plain.fights_record.shape
    assert np.array_equal(kept.fights_record, plain.fights_record)


def test_keep_fights_is_refused_above_two_gigabytes(marines_vs_boyz):
    ruleset = get_ruleset("mordheim")
    most = runner.most_kept_fights(ruleset)
    assert 4 * 15 * most <= runner.MOST_KEPT_BYTES < 4 * 15 * (most + 1)
    with pytest.raises(ScenarioError) as info:
        odds.simulate(MORDHEIM, trials=most + 1, keep_fights=True)
    assert (info.value.source, info.value.field) == ("<arguments>", "keep_fights")
    assert f"at most {most:,} fights of this mordheim scenario (2 GB)" in info.value.message
    with pytest.raises(ScenarioError, match="at most") as info:
        odds.simulate(marines_vs_boyz, precision=0.01, keep_fights=True, max_trials=10**9)
    assert info.value.field == "max_trials"


def test_kept_fights_need_one_record_of_memory(marines_vs_boyz):
    """The record is allocated once and each chunk fills its slice: the peak is the record
    and a chunk, not a list of chunks then their concatenation (2x the record and more)."""
    import tracemalloc

    scenario = odds.load(marines_vs_boyz)
    ruleset = get_ruleset("wh40k3")
    plan = ruleset.compile(scenario)
    trials, chunk = 200_000, 10_000
    runner.run(ruleset, plan, chunk, 7)  # load the kernel first
    tracemalloc.start()
    try:
        tally, record = runner.run(ruleset, plan, trials, 7, keep_fights=True, chunk=chunk)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert record.shape == (7, trials)
    assert peak < 1.3 * record.nbytes
    assert np.array_equal(record, runner.run(ruleset, plan, trials, 7, keep_fights=True)[1])
    assert np.array_equal(tally.histogram("defender_lost"), np.bincount(record[4]))


# --- weapons files -------------------------------------------------------------------------

def _with_weapons_file(tmp_path, marines_vs_boyz, entries: str, weapons='"arms/orks.toml"'):
    (tmp_path / "arms").mkdir(exist_ok=True)
    (tmp_path / "arms" / "orks.toml").write_text(entries)
    text = marines_vs_boyz.read_text().replace('"slugga", "choppa"', '"slugga", "big choppa"')
    assert "big choppa" in text
    scenario = tmp_path / "army.toml"
    scenario.write_text(f"weapons = {weapons}\n" + text)
    return scenario


def test_a_weapons_file_works_like_inline_entries(tmp_path, marines_vs_boyz, monkeypatch):
    entry = '["big choppa"]\ntwo_weapon = true\nstrength_bonus = 2\n'
    path = _with_weapons_file(tmp_path, marines_vs_boyz, entry)
    inline = marines_vs_boyz.read_text().replace('"slugga", "choppa"', '"slugga", "big choppa"')
    (tmp_path / "inline.toml").write_text(inline + '\n[weapons."big choppa"]\n'
                                          'two_weapon = true\nstrength_bonus = 2\n')
    monkeypatch.chdir(tmp_path)
    scenario = odds.load("army.toml")
    assert scenario.weapons == {"big choppa": {"two_weapon": True, "strength_bonus": 2}}
    monkeypatch.chdir(tmp_path / "arms")  # the file was read at load time, from its folder
    expected = odds.simulate(tmp_path / "inline.toml", trials=2000, seed=8).tally.outcomes
    for run in (path, scenario, scenario.replace(max_rounds=10), scenario.validated()):
        assert np.array_equal(odds.simulate(run, trials=2000, seed=8).tally.outcomes, expected)


def test_a_list_of_weapons_files(tmp_path, marines_vs_boyz):
    path = _with_weapons_file(tmp_path, marines_vs_boyz, '["big choppa"]\ntwo_weapon = true\n',
                              weapons='["arms/orks.toml", "arms/more.toml"]')
    (tmp_path / "arms" / "more.toml").write_text('["big choppa"]\nsave_cap = 4\n')
    with pytest.raises(ScenarioError) as info:
        odds.load(path)
    assert info.value.source == str(tmp_path / "arms" / "more.toml")
    assert info.value.field == "big choppa"
    assert "defined in" in info.value.message and "orks.toml too" in info.value.message
    (tmp_path / "arms" / "more.toml").write_text('["small choppa"]\nsave_cap = 4\n')
    assert set(odds.load(path).weapons) == {"big choppa", "small choppa"}


def test_a_mistake_in_a_weapons_file_names_that_file(tmp_path, marines_vs_boyz):
    path = _with_weapons_file(tmp_path, marines_vs_boyz, '["big choppa"]\nstrenght_bonus = 2\n')
    for run in (odds.load, odds.simulate):
        with pytest.raises(ScenarioError) as info:
            run(path)
        assert info.value.source == str(tmp_path / "arms" / "orks.toml")
        assert info.value.field == "big choppa.strenght_bonus"
        assert "unknown key" in info.value.message


@pytest.mark.parametrize("weapons,field,words", [
    ('"arms/none.toml"', "weapons", "no weapons file"),
    ('["arms/orks.toml", "arms/orks.toml"]', "weapons[1]", "listed twice"),
    ('["arms/orks.toml", 3]', "weapons[1]", "non-empty string"),
    ("3", "weapons", "path of a weapons file"),
])
def test_a_bad_weapons_key_is_named(tmp_path, marines_vs_boyz, weapons, field, words):
    path = _with_weapons_file(tmp_path, marines_vs_boyz, '["big choppa"]\n', weapons=weapons)
    with pytest.raises(ScenarioError) as info:
        odds.load(path)
    assert (info.value.source, info.value.field) == (str(path), field)
    assert words in info.value.message


def test_a_weapons_file_that_is_not_utf8(tmp_path, marines_vs_boyz):
    path = _with_weapons_file(tmp_path, marines_vs_boyz, "")
    (tmp_path / "arms" / "orks.toml").write_bytes(b'["big choppa"]\n# caf\xe9\n')
    with pytest.raises(ScenarioError, match="orks.toml: is not UTF-8 text: byte 0xe9 at "
                                            "position 20 \\(line 2\\)"):
        odds.load(path)
