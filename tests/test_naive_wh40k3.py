"""Checks of the pure-Python wh40k3 reference (tests/naive_wh40k3.py) against closed forms.

Every expected probability is computed exactly (fractions) from the dice and the charts of
``data/wh40k3/charts.toml``; a simulated frequency passes when it lies within 4 standard errors
(|z| < 4). Seeds are fixed, so the tests are deterministic. For sides of several units
(tests/units_scenarios.py) the record is checked for consistency here; their closed forms are in
tests/test_wh40k3_units_exact.py.
"""
from __future__ import annotations

import math
from fractions import Fraction
from itertools import product

import pandas as pd
import pytest

import naive_wh40k3 as naive
import units_scenarios
from stats import Z_MAX, assert_rate
from odds.core import outcome
from odds.rulesets.wh40k3 import rules
from odds.scenario import from_dict

TO_HIT, TO_WOUND = rules.charts()
TRIALS = 12_000


# --- exact dice ----------------------------------------------------------------------------

def p_d6(target: int) -> Fraction:
    """P(D6 >= target); 7 ("N", or no save) never succeeds."""
    return Fraction(max(0, 7 - target), 6)


def p_to_hit(ws_attacker: int, ws_defender: int) -> Fraction:
    return p_d6(TO_HIT[ws_attacker - 1][ws_defender - 1])


def p_to_wound(strength: int, toughness: int) -> Fraction:
    return p_d6(TO_WOUND[strength - 1][toughness - 1])


def p_at_least_one(p: Fraction, n: int) -> Fraction:
    return 1 - (1 - p) ** n


def p_binomial_at_least(k: int, n: int, p: Fraction) -> Fraction:
    return sum(math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(k, n + 1))


TWO_D6 = [a + b for a, b in product(range(1, 7), repeat=2)]


def p_2d6_at_most(ld: int) -> Fraction:
    return Fraction(sum(1 for x in TWO_D6 if x <= ld), 36)


# --- statistics ----------------------------------------------------------------------------

def assert_frequency(hits, p: Fraction, what: str) -> None:
    """The frequency of True in ``hits`` is p within |z| < Z_MAX (binomial standard error)."""
    assert_rate(sum(bool(h) for h in hits), len(hits), p, what)


def assert_mean(values, distribution: dict[int, Fraction], what: str) -> None:
    """The mean of ``values`` matches the exact distribution {value: probability}, |z| < 4."""
    mean = sum(v * p for v, p in distribution.items())
    var = sum((v - mean) ** 2 * p for v, p in distribution.items())
    n = len(values)
    z = (sum(values) / n - float(mean)) / math.sqrt(float(var) / n)
    assert abs(z) < Z_MAX, f"{what}: z = {z:.2f} (n = {n}, expected mean = {float(mean):.5f})"


# --- scenarios -----------------------------------------------------------------------------

def model(name, count=1, equipment=(), **profile):
    return {"name": name, "count": count, "profile": profile, "equipment": list(equipment)}


def scenario(attacker, defender, engagement=None, max_rounds=1, attacker_side=None,
             defender_side=None):
    """A checked scenario built with odds.scenario.from_dict."""
    data = {
        "ruleset": "wh40k3",
        "name": "naive reference test",
        "attacker": {"name": "A", "models": attacker, **(attacker_side or {})},
        "defender": {"name": "D", "models": defender, **(defender_side or {})},
        "engagement": engagement or {},
        "simulation": {"max_rounds": max_rounds},
    }
    return from_dict(data)


def test_one_round_kill_and_wound_count_R0_3_R0_5_R0_7_R0_8_R0_9():
    """An Ork with slugga + choppa charges (A 2, +1 two weapons R0-3, +1 charge) a W2 model
    with Sv 2 and Inv 5: the choppa caps the armour save at 4+, better than the 5+ Inv (R0-8).
    It strikes first (I 5 vs 1), so the target is destroyed in round 1 iff at least 2 of the 4
    attacks wound unsaved; the wounds it suffers are min(unsaved, 2): wounds beyond its last
    model are not allocated (R0-9)."""
    sc = scenario(
        [model("Boy", WS=4, S=4, T=4, W=1, I=5, A=2, Ld=7, Sv=6, equipment=["slugga", "choppa"])],
        [model("Hero", WS=3, S=3, T=3, W=2, I=1, A=1, Ld=9, Sv=2, Inv=5)],
    )
    p = p_to_hit(4, 3) * p_to_wound(4, 3) * (1 - p_d6(4))
    attacks = 4
    df = naive.play(sc, TRIALS, seed=11)
    destroyed = (df.end == outcome.DESTROYED) & (df.winner == outcome.ATTACKER)
    assert_frequency(destroyed, p_binomial_at_least(2, attacks, p), "P(destroyed in round 1)")
    assert (df.rounds == 1).all()
    defender_gone = (df.winner == outcome.ATTACKER) & df.end.isin([outcome.DESTROYED,
                                                                      outcome.CAUGHT])
    assert (df.defender_lost == defender_gone.astype(int)).all()  # caught: all models lost
    dist = {k: math.comb(attacks, k) * p**k * (1 - p) ** (attacks - k) for k in range(attacks + 1)}
    capped = {0: dist[0], 1: dist[1], 2: sum(dist[k] for k in range(2, attacks + 1))}
    assert_mean(list(df.defender_wounds), capped, "E[min(unsaved wounds, W)]")


