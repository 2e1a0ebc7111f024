"""whfb8 special rules as data (data/whfb8/special_rules.toml and a scenario's own
[special_rules]): each rule's per-attack probability against an enumeration of every die
(R2-7 to hit, R2-8 to wound, R2-9 saves), the one-die-at-a-time reference against the same
probability, rules that stack and rules that must not, and the data-only house rule."""
from __future__ import annotations

import itertools
import random
import subprocess
import sys
from fractions import Fraction

import naive_whfb8 as naive
import numpy as np
import pytest
import whfb8_plan as read
from exact_parity import assert_parity
from stats import assert_rate

import odds
from odds.errors import ScenarioError
from odds.rulesets.whfb8.compile import (
    FIGHTING,
    FIRST,
    IMPACT,
    LATER,
    MOUNT,
    STOMP,
    compile_plan,
)

GOBLIN = dict(M=4, WS=2, S=3, T=3, W=1, I=3, A=1, Ld=5)
WARRIOR = dict(M=4, WS=5, S=4, T=4, W=1, I=5, A=1, Ld=8)
TROLL = dict(M=6, WS=3, S=5, T=4, W=1, I=1, A=3, Ld=4)


def scenario(attacker_rules=(), defender_rules=(), attacker=GOBLIN, defender=WARRIOR,
             a_equipment=(), d_equipment=("full plate armour",), own=None, d_group=None,
             **engagement):
    data = {"ruleset": "whfb8", "name": "rules",
            "attacker": {"name": "A", "width": 5, "models": [
                {"name": "A", "count": 10, "profile": attacker, "equipment": list(a_equipment),
                 "rules": list(attacker_rules)}]},
            "defender": {"name": "D", "width": 5, "models": [
                {"name": "D", "count": 10, "profile": defender, "equipment": list(d_equipment),
                 "rules": list(defender_rules), **(d_group or {})}]},
            "engagement": engagement}
    if own:
        data["special_rules"] = own
    return odds.from_dict(data)


def die(ok, reroll=None, forced=False):
    """{face: P} of a die's final face, by listing both dice of a possible re-roll."""
    out = {f: Fraction(0) for f in range(1, 7)}
    for first, second in itertools.product(range(1, 7), repeat=2):
        again = ((reroll == "ones" and first == 1) or (reroll == "failures" and not ok(first))
                 or (forced and ok(first)))
        out[second if again else first] += Fraction(1, 36)
    return out


def enumerated(hit_need, wound_need, save_need, ward_need, *, reroll_hit=None,
               reroll_wound=None, hit_mod=0, wound_mod=0, poisoned=False, killing=False,
               ignores=False, reroll_save=None, forced_save=False, reroll_ward=None):
    """P(unsaved wound) of one attack, summed over every final face of every die: the
    rulebook's steps written out (hit, wound, armour, ward), independent of odds.core.effects."""
    def rolls(need, mod):
        return lambda f: f != 1 and (f == 6 or f + mod >= need)

    def saves(need):
        return lambda f: f != 1 and f >= need

    total = Fraction(0)
    for h, ph in die(rolls(hit_need, hit_mod), reroll_hit).items():
        if not rolls(hit_need, hit_mod)(h):
            continue
        outcomes = [(True, False, ph)] if (poisoned and h == 6) else []  # (wounded, no armour)
        if not outcomes and wound_need <= 6:
            for w, pw in die(rolls(wound_need, wound_mod), reroll_wound).items():
                if rolls(wound_need, wound_mod)(w):
                    outcomes.append((True, killing and w == 6, ph * pw))
        for _, no_armour, p in outcomes:
            if not (no_armour or ignores) and save_need <= 6:
                p *= sum(q for f, q in die(saves(save_need), reroll_save, forced_save).items()
                         if not saves(save_need)(f))
            if ward_need <= 6:
                p *= sum(q for f, q in die(saves(ward_need), reroll_ward).items()
                         if not saves(ward_need)(f))
            total += p
    return float(total)


def p(sc, s=0, r=LATER, part=FIGHTING):
    return read.p_unsaved(compile_plan(sc), r, s, part)


