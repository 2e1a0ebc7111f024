"""Exact checks of the wh40k3 data, compiled plan and numba kernel against closed forms
(RULES.md §1; odds/rulesets/wh40k3/README.md).

Expected values are exact fractions (``icepool`` for the dice, ``fractions`` otherwise) from
the closed-form rules of RULES.md §1.1, never from the charts under test. Simulated frequencies
are compared with a binomial z bound (|z| < Z_MAX) or a chi-square test (p > P_MIN), fixed
seeds, so every test is deterministic but can fail.
"""
from __future__ import annotations

import math
import tomllib
from fractions import Fraction

from stats import assert_rate

import icepool
import numpy as np
import pytest
from scipy.stats import chi2

import odds
from odds.core.data import data_path
from odds.core.outcome import ATTACKER, DEFENDER, NO_FIGHT
from odds.rulesets import get_ruleset
from odds.rulesets.wh40k3 import rules
from odds.rulesets.wh40k3.compile import CONTACT, LATER, REACH, p_roll

P_MIN = 1e-4       # chi-square p-value bound (about |z| < 3.9 for one bin)
TRIALS = 200_000
SEED = 314159

D6 = icepool.d6
TWO_D6 = D6 + D6


# --- closed forms (RULES.md §1.1) ----------------------------------------------------------

def to_hit_closed_form(ws_attacker: int, ws_defender: int) -> int:
    """3+ if the attacker's WS is higher; 5+ if the defender's is more than twice it; else 4+."""
    if ws_attacker > ws_defender:
        return 3
    if ws_defender > 2 * ws_attacker:
        return 5
    return 4


def to_wound_closed_form(s: int, t: int):
    """2+ if S >= T+2, 3+ S = T+1, 4+ S = T, 5+ S = T-1, 6+ S = T-2 or T-3, "N" S <= T-4."""
    if s >= t + 2:
        return 2
    if s == t + 1:
        return 3
    if s == t:
        return 4
    if s == t - 1:
        return 5
    if s >= t - 3:
        return 6
    return "N"


def p_at_least(target) -> Fraction:
    """P(D6 >= target), exact; "N" or None (no roll allowed) never succeeds."""
    if target in ("N", None):
        return Fraction(0)
    return Fraction(D6.probability(">=", target))


# --- scenarios -----------------------------------------------------------------------------

GROUP_OPTIONS = ("character", "monstrous", "fights_with")


def M(name, count=1, equipment=(), **kw):
    options = {k: kw.pop(k) for k in GROUP_OPTIONS if k in kw}
    return {"name": name, "count": count, "profile": kw, "equipment": list(equipment), **options}


def scenario(attacker, defender, *, engagement=None, max_rounds=1, attacker_side=None,
             defender_side=None, weapons=None):
    data = {
        "ruleset": "wh40k3", "name": "exact",
        "attacker": {"name": "A", "models": attacker, **(attacker_side or {})},
        "defender": {"name": "D", "models": defender, **(defender_side or {})},
        "engagement": engagement or {}, "simulation": {"max_rounds": max_rounds},
    }
    if weapons:
        data["weapons"] = weapons
    return odds.from_dict(data)




def assert_distribution(counts: np.ndarray, pmf: dict[int, Fraction], what: str) -> None:
    """Histogram ``counts`` (index = value) against the exact pmf: no mass outside its
    support, and chi-square (bins with expected < 5 pooled) p-value > P_MIN."""
    n = int(counts.sum())
    assert sum(pmf.values()) == 1
    outside = [k for k in range(len(counts)) if counts[k] and pmf.get(k, 0) == 0]
    assert not outside, f"{what}: values {outside} have probability 0"
    observed, expected = [], []
    pool_o, pool_e = 0.0, 0.0
    for k in sorted(pmf):
        pool_o += counts[k] if k < len(counts) else 0
        pool_e += float(pmf[k]) * n
        if pool_e >= 5:
            observed.append(pool_o)
            expected.append(pool_e)
            pool_o, pool_e = 0.0, 0.0
    if pool_e > 0 and expected:  # leftover tail joins the last bin
        observed[-1] += pool_o
        expected[-1] += pool_e
    observed, expected = np.array(observed), np.array(expected)
    stat = float(((observed - expected) ** 2 / expected).sum())
    p_value = float(chi2.sf(stat, len(expected) - 1))
    assert p_value > P_MIN, f"{what}: chi-square {stat:.1f} on {len(expected) - 1} df, p = {p_value:.2e}"


