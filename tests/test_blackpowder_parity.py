"""Statistical parity: the blackpowder kernel against tests/naive_blackpowder.py (one real die
at a time) on scenarios that together exercise R4-2 ... R4-6 and §5.3 - §5.6.

Per scenario the kernel plays KERNEL_TRIALS fights and the reference REFERENCE_TRIALS, with
fixed seeds. Compared: P(winner, end) for every combination either engine produced, and the
means of every other column. Each is a two-sample z-score with both samples' standard errors
(variance pooled from the two samples); every |z| must be below Z_MAX. A rare outcome (fewer
than RARE expected in the reference sample) is compared exactly instead: given how many fights
of both samples ended that way, the reference's share is Binomial(total, n_ref / n_all) under
the null hypothesis, and both tails must be above the two-sided p-value of Z_MAX.
"""
from __future__ import annotations

import math
import random
from pathlib import Path

import naive_blackpowder as naive
import numpy as np
import pytest

import odds
from odds.core import runner
from odds.core.outcome import UNIT_DESTROYED, UNIT_STANDING, UNIT_UNREACHED
from odds.rulesets import get_ruleset
from odds.scenario import as_scenario

Z_MAX = 4.0
P_MIN = math.erfc(Z_MAX / math.sqrt(2))  # the two-sided p-value of |z| = Z_MAX
RARE = 5
KERNEL_TRIALS = 100_000
REFERENCE_TRIALS = 4_000
RULESET = get_ruleset("blackpowder")
SCENARIOS_DIR = Path(__file__).resolve().parents[1] / "data" / "scenarios"


def unit(name, type_="infantry", hth=6, shooting=3, morale=4, stamina=3, **options):
    return {"name": name, "type": type_, "profile": {"hand_to_hand": hth, "shooting": shooting,
                                                     "morale": morale, "stamina": stamina},
            **options}


def brigade(attackers, defenders, max_rounds=10, **engagement):
    return odds.from_dict({"ruleset": "blackpowder", "name": "parity",
                           "attacker": {"units": attackers}, "defender": {"units": defenders},
                           "engagement": engagement, "simulation": {"max_rounds": max_rounds}})


def scenario(attacker, defender, max_rounds=10, **engagement):
    return odds.from_dict({"ruleset": "blackpowder", "name": "parity", "attacker": attacker,
                           "defender": defender, "engagement": engagement,
                           "simulation": {"max_rounds": max_rounds}})


CUIRASSIERS = unit("Cuirassiers", "heavy cavalry", 9, 1, rules=["heavy cavalry D3"])
PIKES = unit("Pikes", "pikes", 6, 0)
LANCERS = unit("Lancers", "cavalry", 7, 0, rules=["lancers", "ferocious charge"])
FOOT = unit("Foot", "infantry", 6, 3)