# Goblins (WS2 S3) against Warriors (WS5 T4, full plate: 4+, no shield so no parry):
# to hit 5+ (WS5 is more than twice WS2), to wound 5+. Warriors against Goblins (T3, no armour): 3+ and 3+.
CASES = {
    "Poisoned Attacks": (dict(attacker_rules=["Poisoned Attacks"]),
                         dict(hit_need=5, wound_need=5, save_need=4, ward_need=7,
                              poisoned=True)),
    "Killing Blow": (dict(attacker_rules=["Killing Blow"]),
                     dict(hit_need=5, wound_need=5, save_need=4, ward_need=7, killing=True)),
    "Armour Piercing": (dict(attacker_rules=["Armour Piercing"]),
                        dict(hit_need=5, wound_need=5, save_need=5, ward_need=7)),
    "Regeneration": (dict(defender_rules=["Regeneration"]),
                     dict(hit_need=5, wound_need=5, save_need=4, ward_need=4)),
    "Regeneration, Flaming Attacks": (
        dict(attacker_rules=["Flaming Attacks"], defender_rules=["Regeneration"]),
        dict(hit_need=5, wound_need=5, save_need=4, ward_need=7)),
    "Poisoned Attacks, Killing Blow": (
        dict(attacker_rules=["Poisoned Attacks", "Killing Blow"]),
        dict(hit_need=5, wound_need=5, save_need=4, ward_need=7, poisoned=True, killing=True)),
    "Killing Blow, Armour Piercing, Regeneration": (
        dict(attacker_rules=["Killing Blow", "Armour Piercing"], defender_rules=["Regeneration"]),
        dict(hit_need=5, wound_need=5, save_need=5, ward_need=4, killing=True)),
    "house: re-roll wounds of 1, +1 to hit, enemy re-rolls saves": (
        dict(attacker_rules=["Vicious"], own={"Vicious": {
            "reroll_wound": "ones", "hit_modifier": 1, "enemy_rerolls_armour": True}}),
        dict(hit_need=5, wound_need=5, save_need=4, ward_need=7, reroll_wound="ones",
             hit_mod=1, forced_save=True)),
    "house: -2 to wound, own armour re-rolled": (
        dict(attacker_rules=["Feeble"], defender_rules=["Blessed"],
             own={"Feeble": {"wound_modifier": -2}, "Blessed": {"reroll_armour": "failures"}}),
        dict(hit_need=5, wound_need=5, save_need=4, ward_need=7, wound_mod=-2,
             reroll_save="failures")),
    "house: always hits on 3+ and wounds on 4+, -1 to hit": (
        dict(attacker_rules=["Sure", "Surer", "Clumsy"],
             own={"Sure": {"hits_on": 4, "wounds_on": 4}, "Surer": {"hits_on": 3},
                  "Clumsy": {"hit_modifier": -1}}),
        dict(hit_need=3, wound_need=4, save_need=4, ward_need=7, hit_mod=-1)),
    "house: ignores armour, ward re-rolled": (
        dict(attacker_rules=["Piercing"], defender_rules=["Regeneration", "Lucky"],
             own={"Piercing": {"ignores_armour": True}, "Lucky": {"reroll_ward": "ones"}}),
        dict(hit_need=5, wound_need=5, save_need=4, ward_need=4, ignores=True,
             reroll_ward="ones")),
}


@pytest.mark.parametrize("case", CASES)
def test_per_attack_probability_matches_enumeration(case):
    """R2-7, R2-8, R2-9 with special rules: the compiled per-attack probability is the
    enumeration of every die."""
    sc_args, chain = CASES[case]
    assert p(scenario(**sc_args)) == pytest.approx(enumerated(**chain), abs=1e-15)


def test_hatred_first_round_only_and_not_stacked_with_ones():
    """R2-7 Hatred (a rule with when = "first round"): re-roll misses in the first round;
    with a re-roll of 1s too, the die is still re-rolled once (failures include ones)."""
    own = {"Grudging": {"reroll_hit": "ones"}}
    sc = scenario(["Hatred", "Grudging"], own=own)
    assert p(sc, r=FIRST) == pytest.approx(
        enumerated(5, 5, 4, 7, reroll_hit="failures"), abs=1e-15)
    assert p(sc, r=LATER) == pytest.approx(enumerated(5, 5, 4, 7, reroll_hit="ones"), abs=1e-15)


