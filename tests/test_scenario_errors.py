"""Bad input gets one clear ScenarioError naming the file, the field and what is allowed."""
import tomllib

import pytest

import odds
from odds.errors import ScenarioError
from edits import edited


@pytest.fixture
def base(marines_vs_boyz):
    with open(marines_vs_boyz, "rb") as f:
        return tomllib.load(f)


def _error(data) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        odds.from_dict(data, "army.toml")
    return info.value


@pytest.mark.parametrize("path,value,field,words", [
    (["attacker", "models", 0, "profile", "WS"], 0, "attacker.models[0].profile.WS", "from 1 to 10"),
    (["attacker", "models", 0, "profile", "WS"], 11, "attacker.models[0].profile.WS", "from 1 to 10"),
    (["attacker", "models", 0, "profile", "T"], "four", "attacker.models[0].profile.T", "whole number"),
    (["attacker", "models", 0, "profile", "S"], KeyError, "attacker.models[0].profile.S", "required"),
    (["defender", "models", 0, "count"], -3, "defender.models[0].count", "from 1"),
    (["defender", "models", 0, "count"], 0, "defender.models[0].count", "from 1"),
    (["defender", "models"], [], "defender.models", "at least one model group"),
    (["defender", "models", 0, "equipment", 1], "chopa", "defender.models[0].equipment[1]", "'choppa'"),
    (["defender", "models", 0, "profile", "Inv"], 1, "defender.models[0].profile.Inv", "from 2 to 6"),
    (["defender", "models", 0, "profile", "BS"], 3, "defender.models[0].profile.BS", "unknown key"),
    (["engagement", "charger"], "both", "engagement.charger", "'attacker', 'defender'"),
    (["engagement", "flanking"], True, "engagement.flanking", "unknown key"),
    (["engagement", "charge_distance"], 7, "engagement.charge_distance", "from 0 to 6"),
    (["engagement", "charge_distance"], float("nan"), "engagement.charge_distance", "finite"),
    (["attacker", "models", 1, "points"], float("inf"), "attacker.models[1].points", "finite"),
    (["attacker", "models", 1, "name"], "Assault Marine", "attacker.models[1].name",
     "'Assault Marine' is the name of models[0] too"),
    (["attacker", "models", 1, "equipment"], ["bolt pistol", "frag grenades", "frag grenades"],
     "attacker.models[1].equipment[2]", "'frag grenades' is listed twice"),
    (["engagement", "attacker_in_cover"], True, "engagement.attacker_in_cover", "charged side"),
    (["simulation", "max_rounds"], 0, "simulation.max_rounds", "from 1"),
    (["simulation", "trials"], 2.5, "simulation.trials", "whole number"),
    (["attacker", "in_contact"], 11, "attacker.in_contact", "has 10 models"),
    (["attacker", "in_contact"], 0, "attacker.in_contact", "at least 1"),
    (["ruleset"], "wh50k", "ruleset", "unknown ruleset 'wh50k'; known: "),
    (["ruleset"], KeyError, "ruleset", "required"),
    (["defender"], KeyError, "defender", "required"),
])
def test_bad_field_is_named(base, path, value, field, words):
    """Each mistake names the file and the field path, and says what is allowed."""
    err = _error(edited(base, path, value))
    assert err.source == "army.toml"
    assert err.field == field
    assert words in err.message
    assert str(err).startswith(f"army.toml: {field}: ")


def test_several_special_weapons_need_fights_with(base):
    """R0-2: a model with two special weapons must say which it fights with."""
    data = edited(base, ["attacker", "models", 1, "equipment"], ["power fist", "power weapon"])
    assert _error(data).field == "attacker.models[1].fights_with"
    data["attacker"]["models"][1]["fights_with"] = "power weapon"
    odds.from_dict(data)
    data["attacker"]["models"][1]["fights_with"] = "lance"
    assert "equipment" in _error(data).message


def test_inline_weapon_is_checked_and_usable(base):
    data = edited(base, ["weapons"], {"big choppa": {"strength_bonus": 2, "two_weapon": True}})
    data["defender"]["models"][0]["equipment"] = ["slugga", "big choppa"]
    odds.from_dict(data)
    data["weapons"]["big choppa"]["strenght_bonus"] = 1
    err = _error(data)
    assert err.field == "weapons.big choppa.strenght_bonus"
    assert "strength_bonus" in err.message


def test_malformed_and_missing_files(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('ruleset = "wh40k3"\n[attacker\n')
    with pytest.raises(ScenarioError, match="bad.toml: malformed TOML"):
        odds.load(bad)
    with pytest.raises(ScenarioError, match="no such file"):
        odds.load(tmp_path / "missing.toml")


def test_python_objects_are_validated_too(marines_vs_boyz):
    """A Scenario built or edited in Python goes through the same checks before any kernel."""
    scenario = odds.load(marines_vs_boyz)
    scenario.defender.models[0].profile["WS"] = 0
    with pytest.raises(ScenarioError, match=r"defender.models\[0\].profile.WS"):
        odds.simulate(scenario, trials=10)
