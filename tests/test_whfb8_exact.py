"""Exact checks of the whfb8 kernel: closed-form probabilities (icepool, binomials) against
200,000 simulated fights with a fixed seed, |z| < 4 on the simulated proportion's standard
error; and exact formation arithmetic (supporting attacks, contact, ranks) from the one-unit
exact solver's own helpers (exact_one.py). Semantics: odds/rulesets/whfb8/README.md.
"""
from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import icepool
import numpy as np
import pytest

import odds
from odds.core import runner
from odds.core.outcome import ATTACKER, CAUGHT, DEFENDER, FLED, NO_FIGHT, NONE, UNRESOLVED
from odds.rulesets import get_ruleset

SCENARIOS = Path(__file__).resolve().parents[1] / "data" / "scenarios"
BUNDLED = SCENARIOS / "whfb8_chaos_warriors_vs_goblin_horde.toml"
TRIALS = 200_000
Z_MAX = 4.0
TWO_D6 = icepool.d6 + icepool.d6
SWIFT = icepool.d6.highest(3, 2)  # 3D6 dropping the lowest

# Nobody can wound anybody (S1 against T5 is "N" on the S-vs-T chart), so every combat result
# is the static bonuses alone and the dice left are the break test, flee and pursuit.
HARMLESS = dict(M=4, WS=3, S=1, T=5, W=1, I=3, A=1, Ld=7)


def unit(count, width, name="U", rules=(), equipment=(), **side):
    profile = {**HARMLESS, **side.pop("profile", {})}
    return {"name": name, "width": width, **side,
            "models": [{"name": name, "count": count, "profile": profile,
                        "equipment": list(equipment), "rules": list(rules)}]}


def scenario(attacker, defender, max_rounds=1, rules=None, **engagement):
    return odds.from_dict({"ruleset": "whfb8", "name": "exact", "attacker": attacker,
                           "defender": defender, "engagement": engagement,
                           "rules": rules or {}, "simulation": {"max_rounds": max_rounds}})


def fights(sc, seed=12345):
    ruleset = get_ruleset("whfb8")
    _, rows = runner.run(ruleset, ruleset.compile(sc), TRIALS, seed, keep_fights=True)
    return rows


def assert_probability(hits: np.ndarray, p: float) -> None:
    observed = hits.mean()
    se = math.sqrt(max(p * (1 - p), 1e-12) / hits.size)
    assert abs(observed - p) / se < Z_MAX, f"observed {observed:.5f}, exact {p:.5f}"


def p_le(die, target) -> float:
    return float(Fraction(die.probability("<=", target)))


def p_hold(target: int) -> float:
    """2D6 <= target, or a double 1 (Insane Courage, R2-12)."""
    return p_le(TWO_D6, target) if target >= 2 else 1 / 36


def p_catch(pursuer=TWO_D6, fleer=TWO_D6) -> float:
    return float(Fraction((pursuer - fleer).probability(">=", 0)))


# --- formation: supporting attacks by width and casualties (R2-5, R2-6), contact (R2-3) -----

@pytest.fixture(scope="module")
def helpers():
    from odds.rulesets.whfb8 import exact_one
    return exact_one


def plan_for(width, count, equipment=(), rules=(), mode="8e", facing="front", enemy_width=5):
    sc = scenario(unit(20, enemy_width, "E"), unit(count, width, "H", rules, equipment),
                  rules={"supporting_attacks": mode}, facing=facing)
    return get_ruleset("whfb8").compile(sc).one_unit  # the one-unit solver's plan


@pytest.mark.parametrize("equipment, fights_with, extra", [
    (["additional hand weapon"], None, 1),
    (["great weapon", "additional hand weapon"], "additional hand weapon", 1),
    (["great weapon", "additional hand weapon"], "great weapon", 0),
    (["halberd", "additional hand weapon"], "halberd", 0),
])
def test_one_weapon_for_the_whole_combat(equipment, fights_with, extra):
    """R2-10: the additional hand weapon's +1 A counts only when the unit fights with it, not
    when it is merely carried beside the weapon named in ``fights_with``."""
    fighter = unit(20, 5, "H", (), equipment)
    if fights_with is not None:
        fighter["models"][0]["fights_with"] = fights_with
    plan = get_ruleset("whfb8").compile(scenario(unit(20, 5, "E"), fighter))
    assert plan.tables["attacks"][1, 0] == 1 + extra


