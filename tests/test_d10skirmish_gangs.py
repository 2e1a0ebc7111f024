"""d10skirmish gangs (the d10skirmish page's "Gangs"): the gang rule text (gang.py) against
the schedule of one fighter a side (fight.py, pick for pick), the pure-Python reference
(tests/naive_d10skirmish_gang.py, statistically), the exact solver, and closed forms.

Statistics: fixed seeds, two-sample z-scores (tests/test_d10skirmish_parity.py), |z| < 4.
"""
from __future__ import annotations

import gang_scenarios as G
import naive_d10skirmish_gang as naive
import numpy as np
import pytest
import test_d10skirmish_parity as P

import odds
from odds.core import walk
from odds.core.outcome import UNIT_FATES, empty_record
from odds.rulesets.d10skirmish import RULESET
from odds.rulesets.d10skirmish import compile as C
from odds.rulesets.d10skirmish import exact as X
from odds.rulesets.d10skirmish import gang
from odds.rulesets.d10skirmish import kernel as K
from odds.scenario import read_toml

KERNEL_TRIALS = 200_000
REFERENCE_TRIALS = 3000
ANY_SIZE = walk.kernel(gang)  # the variant a gang of more fighters would get


def records(plan, scenario, n=20_000, seed=5, play=None):
    """The record of n fights of ``plan`` (``play``: a compiled loop over trials to play
    them with, else the ruleset's own)."""
    out = empty_record(n, RULESET.columns(scenario)[7:])
    if play is None:
        RULESET.play(plan, seed, 0, out)
    else:
        walk.play_in_threads(play, plan, seed, 0, out)
    return out


# --- one fighter a side: the gang rule text is the schedule, pick for pick ------------------

@pytest.mark.parametrize("case", P.CASES)
def test_the_gang_rule_text_plays_one_fighter_a_side_as_the_schedule(case):
    """Every parity case of one fighter a side (they name R3-1 ... R3-9, A1 ... A6), played
    by gang.py: the same fights bit for bit from the same seed, and the same exact law."""
    sc = P.CASES[case]()
    schedule, gang = C.compile_plan(sc), C.gang_plan(sc)
    assert isinstance(gang, C.Gang) and not isinstance(schedule, C.Gang)
    assert np.array_equal(records(schedule, sc), records(gang, sc))
    rows, weights, _ = X.solve(schedule, 10**6)
    gang_rows, gang_weights, _ = X.solve(gang, 10**6)
    assert np.array_equal(rows, gang_rows)
    np.testing.assert_allclose(gang_weights, weights, rtol=0, atol=1e-13)


def test_an_exchange_too_large_to_tabulate_is_rolled_alike_R3_6():
    """Both fighters turn dice and roll many: the laws are rolled die by die, in the same
    order by both rule texts."""
    sc = P.scenario(P.F("V", ms=10, ap=3, w=4, arm=3, adjust=2),
                    P.F("G", ms=9, ap=3, w=4, arm=2, adjust=1, adjust_for="blocks"),
                    crit_mode="double")
    schedule, gang = C.compile_plan(sc), C.gang_plan(sc)
    assert not schedule.tabled.all() and (gang.law_of[0, 1] < 0).any()
    assert np.array_equal(records(schedule, sc), records(gang, sc))


@pytest.mark.parametrize("case", ["R3-8_one_fighter_a_side_flee_below",
                                  "R3-4_ganging_up_reaction_ap_1-R3-2_no_distance",
                                  "R3-1_R3-2_pinned_two_troopers_brute_sniper"])
def test_a_gangs_own_variant_plays_the_same_fights(case):
    """The kernel variant for a gang's number of fighters (2, 3, 4: gang.known) plays the
    same fights as the variant for any number, bit for bit."""
    sc = G.CASES[case]()
    plan = C.compile_plan(sc)
    assert K._sizes(plan) == (plan.n,)
    own, any_size = (records(plan, sc, 3000, 11, play) for play in (K.entry(plan), ANY_SIZE))
    assert np.array_equal(own, any_size) and len(np.unique(own[0])) > 1
    assert K._sizes(plan._replace(n=K.MOST_FIGHTERS + 1)) is None


# --- the pinned file ----------------------------------------------------------------------