def test_equal_initiative_is_simultaneous_R0_4_mutual_destruction_R0_10():
    """Equal I: both models strike in the same step, so both can die (mutual destruction,
    R0-4.3, R0-10). No saves; P(mutual) = P(attacker kills) * P(defender kills)."""
    sc = scenario(
        [model("A", WS=4, S=4, T=4, W=1, I=3, A=1, Ld=7)],
        [model("D", WS=4, S=4, T=3, W=1, I=3, A=2, Ld=7)],
    )
    p_attacker_kills = p_at_least_one(p_to_hit(4, 4) * p_to_wound(4, 3), 2)   # A 1 + charge
    p_defender_kills = p_at_least_one(p_to_hit(4, 4) * p_to_wound(4, 4), 2)
    df = naive.play(sc, TRIALS, seed=12)
    assert_frequency(df.end == outcome.MUTUAL, p_attacker_kills * p_defender_kills, "P(mutual)")
    assert_frequency((df.end == outcome.DESTROYED) & (df.winner == outcome.ATTACKER),
                p_attacker_kills * (1 - p_defender_kills), "P(only the defender destroyed)")
    assert (df.winner[df.end == outcome.MUTUAL] == outcome.NONE).all()


def test_power_fist_strikes_last_doubles_S_ignores_armour_R0_4_R0_8():
    """Power fist + bolt pistol: A 1 +1 two weapons +1 charge = 3 attacks at S 8 ignoring the
    target's 2+ armour, but struck last (R0-4.4): the slower defender (I 2) strikes first."""
    sc = scenario(
        [model("Sergeant", WS=4, S=4, T=4, W=1, I=4, A=1, Ld=9, Sv=3,
               equipment=["power fist", "bolt pistol"])],
        [model("Terminator-ish", WS=4, S=3, T=4, W=1, I=2, A=2, Ld=9, Sv=2)],
    )
    p_fist_kills = p_at_least_one(p_to_hit(4, 4) * p_to_wound(8, 4), 3)
    p_defender_kills = p_at_least_one(p_to_hit(4, 4) * p_to_wound(3, 4) * (1 - p_d6(3)), 2)
    df = naive.play(sc, TRIALS, seed=13)
    assert_frequency((df.end == outcome.DESTROYED) & (df.winner == outcome.DEFENDER),
                p_defender_kills, "P(fist wielder killed before striking)")
    assert_frequency((df.end == outcome.DESTROYED) & (df.winner == outcome.ATTACKER),
                (1 - p_defender_kills) * p_fist_kills, "P(fist kills)")
    assert not (df.end == outcome.MUTUAL).any()


@pytest.mark.parametrize("frag, seed", [(False, 14), (True, 15)])
def test_cover_step_and_frag_grenades_R0_4_1_R0_4_2(frag, seed):
    """Round 1, defender in cover: without frag the defender (I 1) strikes first; with frag
    grenades the charger strikes simultaneously with it (R0-4.1, R0-4.2 [AMB])."""
    p_attacker_kills = p_at_least_one(p_to_hit(4, 3) * p_to_wound(4, 3), 2)
    p_defender_kills = p_at_least_one(p_to_hit(3, 4) * p_to_wound(3, 4), 2)
    equipment = ["frag grenades"] if frag else []
    sc = scenario([model("Marine", WS=4, S=4, T=4, W=1, I=4, A=1, Ld=9, equipment=equipment)],
                  [model("Guard", WS=3, S=3, T=3, W=1, I=1, A=2, Ld=7)],
                  engagement={"defender_in_cover": True})
    df = naive.play(sc, TRIALS, seed=seed)
    mutual = p_attacker_kills * p_defender_kills if frag else 0
    assert_frequency((df.end == outcome.DESTROYED) & (df.winner == outcome.DEFENDER),
                p_defender_kills - mutual, f"frag={frag}: P(charger destroyed alone)")
    if frag:
        assert_frequency(df.end == outcome.MUTUAL, mutual, "frag: P(mutual)")
    else:
        assert not (df.end == outcome.MUTUAL).any()


