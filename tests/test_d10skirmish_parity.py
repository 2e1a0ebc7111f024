"""Statistical parity: the d10skirmish numba kernel (``odds.simulate``) against the pure-Python
reference ``tests/naive_d10skirmish.py``, on scenarios that together exercise every rule and
parameter of odds/rulesets/d10skirmish/README.md (RULES.md R3-2 ... R3-9, §4.2, A1-A6).

Both engines play fights with fixed seeds (the kernel KERNEL_TRIALS, the reference a few
thousand). Compared: P(winner, end) for every combination either engine produced, and the
means of every other outcome column. Each comparison is a two-sample z-score whose standard
error adds both samples' terms, with the variance pooled from both samples (so an outcome too
rare for the small reference sample to see gives no spurious z); |z| < Z_MAX each.
"""
from __future__ import annotations

import math
from pathlib import Path

import naive_d10skirmish as naive
import pandas as pd
import pytest

import odds

Z_MAX = 4.0
KERNEL_TRIALS = 200_000
KERNEL_SEED = 8675309
REFERENCE_SEED = 4242
MEANS = ("rounds", "attacker_lost", "defender_lost", "attacker_wounds", "defender_wounds",
         "exchanges", "pushed")
SCENARIOS = Path(__file__).resolve().parents[1] / "data" / "scenarios"


def F(name, ms, ap=2, w=1, arm=0, dmg=1, m=None, **group):
    """One fighter: profile values (m: its move M, R3-1), then group keys (equipment, base,
    adjust, adjust_for)."""
    profile = {"MS": ms, "AP": ap, "W": w, "ARM": arm, "DMG": dmg}
    return {"name": name, "count": 1,
            "profile": profile if m is None else {**profile, "M": m}, **group}


def scenario(a, b, max_rounds=10, weapons=None, apart=None, **engagement):
    """A fight of fighters a and b; ``apart``: the charger's side keys (distance,
    line_of_sight, R3-1)."""
    sides = {"attacker": {"name": "A", "models": [a]}, "defender": {"name": "D", "models": [b]}}
    sides[engagement.get("charger", "attacker")].update(apart or {})
    data = {"ruleset": "d10skirmish", "name": "parity", **sides,
            "engagement": engagement, "simulation": {"max_rounds": max_rounds}}
    if weapons:
        data["weapons"] = weapons
    return odds.from_dict(data)


def bundled(name, **engagement):
    sc = odds.load(SCENARIOS / f"d10skirmish_{name}.toml")
    sc.engagement.update(engagement)
    return sc.validated()


VETERAN = dict(ms=6, ap=3, w=3, arm=3)
GUARD = dict(ms=5, ap=2, w=3, arm=2)

CASES = {
    "R3-2_R3-3_R3-5_R3-7_bundled_trooper_vs_sniper": lambda: bundled("trooper_charges_sniper"),
    "R3-8_bundled_flee": lambda: bundled("trooper_charges_sniper", reaction="flee"),
    "R3-8_flee_in_turn_2-R3-4_one_die_back": lambda: scenario(
        F("V", **VETERAN), F("G", **GUARD), charged_ap_left=0, reaction="flee"),
    # G never has the 3 AP a reaction needs, so it never flees; V (4 AP) does react, in
    # turn 2 when G starts, and fights back: only the charged fighter may flee
    "R3-8_only_the_charged_flees-R3-4_reaction_ap_3-turn_order_alternate": lambda: scenario(
        F("V", **{**VETERAN, "ap": 4}), F("G", **GUARD), reaction="flee", reaction_ap=3,
        turn_order="alternate"),
    "R3-4_charged_ap_left_1-A1_multiwound": lambda: scenario(
        F("V", **VETERAN), F("G", **GUARD), charged_ap_left=1),
    "R3-2_opening_does_not_end_activation-defender_charges": lambda: scenario(
        F("G", **GUARD), F("V", **VETERAN), charger="defender", opening_ends_activation=False),
    "R3-4_reaction_ap_1-melee_attack_ap_2": lambda: scenario(
        F("V", **{**VETERAN, "ap": 4}), F("G", **{**GUARD, "ap": 3}), reaction_ap=1,
        melee_attack_ap=2),
    "R3-4_reaction_ap_2-turn_order_alternate": lambda: scenario(
        F("V", **{**VETERAN, "ap": 4}), F("G", **GUARD), reaction_ap=2, turn_order="alternate"),
    "R3-6_both_turn_dice_hits_vs_blocks": lambda: scenario(
        F("V", **VETERAN, adjust=1), F("G", **{**GUARD, "ms": 7}, adjust=1,
                                       adjust_for="blocks")),
    "R3-6_turn_2_and_3_dice-R3-7_turned_crits_never_blocked": lambda: scenario(
        F("V", **VETERAN, adjust=2, adjust_for="blocks"), F("G", **GUARD, adjust=3),
        crit_blockable="never", adjust_can_create_crit=True),
    "A3_crit_double-A2_armour-A1_DMG_2": lambda: scenario(
        F("V", **{**VETERAN, "arm": 5}), F("G", **{**GUARD, "dmg": 2, "w": 4}),
        crit_mode="double"),
    "A3_crit_both-A4_weapons-R3-3_extra_attacks": lambda: scenario(
        F("V", **VETERAN, equipment=["melee weapon", "extra melee weapon", "spiked gauntlet"]),
        F("G", **GUARD, equipment=["maul"]), crit_mode="both",
        weapons={"spiked gauntlet": {"skill": -1, "damage": 1}, "maul": {"damage": 2}}),
    "R3-9_push_fall_damage-opening_does_not_end_activation": lambda: scenario(
        F("V", **VETERAN, base=32), F("G", **GUARD, base=32), opening="push", fall_damage=2,
        push_ap=1, opening_ends_activation=False),
    "R3-9_push_by_defender_no_fall-charged_ap_left_0": lambda: scenario(
        F("G", **GUARD, base=25), F("V", **VETERAN, base=40), charger="defender",
        opening="push", fall_damage=0, charged_ap_left=0),
    "A5_max_rounds_unresolved": lambda: scenario(
        F("W", ms=3, ap=2, w=6, arm=8), F("W", ms=4, ap=2, w=6, arm=7), max_rounds=4),
    "A6_mutual_destruction": lambda: scenario(F("A", ms=10, ap=2), F("B", ms=10, ap=2)),
    "R3-6_A4_bundled_blademaster_vs_brute": lambda: bundled("blademaster_vs_brute"),
    "R3-9_bundled_paratrooper_pushes_sniper": lambda: bundled("paratrooper_pushes_sniper"),
    # R3-1: moving into reach, then the charge with the AP left; moving into contact unseen
    "R3-1_moves_then_charges_with_no_AP_left": lambda: scenario(
        F("V", **VETERAN, m=4), F("G", **GUARD), apart={"distance": 10}),
    "R3-1_waits_a_turn_for_the_AP-move_ap_2": lambda: scenario(
        F("V", **{**VETERAN, "ap": 4}, m=5), F("G", **GUARD), apart={"distance": 17},
        move_ap=2),
    "R3-1_unseen_moves_into_contact-alternate": lambda: scenario(
        F("V", **VETERAN, m=4), F("G", **GUARD), apart={"distance": 10, "line_of_sight": False},
        turn_order="alternate", reaction_ap=1),
    "R3-1_contact_in_turn_2-alternate_from_there": lambda: scenario(
        F("V", **VETERAN, m=4), F("G", **GUARD), apart={"distance": 14},
        turn_order="alternate"),
    "R3-1_push_from_afar-defender_charges": lambda: scenario(
        F("G", **GUARD, base=32), F("V", **VETERAN, base=32, m=3), charger="defender",
        opening="push", push_ap=1, apart={"distance": 11.5}),
}
REFERENCE_TRIALS = 3000


