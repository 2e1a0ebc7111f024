"""The whfb8 readings and their `[rules]` options (odds/rulesets/whfb8/README.md, "Readings and
options"): two units of the same strike ability (R2-6, ``same_strike_order``), the battle
standard's re-rolls (R2-7, R2-12, R2-13, ``battle_standard_rerolls``), monstrous troops' ranks,
Horde and supporting attacks (R2-5, R2-11, R2-12, data/whfb8/troop_types.toml) and Steadfast
when disrupted (R2-11, R2-12, ``disrupted_steadfast``). Each closed form is checked against
200,000 simulated fights (|z| < 4, fixed seed) and against the exact solver (to 1e-12); the
kernel against the one-die-at-a-time reference is in tests/test_whfb8_parity.py."""
from __future__ import annotations

import math

import numpy as np
import pytest
import test_whfb8_exact as closed
import whfb8_plan as read
from exact_parity import solved
from test_whfb8_exact_solver import mass, pmf

import odds
from odds.core.outcome import ATTACKER, DEFENDER, DESTROYED, MUTUAL
from odds.rulesets import get_ruleset
from odds.rulesets.whfb8.compile import FIGHTING, MOUNT, SUPPORTING, strike_key

RULESET = get_ruleset("whfb8")


def binomial(n: int, p: float) -> np.ndarray:
    return np.array([math.comb(n, k) * p ** k * (1 - p) ** (n - k) for k in range(n + 1)])


def monstrous(unit: dict, troop_type: str = "monstrous infantry", **group) -> dict:
    unit["models"][0].update(troop_type=troop_type, **group)
    return unit


# --- R2-6: both sides Always Strike First, or both Always Strike Last ---------------------

def test_strike_key_bands_R2_6():
    """R2-6: ASF above every Initiative step, ASL below; with ``simultaneous`` a band is one
    step whatever the I, and a model with both (or neither) strikes by its I."""
    for i in (1, 5, 10):
        assert strike_key(i, True, False, True) == strike_key(1, True, False, True)
        assert strike_key(i, False, True, True) == strike_key(1, False, True, True)
        assert strike_key(i, True, True, True) == strike_key(i, False, False) == 16 + i
        assert strike_key(i, True, False) == 32 + i and strike_key(i, False, True) == i
        assert strike_key(i, False, True, True) < strike_key(0, False, False) < \
            strike_key(1, False, False) < strike_key(10, False, False) < \
            strike_key(i, True, False, True)


def duellists(rule: str, first_i: int, second_i: int, mode: str | None):
    """Five W1 models a side, WS3 S3 T3 A1, no save, Unbreakable, both with ``rule``: each
    attack wounds with 1/2 x 1/2 (re-rolled misses: 3/4 x 1/2). One round."""
    def side(name, i):
        return closed.unit(5, 5, name, [rule, "Unbreakable"], profile=dict(S=3, T=3, I=i))
    return closed.scenario(side("X", first_i), side("Y", second_i), max_rounds=1,
                           rules={"same_strike_order": mode} if mode else None)


@pytest.mark.parametrize("rule", ["Always Strikes First", "Always Strikes Last"])
@pytest.mark.parametrize("order", [(5, 3), (3, 5)])
def test_same_ability_strikes_simultaneously_R2_6(rule, order):
    """R2-6, ``same_strike_order = "simultaneous"`` (the default): two units with the same
    ability strike at one step and neither re-rolls, so the round's wounds are two
    independent Bin(5, 1/4), whichever unit is listed first and whichever has the higher I."""
    sc = duellists(rule, *order, None)
    b = binomial(5, 1 / 4)
    rows = closed.fights(sc)
    for i in range(6):
        for j in range(6):
            if b[i] * b[j] > 1e-4:
                closed.assert_probability((rows[5] == i) & (rows[6] == j), b[i] * b[j])
    tally = solved(sc)
    for column in ("attacker_wounds", "defender_wounds"):
        assert np.abs(pmf(tally, column) - b).max() < 1e-12
    assert abs(mass(tally, None, MUTUAL) - b[5] ** 2) < 1e-12
    assert abs(mass(tally, ATTACKER, DESTROYED) - b[5] * (1 - b[5])) < 1e-12