@pytest.mark.parametrize("mode, width, alive, equipment, rules, expected", [
    # 8e: second rank always, spear +1 rank, horde (10 files) +1 rank
    ("8e", 10, 40, ["spear"], [], 7 + 7 + 7),
    ("8e", 10, 60, ["spear"], [], 7 + 7 + 7),    # ranks 2 to 4 only
    ("8e", 10, 40, [], [], 7 + 7),
    ("8e", 9, 40, ["spear"], [], 7 + 7),
    ("8e", 9, 40, [], [], 7),
    ("8e", 10, 33, ["spear"], [], 7 + 7 + 3),    # casualties come off the rear rank
    ("8e", 10, 9, ["spear"], [], 0),             # one rank left, the horde lost
    ("8e", 5, 7, [], [], 2),                     # 5 in contact, 2 behind
    # resurrection: only a spear or "Fight in Ranks" grants supporting attacks; horde +1
    ("resurrection", 10, 40, ["spear"], [], 7 + 7),
    ("resurrection", 10, 40, [], [], 7),
    ("resurrection", 9, 40, [], [], 0),
    ("resurrection", 9, 40, [], ["Fight in Ranks"], 7),
    ("resurrection", 10, 40, [], ["Fight in Ranks"], 7 + 7),
])
def test_supporting_attacks_by_width_and_casualties(helpers, mode, width, alive, equipment,
                                                    rules, expected):
    """R2-5 (both variants), R2-6: a width-10 unit against a 5-wide front has 7 in contact
    (5 plus a corner model at each end, R2-3) and one supporting attack behind each."""
    plan = plan_for(width, alive, equipment, rules, mode)
    n = np.array([20, alive], np.int64)
    contact = helpers._in_contact(plan, n, 1)
    assert contact == min(7, width, alive)
    assert helpers._supporters(plan, n, 1, contact) == expected


def test_no_supporting_attacks_to_the_flank_and_contact_on_the_flank(helpers):
    """R2-3, R2-5: a unit charged in the flank fights with one model per rank (its flank face)
    and makes no supporting attacks; its charger fights with ranks + 2 models."""
    plan = plan_for(5, 23, ["spear"], facing="flank", enemy_width=10)
    n = np.array([20, 23], np.int64)
    assert helpers._in_contact(plan, n, 1) == 5   # 5 ranks (5, 5, 5, 5, 3)
    assert helpers._in_contact(plan, n, 0) == 7   # 10 wide, 5 + 2 corners
    assert helpers._supporters(plan, n, 1, 5) == 0
    assert helpers._supporters(plan, n, 0, 7) == 7


@pytest.mark.parametrize("width, alive, ranks", [(5, 20, 4), (5, 24, 4), (5, 25, 5), (10, 33, 3),
                                                 (10, 36, 4), (4, 40, 0), (6, 4, 0)])
def test_ranks_of_five(helpers, width, alive, ranks):
    """R2-11, R2-12: ranks of 5 or more models count, the last one too if it has 5."""
    plan = plan_for(width, alive)
    assert helpers._ranks(plan, np.array([20, alive], np.int64), 1) == ranks


# --- one round of blows: exact binomial counts (R2-4 ... R2-9) ---------------------------

@pytest.mark.parametrize("champion", [False, True])
def test_first_round_wounds_are_exact_binomials(champion):
    """R2-4, R2-5, R2-6, R2-7, R2-8, R2-9, R2-10: the bundled horde fights the Chaos Warriors
    for one round. Goblins (I3) strike first with 7 fighting + 21 supporting attacks (spear
    horde, 8e), + 1 with a champion; WS2 vs WS5 hits on 5+, S3 vs T4 wounds on 5+, heavy
    armour saves on 5+.
    The Warriors' 5 + 5 supporting great-weapon attacks (Always Strikes Last, S6) hit on 3+,
    wound on 2+, and
    the goblins' light armour and shield (5+) are pierced by S6; spears give no parry."""
    data = odds.load(BUNDLED).to_dict()
    data["defender"]["champion"] = champion
    data["simulation"]["max_rounds"] = 1
    rows = fights(odds.from_dict(data))
    p_goblin = Fraction(1, 3) * Fraction(1, 3) * Fraction(2, 3)
    p_warrior = Fraction(2, 3) * Fraction(5, 6)
    for column, n, p in ((5, 28 + champion, p_goblin), (6, 10, p_warrior)):
        for k in range(n + 1):
            exact = math.comb(n, k) * p ** k * (1 - p) ** (n - k)
            if exact > 1e-4:
                assert_probability(rows[column] == k, float(exact))