def test_within_2in_one_attack_normal_weapon_R0_2():
    """Two Nobz with a power klaw, one in contact and one within 2" (R0-2): the contact one
    makes A 2 +1 charge at S 8 ignoring armour, last; the one within 2" makes exactly 1 attack
    at its profile S 4 against the 4+ armour save, in its I step. The target cannot hurt them."""
    sc = scenario(
        [model("Nob", count=2, WS=4, S=4, T=10, W=1, I=3, A=2, Ld=7, equipment=["power klaw"])],
        [model("Target", WS=4, S=1, T=4, W=1, I=1, A=1, Ld=7, Sv=4)],
        attacker_side={"in_contact": 1},
    )
    p_support = p_to_hit(4, 4) * p_to_wound(4, 4) * (1 - p_d6(4))
    p_klaw = p_to_hit(4, 4) * p_to_wound(8, 4)
    p_kill = 1 - (1 - p_support) * (1 - p_klaw) ** 3
    df = naive.play(sc, TRIALS, seed=16)
    assert_frequency(df.end == outcome.DESTROYED, p_kill, "P(target destroyed in round 1)")


def test_pursuit_catch_is_1150_over_2592_R0_11_R0_12():
    """The attacker cannot wound (S 1 vs T 10 is "N") and has Ld 1, so whenever the defender
    wins on wounds the attacker fails its test (2D6 <= 1 never, R0-11), falls back 2D6 and is
    caught iff the pursuer's 2D6 is strictly greater (R0-12): 1150/2592. A caught unit loses
    all its remaining models. A roll-off win never pursues."""
    assert sum(Fraction(1, 1296) for f, p in product(TWO_D6, TWO_D6) if p > f) \
        == Fraction(1150, 2592)
    sc = scenario(
        [model("Grot", WS=1, S=1, T=1, W=20, I=1, A=1, Ld=1)],
        [model("Warboss", WS=10, S=10, T=10, W=1, I=10, A=10, Ld=10)],
    )
    df = naive.play(sc, TRIALS, seed=17)
    won_on_wounds = df[df.attacker_wounds > 0]
    assert (won_on_wounds.winner == outcome.DEFENDER).all()
    assert won_on_wounds.end.isin([outcome.CAUGHT, outcome.FLED]).all()
    assert_frequency(won_on_wounds.end == outcome.CAUGHT, Fraction(1150, 2592), "P(caught | lost)")
    p_some_wound = p_at_least_one(p_to_hit(10, 1) * p_to_wound(10, 1), 10)
    assert_frequency(df.attacker_wounds > 0, p_some_wound, "P(defender wins on wounds)")
    caught = df[df.end == outcome.CAUGHT]
    assert (caught.attacker_lost == 1).all() and (caught.defender_lost == 0).all()
    rolled_off = df[df.attacker_wounds == 0]
    assert not (rolled_off.end == outcome.CAUGHT).any()


def test_leadership_test_uses_best_surviving_Ld_R0_11():
    """The loser tests on the highest Ld among its models (8 here, R0-11 [MEM]): it holds with
    P(2D6 <= 8) = 26/36 and, with max_rounds = 1, the fight ends unresolved; otherwise it
    flees or is caught."""
    sc = scenario(
        [model("Grot", WS=1, S=1, T=1, W=20, I=1, A=1, Ld=5),
         model("Runtherd", WS=1, S=1, T=1, W=20, I=1, A=1, Ld=8)],
        [model("Warboss", WS=10, S=10, T=10, W=1, I=10, A=10, Ld=10)],
    )
    assert p_2d6_at_most(8) == Fraction(26, 36)
    df = naive.play(sc, TRIALS, seed=18)
    lost = df[df.attacker_wounds > 0]
    assert_frequency(lost.end == outcome.UNRESOLVED, p_2d6_at_most(8), "P(Ld test passed)")
    assert (df.winner[df.end == outcome.UNRESOLVED] == outcome.NONE).all()


