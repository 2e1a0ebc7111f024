"""Mordheim skills and special rules as data (data/mordheim/special_rules.toml and a scenario's
own [special_rules]).

* One blow's outcome with each rule (R1-4 to hit, R1-7 to wound and criticals, R1-8 saves,
  R1-9 injuries) against an enumeration of every die written out here, independent of
  odds.core.effects: the exact solver to 1e-12, the kernel and the one-die-at-a-time
  reference (tests/naive_mordheim.py) within |z| < 4.
* Rules that stack and rules that must not; Frenzy, Fear and All Alone (R1-6, R1-11) and
  the strike order (R1-2) with scripted dice; errors naming the field; the house rule in a
  user's file run from the CLI.
"""
from __future__ import annotations

import itertools
import subprocess
import sys
from collections import defaultdict
from fractions import Fraction as F

import naive_mordheim as naive
import pytest
from exact_parity import solved
from stats import assert_rate
from test_mordheim_rules import W, assert_mean, fight, kernel

import odds
from odds.errors import ScenarioError
from odds.rulesets.mordheim.compile import compile_plan

KD, STUNNED, OOA = 1, 2, 3  # injury results, worst last
CLOSE = 1e-12


def warrior(name, equipment=("sword",), rules=(), **profile):
    return {**W(name, equipment, **profile), "rules": list(rules)}


def fight_of(attacker, defender, own=None, max_rounds=1, **engagement):
    """One warrior against one (or lists of them), the attacker charging by default."""
    data = {"ruleset": "mordheim", "name": "skills",
            "attacker": {"name": "A", "models": attacker if isinstance(attacker, list)
                         else [attacker]},
            "defender": {"name": "D", "models": defender if isinstance(defender, list)
                         else [defender]},
            "engagement": engagement, "simulation": {"max_rounds": max_rounds}}
    if own:
        data["special_rules"] = own
    return odds.from_dict(data)


# --- one blow, every die listed ---------------------------------------------------------------

def die(need, reroll=None):
    """{face: P} of a die's final face, by listing both dice of a possible re-roll."""
    out = {f: F(0) for f in range(1, 7)}
    for first, second in itertools.product(range(1, 7), repeat=2):
        again = (reroll == "ones" and first == 1) or (reroll == "failures" and first < need)
        out[second if again else first] += F(1, 36)
    return out


def injury(roll):
    return OOA if roll >= 5 else STUNNED if roll >= 3 else KD


def one_blow(hit, wound, save=7, *, reroll_hit=None, reroll_wound=None, crit_on=6, chart=0,
             bonus=0, special=7, wounds=1):
    """{(unsaved wounds counted, worst injury, critical): P} of one blow on a warrior of
    ``wounds`` W, as the rulebook's steps: to hit, to wound (a critical on a natural
    ``crit_on``+ when less than 6 is needed; its chart roll + ``chart``), the armour save
    (none on exposed spot and master strike), the ``special`` save against each wound, and
    an injury roll (+ ``bonus``, + 2 on a master strike) once W is gone; counting stops
    when he is out of action."""
    out = defaultdict(F)

    def take(p, n, left, counted, worst, plus, crit):
        if n == 0 or worst == OOA:
            out[(counted, worst, crit)] += p
            return
        if special <= 6:
            take(p * F(7 - special, 6), n - 1, left, counted, worst, plus, crit)
            p *= F(special - 1, 6)
        if left > 1:
            take(p, n - 1, left - 1, counted + 1, worst, plus, crit)
            return
        for face in range(1, 7):
            take(p / 6, n - 1, 0, counted + 1, max(worst, injury(face + plus)), plus, crit)

    def hurt(p, n, armour, plus, crit):
        if armour and save <= 6:
            out[(0, 0, crit)] += p * F(7 - save, 6)
            p *= F(save - 1, 6)
        take(p, n, wounds, 0, 0, plus + bonus, crit)

    for h, ph in die(hit, reroll_hit).items():
        if h < hit:
            out[(0, 0, 0)] += ph
            continue
        for w, pw in die(wound, reroll_wound).items():
            p = ph * pw
            if w < wound:
                out[(0, 0, 0)] += p
            elif w >= crit_on and wound < 6:
                for c in range(1, 7):
                    roll = c + chart
                    hurt(p / 6, 2, roll <= 2, 2 if roll >= 5 else 0, 1)
            else:
                hurt(p, 1, True, 0, 0)
    assert sum(out.values()) == 1
    return out


