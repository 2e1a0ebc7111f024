"""d10skirmish scenarios: the bundled files load and run; bad input gets one ScenarioError
naming the file, the field path and what is allowed (DESIGN "Contracts")."""
import copy
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import odds
from odds.errors import ScenarioError
from odds.rulesets.d10skirmish import rules
from edits import edited

SCENARIOS = Path(__file__).resolve().parents[1] / "data" / "scenarios"
TROOPER = SCENARIOS / "d10skirmish_trooper_charges_sniper.toml"


@pytest.fixture
def base():
    with open(TROOPER, "rb") as f:
        return tomllib.load(f)


def _error(data) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        odds.from_dict(data, "fight.toml")
    return info.value


def test_issue_scenario_loads_unchanged_and_runs_R3_2_R3_4():
    """The issue's TOML, as bundled: MS/AP/W/ARM/DMG, the charge and the reaction policy."""
    scenario = odds.load(TROOPER)
    trooper, sniper = rules.fighters(scenario)
    assert (trooper.skill, trooper.attacks, trooper.ap, trooper.wounds, trooper.armour,
            trooper.damage) == (6, 3, 3, 2, 3, 1)
    assert (sniper.skill, sniper.attacks, sniper.ap, sniper.wounds, sniper.armour,
            sniper.damage) == (5, 3, 2, 1, 2, 1)
    assert scenario.engagement["reaction"] == "fight"
    assert scenario.simulation["max_rounds"] == 10
    result = odds.simulate(scenario, trials=2000, seed=3)
    assert result.trials == 2000


@pytest.mark.parametrize("name", sorted(p.name for p in SCENARIOS.glob("d10skirmish_*.toml")))
def test_bundled_scenarios_load_and_run(name):
    result = odds.simulate(SCENARIOS / name, trials=1000, seed=1)
    probs = result.probabilities()
    assert sum(probs[k][0] for k in ("attacker_wins", "defender_wins", "both_destroyed",
                                     "unresolved")) == pytest.approx(1.0)


P0 = ["attacker", "models", 0]
D0 = ["defender", "models", 0]


@pytest.mark.parametrize("path,value,field,words", [
    (P0 + ["profile", "MS"], 0, "attacker.models[0].profile.MS", "from 1 to 10"),
    (P0 + ["profile", "MS"], 11, "attacker.models[0].profile.MS", "from 1 to 10"),
    (P0 + ["profile", "MS"], "six", "attacker.models[0].profile.MS", "whole number"),
    (P0 + ["profile", "MS"], KeyError, "attacker.models[0].profile.MS", "required"),
    (P0 + ["profile", "AP"], 0, "attacker.models[0].profile.AP", "from 1 to 10"),
    (D0 + ["profile", "W"], 0, "defender.models[0].profile.W", "from 1 to 20"),
    (D0 + ["profile", "ARM"], 11, "defender.models[0].profile.ARM", "from 0 to 10"),
    (D0 + ["profile", "ARM"], -1, "defender.models[0].profile.ARM", "from 0 to 10"),
    (D0 + ["profile", "DMG"], 0, "defender.models[0].profile.DMG", "from 1 to 10"),
    (D0 + ["profile", "WS"], 4, "defender.models[0].profile.WS", "unknown key"),
    (D0 + ["count"], 0, "defender.models[0].count", "from 1"),
    (D0 + ["count"], 2, "defender.models[0].count", "must be 1"),
    (["defender", "models"], [], "defender.models", "at least one model group"),
    (D0 + ["adjust"], 4, "defender.models[0].adjust", "from 0 to 3"),
    (D0 + ["adjust_for"], "kills", "defender.models[0].adjust_for", "'hits', 'blocks'"),
    (D0 + ["base"], 0, "defender.models[0].base", "from 1 to 300"),
    (D0 + ["equipment"], ["extra melee wepon"], "defender.models[0].equipment[0]",
     "'extra melee weapon'"),
    (["attacker", "in_contact"], 1, "attacker.in_contact", "unknown key"),
    (["engagement", "reaction"], "run", "engagement.reaction", "'fight', 'flee'"),
    (["engagement", "charger"], "both", "engagement.charger", "'attacker', 'defender'"),
    (["engagement", "opening"], "shoot", "engagement.opening", "'charge', 'push'"),
    (["engagement", "crit_mode"], "triple", "engagement.crit_mode", "'ignore_armour'"),
    (["engagement", "crit_blockable"], True, "engagement.crit_blockable", "'matching_1'"),
    (["engagement", "turn_order"], "random", "engagement.turn_order", "'alternate'"),
    (["engagement", "melee_attack_ap"], 0, "engagement.melee_attack_ap", "from 1 to 10"),
    (["engagement", "reaction_ap"], -1, "engagement.reaction_ap", "from 0 to 10"),
    (["engagement", "fall_damage"], -1, "engagement.fall_damage", "from 0 to 20"),
    (["engagement", "pursue"], True, "engagement.pursue", "unknown key"),
    (["engagement", "charged_ap_left"], 3, "engagement.charged_ap_left",
     "at most the charged fighter's AP (2)"),
    (["simulation", "max_rounds"], 0, "simulation.max_rounds", "from 1"),
    # R3-1: the charger's distance needs its move; the other keys of the approach need it
    (["attacker", "distance"], 10, "attacker.models[0].profile.M", "move in inches"),
    (["attacker", "distance"], -1, "attacker.distance", "from 0"),
    (["defender", "distance"], 10, "defender.distance", "charger's distance"),
    (["defender", "line_of_sight"], False, "defender.line_of_sight", "charger's"),
    (["attacker", "line_of_sight"], False, "attacker.line_of_sight", "only with"),
    (["attacker", "line_of_sight"], True, "attacker.line_of_sight", "only with"),
    (["defender", "line_of_sight"], True, "defender.line_of_sight", "charger's"),
    (["engagement", "move_ap"], 2, "engagement.move_ap", "only with"),
    (["engagement", "move_ap"], 1, "engagement.move_ap", "only with"),
    (P0 + ["profile", "M"], 0, "attacker.models[0].profile.M", "0.5"),
])
def test_bad_field_is_named(base, path, value, field, words):
    """Each mistake names the file and the field path, and says what is allowed."""
    err = _error(edited(base, path, value))
    assert (err.source, err.field) == ("fight.toml", field)
    assert words in err.message, err.message
    assert str(err).startswith(f"fight.toml: {field}: ")


