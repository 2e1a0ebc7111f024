"""Tables, precision stopping, comparisons, sweeps, CSV and charts (hand-computable cases)."""
import io
import json

import matplotlib
import numpy as np
import pandas as pd
import pytest

import odds
from odds.analysis.result import Result
from odds.play.options import BATCH
from odds.core.outcome import ATTACKER, CAUGHT, COLUMNS, DEFENDER, DESTROYED, FLED, NONE, UNRESOLVED
from odds.core.tally import Tally
from odds.errors import ScenarioError

from conftest import SCENARIOS

matplotlib.use("Agg")

# Six hand-made fights: winner, end, rounds, attacker_lost, defender_lost, wounds (a, d)
FIGHTS = [
    (ATTACKER, DESTROYED, 1, 0, 3, 0, 3),
    (ATTACKER, CAUGHT, 2, 1, 3, 1, 2),
    (ATTACKER, FLED, 2, 1, 1, 1, 1),
    (DEFENDER, DESTROYED, 3, 2, 2, 2, 2),
    (DEFENDER, FLED, 1, 2, 0, 2, 0),
    (NONE, UNRESOLVED, 3, 1, 1, 1, 1),
]


@pytest.fixture
def hand_made(marines_vs_boyz):
    tally = Tally(COLUMNS)
    tally.add(np.array(FIGHTS, dtype=np.int32).T)
    return Result(odds.load(marines_vs_boyz), tally, seed=0)


def test_counts_and_means_by_hand(hand_made):
    c = hand_made.counts()
    assert (c["attacker_wins"], c["defender_wins"], c["unresolved"]) == (3, 2, 1)
    assert (c["defender_destroyed"], c["defender_caught"], c["defender_fled"]) == (2, 1, 1)
    assert (c["attacker_destroyed"], c["attacker_fled"]) == (1, 1)
    m = hand_made.means()
    assert m["mean_rounds"] == pytest.approx(12 / 6)
    assert m["defender_losses_mean"] == pytest.approx(10 / 6)


def test_cumulative_tables_by_hand(hand_made):
    """P(at least k enemy destroyed), P(at most k own losses), for both sides."""
    t = hand_made.cumulative()
    # defender_lost = 3,3,1,2,0,1 ; attacker_lost = 0,1,1,2,2,1
    assert list(t["attacker_destroys_at_least"]) == pytest.approx([6 / 6, 5 / 6, 3 / 6, 2 / 6])
    assert list(t["attacker_loses_at_most"]) == pytest.approx([1 / 6, 4 / 6, 6 / 6, 6 / 6])
    assert list(t["defender_destroys_at_least"]) == pytest.approx([6 / 6, 5 / 6, 2 / 6, 0])
    assert list(t["defender_loses_at_most"]) == pytest.approx([1 / 6, 3 / 6, 4 / 6, 6 / 6])
    assert (t["attacker_destroys_at_least_low"] <= t["attacker_destroys_at_least"]).all()
    losses = hand_made.losses("attacker")
    assert list(losses["probability"]) == pytest.approx([1 / 6, 3 / 6, 2 / 6])
    assert list(losses["at_least"]) == pytest.approx([1, 5 / 6, 2 / 6])


def test_rounds_breakdown_by_hand(hand_made):
    t = hand_made.rounds()
    assert list(t["destroyed"]) == pytest.approx([0, 1 / 6, 0, 1 / 6])
    assert list(t["caught"]) == pytest.approx([0, 0, 1 / 6, 0])
    assert list(t["fled"]) == pytest.approx([0, 1 / 6, 1 / 6, 0])
    assert list(t["decided_by"]) == pytest.approx([0, 2 / 6, 4 / 6, 5 / 6])


def test_quantiles_by_hand(hand_made):
    q = hand_made.quantiles((0.0, 0.5, 1.0))
    assert list(q.loc["rounds"]) == [1, 2, 3]
    assert list(q.loc["defender_lost"]) == [0, 1, 3]


def test_precision_stops_when_intervals_are_narrow(marines_vs_boyz):
    result = odds.simulate(marines_vs_boyz, precision=0.004, seed=3)
    assert result.precision_met
    assert result.headline_half_width() <= 0.004
    assert result.trials % BATCH == 0
    again = odds.simulate(marines_vs_boyz, precision=0.004, seed=3, threads=1)
    assert again.trials == result.trials and again.counts() == result.counts()
    # One batch fewer would not have been precise enough: it stopped as soon as it could.
    shorter = odds.simulate(marines_vs_boyz, trials=result.trials - BATCH, seed=3)
    assert shorter.headline_half_width() > 0.004 or result.trials == BATCH


