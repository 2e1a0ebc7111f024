"""Exact checks for blackpowder: kernel frequencies against closed-form dice maths (icepool).

Hits and saves in a round are sums of independent dice (binomial); combat results and the
break-test table give the end of a one-round fight exactly. Each frequency is compared with
its exact probability by a z-score on the kernel's standard error (|z| < 4, fixed seeds).
"""
from __future__ import annotations

import itertools
import math

import icepool
import numpy as np

import odds
from odds.core import runner
from odds.core.outcome import ATTACKER, DEFENDER, DESTROYED, FLED, NO_FIGHT
from odds.rulesets import get_ruleset
from odds.rulesets.blackpowder.compile import BREAK, HOLD, LOWEST, RETIRE, compile_plan

TRIALS = 200_000
RULESET = get_ruleset("blackpowder")
A_WOUNDS, D_WOUNDS = 5, 6  # rows of the outcome record


def unit(name, type_="infantry", hth=6, shooting=3, morale=4, stamina=12, **options):
    return {"name": name, "type": type_, "profile": {"hand_to_hand": hth, "shooting": shooting,
                                                     "morale": morale, "stamina": stamina},
            **options}


def scenario(attacker, defender, max_rounds=1, **engagement):
    return odds.from_dict({"ruleset": "blackpowder", "attacker": attacker, "defender": defender,
                           "engagement": engagement, "simulation": {"max_rounds": max_rounds}})


def rows(sc):
    runner.set_threads(2)
    _, out = runner.run(RULESET, compile_plan(sc), TRIALS, 99, keep_fights=True)
    return out.astype(np.int64)


def casualty_die(to_hit, save, reroll_misses=False):
    """One hand-to-hand die: 1 if it hits (to_hit+, every miss re-rolled if asked) and the
    enemy then fails its save (save+), else 0 (R4-6)."""
    faces = []
    for hit, reroll, saved in itertools.product(range(1, 7), repeat=3):
        hits = hit >= to_hit or (reroll_misses and reroll >= to_hit)
        faces.append(int(hits and saved < save))
    return icepool.Die(faces)


def assert_close(observed: np.ndarray, p: float, what: str):
    """Frequency of a boolean array against exact probability p."""
    se = math.sqrt(max(p * (1 - p), 1e-12) / len(observed))
    z = (observed.mean() - p) / se
    assert abs(z) < 4, f"{what}: observed {observed.mean():.5f}, exact {p:.5f}, z = {z:.2f}"


def assert_distribution(values: np.ndarray, die: icepool.Die, what: str):
    assert set(np.unique(values)) <= set(die.outcomes()), what
    for k in die.outcomes():
        assert_close(values == k, float(die.probability(k)), f"{what} = {k}")


def test_round_casualties_are_binomial_with_charge_bonus():
    """R4-6: dice = hand-to-hand, 4+ to hit (+1 charging, §5.3), failed saves are casualties."""
    out = rows(scenario(unit("A"), unit("D")))
    assert_distribution(out[D_WOUNDS], 6 @ casualty_die(3, 4), "defender casualties")
    assert_distribution(out[A_WOUNDS], 6 @ casualty_die(4, 4), "attacker casualties")


def test_flank_shaken_skirmish_and_march_column_modifiers():
    """R4-6 with §5.3: engaged in the flank -1, disordered -1, skirmish -1, march column save
    -2 (to hit clamped: a 6 always hits)."""
    out = rows(scenario(unit("A", formation="skirmish", status=["disordered"]),
                        unit("D", formation="march column", engaged=True), facing="flank"))
    assert_distribution(out[D_WOUNDS], 6 @ casualty_die(5, 6), "defender casualties")
    assert_distribution(out[A_WOUNDS], 6 @ casualty_die(5, 4), "attacker casualties")


def test_pikes_double_dice_against_cavalry_and_cancel_its_bonuses():
    """R4-5: pikes roll twice their dice; cavalry gets no charge bonus, no special rules."""
    out = rows(scenario(unit("C", "heavy cavalry", 9, rules=["ferocious charge", "lancers"]),
                        unit("P", "pikes", 6, 0)))
    assert_distribution(out[D_WOUNDS], 9 @ casualty_die(4, 4), "pike casualties")
    assert_distribution(out[A_WOUNDS], 12 @ casualty_die(4, 4), "cavalry casualties")


def test_counter_charge_both_charge_with_their_rules():
    """R4-4 counter-charge: both count as charging (+1 to hit, lancers -1 save, ferocious
    charge re-rolls misses)."""
    out = rows(scenario(unit("L", "cavalry", 7, rules=["lancers", "ferocious charge"]),
                        unit("C", "heavy cavalry", 9), reaction="counter-charge"))
    assert_distribution(out[D_WOUNDS], 7 @ casualty_die(3, 5, reroll_misses=True), "cuirassiers")
    assert_distribution(out[A_WOUNDS], 9 @ casualty_die(3, 4), "lancers")


