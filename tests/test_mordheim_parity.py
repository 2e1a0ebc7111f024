"""Statistical parity: the Mordheim numba kernel against the pure-Python reference
``tests/naive_mordheim.py`` on scenarios that together exercise R1-1 ... R1-12.

For each scenario both engines play fights with fixed seeds. The mean of every column after
``end`` (shared and extra) is compared by a two-sample z-score with standard error
sqrt(v / n_kernel + v / n_reference), v pooled from both samples: |z| < Z_MAX. P(winner, end)
for every combination seen is compared by the exact conditional test for two Poisson-binomial
counts (given the total count k, the reference's share is Binomial(k, n_ref / (n_ref + n_kernel))
under the null), two-sided p-value above P_MIN, the |z| = 4 level: exact also for the rare
outcomes (a 20-round stalemate) where a z-score on a handful of events is meaningless.
Nothing simulated is hard-coded.
"""
from __future__ import annotations

import math
from pathlib import Path

import naive_mordheim as naive
import numpy as np
import pytest
from scipy.stats import binomtest, norm
from test_mordheim_rules import W, kernel, scenario

import odds

Z_MAX = 4.0
P_MIN = 2 * norm.sf(Z_MAX)
KERNEL_TRIALS = 100_000
REFERENCE_TRIALS = 4_000
SCENARIOS = Path(__file__).resolve().parents[1] / "data" / "scenarios"

HERO = dict(WS=4, S=4, T=3, W=2, I=4, A=2, Ld=8)


def build(case: str):
    if case.endswith(".toml"):
        return odds.load(SCENARIOS / case)
    if case == "fear_and_helmets":  # R1-6, R1-8
        return scenario([W("Ghoul", ["club", "club"], causes_fear=True, WS=2, T=4, I=3, A=2)],
                        [W("Youngblood", ["sword", "shield", "helmet"], WS=3, Ld=6)])
    if case == "spear_against_double_handed":  # R1-2, R1-10 (strike first / strike last)
        return scenario([W("Champion", ["double-handed weapon", "light armour"], **HERO)],
                        [W("Spearman", ["spear", "shield", "helmet"], I=3)],
                        charger="defender")
    if case == "two_on_two_mixed":  # R1-3 pistol, heavy flail, morning star, concussion
        return scenario([W("Duellist", ["sword", "pistol"], I=4),
                         W("Flailer", ["flail", "heavy armour"], S=4)],
                        [W("Brute", ["morning star", "shield"], T=4, W=2),
                         W("Thug", ["mace", "dagger", "helmet"])])
    if case == "contact_list":  # R1-1
        return scenario([W("a", ["sword", "buckler"], W=2), W("b", ["axe", "axe"])],
                        [W("d", ["hammer"], count=2, I=4)],
                        contacts=[["a", "d 1"], ["b", "d 1"], ["b", "d 2"]])
    if case == "three_on_one_all_alone":  # R1-11
        return scenario([W("Henchman", ["dagger", "club"], count=3, WS=2)],
                        [W("Hero", ["sword", "buckler", "heavy armour", "helmet"], **HERO)])
    if case in SKILLS:
        return odds.from_dict(SKILLS[case])
    raise KeyError(case)


def _skilled(name, equipment, rules, **profile):
    return {**W(name, equipment, **profile), "rules": rules}


# skills and special rules (data/mordheim/special_rules.toml) in whole fights
SKILLS = {
    # R1-2 Strongman, Lightning Reflexes; R1-4 Hatred; R1-7 Mighty Blow, Resilient, Web of
    # Steel; R1-8 Step Aside; R1-9 Strike to Injure
    "skills_duel": {"ruleset": "mordheim", "name": "skills", "attacker": {"name": "A", "models": [
        _skilled("Hero", ["sword", "dagger"], ["Mighty Blow", "Web of Steel", "Hatred",
                                              "Strike to Injure"], **HERO)]},
        "defender": {"name": "D", "models": [
            _skilled("Champion", ["double-handed weapon", "light armour", "helmet"],
                     ["Strongman", "Step Aside", "Resilient", "Lightning Reflexes"],
                     WS=4, S=4, W=2, I=4)]}},
    # R1-6, R1-11 Frenzy: double A, no Fear or All Alone test until knocked down or stunned
    "frenzy_two_on_one": {"ruleset": "mordheim", "name": "frenzy", "attacker": {
        "name": "A", "models": [
            _skilled("Ghoul", ["club"], ["Fearsome"], WS=2, T=4),
            _skilled("Thug", ["mace", "helmet"], [], I=2)]},
        "defender": {"name": "D", "models": [
            _skilled("Flagellant", ["flail"], ["Frenzy"], W=2, Ld=6)]}},
    # the scenario's own rules: re-rolls of 1s to wound, criticals on 5+ with a Critical Hit
    # chart -1, injuries -1; -2 S to wound him and a 6+ special save; Immune to Psychology
    # alone against two (no All Alone test)
    "house_rules_two_on_one": {"ruleset": "mordheim", "name": "house", "special_rules": {
        "Grim": {"reroll_wound": "ones", "crit_on": 5, "critical_modifier": -1,
                 "injury_modifier": -1},
        "Ironhide": {"enemy_strength_modifier": -2, "special_save": 6}},
        "attacker": {"name": "A", "models": [
            _skilled("Zombie", [], ["Immune to Psychology", "Ironhide"], W=2, I=1),
        ]},
        "defender": {"name": "D", "models": [
            _skilled("Slayer", ["axe", "axe"], ["Grim"], count=2, WS=4, S=4, I=4)]},
        "engagement": {"charger": "defender"}},
}


CASES = ["mordheim_captain_vs_night_runner.toml", "mordheim_captain_vs_skaven.toml",
         "mordheim_two_on_one.toml", "fear_and_helmets", "spear_against_double_handed",
         "two_on_two_mixed", "contact_list", "three_on_one_all_alone", *SKILLS]


def z(a: np.ndarray, b: np.ndarray) -> float:
    pooled = np.concatenate([a, b]).astype(float)
    v = pooled.var()
    if v == 0:
        return 0.0
    return (a.mean() - b.mean()) / math.sqrt(v / len(a) + v / len(b))


@pytest.mark.parametrize("case", CASES)
def test_kernel_matches_reference_R1_1_to_R1_12(case):
    sc = build(case)
    fast = kernel(sc, KERNEL_TRIALS, seed=2024)
    slow = naive.play(sc, REFERENCE_TRIALS, seed=7)
    assert list(slow.columns) == list(fast.columns)
    pairs = set(zip(fast.winner, fast.end)) | set(zip(slow.winner, slow.end))
    for w, e in sorted(pairs):
        a = int(((fast.winner == w) & (fast.end == e)).sum())
        b = int(((slow.winner == w) & (slow.end == e)).sum())
        share = len(slow) / (len(slow) + len(fast))
        p = binomtest(b, a + b, share).pvalue
        assert p > P_MIN, f"{case}: P(winner={w}, end={e}): {a}/{len(fast)} vs {b}/{len(slow)}"
    for column in fast.columns[2:]:
        value = z(fast[column].to_numpy(), slow[column].to_numpy())
        assert abs(value) < Z_MAX, f"{case}: mean {column}: z={value:.2f}"