def binomial_pmf(n: int, p: Fraction) -> dict[int, Fraction]:
    return {k: math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)}


# --- (a) the charts --------------------------------------------------------------------------

def _chart_cells(key: str):
    with open(data_path("wh40k3", "charts.toml"), "rb") as f:
        rows = tomllib.load(f)[key]
    assert len(rows) == 10 and all(len(r) == 10 for r in rows)
    return [(i + 1, j + 1, v) for i, row in enumerate(rows) for j, v in enumerate(row)]


def test_to_hit_chart_matches_closed_form_R0_5():
    """All 100 cells of the to-hit chart (charts.toml and rules.charts()) equal the §1.1 rule."""
    cells = _chart_cells("to_hit")
    loaded, _ = rules.charts()
    assert len(cells) == 100
    wrong = [(a, d, v) for a, d, v in cells
             if v != to_hit_closed_form(a, d) or loaded[a - 1][d - 1] != v]
    assert not wrong, f"(WS attacker, WS defender, chart) off the closed form: {wrong}"


def test_to_wound_chart_matches_closed_form_R0_7():
    """All 100 cells of the damage chart equal the §1.1 rule ("N" loaded as "never")."""
    cells = _chart_cells("to_wound")
    _, loaded = rules.charts()
    assert len(cells) == 100
    wrong = [(s, t, v) for s, t, v in cells if v != to_wound_closed_form(s, t)
             or loaded[s - 1][t - 1] != (rules.NO_SAVE if v == "N" else v)]
    assert not wrong, f"(S, T, chart) off the closed form: {wrong}"


def test_p_roll_is_exact_R0_5():
    """compile.p_roll(x) = P(D6 >= x), 7+ never."""
    for target in range(1, 9):
        expected = p_at_least(target) if target <= 6 else Fraction(0)
        assert p_roll(target) == pytest.approx(float(expected), abs=1e-15)


# --- (b) per-attack probabilities in the compiled plan ---------------------------------------

MARINE = dict(WS=4, S=4, T=4, W=1, I=4, A=1, Ld=8, Sv=3)

# (id, attacker group, target profile, in contact, within 2"): for each place the strength
# the attack is made at and the armour save the target may take (None: no armour save),
# worked out by hand from R0-2 / R0-8; the target's Inv, if any, is always allowed.
PLAN_CASES = [
    ("R0-8_ccw_vs_guard",
     M("Marine", 1, ["chainsword"], **MARINE),
     dict(WS=3, S=3, T=3, W=1, I=3, A=1, Ld=7, Sv=5),
     dict(S=4, armour=5), dict(S=4, armour=5)),
    ("R0-8_power_fist_S_x2_no_armour_inv",
     M("Sergeant", 1, ["power fist", "bolt pistol"], **MARINE),
     dict(WS=4, S=4, T=4, W=1, I=4, A=2, Ld=9, Sv=2, Inv=5),
     dict(S=8, armour=None), dict(S=4, armour=2)),
    ("R0-8_power_fist_S_cap_10",
     M("Dread", 1, ["power fist"], **dict(MARINE, WS=6, S=6)),
     dict(WS=10, S=4, T=10, W=1, I=4, A=1, Ld=9, Sv=3),
     dict(S=10, armour=None), dict(S=6, armour=3)),
    ("R0-8_choppa_cap_better_than_inv",
     M("Boy", 1, ["slugga", "choppa"], **dict(WS=4, S=3, T=4, W=1, I=2, A=2, Ld=7, Sv=6)),
     dict(WS=4, S=4, T=4, W=1, I=4, A=1, Ld=9, Sv=2, Inv=5),
     dict(S=3, armour=4), dict(S=3, armour=2)),
    ("R0-8_choppa_cap_irrelevant",
     M("Boy", 1, ["choppa"], **dict(WS=4, S=3, T=4, W=1, I=2, A=2, Ld=7, Sv=6)),
     dict(WS=2, S=3, T=2, W=1, I=3, A=1, Ld=7, Sv=5),
     dict(S=3, armour=5), dict(S=3, armour=5)),
    ("R0-8_power_sword_no_armour",
     M("Captain", 1, ["power sword"], **dict(MARINE, WS=5)),
     dict(WS=2, S=3, T=3, W=1, I=3, A=1, Ld=7, Sv=3),
     dict(S=4, armour=None), dict(S=4, armour=3)),
    ("R0-5_to_hit_5plus-R0-8_monstrous_inv",
     M("Beast", 1, [], monstrous=True, **dict(MARINE, WS=3, S=6)),
     dict(WS=7, S=4, T=4, W=1, I=4, A=1, Ld=9, Sv=2, Inv=4),
     dict(S=6, armour=None), dict(S=6, armour=None)),
    ("R0-7_N_cannot_wound",
     M("Grot", 1, [], **dict(WS=2, S=1, T=2, W=1, I=2, A=1, Ld=5)),
     dict(WS=1, S=5, T=5, W=1, I=4, A=1, Ld=9, Sv=3),
     dict(S=1, armour=3), dict(S=1, armour=3)),
    ("R0-8_inline_strength_bonus_and_cap",
     M("Stalker", 1, ["claw"], **dict(MARINE, S=4)),
     dict(WS=4, S=4, T=6, W=1, I=4, A=1, Ld=9, Sv=4),
     dict(S=5, armour=4), dict(S=4, armour=4)),
    ("R0-8_inline_negative_bonus_floor_S1",
     M("Weakling", 1, ["club"], **dict(MARINE, S=2)),
     dict(WS=4, S=4, T=4, W=1, I=4, A=1, Ld=9, Sv=6),
     dict(S=1, armour=6), dict(S=2, armour=6)),
    ("R0-2_declined_fist_normal_attack",
     M("Sergeant", 1, ["power fist"], fights_with="none", **MARINE),
     dict(WS=4, S=4, T=4, W=1, I=4, A=1, Ld=9, Sv=3),
     dict(S=4, armour=3), dict(S=4, armour=3)),
    ("R0-8_no_save_at_all",
     M("Marine", 1, ["chainsword"], **MARINE),
     dict(WS=4, S=3, T=3, W=1, I=3, A=1, Ld=7),
     dict(S=4, armour=None), dict(S=4, armour=None)),
]
INLINE = {"claw": {"strength_bonus": 3, "strength_cap": 5},
          "club": {"strength_bonus": -4}}


