"""Whole d10skirmish fights from the kernel against exact results (RULES.md §4, README.md of
the ruleset): one-exchange fights against the exact law of wounds (A1-A3, A6, R3-4), fleeing
(R3-8), the push (R3-9), the AP schedule counted exactly (R3-2, R3-4, §4.2(6)-(7)), and the
engine contracts (reproducible whatever the threads, the shared JSON keys).

Exact laws are enumerated over all dice rolls with ``exchange.resolve`` and combined with the
binomial armour rolls in fractions; simulated frequencies are compared with a chi-square test
(p > P_MIN) or a binomial z bound (|z| < Z_MAX), fixed seeds.
"""
from __future__ import annotations

import itertools
import json
import subprocess
import sys
from collections import Counter
from fractions import Fraction

from stats import assert_rate
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import chi2

import odds
from odds.core import runner
from odds.core.outcome import ATTACKER, DEFENDER, DESTROYED, MUTUAL, NONE, UNRESOLVED
from odds.rulesets import get_ruleset
from odds.rulesets.d10skirmish import rules
from naive_exchange import Roller, resolve

P_MIN = 1e-4
TRIALS = 200_000
SEED = 161803
TROOPER = (Path(__file__).resolve().parents[1] / "data" / "scenarios"
           / "d10skirmish_trooper_charges_sniper.toml")


def fighter(name, ms, ap=2, w=1, arm=0, dmg=1, **group):
    return {"name": name, "count": 1, "profile": {"MS": ms, "AP": ap, "W": w, "ARM": arm,
                                                  "DMG": dmg}, **group}


def scenario(a, b, max_rounds=10, **engagement):
    return odds.from_dict({"ruleset": "d10skirmish", "name": "fight",
                           "attacker": {"name": "A", "models": [a]},
                           "defender": {"name": "D", "models": [b]},
                           "engagement": engagement, "simulation": {"max_rounds": max_rounds}})


def fights(sc, trials=TRIALS, seed=SEED):
    return odds.simulate(sc, trials=trials, seed=seed, keep_fights=True).fights()




def assert_law(counts: dict, law: dict, what: str) -> None:
    """Observed counts of outcomes against an exact law: nothing outside its support, and a
    chi-square test (expected counts below 5 pooled, at least 3 bins) with p > P_MIN."""
    n = sum(counts.values())
    assert sum(law.values()) == 1
    outside = [k for k in counts if counts[k] and law.get(k, 0) == 0]
    assert not outside, f"{what}: impossible outcomes {outside[:5]}"
    observed, expected, pool_o, pool_e = [], [], 0.0, 0.0
    for k, p in sorted(law.items(), key=lambda kv: kv[1], reverse=True):
        pool_o, pool_e = pool_o + counts.get(k, 0), pool_e + float(p) * n
        if pool_e >= 5:
            observed.append(pool_o)
            expected.append(pool_e)
            pool_o = pool_e = 0.0
    observed[-1] += pool_o
    expected[-1] += pool_e
    observed, expected = np.array(observed), np.array(expected)
    assert len(expected) >= 3, what
    stat = float(((observed - expected) ** 2 / expected).sum())
    df = len(expected) - 1
    p_value = float(chi2.sf(stat, df))
    assert p_value > P_MIN, f"{what}: chi-square {stat:.1f}, {df} df, p {p_value:.1e}"


# --- exact law of one exchange's wounds (A1, A2, A3, A6, R3-4) ------------------------------

def damage_law(crits: int, hits: int, striker, target, crit_mode: str) -> dict[int, Fraction]:
    """Wounds dealt by the landed hits: each hit unsaved with P(D10 > ARM) deals DMG (A2); a
    critical per crit_mode (A3)."""
    unsaved = Fraction(10 - target.armour, 10)
    law = {0: Fraction(1)}

    def add(p_through: Fraction, wounds: int):
        out = Counter()
        for w, p in law.items():
            out[w + wounds] += p * p_through
            out[w] += p * (1 - p_through)
        return dict(out)

    for _ in range(hits):
        law = add(unsaved, striker.damage)
    for _ in range(crits):
        law = add(Fraction(1) if crit_mode in ("ignore_armour", "both") else unsaved,
                  striker.damage * (1 if crit_mode == "ignore_armour" else 2))
    return law