def expected(outcomes) -> dict[str, F]:
    """The defender's columns' means (and the attacker's criticals) of one blow."""
    def mean(f):
        return sum((p * f(*k) for k, p in outcomes.items()), F(0))
    return {"defender_wounds": mean(lambda n, worst, c: n),
            "defender_knocked_down": mean(lambda n, worst, c: worst == KD),
            "defender_stunned": mean(lambda n, worst, c: worst == STUNNED),
            "defender_lost": mean(lambda n, worst, c: worst == OOA),
            "attacker_criticals": mean(lambda n, worst, c: c)}


# The charger (WS 3, S 3, a sword, A 1) strikes one blow at a WS 1, T 3 warrior, who strikes
# back after it: to hit 3+, to wound 4+. Each case: attacker rules, defender rules, the
# defender's equipment and W, the scenario's own rules, and the blow as one_blow sees it.
VICIOUS = {"reroll_wound": "ones"}
CASES = {
    "no rules": ([], [], [], 1, None, dict(hit=3, wound=4)),
    "Hatred": (["Hatred"], [], [], 1, None, dict(hit=3, wound=4, reroll_hit="failures")),
    "Hatred and a re-roll of 1s: one re-roll": (
        ["Hatred", "Lucky"], [], [], 1, {"Lucky": {"reroll_hit": "ones"}},
        dict(hit=3, wound=4, reroll_hit="failures")),
    "house: re-roll wounds of 1": (["Vicious"], [], [], 1, {"Vicious": VICIOUS},
                                   dict(hit=3, wound=4, reroll_wound="ones")),
    "Mighty Blow": (["Mighty Blow"], [], ["light armour"], 1, None,
                    dict(hit=3, wound=3, save=7)),
    "Resilient": ([], ["Resilient"], ["light armour"], 1, None, dict(hit=3, wound=5, save=6)),
    "Mighty Blow against Resilient: the save still at S 4": (
        ["Mighty Blow"], ["Resilient"], ["light armour"], 1, None, dict(hit=3, wound=4, save=7)),
    "Web of Steel": (["Web of Steel"], [], [], 1, None, dict(hit=3, wound=4, chart=1)),
    "Strike to Injure": (["Strike to Injure"], [], [], 1, None, dict(hit=3, wound=4, bonus=1)),
    "Strike to Injure and a house +1: they add": (
        ["Strike to Injure", "Brutal"], [], [], 1, {"Brutal": {"injury_modifier": 1}},
        dict(hit=3, wound=4, bonus=2)),
    "Web of Steel, Strike to Injure, criticals on 5+": (
        ["Web of Steel", "Strike to Injure", "Keen"], [], [], 1, {"Keen": {"crit_on": 5}},
        dict(hit=3, wound=4, chart=1, bonus=1, crit_on=5)),
    "Step Aside, W 2": ([], ["Step Aside"], [], 2, None, dict(hit=3, wound=4, special=5,
                                                              wounds=2)),
    "Step Aside and heavy armour, against criticals": (
        ["Keen"], ["Step Aside"], ["heavy armour"], 2, {"Keen": {"crit_on": 4}},
        dict(hit=3, wound=4, save=5, special=5, crit_on=4, wounds=2)),
    "Step Aside and a house 4+ save: the best one": (
        [], ["Step Aside", "Nimble"], [], 1, {"Nimble": {"special_save": 4}},
        dict(hit=3, wound=4, special=4)),
}


def blow_scenario(case):
    a_rules, d_rules, d_items, wounds, own, _ = CASES[case]
    return fight_of(warrior("a", ["sword"], a_rules),
                    warrior("d", d_items, d_rules, WS=1, I=1, W=wounds), own)


@pytest.mark.parametrize("case", CASES)
def test_one_blow_exact_matches_enumeration_R1_4_to_R1_9(case):
    """Each rule's effect on one blow: the exact solver's means are the enumeration's."""
    tally = solved(blow_scenario(case))
    for column, value in expected(one_blow(**CASES[case][-1])).items():
        assert tally.mean(column) == pytest.approx(float(value), abs=CLOSE), column


@pytest.mark.parametrize("case", ["Hatred", "Mighty Blow against Resilient: the save still "
                                  "at S 4", "Web of Steel, Strike to Injure, criticals on 5+",
                                  "Step Aside and heavy armour, against criticals"])
