"""blackpowder scenarios: the issue's file loads unchanged and runs; bad input is a
ScenarioError naming the file and field; who may charge (R4-2) and react how (R4-4)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import odds
from odds.errors import ScenarioError

SCENARIOS = Path(__file__).resolve().parents[1] / "data" / "scenarios"
ISSUE_FILE = SCENARIOS / "blackpowder_cuirassiers_vs_pike_block.toml"
BUNDLED = sorted(SCENARIOS.glob("blackpowder_*.toml"))


def unit(name="U", type_="infantry", **options):
    return {"name": name, "type": type_,
            "profile": {"hand_to_hand": 6, "shooting": 3, "morale": 4, "stamina": 3}, **options}


def data(attacker=None, defender=None, **engagement):
    return {"ruleset": "blackpowder", "attacker": attacker or unit("A"),
            "defender": defender or unit("D"), "engagement": engagement}


def error(d) -> ScenarioError:
    with pytest.raises(ScenarioError) as e:
        odds.from_dict(d, "bp.toml")
    assert e.value.source == "bp.toml"
    return e.value


def test_issue_file_loads_as_one_unit_per_side():
    sc = odds.load(ISSUE_FILE)
    assert sc.attacker.models == [] and sc.attacker.options["type"] == "heavy cavalry"
    assert sc.defender.options["profile"]["hand_to_hand"] == 6
    assert sc.engagement["reaction"] == "stand" and sc.simulation["max_rounds"] == 10


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.name)
def test_bundled_scenarios_run_and_partition_the_trials(path):
    result = odds.simulate(path, trials=2000, seed=3)
    counts = result.counts()
    assert sum(list(counts.values())[:5]) == 2000
    assert result.tally.histogram("attacker_shaken").sum() == 2000


def test_cli_json_has_the_same_keys_as_wh40k3():
    def keys(path):
        out = subprocess.run([sys.executable, "-m", "odds", "simulate", str(path), "--json",
                              "--trials", "500"], capture_output=True, text=True, check=True)
        return set(json.loads(out.stdout))

    assert keys(ISSUE_FILE) == keys(SCENARIOS / "wh40k3_assault_marines_vs_boyz.toml")


@pytest.mark.parametrize("change, field", [
    ({"attacker": {**unit("A"), "models": []}}, "attacker.models"),
    ({"attacker": {**unit("A"), "type": "dragons"}}, "attacker.type"),
    ({"defender": {**unit("D"), "formation": "phalanx"}}, "defender.formation"),
    ({"defender": {**unit("D"), "profile": {"hand_to_hand": 0, "shooting": 1, "morale": 4,
                                            "stamina": 3}}}, "defender.profile.hand_to_hand"),
    ({"defender": {**unit("D"), "profile": {"hand_to_hand": 6, "shooting": 1, "morale": 7,
                                            "stamina": 3}}}, "defender.profile.morale"),
    ({"defender": {**unit("D"), "profile": {"hand_to_hand": 6, "morale": 4,
                                            "stamina": 3}}}, "defender.profile.shooting"),
    ({"defender": {**unit("D"), "profile": {"hand_to_hand": 6, "shooting": 1, "morale": 4,
                                            "stamina": 0}}}, "defender.profile.stamina"),
    ({"defender": {**unit("D"), "status": ["routed"]}}, "defender.status[0]"),
    ({"defender": {**unit("D"), "flank_supports": 3}}, "defender.flank_supports"),
    ({"defender": {**unit("D"), "rules": ["ferocious charg"]}}, "defender.rules[0]"),
    ({"defender": unit("D", "cavalry", formation="square")}, "defender.formation"),
    ({"engagement": {"reaction": "run away"}}, "engagement.reaction"),
    ({"engagement": {"facing": "left"}}, "engagement.facing"),
    ({"weapons": {"pike": {}}}, "weapons"),
    # R4-1: an order roll needs the distance; the order's keys need the roll
    ({"engagement": {"staff_rating": 8}}, "engagement.charge_distance"),
    ({"engagement": {"staff_rating": 8, "charge_distance": 0}}, "engagement.charge_distance"),
    ({"engagement": {"staff_rating": 13, "charge_distance": 9}}, "engagement.staff_rating"),
    ({"engagement": {"staff_rating": 8, "charge_distance": float("nan")}},
     "engagement.charge_distance"),
    ({"engagement": {"charge_distance": 9}}, "engagement.charge_distance"),
    ({"engagement": {"move": 12}}, "engagement.move"),
    ({"engagement": {"commander_distance": 20}}, "engagement.commander_distance"),
    ({"engagement": {"command_modifier": 1}}, "engagement.command_modifier"),
    ({"engagement": {"command_modifier": 0}}, "engagement.command_modifier"),
])
def test_bad_input_names_the_field(change, field):
    e = error({**data(), **change})
    assert e.field == field, e


def test_unknown_rule_suggests_the_closest():
    e = error(data(defender=unit("D", rules=["ferocious charg"])))
    assert "ferocious charge" in e.message and "odds weapons blackpowder" in e.message


@pytest.mark.parametrize("charger, defender, engagement, field", [
    (unit("A", status=["shaken"]), unit("D"), {}, "attacker.status"),
    (unit("A", formation="march column"), unit("D"), {}, "attacker.formation"),
    (unit("A", "artillery"), unit("D"), {}, "attacker.type"),
    (unit("A", "pikes", formation="hedgehog"), unit("D"), {}, "attacker.formation"),
    (unit("A", formation="skirmish"), unit("D"), {}, "attacker.formation"),
    (unit("A", formation="skirmish"), unit("D", engaged=True), {}, "attacker.formation"),
    (unit("A", formation="skirmish"), unit("D"), {"facing": "flank"}, "attacker.formation"),
])
def test_who_cannot_charge(charger, defender, engagement, field):
    """R4-2: shaken, march column, artillery, hedgehog; skirmishers only into the flank or
    rear of an engaged close-order unit."""
    e = error(data(charger, defender, **engagement))
    assert e.field == field and "R4-2" in e.message


def test_who_may_charge():
    """R4-2: skirmishers into an engaged unit's flank, or into other skirmishers; a defender
    may be the charger."""
    odds.from_dict(data(unit("A", formation="skirmish"), unit("D", engaged=True),
                        facing="rear"))
    odds.from_dict(data(unit("A", formation="skirmish"), unit("D", formation="skirmish")))
    odds.from_dict(data(unit("A", "artillery"), unit("D"), charger="defender"))
    error(data(unit("A"), unit("D", "artillery"), charger="defender"))


@pytest.mark.parametrize("reaction, defender, charger, facing", [
    ("closing fire", unit("D", "cavalry"), unit("A"), "front"),
    ("hedgehog", unit("D", "cavalry"), unit("A"), "front"),
    ("evade", unit("D"), unit("A"), "front"),
    ("evade", unit("D", "cavalry"), unit("A", "cavalry"), "front"),
    ("evade", unit("D", "cavalry", status=["disordered"]), unit("A"), "front"),
    ("evade", unit("D", formation="skirmish"), unit("A", formation="skirmish"), "front"),
    ("counter-charge", unit("D", "cavalry"), unit("A"), "flank"),
    ("counter-charge", unit("D"), unit("A"), "front"),
    ("counter-charge", unit("D", "cavalry", status=["disordered"]), unit("A"), "front"),
    ("turn to face", unit("D", "cavalry"), unit("A"), "front"),
    ("turn to face", unit("D", "cavalry", status=["disordered"]), unit("A"), "rear"),
])
def test_reaction_not_allowed(reaction, defender, charger, facing):
    """R4-4: each reaction's restrictions, with the reason in the error."""
    e = error(data(charger, defender, reaction=reaction, facing=facing))
    assert e.field == "engagement.reaction" and "R4-4" in e.message