SCENARIOS = {
    # R4-5: pikes double their dice, cavalry loses charge and special-rule bonuses
    "R4-5 cavalry into pikes, all rounds": scenario(CUIRASSIERS, PIKES),
    "R4-5 pike double dice first round only": scenario(CUIRASSIERS, PIKES,
                                                       pike_double_dice_rounds="first"),
    "R4-5 disordered pikes": scenario(CUIRASSIERS, {**PIKES, "status": ["disordered"]}),
    "R4-5 pikes hit in the flank": scenario(CUIRASSIERS, PIKES, facing="flank"),
    # R4-4 reactions
    "R4-4 counter-charge lancers": scenario(LANCERS, {**CUIRASSIERS, "rear_support": True},
                                           reaction="counter-charge", sweeping_advance=True),
    "R4-4 counter-charge against infantry": scenario(
        {**FOOT, "rules": ["bloodthirsty"]}, unit("Dragoons", "cavalry", 6, 2),
        reaction="counter-charge"),
    "R4-4 closing fire": scenario(unit("Hussars", "cavalry", 7, 0, stamina=2), unit(
        "Battery", "artillery", 1, 6, morale=5), reaction="closing fire"),
    "R4-4 closing fire, wavering charger": scenario(
        {**FOOT, "rules": ["wavering"]}, {**FOOT, "profile": {**FOOT["profile"], "shooting": 5}},
        reaction="closing fire"),
    "R4-4 hedgehog": scenario(CUIRASSIERS, PIKES, facing="rear", reaction="hedgehog",
                              hedgehog_order=7),
    "R4-4 turn to face": scenario(FOOT, unit("Dragoons", "cavalry", 6, 2), facing="rear",
                                  reaction="turn to face"),
    "R4-4 evade without room": scenario(FOOT, unit("Dragoons", "cavalry", 6, 2),
                                        reaction="evade", evade_room=False),
    # R4-6, §5.3 - §5.5: modifiers, results, break tests, special rules
    "R4-6 flank charge with supports": scenario(
        {**FOOT, "formation": "attack column", "rear_support": True, "rules": ["bloodthirsty"]},
        {**FOOT, "flank_supports": 2, "rules": ["steady"]}, facing="flank"),
    "R4-6 skirmishers into an engaged flank": scenario(
        {**FOOT, "formation": "skirmish", "rules": ["tough fighters"]},
        {**FOOT, "engaged": True, "rules": ["stubborn", "valiant"]}, facing="rear"),
    "R4-6 shaken square against cavalry": scenario(
        CUIRASSIERS, {**FOOT, "formation": "square", "status": ["shaken"]}),
    "R4-6 march column in a building fight, capped": scenario(
        {**FOOT, "rules": ["heavy cavalry +1"]},
        {**FOOT, "formation": "march column", "building": 2, "profile": {
            **FOOT["profile"], "stamina": 6}}, max_rounds=3),
    "R4-6 drawn cavalry melee": scenario(unit("Light horse", "cavalry", 3, 0, morale=6),
                                         unit("Chasseurs", "cavalry", 3, 0, morale=6)),
    # R4-1 orders to charge (two moves needed, blunders), §5.3 terrifying charge
    "R4-1 ordered terrifying charge at 20 inches": scenario(
        unit("Hussars", "cavalry", 6, 0, rules=["terrifying charge"]), FOOT, staff_rating=8,
        charge_distance=20),
    "R4-1 attack column ordered from afar, enemy close": scenario(
        {**FOOT, "formation": "attack column", "rules": ["terrifying charge"]},
        {**FOOT, "rules": ["steady", "valiant"]}, staff_rating=9, charge_distance=10,
        commander_distance=25, command_modifier=-1, move=9),
    # several units a side (R4-3, §5.3): chargers on several faces, supports as units, each
    # losing unit's test, a broken unit's supports' tests, per-unit outcomes
    "R4-3 two battalions and a support against a line": odds.load(
        SCENARIOS_DIR / "blackpowder_two_battalions_charge_a_line.toml"),
    "R4-3 cavalry front and rear, closing fire, supports both sides": brigade(
        [{**unit("Hussars", "cavalry", 7, 0, stamina=2, rules=["wavering"]),
          "charges": "Line"},
         {**unit("Dragoons", "cavalry", 6, 2, rules=["terrifying charge"]), "charges": "Line",
          "facing": "rear"},
         {**FOOT, "name": "Reserve", "supports": "Hussars", "support_from": "flank"}],
        [{**FOOT, "name": "Line", "rules": ["valiant"], "flank_supports": 1},
         {**FOOT, "name": "Second line", "supports": "Line"}],
        reaction="closing fire", sweeping_advance=True),
    "R4-3 three faces of a hedgehog": brigade(
        [{**CUIRASSIERS, "name": "C1"}, {**FOOT, "name": "F1", "facing": "flank"},
         {**FOOT, "name": "F2", "facing": "flank", "formation": "attack column"}],
        [{**PIKES, "formation": "hedgehog", "profile": {**PIKES["profile"], "stamina": 4}}]),
    # §5.4 the second charge: victorious cavalry sweeps into a fresh unit; the first that
    # may, its closing fire, a terrifying sweep, and a fresh unit each side
    "§5.4 cuirassiers and lancers sweep into a second line, closing fire": brigade(
        [{**CUIRASSIERS, "charges": "Line"},
         {**LANCERS, "charges": "Line", "facing": "flank"}],
        [{**FOOT, "name": "Line", "status": ["disordered"]},
         {**FOOT, "name": "Second line", "in_melee": False, "distance": 12}],
        reaction="closing fire", sweeping_advance=True),
    "§5.4 a fresh unit each side, a terrifying sweep into a flank": brigade(
        [{**unit("Hussars", "cavalry", 7, 0, rules=["terrifying charge"]),
          "charges": "Dragoons"},
         {**FOOT, "charges": "Dragoons", "facing": "flank"},
         {**FOOT, "name": "Reserve", "in_melee": False, "distance": 6}],
        [unit("Dragoons", "cavalry", 6, 2),
         {**FOOT, "name": "Second line", "in_melee": False, "distance": 15, "facing": "flank",
          "rules": ["wavering"]}],
        sweeping_advance=True, max_rounds=6),
    "§5.4 supported hussars sweep away from their support into a column": brigade(
        [{**unit("Hussars", "cavalry", 6, 0), "charges": "Voltigeurs"},
         {**unit("Dragoons", "cavalry", 6, 2), "supports": "Hussars"}],
        [{**unit("Voltigeurs", "infantry", 3, 3, morale=5, stamina=2), "formation": "skirmish"},
         {**FOOT, "name": "Reserve", "formation": "attack column", "in_melee": False,
          "distance": 15, "rear_support": True}],
        sweeping_advance=True),
}


