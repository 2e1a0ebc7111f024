"""The Bradley-Terry rating with a charge advantage (odds.analysis.rating)."""
import math

import numpy as np
import pytest
from scipy.special import expit, logit

from odds.analysis.rating import ELO, NOT_IDENTIFIABLE, bradley_terry

NAMES = ["Tactical Squad", "Assault Squad", "Ork Boyz", "Ork Nobz"]
STRENGTH = np.array([0.5, 0.2, -0.1, -0.6])   # sums to zero
THETA = 1.7


def exact_games(strength, theta, fights, pairs):
    """Each (charger, charged) pair's wins as the model's exact expected counts, no draws."""
    games = []
    for i, j in pairs:
        p = expit(strength[i] - strength[j] + math.log(theta))
        games.append((i, j, fights * p, fights * (1 - p), 0.0))
    return games


def every_ordered_pair(n):
    return [(i, j) for i in range(n) for j in range(n) if i != j]


def test_recovers_known_strengths_and_charge_advantage():
    games = exact_games(STRENGTH, THETA, 1000, every_ordered_pair(4))
    rating = bradley_terry(games, NAMES, prior=0)
    np.testing.assert_allclose(rating.strength, STRENGTH, rtol=0, atol=1e-6)
    assert rating.charge_advantage == pytest.approx(THETA, abs=1e-6)
    np.testing.assert_allclose(rating.elo, ELO * STRENGTH, rtol=0, atol=1e-4)
    assert rating.max_residual < 1e-9
    for i, j, won, _, _ in games:
        assert rating.expected(i, j) == pytest.approx(won / 1000, abs=1e-9)
        assert rating.expected(NAMES[j], NAMES[i], charging=False) == pytest.approx(
            1 - won / 1000, abs=1e-9)
    frame = rating.to_frame()
    assert list(frame["unit"]) == NAMES          # already strongest first
    assert frame.attrs["charge_advantage"] == rating.charge_advantage
    assert rating.charge_low < THETA < rating.charge_high


def test_draws_are_half_a_win_each():
    # one way: pi_1 / pi_2 = (wins_1 + draws/2) / (wins_2 + draws/2) = 40 / 20
    one_way = bradley_terry([(0, 1, 30, 10, 20)], ["A", "B"], prior=0)
    assert one_way.strength[0] - one_way.strength[1] == pytest.approx(math.log(2), abs=1e-10)
    # both ways the model is saturated: each pair's score is matched exactly
    both = bradley_terry([(0, 1, 30, 10, 20), (1, 0, 5, 40, 15)], ["A", "B"], prior=0)
    first, second = logit(40 / 60), logit((5 + 7.5) / 60)
    assert both.strength[0] - both.strength[1] == pytest.approx((first - second) / 2, abs=1e-10)
    assert math.log(both.charge_advantage) == pytest.approx((first + second) / 2, abs=1e-10)


def test_one_way_games_leave_the_charge_advantage_unknown():
    mine, theirs = [0, 1], [2, 3]
    games = exact_games(STRENGTH, THETA, 1000, [(i, j) for i in mine for j in theirs])
    rating = bradley_terry(games, NAMES, prior=0)
    assert math.isnan(rating.charge_advantage)
    assert math.isnan(rating.charge_low) and math.isnan(rating.charge_high)
    assert rating.charge_note == NOT_IDENTIFIABLE
    s = rating.strength
    assert s[0] - s[1] == pytest.approx(STRENGTH[0] - STRENGTH[1], abs=1e-6)
    assert s[2] - s[3] == pytest.approx(STRENGTH[2] - STRENGTH[3], abs=1e-6)
    # the charge advantage is absorbed by the charging list's strengths
    assert s[0] - s[2] == pytest.approx(STRENGTH[0] - STRENGTH[2] + math.log(THETA), abs=1e-6)
    assert np.all(np.isfinite(rating.strength_se))
    for i, j, won, _, _ in games:
        assert rating.expected(i, j) == pytest.approx(won / 1000, abs=1e-9)