@pytest.mark.parametrize("attacker, target, contact, reach",
                         [pytest.param(*c[1:], id=c[0]) for c in PLAN_CASES])
def test_plan_per_attack_probabilities_R0_5_R0_7_R0_8(attacker, target, contact, reach):
    """Plan p_wound = P(hit) * P(wound) and p_unsaved = P(no save) for a model in contact
    (fighting weapon, R0-8) and within 2" (profile S, no special effect, R0-2), and their
    product, equal the exact fractions."""
    sc = scenario([attacker], [M("Target", 1, [], **target)], weapons=INLINE)
    plan = get_ruleset("wh40k3").compile(sc)
    for place, spec in ((CONTACT, contact), (REACH, reach)):
        p_hit = p_at_least(to_hit_closed_form(attacker["profile"]["WS"], target["WS"]))
        p_wound = p_at_least(to_wound_closed_form(spec["S"], target["T"]))
        allowed = [v for v in (spec["armour"], target.get("Inv")) if v is not None]
        p_unsaved = 1 - p_at_least(min(allowed)) if allowed else Fraction(1)
        got_wound = plan.p_wound[plan.chance[LATER], 0, 0, place, 0]
        got_unsaved = plan.p_unsaved[0, 0, place, 0]
        where = "contact" if place == CONTACT else "within 2in"
        assert got_wound == pytest.approx(float(p_hit * p_wound), abs=1e-12), where
        assert got_unsaved == pytest.approx(float(p_unsaved), abs=1e-12), where
        assert got_wound * got_unsaved == pytest.approx(float(p_hit * p_wound * p_unsaved),
                                                        abs=1e-12), where


# --- (c) one round: casualties are Binomial(attacks, p) ---------------------------------------

def test_single_round_kills_binomial_only_attacker_wounds_R0_3_R0_5_R0_7_R0_8():
    """8 marines (A 1, +1 two weapons, +1 charge = 24 attacks) against 30 guards that cannot
    hurt them (S 1 vs T 5: "N"). One round, no pursuit (a caught unit would count as all
    lost): defender_lost = defender_wounds ~ Binomial(24, 2/3 * 2/3 * 2/3)."""
    sc = scenario([M("Marine", 8, ["bolt pistol", "chainsword"], **dict(MARINE, T=5))],
                  [M("Guard", 30, ["laspistol"],
                     **dict(WS=3, S=1, T=3, W=1, I=3, A=1, Ld=7, Sv=5))],
                  engagement={"pursue": False})
    p = (p_at_least(to_hit_closed_form(4, 3)) * p_at_least(to_wound_closed_form(4, 3))
         * (1 - p_at_least(5)))
    assert p == Fraction(8, 27)
    r = odds.simulate(sc, trials=TRIALS, seed=SEED)
    assert r.tally.histogram("attacker_lost")[1:].sum() == 0
    pmf = binomial_pmf(24, p)
    assert_distribution(r.tally.histogram("defender_lost"), pmf, "defender_lost")
    assert_distribution(r.tally.histogram("defender_wounds"), pmf, "defender_wounds")