def one_exchange_law(sc) -> dict[tuple[int, int], Fraction]:
    """Exact law of (attacker wounds lost, defender wounds lost) when the fight is the charge
    exchange alone and the charged fighter has no AP: it answers with 1 die (R3-4)."""
    a, d = rules.fighters(sc)
    e = sc.engagement
    options = dict(crit_blockable=e["crit_blockable"],
                   adjust_can_create_crit=e["adjust_can_create_crit"])
    law = Counter()
    for roll in itertools.product(range(1, 11), repeat=a.attacks + 1):
        la, ld = resolve(roll[:a.attacks], Roller(a.skill), roll[a.attacks:], Roller(d.skill),
                         **options)
        to_d = damage_law(la.crits, la.hits, a, d, e["crit_mode"])
        to_a = damage_law(ld.crits, ld.hits, d, a, e["crit_mode"])
        for (wa, pa), (wd, pd) in itertools.product(to_a.items(), to_d.items()):
            law[min(wa, a.wounds), min(wd, d.wounds)] += pa * pd * Fraction(1, 10**len(roll))
    return dict(law)


@pytest.mark.parametrize("crit_mode", ["ignore_armour", "double", "both"])
def test_one_exchange_fight_matches_exact_wounds_A1_A2_A3_A6_R3_4(crit_mode):
    """Charge (R3-2) against a fighter with no AP left: it answers with exactly 1 die (R3-4);
    max_rounds = 1 leaves that one exchange. The joint law of wounds lost (multi-wound, DMG 2,
    armour, criticals per crit_mode) and the end it implies: both down together is mutual
    destruction (A6), one down is destroyed, neither is unresolved (A5)."""
    sc = scenario(fighter("A", 6, ap=2, w=3, arm=3, dmg=1), fighter("D", 5, w=2, arm=2, dmg=2),
                  max_rounds=1, charged_ap_left=0, crit_mode=crit_mode)
    law = one_exchange_law(sc)
    frame = fights(sc)
    assert (frame["exchanges"] == 1).all()
    counts = Counter(zip(frame["attacker_wounds"], frame["defender_wounds"]))
    assert_law(counts, law, f"crit_mode {crit_mode}")
    a_down, d_down = frame["attacker_wounds"] == 3, frame["defender_wounds"] == 2
    assert (frame["attacker_lost"] == a_down).all() and (frame["defender_lost"] == d_down).all()
    expected_end = np.select([a_down & d_down, a_down | d_down], [MUTUAL, DESTROYED], UNRESOLVED)
    expected_winner = np.select([a_down & d_down, d_down, a_down], [NONE, ATTACKER, DEFENDER],
                                NONE)
    assert (frame["end"].cat.codes == expected_end).all()
    assert (frame["winner"].cat.codes == expected_winner).all()


def test_one_exchange_fight_detects_a_wrong_crit_mode_A3():
    """The comparison has power: crit_mode "double" sampled against the "both" law fails."""
    kw = dict(max_rounds=1, charged_ap_left=0)
    a, d = fighter("A", 6, ap=2, w=3, arm=3), fighter("D", 5, w=2, arm=2, dmg=2)
    frame = fights(scenario(a, d, crit_mode="double", **kw))
    counts = Counter(zip(frame["attacker_wounds"], frame["defender_wounds"]))
    with pytest.raises(AssertionError):
        assert_law(counts, one_exchange_law(scenario(a, d, crit_mode="both", **kw)), "wrong")


# --- fleeing (R3-8) -------------------------------------------------------------------------