def test_reroll_to_hit_always_strikes_first_and_hatred():
    """R2-6, R2-7, R2-14: Always Strikes First with I at least the enemy's re-rolls misses every
    round; Hatred re-rolls them in the first round only: P(hit) = h + (1 - h) h."""
    for rules, rounds in ((["Always Strikes First"], 2), (["Hatred"], 1)):
        striker = unit(5, 5, "S", rules + ["Unbreakable"], profile=dict(S=3, I=3))
        target = unit(20, 5, "T", profile=dict(T=3, A=1, S=1, Ld=10),
                      rules=["Unbreakable"])
        rows = fights(scenario(striker, target, max_rounds=2))
        h = 0.5 + 0.5 * 0.5                       # WS3 vs WS3: 4+, re-rolled
        second = (h if rounds == 2 else 0.5) * 0.5
        # unsaved wounds over two rounds: Bin(5, h/2) + Bin(5, second); compare the mean
        mean = 5 * h * 0.5 + 5 * second
        var = 5 * h * 0.5 * (1 - h * 0.5) + 5 * second * (1 - second)
        observed = rows[6].mean()
        assert abs(observed - mean) / math.sqrt(var / TRIALS) < Z_MAX, rules


# --- combat result, break test, flee and pursuit (R2-11, R2-12, R2-13) ---------------------

def test_combat_result_break_test_and_insane_courage():
    """R2-11: the chargers score charge 1 + rear 2 + standard 1 + battle standard 1 + 3 ranks
    = 8; the charged unit is disrupted (rank bonus lost) and scores its standard, 1: it loses
    by 7 and, with as many ranks as its enemy (not Steadfast), tests on Ld 7 - 7 = 0, so only
    a double 1 holds (R2-12 Insane Courage); the broken unit is caught on pursuit >= flee
    (R2-13: 1 - 575/1296)."""
    chargers = unit(20, 5, "C", standard=True, battle_standard=True)
    charged = unit(20, 5, "D", standard=True)
    rows = fights(scenario(chargers, charged, facing="rear"))
    broke = 1 - p_hold(0)
    assert_probability((rows[1] == CAUGHT) & (rows[0] == ATTACKER), broke * p_catch())
    assert_probability(rows[1] == FLED, broke * (1 - p_catch()))
    assert p_catch() == pytest.approx(1 - 575 / 1296)


@pytest.mark.parametrize("facing, margin", [("front", 3 - 1), ("flank", 3 - 1 - 1)])
def test_combat_result_by_facing(facing, margin):
    """R2-11: charge +1, flank +1, ranks +1 per rank of 5 behind the front (max 3): the
    chargers (one rank of 20, no rank bonus) lose to 6 ranks (+3) by the margin and test on
    Ld 7 - margin. The flanked unit keeps its ranks: its enemy has one rank (not disrupting)."""
    rows = fights(scenario(unit(20, 20, "C"), unit(30, 5, "D"), facing=facing))
    assert_probability(rows[0] == DEFENDER, 1 - p_hold(7 - margin))


def test_steadfast_tests_on_unmodified_leadership():
    """R2-12: the loser with more ranks (of 5+) than its enemy ignores the margin."""
    chargers = unit(10, 10, "C", standard=True, battle_standard=True)  # 1 rank, +2, charge +1
    charged = unit(15, 5, "D", profile=dict(Ld=6))                    # 3 ranks: +2
    rows = fights(scenario(chargers, charged))  # 3 - 2: loses by 1, on Ld 6 (not 5)
    assert_probability(rows[0] == ATTACKER, 1 - p_hold(6))


