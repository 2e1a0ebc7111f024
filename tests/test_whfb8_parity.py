"""Statistical parity: the whfb8 numba kernel against the pure-Python reference
tests/naive_whfb8.py (one real die at a time) on scenarios that together exercise every rule
of RULES.md §3 (R2-1 ... R2-14) in both supporting-attack variants.

For each scenario the kernel plays KERNEL_TRIALS fights and the reference REFERENCE_TRIALS,
with fixed seeds; P(winner, end) for every combination either engine produced and the means of
rounds, models lost and wounds taken are compared by a two-sample z-score, whose standard
error adds both samples' terms with the variance pooled from both. Every |z| must be < 4.
"""
from __future__ import annotations

import math
import random
from pathlib import Path

import naive_whfb8 as naive
import numpy as np
import pytest

import odds
from odds.core import runner
from odds.core.outcome import COLUMNS
from odds.rulesets import get_ruleset

Z_MAX = 4.0
KERNEL_TRIALS = 100_000
REFERENCE_TRIALS = 5_000
SCENARIOS = Path(__file__).resolve().parents[1] / "data" / "scenarios"

GOBLIN = dict(M=4, WS=2, S=3, T=3, W=1, I=3, A=1, Ld=5)
WARRIOR = dict(M=4, WS=5, S=4, T=4, W=1, I=5, A=1, Ld=8)
STATE_TROOP = dict(M=4, WS=3, S=3, T=3, W=1, I=3, A=1, Ld=7)
KNIGHT = dict(M=4, WS=4, S=4, T=3, W=1, I=3, A=1, Ld=8)
OGRE = dict(M=6, WS=3, S=4, T=4, W=3, I=2, A=3, Ld=7)
WARHORSE = dict(WS=3, S=3, I=3, A=1)


def unit(name, count, width, profile, equipment=(), rules=(), group=None, **side):
    return {"name": name, "width": width, **side,
            "models": [{"name": name, "count": count, "profile": profile,
                        "equipment": list(equipment), "rules": list(rules), **(group or {})}]}


def scenario(attacker, defender, max_rounds=10, rules=None, special_rules=None, **engagement):
    return odds.from_dict({"ruleset": "whfb8", "name": "parity", "attacker": attacker,
                           "defender": defender, "engagement": engagement,
                           "rules": rules or {}, "special_rules": special_rules or {},
                           "simulation": {"max_rounds": max_rounds}})