def test_side_Ld_key_overrides_R0_11():
    """The side's ``Ld`` key replaces the models' Ld (here 6: passes with 15/36)."""
    sc = scenario(
        [model("Grot", WS=1, S=1, T=1, W=20, I=1, A=1, Ld=10)],
        [model("Warboss", WS=10, S=10, T=10, W=1, I=10, A=10, Ld=10)],
        attacker_side={"Ld": 6},
    )
    df = naive.play(sc, TRIALS, seed=19)
    lost = df[df.attacker_wounds > 0]
    assert_frequency(lost.end == outcome.UNRESOLVED, p_2d6_at_most(6), "P(Ld 6 test passed)")


def test_charge_through_difficult_terrain_R0_1():
    """Through difficult terrain the charge reaches 5" iff the highest of 2D6 is >= 5 (R0-1);
    otherwise there is no fight (0 rounds, nothing lost)."""
    sc = scenario(
        [model("A", WS=4, S=4, T=4, W=1, I=4, A=1, Ld=7)],
        [model("D", WS=4, S=4, T=4, W=1, I=4, A=1, Ld=7)],
        engagement={"charge_distance": 5, "charge_through_difficult_terrain": True},
    )
    p_short = Fraction(sum(1 for a, b in product(range(1, 7), repeat=2) if max(a, b) < 5), 36)
    df = naive.play(sc, TRIALS, seed=20)
    no_fight = df.end == outcome.NO_FIGHT
    assert_frequency(no_fight, p_short, "P(charge falls short)")
    assert (df.rounds[no_fight] == 0).all() and (df.winner[no_fight] == outcome.NONE).all()
    assert (df.attacker_lost[no_fight] == 0).all() and (df.defender_wounds[no_fight] == 0).all()
    assert (df.rounds[~no_fight] == 1).all()


# --- sides of several units (R0-12, R0-13) -------------------------------------------------

@pytest.mark.parametrize("name", sorted(units_scenarios.SCENARIOS))
def test_several_units_record_is_consistent_R0_12_R0_13(name):
    """Every multi-unit scenario plays; its record has the shared columns then the per-unit
    ones; side losses and wounds are the sums over units; a destroyed or caught unit lost all
    its models, an unreached one none; a beaten side fled if any unit fled, else was caught if
    any was, else destroyed."""
    sc = units_scenarios.scenario(name)
    df = naive.play(sc, 300, seed=21)
    assert list(df.columns) == list(outcome.COLUMNS) + list(outcome.unit_columns(sc))
    for key in ("attacker", "defender"):
        units = sc.side(key).every_unit
        parts = {part: [df[f"{key}.units[{i}].{part}"] for i in range(len(units))]
                 for part in outcome.UNIT_PARTS}
        assert (sum(parts["lost"]) == df[f"{key}_lost"]).all()
        assert (sum(parts["wounds"]) == df[f"{key}_wounds"]).all()
        for u, fate, lost, wounds in zip(units, parts["fate"], parts["lost"], parts["wounds"]):
            count = sum(g.count for g in u.models)
            gone = fate.isin([outcome.UNIT_DESTROYED, outcome.UNIT_CAUGHT])
            assert (lost[gone] == count).all() and (lost[~gone] < count).all()
            unreached = fate == outcome.UNIT_UNREACHED
            assert (lost[unreached] == 0).all() and (wounds[unreached] == 0).all()
            assert not unreached.any() or not u.options["engaged"]
        beaten = df.winner == (outcome.DEFENDER if key == "attacker" else outcome.ATTACKER)
        fates = pd.concat(parts["fate"], axis=1)[beaten]
        expected = fates.apply(lambda row: outcome.FLED if (row == outcome.UNIT_FLED).any()
                               else outcome.CAUGHT if (row == outcome.UNIT_CAUGHT).any()
                               else outcome.DESTROYED, axis=1)
        assert (df.end[beaten] == expected).all()


def test_one_unit_sides_have_no_unit_columns():
    """Both sides one unit (here a list of one unit each): the record is the shared columns
    only, and the fight is the one-unit fight die for die."""
    plain = units_scenarios.fight("one each", units_scenarios.tactical(),
                                  units_scenarios.boyz(count=6))
    listed = units_scenarios.fight("one each", [units_scenarios.tactical()],
                                   [units_scenarios.boyz(count=6)])
    a = naive.play(from_dict(plain), 500, seed=22)
    b = naive.play(from_dict(listed), 500, seed=22)
    assert list(a.columns) == list(outcome.COLUMNS)
    assert a.equals(b)
