"""Mordheim rules, one at a time (RULES.md §2).

* The state machine and each rule's dice, with scripted dice on the reference
  ``tests/naive_mordheim.py`` (exact: every die named).
* Exact probabilities (fractions, icepool) against the numba kernel: injuries, criticals,
  parries, saves by strength. |z| < 4 with a fixed seed.
"""
from __future__ import annotations

import math
from fractions import Fraction as F

import icepool
import naive_mordheim as naive
import numpy as np
import pandas as pd
import pytest

import odds
from odds.core import outcome, runner
from odds.rulesets import get_ruleset

Z_MAX = 4.0


def W(name, equipment=("axe",), count=1, **profile):
    """One warrior group; by default an axe (S as the user's, no save roll on the unarmoured)."""
    base = dict(M=4, WS=3, BS=3, S=3, T=3, W=1, I=3, A=1, Ld=7)
    fear = profile.pop("causes_fear", False)
    return {"name": name, "count": count, "profile": {**base, **profile},
            "equipment": list(equipment), "causes_fear": fear}


def scenario(attackers, defenders, max_rounds=20, **engagement):
    return odds.from_dict({"ruleset": "mordheim", "name": "t",
                           "attacker": {"name": "A", "models": attackers},
                           "defender": {"name": "D", "models": defenders},
                           "engagement": engagement, "simulation": {"max_rounds": max_rounds}})


class Scripted:
    """Dice that return the listed values in order; ties broken by listing order."""

    def __init__(self, rolls):
        self.rolls = list(rolls)

    def d6(self):
        assert self.rolls, "the fight rolled more dice than scripted"
        return self.rolls.pop(0)

    def tiebreak(self):
        return 0.5


def fight(sc, rolls):
    dice = Scripted(rolls)
    rec = naive.play_fight(naive.prepare(sc), dice)
    assert dice.rolls == [], f"unused dice {dice.rolls}"
    return rec


def kernel(sc, trials=200_000, seed=11) -> pd.DataFrame:
    rules = get_ruleset("mordheim")
    _, rec = runner.run(rules, rules.compile(sc), trials, seed, keep_fights=True)
    return pd.DataFrame(rec.T, columns=outcome.COLUMNS + rules.extra_columns)


def assert_mean(values, expected):
    """|z| < Z_MAX for the sample mean against an exact expectation."""
    values = np.asarray(values, float)
    se = values.std() / math.sqrt(len(values))
    z = (values.mean() - float(expected)) / max(se, 1e-12)
    assert abs(z) < Z_MAX, f"mean {values.mean():.5f} vs exact {float(expected):.5f}, z={z:.2f}"


# --- scripted state machine ----------------------------------------------------------------

def test_R1_12_one_wound_knocks_down_then_recovery_and_strike_last():
    """R1-12 turn order, R1-9 knock down and recovery, R1-2 a warrior who stood up strikes last.

    Round 1 (attacker's turn): attacker (charger) hits 4, wounds 4, injury 1: defender knocked
    down. Round 2 (defender's turn): the defender stands up, so the attacker (I 3) strikes
    first though the defender has I 9: hit 4, wound 4, injury 6: out of action."""
    sc = scenario([W("a")], [W("d", I=9)])
    rec = fight(sc, [4, 4, 1, 4, 4, 6])
    assert (rec["winner"], rec["end"], rec["rounds"]) == (outcome.ATTACKER, outcome.DESTROYED, 2)
    assert rec["defender_knocked_down"] == 1 and rec["defender_lost"] == 1


def test_R1_9_knocked_down_is_hit_automatically_and_a_wound_takes_him_out():
    """Round 1: the charger stuns the defender (injury 3). Round 2 (the defender's turn):
    his recovery makes him knocked down; the attacker's blow hits automatically (no to-hit
    die, no parry) and a wound takes him out of action without an injury roll."""
    sc = scenario([W("a", I=1)], [W("d")])
    rec = fight(sc, [4, 4, 3,   # round 1: hit, wound, injury 3 = stunned
                     4])        # round 2: auto hit, wound 4 -> out of action, no injury roll
    assert rec["defender_stunned"] == 1 and rec["defender_lost"] == 1 and rec["rounds"] == 2


