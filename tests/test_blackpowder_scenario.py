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


# -- several units a side (R4-3, §5.3) ----------------------------------------------------

BRIGADE = SCENARIOS / "blackpowder_two_battalions_charge_a_line.toml"


def brigade(attackers, defenders, **engagement):
    return {"ruleset": "blackpowder", "attacker": {"units": attackers},
            "defender": {"units": defenders}, "engagement": engagement}


def test_issue_brigade_file_loads_unchanged_and_plays_each_unit():
    """The issue's file (bundled as it was given): three attacker units, one defender; every
    unit in the per-unit outcomes, the fates summing to the fights."""
    sc = odds.load(BRIGADE)
    assert [u.name for u in sc.attacker.units] == ["1st Battalion", "2nd Battalion",
                                                   "3rd Battalion"]
    assert sc.attacker.units[2].options["supports"] == "1st Battalion"
    result = odds.simulate(sc, trials=3000, seed=3)
    units = result.units()
    assert list(units["unit"]) == ["1st Battalion", "2nd Battalion", "3rd Battalion",
                                   "Line Battalion"]
    fates = units[["standing", "destroyed", "fled"]].sum(axis=1)
    assert ((fates - 1).abs() < 1e-12).all()
    assert units["unreached"].eq(0).all()
    # §5.4 each unit's shaken, in the table, JSON and CSV; a side is shaken when a unit is
    shaken = dict(zip(units["unit"], units["shaken"]))
    assert shaken["Line Battalion"] == result.probabilities()["defender_shaken"][0]
    attackers = [shaken[u] for u in ("1st Battalion", "2nd Battalion", "3rd Battalion")]
    assert max(attackers) <= result.probabilities()["attacker_shaken"][0] <= sum(attackers)
    assert shaken["3rd Battalion"] == 0  # a support takes no casualties
    assert "shaken" in str(result).split("per unit")[1].splitlines()[0]
    assert [u["shaken"] for u in result.to_dict()["units"]] == list(units["shaken"])
    assert "attacker.units[1st Battalion].shaken" in result.to_csv()


LINE = unit("Line")
HORSE = unit("Horse", "cavalry")
SWEEP = {"sweeping_advance": True}