def test_the_issues_file_loads_unchanged_and_plays_each_fighter_R3_1():
    sc = odds.load(G.PINNED)
    assert [u.name for u in sc.attacker.units] == ["Trooper 1", "Trooper 2"]
    assert read_toml(G.PINNED)["defender"]["units"][1]["engaged"] is False
    result = odds.simulate(sc, trials=20_000, seed=3)
    units = result.units()
    assert list(units["unit"]) == ["Trooper 1", "Trooper 2", "Brute", "Sniper"]
    sniper = units.set_index("unit").loc["Sniper"]
    assert 0 < sniper["unreached"] < 1 and 0 < sniper["fought"] < 1
    assert abs(sniper["unreached"] + sniper["fought"] - 1) < 1e-12  # it fights once reached
    assert (units.set_index("unit").loc[["Trooper 1", "Brute"], "fought"] == 1).all()


# --- the reference ------------------------------------------------------------------------

def disagreements(kernel, reference) -> list[str]:
    """P.disagreements, and each fighter's columns: each fate's share, the other means."""
    bad = P.disagreements(kernel, reference)
    for column in (c for c in reference.columns if ".units[" in c):
        pairs = [(kernel[column].cat.codes == v, reference[column] == v) for v in
                 range(len(UNIT_FATES))] if column.endswith(".fate") else \
            [(kernel[column], reference[column])]
        for a, b in pairs:
            a, b = a.astype(float), b.astype(float)
            z = P.z_score(a.sum(), (a * a).sum(), len(a), b.sum(), (b * b).sum(), len(b))
            if abs(z) >= P.Z_MAX:
                bad.append(f"{column}: kernel {a.mean():.4f}, reference {b.mean():.4f}, "
                           f"z = {z:.2f}")
    return bad


def kernel_fights(sc):
    frame = odds.simulate(sc, trials=KERNEL_TRIALS, seed=P.KERNEL_SEED,
                          keep_fights=True).fights()
    frame["winner"] = frame["winner"].cat.codes
    frame["end"] = frame["end"].cat.codes
    return frame


@pytest.mark.parametrize("case", G.CASES)
def test_kernel_matches_reference(case):
    """Kernel vs reference: P(winner, end), the mean of every column, each fighter's fates,
    |z| < 4 each. The test id names the rules and readings the scenario exercises."""
    sc = G.CASES[case]()
    bad = disagreements(kernel_fights(sc), naive.play(sc, REFERENCE_TRIALS, P.REFERENCE_SEED))
    assert not bad, f"{case}: kernel and reference disagree:\n  " + "\n  ".join(bad)


def test_the_parity_check_tells_policies_apart():
    """Power: a fresh scout that charges the weakest enemy (a sniper coming up), played by
    the kernel, disagrees with the reference's scout charging the nearest (the brute, held
    by a tank); the sniper is destroyed in about 94% of the fights against 89%."""
    def scout(policy):
        return G.gang([G.U("Tank", 6, w=10, arm=8, charges="Brute"),
                       G.U("Scout", 6, ap=2, engaged=False, distance=2, target=policy)],
                      [G.brute(), G.U("Sniper", 5, ap=1, w=1, arm=2, engaged=False,
                                      distance=4)], max_rounds=2)
    assert disagreements(kernel_fights(scout("weakest")),
                         naive.play(scout("nearest"), REFERENCE_TRIALS, P.REFERENCE_SEED))


# --- the exact solver ---------------------------------------------------------------------

@pytest.mark.parametrize("case", ["R3-1_R3-2_pinned_two_troopers_brute_sniper",
                                  "R3-4_ganging_up_reaction_ap_1-R3-2_no_distance",
                                  "R3-9_two_pushers-fall_damage_2",
                                  "policy_weakest_engaged-turn_order_alternate-R3-6_adjust"])
def test_the_kernel_matches_the_exact_solver(case):
    """Two against one and two against two: every fighter's fate and the sides' outcomes of
    200,000 fights within |z| < 4 of the exact probabilities."""
    sc = G.CASES[case]()
    exact = odds.simulate(sc, method="exact")
    mc = odds.simulate(sc, trials=KERNEL_TRIALS, seed=11)
    worst = 0.0
    for name, (p, _, _) in exact.probabilities().items():
        q = mc.probabilities()[name][0]
        if 1e-9 < p < 1 - 1e-9:
            worst = max(worst, abs(q - p) / np.sqrt(p * (1 - p) / KERNEL_TRIALS))
        else:  # sure, or impossible: so in every fight
            assert q == round(p), name
    e_units, m_units = exact.units(), mc.units()
    for fate in ("destroyed", "fled", "unreached", "fought"):
        p, q = e_units[fate].to_numpy(), m_units[fate].to_numpy()
        inside = (p > 1e-9) & (p < 1 - 1e-9)
        assert (q[~inside] == p[~inside].round()).all(), fate
        p, q = p[inside], q[inside]
        z = np.abs(q - p) / np.sqrt(p * (1 - p) / KERNEL_TRIALS)
        worst = max(worst, z.max(initial=0.0))
    assert worst < P.Z_MAX