def test_R1_9_stunned_enemy_in_contact_is_taken_out():
    """Two attackers: the first stuns the defender; the second takes him out, no dice."""
    sc = scenario([W("a", I=5), W("b", I=4)], [W("d", I=1)])
    rec = fight(sc, [4, 4, 4])  # a: hit, wound, injury 4 = stunned; b: automatic
    assert rec["defender_lost"] == 1 and rec["rounds"] == 1 and rec["defender_wounds"] == 1


def test_R1_2_strike_first_tier_beats_initiative_and_double_handed_strikes_last():
    """R1-2: the charger strikes first whatever I; a double-handed weapon strikes last even
    when charging. Here the charger with a double-handed weapon waits for the I 1 defender."""
    sc = scenario([W("a", ["double-handed weapon"], I=9)], [W("d", I=1)], max_rounds=1)
    rec = fight(sc, [4, 4, 5])  # the defender strikes first and takes him out
    assert rec["attacker_lost"] == 1 and rec["defender_lost"] == 0


def test_R1_10_spear_strikes_first_in_the_first_round():
    """R1-10: a spear strikes first in round 1 even for the charged warrior (ties by I)."""
    sc = scenario([W("a", I=2)], [W("d", ["spear"], I=3)], max_rounds=1)
    rec = fight(sc, [4, 4, 5])  # the defender (tier first, I 3) strikes before the charger
    assert rec["attacker_lost"] == 1


def test_R1_3_two_weapons_extra_attack_each_with_its_own_rules():
    """R1-3: sword + club gives A+1 blows; the club's blow causes concussion (2 = stunned)."""
    sc = scenario([W("a", ["sword", "club"], W=1)], [W("d", W=2)], max_rounds=1)
    # two blows: hit 4, hit 4; wounds 4 (sword: W 2 -> 1), 4 (club: W 1 -> 0, injury 2)
    rec = fight(sc, [4, 4, 4, 4, 2])
    assert rec["defender_stunned"] == 1 and rec["defender_wounds"] == 2


def test_R1_3_unarmed_fist_one_attack_at_strength_minus_one():
    """R1-3 fists: one blow whatever A, S - 1 (S3 -> S2 vs T3 wounds on 5+)."""
    sc = scenario([W("a", [], A=3)], [W("d")], max_rounds=1)
    rec = fight(sc, [4, 4, 6, 5, 6])  # one hit, wound roll 4 fails; the defender takes him out
    assert rec["defender_wounds"] == 0 and rec["attacker_lost"] == 1
    rec = fight(sc, [4, 5, 1, 1])  # wound 5; fists give the unarmoured a 6+ save: 1 fails;
    # injury 1: the defender is down
    assert rec["defender_knocked_down"] == 1


def test_R1_3_pistol_fires_once_per_combat():
    """R1-3: sword + pistol: an extra S4 blow in the warrior's first round of fighting only."""
    sc = scenario([W("a", ["sword", "pistol"], W=3)], [W("d", W=3, I=1)], max_rounds=2)
    rolls = [1, 1,   # round 1: attacker's sword and pistol miss
             1,      # defender misses
             1,      # round 2 (defender's turn): attacker strikes with the sword only
             1]      # defender misses
    rec = fight(sc, rolls)
    assert rec["rounds"] == 2 and rec["defender_wounds"] == 0


def test_R1_4_to_hit_chart_and_R1_6_fear_needs_sixes():
    """R1-4: WS 3 vs WS 3 hits on 4+. R1-6: the defender charged by a fear-causer who fails
    his Ld test (2D6 = 12 > 7) needs 6s to hit in that round."""
    sc = scenario([W("a", causes_fear=True, I=1, W=2)], [W("d", I=1)], max_rounds=1)
    rolls = [6, 6,   # the defender's fear test: 12 > Ld 7, failed
             3,      # attacker (charger) misses on a 3 (needs 4)
             5]      # defender hits on 5? no: needs 6 -> miss
    rec = fight(sc, rolls)
    assert rec["attacker_wounds"] == 0 and rec["defender_wounds"] == 0


def test_R1_5_parry_beats_the_highest_roll_and_rerolls_with_two_items():
    """R1-5: the parry D6 must beat the highest to-hit roll; sword + buckler re-roll."""
    sc = scenario([W("a", W=3)], [W("d", ["sword"], I=1)], max_rounds=1)
    rec = fight(sc, [4, 5,   # hit on 4; parry 5 > 4: parried
                     1])     # defender misses
    assert rec["defender_parries"] == 1 and rec["defender_wounds"] == 0
    sc = scenario([W("a", W=3)], [W("d", ["sword", "buckler"], I=1)], max_rounds=1)
    rec = fight(sc, [5, 4, 6, 1])  # hit 5; parry 4 fails, re-roll 6 parries; defender misses
    assert rec["defender_parries"] == 1
    sc = scenario([W("a", W=3)], [W("d", ["sword"], I=1)], max_rounds=1)
    rec = fight(sc, [6, 4, 4])  # a 6 cannot be parried (no parry die): wound 4, injury 4
    assert rec["defender_parries"] == 0 and rec["defender_stunned"] == 1