def test_one_fighter_a_side(base):
    data = copy.deepcopy(base)
    data["attacker"]["models"].append(copy.deepcopy(data["attacker"]["models"][0]))
    err = _error(data)
    assert err.field == "attacker.models" and "exactly one" in err.message


def test_weapons_must_leave_a_possible_fighter_A4(base):
    """A4: weapon modifiers that push MS out of 1..10 or DMG below 1 are named."""
    data = edited(base, ["weapons"], {"glaive": {"skill": 5}, "feather": {"damage": -1}})
    data["attacker"]["models"][0]["equipment"] = ["glaive"]
    err = _error(data)
    assert err.field == "attacker.models[0].equipment" and "MS 6 to 11" in err.message
    data["attacker"]["models"][0]["equipment"] = ["feather"]
    err = _error(data)
    assert err.field == "attacker.models[0].equipment" and "DMG 1 to 0" in err.message
    data["weapons"]["glaive"]["skil"] = 1
    err = _error(data)
    assert err.field == "weapons.glaive.skil" and "unknown key" in err.message


def test_the_charger_needs_the_AP_to_open_R3_2_R3_9(base):
    """R3-2: a charge costs 2 AP; a push costs push_ap."""
    err = _error(edited(base, P0 + ["profile", "AP"], 1))
    assert err.field == "attacker.models[0].profile.AP" and "at least 2 AP" in err.message
    data = edited(base, ["engagement", "opening"], "push")
    data["engagement"]["push_ap"] = 4
    err = _error(data)
    assert err.field == "attacker.models[0].profile.AP" and "at least 4 AP" in err.message
    data = edited(base, ["engagement", "charger"], "defender")
    data["defender"]["models"][0]["profile"]["AP"] = 1
    assert _error(data).field == "defender.models[0].profile.AP"


def test_push_only_against_an_equal_or_smaller_base_R3_9(base):
    data = edited(base, ["engagement", "opening"], "push")
    data["attacker"]["models"][0]["base"] = 32
    data["defender"]["models"][0]["base"] = 32
    odds.from_dict(data)  # equal bases: allowed
    data["defender"]["models"][0]["base"] = 40
    err = _error(data)
    assert err.field == "engagement.opening" and "40 mm" in err.message
    data["engagement"]["opening"] = "charge"
    odds.from_dict(data)  # a charge does not care about bases


def test_bad_field_exits_2_on_the_command_line(tmp_path):
    path = tmp_path / "zero.toml"
    path.write_text(TROOPER.read_text().replace("MS = 5", "MS = 0"))
    run = subprocess.run([sys.executable, "-m", "odds", "simulate", str(path)],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 2
    assert f"{path}: defender.models[0].profile.MS: must be from 1 to 10" in run.stderr
    assert "Traceback" not in run.stderr