def test_counter_charge_against_infantry_only_cavalry_charges():
    """R4-4: a counter-charge against infantry gives charge bonuses to the cavalry only."""
    out = rows(scenario(unit("I"), unit("C", "cavalry", 6), reaction="counter-charge"))
    assert_distribution(out[D_WOUNDS], 6 @ casualty_die(4, 4), "cavalry casualties")
    assert_distribution(out[A_WOUNDS], 6 @ casualty_die(3, 4), "infantry casualties")


def test_turn_to_face_cancels_the_rear_penalty():
    """R4-4 turn to face: cavalry charged in the rear fights at its front."""
    turned = rows(scenario(unit("I"), unit("C", "cavalry"), facing="rear",
                           reaction="turn to face"))
    stood = rows(scenario(unit("I"), unit("C", "cavalry"), facing="rear"))
    assert_distribution(turned[A_WOUNDS], 6 @ casualty_die(4, 4), "turned")
    assert_distribution(stood[A_WOUNDS], 6 @ casualty_die(5, 4), "stood")


def test_hedgehog_order_roll_gives_an_all_round_front():
    """R4-4 hedgehog: on 2D6 <= the order target the pikes face every way (so R4-5 applies
    even to a rear charge); otherwise they fight to the rear at -1 with single dice."""
    out = rows(scenario(unit("C", "cavalry", 8), unit("P", "pikes", 6, 0), facing="rear",
                        reaction="hedgehog", hedgehog_order=6))
    formed = float((2 @ icepool.d6 <= 6).probability(True))
    single, double = 6 @ casualty_die(5, 4), 12 @ casualty_die(4, 4)
    for k in range(13):
        p = formed * float(double.probability(k)) + (1 - formed) * float(single.probability(k))
        assert_close(out[A_WOUNDS] == k, p, f"cavalry casualties = {k}")


def _one_round_ends(x: icepool.Die, y: icepool.Die, bonus: int, attacker_cavalry=False):
    """Exact P(attacker wins by break), P(attacker wins by retire) and the same for the
    defender in one round: results X + bonus against Y, the loser tests 2D6 - margin (§5.5:
    4 or less breaks, 5-6 retires); nobody is shaken. A drawn round sends unshaken cavalry
    back (§5.4), infantry holds."""
    diff = (x - y + bonus)
    two = 2 @ icepool.d6
    ends = {}
    for winner, sign in ((ATTACKER, 1), (DEFENDER, -1)):
        broke = retired = 0.0
        for m in range(1, 40):
            pm = float(diff.probability(sign * m))
            broke += pm * float((two - m <= 4).probability(True))
            retired += pm * float((two - m).map(lambda v: 5 <= v <= 6).probability(True))
        ends[winner, DESTROYED], ends[winner, FLED] = broke, retired
    if attacker_cavalry:
        ends[DEFENDER, FLED] += float(diff.probability(0))
    return ends


def test_combat_result_and_break_table_decide_the_round():
    """§5.3 combat result (casualties + rear and flank supports) and the §5.5 break table."""
    out = rows(scenario(unit("A", rear_support=True, flank_supports=2), unit("D")))
    ends = _one_round_ends(6 @ casualty_die(3, 4), 6 @ casualty_die(4, 4), 3)
    for (w, e), p in ends.items():
        assert_close((out[0] == w) & (out[1] == e), p, f"winner {w} end {e}")


def test_heavy_cavalry_d3_in_the_charge_round():
    """§5.3: heavy cavalry D3 adds D3 to the charging cavalry's combat result; §5.4: a drawn
    round sends unshaken cavalry back a full move (it retires)."""
    out = rows(scenario(unit("C", "heavy cavalry", 6, rules=["heavy cavalry D3"]), unit("D")))
    ends = _one_round_ends(6 @ casualty_die(3, 4) + (icepool.d6 + 1) // 2,
                           6 @ casualty_die(4, 4), 0, attacker_cavalry=True)
    for (w, e), p in ends.items():
        assert_close((out[0] == w) & (out[1] == e), p, f"winner {w} end {e}")


def test_closing_fire_can_break_the_charger():
    """R4-4 closing fire: shooting dice at +1 to hit (3+), artillery -2 on the save; a charger
    shaken by it tests at -1 per excess casualty, and a shaken unit that retires breaks."""
    out = rows(scenario(unit("H", "cavalry", 7, stamina=1),
                        unit("B", "artillery", 1, 4, morale=5), reaction="closing fire"))
    shots = 4 @ casualty_die(3, 6)
    two = 2 @ icepool.d6
    p = sum(float(shots.probability(k)) * float((two - (k - 1) <= 6).probability(True))
            for k in range(1, 5))
    assert_close((out[2] == 0) & (out[0] == DEFENDER) & (out[1] == DESTROYED), p, "broken")


