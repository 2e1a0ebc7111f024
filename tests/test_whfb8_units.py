"""whfb8 sides of several units, characters and champions: every check of
odds/rulesets/whfb8/units.py refused with its field named, and closed-form checks of the
one-die-at-a-time reference tests/naive_whfb8_units.py (fixed seeds, |z| < 4)."""
from __future__ import annotations

import itertools
import random
from fractions import Fraction
from math import comb

import naive_whfb8 as one
import naive_whfb8_units as naive
import numpy as np
import pytest
from conftest import SCENARIOS
from stats import assert_rate
from test_whfb8_units_parity import z_score

import odds
from odds.cli import main
from odds.core.outcome import (CAUGHT, COLUMNS, DESTROYED, FLED, UNIT_CAUGHT, UNIT_DESTROYED,
                               UNIT_FLED, UNIT_STANDING)
from odds.rulesets import get_ruleset

TRIALS = 4_000
HARMLESS = dict(M=4, WS=3, S=1, T=5, W=1, I=3, A=1, Ld=7)  # S 1 cannot wound T 5 (R2-8)


def group(name, count, profile, equipment=(), **keys):
    return {"name": name, "count": count, "profile": dict(profile),
            "equipment": list(equipment), **keys}


def hero(name, profile, equipment=(), **keys):
    return group(name, 1, profile, equipment, character=True, **keys)


def champion(name, profile, equipment=(), **keys):
    return group(name, 1, profile, equipment, champion=True, **keys)


def unit(name, width, *models, **keys):
    return {"name": name, "width": width, "models": list(models), **keys}


def fight(attackers, defenders, rules=None, max_rounds=10, **engagement) -> dict:
    return {"ruleset": "whfb8", "name": "units", "attacker": {"units": attackers},
            "defender": {"units": defenders}, "engagement": engagement,
            "rules": rules or {}, "simulation": {"max_rounds": max_rounds}}


def harmless(name, count=5, width=5, *heroes, **keys):
    return unit(name, width, group(name, count, HARMLESS), *heroes, **keys)


def base() -> dict:
    """A lord's unit and a knights' unit against a unit with a champion."""
    return fight([harmless("Warriors", 10, 5, hero("Lord", {**HARMLESS, "W": 3}, general=True)),
                  unit("Knights", 5, group("Knight", 5, HARMLESS, ["lance"],
                                           troop_type="cavalry",
                                           mount={"WS": 3, "S": 3, "I": 3, "A": 1}),
                       facing="flank")],
                 [harmless("Spears", 20, 5, champion("Boss", HARMLESS))])


def refused(data, field, words) -> None:
    with pytest.raises(odds.ScenarioError) as info:
        odds.from_dict(data, "fight.toml")
    assert info.value.field == field, info.value
    assert words in info.value.message, info.value


def test_the_base_scenario_loads_R2_1():
    sc = odds.from_dict(base())
    assert [u.name for u in sc.attacker.units] == ["Warriors", "Knights"]


def edited(path, value):
    data = base()
    where = data
    for key in path[:-1]:
        where = where[key]
    where[path[-1]] = value
    return data


A0 = ("attacker", "units", 0)
D0 = ("defender", "units", 0)


def test_a_bearer_alone_loads_R2_11():
    sc = odds.from_dict(edited(A0 + ("models", 1, "battle_standard"), True))
    assert sc.attacker.units[0].models[1].options["battle_standard"]


def with_models(side_unit, models):
    data = base()
    data[side_unit[0]]["units"][side_unit[2]]["models"] += models
    return data


def _bearer_and_unit_key(where=1):
    data = with_models(A0, [hero("Bearer", HARMLESS, battle_standard=True)])
    data["attacker"]["units"][where]["battle_standard"] = True
    return data


def _champion_alone():
    data = base()
    data["defender"]["units"].append(unit("Boss alone", 1, champion("Boss", HARMLESS)))
    data["attacker"]["units"][1]["charges"] = "Boss alone"
    return data


def _uncharged():
    data = base()
    data["defender"]["units"].append(harmless("Reserve"))
    return data


def _two_plain_groups_one_unit():
    return {"ruleset": "whfb8", "attacker": harmless("Warriors"),
            "defender": unit("Spears", 5, group("Spear", 5, HARMLESS),
                             group("Other", 5, HARMLESS))}