def test_a_gang_too_large_for_the_bound_says_so():
    sc = G.CASES["R3-1_three_troopers_brute_sniper-weakest"]()
    with pytest.raises(odds.ScenarioError, match="more than 50 fight states"):
        odds.simulate(sc, method="exact", max_states=50)


# --- closed forms -------------------------------------------------------------------------

def test_a_fighter_out_of_reach_never_fights_and_the_others_fight_as_without_it_R3_1():
    """A fresh sniper 200 inches off with M 1 never reaches the melee in 3 turns: it never
    fights, and the trooper and the brute fare exactly as in their fight alone."""
    far = G.gang([G.trooper("T1", charges="Brute")],
                 [G.brute(), G.sniper(engaged=False, distance=200, m=1)], max_rounds=3)
    alone = G.gang([G.trooper("T1", charges="Brute")], [G.brute()], max_rounds=3)
    far_units = odds.simulate(far, method="exact").units().set_index("unit")
    alone = odds.simulate(alone, method="exact")
    alone_units = alone.units().set_index("unit")
    assert far_units.loc["Sniper", "unreached"] == pytest.approx(1.0, abs=1e-12)
    assert far_units.loc["Sniper", "fought"] == 0.0
    assert far_units.loc["Sniper", "exchanges_mean"] == 0.0
    for unit in ("T1", "Brute"):
        for figure in ("destroyed", "wounds_mean"):
            assert far_units.loc[unit, figure] == pytest.approx(alone_units.loc[unit, figure],
                                                                abs=1e-12)
        # one a side, every exchange is both fighters'
        assert far_units.loc[unit, "exchanges_mean"] == pytest.approx(
            alone.means()["exchanges_mean"], abs=1e-12)


def test_two_identical_fighters_written_in_either_order_swap_their_rows():
    """Identical troopers: which one is written first (and so activates first) is all that
    tells them apart; their names do not. Swapping them swaps their rows, to 1e-12."""
    def fight(first, second):
        return G.gang([G.trooper(first, charges="Brute"), G.trooper(second, charges="Brute")],
                      [G.brute()])
    ab = odds.simulate(fight("A", "B"), method="exact").units().set_index("unit")
    ba = odds.simulate(fight("B", "A"), method="exact").units().set_index("unit")
    numbers = ab.select_dtypes("number").columns.drop("models")
    for first, second in (("A", "B"), ("B", "A")):
        np.testing.assert_allclose(ab.loc[first, numbers].astype(float),
                                   ba.loc[second, numbers].astype(float), atol=1e-12)
    # and the order matters: the first charges alone into the brute's first activation
    assert ab.loc["A", "destroyed"] > ab.loc["B", "destroyed"] + 0.05


def test_the_charge_reach_is_twice_the_move_R3_1_R3_2():
    """A charger with AP 2, 8.01 inches off with M 4, moves first (one AP; the charge needs
    2: none in turn 1); at 8 inches it charges at once."""
    def at(distance):
        sc = G.gang([G.trooper("T1", ap=2, charges="Brute", distance=distance)], [G.brute()],
                    max_rounds=1)
        return odds.simulate(sc, method="exact").means()["exchanges_mean"]
    assert at(8) > 0.5
    assert at(8.01) == 0.0


def test_gang_plan_rounds_distances_to_hundredths():
    plan = C.compile_plan(odds.load(G.PINNED))
    assert list(plan.gap) == [500, 700, 0, 1000] and list(plan.move) == [400] * 4


# --- bad input: one line naming the field -------------------------------------------------

def _pinned():
    return read_toml(G.PINNED)


def _units(data, side):
    return data[side]["units"]


def _profile(data, side, i):
    return _units(data, side)[i]["models"][0]["profile"]