def test_precision_respects_the_trial_cap(marines_vs_boyz):
    result = odds.simulate(marines_vs_boyz, precision=0.0005, max_trials=BATCH, seed=3)
    assert result.trials == BATCH and result.precision_met is False
    with pytest.raises(ScenarioError, match="precision"):
        odds.simulate(marines_vs_boyz, precision=0.7)


def test_grid_cells_equal_direct_simulations(marines_vs_boyz):
    """Each cell is the base with its changes, simulated with the grid's seed."""
    variants = {"fist": {}, "ws5": {"attacker.models[Veteran Sergeant].profile.WS": 5}}
    opponents = {"boyz": {}, "cover": {"engagement.defender_in_cover": True}}
    grid = odds.compare(marines_vs_boyz, variants, opponents, trials=4000, seed=8)
    assert list(grid.frame[["variant", "opponent"]].itertuples(index=False, name=None)) == [
        ("fist", "boyz"), ("fist", "cover"), ("ws5", "boyz"), ("ws5", "cover")]
    scenario = odds.load(marines_vs_boyz)
    scenario.engagement["defender_in_cover"] = True
    scenario.attacker.models[1].profile["WS"] = 5
    direct = odds.simulate(scenario, trials=4000, seed=8)
    row = grid.frame.iloc[3]
    assert row["attacker_wins"] == direct.probabilities()["attacker_wins"][0]
    assert row["attacker_wins_low"] == direct.probabilities()["attacker_wins"][1]
    assert list(grid.table().index) == ["fist", "ws5"]
    # each cell's Result names its cell (its charts' titles say which); the frame the base
    assert grid.results["ws5", "cover"].scenario.name == f"{scenario.name}: ws5 vs cover"
    assert (grid.frame["scenario"] == scenario.name).all()


def test_common_random_numbers_correlate_variants(marines_vs_boyz):
    """Same seed: trial i of two close variants uses the same stream, so their outcomes are
    strongly correlated and the difference is less noisy than with independent seeds."""
    scenario = odds.load(marines_vs_boyz)
    a = odds.simulate(scenario, trials=20_000, seed=5, keep_fights=True).fights()
    scenario.defender.models[0].profile["WS"] = 3
    b = odds.simulate(scenario, trials=20_000, seed=5, keep_fights=True).fights()
    c = odds.simulate(scenario, trials=20_000, seed=6, keep_fights=True).fights()
    wins_a = (a["winner"] == "attacker").to_numpy(float)
    wins_b = (b["winner"] == "attacker").to_numpy(float)
    wins_c = (c["winner"] == "attacker").to_numpy(float)
    same_seed = np.corrcoef(wins_a, wins_b)[0, 1]
    other_seed = np.corrcoef(wins_a, wins_c)[0, 1]
    assert same_seed > 0.3  # independent streams: 0 within 4 / sqrt(20000) = 0.03
    assert abs(other_seed) < 4 / np.sqrt(20_000)
    assert np.var(wins_b - wins_a) < 0.8 * np.var(wins_c - wins_a)


def test_points_efficiency(marines_vs_boyz):
    changes = {"attacker.models[0].points": 15, "attacker.models[1].points": 40,
               "defender.models[0].points": 6}
    grid = odds.compare(marines_vs_boyz, {"pointed": changes}, trials=4000, seed=2)
    row = grid.frame.iloc[0]
    assert row["attacker_points"] == 9 * 15 + 40 and row["defender_points"] == 120
    assert row["points_destroyed"] == pytest.approx(row["defender_losses_mean"] * 6)
    assert row["points_lost"] == pytest.approx(row["attacker_losses_mean"] * 175 / 10)
    assert row["points_ratio"] == pytest.approx(row["points_destroyed"] / row["points_lost"])
    assert row["wins_per_100_points"] == pytest.approx(100 * row["attacker_wins"] / 175)
    plain = odds.compare(marines_vs_boyz, trials=1000).frame.iloc[0]
    assert np.isnan(plain["points_ratio"])


def test_comparison_file_and_csv():
    grid = odds.compare(SCENARIOS.parent / "comparisons" / "wh40k3_sergeant_weapon.toml",
                        trials=2000)
    assert grid.frame.shape[0] == 9
    frame = pd.read_csv(io.StringIO(grid.to_csv()))
    assert {"variant", "opponent", "scenario", "ruleset", "trials", "seed",
            "attacker_wins_low"} <= set(frame.columns)
    assert (frame["trials"] == 2000).all() and frame["points_ratio"].notna().all()