def test_R1_5_no_parry_against_double_strength():
    sc = scenario([W("a", ["double-handed weapon"], S=4, W=3)], [W("d", ["sword"], S=3, I=1)],
                  max_rounds=1)
    # defender strikes first (charger has a double-handed weapon): miss; attacker S 6 >= 2 x 3
    rec = fight(sc, [1, 4, 2, 6])  # hit 4 (no parry die), wound 2+, injury 6
    assert rec["defender_lost"] == 1 and rec["defender_parries"] == 0


def test_R1_7_critical_master_strike_two_wounds_no_save_plus_two():
    """R1-7: a natural 6 to wound (needing less) is a critical; 5-6 on the chart = master
    strike: no armour save, 2 wounds, +2 on injury rolls (both rolls, highest kept)."""
    sc = scenario([W("a")], [W("d", ["heavy armour"], W=1)], max_rounds=1)
    rec = fight(sc, [4, 6, 5, 1, 1])  # hit, wound 6, chart 5; injuries 1+2, 1+2 = stunned
    assert rec["attacker_criticals"] == 1 and rec["defender_stunned"] == 1
    assert rec["defender_wounds"] == 2


def test_R1_7_no_critical_when_sixes_are_needed():
    sc = scenario([W("a", S=1)], [W("d", T=3)], max_rounds=1)  # S 1 vs T 3 wounds on 6
    rec = fight(sc, [4, 6, 1])  # hit, wound 6 (not a crit), injury 1; defender is down
    assert rec["attacker_criticals"] == 0 and rec["defender_knocked_down"] == 1


def test_R1_8_saves_modified_by_strength_and_weapon():
    """R1-8: heavy armour 5+; S 4 makes it 6+; an axe makes it 7+ (no save roll at all)."""
    sc = scenario([W("a", ["sword"], S=4, W=3)], [W("d", ["heavy armour"], I=1)], max_rounds=1)
    rec = fight(sc, [4, 4, 6, 1])  # hit, wound, save 6 made, the defender misses
    assert rec["defender_wounds"] == 0
    sc = scenario([W("a", ["axe"], S=4, W=3)], [W("d", ["heavy armour"], I=1)], max_rounds=1)
    rec = fight(sc, [4, 4, 1])  # hit, wound (no save possible), injury 1: knocked down
    assert rec["defender_knocked_down"] == 1
    sc = scenario([W("a", ["dagger"], W=3)], [W("d", I=1)], max_rounds=1)
    rec = fight(sc, [4, 4, 6, 1])  # a dagger gives the unarmoured a 6+ save: saved
    assert rec["defender_wounds"] == 0


def test_R1_8_helmet_turns_stunned_into_knocked_down():
    sc = scenario([W("a")], [W("d", ["helmet"])], max_rounds=1)
    rec = fight(sc, [4, 4, 3, 4])  # hit, wound, injury 3 = stunned, helmet 4+ made
    assert rec["defender_knocked_down"] == 1 and rec["defender_stunned"] == 0


def test_R1_11_all_alone_fail_gives_free_hits_and_flight():
    """R1-11: alone against two, the defender tests at the end of his own turn (round 2);
    a failure gives each enemy an automatic hit and, if he survives, he flees."""
    sc = scenario([W("a", W=3), W("b", W=3)], [W("d", W=3, I=1)])
    rolls = [1, 1, 1,     # round 1: a, b and d miss
             1, 1, 1,     # round 2: a, b, d miss
             6, 6,        # All Alone: 12 > Ld 7, failed
             1, 1]        # the free hits: wound rolls fail
    rec = fight(sc, rolls)
    assert (rec["winner"], rec["end"], rec["rounds"]) == (outcome.ATTACKER, outcome.FLED, 2)
    assert rec["defender_lost"] == 0