def test_modifiers_add():
    """Two +1 to hit rules make +2 (modifiers stack); a natural 1 still misses."""
    own = {"Keen": {"hit_modifier": 1}, "Keener": {"hit_modifier": 1}}
    sc = scenario(["Keen", "Keener"], own=own)
    assert p(sc) == pytest.approx(enumerated(5, 5, 4, 7, hit_mod=2), abs=1e-15)
    assert p(scenario(["Keen", "Keener", "Armour Piercing"], own=own)) > p(sc)


def test_a_fixed_roll_lets_a_hit_wound_that_the_chart_forbids():
    """wounds_on = 6 against T10: the chart says S3 cannot wound, the rule says a 6 does."""
    sc = scenario(["Grim"], own={"Grim": {"wounds_on": 6}}, defender={**WARRIOR, "T": 10})
    assert p(scenario(defender={**WARRIOR, "T": 10})) == 0.0
    assert p(sc) == pytest.approx(enumerated(5, 6, 4, 7), abs=1e-15)


def test_regeneration_and_ward_take_the_best_one():
    """R2-9: one ward save only, the best of the profile's Ward and Regeneration."""
    sc = scenario(defender_rules=["Regeneration"], defender={**WARRIOR, "Ward": 5})
    assert p(sc) == pytest.approx(enumerated(5, 5, 4, 4), abs=1e-15)
    sc = scenario(defender_rules=["Regeneration"], defender={**WARRIOR, "Ward": 3})
    assert p(sc) == pytest.approx(enumerated(5, 5, 4, 3), abs=1e-15)


def test_killing_blow_man_sized_only():
    """Killing Blow does not slay monstrous infantry; Heroic Killing Blow does."""
    monster = dict(d_group={"troop_type": "monstrous infantry"})
    plain = p(scenario(**monster))
    assert p(scenario(["Killing Blow"], **monster)) == plain
    assert p(scenario(["Heroic Killing Blow"], **monster)) == pytest.approx(
        enumerated(5, 5, 4, 7, killing=True), abs=1e-15)


def test_mounts_do_not_use_the_riders_rules():
    """A rider's Poisoned Attacks do not poison its steed's attacks."""
    knight = dict(M=4, WS=4, S=4, T=3, W=1, I=3, A=1, Ld=8)
    data = scenario(["Poisoned Attacks"], attacker=knight).to_dict()
    group = data["attacker"]["models"][0]
    group.update(troop_type="cavalry", mount={"WS": 3, "S": 3, "I": 3, "A": 1})
    sc = odds.from_dict(data)
    plain = odds.from_dict({**data, "attacker": {**data["attacker"], "models": [
        {**group, "rules": []}]}})
    assert p(sc, part=MOUNT) == p(plain, part=MOUNT)
    assert p(sc) > p(plain)


def test_devastating_charge_adds_an_attack_on_the_charge():
    """Devastating Charge (when = "charging"): +1 A in the first round, for the charger."""
    plan = compile_plan(scenario(["Devastating Charge"])).tables
    assert list(plan["first_attacks"][:, 0]) == [1, 0] and list(plan["attacks"][:, 0]) == [1, 1]
    plan = compile_plan(scenario(["Devastating Charge"], charger="defender")).tables
    assert list(plan["first_attacks"][:, 0]) == [0, 0]


def test_immune_to_psychology():
    """Never tests for Fear (R2-7), and may not flee as a charge reaction (R2-2)."""
    def tests_fear(sc):
        t = compile_plan(sc).tables
        return [int(t["causes_fear"][1 - s, 0] and not t["fear_immune"][s, 0]) for s in (0, 1)]

    assert tests_fear(scenario(["Fear"], ["Immune to Psychology"])) == [0, 0]
    assert tests_fear(scenario(["Fear"])) == [0, 1]
    with pytest.raises(ScenarioError, match="Immune to Psychology may not flee"):
        scenario(defender_rules=["Immune to Psychology"], reaction="flee", charge_distance=5)


@pytest.mark.parametrize("case", ["Poisoned Attacks, Killing Blow",
                                  "Killing Blow, Armour Piercing, Regeneration",
                                  "house: re-roll wounds of 1, +1 to hit, enemy re-rolls saves",
                                  "house: always hits on 3+ and wounds on 4+, -1 to hit"])
def test_reference_attack_matches_probability(case):
    """The reference's die-by-die attack (tests/naive_whfb8.py) against the enumerated
    probability: 40,000 attacks, |z| < 4."""
    sc_args, chain = CASES[case]
    sc = scenario(**sc_args)
    rng = random.Random(7)
    trials = 40_000
    assert_rate(naive.attack_sample(sc, rng, trials), trials, enumerated(**chain), case)