def test_a_one_way_cycle_identifies_the_charge_advantage():
    # 0 charges 1, 1 charges 2, 2 charges 0: no pair played both ways, yet theta is known
    games = exact_games(STRENGTH, THETA, 1000, [(0, 1), (1, 2), (2, 0), (0, 3)])
    rating = bradley_terry(games, NAMES, prior=0)
    assert rating.charge_advantage == pytest.approx(THETA, abs=1e-6)
    np.testing.assert_allclose(rating.strength, STRENGTH, rtol=0, atol=1e-6)


def test_a_unit_winning_every_fight_is_finite_and_first():
    games = []
    for i, j, won, lost, drawn in exact_games(STRENGTH, THETA, 1000, every_ordered_pair(4)):
        if 2 in (i, j):                      # Ork Boyz win every fight they are in
            won, lost = (1000, 0) if i == 2 else (0, 1000)
        games.append((i, j, won, lost, drawn))
    with pytest.raises(ValueError, match=r"no finite maximum-likelihood.*'Ork Boyz'.*prior > 0"):
        bradley_terry(games, NAMES, prior=0)
    rating = bradley_terry(games, NAMES)
    assert np.all(np.isfinite(rating.strength)) and np.all(np.isfinite(rating.elo_high))
    # the prior is `prior` drawn fights a pair, half a win each: closed form for one pair
    alone = bradley_terry([(0, 1, 1000, 0, 0)], ["A", "B"], prior=3)
    assert alone.strength[0] - alone.strength[1] == pytest.approx(math.log(1001.5 / 1.5),
                                                                  abs=1e-10)
    assert list(rating.to_frame()["unit"]) == ["Ork Boyz", "Tactical Squad", "Assault Squad",
                                               "Ork Nobz"]


@pytest.mark.parametrize("fights, bound", [(1000, 0.5), (10000, 0.05)])
def test_the_prior_barely_moves_a_well_determined_fit(fights, bound):
    """One virtual drawn fight a pair moves the Elo by under 0.5 at 1000 fights a pair
    (under a tenth of its standard error), and ten times less at ten times the fights."""
    games = exact_games(STRENGTH, THETA, fights, every_ordered_pair(4))
    plain, shrunk = bradley_terry(games, NAMES, prior=0), bradley_terry(games, NAMES)
    moved = np.abs(shrunk.elo - plain.elo)
    assert 0 < moved.max() < bound
    assert np.all(moved < 0.1 * ELO * plain.strength_se)
    assert 0 < abs(shrunk.charge_advantage - plain.charge_advantage) < bound / ELO


def test_permuting_units_permutes_the_rating():
    rng = np.random.default_rng(11)
    games = [(i, j, won, lost, 7.0) for i, j, won, lost, _ in
             exact_games(STRENGTH, THETA, 500, every_ordered_pair(4))]
    games[0] = (0, 1, 507.0, 0.0, 0.0)      # one lopsided pair so the prior matters
    rating = bradley_terry(games, NAMES)
    order = rng.permutation(4)              # new unit k is old unit order[k]
    new_index = np.argsort(order)
    moved = [(int(new_index[i]), int(new_index[j]), w, l, d) for i, j, w, l, d in games]
    moved = [moved[k] for k in rng.permutation(len(moved))]
    permuted = bradley_terry(moved, [NAMES[k] for k in order])
    np.testing.assert_allclose(permuted.strength, rating.strength[order], rtol=0, atol=1e-10)
    np.testing.assert_allclose(permuted.strength_se, rating.strength_se[order], rtol=1e-8)
    np.testing.assert_allclose(permuted.covariance, rating.covariance[np.ix_(order, order)],
                               rtol=0, atol=1e-12)
    assert permuted.charge_advantage == pytest.approx(rating.charge_advantage, rel=1e-10)
    assert permuted.to_frame()["unit"].tolist() == rating.to_frame()["unit"].tolist()