# --- statistics ----------------------------------------------------------------------------

def z_score(x1: float, s1: float, n1: int, x2: float, s2: float, n2: int) -> float:
    """z of mean1 - mean2 from sums x and sums of squares s, variance pooled."""
    mean = (x1 + x2) / (n1 + n2)
    var = max(0.0, (s1 + s2) / (n1 + n2) - mean * mean)
    se = math.sqrt(var / n1 + var / n2)
    diff = x1 / n1 - x2 / n2
    if se == 0:
        return 0.0 if diff == 0 else math.inf
    return diff / se


def disagreements(kernel: pd.DataFrame, reference: pd.DataFrame) -> list[str]:
    """Every statistic with |z| >= Z_MAX, described; empty when the engines agree."""
    bad = []
    n1, n2 = len(kernel), len(reference)
    outcome1 = kernel["winner"].astype(int) * 10 + kernel["end"].astype(int)
    outcome2 = reference["winner"] * 10 + reference["end"]
    for code in sorted(set(outcome1) | set(outcome2)):
        k1, k2 = int((outcome1 == code).sum()), int((outcome2 == code).sum())
        z = z_score(k1, k1, n1, k2, k2, n2)  # 0/1 values: sum of squares = sum
        if abs(z) >= Z_MAX:
            bad.append(f"P(winner {code // 10}, end {code % 10}): kernel {k1 / n1:.4f}, "
                       f"reference {k2 / n2:.4f}, z = {z:.2f}")
    for column in MEANS:
        a, b = kernel[column].astype(float), reference[column].astype(float)
        z = z_score(a.sum(), (a * a).sum(), n1, b.sum(), (b * b).sum(), n2)
        if abs(z) >= Z_MAX:
            bad.append(f"mean {column}: kernel {a.mean():.4f}, reference {b.mean():.4f}, "
                       f"z = {z:.2f}")
    return bad


def kernel_fights(sc) -> pd.DataFrame:
    frame = odds.simulate(sc, trials=KERNEL_TRIALS, seed=KERNEL_SEED, keep_fights=True).fights()
    frame["winner"] = frame["winner"].cat.codes
    frame["end"] = frame["end"].cat.codes
    return frame


# --- the tests -----------------------------------------------------------------------------

@pytest.mark.parametrize("case", CASES)
def test_kernel_matches_reference(case):
    """Kernel vs reference: P(winner, end) and the mean of every column, |z| < 4 each. The
    test id names the rules the scenario exercises."""
    sc = CASES[case]()
    bad = disagreements(kernel_fights(sc), naive.play(sc, REFERENCE_TRIALS, REFERENCE_SEED))
    assert not bad, f"{case}: kernel and reference disagree:\n  " + "\n  ".join(bad)


def test_every_rule_is_covered():
    """The cases name R3-1 ... R3-9."""
    named = " ".join(CASES)
    for rule in range(1, 10):
        assert f"R3-{rule}_" in named or f"R3-{rule}-" in named, f"R3-{rule} not covered"


def test_parity_check_detects_a_difference_R3_8():
    """The comparison has power: fight against flee (the policies the user compares)."""
    fight = kernel_fights(CASES["R3-2_R3-3_R3-5_R3-7_bundled_trooper_vs_sniper"]())
    flee = naive.play(CASES["R3-8_bundled_flee"](), REFERENCE_TRIALS, REFERENCE_SEED)
    assert disagreements(fight, flee)
