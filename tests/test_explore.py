"""odds.explore: the Jupyter explorer's controls, updates and errors (driven without a
browser: set a control's value, read ``result`` / ``error`` / the output), and the schema
bounds its sliders are read from."""
import base64
import subprocess
import sys

import pytest

import odds
from conftest import SCENARIOS
from odds.analysis.comparison_file import cell
from odds.core import schema as s
from odds.errors import ScenarioError

pytest.importorskip("ipywidgets")

TRIALS = 2_000
BOYZ = SCENARIOS / "wh40k3_assault_marines_vs_boyz.toml"
BOY_COUNT = "defender.models[Boy].count"


def same_numbers(a, b) -> bool:
    return a.summary().equals(b.summary())


def offered(dropdown) -> list:
    return [value for _, value in dropdown.options]


def played(path, changes, seed=None):
    """What odds.simulate gives for the scenario with ``changes`` (what the explorer shows)."""
    return odds.simulate(cell(odds.load(path), changes, {}, s.Where("<test>", "")),
                         trials=TRIALS, seed=seed, quiet=True)


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.toml")), ids=lambda p: p.stem)
def test_every_bundled_scenario_gets_controls_and_a_result(path):
    w = odds.explore(path, trials=TRIALS)
    scenario = odds.load(path)
    assert w.error is None and w.result.trials == TRIALS
    assert same_numbers(w.result, odds.simulate(scenario, trials=TRIALS, quiet=True))
    unit = scenario.attacker.every_unit[0]
    at = f"attacker.units[{unit.name}]" if scenario.attacker.units else "attacker"
    profile = f"{at}.profile." if odds.rulesets.get_ruleset(scenario.ruleset).single_unit \
        else f"{at}.models[{unit.models[0].name}].profile."
    assert any(p.startswith(profile) for p in w.controls)
    assert any(p.startswith("engagement.") for p in w.controls)
    table, chart = w.output.outputs
    assert "attacker_wins" in table["data"]["text/html"]
    assert base64.b64decode(chart["data"]["image/png"]).startswith(b"\x89PNG")


def test_default_controls_follow_the_schema_and_catalogue():
    w = odds.explore(BOYZ, trials=TRIALS)
    count = w.controls[BOY_COUNT]
    assert (count.min, count.max, count.value) == (1, 80, 20)  # 4x the count
    ws = w.controls["defender.models[Boy].profile.WS"]
    assert (ws.min, ws.max, ws.value) == (1, 10, 4)
    assert not count.continuous_update
    equipment = w.controls["defender.models[Boy].equipment"]
    assert list(equipment.value) == ["slugga", "choppa"] and "power fist" in \
        equipment.allowed_tags
    assert offered(w.controls["engagement.pile_in"]) == ["all", "refill"]
    assert w.controls["engagement.pursue"].value is True


def test_blackpowder_offers_the_side_keys():
    w = odds.explore(SCENARIOS / "blackpowder_cuirassiers_vs_pike_block.toml", trials=TRIALS)
    assert w.controls["defender.type"].value == "pikes"
    assert "square" in offered(w.controls["defender.formation"])
    assert w.controls["attacker.profile.morale"].max == 6
    assert "stand" in offered(w.controls["engagement.reaction"])
    w.controls["engagement.reaction"].value = "hedgehog"
    assert w.error is None and w.result.scenario.engagement["reaction"] == "hedgehog"
    w.controls["engagement.reaction"].value = "closing fire"  # pikes with shooting 0
    assert "cannot give closing fire" in w.error
    assert w.result.scenario.engagement["reaction"] == "hedgehog"


def test_changing_a_control_re_simulates():
    w = odds.explore(BOYZ, trials=TRIALS)
    w.controls[BOY_COUNT].value = 25
    assert w.result.scenario.defender.models[0].count == 25
    assert same_numbers(w.result, played(BOYZ, {BOY_COUNT: 25}))
    weapons = "attacker.models[Veteran Sergeant].equipment"
    w.controls[weapons].value = ["bolt pistol", "power weapon"]
    assert w.result.scenario.attacker.models[1].equipment == ["bolt pistol", "power weapon"]
    assert same_numbers(w.result, played(BOYZ, {BOY_COUNT: 25, weapons: ["bolt pistol",
                                                                          "power weapon"]}))
    w.trials_control.value = 10_000
    assert w.result.trials == 10_000
    assert "10,000 fights" in w.status.value


def test_a_refused_value_shows_the_error_and_keeps_the_last_result():
    w = odds.explore(BOYZ, trials=TRIALS, **{BOY_COUNT: 20})  # a number: typed in
    assert type(w.controls[BOY_COUNT]).__name__ == "IntText"
    good, shown = w.result, w.output.outputs
    w.controls[BOY_COUNT].value = 0
    assert w.error == f"{BOYZ}: defender.models[0].count: must be from 1 to 10000, got 0"
    assert w.result is good
    assert w.error in w.output.outputs[0]["data"]["text/plain"]
    assert w.output.outputs[1:] == shown  # the last good result, below the error
    assert "not run" in w.status.value
    w.controls[BOY_COUNT].value = 12
    assert w.error is None and w.result.scenario.defender.models[0].count == 12


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.toml")), ids=lambda p: p.stem)
def test_no_default_checkbox_or_choice_can_only_produce_errors(path):
    """Every default checkbox and dropdown has another value the scenario accepts: a
    control that could only ever show an error (``engaged`` on a side of one unit, where
    the side must be in the fight) is not offered."""
    from odds.analysis.knobs import default_knobs
    from odds.overrides import apply

    scenario = odds.load(path)
    data = scenario.to_dict()
    for knob in default_knobs(scenario):
        if knob.kind not in ("yes/no", "choice"):
            continue
        others = [not knob.value] if knob.kind == "yes/no" else \
            [o for o in knob.options if o != knob.value]
        accepted = []
        for value in others:
            try:
                odds.from_dict(apply(data, [(knob.path, value, s.Where("<test>", ""))]),
                               str(path))
                accepted.append(value)
            except ScenarioError:
                pass
        assert accepted, knob.path


