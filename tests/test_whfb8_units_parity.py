"""Statistical parity for whfb8 sides of several units, characters and champions: the numba
kernel (``odds.simulate``) against the one-die-at-a-time reference tests/naive_whfb8_units.py.

For each case the kernel plays KERNEL_TRIALS fights and the reference REFERENCE_TRIALS, with
fixed seeds. P(winner, end) for every combination either engine produced, the means of every
other column (rounds, losses, wounds, challenges and the hero columns, each unit's models lost
and wounds) and each unit's fate probabilities are compared by a two-sample z-score with the
variance pooled from both samples. Every |z| must be < 4.
"""
from __future__ import annotations

import random
from pathlib import Path

import naive_whfb8_units as naive
import numpy as np
import pytest

from test_whfb8_parity import GOBLIN, KNIGHT, STATE_TROOP, WARHORSE, WARRIOR, z_score

import odds
from odds.core.outcome import UNIT_FATES
from odds.rulesets import get_ruleset

Z_MAX = 4.0
KERNEL_TRIALS = 60_000
KERNEL_SEED = 20250101
REFERENCE_TRIALS = 2_500
REFERENCE_SEED = 4243
SCENARIOS = Path(__file__).resolve().parents[1] / "data" / "scenarios"
STATE = STATE_TROOP

ORC = dict(M=4, WS=3, S=3, T=4, W=1, I=2, A=1, Ld=7)
LORD = dict(M=4, WS=8, S=5, T=5, W=3, I=8, A=5, Ld=9)
HERO = dict(M=4, WS=5, S=4, T=4, W=2, I=5, A=3, Ld=8)


def group(name, count, profile, equipment=(), rules=(), **keys):
    return {"name": name, "count": count, "profile": dict(profile),
            "equipment": list(equipment), "rules": list(rules), **keys}


def hero(name, profile, equipment=(), rules=(), **keys):
    return group(name, 1, profile, equipment, rules, character=True, **keys)


def champion(name, profile, equipment=(), **keys):
    return group(name, 1, profile, equipment, champion=True, **keys)


def unit(name, width, *models, **keys):
    return {"name": name, "width": width, "models": list(models), **keys}


def knights(count, width=5, **keys):
    return unit("Knights", width, group("Knight", count, KNIGHT, ["lance", "shield",
                                                                  "heavy armour"],
                                        troop_type="cavalry", mount=WARHORSE), **keys)


def warriors(*heroes, count=15, **keys):
    return unit("Warriors", 5, group("Warrior", count, WARRIOR, ["hand weapon", "shield",
                                                                 "heavy armour"]),
                *heroes, **keys)


def orcs(*heroes, count=20, **keys):
    return unit("Orcs", 5, group("Orc", count, ORC, ["hand weapon", "shield",
                                                     "light armour"]), *heroes, **keys)


def spearmen(count=30, width=6, name="Spearmen", *heroes, **keys):
    return unit(name, width, group("Spearman", count, STATE, ["spear", "shield"]), *heroes,
                **keys)


def fight(attackers, defenders, rules=None, max_rounds=6, **engagement):
    side = lambda units: units if isinstance(units, dict) else {"units": units}  # noqa: E731
    return odds.from_dict({"ruleset": "whfb8", "name": "units parity",
                           "attacker": side(attackers), "defender": side(defenders),
                           "engagement": engagement, "rules": rules or {},
                           "simulation": {"max_rounds": max_rounds}})


LORD_GW = hero("Chaos Lord", LORD, ["great weapon", "heavy armour"], general=True)
BIG_BOSS = hero("Orc Big Boss", {**HERO, "T": 5, "I": 3, "Ld": 8}, ["hand weapon", "shield",
                                                                    "heavy armour"])
BOSS = champion("Orc Boss", {**ORC, "A": 2}, ["hand weapon", "shield", "light armour"])
CHAMPION = champion("Aspiring Champion", {**WARRIOR, "A": 2}, ["hand weapon", "shield",
                                                              "heavy armour"])


