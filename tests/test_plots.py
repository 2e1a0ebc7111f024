"""Charts: colours say whose outcome it is, legends and labels never cover data, count axes
tick whole numbers, categorical sweeps, any metric column, readable labels and titles."""
import matplotlib
import numpy as np
import pytest

import odds
from odds import plots
from odds.analysis import intervals
from odds.analysis import result as result_module

from conftest import SCENARIOS

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.container import BarContainer, ErrorbarContainer  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

COMPARISON = SCENARIOS.parent / "comparisons" / "wh40k3_sergeant_weapon.toml"
ATTACKER, DEFENDER = (matplotlib.colors.to_rgba(plots.SIDE_COLOURS[s])
                      for s in ("attacker", "defender"))


@pytest.fixture(autouse=True)
def interval_holds_its_estimate(monkeypatch):
    """Draw with intervals that contain their estimate (a count of 0 gives [0, high]), as
    the charts expect; the interval code itself is tested in test_wilson.py."""
    def wilson(k, n, z=intervals.Z95):
        low, high = intervals.wilson(k, n, z)
        p = np.asarray(k, float) / np.asarray(n, float)
        return np.minimum(low, p), np.maximum(high, p)

    monkeypatch.setattr(result_module, "wilson", wilson)
    yield
    plt.close("all")


def simulate(name, trials=2000):
    return odds.simulate(SCENARIOS / f"{name}.toml", trials=trials, seed=1)


@pytest.fixture(scope="module")
def grid():
    return odds.compare(COMPARISON, trials=500)


def extent(artist):
    return artist.get_window_extent(artist.figure.canvas.get_renderer())


def bar_colours(ax) -> dict:
    names = [t.get_text().replace("\n", "_") for t in ax.get_xticklabels()]
    bars = next(c for c in ax.containers if isinstance(c, BarContainer))
    return dict(zip(names, (p.get_facecolor() for p in bars)))


def test_outcome_bars_are_coloured_by_whose_outcome_it_is():
    ax = plots.outcome_bars(simulate("d10skirmish_trooper_charges_sniper"))
    colours = bar_colours(ax)
    assert {"attacker_wins", "defender_destroyed", "defender_wins", "attacker_destroyed",
            "both_destroyed"} <= set(colours)
    assert colours["attacker_wins"] == colours["defender_destroyed"] == ATTACKER
    assert colours["defender_wins"] == colours["attacker_destroyed"] == DEFENDER
    assert colours["both_destroyed"] == matplotlib.colors.to_rgba(plots.NEUTRAL)
    legend = ax.get_legend()
    assert [t.get_text() for t in legend.get_texts()] == [
        "good for Trooper (attacker)", "good for Sniper (defender)", "neither side"]
    assert [h.get_facecolor() for h in legend.legend_handles] == [
        ATTACKER, DEFENDER, matplotlib.colors.to_rgba(plots.NEUTRAL)]


@pytest.mark.parametrize("size", [(7, 4), (4, 3)])
def test_bar_labels_clear_the_frame_and_the_legend(size):
    _, ax = plt.subplots(figsize=size, layout="constrained")
    result = simulate("mordheim_captain_vs_skaven", trials=300)
    plots.outcome_bars(result, ax)
    ax.figure.draw_without_rendering()
    bars, whiskers = (next(c for c in ax.containers if isinstance(c, kind))
                      for kind in (BarContainer, ErrorbarContainer))
    tallest = max(bar.get_height() for bar in bars)
    assert ax.get_ylim()[1] > tallest
    frame, legend = extent(ax), extent(ax.get_legend())
    for label in ax.texts:
        box = extent(label)
        assert box.y1 < frame.y1 and not box.overlaps(legend), label.get_text()
    top_whisker = max(seg[:, 1].max() for seg in whiskers.lines[2][0].get_segments())
    assert ax.transData.transform((0, top_whisker))[1] < legend.y0


def test_legends_sit_above_the_data_of_loss_and_round_charts():
    result = simulate("wh40k3_ten_vs_ten")
    ax = plots.loss_distributions(result)
    ax.figure.draw_without_rendering()
    tallest = max(p.get_height() for p in ax.patches)
    assert ax.transData.transform((0, tallest))[1] < extent(ax.get_legend()).y0
    ax = plots.rounds_to_decision(result)
    twin = next(a for a in ax.figure.axes if a is not ax)
    ax.figure.draw_without_rendering()
    bottom_of_legend = extent(twin.get_legend()).y0
    stacked = max(p.get_y() + p.get_height() for p in ax.patches)
    assert ax.transData.transform((0, stacked))[1] < bottom_of_legend
    assert twin.transData.transform((0, 100))[1] < bottom_of_legend


@pytest.mark.parametrize("name", ["mordheim_two_on_one", "d10skirmish_trooper_charges_sniper"])
def test_count_axes_tick_whole_numbers(name):
    result = simulate(name, trials=300)
    for ax in (plots.loss_distributions(result), plots.rounds_to_decision(result)):
        assert isinstance(ax.xaxis.get_major_locator(), MaxNLocator)
        lo, hi = ax.get_xlim()
        ticks = [t for t in ax.get_xticks() if lo <= t <= hi]
        assert ticks and all(float(t).is_integer() for t in ticks), ticks


def test_a_boolean_sweep_is_drawn_at_two_positions():
    sweep = odds.sweep(SCENARIOS / "wh40k3_assault_marines_vs_boyz.toml", "engagement.pursue",
                       [True, False], trials=1000)
    ax = plots.sweep_curve(sweep, "attacker_wins")
    assert [t.get_text() for t in ax.get_xticklabels()] == ["true", "false"]
    assert list(ax.get_xticks()) == [0, 1]
    bars = next(c for c in ax.containers if isinstance(c, BarContainer))
    assert [b.get_x() + b.get_width() / 2 for b in bars] == [0, 1]
    assert np.allclose([b.get_height() for b in bars], 100 * sweep.frame["attacker_wins"])
    assert any(isinstance(c, ErrorbarContainer) for c in ax.containers)
    assert ax.get_xlabel() == "pursue (engagement)"
    assert "engagement.pursue" in [t.get_text() for t in ax.texts]