def test_stubborn_unbreakable_and_battle_standard_reroll():
    """R2-12: Stubborn tests on unmodified Ld; Unbreakable never breaks; the battle standard
    re-rolls a failed break test."""
    chargers = unit(20, 5, "C", standard=True)  # 1 + 1 + 3 = 5 vs 0 + 3
    for rules, side, p_break in ((["Stubborn"], {}, 1 - p_hold(7)),
                                 (["Unbreakable"], {}, 0.0),
                                 ([], {"battle_standard": True}, (1 - p_hold(7 - 1)) ** 2)):
        charged = unit(20, 5, "D", rules, **side)  # battle standard: +1, loses by 1
        rows = fights(scenario(chargers, charged))
        assert_probability(rows[0] == ATTACKER, p_break)


def test_musician_wins_a_drawn_combat():
    """R2-11: equal scores; the lone musician wins by 1, so the other side tests on Ld - 1.
    With a musician on both sides (or neither) the combat is a draw: nobody tests."""
    for a_mus, d_mus, p_win in ((True, False, 1 - p_hold(6)), (True, True, 0.0)):
        chargers = unit(10, 5, "C", musician=a_mus)  # charge +1, ranks +1
        charged = unit(10, 5, "D", musician=d_mus, standard=True)  # standard +1, ranks +1
        rows = fights(scenario(chargers, charged))
        assert_probability(rows[0] == ATTACKER, p_win)
        assert_probability(rows[1] == UNRESOLVED, 1 - p_win)


def test_pursuit_swiftstride_restraint_and_frenzy():
    """R2-13: Swiftstride pursues on 3D6 dropping the lowest; a winner that would rather
    restrain must pass a Ld test, except when Frenzied (it must pursue). Its battle standard
    re-rolls a failed restraint test (R2-12, ``battle_standard_rerolls = "all"``, the
    default), or not (``"break"``)."""
    broke = 1 - p_hold(0)
    rear = dict(facing="rear")
    fast = unit(20, 5, "C", ["Swiftstride"], standard=True, battle_standard=True)
    rows = fights(scenario(fast, unit(20, 5, "D", standard=True), **rear))
    assert_probability(rows[1] == CAUGHT, broke * p_catch(SWIFT, TWO_D6))
    calm = unit(20, 5, "C", standard=True, battle_standard=True, profile=dict(Ld=8))
    for mode, tries in (("break", 1), ("all", 2)):
        rows = fights(scenario(calm, unit(20, 5, "D", standard=True), pursue=False,
                               rules={"battle_standard_rerolls": mode}, **rear))
        assert_probability(rows[1] == CAUGHT,
                           broke * (1 - p_le(TWO_D6, 8)) ** tries * p_catch())
    frenzied = unit(20, 5, "C", ["Frenzy"], standard=True, battle_standard=True)
    rows = fights(scenario(frenzied, unit(20, 5, "D", standard=True), pursue=False, **rear))
    assert_probability(rows[1] == CAUGHT, broke * p_catch())


def test_flee_as_a_charge_reaction():
    """R2-2: the charged unit flees 2D6; the charger (M 4 + 2D6) catches it when it reaches
    the charge distance plus the flee distance; otherwise there is no fight."""
    rows = fights(scenario(unit(10, 5, "C"), unit(10, 5, "D"), reaction="flee",
                           charge_distance=6))
    p = float(Fraction((4 + TWO_D6 - TWO_D6).probability(">=", 6)))
    assert_probability((rows[1] == CAUGHT) & (rows[0] == ATTACKER), p)
    assert_probability((rows[1] == NO_FIGHT) & (rows[0] == NONE), 1 - p)
    assert (rows[2] == 0).all()


def test_fear_makes_the_afraid_fight_at_ws1():
    """R2-7: facing a Fear-causing enemy, a unit tests Ld each round; failed, it is WS 1, so
    its enemy (WS 3) hits on 3+ instead of 4+ and wounds on 4+: the wounds of 5 attacks are
    Bin(5, 1/3) with P(fail Ld 5), else Bin(5, 1/4)."""
    striker = unit(5, 5, "S", ["Fear"], profile=dict(S=3))
    rows = fights(scenario(striker, unit(20, 5, "T", profile=dict(T=3, Ld=5))))
    fail = 1 - p_le(TWO_D6, 5)
    for k in range(6):
        exact = sum(w * math.comb(5, k) * p ** k * (1 - p) ** (5 - k)
                    for w, p in ((fail, 1 / 3), (1 - fail, 1 / 4)))
        assert_probability(rows[6] == k, exact)