REFUSED = [
    (lambda d: _units(d, "attacker")[0].update(charges="Nobody"), "attacker.units[0].charges",
     "names no unit of the defender"),
    (lambda d: _units(d, "defender")[0].update(charges="Trooper 1"),
     "defender.units[0].charges", "is for a unit of the charging side"),
    (lambda d: _units(d, "attacker")[0].pop("charges"), "attacker.units[0].charges",
     "names the enemy fighter it charges"),
    (lambda d: _units(d, "attacker")[1].update(charges="Sniper"), "attacker.units[1].charges",
     "out of the fight at the start"),
    (lambda d: _units(d, "defender")[1].pop("distance"), "defender.units[1].distance",
     "is needed with engaged = false"),
    (lambda d: [u.update(engaged=False, charges=None) or u.pop("charges")
                for u in _units(d, "attacker")], "attacker.units[0].charges",
     "no fighter of the attacker charges"),
    (lambda d: _units(d, "defender")[0].update(distance=3), "defender.units[0].distance",
     "waits to be charged"),
    (lambda d: _units(d, "attacker")[0].update(flee_below=2), "attacker.units[0].flee_below",
     "must be below its W (2)"),
    (lambda d: _units(d, "attacker")[0].update(target="strongest"), "attacker.units[0].target",
     "must be one of"),
    (lambda d: _profile(d, "attacker", 0).pop("M"), "attacker.units[0].models[0].profile.M",
     "is needed with a distance"),
    (lambda d: _profile(d, "attacker", 1).update(AP=1),
     "attacker.units[1].models[0].profile.AP", "needs at least 2 AP to charge"),
    (lambda d: d.update(engagement={"charged_ap_left": 1}), "engagement.charged_ap_left",
     "starts apart"),
    (lambda d: d.update(engagement={"move_ap": 3}) or _profile(d, "defender", 1).update(AP=2),
     "engagement.move_ap", "at most 'Sniper''s AP (2)"),
    (lambda d: d.update(engagement={"opening": "push"}) or
     _units(d, "defender")[0]["models"][0].update(base=40),
     "attacker.units[0].charges", "a push needs the target's base (40 mm)"),
    (lambda d: _units(d, "attacker")[0]["models"][0].update(count=2),
     "attacker.units[0].models[0].count", "must be 1 (a unit is one fighter)"),
    (lambda d: _units(d, "attacker")[0]["models"].append(
        {**_units(d, "attacker")[0]["models"][0], "name": "Twin"}),
     "attacker.units[0].models", "a d10skirmish unit is one fighter"),
    (lambda d: _units(d, "attacker").extend(
        {**_units(d, "attacker")[0], "name": f"Extra {i}"} for i in range(7)),
     "attacker.units[8]", "at most 8 fighters a side"),
]


@pytest.mark.parametrize("change,field,words", REFUSED, ids=[r[1] + ":" + r[2] for r in REFUSED])
def test_a_bad_gang_is_refused_at_its_field(change, field, words):
    data = _pinned()
    change(data)
    with pytest.raises(odds.ScenarioError) as raised:
        odds.from_dict(data, "gang.toml")
    assert raised.value.field == field and words in raised.value.message


def test_a_lone_charger_out_of_the_fight_is_named_where_it_was_written():
    """A charging side of one fighter (not a list) beside a gang: the error is at its own
    field, not at a list it does not have."""
    data = {"ruleset": "d10skirmish", "attacker": G.trooper("T1", engaged=False, distance=4),
            "defender": {"units": [G.brute(), G.sniper()]}}
    with pytest.raises(odds.ScenarioError) as raised:
        odds.from_dict(data, "lone.toml")
    assert raised.value.field == "attacker.charges"
    assert "no fighter of the attacker charges" in raised.value.message


@pytest.mark.parametrize("unit,words", [({"engaged": False}, "is for a fighter of a gang"),
                                        ({"charges": "Someone"}, "names no unit of the defender")])
def test_one_fighter_a_side_refuses_the_gang_keys_it_cannot_use(unit, words):
    data = read_toml(G.SCENARIOS / "d10skirmish_trooper_charges_sniper.toml")
    data["attacker"].update(unit)
    with pytest.raises(odds.ScenarioError) as raised:
        odds.from_dict(data, "one.toml")
    assert raised.value.field.startswith("attacker.") and words in raised.value.message


def test_the_cli_refuses_a_bad_gang_in_one_line(tmp_path, capsys):
    from odds.cli import main
    from odds.core.toml_text import dumps

    data = _pinned()
    _units(data, "attacker")[0]["charges"] = "Nobody"
    file = tmp_path / "gang.toml"
    file.write_text(dumps(data), encoding="utf-8")
    assert main(["simulate", str(file)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert "attacker.units[0].charges: names no unit of the defender" in err