def test_a_one_unit_side_offers_no_engaged_control():
    paths = list(odds.explore(BOYZ, trials=TRIALS).controls)
    assert "attacker.engaged" not in paths and "defender.engaged" not in paths
    assert "attacker.in_cover" not in paths  # the charger cannot be defending in cover
    assert "engagement.defender_in_cover" in paths


def test_a_ruleset_check_refusing_a_default_control_is_shown():
    path = SCENARIOS / "d10skirmish_blademaster_vs_brute.toml"
    w = odds.explore(path, trials=TRIALS)
    w.controls["attacker.models[Blademaster].count"].value = 2
    assert "attacker.models[0].count: must be 1" in w.error


def test_user_paths_pick_the_controls():
    w = odds.explore(BOYZ, trials=TRIALS, **{
        BOY_COUNT: range(10, 41, 5),
        "attacker.models[Veteran Sergeant].equipment": [["power fist"], ["power weapon"]],
        "engagement.defender_in_cover": True,
        "engagement.charge_distance": (0.0, 6.0),
    })
    assert len(w.controls) == 4
    count = w.controls[BOY_COUNT]
    assert (count.min, count.max, count.step, count.value) == (10, 40, 5, 20)
    weapons = w.controls["attacker.models[Veteran Sergeant].equipment"]
    assert weapons.value == ["power fist"]  # not the scenario's: the first offered
    assert w.result.scenario.engagement["defender_in_cover"] is True
    distance = w.controls["engagement.charge_distance"]
    assert (distance.min, distance.max, distance.value) == (0.0, 6.0, 0.0)
    weapons.value = ["power weapon"]
    assert same_numbers(w.result, played(BOYZ, {
        BOY_COUNT: 20, "attacker.models[Veteran Sergeant].equipment": ["power weapon"],
        "engagement.defender_in_cover": True, "engagement.charge_distance": 0.0}))


def test_a_path_that_leads_nowhere_is_an_error_at_once():
    with pytest.raises(ScenarioError, match="no entry named 'Grot'"):
        odds.explore(BOYZ, trials=TRIALS, **{"defender.models[Grot].count": range(1, 5)})
    with pytest.raises(ScenarioError, match="offers no value"):
        odds.explore(BOYZ, trials=TRIALS, **{BOY_COUNT: range(5, 5)})
    with pytest.raises(TypeError, match="expected a range, a list of values"):
        odds.explore(BOYZ, trials=TRIALS, **{BOY_COUNT: "20"})
    with pytest.raises(ScenarioError, match="trials: must be from 1"):
        odds.explore(BOYZ, trials=0)


def test_the_explorer_displays_as_its_widget():
    w = odds.explore(BOYZ, trials=TRIALS)
    view = w._repr_mimebundle_()["application/vnd.jupyter.widget-view+json"]
    assert view["model_id"] == w.widget.model_id


def test_without_ipywidgets_it_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "ipywidgets", None)
    with pytest.raises(ImportError, match=r'pip install "odds\[jupyter\]"'):
        odds.explore(BOYZ)


def test_importing_odds_does_not_import_ipywidgets():
    code = "import sys, odds; print('ipywidgets' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_checks_expose_their_bounds():
    where = s.Where("f.toml", "x")
    assert (s.integer(1, 10).lo, s.integer(1, 10).hi) == (1, 10)
    assert (s.integer(0).lo, s.integer(0).hi) == (0, None)
    assert (s.number(0, 6).lo, s.number(0, 6).hi) == (0, 6)
    assert s.choice("front", "flank").allowed == ("front", "flank")
    with pytest.raises(ScenarioError, match="must be from 1 to 10, got 0"):
        s.integer(1, 10)(0, where)
    with pytest.raises(ScenarioError, match="must be at most 6, got 7.0"):
        s.number(hi=6)(7, where)
    with pytest.raises(ScenarioError, match="must be one of 'front', 'flank', got 'rear'"):
        s.choice("front", "flank")("rear", where)
    assert s.integer(1, 10)(3, where) == 3 and s.choice("a")("a", where) == "a"


def test_the_seed_is_passed_on():
    w = odds.explore(BOYZ, trials=TRIALS, seed=7, **{BOY_COUNT: [20, 30]})
    w.controls[BOY_COUNT].value = 30
    assert w.result.seed == 7
    assert same_numbers(w.result, played(BOYZ, {BOY_COUNT: 30}, seed=7))


def test_the_explorer_answers_exactly_when_it_can():
    """method='auto' (the "answer" control): solved exactly, the status says so, and a
    change of the control switches back to simulating."""
    path = SCENARIOS / "d10skirmish_trooper_charges_sniper.toml"
    w = odds.explore(path, trials=TRIALS, method="auto")
    solved = odds.simulate(path, method="exact", quiet=True)
    assert w.result.method == "exact" and w.result.probabilities() == solved.probabilities()
    assert "exact (" in w.status.value
    w.method_control.value = "mc"
    assert w.result.method == "mc" and w.result.trials == TRIALS
    with pytest.raises(ScenarioError, match="'mc' or 'auto'"):
        odds.explore(path, method="exact")