def test_bad_changes_name_the_place(marines_vs_boyz, tmp_path):
    with pytest.raises(ScenarioError, match=r"attacker.models\[7\].count: index 7 out of range"):
        odds.compare(marines_vs_boyz, {"v": {"attacker.models[7].count": 3}}, trials=10)
    with pytest.raises(ScenarioError, match="no entry named 'Nob'"):
        odds.compare(marines_vs_boyz, {"v": {"defender.models[Nob].count": 3}}, trials=10)
    bad = tmp_path / "cmp.toml"
    bad.write_text(f'base = "{marines_vs_boyz}"\n[[variants]]\nname = "x"\n'
                   'set = { "attacker.models[0].profile.WS" = 0 }\n')
    with pytest.raises(ScenarioError, match=r'set\."attacker.models\[0\].profile.WS": must be '
                                            r'from 1'):  # the field once, as written
        odds.compare(bad)


def test_sweep_matches_direct_runs(marines_vs_boyz):
    curve = odds.sweep(marines_vs_boyz, "defender.models[0].count", [10, 30], trials=3000, seed=4)
    assert list(curve.frame["value"]) == [10, 30]
    scenario = odds.load(marines_vs_boyz)
    scenario.defender.models[0].count = 30
    direct = odds.simulate(scenario, trials=3000, seed=4).probabilities()["attacker_wins"][0]
    assert curve.frame["attacker_wins"].iloc[1] == direct
    assert curve.frame["attacker_wins"].iloc[0] > curve.frame["attacker_wins"].iloc[1]


def test_charts_draw_what_they_say(marines_vs_boyz):
    from odds import plots

    result = odds.simulate(marines_vs_boyz, trials=5000, seed=1)
    ax = plots.outcome_bars(result)
    assert len(ax.patches) >= 6 and ax.get_ylabel() == "probability (%)"
    from matplotlib.container import ErrorbarContainer

    assert any(isinstance(c, ErrorbarContainer) for c in ax.containers)  # interval whiskers
    ax = plots.loss_distributions(result)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "Assault Squad (attacker)", "Ork Boyz (defender)"]
    ax = plots.rounds_to_decision(result)
    assert ax.get_xlabel() == "round"
    fig = plots.result_figure(result)
    assert len(fig.axes) == 4  # three charts and the twin axis of the rounds chart
    grid = odds.compare(marines_vs_boyz, {"a": {}, "b": {"attacker.models[0].count": 5}},
                        trials=2000)
    ax = grid.heatmap()
    assert len(ax.texts) == 2 and "%" in ax.texts[0].get_text()
    import matplotlib.pyplot as plt

    _, own = plt.subplots()
    assert odds.sweep(marines_vs_boyz, "defender.models[0].count", [10, 20],
                      trials=1000).plot(ax=own) is own
    plt.close("all")


def test_html_reprs(marines_vs_boyz):
    result = odds.simulate(marines_vs_boyz, trials=1000)
    assert "<table" in result._repr_html_() and "attacker_wins" in result._repr_html_()
    grid = odds.compare(marines_vs_boyz, trials=1000)
    assert "<table" in grid._repr_html_()


def test_grids_write_out_alike(marines_vs_boyz):
    """Comparison, Sweep and RoundRobin share their output (odds.analysis.grid): CSV of the
    frame, JSON-ready data with the seed, precision and one row per cell, HTML whose title is
    escaped."""
    from odds.analysis.grid import Grid

    grid = odds.compare(marines_vs_boyz, {"<b>": {}, "five": {"attacker.models[0].count": 5}},
                        trials=500)
    swept = odds.sweep(marines_vs_boyz, "defender.models[0].count", [10, 20], trials=500)
    robin = odds.roster(SCENARIOS.parent / "rosters" / "blackpowder_foot.toml", trials=200)
    for each, cells in ((grid, 2), (swept, 2), (robin, len(robin.frame))):
        assert isinstance(each, Grid)
        data = json.loads(each.to_json())
        assert data["seed"] == int(each.frame["seed"].iloc[0]) and data["precision"] is None
        assert len(data["rows"]) == cells == each.to_csv().count("\n") - 1
        assert data["rows"][0]["attacker_wins"] == each.frame["attacker_wins"].iloc[0]
    assert list(json.loads(robin.to_json()))[-2:] == ["ranking", "rating"]
    named = odds.compare(marines_vs_boyz, trials=200)
    named.name = "<i>mine</i>"
    assert named._repr_html_().startswith("<h4>&lt;i&gt;mine&lt;/i&gt;</h4>")