def test_weapon_effects_apply_when_fought_with():
    """A weapon entry may carry the same effects (a poisoned blade), used when it is the
    weapon the group fights with (R2-10)."""
    data = scenario().to_dict()
    data["attacker"]["models"][0]["equipment"] = ["venom blade"]
    data["weapons"] = {"venom blade": {"poisoned": True}}
    assert p(odds.from_dict(data)) == pytest.approx(
        enumerated(5, 5, 4, 7, poisoned=True), abs=1e-15)


def test_kernel_and_exact_solver_play_special_rules():
    """R2-4, R2-7 ... R2-9: special rules in a whole fight, simulated against solved exactly
    (both read the plan's per-attack probabilities and first-round attacks)."""
    assert_parity(scenario(["Poisoned Attacks", "Devastating Charge"],
                           ["Regeneration", "Hatred"]), trials=100_000)


ERRORS = [
    (dict(attacker_rules=["Poisoned Atacks"]), "unknown special rule 'Poisoned Atacks'"),
    (dict(attacker_rules=["X"], own={"X": {"poisned": True}}), "special_rules.X.poisned"),
    (dict(attacker_rules=["X"], own={"X": {"reroll_hit": "sixes"}}), "special_rules.X.reroll_hit"),
    (dict(attacker_rules=["X"], own={"X": {"stubborn": True, "when": "first round"}}),
     "special_rules.X.stubborn"),
    (dict(attacker_rules=["Hatred", "Hatred"]), "rules"),
]


@pytest.mark.parametrize("args, message", ERRORS)
def test_bad_special_rules_are_named(args, message):
    with pytest.raises(ScenarioError, match=message.replace("(", r"\(")):
        scenario(**args)


def test_other_rulesets_refuse_special_rules_tables():
    """d10skirmish has no special rules as data: a [special_rules] table is refused."""
    data = odds.load("data/scenarios/d10skirmish_blademaster_vs_brute.toml").to_dict()
    data["special_rules"] = {"X": {"poisoned": True}}
    with pytest.raises(ScenarioError, match="d10skirmish special rules are not data"):
        odds.from_dict(data)