def test_one_blow_kernel_and_reference_match_enumeration(case):
    """The kernel (200,000 fights) and the reference (20,000, one die at a time) against
    the enumerated probabilities, |z| < 4."""
    sc = blow_scenario(case)
    want = expected(one_blow(**CASES[case][-1]))
    fast = kernel(sc)
    slow = naive.play(sc, 20_000, seed=5)
    for column in ("defender_wounds", "defender_lost", "attacker_criticals"):
        assert_mean(fast[column], want[column])
    for column in ("defender_lost", "defender_knocked_down", "attacker_criticals"):
        assert_rate(int(slow[column].sum()), len(slow), want[column], f"{case}: {column}")


def test_enumeration_is_the_rule_under_test():
    """The enumerator itself: a re-roll of failures, Resilient's S and Step Aside all
    change the blow (else the cases above could pass on a blow that ignores them)."""
    plain = expected(one_blow(3, 4))
    for changed in (dict(reroll_hit="failures"), dict(wound=5), dict(special=5),
                    dict(chart=1), dict(bonus=1)):
        assert expected(one_blow(**{"hit": 3, "wound": 4, **changed})) != plain, changed
    assert expected(one_blow(3, 4, reroll_hit="ones"))["defender_lost"] < \
        expected(one_blow(3, 4, reroll_hit="failures"))["defender_lost"]


# --- what the plan holds --------------------------------------------------------------------

def test_hatred_first_round_only_and_when_charging():
    """Hatred re-rolls misses in round 1 only; a rule with when = "charging" holds in round 1
    for the side that charged."""
    plan = compile_plan(fight_of(warrior("a", rules=["Hatred"]), warrior("d", rules=["Hatred"])))
    assert plan.reroll_hit.tolist() == [[2, 2], [0, 0]]
    own = {"Onslaught": {"strength_bonus": 1, "when": "charging"}}
    plan = compile_plan(fight_of(warrior("a", rules=["Onslaught"]),
                                 warrior("d", rules=["Onslaught"]), own))
    assert plan.hit_strength[:, :, 0].tolist() == [[4, 3], [3, 3]]


def test_mighty_blow_not_with_a_pistol():
    """Mighty Blow adds to the S of weapons that use the user's S, not a pistol's fixed 4."""
    plan = compile_plan(fight_of(warrior("a", ["sword", "pistol"], ["Mighty Blow"]),
                                 warrior("d")))
    assert plan.hit_strength[1, 0].tolist() == [4, 4]
    assert plan.hit_strength[1, 1].tolist() == [3, 1]  # the defender: sword, no second hand


def test_strongman_strikes_in_initiative_order_with_a_double_handed_weapon():
    """R1-2: without Strongman the double-handed charger (I 9) waits for the I 1 defender;
    with it he strikes first, as the charger."""
    sc = fight_of(warrior("a", ["double-handed weapon"], ["Strongman"], I=9),
                  warrior("d", ["axe"], I=1))
    assert compile_plan(sc).tier_first[:, 0].tolist() == [0, 1]
    rec = fight(sc, [4, 4, 5])  # a: hit, wound, injury 5: out of action before d strikes
    assert rec["defender_lost"] == 1 and rec["attacker_lost"] == 0


def test_lightning_reflexes_strikes_first_when_charged():
    """R1-2: the charged warrior with Lightning Reflexes strikes first too; Initiative
    decides between the two strike-first warriors."""
    sc = fight_of(warrior("a", ["axe"], I=2),
                  warrior("d", ["axe"], ["Lightning Reflexes"], I=3))
    rec = fight(sc, [4, 4, 5])  # d (I 3): hit, wound, injury 5
    assert rec["attacker_lost"] == 1


def test_fearsome_causes_fear_and_frenzy_is_immune():
    """R1-6: Fearsome causes Fear as the group key does; a frenzied or Immune to Psychology
    warrior never tests."""
    plan = compile_plan(fight_of(warrior("a", rules=["Fearsome"]), warrior("d")))
    assert plan.causes_fear.tolist() == [1, 0] and plan.tests_fear.tolist() == [0, 1]
    for immune in ("Frenzy", "Immune to Psychology"):
        sc = fight_of(warrior("a", rules=["Fearsome"]), warrior("d", rules=[immune], I=1))
        assert compile_plan(sc).tests_fear.tolist() == [0, 0]
    # no Fear test: a's miss (3), d's blow hits on a 5 (not only on 6s), wound roll 1
    fight(fight_of(warrior("a", ["axe"], ["Fearsome"]),
                   warrior("d", ["axe"], ["Immune to Psychology"], I=1)), [3, 5, 1])