def test_evade_and_square():
    """R4-4 evade (no fight, or destroyed without room); §5.4 cavalry halts at a steady square
    but fights a shaken one, which gets +3 and ignores all but break."""
    assert (rows(scenario(unit("I"), unit("C", "cavalry"), reaction="evade"))[1]
            == NO_FIGHT).all()
    trapped = rows(scenario(unit("I"), unit("C", "cavalry"), reaction="evade", evade_room=False))
    assert ((trapped[0] == ATTACKER) & (trapped[1] == DESTROYED) & (trapped[2] == 0)).all()
    assert (rows(scenario(unit("C", "cavalry"), unit("S", formation="square")))[1]
            == NO_FIGHT).all()
    out = rows(scenario(unit("C", "cavalry"), unit("S", formation="square",
                                                   status=["disordered"])))
    assert not ((out[0] == ATTACKER) & (out[1] == FLED)).any()  # squares never retire


def test_combat_result_bonuses_in_the_plan():
    """§5.3 arithmetic: supports (not when engaged in the flank; one unit a side, they hold
    all fight and are summed in), square against cavalry, buildings, heavy cavalry +1 in the
    charge round only, cancelled by pikes (R4-5)."""
    plan = compile_plan(scenario(unit("A", rules=["heavy cavalry +1"], rear_support=True),
                                 unit("D", flank_supports=2, building=2), facing="flank"))
    assert plan.result_bonus[0, :, 0, 1].tolist() == [2, 1]   # rear support, +1 when charging
    assert plan.result_bonus[0, :, 1, 0].tolist() == [2, 2]   # building only: flank-engaged
    assert not plan.supported.any()  # nothing left to work out each round
    assert plan.flank_of[0, 1, 0] and not plan.flank_of[0, 0, 1]  # the defender is flanked
    plan = compile_plan(scenario(unit("C", "cavalry", rules=["heavy cavalry +1"]),
                                 unit("S", formation="square", status=["shaken"],
                                      rear_support=True)))
    assert plan.result_bonus[0, :, 1, 0].tolist() == [3, 3]  # a square gets no support
    assert plan.result_bonus[0, :, 0, 1].tolist() == [0, 0]  # no charge bonus into a square
    plan = compile_plan(scenario(unit("C", "heavy cavalry", rules=["heavy cavalry D3"]),
                                 unit("P", "pikes")))
    assert not plan.result_d3.any()


def test_break_table_bands():
    """§5.5 table from data/blackpowder/break_test.toml: <= 4 break, 5-6 retire, 7+ hold."""
    plan = compile_plan(scenario(unit("A"), unit("D")))
    for score in range(LOWEST, 13):
        expected = BREAK if score <= 4 else RETIRE if score <= 6 else HOLD
        assert plan.band[score - LOWEST] == expected, score
    assert plan.shaken_retire_breaks


def order_chance(rating, needed):
    """P(the order brings the charger in) by hand from the bundled table (R4-1): 2D6 at most
    the rating gives one move (at it or 1 under), two (2 under) or three (3 or more); a 12
    blunders: a D6 of 5 is one move at the target, a 6 a further D6's moves (1-2 one, 3-4
    two, 5-6 three)."""
    moves = {1: 1, 2: 1, 3: 2, 4: 2, 5: 3, 6: 3}
    blunder = (float(needed <= 1) + sum(moves[d] >= needed for d in range(1, 7)) / 6) / 6
    two = 2 @ icepool.d6
    given = sum(float(two.probability(r)) for r in range(2, 12)
                if r <= rating and (1 if rating - r <= 1 else min(rating - r, 3)) >= needed)
    return given + float(two.probability(12)) * blunder


def test_a_failed_order_is_no_fight_R4_1():
    """The kernel's fights that never start, against the order table by hand."""
    out = rows(scenario(unit("H", "cavalry"), unit("D"), staff_rating=8, charge_distance=20))
    assert_close(out[1] == NO_FIGHT, 1.0 - order_chance(8, 2), "P(no fight)")


def test_terrifying_charge_breaks_or_drives_off_before_the_melee():
    """§5.3: the charged unit's break test with no deduction, before any round."""
    out = rows(scenario(unit("T", rules=["terrifying charge"]), unit("D")))
    two = 2 @ icepool.d6
    before = out[2] == 0
    assert_close(before & (out[1] == DESTROYED), float((two <= 4).probability(True)), "broken")
    assert_close(before & (out[1] == FLED), float((two <= 6).probability(True)
                                                   - (two <= 4).probability(True)), "retired")