def kernel_rows(sc):
    runner.set_threads(2)
    _, rows = runner.run(RULESET, RULESET.compile(sc), KERNEL_TRIALS, 20261130,
                         keep_fights=True, columns=RULESET.columns(sc))
    return rows.astype(np.int64)


def reference_rows(sc):
    rng = random.Random(4242)
    fights = [naive.fight(sc, rng) for _ in range(REFERENCE_TRIALS)]
    return np.array([[f[c] for f in fights] for c in RULESET.columns(sc)], np.int64)


def z_score(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sample z of the means of a and b, with the pooled variance over both samples."""
    v = np.concatenate([a, b]).astype(float).var()
    if v == 0:
        return 0.0
    return (a.mean() - b.mean()) / math.sqrt(v / len(a) + v / len(b))


def assert_same_rate(k: np.ndarray, r: np.ndarray, what: str):
    """The kernel's and the reference's frequencies of one outcome agree."""
    total, share = int(k.sum() + r.sum()), len(r) / (len(k) + len(r))
    if total * share >= RARE:
        z = z_score(k, r)
        assert abs(z) < Z_MAX, f"{what}: z = {z:.2f}"
        return
    x = int(r.sum())
    pmf = [math.comb(total, i) * share ** i * (1 - share) ** (total - i)
           for i in range(total + 1)]
    low, high = sum(pmf[:x + 1]), sum(pmf[x:])
    assert min(low, high) > P_MIN / 2, f"{what}: {x} of {total} in the reference"


@pytest.mark.parametrize("name", SCENARIOS)
def test_kernel_matches_reference(name):
    """R4-2 (charges the checks allow), R4-3 (several units), R4-4, R4-5, R4-6 played by
    both engines alike; with several units a side each unit's fate, lost and wounds too."""
    sc = SCENARIOS[name]
    k, r = kernel_rows(sc), reference_rows(sc)
    outcomes = set(zip(k[0], k[1])) | set(zip(r[0], r[1]))
    for w, e in outcomes:
        assert_same_rate((k[0] == w) & (k[1] == e), (r[0] == w) & (r[1] == e),
                         f"P(winner={w}, end={e})")
    for i, column in enumerate(RULESET.columns(sc)[2:], start=2):
        z = z_score(k[i], r[i])
        assert abs(z) < Z_MAX, f"mean {column}: z = {z:.2f}"


def test_scenarios_reach_the_outcomes_they_are_for():
    """The parity set is not vacuous: breaks, retirements, evasions, caps, sweeps and second
    charges (fresh units reached or not, and beaten or not when reached) occur."""
    rows = {name: kernel_rows(sc) for name, sc in SCENARIOS.items()
            if name.startswith(("R4-4 counter", "R4-4 evade", "R4-6 march", "R4-6 drawn",
                                "§5.4"))}
    for name in ("§5.4 cuirassiers and lancers sweep into a second line, closing fire",
                 "§5.4 a fresh unit each side, a terrifying sweep into a flank"):
        sc = as_scenario(SCENARIOS[name])
        fate = {c: rows[name][RULESET.columns(sc).index(c)] for c in RULESET.columns(sc)
                if c.endswith("fate")}
        fresh = [c for c, u in zip(fate, (u for k in ("attacker", "defender")
                                          for u in sc.side(k).every_unit))
                 if not u.options["in_melee"]]
        for c in fresh:  # reached or not; when reached, standing or not at the end
            assert {UNIT_STANDING, UNIT_DESTROYED, UNIT_UNREACHED} <= set(fate[c]), (name, c)
    assert (rows["R4-4 counter-charge lancers"][9] == 1).any()  # sweeping advance
    assert (rows["R4-4 evade without room"][1] == 0).all()     # DESTROYED without a round
    assert (rows["R4-6 march column in a building fight, capped"][1] == 4).any()  # UNRESOLVED
    drawn = rows["R4-6 drawn cavalry melee"]
    assert ((drawn[0] == 0) & (drawn[1] == 4) & (drawn[2] < 10)).any()  # both retire