@pytest.mark.parametrize("reaction, defender, charger, facing", [
    ("closing fire", unit("D", "artillery"), unit("A", "cavalry"), "front"),
    ("hedgehog", unit("D", "pikes"), unit("A", "cavalry"), "flank"),
    ("evade", unit("D", "horse artillery"), unit("A"), "front"),
    ("evade", unit("D", formation="skirmish"), unit("A"), "front"),
    ("counter-charge", unit("D", "heavy cavalry"), unit("A", "cavalry"), "front"),
    ("turn to face", unit("D", "cavalry"), unit("A"), "flank"),
])
def test_reaction_allowed(reaction, defender, charger, facing):
    """R4-4: every reaction loads where the rules allow it."""
    sc = odds.from_dict(data(charger, defender, reaction=reaction, facing=facing))
    assert sc.engagement["reaction"] == reaction


def test_same_fights_whatever_threads_and_chunks():
    """Each fight's stream comes from (seed, trial): bit-identical rows with 1 or 2 threads."""
    import numpy as np

    from odds.core import runner
    from odds.rulesets import get_ruleset

    ruleset = get_ruleset("blackpowder")
    plan = ruleset.compile(odds.load(ISSUE_FILE))
    rows = []
    for threads, chunk in ((1, runner.CHUNK), (2, runner.CHUNK), (2, 777)):
        runner.set_threads(threads)
        rows.append(runner.run(ruleset, plan, 5000, 11, keep_fights=True, chunk=chunk)[1])
    assert np.array_equal(rows[0], rows[1]) and np.array_equal(rows[0], rows[2])


def test_reaction_is_a_policy_to_compare():
    """R4-4: the reaction is one scenario key, so a sweep compares policies; counter-charging
    (both charge, the cuirassiers get their +1 and D3) beats standing against lancers."""
    frame = odds.sweep(SCENARIOS / "blackpowder_cuirassiers_counter_charge_lancers.toml",
                       "engagement.reaction", ["stand", "counter-charge"], trials=20_000).frame
    stand, counter = frame.set_index("value").loc[["stand", "counter-charge"]].to_dict("records")
    assert counter["defender_wins_low"] > stand["defender_wins_high"]