def test_intervals_cover_the_true_elo_95_percent_of_the_time():
    rng = np.random.default_rng(20240611)
    names = ["A", "B", "C", "D", "E"]
    truth = np.array([0.6, 0.3, 0.0, -0.3, -0.6])
    pairs = every_ordered_pair(5)
    p = np.array([expit(truth[i] - truth[j] + math.log(THETA)) for i, j in pairs])
    fights, repeats = 200, 1000
    covered = np.zeros(5)
    theta_covered = 0
    for _ in range(repeats):
        won = rng.binomial(fights, p)
        rating = bradley_terry([(i, j, int(w), fights - int(w), 0) for (i, j), w in
                                zip(pairs, won)], names)
        covered += (rating.elo_low <= ELO * truth) & (ELO * truth <= rating.elo_high)
        theta_covered += rating.charge_low <= THETA <= rating.charge_high
    bound = 4 * math.sqrt(0.95 * 0.05 / repeats)
    assert np.all(np.abs(covered / repeats - 0.95) < bound), covered / repeats
    assert abs(theta_covered / repeats - 0.95) < bound


@pytest.mark.parametrize("games, names, error, message", [
    ([(0, 1, -1, 5, 0)], ["A", "B"], ValueError, r"game 0: charger_wins must be finite and >= 0"),
    ([(0, 1, 3, 5, math.nan)], ["A", "B"], ValueError, r"game 0: draws must be finite"),
    ([(0, 1, 3, 5, 0), (0, 2, 1, 1, 0)], ["A", "B"], ValueError,
     r"game 1: charged index 2 out of range 0..1"),
    ([(1, 1, 3, 5, 0)], ["A", "B"], ValueError, r"game 0: unit 1 cannot charge itself"),
    ([(0, 1, 3, 5, 0)], ["A", "B", "C"], ValueError, r"unit 'C' has no games"),
    ([(0, 1, 3, 5, 0), (0, 2, 0, 0, 0)], ["A", "B", "C"], ValueError, r"unit 'C' has no games"),
    ([(0, 1, 3, 5, 0), (2, 3, 1, 1, 0)], ["A", "B", "C", "D"], ValueError,
     r"units \['C', 'D'\] never met the others"),
    ([(0, 1, 3, 5)], ["A", "B"], TypeError, r"game 0: expected \(charger, charged"),
    ([(0.0, 1, 3, 5, 0)], ["A", "B"], TypeError, r"game 0: charger must be a unit index"),
    ([(0, 1, "3", 5, 0)], ["A", "B"], TypeError, r"game 0: charger_wins must be a number"),
    ([(0, 1, 3, 5, 0)], "AB", TypeError, r"names must be a sequence of unit names"),
    ([(0, 1, 3, 5, 0)], ["A", "A"], ValueError, r"unit names must be distinct"),
    ([], ["A"], ValueError, r"at least 2 units"),
])
def test_bad_input_is_refused(games, names, error, message):
    with pytest.raises(error, match=message):
        bradley_terry(games, names)


def test_bad_prior_and_unit_are_refused():
    with pytest.raises(ValueError, match=r"prior must be finite and >= 0"):
        bradley_terry([(0, 1, 3, 5, 0)], ["A", "B"], prior=-1)
    rating = bradley_terry([(0, 1, 3, 5, 0)], ["A", "B"])
    with pytest.raises(ValueError, match=r"unknown unit 'C'"):
        rating.expected("C", "A")
    with pytest.raises(ValueError, match=r"unit must be a name or an index 0..1"):
        rating.expected(0, 2)


def test_a_rating_prints_as_a_summary_and_a_table():
    """In a REPL or a notebook a rating reads as the other results do: the summary line,
    then the units best first with their Elo and interval; no raw arrays."""
    rating = bradley_terry(exact_games(STRENGTH, THETA, 1000, every_ordered_pair(4)), NAMES,
                           prior=0)
    text = repr(rating)
    lines = text.splitlines()
    assert lines[0] == rating.summary() and "array(" not in text
    assert lines[1].split() == ["unit", "elo", "elo_low", "elo_high"]
    assert [line.split()[0] for line in lines[2:]] == ["Tactical", "Assault", "Ork", "Ork"]
    assert lines[2].split()[-3] == f"{ELO * STRENGTH[0]:.0f}"
    html = rating._repr_html_()
    assert html.startswith("<p>rating: Bradley-Terry") and "<table" in html
    assert all(name in html for name in NAMES)