@pytest.mark.parametrize("rule, reroll", [("Always Strikes First", True),
                                          ("Always Strikes Last", False)])
def test_same_ability_by_initiative_R2_6(rule, reroll):
    """R2-6, ``same_strike_order = "initiative"``: the I5 unit strikes first (re-rolling its
    misses with ASF, its I being the higher) and the I3 unit strikes back with its
    survivors: P(I3 unit loses k) = Bin(5, p)(k), P(I5 unit loses j | k) = Bin(5 - k, 1/4)."""
    p = (3 / 4 if reroll else 1 / 2) * 1 / 2
    first = binomial(5, p)
    back = sum(first[k] * np.pad(binomial(5 - k, 1 / 4), (0, k)) for k in range(6))
    sc = duellists(rule, 5, 3, "initiative")
    rows = closed.fights(sc)
    for k in range(6):
        closed.assert_probability(rows[6] == k, first[k])
        closed.assert_probability(rows[5] == k, back[k])
    tally = solved(sc)
    assert np.abs(pmf(tally, "defender_wounds") - first).max() < 1e-12
    assert np.abs(pmf(tally, "attacker_wounds") - back).max() < 1e-12


def test_first_against_last_is_unchanged_R2_6():
    """R2-6: only the same ability on both sides is simultaneous; ASF against ASL (or against
    neither) keeps its band and its re-roll in both modes."""
    profile = dict(S=3, T=3)
    for mode in ("simultaneous", "initiative"):
        sc = closed.scenario(closed.unit(5, 5, "X", ["Always Strikes First"], profile=profile),
                             closed.unit(5, 5, "Y", ["Always Strikes Last"], profile=profile),
                             rules={"same_strike_order": mode})
        plan = RULESET.compile(sc)
        assert plan.tables["step_count"] == 2
        assert read.p_unsaved(plan, 0, 0, FIGHTING) == pytest.approx(3 / 8, abs=1e-15)
        assert read.p_unsaved(plan, 0, 1, FIGHTING) == pytest.approx(1 / 4, abs=1e-15)


# --- R2-7, R2-12, R2-13: what a battle standard re-rolls --------------------------------------

@pytest.mark.parametrize("mode, tries", [("all", 2), ("break", 1)])
def test_battle_standard_rerolls_a_failed_fear_test_R2_7(mode, tries):
    """R2-7, R2-12: a unit with a battle standard facing Fear (Ld 5) is afraid with
    P(fail)^2 under ``battle_standard_rerolls = "all"`` (the default), P(fail) under
    ``"break"``: afraid, it is hit on 3+ (1/3 unsaved), else on 4+ (1/4)."""
    striker = closed.unit(5, 5, "S", ["Fear"], profile=dict(S=3))
    target = closed.unit(20, 5, "T", profile=dict(T=3, Ld=5), battle_standard=True)
    sc = closed.scenario(striker, target, rules={"battle_standard_rerolls": mode})
    afraid = (1 - closed.p_le(closed.TWO_D6, 5)) ** tries
    expected = afraid * binomial(5, 1 / 3) + (1 - afraid) * binomial(5, 1 / 4)
    rows = closed.fights(sc)
    for k in range(6):
        closed.assert_probability(rows[6] == k, expected[k])
    assert np.abs(pmf(solved(sc), "defender_wounds") - expected).max() < 1e-12


