"""whfb8 scenarios: the bundled files load and run with the shared JSON keys; bad input is a
ScenarioError naming the file, the field and what is allowed; the same seed gives the same
fights whatever the thread count."""
from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import odds
from odds.core import runner
from odds.core.data import read_toml
from odds.errors import ScenarioError
from odds.rulesets import get_ruleset
from edits import edited

ROOT = Path(__file__).resolve().parents[1]
BUNDLED = sorted((ROOT / "data" / "scenarios").glob("whfb8_*.toml"))
HORDE = ROOT / "data" / "scenarios" / "whfb8_chaos_warriors_vs_goblin_horde.toml"


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_bundled_scenarios_load_and_run(path):
    """R2-1: every bundled file loads unchanged and plays whole combats."""
    result = odds.simulate(path, trials=2_000)
    assert result.trials == 2_000


def test_cli_json_has_the_shared_keys():
    """The issue's file through `odds simulate --json`: the keys wh40k3 gives."""
    def keys(path):
        done = subprocess.run([sys.executable, "-m", "odds", "simulate", str(path), "--json",
                               "--trials", "1000"], check=True, capture_output=True, text=True,
                              cwd=ROOT)
        return set(json.loads(done.stdout))
    assert keys(HORDE) == keys(ROOT / "data" / "scenarios" / "wh40k3_ten_vs_ten.toml")


def test_same_seed_same_fights_whatever_the_threads():
    sc = odds.load(HORDE)
    ruleset = get_ruleset("whfb8")
    plan = ruleset.compile(sc)
    rows = []
    for threads in (1, 2):
        runner.set_threads(threads)
        rows.append(runner.run(ruleset, plan, 3_000, 7, keep_fights=True)[1])
    runner.set_threads(None)
    assert np.array_equal(rows[0], rows[1])


GROUP = ["attacker", "models", 0]


@pytest.mark.parametrize("path, value, field, words", [
    (GROUP + ["profile", "WS"], 0, "attacker.models[0].profile.WS", "from 1 to 10"),
    (GROUP + ["profile", "M"], KeyError, "attacker.models[0].profile.M", "required"),
    (GROUP + ["count"], 0, "attacker.models[0].count", "from 1"),
    (GROUP + ["equipment"], ["great sword"], "attacker.models[0].equipment[0]",
     "unknown weapon or armour"),
    (GROUP + ["rules"], ["Stuborn"], "attacker.models[0].rules[0]", "did you mean 'Stubborn'"),
    (GROUP + ["equipment"], ["lance"], "attacker.models[0].equipment[0]", "mounted models only"),
    (GROUP + ["troop_type"], "cavalry", "attacker.models[0].mount", "required for cavalry"),
    (GROUP + ["troop_type"], "dragon", "attacker.models[0].troop_type", "'infantry'"),
    (GROUP + ["troop_type"], "chariot", "attacker.models[0].troop_type", "must be one of"),
    (GROUP + ["mount"], {"WS": 3, "S": 3, "I": 3, "A": 1}, "attacker.models[0].mount",
     "only a mounted troop_type"),
    (GROUP + ["equipment"], ["great weapon", "halberd"], "attacker.models[0].fights_with",
     "several weapons"),
    (GROUP + ["fights_with"], "spear", "attacker.models[0].fights_with", "must be one of"),
    (GROUP + ["fights_with"], "heavy armour", "attacker.models[0].fights_with", "is armour"),
    (["attacker", "width"], 0, "attacker.width", "from 1 to 100"),
    (["attacker", "width"], KeyError, "attacker.width", "required"),
    (["attacker", "banner"], True, "attacker.banner", "unknown key"),
    (["engagement", "facing"], "side", "engagement.facing", "'front', 'flank', 'rear'"),
    (["engagement", "reaction"], "flee", "engagement.charge_distance", "is required"),
    (["rules", "supporting_attacks"], "7e", "rules.supporting_attacks", "'resurrection'"),
    (["rules", "steadfast"], False, "rules.steadfast", "unknown key"),
    (["attacker", "models", 1], None, "attacker.models[1]", "one rank-and-file group"),
])
def test_bad_input_names_file_and_field(path, value, field, words):
    data = read_toml(HORDE)
    if path[-1] == 1:  # a second group: a champion in its own group
        data = copy.deepcopy(data)
        data["attacker"]["models"].append({**data["attacker"]["models"][0], "count": 1})
    else:
        data = edited(data, path, value)
    with pytest.raises(ScenarioError) as info:
        odds.from_dict(data, "army.toml")
    error = info.value
    assert error.source == "army.toml"
    assert error.field == field
    assert words in error.message


def test_user_weapon_in_the_scenario():
    """R2-10: [weapons] adds a weapon with the bundled keys; unknown keys are errors."""
    data = read_toml(HORDE)
    data["weapons"] = {"axe of khorne": {"strength_bonus": 1, "strikes_last": True}}
    data["attacker"]["models"][0]["equipment"] = ["axe of khorne", "heavy armour"]
    assert odds.simulate(odds.from_dict(data), trials=500).trials == 500
    data["weapons"] = {"axe of khorne": {"killing_blow": True}}
    with pytest.raises(ScenarioError) as info:
        odds.from_dict(data, "army.toml")
    assert info.value.field == "weapons.axe of khorne.killing_blow"