def test_a_numeric_sweep_is_a_curve_with_a_readable_label():
    path = "defender.models[Boy].count"
    sweep = odds.sweep(SCENARIOS / "wh40k3_assault_marines_vs_boyz.toml", path, [10, 20, 30],
                       trials=1000)
    ax = plots.sweep_curve(sweep, "attacker_wins")
    assert list(ax.lines[0].get_xdata()) == [10, 20, 30]
    assert ax.get_xlabel() == "Boy count (defender)" and path in [t.get_text() for t in ax.texts]
    ax = plots.sweep_curve(sweep, "defender_losses_mean")  # a mean: own units, no band
    assert ax.get_ylabel() == "defender's mean models lost"
    assert np.allclose(ax.lines[0].get_ydata(), sweep.frame["defender_losses_mean"])
    assert not ax.collections and ax.get_ylim()[1] > sweep.frame["defender_losses_mean"].max()


@pytest.mark.parametrize("path, words", [
    ("defender.models[Boy].count", "Boy count (defender)"),
    ("attacker.models[0].profile.WS", "Assault Marine WS (attacker)"),
    ("attacker.models[1].equipment", "Veteran Sergeant equipment (attacker)"),
    ("engagement.charge_distance", "charge distance (engagement)"),
    ("attacker.models[5].count", "entry 5 count (attacker)"),
])
def test_parameter_labels(path, words):
    scenario = odds.load(SCENARIOS / "wh40k3_assault_marines_vs_boyz.toml")
    assert plots.parameter_label(path, scenario) == words


def test_a_heatmap_of_a_mean_uses_its_own_scale_and_label(grid):
    ax = plots.comparison_heatmap(grid, "points_ratio")
    image = ax.images[0]
    values = grid.frame["points_ratio"]
    assert image.colorbar.ax.get_ylabel() == "points ratio (destroyed / lost)"
    reach = (values - 1).abs().max()  # centred on 1, break-even
    assert (image.norm.vmin, image.norm.vmax) == pytest.approx((1 - reach, 1 + reach))
    assert sorted(float(t.get_text()) for t in ax.texts) == sorted(values.round(2))
    ax = plots.comparison_heatmap(grid, "mean_rounds")
    norm = ax.images[0].norm
    assert (norm.vmin, norm.vmax) == (grid.frame["mean_rounds"].min(),
                                      grid.frame["mean_rounds"].max())
    assert ax.images[0].colorbar.ax.get_ylabel() == "mean rounds fought"
    assert "%" not in "".join(t.get_text() for t in ax.texts)


def test_a_heatmap_of_a_probability_is_in_percent_with_intervals(grid):
    ax = plots.comparison_heatmap(grid, "defender_wins")
    norm = ax.images[0].norm
    assert (norm.vmin, norm.vmax) == (0, 100)
    assert ax.images[0].colorbar.ax.get_ylabel() == "defender wins (%)"
    row = grid.frame.iloc[0]
    assert ax.texts[0].get_text() == (f"{100 * row['defender_wins']:.1f}%\n"
                                      f"[{100 * row['defender_wins_low']:.1f}, "
                                      f"{100 * row['defender_wins_high']:.1f}]")


def test_a_heatmap_of_a_difference_is_centred_on_zero_in_its_side_colours(grid):
    """A ``_diff`` column (variant minus baseline) is centred on 0 even when every
    difference has one sign, and coloured for the side its base column favours."""
    values = grid.frame["defender_wins_diff"] * 100
    ax = plots.comparison_heatmap(grid, "defender_wins_diff")
    norm, reach = ax.images[0].norm, values.abs().max()
    assert (norm.vmin, norm.vmax) == pytest.approx((-reach, reach))
    assert ax.images[0].cmap.name.startswith("RdYlGn_r")


def test_an_unknown_or_empty_metric_says_what_can_be_charted(grid, marines_vs_boyz):
    with pytest.raises(ValueError, match=r"metric: unknown column 'points'; did you mean .*"
                                         r"\(one of 'attacker_wins', 'defender_wins', "
                                         r".*'points_ratio'"):
        plots.comparison_heatmap(grid, "points")
    sweep = odds.sweep(marines_vs_boyz, "engagement.pursue", [True, False], trials=200)
    with pytest.raises(ValueError, match="unknown column 'attacker_wins_low'"):
        plots.sweep_curve(sweep, "attacker_wins_low")
    with pytest.raises(ValueError, match="'points_ratio' has no values here"):
        plots.sweep_curve(sweep, "points_ratio")  # the scenario gives no points


def test_long_titles_are_wrapped_to_fit(marines_vs_boyz):
    scenario = odds.load(marines_vs_boyz)
    scenario.name = "A very long scenario name that no chart title could ever fit on one line"
    result = odds.simulate(scenario, trials=300, seed=1)
    _, ax = plt.subplots(figsize=(4, 3), layout="constrained")
    plots.outcome_bars(result, ax)
    ax.figure.draw_without_rendering()
    assert "\n" in ax.get_title() and extent(ax.title).width <= extent(ax).width
    fig = plots.result_figure(result)
    fig.draw_without_rendering()
    assert extent(fig._suptitle).width <= fig.bbox.width
    assert [a.get_title() for a in fig.axes[:3]] == ["How the fight ends", "Models lost",
                                                     "Rounds to decision"]