@pytest.mark.parametrize("mode, tries", [("all", 2), ("break", 1)])
def test_battle_standard_rerolls_a_failed_restraint_R2_13(mode, tries):
    """R2-13, R2-12: the winner (Ld 8, battle standard) restrains unless it fails its test,
    re-rolled with "all": P(caught) = P(broke) x P(fail)^tries x P(pursuit >= flee). The
    loser's break test is re-rolled in both modes."""
    calm = closed.unit(20, 5, "C", standard=True, battle_standard=True, profile=dict(Ld=8))
    sc = closed.scenario(calm, closed.unit(20, 5, "D", standard=True, battle_standard=True),
                         facing="rear", pursue=False, rules={"battle_standard_rerolls": mode})
    broke = (1 - closed.p_hold(7 - 6)) ** 2  # 8 against 2: loses by 6 on Ld 7, re-rolled
    caught = broke * (1 - closed.p_le(closed.TWO_D6, 8)) ** tries * closed.p_catch()
    tally = solved(sc)
    assert abs(mass(tally, ATTACKER) - broke) < 1e-12
    assert abs(mass(tally, ATTACKER, closed.CAUGHT) - caught) < 1e-12
    closed.assert_probability(closed.fights(sc)[1] == closed.CAUGHT, caught)


# --- R2-5, R2-11, R2-12: monstrous troops -------------------------------------------------

def plan_for(unit: dict, mode: str = "8e", enemy_width: int = 5, facing: str = "front"):
    sc = closed.scenario(closed.unit(30, enemy_width, "E"), unit,
                         rules={"supporting_attacks": mode}, facing=facing)
    return RULESET.compile(sc)


@pytest.mark.parametrize("troop_type, count, width, a, mode, contact, supporting", [
    # 8e: a Horde from 6 files, up to 3 supporting attacks a model (min(A, 3))
    ("monstrous infantry", 18, 6, 3, "8e", 6, 2 * 6 * 3),
    ("monstrous infantry", 18, 6, 2, "8e", 6, 2 * 6 * 2),
    ("monstrous infantry", 18, 6, 5, "8e", 6, 2 * 6 * 3),
    ("monstrous infantry", 15, 5, 3, "8e", 5, 5 * 3),        # 5 files: no Horde
    ("monstrous infantry", 17, 6, 3, "8e", 6, (6 + 5) * 3),  # casualties off the rear
    ("infantry", 18, 6, 3, "8e", 6, 6),                      # 1 a model, Horde at 10
    # the rules text: a Horde at 10 files for every troop type, 1 attack a model
    ("monstrous infantry", 18, 6, 3, "resurrection", 6, 0),
    ("monstrous infantry", 30, 10, 3, "resurrection", 7, 7),
])
def test_monstrous_support_and_horde_R2_5(troop_type, count, width, a, mode, contact,
                                          supporting):
    """R2-5: models in contact (the enemy's 5 + a corner each end, R2-3) and supporting
    attacks by troop type and option (troop_types.toml's horde_files and support_max)."""
    unit = monstrous(closed.unit(count, width, "M", profile=dict(A=a)), troop_type)
    plan = plan_for(unit, mode)
    assert read.contact(plan, (30, count), 1) == contact
    assert read.supporters(plan, (30, count), 1, contact) == supporting


def test_monstrous_cavalry_riders_support_mounts_do_not_R2_5():
    """R2-5: monstrous cavalry (8e) supports with its riders, min(A, 3) each, from a Horde of
    6 files; its mounts fight only in contact."""
    riders = monstrous(closed.unit(12, 6, "R", profile=dict(A=2)), "monstrous cavalry",
                       mount={"WS": 3, "S": 5, "I": 2, "A": 4})
    plan = plan_for(riders)
    assert read.attacks(plan, (30, 12), 1, SUPPORTING, r=1) == 6 * 2
    assert read.attacks(plan, (30, 12), 1, MOUNT, r=1) == 6 * 4