@pytest.mark.parametrize("make, field, words", [
    (lambda: with_models(A0, [hero("Hero", HARMLESS, general=True)]),
     "attacker.units[0].models[2].general", "at most one general"),
    (lambda: with_models(A0, [hero("Hero", HARMLESS, battle_standard=True),
                              hero("Hero 2", HARMLESS, battle_standard=True)]),
     "attacker.units[0].models[3].battle_standard", "at most one battle standard"),
    (lambda: _bearer_and_unit_key(0), "attacker.units[0].battle_standard",
     "battle standard once"),
    (_bearer_and_unit_key, "attacker.units[1].battle_standard", "battle standard once"),
    (lambda: base() | {"engagement": {"reaction": "flee", "charge_distance": 5}},
     "engagement.reaction", "flee reaction is not played yet"),
    (lambda: with_models(D0, [group("Others", 5, HARMLESS)]),
     "defender.units[0].models[2]", "one rank-and-file group"),
    (lambda: with_models(D0, [champion("Boss 2", HARMLESS)]),
     "defender.units[0].models[2].champion", "at most one champion"),
    (_champion_alone, "defender.units[1].models[0].champion",
     "leads rank-and-file"),
    (lambda: edited(D0 + ("champion",), True), "defender.units[0].champion",
     "cannot both be given"),
    (lambda: edited(D0 + ("in_contact",), 3), "defender.units[0].in_contact",
     "not played yet"),
    (lambda: edited(D0 + ("models", 0, "rules"), ["Unstable"]),
     "defender.units[0].models[0].rules", "Unstable and Daemonic Instability"),
    (lambda: edited(D0 + ("models", 1, "rules"), ["Daemonic Instability"]),
     "defender.units[0].models[1].rules", "Unstable and Daemonic Instability"),
    (lambda: edited(D0 + ("models", 0, "general"), True),
     "defender.units[0].models[0].general", "is for a character"),
    (lambda: edited(D0 + ("models", 0, "battle_standard"), True),
     "defender.units[0].models[0].battle_standard", "is for a character"),
    (lambda: edited(D0 + ("models", 1, "character"), True),
     "defender.units[0].models[1].champion", "a character or a champion, not both"),
    (lambda: edited(A0 + ("models", 1, "count"), 2),
     "attacker.units[0].models[1].count", "one model, got 2"),
    (lambda: edited(D0 + ("models", 1, "general"), True),
     "defender.units[0].models[1].general", "not a champion"),
    (lambda: edited(D0 + ("models", 1, "battle_standard"), True),
     "defender.units[0].models[1].battle_standard", "not a champion"),
    (lambda: edited(A0 + ("models", 1, "troop_type"), "monstrous infantry"),
     "attacker.units[0].models[1].troop_type", "its unit's troop type"),
    (lambda: edited(A0 + ("models", 1, "rules"), ["Hatred", "Frenzy"]),
     "attacker.units[0].models[1].rules[1]", "acts on a whole unit"),
    (lambda: edited(D0 + ("models", 1, "rules"), ["Fear"]),
     "defender.units[0].models[1].rules[0]", "acts on a whole unit"),
    (lambda: edited(("attacker", "units", 1, "charges"), "Goblins"),
     "attacker.units[1].charges", "names no unit of the defender"),
    (lambda: edited(D0 + ("charges",), "Warriors"), "defender.units[0].charges",
     "is for a unit of the charging side"),
    (lambda: edited(D0 + ("facing",), "flank"), "defender.units[0].facing",
     "is for a unit of the charging side"),
    (_uncharged, "defender.units[1].name", "is not in the combat"),
    (_two_plain_groups_one_unit, "defender.models[1]", "one rank-and-file group"),
])
def test_units_checks_name_the_field_R2_4(make, field, words):
    """Every check of units.py (R2-1, R2-4, R2-6, R2-11, R2-12; R2-2: no flee reaction with
    several units or heroes yet) names the field."""
    refused(make(), field, words)