def test_frenzy_doubles_attacks_closed_form():
    """Frenzy: 2 A instead of 1, so the parry meets the higher of two to-hit rolls (R1-5):
    P(parry) = sum over r = 4, 5 of P(highest roll = r) (6 - r)/6, with a sword and a
    dagger making 2 + 1 blows (the second weapon's blow is not doubled)."""
    one = solved(fight_of(warrior("a", ["axe"], ["Frenzy"]), warrior("d", ["sword"], I=1)))
    p = sum((F(r, 6) ** 2 - F(r - 1, 6) ** 2) * F(6 - r, 6) for r in (4, 5))
    assert one.mean("defender_parries") == pytest.approx(float(p), abs=CLOSE)
    plan = compile_plan(fight_of(warrior("a", ["axe", "dagger"], ["Frenzy"], A=2),
                                 warrior("d", [], ["Frenzy"])))
    assert plan.fury_blows.tolist() == [4, 1] and plan.blows.tolist() == [2, 1]  # fists: 1


def test_frenzy_is_lost_when_knocked_down():
    """Frenzy ends once he is knocked down: after standing up he strikes once, not twice."""
    sc = fight_of(warrior("a", ["axe"], ["Frenzy"], W=1), warrior("d", ["axe"]), max_rounds=3)
    rec = fight(sc, [1, 1,     # round 1: a's two frenzied blows miss
                     4, 4, 1,  # d: hit, wound, injury 1: a knocked down
                     1,        # round 2: d's automatic hit fails to wound
                     1,        # round 3: a stood up (strikes last); d misses
                     1])       # a's one blow misses
    assert rec["attacker_knocked_down"] == 1 and rec["rounds"] == 3


@pytest.mark.parametrize("rule", ["Frenzy", "Immune to Psychology"])
def test_all_alone_not_tested_by_the_frenzied_or_immune(rule):
    """R1-11: alone against two, a frenzied (or Immune to Psychology) warrior takes no All
    Alone test (the scripted dice hold none)."""
    sc = fight_of([warrior("a", W=3), warrior("b", W=3)], warrior("d", rules=[rule], W=3, I=1),
                  max_rounds=2)
    blows = 2 if rule == "Frenzy" else 1
    rec = fight(sc, [1] * (2 * (2 + blows)))  # two rounds of misses, no Ld test
    assert rec["rounds"] == 2 and rec["end"] == odds.core.outcome.UNRESOLVED


# --- errors ---------------------------------------------------------------------------------

ERRORS = [
    (dict(a=["Mighty Blw"]), "unknown special rule 'Mighty Blw'; did you mean 'Mighty Blow'"),
    (dict(a=["X"], own={"X": {"strenght_bonus": 1}}), "special_rules.X.strenght_bonus"),
    (dict(a=["X"], own={"X": {"reroll_hit": "sixes"}}), "special_rules.X.reroll_hit"),
    (dict(a=["X"], own={"X": {"special_save": 1}}), "special_rules.X.special_save"),
    (dict(a=["X"], own={"X": {"frenzy": True, "when": "first round"}}),
     "special_rules.X.frenzy"),
    (dict(a=["Hatred", "Hatred"]), r"attacker.models\[0\].rules"),
]


@pytest.mark.parametrize("args, message", ERRORS)
def test_bad_special_rules_are_named(args, message):
    with pytest.raises(ScenarioError, match=message):
        fight_of(warrior("a", rules=args["a"]), warrior("d"), args.get("own"))


def test_house_rule_in_a_file_runs_from_the_cli(tmp_path):
    """The data-only path: a new rule in the user's scenario file, no code (exit 0); a typo
    in it is one line naming the key (exit 2)."""
    text = (open("data/scenarios/mordheim_captain_vs_night_runner.toml").read()
            .replace("equipment = ", 'rules = ["Duellist", "Step Aside"]\nequipment = ', 1)
            + '\n[special_rules.Duellist]\nreroll_hit = "ones"\ncrit_on = 5\n')
    path = tmp_path / "house.toml"
    path.write_text(text)
    run = subprocess.run([sys.executable, "-m", "odds", "simulate", str(path), "--trials",
                          "2000"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    path.write_text(text.replace("crit_on = 5", "crit_on = 1"))
    run = subprocess.run([sys.executable, "-m", "odds", "simulate", str(path), "--trials",
                          "2000"], capture_output=True, text=True)
    assert run.returncode == 2 and "special_rules.Duellist.crit_on" in run.stderr
    assert "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) == 1