def build(case: str):
    """The scenario of one parity case (built lazily so collection stays cheap)."""
    if case == "pinned_example":  # R2-1, R2-3, R2-4, R2-11 ... R2-13 as documented
        return odds.load(SCENARIOS / "whfb8_chaos_lord_combined_charge.toml")
    if case == "character_alone":  # a unit of one character (R2-6) against a unit
        lord = {"name": "Lord", "width": 1, "models": [LORD_GW]}
        return fight(lord, {**spearmen(15, 5), "standard": True})
    if case == "challenge_accepted":  # R2-4: lord against a big boss, overkill
        return fight([warriors(CHAMPION, LORD_GW)], [orcs(BOSS, BIG_BOSS, standard=True)],
                     challenge="always", accept="always")
    if case in ("refused_8e", "refused_no_penalty"):  # R2-4 refusal, R2-12 Ld
        return fight([warriors(CHAMPION, LORD_GW)],
                     [orcs(BOSS, BIG_BOSS, count=20, standard=True)],
                     rules={"refusal": case.split("_", 1)[1]}, challenge="always",
                     accept="never")
    if case == "overkill":  # R2-4: a great-weapon lord against a W1 champion
        return fight([warriors(LORD_GW, count=10)],
                     [unit("Goblins", 10, group("Goblin", 40, GOBLIN, ["spear", "shield"]),
                           champion("Boss", {**GOBLIN, "A": 2}, ["spear", "shield"]),
                           standard=True)], challenge="always")
    if case == "champion_only":  # R2-4: champions challenge, characters stay in the ranks
        return fight([warriors(CHAMPION, LORD_GW)], [orcs(BOSS, BIG_BOSS)],
                     challenge="champion_only")
    if case == "champion_first":  # R2-4: the champion answers before the character
        return fight([warriors(CHAMPION, LORD_GW)], [orcs(BOSS, BIG_BOSS)],
                     attacker_challenge="never", defender_challenge="always",
                     accept="champion_first")
    if case == "attack_character_always":  # R2-4: attacks aimed at a character
        return fight([warriors(attack_character="always")], [orcs(BIG_BOSS)])
    if case == "attack_character_if_can_wound":  # S 4 cannot wound T 8; the hero's S 6 can
        anvil = hero("Anvil", {**HERO, "T": 8, "W": 3, "Ld": 8}, ["hand weapon", "shield"])
        slayer = hero("Slayer", {**HERO, "S": 6})
        return fight([warriors(slayer, attack_character="if_can_wound")],
                     [orcs(anvil, attack_character="if_can_wound")])
    if case in ("flank_front", "rear_front"):  # R2-3 faces and sharing, R2-11 +1 / +2
        return fight([warriors(count=10), knights(5, facing=case.split("_")[0])],
                     [spearmen(standard=True)])
    if case in ("disrupting", "not_disrupting"):  # R2-11: two ranks of 5 disrupt
        return fight([knights(10 if case == "disrupting" else 5, facing="flank"),
                      warriors(count=10)],
                     [spearmen(40, 8, standard=True, musician=True)])
    if case == "two_defenders_lose":  # R2-12 per-unit break tests, R2-13 per-unit pursuit
        return fight([warriors(count=10),
                      knights(8, charges="Goblins B")],
                     [unit("Goblins A", 5, group("Goblin", 15, GOBLIN)),
                      unit("Goblins B", 5, group("Goblin", 15, {**GOBLIN, "Ld": 6}))])
    if case == "general_lends_ld":  # R2-12: Inspiring Presence from another unit
        general = hero("Warboss", {**HERO, "Ld": 9}, ["heavy armour"], general=True)
        return fight([warriors(count=10), knights(5, charges="Goblins")],
                     [orcs(general, count=15), unit("Goblins", 5, group("Goblin", 20, GOBLIN))])
    if case == "battle_standard_can_die":  # R2-11, R2-12: the bearer's bonus and re-roll
        bearer = hero("Bearer", {**HERO, "W": 1, "T": 3}, battle_standard=True)
        return fight([warriors(count=15, attack_character="always")],
                     [spearmen(25, 5, "Spearmen", bearer)])
    if case == "killing_blow_multiple_wounds":  # R2-8 on a character's own attacks
        executioner = hero("Executioner", {**HERO, "A": 4},
                           rules=["Killing Blow", "Multiple Wounds (D3)"])
        return fight([warriors(executioner)], [orcs(BIG_BOSS, count=15)], challenge="always")
    raise KeyError(case)