def test_flee_takes_all_hits_then_leaves_R3_8():
    """The issue's scenario with reaction = "flee": the sniper rolls no dice, takes the
    trooper's 3 dice (hit on 2..6 saved by ARM 2 on 1..2 of a D10, critical on 1 ignores
    armour): P(no wound) = (1 - 1/10 - 5/10 * 8/10)^3 = 1/8; then it has fled."""
    sc = odds.load(TROOPER)
    sc.engagement["reaction"] = "flee"
    frame = fights(sc.validated())
    assert (frame["exchanges"] == 1).all() and (frame["attacker_wounds"] == 0).all()
    fled = (frame["end"] == "fled").to_numpy()
    assert_rate(int(fled.sum()), len(frame), Fraction(1, 8), "sniper flees")
    assert (frame["winner"][fled] == "attacker").all()
    assert (frame["end"][~fled] == "destroyed").all()


def test_no_AP_left_cannot_flee_R3_4_R3_8():
    """With no AP left (charged_ap_left = 0) the charged fighter may not flee: it answers with
    one die, whatever its policy, and nobody leaves."""
    sc = scenario(fighter("A", 6, ap=2, w=20), fighter("D", 5, w=20), max_rounds=1,
                  charged_ap_left=0, reaction="flee")
    frame = fights(sc, trials=20_000)
    assert (frame["end"] == "unresolved").all()
    assert frame["attacker_wounds"].max() == 1  # one die back: at most one wound


# --- the push (R3-9) ------------------------------------------------------------------------

@pytest.mark.parametrize("fall_damage, wounds", [(1, 2), (2, 2), (0, 1)])
def test_push_is_an_MS_test_and_ends_the_melee_R3_9(fall_damage, wounds):
    """The push succeeds with P(D10 <= MS) = 6/10: the target takes fall_damage and is out of
    contact (destroyed if that is all its W, else driven off: fled); a failed push leaves the
    pusher in contact with its activation over, and the target (already activated, no AP)
    does nothing: unresolved after the one turn."""
    sc = scenario(fighter("A", 6, ap=3, w=2, base=32), fighter("D", 4, w=wounds, base=25),
                  max_rounds=1, opening="push", fall_damage=fall_damage, charged_ap_left=0)
    frame = fights(sc)
    pushed = (frame["pushed"] == 1).to_numpy()
    assert_rate(int(pushed.sum()), len(frame), Fraction(6, 10), "push succeeds")
    down = fall_damage >= wounds
    assert (frame["end"][pushed] == ("destroyed" if down else "fled")).all()
    assert (frame["winner"][pushed] == "attacker").all()
    assert (frame["defender_wounds"][pushed] == min(fall_damage, wounds)).all()
    assert (frame["end"][~pushed] == "unresolved").all()
    assert (frame["exchanges"] == 0).all()


# --- the AP schedule, counted exactly (R3-2, R3-4, §4.2(6)-(7), turn order) -----------------