@pytest.mark.parametrize("troop_type, width, alive, ranks", [
    ("monstrous infantry", 3, 9, 3), ("monstrous infantry", 3, 8, 2),
    ("monstrous infantry", 6, 14, 2), ("monstrous infantry", 6, 15, 3),
    ("monstrous infantry", 2, 10, 0), ("monstrous cavalry", 3, 6, 2),
    ("infantry", 3, 9, 0), ("infantry", 5, 14, 2),
])
def test_ranks_of_three_for_monstrous_troops_R2_11(troop_type, width, alive, ranks):
    """R2-11, R2-12: a rank is rank_models (3 for monstrous troops, else 5) or more models,
    the last one too; a unit narrower than that has no ranks."""
    group = {"mount": {"WS": 3, "S": 4, "I": 2, "A": 1}} if troop_type == "monstrous cavalry" \
        else {}
    plan = plan_for(monstrous(closed.unit(alive, width, "M"), troop_type, **group))
    assert read.ranks(plan, (30, alive), 1) == ranks


@pytest.mark.parametrize("troop_type, p_break", [
    ("monstrous infantry", 1 - closed.p_hold(7)),     # +2 ranks: loses 3-2, Steadfast
    ("infantry", 1 - closed.p_hold(7 - 3)),           # 3 wide: no ranks, loses by 3
])
def test_ranks_of_three_give_rank_bonus_and_steadfast_R2_11_R2_12(troop_type, p_break):
    """R2-11, R2-12: 9 models 3 wide charged by one rank of 10 (charge, standard, battle
    standard: 3). Monstrous, they are 3 ranks: +2 and Steadfast, so they test on Ld 7;
    infantry, no ranks: they lose by 3 and test on Ld 4."""
    chargers = closed.unit(10, 10, "C", standard=True, battle_standard=True)
    sc = closed.scenario(chargers, monstrous(closed.unit(9, 3, "D"), troop_type))
    closed.assert_probability(closed.fights(sc)[0] == ATTACKER, p_break)
    assert abs(mass(solved(sc), ATTACKER) - p_break) < 1e-12


# --- R2-11, R2-12: Steadfast when disrupted -------------------------------------------------

@pytest.mark.parametrize("charger, rules, keeps, p_steadfast", [
    ("infantry", [], True, 1 - closed.p_hold(7)),
    ("infantry", [], False, 1 - closed.p_hold(7 - 3)),
    ("monstrous infantry", [], True, 1 - closed.p_hold(7)),
    ("monstrous infantry", [], False, 1 - closed.p_hold(7 - 3)),
    ("infantry", ["Stubborn"], False, 1 - closed.p_hold(7)),
])
def test_disrupted_steadfast_R2_11_R2_12(charger, rules, keeps, p_steadfast):
    """R2-11, R2-12: a flank charge by two ranks (10 infantry 5 wide, or 6 monstrous 3 wide:
    charge, flank, +1 rank = 3) disrupts 20 models 5 wide: no rank bonus, they lose by 3.
    With 4 ranks against 2 they stay Steadfast (Ld 7) under ``disrupted_steadfast = true``
    (8th edition, the default); with false they test on Ld 7 - 3. Stubborn stays Steadfast."""
    chargers = monstrous(closed.unit(6, 3, "C"), charger) if charger != "infantry" else \
        closed.unit(10, 5, "C")
    sc = closed.scenario(chargers, closed.unit(20, 5, "D", rules), facing="flank",
                         rules={"disrupted_steadfast": keeps})
    closed.assert_probability(closed.fights(sc)[0] == ATTACKER, p_steadfast)
    assert abs(mass(solved(sc), ATTACKER) - p_steadfast) < 1e-12
    assert abs(mass(solved(sc), DEFENDER)) < 1e-12


@pytest.mark.parametrize("key, value", [("same_strike_order", "together"),
                                        ("battle_standard_rerolls", "fear"),
                                        ("disrupted_steadfast", "no")])
def test_bad_rules_values_are_refused(key, value):
    """Each option names its field and its choices in the error."""
    with pytest.raises(odds.ScenarioError) as error:
        closed.scenario(closed.unit(5, 5, "X"), closed.unit(5, 5, "Y"), rules={key: value})
    assert error.value.field == f"rules.{key}"
