"""Mordheim scenarios: the bundled files load and run, the CLI gives wh40k3's JSON keys, and
every kind of bad input is a ScenarioError naming the file and field (R1-1, R1-10)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import odds
from odds.rulesets.mordheim import rules

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = sorted((ROOT / "data" / "scenarios").glob("mordheim_*.toml"))
ISSUE = ROOT / "data" / "scenarios" / "mordheim_captain_vs_night_runner.toml"


def data(**changes):
    base = {
        "ruleset": "mordheim", "name": "bad",
        "attacker": {"name": "A", "models": [{"name": "a", "count": 1, "profile": dict(
            M=4, WS=3, BS=3, S=3, T=3, W=1, I=3, A=1, Ld=7), "equipment": ["sword"]}]},
        "defender": {"name": "D", "models": [{"name": "d", "count": 1, "profile": dict(
            M=4, WS=3, BS=3, S=3, T=3, W=1, I=3, A=1, Ld=7), "equipment": ["axe"]}]},
    }
    for path, value in changes.items():
        *keys, last = path.split("__")
        node = base
        for k in keys:
            node = node[int(k)] if k.isdigit() else node.setdefault(k, {})
        node[last] = value
    return base


def test_bundled_scenarios_load_and_run_R1_12():
    assert len(SCENARIOS) >= 3
    for path in SCENARIOS:
        result = odds.simulate(path, trials=2000, seed=3)
        assert result.tally.trials == 2000


def test_cli_json_has_the_wh40k3_keys():
    def keys(path):
        out = subprocess.run([sys.executable, "-m", "odds", "simulate", str(path), "--json",
                              "--trials", "2000"], capture_output=True, text=True, check=True,
                             cwd=ROOT)
        return set(json.loads(out.stdout))

    assert keys(ISSUE) == keys(ROOT / "data" / "scenarios" / "wh40k3_ten_vs_ten.toml")


def test_R1_10_weapon_table_is_complete():
    table = rules.weapons(odds.load(ISSUE))
    for name in ("fist", "dagger", "club", "mace", "hammer", "axe", "sword", "spear", "halberd",
                 "flail", "morning star", "double-handed weapon", "lance", "buckler", "shield",
                 "helmet", "light armour", "heavy armour", "pistol"):
        assert name in table
    assert table["double-handed weapon"].hit_strength(3, False, False) == 5
    assert table["flail"].hit_strength(3, True, False) == 5
    assert table["flail"].hit_strength(3, False, False) == 3  # heavy: round 1 only
    assert table["pistol"].hit_strength(2, False, False) == 4
    assert table["lance"].hit_strength(3, True, True) == 5


def test_R1_8_armour_saves_from_equipment():
    sc = odds.from_dict(data(attacker__models__0__equipment=["sword", "shield", "heavy armour"],
                             defender__models__0__equipment=["shield"]))
    a, d = rules.warriors(sc)
    assert (a.save, d.save) == (4, 6)
    assert a.parry_items == 1 and d.parry_items == 0


BAD = [
    ({"attacker__models__0__equipment": ["laser sword"]}, "attacker.models[0].equipment[0]",
     "unknown weapon"),
    ({"attacker__models__0__profile": dict(M=4, WS=0, BS=3, S=3, T=3, W=1, I=3, A=1, Ld=7)},
     "attacker.models[0].profile.WS", "from 1 to 10"),
    ({"defender__models__0__count": 0}, "defender.models[0].count", "from 1 to"),
    ({"defender__models__0__count": 21}, "defender.models", "at most 20 warriors"),
    ({"attacker__models__0__equipment": ["halberd", "shield"]},
     "attacker.models[0].equipment", "two-handed"),
    ({"attacker__models__0__equipment": ["sword", "dagger", "buckler"]},
     "attacker.models[0].equipment", "two hands"),
    ({"attacker__models__0__equipment": ["spear", "dagger"]},
     "attacker.models[0].equipment", "unwieldy"),
    ({"attacker__models__0__equipment": ["morning star", "buckler"]},
     "attacker.models[0].equipment", "difficult"),
    ({"attacker__models__0__equipment": ["pistol", "sword"]},
     "attacker.models[0].equipment", "beside another"),
    ({"attacker__models__0__equipment": ["lance"]}, "attacker.models[0].equipment", "mounted"),
    ({"attacker__models__0__equipment": ["light armour", "heavy armour"]},
     "attacker.models[0].equipment", "more than one armour"),
    ({"engagement": {"contacts": [["a", "x"]]}}, "engagement.contacts[0][1]",
     "no defender warrior"),
    ({"engagement": {"charger": "both"}}, "engagement.charger", "must be one of"),
    ({"engagement": {"frenzy": True}}, "engagement.frenzy", "unknown key"),
    ({"attacker__models__0__fearsome": True}, "attacker.models[0].fearsome", "unknown key"),
    ({"weapons": {"sword": {"parry": "yes"}}}, "weapons.sword.parry", "true or false"),
]


@pytest.mark.parametrize("changes,field,message", BAD)
def test_bad_input_names_file_and_field_R1_10(changes, field, message):
    with pytest.raises(odds.ScenarioError) as err:
        odds.from_dict(data(**changes), "bad.toml")
    assert err.value.field == field and message in str(err.value)
    assert "bad.toml" in str(err.value)


def test_same_seed_same_fights_whatever_the_thread_count_R1_12():
    one = odds.simulate(ISSUE, trials=5000, seed=9, threads=1, keep_fights=True)
    two = odds.simulate(ISSUE, trials=5000, seed=9, threads=2, keep_fights=True)
    assert one.fights().equals(two.fights())
    other = odds.simulate(ISSUE, trials=5000, seed=10, threads=1, keep_fights=True)
    assert not one.fights().equals(other.fights())