def test_the_cli_exits_2_on_a_units_check_R2_4(tmp_path, capsys):
    """The CLI prints one line naming the file and field, and exits 2."""
    path = tmp_path / "fight.toml"
    path.write_text("""ruleset = "whfb8"
[[attacker.units]]
name = "Warriors"
width = 5
[[attacker.units.models]]
name = "Warrior"
count = 5
profile = { M = 4, WS = 3, S = 3, T = 3, W = 1, I = 3, A = 1, Ld = 7 }
[[attacker.units.models]]
name = "Lord"
count = 2
character = true
profile = { M = 4, WS = 5, S = 4, T = 4, W = 3, I = 5, A = 3, Ld = 9 }
[defender]
name = "Spears"
width = 5
[[defender.models]]
name = "Spear"
count = 10
profile = { M = 4, WS = 3, S = 3, T = 3, W = 1, I = 3, A = 1, Ld = 7 }
""")
    assert main(["simulate", str(path), "--trials", "10"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"odds: error: {path}: attacker.units[0].models[1].count: "
                   "a character or champion is one model, got 2"]


# -- closed forms, on the reference and on the kernel ---------------------------------------

def binomial(k, n, p) -> Fraction:
    return comb(n, k) * p ** k * (1 - p) ** (n - k)


ENGINES = ("reference", "kernel")
KERNEL_TRIALS = 40_000


def plays(data, seed, trials=TRIALS, engine="reference") -> list[dict]:
    """Fights of ``data`` as the reference's outcome dicts: played by the reference, or by
    the kernel (KERNEL_TRIALS of them) and read back from its outcome record."""
    sc = odds.from_dict(data)
    if engine == "reference":
        rng = random.Random(seed)
        return [naive.play(sc, rng) for _ in range(trials)]
    result = odds.simulate(sc, trials=KERNEL_TRIALS, seed=seed, keep_fights=True, quiet=True)
    columns = get_ruleset("whfb8").columns(sc)
    rows = [dict(zip(columns, map(int, row))) for row in result.fights_record.T]
    for r in rows:
        r["units"] = [[(r[f"{key}.units[{i}].fate"],) for i in range(len(sc.side(key).every_unit))]
                      if f"{key}.units[0].fate" in r else [(_side_fate(r, s),)]
                      for s, key in enumerate(("attacker", "defender"))]
    return rows


def _side_fate(row, s) -> int:
    """A one-unit side's fate from the shared columns."""
    if row["winner"] == 2 - s:  # the other side won
        return {FLED: UNIT_FLED, CAUGHT: UNIT_CAUGHT, DESTROYED: UNIT_DESTROYED}.get(
            row["end"], UNIT_STANDING)
    return UNIT_STANDING


LORD = dict(M=4, WS=5, S=4, T=5, W=3, I=5, A=4, Ld=9)


def duel(foe_w, lord=LORD, lord_equipment=(), foe_is_champion=False):
    """A lord in a harmless unit challenges a foe in another; only the lord can wound."""
    foe_profile = {**HARMLESS, "WS": 3, "T": 3, "W": foe_w}
    foe = (champion if foe_is_champion else hero)("Foe", foe_profile)
    return fight([harmless("Warriors", 5, 5, hero("Lord", lord, list(lord_equipment)))],
                 [harmless("Spears", 10, 5, foe)], max_rounds=1, challenge="always")


@pytest.mark.parametrize("engine", ENGINES)
def test_a_challenge_slays_the_foe_with_the_binomial_chance_R2_4(engine):
    """R2-4: the lord's 4 attacks (3+ to hit, 3+ to wound, no save) only at the W2 foe:
    P(foe slain in round 1) = 1 - sum_{k<2} Bin(k; 4, 4/9)."""
    p = Fraction(4, 6) * Fraction(4, 6)
    expected = 1 - sum(binomial(k, 4, p) for k in range(2))
    rows = plays(duel(2), seed=11, engine=engine)
    assert all(r["challenges"] == 1 for r in rows)
    slain = sum(r["defender_characters_slain"] for r in rows)
    assert sum(r["attacker_challenges_won"] for r in rows) == slain
    assert_rate(slain, len(rows), expected, "P(foe slain in the challenge)")


@pytest.mark.parametrize("engine", ENGINES)
def test_a_champion_slain_is_counted_as_a_champion_not_a_character_R2_4(engine):
    """R2-4: the same duel against a champion: its death is in ``*_champions_slain`` with the
    binomial chance, and ``*_characters_slain`` stays 0 (characters only)."""
    p = Fraction(4, 6) * Fraction(4, 6)
    expected = 1 - sum(binomial(k, 4, p) for k in range(2))
    rows = plays(duel(2, foe_is_champion=True), seed=11, engine=engine)
    assert all(r["defender_characters_slain"] == 0 for r in rows)
    slain = sum(r["defender_champions_slain"] for r in rows)
    assert sum(r["attacker_challenges_won"] for r in rows) == slain
    assert_rate(slain, len(rows), expected, "P(champion slain in the challenge)")


def test_overkill_counts_up_to_five_past_the_kill_R2_4():
    """R2-4 overkill: a great-weapon lord (A 10, S 6) against a W1 champion: the
    challenge's combat-result wounds are min(U, 1 + 5), U ~ Bin(10, p)."""
    lord = {**LORD, "A": 10}
    sc = odds.from_dict(duel(1, lord, ["great weapon"], foe_is_champion=True))
    p = Fraction(4, 6) * Fraction(5, 6)  # 3+ to hit, S 6 vs T 3: 2+ to wound, no save
    rng = random.Random(12)
    counts = [0] * 7
    for _ in range(TRIALS):
        f = naive.Fight(sc, rng)
        f.begin_round(1)
        counts[f.fight_round()[0]] += 1
    for k in range(7):
        expected = binomial(k, 10, p) if k < 6 else sum(binomial(j, 10, p)
                                                        for j in range(6, 11))
        assert_rate(counts[k], TRIALS, expected, f"P(combat-result wounds = {k})")


def scores(data) -> list[int]:
    """Both sides' combat results after round 1 of a fight where nobody can wound."""
    f = naive.Fight(odds.from_dict(data), random.Random(0))
    f.begin_round(1)
    wounds = f.fight_round()
    assert wounds == [0, 0]
    return [f.score(0, wounds), f.score(1, wounds)]


def target(count=10, width=10, **keys):
    return harmless("Target", count, width, **keys)


def test_flank_and_rear_count_once_per_enemy_unit_and_face_R2_11_R2_3():
    """R2-11, R2-3: a flank and a rear charge on one unit give +3 with the charge's +1; two
    units on one flank give +1 once."""
    both = fight([harmless("A"), harmless("B", facing="flank"), harmless("C", facing="rear")],
                 [target()])
    assert scores(both) == [1 + 3, 0]
    one_flank = fight([harmless("A"), harmless("B", facing="flank"),
                       harmless("C", facing="flank")], [target()])
    assert scores(one_flank) == [1 + 1, 0]
    rear_only = fight([harmless("A", facing="rear")], [target()])
    assert scores(rear_only) == [1 + 2, 0]


def test_the_best_unit_s_ranks_only_and_disruption_R2_11():
    """R2-11: the rank bonus is the best unit's, not the sum; a flank charge by a unit of
    two ranks of 5 disrupts the charged unit, one of one rank does not."""
    ranked = fight([harmless("A", 15, 5), harmless("B", 10, 5, facing="flank")],
                   [target(20, 5, standard=True)])
    assert scores(ranked) == [1 + 2 + 1, 1]  # ranks 2 (not 2 + 1) and the flank; disrupted
    shallow = fight([harmless("A", 15, 5), harmless("B", 5, 5, facing="flank")],
                    [target(20, 5, standard=True)])
    assert scores(shallow) == [1 + 2 + 1, 3 + 1]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_unit_that_wins_the_combat_result_wins_the_round_R2_11(engine):
    """R2-11: the side of the higher total wins: the flanked target (0) loses to the
    chargers (1 + 3) and, Ld 1, breaks unless it rolls a double 1."""
    data = fight([harmless("A"), harmless("B", facing="flank"), harmless("C", facing="rear")],
                 [unit("Target", 10, group("T", 10, {**HARMLESS, "Ld": 1}))], max_rounds=1)
    rows = plays(data, seed=13, trials=1_000, engine=engine)
    broke = sum(r["units"][1][0][0] in (UNIT_FLED, UNIT_CAUGHT) for r in rows)
    assert all(r["winner"] in (0, 1) for r in rows)
    assert_rate(broke, len(rows), Fraction(35, 36), "P(the target breaks)")


def refusal_fight(refusal):
    return fight([harmless("Warriors", 5, 5, hero("Lord", {**HARMLESS, "Ld": 9}))],
                 [unit("Spears", 5, group("Spear", 5, {**HARMLESS, "Ld": 5}),
                       hero("Captain", {**HARMLESS, "Ld": 9, "A": 3}))],
                 rules={"refusal": refusal}, max_rounds=1, challenge="always", accept="never")


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("refusal, holds", [("8e", Fraction(6, 36)),
                                            ("no_penalty", Fraction(26, 36))])
def test_a_refused_character_s_ld_is_not_used_R2_4_R2_12(refusal, holds, engine):
    """R2-4, R2-12: the captain refuses the lord's challenge; with the 8th edition penalty
    the unit tests on its own Ld 5 - 1 (2D6 <= 4), else on the captain's 9 - 1."""
    rows = plays(refusal_fight(refusal), seed=14, engine=engine)
    assert all(r["challenges"] == 0 for r in rows)
    held = sum(r["units"][1][0][0] not in (UNIT_FLED, UNIT_CAUGHT) for r in rows)
    assert_rate(held, len(rows), holds, f"P(hold), refusal = {refusal}")


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("refusal, attacks", [("8e", 10), ("no_penalty", 9)])
def test_a_rank_and_file_model_takes_a_refused_character_s_file_R2_4_R2_5(refusal, attacks,
                                                                           engine):
    """R2-4, R2-5: ten spearmen five wide and a harmless captain, who refuses the lord's
    challenge. With the 8th edition penalty a spearman steps into the captain's file: five
    spearmen fight and the five behind them support (10 attacks); with no penalty the
    captain keeps its file (4 + 5). Each attack wounds the warriors with 1/2 x 1/2, so the
    wounds they take are Binomial(attacks, 1/4)."""
    data = fight([harmless("Warriors", 10, 5, hero("Lord", {**HARMLESS, "Ld": 9}))],
                 [unit("Spears", 5, group("Spear", 10, {**HARMLESS, "S": 5}),
                       hero("Captain", {**HARMLESS, "A": 3}))],
                 rules={"refusal": refusal}, max_rounds=1, challenge="always", accept="never")
    rows = plays(data, seed=18, engine=engine)
    taken = [r["attacker_wounds"] for r in rows]
    for k in (0, 2, 4):
        assert_rate(sum(w == k for w in taken), len(rows), binomial(k, attacks, Fraction(1, 4)),
                    f"P({k} wounds), refusal = {refusal}")


@pytest.mark.parametrize("engine", ENGINES)
def test_two_pursuers_catch_on_the_higher_roll_R2_13(engine):
    """R2-13: a unit fleeing from two chargers is caught when either pursuit roll is at
    least its flee roll: P(max(2D6, 2D6) >= 2D6), enumerated."""
    two_d6 = [a + b for a, b in itertools.product(range(1, 7), repeat=2)]
    caught = Fraction(sum(max(x, y) >= z for x in two_d6 for y in two_d6 for z in two_d6),
                      36 ** 3)
    data = fight([harmless("A"), harmless("B", facing="flank")],
                 [unit("Target", 10, group("T", 10, {**HARMLESS, "Ld": 1}))], max_rounds=1)
    rows = [r for r in plays(data, seed=15, engine=engine) if r["units"][1][0][0] in (UNIT_FLED, UNIT_CAUGHT)]
    n_caught = sum(r["units"][1][0][0] == UNIT_CAUGHT for r in rows)
    assert_rate(n_caught, len(rows), caught, "P(caught by one of two pursuers)")


@pytest.mark.parametrize("engine", ENGINES)
def test_each_losing_unit_takes_its_own_break_test_R2_12(engine):
    """R2-12: two charged units lose by 2 (charge, standard); each breaks on its own Ld:
    Ld 8 when 2D6 > 6, Ld 3 unless a double 1, independently."""
    data = fight([harmless("A", standard=True), harmless("B", charges="Rats")],
                 [unit("Orcs", 5, group("Orc", 5, {**HARMLESS, "Ld": 8})),
                  unit("Rats", 5, group("Rat", 5, {**HARMLESS, "Ld": 3}))], max_rounds=1)
    rows = plays(data, seed=16, engine=engine)
    broke = [[r["units"][1][i][0] in (UNIT_FLED, UNIT_CAUGHT) for r in rows] for i in (0, 1)]
    p = [Fraction(21, 36), Fraction(35, 36)]
    for i in (0, 1):
        assert_rate(sum(broke[i]), len(rows), p[i], f"P(unit {i} breaks)")
    assert_rate(sum(a and b for a, b in zip(*broke)), len(rows), p[0] * p[1], "P(both break)")


@pytest.mark.parametrize("name", ["whfb8_knights_lance_charge.toml",
                                  "whfb8_flank_charge_spearmen.toml"])
def test_one_unit_sides_play_as_the_one_unit_reference_R2_1(name):
    """R2-1 ... R2-14: a fight of one unit a side, written as lists of one unit, plays in
    the units reference as in tests/naive_whfb8.py (|z| < 4 on every shared column)."""
    plain = odds.load(SCENARIOS / name)
    data = plain.to_dict()
    data["attacker"], data["defender"] = ({"units": [data[k]]} for k in ("attacker", "defender"))
    listed = odds.from_dict(data)
    rng = random.Random(17)
    prepared = one.prepare(plain)
    a = [one.play_fight(plain, rng, prepared) for _ in range(2_000)]
    b = [naive.play(listed, rng) for _ in range(2_000)]
    for column in COLUMNS:
        z = z_score(np.array([r[column] for r in a]), np.array([r[column] for r in b]))
        assert abs(z) < 4, f"{name}: mean {column} z={z:.2f}"