def test_R1_1_contact_list_limits_who_fights():
    """R1-1: with a contact list a touches d 1 only and b touches d 2 only, so each fights
    his own opponent; a warrior touching nobody is an error."""
    sc = scenario([W("a", W=3), W("b", W=3)], [W("d", count=2, I=1, W=3)],
                  contacts=[["a", "d 1"], ["b", "d 2"]], max_rounds=1)
    rec = fight(sc, [1, 1, 1, 1])
    assert rec["rounds"] == 1
    with pytest.raises(odds.ScenarioError, match="touches no enemy"):
        scenario([W("a"), W("b")], [W("d")], contacts=[["a", "d"]])


# --- exact probabilities against the kernel ------------------------------------------------

def injury_odds(concussion=False, bonus=0, rolls=1):
    """P(knocked down, stunned, out of action) of the highest of ``rolls`` injury rolls."""
    die = icepool.d6 + bonus
    best = icepool.highest(*[die] * rolls) if rolls > 1 else die
    out = [F(0), F(0), F(0)]
    for value, count in best.items():
        cat = 2 if value >= 5 else (1 if value >= 3 or (concussion and value == 2) else 0)
        out[cat] += F(count, best.denominator())
    return out


def one_blow(concussion=False):
    """Exact P(KD, stunned, OOA) after one WS 3 vs WS 3 blow at S 3 vs T 3, no armour."""
    p_hit = F(1, 2)
    normal = injury_odds(concussion)
    vital = injury_odds(concussion, rolls=2)  # vital part and exposed spot: two rolls
    master = injury_odds(concussion, bonus=2, rolls=2)
    return [p_hit * (F(2, 6) * normal[k] + F(1, 6) * (F(4, 6) * vital[k] + F(2, 6) * master[k]))
            for k in range(3)]


@pytest.mark.parametrize("weapon", ["axe", "club"])
def test_R1_9_injury_chart_with_criticals_exact(weapon):
    """R1-9 (1/3 each; concussion 1/6, 1/2, 1/3) and R1-7 (criticals: 2 wounds = 2 rolls,
    master strike +2) on the charger's single blow in round 1."""
    sc = scenario([W("a", [weapon])], [W("d", [], I=1)], max_rounds=1)
    df = kernel(sc)
    kd, stun, ooa = one_blow(concussion=weapon == "club")
    assert_mean(df["defender_knocked_down"], kd)
    assert_mean(df["defender_stunned"], stun)
    assert_mean(df["defender_lost"], ooa)
    assert injury_odds() == [F(1, 3)] * 3
    assert injury_odds(bonus=2) == [F(0), F(1, 3), F(2, 3)]


@pytest.mark.parametrize("items,rerolls", [(["sword"], False), (["sword", "buckler"], True)])
def test_R1_5_parry_probability_exact(items, rerolls):
    """P(parry) on one blow at 4+: sum over hit rolls 4, 5 (a 6 cannot be parried)."""
    sc = scenario([W("a", W=3)], [W("d", items, I=1)], max_rounds=1)
    df = kernel(sc)
    p = sum(F(1, 6) * (1 - (F(r, 6) ** (2 if rerolls else 1))) for r in (4, 5))
    assert_mean(df["defender_parries"], p)


@pytest.mark.parametrize("strength,armour", [(3, "light armour"), (4, "light armour"),
                                             (4, "heavy armour"), (5, "gromril armour")])
def test_R1_8_wounds_after_saves_exact(strength, armour):
    """Unsaved wounds of one blow on a W 3 target (no injury): saves by Strength, criticals
    (vital part: save then 2 wounds; exposed spot, master strike: 2 wounds, no save)."""
    sc = scenario([W("a", ["sword"], S=strength, W=3)], [W("d", [armour], W=3, I=1, A=1, WS=1)],
                  max_rounds=1)
    df = kernel(sc)
    save = {"light armour": 6, "heavy armour": 5, "gromril armour": 4}[armour]
    needed = save + max(0, strength - 3)
    p_unsaved = F(1) if needed > 6 else F(needed - 1, 6)
    to_wound = 4 - (strength - 3) if strength - 3 < 2 else 2
    p_hit = F(4, 6)  # WS 3 vs WS 1: 3+
    normal_faces = 6 - to_wound  # wound rolls to_wound .. 5
    expected = p_hit * (F(normal_faces, 6) * p_unsaved
                        + F(1, 6) * (F(2, 6) * 2 * p_unsaved + F(4, 6) * 2))
    assert_mean(df["defender_wounds"], expected)