# Fighters of MS 2 (1 die each) and W 20 cannot go down in 3 turns (at most 1 wound an
# exchange, at most 15 exchanges), so every fight runs to the cap and its number of
# exchanges is fixed by the AP rules alone.
SCHEDULES = [
    # (id, charger AP, charged AP, engagement, exchanges)
    # turn 1: charge (2 of 3 AP), activation over; charged: 2 exchanges; turns 2-3: 3 + 2
    ("R3-2_charge_costs_2_AP_then_turns", 3, 2, {}, 1 + 2 + 5 + 5),
    # §4.2(7): the charger spends its last AP in turn 1 too
    ("R3-2_opening_does_not_end_activation", 3, 2, {"opening_ends_activation": False},
     2 + 2 + 5 + 5),
    # §4.2(7): 2 AP an exchange: 1 (of 3 AP) and 1 (of 2) in later turns
    ("R3-2_melee_attack_ap_2", 3, 2, {"melee_attack_ap": 2}, 1 + 1 + 2 + 2),
    # R3-4: the charged fighter had activated already: no turn-1 activation
    ("R3-4_charged_ap_left_0", 3, 2, {"charged_ap_left": 0}, 1 + 5 + 5),
    # §4.2(6): reacting costs 1 AP: turn 1 the charged has 1 AP left for 1 exchange; later
    # turns the charged spends its 2 AP answering the charger's 3 exchanges
    ("R3-4_reaction_ap_1", 3, 2, {"reaction_ap": 1}, 2 + 3 + 3),
    # reacting costs 2: the starter of a turn leaves the other nothing; who starts matters
    ("R3-4_reaction_ap_2_charger_first", 4, 2, {"reaction_ap": 2}, 1 + 4 + 4),
    ("R3-4_reaction_ap_2_alternate", 4, 2, {"reaction_ap": 2, "turn_order": "alternate"},
     1 + 2 + 4),
    ("R3-2_defender_charges", 2, 3, {"charger": "defender"}, 1 + 3 + 5 + 5),
]


@pytest.mark.parametrize("ap_charger, ap_charged, engagement, exchanges",
                         [pytest.param(*s[1:], id=s[0]) for s in SCHEDULES])
def test_exchanges_follow_the_AP_rules_exactly(ap_charger, ap_charged, engagement, exchanges):
    charger_first = engagement.get("charger", "attacker") == "attacker"
    aps = (ap_charger, ap_charged) if charger_first else (ap_charged, ap_charger)
    sc = scenario(fighter("A", 2, ap=aps[0], w=20), fighter("D", 2, ap=aps[1], w=20),
                  max_rounds=3, **engagement)
    frame = fights(sc, trials=5000)
    assert (frame["end"] == "unresolved").all() and (frame["rounds"] == 3).all()
    assert (frame["exchanges"] == exchanges).all(), frame["exchanges"].value_counts()


def test_a_failed_push_leaves_the_fight_to_the_AP_rules_R3_9():
    """A failed push (20% at MS 2) ends the pusher's activation; then 2 + 5 + 5 exchanges."""
    sc = scenario(fighter("A", 2, ap=3, w=20), fighter("D", 2, ap=2, w=20), max_rounds=3,
                  opening="push", fall_damage=0)
    frame = fights(sc, trials=5000)
    pushed = frame["pushed"] == 1
    assert (frame["exchanges"] == np.where(pushed, 0, 12)).all()
    assert 0 < pushed.mean() < 1


# --- engine contracts and the shared outcome keys -------------------------------------------

def test_same_seed_same_fights_whatever_threads_and_chunks():
    """Bit-identical per-fight rows with 1 or 2 threads and any chunk size (DESIGN)."""
    sc = odds.load(TROOPER)
    ruleset = get_ruleset("d10skirmish")
    plan = ruleset.compile(sc)
    records = []
    for threads, chunk in ((1, runner.CHUNK), (2, runner.CHUNK), (2, 777)):
        runner.set_threads(threads)
        records.append(runner.run(ruleset, plan, 5000, 7, keep_fights=True, chunk=chunk)[1])
    runner.set_threads(None)
    assert records[0].shape == (9, 5000)
    assert np.array_equal(records[0], records[1]) and np.array_equal(records[0], records[2])


def test_json_has_the_shared_keys():
    """`odds simulate --json` gives the keys every ruleset gives (tests/test_cli.py)."""
    from test_cli import JSON_KEYS

    run = subprocess.run([sys.executable, "-m", "odds", "simulate", str(TROOPER), "--trials",
                          "20000", "--seed", "4", "--json"], capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert all(key in out for key in JSON_KEYS)
    assert out["ruleset"] == "d10skirmish" and out["trials"] == 20000
    assert out["attacker_wins"] + out["defender_wins"] + out["both_destroyed"] + \
        out["unresolved"] == pytest.approx(1.0)