@pytest.mark.parametrize("attackers, defenders, engagement, field, words", [
    ([{**unit("A"), "charges": "Lion"}, unit("B")], [LINE], {}, "attacker.units[0].charges",
     "names no unit of the defender"),
    ([{**unit("A"), "supports": "Nobody"}, unit("B")], [LINE], {}, "attacker.units[0].supports",
     "names no other unit"),
    ([{**unit("A"), "supports": "A"}, unit("B")], [LINE], {}, "attacker.units[0].supports",
     "names no other unit"),
    ([unit("A"), {**unit("B"), "supports": "A", "charges": "Line"}], [LINE], {},
     "attacker.units[1].charges", "supports or charges"),
    ([unit("A"), {**unit("B"), "support_from": "flank"}], [LINE], {},
     "attacker.units[1].support_from", "only with `supports`"),
    ([unit("A"), {**unit("B"), "facing": "front"}], [LINE], {}, "attacker.units[1]",
     "no room"),
    ([unit("A"), unit("B", facing="flank"), unit("C", facing="flank"),
      unit("E", facing="flank")], [LINE], {}, "attacker.units[3].facing", "no room"),
    ([unit("A"), {**unit("B"), "supports": "A"}],
     [LINE, {**unit("D2"), "supports": "Line"}, unit("D3")], {}, "defender.units[2].name",
     "not in the melee"),
    ([unit("A", "artillery", formation="line"), unit("B", supports="A")], [LINE],
     {"charger": "defender"}, "attacker.units[1].supports", "cannot be supported"),
    ([unit("A", formation="skirmish"), unit("B", supports="A")],
     [{**LINE, "formation": "skirmish"}], {}, "attacker.units[1].supports",
     "cannot be supported"),
    ([unit("A"), unit("B", supports="A"), unit("C", supports="A")], [LINE], {},
     "attacker.units[2].support_from", "one unit supports from the rear"),
    ([unit("A", rear_support=True), unit("B", supports="A")], [LINE], {},
     "attacker.units[1].support_from", "one unit supports from the rear"),
    ([unit("A"), unit("B", supports="C"), unit("C", supports="A")], [LINE], {},
     "attacker.units[1].supports", "supports a unit itself"),
    ([unit("A"), unit("B", facing="flank")], [LINE], {"reaction": "hedgehog"},
     "engagement.reaction",
     "one unit a side"),
    ([unit("A"), unit("B", facing="flank")], [LINE],
     {"staff_rating": 8, "charge_distance": 10}, "engagement.staff_rating", "R4-1"),
    ([unit("A", "cavalry"), unit("B", facing="flank")], [{**LINE, "formation": "square"}], {},
     "attacker.units[0].charges", "halts"),
    ([unit("A", status=["shaken"]), unit("B", facing="flank")], [LINE], {},
     "attacker.units[0].status", "R4-2"),
    ([unit("A"), unit("B", facing="flank")], [LINE], {"reaction": "closing fire"}, None,
     None),
    # §5.4 a fresh unit out of the melee, charged only by a sweeping advance
    ([HORSE], [LINE, unit("R", distance=10)], SWEEP, "defender.units[1].distance",
     "in_melee = false"),
    ([HORSE], [LINE, unit("R", in_melee=False)], SWEEP, "defender.units[1].distance",
     "is needed"),
    ([HORSE], [LINE, unit("R", in_melee=False, distance=10)], {},
     "defender.units[1].in_melee", "sweeping_advance = true"),
    ([HORSE], [LINE, unit("R", in_melee=False, distance=19)], SWEEP, None, None),  # never
    ([unit("A"), unit("B", facing="flank")], [LINE, unit("R", in_melee=False, distance=5)],
     SWEEP, "defender.units[1].in_melee", "no cavalry"),
    ([{**HORSE, "formation": "skirmish"}], [{**LINE, "engaged": True}, unit(
        "R", in_melee=False, distance=5)], {**SWEEP, "facing": "flank"},
     "defender.units[1].in_melee", "R4-2"),
    ([HORSE], [LINE, unit("R", in_melee=False, distance=5), unit("S", in_melee=False,
                                                                    distance=5)], SWEEP,
     "defender.units[2].in_melee", "one a side"),
    ([HORSE, {**unit("B"), "charges": "R", "facing": "flank"}],
     [LINE, unit("R", in_melee=False, distance=5)], SWEEP, "attacker.units[1].charges",
     "out of the melee"),
    ([HORSE], [LINE, unit("R", in_melee=False, distance=5, supports="Line")], SWEEP,
     "defender.units[1].supports", "neither charges nor supports"),
    ([HORSE], [LINE, unit("R", in_melee=False, distance=5, formation="square")], SWEEP,
     "defender.units[1].formation", "halts"),
    ([HORSE], [LINE, unit("R", "pikes", in_melee=False, distance=5)], SWEEP,
     "defender.units[1].facing", "R4-5"),
    ([HORSE, unit("G", in_melee=False, distance=5)], [LINE], SWEEP,
     "attacker.units[1].in_melee", "no cavalry"),
    ([HORSE], [LINE, unit("R", "cavalry", in_melee=False, distance=5)],
     {**SWEEP, "reaction": "closing fire"}, "engagement.reaction", "R4-4"),
    ([HORSE], [LINE, unit("R", "pikes", in_melee=False, distance=5, facing="flank")], SWEEP,
     None, None),
])
def test_brigade_bad_input_names_the_field(attackers, defenders, engagement, field, words):
    """R4-3, §5.3 and §5.4: unknown units, a face with no room, a support that cannot
    support, a unit in no melee, reactions and orders played with one unit a side only, a
    fresh unit no sweep can charge; one line naming the file and field."""
    d = brigade(attackers, defenders, **engagement)
    if field is None:
        odds.from_dict(d, "bp.toml")  # closing fire with several units: allowed
        return
    e = error(d)
    assert e.field.startswith(field) and words in e.message, e


def test_separate_melees_are_separate_scenarios():
    """A unit of the defender charged apart from the first melee: an error at its name."""
    e = error(brigade([{**unit("A"), "charges": "Line"}, {**unit("B"), "charges": "Other"}],
                      [LINE, unit("Other")]))
    assert "melee of its own" in e.message and e.field == "attacker.units[1].name"


def test_brigade_bad_input_exits_2_on_the_command_line(tmp_path):
    text = BRIGADE.read_text(encoding="utf-8").replace('supports = "1st Battalion"',
                                                      'supports = "4th Battalion"')
    bad = tmp_path / "bad.toml"
    bad.write_text(text, encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "odds", "simulate", str(bad)],
                         capture_output=True, text=True)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "attacker.units[2].supports" in out.stderr and str(bad) in out.stderr