def test_single_round_first_striker_kills_binomial_both_strike_R0_4_R0_5_R0_7_R0_8():
    """Both sides can wound, but the Ork boyz (I 4, choppa vs Sv 3 capped to 4+) strike
    before the guards (I 2). The guards' blows cannot remove orks, so with 40 targets
    defender_lost ~ Binomial(10 x 3, P(hit) P(wound) P(unsaved)). No pursuit."""
    sc = scenario([M("Boy", 10, ["slugga", "choppa"],
                     **dict(WS=4, S=3, T=4, W=1, I=4, A=1, Ld=7, Sv=6))],
                  [M("Guard", 40, ["laspistol"],
                     **dict(WS=3, S=3, T=3, W=1, I=2, A=1, Ld=7, Sv=3))],
                  engagement={"pursue": False})
    p = (p_at_least(to_hit_closed_form(4, 3)) * p_at_least(to_wound_closed_form(3, 3))
         * (1 - p_at_least(4)))
    r = odds.simulate(sc, trials=TRIALS, seed=SEED + 1)
    assert r.tally.histogram("attacker_lost")[1:].sum() > 0  # the guards do strike back
    assert_distribution(r.tally.histogram("defender_lost"), binomial_pmf(30, p),
                        "defender_lost")


def test_single_round_many_attacks_past_table_cap_R0_3_R0_5_R0_7():
    """100 boyz x (A 2 + charge) = 300 attacks, more than the binomial tables hold
    (odds.core.binomial.CAP), against 300 guards who cannot hurt them and have no save:
    defender_lost ~ Binomial(300, P(hit) P(wound))."""
    sc = scenario([M("Boy", 100, ["choppa"], **dict(WS=4, S=3, T=5, W=1, I=2, A=2, Ld=7))],
                  [M("Guard", 300, [], **dict(WS=3, S=1, T=3, W=1, I=3, A=1, Ld=7))],
                  engagement={"pursue": False})
    p = p_at_least(to_hit_closed_form(4, 3)) * p_at_least(to_wound_closed_form(3, 3))
    r = odds.simulate(sc, trials=50_000, seed=SEED + 2)
    assert_distribution(r.tally.histogram("defender_lost"), binomial_pmf(300, p),
                        "defender_lost")