def test_per_ruleset_columns_by_hand(marines_vs_boyz):
    """Extra record columns: a yes/no column (pushed) is a probability with its interval, a
    count column (exchanges) a mean; every shared key stays."""
    columns = COLUMNS + ("exchanges", "pushed")
    tally = Tally(columns)
    extra = [(2, 1), (0, 0), (3, 1), (1, 0), (0, 0), (4, 0)]  # exchanges, pushed
    tally.add(np.array([f + e for f, e in zip(FIGHTS, extra)], dtype=np.int32).T)
    result = Result(odds.load(marines_vs_boyz), tally, seed=0)
    assert result.counts()["pushed"] == 2
    p, lo, hi = result.probabilities()["pushed"]
    assert p == 2 / 6 and lo < p < hi
    means = result.means()
    assert means["exchanges_mean"] == pytest.approx(10 / 6) and "pushed_mean" not in means
    assert list(means)[:5] == ["mean_rounds", "attacker_losses_mean", "attacker_wounds_mean",
                               "defender_losses_mean", "defender_wounds_mean"]
    summary = result.summary()
    assert summary.loc["pushed", "kind"] == "probability"
    assert summary.loc["exchanges_mean", "value"] == pytest.approx(10 / 6)
    out = result.to_dict()
    own = out["ruleset_outcomes"]
    assert own["pushed"] == 2 / 6 and own["pushed_ci95"] == [lo, hi]
    assert own["exchanges_mean"] == pytest.approx(10 / 6) and out["attacker_wins"] == 0.5
    plain = Result(result.scenario, Tally(COLUMNS), seed=0)
    plain.tally.add(np.array(FIGHTS, dtype=np.int32).T)
    assert set(plain.to_dict()) == set(out) and plain.to_dict()["ruleset_outcomes"] == {}
    text = str(result)
    assert "pushed" in text and "33.33%" in text and "mean exchanges" in text
    # the yes/no columns do not count towards the precision target
    assert result.headline_half_width() == max(
        (hi - lo) / 2 for k, (_, lo, hi) in result.probabilities().items() if k != "pushed")


def test_short_reprs(marines_vs_boyz):
    result = odds.simulate(marines_vs_boyz, trials=1000, seed=2)
    p, lo, hi = result.probabilities()["attacker_wins"]
    assert repr(result) == (f"<Result 'Assault Marines charge Ork Boyz' [wh40k3]: 1,000 fights, "
                            f"seed 2; attacker wins {100 * p:.1f}% [{100 * lo:.1f}, "
                            f"{100 * hi:.1f}]>")
    assert str(result).startswith("Assault Marines charge Ork Boyz  [wh40k3]\n")
    grid = odds.compare(marines_vs_boyz, {"a": {}, "b": {"attacker.models[0].count": 5}},
                        trials=500)
    assert repr(grid).startswith("<Comparison 'Assault Marines charge Ork Boyz' [wh40k3]: "
                                 "2 variants x 1 opponent, 500 fights per cell, seed 1; "
                                 "attacker wins ")
    assert repr(grid).count("\n") == 0 and "variant" in str(grid)
    curve = odds.sweep(marines_vs_boyz, "defender.models[0].count", [10, 20], trials=500)
    assert repr(curve) == ("<Sweep of defender.models[0].count over 2 values of 'Assault "
                           "Marines charge Ork Boyz' [wh40k3]: 500 fights per value, seed 1>")


def test_outcome_bars_at_a_count_of_zero(marines_vs_boyz):
    """Outcomes that never happened (k = 0) have an interval starting at exactly 0, so the
    error bars are never negative and the chart draws."""
    from odds import plots

    result = odds.simulate(marines_vs_boyz, trials=1000, seed=1)
    probs = result.probabilities()
    assert probs["unresolved"][0] == 0 and probs["unresolved"][1] == 0.0
    assert all(lo <= p <= hi for p, lo, hi in probs.values())
    plots.result_figure(result)
    import matplotlib.pyplot as plt

    plt.close("all")


def test_sweep_plot_and_heatmap_pass_the_metric_on(marines_vs_boyz, monkeypatch):
    from odds import plots

    seen = []
    monkeypatch.setattr(plots, "comparison_heatmap", lambda c, m, ax=None: seen.append(m))
    monkeypatch.setattr(plots, "sweep_curve", lambda s, m, ax=None: seen.append(m))
    odds.compare(marines_vs_boyz, trials=100).heatmap("mean_rounds")
    odds.sweep(marines_vs_boyz, "defender.models[0].count", [5], trials=100).plot(
        metric="defender_wins")
    assert seen == ["mean_rounds", "defender_wins"]