def build(case: str):
    """The scenario of one parity case (built lazily so collection stays cheap)."""
    if case == "bundled_8e":  # R2-1, R2-5, R2-6, R2-10, R2-11, R2-12, R2-13, R2-14
        return odds.load(SCENARIOS / "whfb8_chaos_warriors_vs_goblin_horde.toml")
    if case == "bundled_resurrection":  # R2-5 in the seed's variant
        data = odds.load(SCENARIOS / "whfb8_chaos_warriors_vs_goblin_horde.toml").to_dict()
        data["rules"] = {"supporting_attacks": "resurrection"}
        return odds.from_dict(data)
    if case == "lance_charge":  # R2-9 (mounted, barding), R2-10 (lance, halberd), R2-13
        knights = unit("Knights", 8, 4, KNIGHT, ["lance", "shield", "heavy armour", "barding"],
                       ["Swiftstride"], {"troop_type": "cavalry", "mount": WARHORSE},
                       standard=True, musician=True, champion=True)
        return scenario(knights, unit("Halberdiers", 20, 5, STATE_TROOP,
                                      ["halberd", "light armour"], standard=True))
    if case == "flank_spears":  # R2-3 flank contact, R2-5 no support to the flank, disrupted
        return scenario(unit("Warriors", 15, 5, WARRIOR, ["halberd", "heavy armour", "shield"]),
                        unit("Spears", 30, 6, STATE_TROOP, ["spear", "shield"], standard=True),
                        facing="flank", max_rounds=6)
    if case == "monstrous_parry_defender_charges":  # R2-4 AHW, R2-9 parry, multi-W, R2-11
        ogres = unit("Ogres", 9, 3, OGRE, ["additional hand weapon", "light armour"],
                     group={"troop_type": "monstrous infantry"}, musician=True)
        swords = unit("Swordsmen", 30, 5, {**STATE_TROOP, "WS": 4, "I": 4},
                      ["shield", "light armour"], standard=True, musician=True)
        return scenario(swords, ogres, facing="front", charger="defender", max_rounds=8)
    if case == "monstrous_horde_rear":  # R2-5 monstrous support (A3: 3 each), rear +2
        ogres = unit("Ogres", 10, 5, OGRE, ["great weapon", "light armour"],
                     group={"troop_type": "monstrous infantry"})
        return scenario(ogres, unit("Guard", 25, 5, STATE_TROOP, ["halberd", "light armour"],
                                    ["Stubborn"]), facing="rear", max_rounds=6)
    if case == "psychology":  # R2-7 Fear, Hatred, Frenzy; R2-12 general, battle standard
        zealots = unit("Zealots", 20, 5, {**STATE_TROOP, "Ld": 6},
                       ["additional hand weapon"], ["Hatred", "Frenzy"], musician=True,
                       champion=True)
        horrors = unit("Horrors", 16, 4, {**WARRIOR, "WS": 3, "I": 2, "Ld": 6}, ["hand weapon"],
                       ["Fear"], battle_standard=True, general_Ld=9)
        return scenario(zealots, horrors, max_rounds=8, pursue=False)
    if case == "asf_asl_weapons_wards":  # R2-6 ASF/ASL cancel, R2-9 ward, Sv, R2-10 flail
        elves = unit("Elves", 15, 5, {**STATE_TROOP, "WS": 4, "I": 5, "Sv": 4, "Ward": 5},
                     ["great weapon"], ["Always Strikes First"])
        flails = unit("Flagellants", 20, 5, {**STATE_TROOP, "Ward": 6}, ["flail"],
                      ["Unbreakable"], in_contact=4)
        return scenario(flails, elves, max_rounds=6)
    if case == "morning_star_asf_reroll":  # R2-6 ASF re-roll, R2-10 morning star
        return scenario(unit("Elves", 12, 6, {**STATE_TROOP, "I": 5}, ["spear"],
                             ["Always Strikes First"]),
                        unit("Dwarfs", 15, 5, {**STATE_TROOP, "T": 4, "I": 2},
                             ["morning star", "heavy armour"]),
                        rules={"supporting_attacks": "resurrection"}, max_rounds=6)
    if case == "flee_reaction":  # R2-2
        return scenario(unit("Wolves", 6, 3, {**GOBLIN, "M": 9}, rules=["Swiftstride"]),
                        unit("Goblins", 20, 5, GOBLIN), reaction="flee", charge_distance=8)
    if case == "equal_initiative_mutual":  # R2-6 simultaneous blows
        duel = dict(M=4, WS=5, S=5, T=3, W=1, I=3, A=3, Ld=10)
        return scenario(unit("A", 2, 2, duel, rules=["Unbreakable"]),
                        unit("B", 2, 2, duel, rules=["Unbreakable"]), max_rounds=5)
    if case == "special_rules":  # R2-7 ... R2-9 special rules: poison, KB, AP, regeneration
        assassins = unit("Witch Elves", 15, 5, {**STATE_TROOP, "WS": 4, "I": 6},
                         ["additional hand weapon"], ["Poisoned Attacks", "Killing Blow",
                                                      "Hatred", "Devastating Charge"])
        trolls = unit("Ghouls", 20, 5, {**STATE_TROOP, "T": 4}, ["light armour", "shield"],
                      ["Regeneration", "Fear"], standard=True)
        return scenario(assassins, trolls, max_rounds=6)
    if case == "house_rules":  # data-only rules: re-rolls, modifiers, flaming, ItP
        own = {"Zeal": {"reroll_wound": "failures", "hit_modifier": -1, "armour_piercing": 1,
                        "enemy_rerolls_armour": True},
               "Warded": {"reroll_armour": "ones", "reroll_ward": "failures"}}
        return scenario(unit("Zealots", 16, 4, STATE_TROOP, ["halberd"],
                             ["Zeal", "Flaming Attacks", "Immune to Psychology"]),
                        unit("Wights", 16, 4, {**STATE_TROOP, "Ld": 8},
                             ["heavy armour", "shield"], ["Regeneration", "Fear", "Warded"]),
                        max_rounds=6, special_rules=own)
    if case == "rolled_hits":  # R2-4 Random Attacks, Impact Hits at I10, Stomps at I0
        ogres = unit("Ogres", 6, 3, OGRE, ["light armour"],
                     ["Impact Hits (D3)", "Stomp", "Random Attacks (D3)"],
                     {"troop_type": "monstrous infantry"})
        return scenario(ogres, unit("Halberdiers", 20, 5, STATE_TROOP,
                                    ["halberd", "light armour"], ["Cold-blooded"],
                                    standard=True), max_rounds=6)
    if case == "slaying_multiple_wounds":  # R2-8 Multiple Wounds, Killing Blow on W2; Unstable
        slayers = unit("Slayers", 12, 4, {**STATE_TROOP, "WS": 5, "T": 4, "Ld": 10},
                       ["additional hand weapon"], ["Heroic Killing Blow", "Multiple Wounds (D3)",
                                                    "Unbreakable"])
        wights = unit("Wights", 10, 5, {**STATE_TROOP, "W": 2, "Ld": 8},
                      ["heavy armour", "shield"], ["Unstable", "Fear"], musician=True)
        return scenario(slayers, wights, max_rounds=6)
    if case == "instability_numbers":  # R2-12 Daemonic Instability, Strength in Numbers
        clanrats = unit("Clanrats", 30, 6, {**GOBLIN, "Ld": 5}, ["spear", "shield"],
                        ["Strength in Numbers"], standard=True)
        daemons = unit("Bloodletters", 12, 4, {**WARRIOR, "Ld": 8}, ["hand weapon"],
                       ["Daemonic Instability", "Fear"], battle_standard=True)
        return scenario(daemons, clanrats, max_rounds=8)
    if case.startswith("asf_both_"):  # R2-6 both Always Strike First: one step, no re-roll
        elves = unit("Elves", 12, 6, {**STATE_TROOP, "WS": 4, "I": 5}, ["spear"],
                     ["Always Strikes First"])
        guard = unit("Guard", 15, 5, {**STATE_TROOP, "WS": 4, "I": 4}, ["halberd"],
                     ["Always Strikes First"], standard=True)
        return scenario(elves, guard, max_rounds=6,
                        rules={"same_strike_order": case.removeprefix("asf_both_")})
    if case == "asl_both_simultaneous":  # R2-6 both Always Strike Last: one step
        return scenario(unit("Warriors", 10, 5, WARRIOR, ["great weapon", "heavy armour"]),
                        unit("Greatswords", 15, 5, {**STATE_TROOP, "I": 2},
                             ["great weapon", "light armour"], musician=True), max_rounds=6)
    if case.startswith("battle_standard_"):  # R2-7 Fear, R2-12, R2-13 restraint re-rolls
        skeletons = unit("Skeletons", 20, 5, {**STATE_TROOP, "WS": 2, "Ld": 6},
                         ["hand weapon", "shield", "light armour"], ["Fear"],
                         battle_standard=True)
        militia = unit("Militia", 20, 5, {**STATE_TROOP, "Ld": 7}, ["spear", "shield"],
                       battle_standard=True)
        return scenario(skeletons, militia, max_rounds=8, pursue=False,
                        rules={"battle_standard_rerolls": case.removeprefix("battle_standard_")})
    if case == "monstrous_infantry_horde":  # R2-5 Horde at 6, up to 3 supporting; ranks of 3
        ogres = unit("Ogres", 12, 6, OGRE, ["light armour"],
                     group={"troop_type": "monstrous infantry"}, standard=True)
        return scenario(ogres, unit("Spears", 30, 6, STATE_TROOP, ["spear", "shield"],
                                    standard=True), max_rounds=6)
    if case == "monstrous_resurrection":  # R2-5 the rules text: Horde at 10, 1 attack each
        ogres = unit("Ogres", 20, 10, {**OGRE, "W": 1}, ["spear"],
                     group={"troop_type": "monstrous infantry"})
        return scenario(ogres, unit("Spears", 30, 6, STATE_TROOP, ["spear", "shield"],
                                    standard=True),
                        rules={"supporting_attacks": "resurrection"}, max_rounds=6)
    if case == "monstrous_cavalry_disrupts":  # R2-11 2 ranks of 3 disrupt; not Steadfast
        riders = unit("Ogre Riders", 6, 3, {**OGRE, "A": 2},
                      ["heavy armour", "lance"],
                      group={"troop_type": "monstrous cavalry",
                             "mount": {"WS": 3, "S": 5, "I": 2, "A": 2}})
        return scenario(riders, unit("Halberdiers", 25, 5, STATE_TROOP,
                                     ["halberd", "light armour"], standard=True),
                        facing="flank", max_rounds=6, rules={"disrupted_steadfast": False})
    raise KeyError(case)