CASES = ("pinned_example", "character_alone", "challenge_accepted", "refused_8e",
         "refused_no_penalty", "overkill", "champion_only", "champion_first",
         "attack_character_always", "attack_character_if_can_wound", "flank_front",
         "rear_front", "disrupting", "not_disrupting", "two_defenders_lose",
         "general_lends_ld", "battle_standard_can_die", "killing_blow_multiple_wounds")


def kernel_rows(sc) -> tuple[tuple[str, ...], np.ndarray]:
    result = odds.simulate(sc, trials=KERNEL_TRIALS, seed=KERNEL_SEED, keep_fights=True,
                           quiet=True)
    return get_ruleset("whfb8").columns(sc), result.fights_record


def reference_fight(sc, rng) -> dict:
    """One fight of the reference, its units' columns by name (``attacker.units[0].fate``)."""
    out = naive.play(sc, rng)
    for k, side in enumerate(("attacker", "defender")):
        for i, (fate, lost, wounds) in enumerate(out["units"][k]):
            out[f"{side}.units[{i}].fate"] = fate
            out[f"{side}.units[{i}].lost"] = lost
            out[f"{side}.units[{i}].wounds"] = wounds
    return out


def reference_rows(sc, columns) -> np.ndarray:
    rng = random.Random(REFERENCE_SEED)
    fights = [reference_fight(sc, rng) for _ in range(REFERENCE_TRIALS)]
    return np.array([[out[c] for c in columns] for out in fights]).T


def disagreements(columns, k, r) -> list[str]:
    bad = []
    outcomes = {(w, e) for w, e in zip(*k[:2])} | {(w, e) for w, e in zip(*r[:2])}
    for w, e in sorted(outcomes):
        z = z_score((k[0] == w) & (k[1] == e), (r[0] == w) & (r[1] == e))
        if abs(z) >= Z_MAX:
            bad.append(f"P(winner={w}, end={e}): kernel {np.mean((k[0] == w) & (k[1] == e)):.4f}"
                       f" reference {np.mean((r[0] == w) & (r[1] == e)):.4f}, z={z:.2f}")
    for i, column in enumerate(columns[2:], start=2):
        if column.endswith(".fate"):
            for code, fate in enumerate(UNIT_FATES):
                z = z_score(k[i] == code, r[i] == code)
                if abs(z) >= Z_MAX:
                    bad.append(f"P({column} = {fate}): z={z:.2f}")
            continue
        z = z_score(k[i], r[i])
        if abs(z) >= Z_MAX:
            bad.append(f"mean {column}: kernel {k[i].mean():.4f} reference {r[i].mean():.4f},"
                       f" z={z:.2f}")
    return bad


@pytest.mark.parametrize("case", CASES)
def test_kernel_matches_reference_units_R2_4(case):
    """R2-1, R2-3, R2-4, R2-6, R2-11 ... R2-13 with several units and heroes: the kernel and
    the one-die-at-a-time reference agree on every column."""
    sc = build(case)
    columns, k = kernel_rows(sc)
    r = reference_rows(sc, columns)
    assert k.shape[0] == r.shape[0] == len(columns)
    bad = disagreements(columns, k, r)
    assert not bad, f"{case}: kernel and reference disagree:\n  " + "\n  ".join(bad)


def test_parity_check_detects_a_difference():
    """The comparison can fail: a changed scenario on one side disagrees."""
    sc = build("challenge_accepted")
    columns = get_ruleset("whfb8").columns(sc)
    r = reference_rows(sc, columns)
    other = reference_rows(build("refused_8e"), columns)
    assert disagreements(columns, other, r)