def test_single_round_multiwound_wounded_first_R0_9_R0_10():
    """Against W 2 models the unsaved wounds are still Binomial(24, p) (wounds that do not
    kill count, R0-10), and wounded-first allocation (R0-9) makes the models lost exactly
    floor(wounds / 2)."""
    sc = scenario([M("Marine", 8, ["bolt pistol", "chainsword"], **dict(MARINE, T=5))],
                  [M("Ogryn", 30, [], **dict(WS=3, S=1, T=3, W=2, I=3, A=1, Ld=7, Sv=5))],
                  engagement={"pursue": False})
    p = Fraction(8, 27)
    pmf = binomial_pmf(24, p)
    lost = {}
    for k, q in pmf.items():
        lost[k // 2] = lost.get(k // 2, 0) + q
    r = odds.simulate(sc, trials=TRIALS, seed=SEED + 3)
    assert_distribution(r.tally.histogram("defender_wounds"), pmf, "defender_wounds")
    assert_distribution(r.tally.histogram("defender_lost"), lost, "defender_lost")


# --- (d) Leadership test ----------------------------------------------------------------------

def _loser_known(ld: int | None = None, side_ld: int | None = None, engagement=None):
    """The attacker (W 20, S 1 vs T 10: "N") can never wound nor die in one round; whenever
    it suffers a wound the defender won on wounds and the attacker tests (R0-10, R0-11)."""
    side = {"Ld": side_ld} if side_ld is not None else None
    return scenario([M("Grot", 1, [], WS=1, S=1, T=1, W=20, I=1, A=1, Ld=ld or 10)],
                    [M("Warboss", 1, [], WS=10, S=10, T=10, W=1, I=10, A=10, Ld=10)],
                    attacker_side=side, engagement=engagement)


def _lost_on_wounds(sc, seed):
    df = odds.simulate(sc, trials=TRIALS, seed=seed, keep_fights=True).fights()
    lost = df[df.attacker_wounds > 0]
    assert (lost.winner != "attacker").all()
    assert len(lost) > 0.99 * len(df)
    return lost


@pytest.mark.parametrize("ld, side_ld", [(1, None), (2, None), (5, None), (7, None),
                                         (9, None), (10, None), (10, 3), (2, 8)],
                         ids=lambda v: str(v))
def test_leadership_pass_is_2d6_at_most_Ld_R0_11(ld, side_ld):
    """P(pass) = P(2D6 <= Ld) exactly, Ld from the model or the side's Ld key (R0-11): with
    one round a pass ends unresolved, a fail flees or is caught."""
    lost = _lost_on_wounds(_loser_known(ld, side_ld), SEED + 10 + ld)
    effective = side_ld if side_ld is not None else ld
    passed = int((lost.end == "unresolved").sum())
    assert lost.end.isin(["unresolved", "fled", "caught"]).all()
    assert_rate(passed, len(lost), Fraction(TWO_D6.probability("<=", effective)),
                f"P(2D6 <= {effective})")


# --- (e) pursuit ------------------------------------------------------------------------------

PURSUIT_CASES = [  # engagement, P(caught) as an icepool die (None: never), R0-12
    ({}, TWO_D6 > TWO_D6),
    ({"pursuit_difficult_terrain": True}, TWO_D6 > TWO_D6),
    ({"pursuit_difficult_terrain": True, "pursuit_halving_affects_catch": True},
     TWO_D6 > 2 * TWO_D6),
    ({"pursue": False}, None),
]
PURSUIT_IDS = ["open_ground", "difficult_raw_dice", "difficult_halved", "pursue_false"]


@pytest.mark.parametrize("engagement, expected", PURSUIT_CASES, ids=PURSUIT_IDS)
def test_pursuit_catch_probability_R0_12(engagement, expected):
    """The loser (Ld 1) always fails; it is caught iff the winner's 2D6 beats its 2D6 fall
    back (1150/2592 on open ground), or half the pursuit roll beats it with
    pursuit_halving_affects_catch; pursue = false never catches (R0-12). A caught unit
    counts all its models lost."""
    if expected is None:
        p = Fraction(0)
    else:
        p = Fraction(expected.probability(True))
    if not engagement:
        assert p == Fraction(1150, 2592)
    lost = _lost_on_wounds(_loser_known(ld=1, engagement=engagement), SEED + 20)
    assert lost.end.isin(["fled", "caught"]).all()
    caught = lost[lost.end == "caught"]
    assert (caught.attacker_lost == 1).all()
    assert_rate(len(caught), len(lost), p, "P(caught | fled or caught)")


# --- (f) charge through difficult terrain -----------------------------------------------------

@pytest.mark.parametrize("distance", [1, 2, 3, 4, 5, 6, 3.5])
def test_charge_reaches_through_difficult_terrain_R0_1(distance):
    """P(charge reaches) = P(max(2D6) >= d) (R0-1); otherwise no fight: 0 rounds, nothing
    lost."""
    sc = scenario([M("A", 1, [], WS=4, S=4, T=4, W=1, I=4, A=1, Ld=7)],
                  [M("D", 1, [], WS=4, S=4, T=4, W=1, I=4, A=1, Ld=7)],
                  engagement={"charge_distance": distance,
                              "charge_through_difficult_terrain": True})
    p_reach = Fraction(icepool.highest(D6, D6).probability(">=", math.ceil(distance)))
    assert p_reach == 1 - Fraction(math.ceil(distance) - 1, 6) ** 2
    r = odds.simulate(sc, trials=TRIALS, seed=SEED + 30 + int(2 * distance))
    outcomes = r.tally.outcomes
    no_fight = int(outcomes[:, NO_FIGHT].sum())
    assert int(outcomes[:, NO_FIGHT, 0].sum()) == no_fight  # no fight: 0 rounds
    assert int(outcomes[ATTACKER, NO_FIGHT].sum() + outcomes[DEFENDER, NO_FIGHT].sum()) == 0
    assert_rate(TRIALS - no_fight, TRIALS, p_reach, f"P(max(2D6) >= {distance})")