def test_house_rule_in_a_file_runs_from_the_cli(tmp_path):
    """The data-only path: a new rule in the user's scenario file, no code (exit 0), and a
    typo in it is one line naming the key (exit 2)."""
    text = (open("data/scenarios/whfb8_chaos_warriors_vs_goblin_horde.toml").read()
            .replace('equipment = ["spear"', 'rules = ["Sneaky"]\nequipment = ["spear"', 1)
            + '\n[special_rules.Sneaky]\nreroll_hit = "ones"\npoisoned = true\n')
    path = tmp_path / "house.toml"
    path.write_text(text)
    run = subprocess.run([sys.executable, "-m", "odds", "simulate", str(path), "--trials",
                          "2000"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    path.write_text(text.replace("poisoned = true", "poisoned = 1"))
    run = subprocess.run([sys.executable, "-m", "odds", "simulate", str(path), "--trials",
                          "2000"], capture_output=True, text=True)
    assert run.returncode == 2 and "special_rules.Sneaky.poisoned" in run.stderr
    assert "Traceback" not in run.stderr


# --- rules that change how many attacks, hits or wounds there are -----------------------

DUEL = dict(M=4, WS=4, S=4, T=4, W=1, I=4, A=1, Ld=10)
HARMLESS = dict(M=4, WS=4, S=1, T=4, W=3, I=1, A=1, Ld=10)  # S1 cannot wound T10


def one_round(attacker_rules, defender_profile, trials=200_000, own=None):
    """defender_wounds of one round: one model of DUEL (T10, unharmed) against one model."""
    from odds.core import runner
    from odds.rulesets import get_ruleset

    data = {"ruleset": "whfb8", "name": "duel",
            "attacker": {"name": "A", "width": 1, "models": [
                {"name": "A", "count": 1, "profile": {**DUEL, "T": 10},
                 "rules": list(attacker_rules) + ["Unbreakable"]}]},
            "defender": {"name": "D", "width": 1, "models": [
                {"name": "D", "count": 1, "profile": defender_profile,
                 "rules": ["Unbreakable"]}]},
            "simulation": {"max_rounds": 1}, "special_rules": own or {}}
    ruleset = get_ruleset("whfb8")
    sc = odds.from_dict(data)
    _, rows = runner.run(ruleset, ruleset.compile(sc), trials, 11, keep_fights=True)
    return rows[6]


def test_multiple_wounds_d3_against_three_wounds():
    """R2-8 Multiple Wounds (D3): an unsaved wound (P = 1/2 * 1/2) becomes 1, 2 or 3."""
    wounds = one_round(["Multiple Wounds (D3)"], {**HARMLESS, "T": 4})
    for k, p_k in ((0, Fraction(3, 4)), (1, Fraction(1, 12)), (2, Fraction(1, 12)),
                   (3, Fraction(1, 12))):
        assert_rate(int((wounds == k).sum()), wounds.size, p_k, f"{k} wounds")


def test_multiple_wounds_capped_at_the_models_wounds():
    """Multiple Wounds (D6) against a W2 model: never more than the 2 it has."""
    wounds = one_round(["Multiple Wounds (D6)"], {**HARMLESS, "T": 4, "W": 2})
    assert wounds.max() == 2
    assert_rate(int((wounds == 2).sum()), wounds.size, Fraction(1, 4) * Fraction(5, 6), "2")


def test_killing_blow_slays_a_model_of_two_wounds():
    """R2-8 Killing Blow against W2: a natural 6 to wound (P 1/2 * 1/6) slays it, 2 wounds."""
    wounds = one_round(["Killing Blow"], {**HARMLESS, "T": 4, "W": 2})
    assert_rate(int((wounds == 2).sum()), wounds.size, Fraction(1, 12), "slain")
    assert_rate(int((wounds == 1).sum()), wounds.size, Fraction(1, 2) * Fraction(2, 6), "wound")


def test_random_attacks_d6():
    """R2-4 Random Attacks (D6): the model's attacks are a D6, each wounding with P 1/4."""
    wounds = one_round(["Random Attacks (D6)"], {**HARMLESS, "T": 4, "W": 10})
    want = sum(Fraction(1, 6) * Fraction(a, 4) for a in range(1, 7))
    mean = wounds.mean()
    sd = float(np.sqrt(wounds.var() / wounds.size))
    assert abs(mean - float(want)) < 4 * sd


def test_impact_hits_only_on_the_charge():
    """Impact Hits (D3): automatic hits in the round the unit charges, none when charged."""
    wounds = one_round(["Impact Hits (D3)"], {**HARMLESS, "T": 4, "W": 10})
    # the hits wound on 4+; the model's own attack wounds with P 1/4
    want = Fraction(2, 1) * Fraction(1, 2) + Fraction(1, 4)
    sd = float(np.sqrt(wounds.var() / wounds.size))
    assert abs(wounds.mean() - float(want)) < 4 * sd
    plan = compile_plan(scenario(["Impact Hits (D3)"], charger="defender"))
    assert not read.has(plan, 1, IMPACT)


def test_stomps_hit_infantry_only():
    """Stomp: one automatic hit per model in contact, every round, against infantry; none
    against cavalry or monstrous infantry (troop_types.toml)."""
    assert read.has(compile_plan(scenario(["Stomp"])), 0, STOMP)
    monster = dict(d_group={"troop_type": "monstrous infantry"})
    assert not read.has(compile_plan(scenario(["Stomp"], **monster)), 0, STOMP)


@pytest.mark.parametrize("rules, reason", [
    (["Random Attacks (D3)"], "rolls a number of attacks"),
    (["Impact Hits (D6)"], "rolls a number of attacks"),
    (["Thunderstomp"], "rolls a number of attacks"),
])
def test_the_exact_solver_says_what_it_cannot_take(rules, reason):
    """--method auto simulates these and says why; --method exact refuses them."""
    sc = scenario(rules)
    auto = odds.simulate(sc, method="auto", trials=2000, seed=1, quiet=True)
    assert auto.method == "mc" and reason in auto.method_note
    with pytest.raises(ScenarioError, match=reason):
        odds.simulate(sc, method="exact")


def test_exact_solver_refuses_multiple_wounds_against_several_wounds_R2_8():
    """Multiple Wounds against models of two wounds rolls each wound's worth: simulated,
    with the reason; against one-wound models it is one wound, solved."""
    w2 = dict(defender={**WARRIOR, "W": 2})
    with pytest.raises(ScenarioError, match="Multiple Wounds"):
        odds.simulate(scenario(["Multiple Wounds (D3)"], **w2), method="exact")
    assert odds.simulate(scenario(["Multiple Wounds (D3)", "Killing Blow"]),
                         method="exact").method == "exact"


def test_killing_blow_on_several_wounds_and_unstable_are_solved_R2_8_R2_12():
    """Killing Blow against models of two wounds (a pick of the slain among the attacks
    that did not wound) and Unstable (a wound lost a point of the margin): the exact solver
    plays them, against the kernel."""
    w2 = dict(defender={**WARRIOR, "W": 2})
    assert_parity(scenario(["Killing Blow"], ["Unstable"], **w2), trials=100_000)


def test_kernel_and_exact_solver_play_counted_hits_and_cold_blood():
    """Fixed Impact Hits and Stomps, and Cold-blooded Ld tests (R2-7, R2-12): the exact
    solver plays them, against the kernel."""
    ogre = dict(M=6, WS=3, S=4, T=4, W=3, I=2, A=3, Ld=7)
    assert_parity(scenario(["Impact Hits (1)", "Stomp", "Fear"], ["Cold-blooded"],
                           attacker=ogre, d_group={}), trials=100_000)


def test_strength_in_numbers_ld_R2_12():
    """Strength in Numbers: Ld + 1 per rank of five behind the front, at most 10, if it beats
    the general's; the exact solver plays it, against the kernel."""
    sc = scenario(defender_rules=["Strength in Numbers"], defender={**GOBLIN, "Ld": 5})
    plan = compile_plan(sc)
    assert [read.leadership(plan, (10, n), 1) for n in (4, 5, 10, 15, 40)] == \
        [5, 5, 6, 7, 10]
    assert_parity(sc, trials=100_000)


def test_daemonic_instability_is_solved_R2_12():
    """Daemonic Instability (a double 1 restores the round's losses, a double 6 banishes,
    else a wound a point over): the exact solver plays it, against the kernel."""
    data = scenario(["Daemonic Instability"]).to_dict()
    data["simulation"] = {"max_rounds": 3}  # Reality Blinks keeps many fights apart
    sc = odds.from_dict(data)
    assert odds.simulate(sc, method="auto", quiet=True).method == "exact"
    assert_parity(sc, trials=100_000)


def test_only_the_rare_rules_need_the_variant_that_keeps_their_steps_R2_8_R2_12():
    """kernel.rare: the rules whose steps a kernel variant leaves out when a plan has none
    (Multiple Wounds and Killing Blow only against models of more than one wound; against
    one wound each is an unsaved wound; Cold-blooded is a law of the plan, not a step). A plain plan plays the same fights in the variant that keeps the
    rare rules' steps as in its own, die for die."""
    from odds.core import walk
    from odds.rulesets import get_ruleset
    from odds.rulesets.whfb8 import fight, kernel

    rules = get_ruleset("whfb8")
    sc = odds.load("data/scenarios/whfb8_witch_elves_vs_swordsmen.toml")
    plan = rules.compile(sc)
    assert kernel.rare(plan) == 0
    assert kernel.rare(compile_plan(scenario(["Cold-blooded"]))) == 0
    assert kernel.rare(compile_plan(scenario(["Multiple Wounds (D3)"],
                                             defender={**WARRIOR, "W": 2}))) == 1
    assert kernel.rare(compile_plan(scenario(["Multiple Wounds (D3)"]))) == 0  # W1: one each
    assert kernel.rare(compile_plan(scenario(["Killing Blow"], defender={**WARRIOR, "W": 2}))) \
        == 1
    assert kernel.rare(compile_plan(scenario(["Killing Blow"]))) == 0  # W1: an unsaved wound
    sizes = kernel._sizes(plan)
    keeping = walk.kernel(fight, variant=sizes[:2] + (1,) + sizes[3:])
    records = []
    for play in (kernel.entry(plan), keeping):
        out = np.zeros((len(rules.columns(sc)), 20_000), np.int32)
        walk.play_in_threads(play, plan.packed, 3, 0, out)
        records.append(out)
    assert np.array_equal(*records) and len(np.unique(records[0][1])) > 1