CASES = ("bundled_8e", "bundled_resurrection", "lance_charge", "flank_spears",
         "monstrous_parry_defender_charges", "monstrous_horde_rear", "psychology",
         "asf_asl_weapons_wards", "morning_star_asf_reroll", "flee_reaction",
         "equal_initiative_mutual", "special_rules", "house_rules", "rolled_hits",
         "slaying_multiple_wounds", "instability_numbers",
         # the readings (R2-5, R2-6, R2-7, R2-11, R2-12, R2-13), each way
         "asf_both_simultaneous", "asf_both_initiative", "asl_both_simultaneous",
         "battle_standard_all", "battle_standard_break", "monstrous_infantry_horde",
         "monstrous_resurrection", "monstrous_cavalry_disrupts")


def kernel_rows(sc) -> np.ndarray:
    ruleset = get_ruleset("whfb8")
    _, rows = runner.run(ruleset, ruleset.compile(sc), KERNEL_TRIALS, 20241130, keep_fights=True)
    return rows


def reference_rows(sc) -> np.ndarray:
    rng = random.Random(4242)
    prepared = naive.prepare(sc)
    out = [naive.play_fight(sc, rng, prepared) for _ in range(REFERENCE_TRIALS)]
    return np.array([[fight[c] for fight in out] for c in COLUMNS])


def z_score(x: np.ndarray, y: np.ndarray) -> float:
    pooled = np.concatenate([x, y]).astype(float)
    v = pooled.var()
    if v == 0:
        return 0.0
    return (x.mean() - y.mean()) / math.sqrt(v / x.size + v / y.size)


@pytest.mark.parametrize("case", CASES)
def test_kernel_matches_reference(case):
    """R2-1 ... R2-14: the kernel and the one-die-at-a-time reference agree."""
    sc = build(case)
    k, r = kernel_rows(sc), reference_rows(sc)
    outcomes = {(w, e) for w, e in zip(*k[:2])} | {(w, e) for w, e in zip(*r[:2])}
    for w, e in outcomes:
        z = z_score((k[0] == w) & (k[1] == e), (r[0] == w) & (r[1] == e))
        assert abs(z) < Z_MAX, f"{case}: P(winner={w}, end={e}) z={z:.2f}"
    for i, column in enumerate(COLUMNS[2:], start=2):
        z = z_score(k[i], r[i])
        assert abs(z) < Z_MAX, f"{case}: mean {column} z={z:.2f}"
