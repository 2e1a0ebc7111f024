"""Output in the game's words and good English (issue 34): each ruleset names what its record's
losses and wounds count, rounds to decision from round 0 when fights end there, differences
in percentage points against a named baseline, possessives, a ScenarioError with a "did you
mean" for every bad name a method is given, "1 fight", and the opponents' ratings."""
import json

import matplotlib
import numpy as np
import pytest

import odds
from odds import plots
from odds.analysis import report
from odds.analysis.result import Result
from odds.core.outcome import ATTACKER, COLUMNS, DEFENDER, DESTROYED, FLED, NO_FIGHT, NONE
from odds.core.tally import Tally
from odds.errors import ScenarioError
from odds.rulesets import RULESETS, get_ruleset

from conftest import ROOT, SCENARIOS

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.container import BarContainer  # noqa: E402

PIKES = SCENARIOS / "blackpowder_cuirassiers_vs_pike_and_shot.toml"
ROSTERS = ROOT / "data" / "rosters"
WORDS = {  # what each ruleset's <side>_lost and <side>_wounds count (its README.md)
    "blackpowder": ("casualties", "failed saves"),
    "d10skirmish": ("fighters down", "wounds taken"),
    "mordheim": ("warriors out of action", "wounds taken"),
    "wh40k3": ("models lost", "wounds taken"),
    "whfb8": ("models lost", "wounds taken"),
}
EXAMPLES = {"blackpowder": PIKES, "d10skirmish": "d10skirmish_trooper_charges_sniper",
            "mordheim": "mordheim_captain_vs_skaven", "wh40k3": "wh40k3_assault_marines_vs_boyz",
            "whfb8": "whfb8_knights_lance_charge"}
# winner, end, rounds, attacker_lost, defender_lost, attacker_wounds, defender_wounds
CLOSING_FIRE = [(DEFENDER, DESTROYED, 0, 1, 0, 2, 0),  # broken by closing fire: no melee
                (ATTACKER, DESTROYED, 1, 1, 3, 1, 4), (DEFENDER, FLED, 2, 2, 1, 3, 1),
                (ATTACKER, FLED, 1, 0, 2, 0, 2)]


def colour_label(ax) -> str:
    """The heatmap's colour bar label, unwrapped."""
    return ax.images[0].colorbar.ax.get_ylabel().replace("\n", " ")


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def hand_made(scenario, fights, seed=0) -> Result:
    """A Result of ``fights`` (rows of the shared columns) without playing any."""
    tally = Tally(COLUMNS)
    tally.add(np.array(fights, dtype=np.int32).T)
    return Result(odds.load(scenario), tally, seed=seed)


def example(ruleset: str):
    name = EXAMPLES[ruleset]
    return name if not isinstance(name, str) else SCENARIOS / f"{name}.toml"


@pytest.fixture(scope="module")
def pikes_grid():
    return odds.compare(PIKES, {"stand": {}, "closing fire": {"engagement.reaction":
                                                                 "closing fire"}},
                        trials=400, seed=2, quiet=True)


@pytest.fixture(scope="module")
def horse_vs_foot(tmp_path_factory):
    """The bundled Black Powder lists, the horse renamed "My dragoons" (a name ending in s)."""
    folder = tmp_path_factory.mktemp("rosters")
    mine = folder / "mine.toml"
    mine.write_text((ROSTERS / "blackpowder_horse.toml").read_text(encoding="utf-8")
                    .replace('name = "Brigade of horse"', 'name = "My dragoons"'),
                    encoding="utf-8")
    return odds.roster(mine, ROSTERS / "blackpowder_foot.toml", trials=300, seed=1, quiet=True)


# --- 1. losses and wounds in each ruleset's words -------------------------------------------

@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_ruleset_says_what_its_losses_and_wounds_count(ruleset):
    lost, wounds = WORDS[ruleset]
    assert (get_ruleset(ruleset).lost[1], get_ruleset(ruleset).wounds) == (lost, wounds)
    result = hand_made(example(ruleset), CLOSING_FIRE)
    text = str(result)
    means = text[text.index("mean per side"):].splitlines()
    assert [line.split("  ")[0] for line in means[1:3]] == [lost, wounds]
    assert result.losses("defender").index.name == lost.replace(" ", "_")
    assert plots.loss_distributions(result).get_xlabel() == lost
    fig = plots.result_figure(result)
    assert fig.axes[1].get_title() == lost[0].upper() + lost[1:]


def test_blackpowder_says_casualties_and_failed_saves_everywhere(pikes_grid):
    """No "models lost" or "wounds taken" where a unit has neither models nor wounds: the
    printed result and grid, their charts' titles and axes, the unit chart."""
    result = hand_made(PIKES, CLOSING_FIRE)
    ax = plots.loss_distributions(result)
    assert "casualties" in ax.get_title()
    ax = plots.unit_losses(result)
    assert "mean casualties" in ax.get_title().replace("\n", " ")
    texts = [t.get_text().split(",")[0] for t in ax.texts if t.get_text().startswith("mean ")]
    assert texts == [f"mean {plots._amount(m)} casualties"
                     for m in result.units()["losses_mean"]]
    grid_text = str(pikes_grid)
    for shown in (str(result), grid_text, ax.get_title().replace("\n", " ")):
        assert "models lost" not in shown and "wounds taken" not in shown
    assert "casualties" in grid_text and "failed saves" in grid_text
    ax = pikes_grid.heatmap("defender_losses_mean")
    assert colour_label(ax) == "defender's mean casualties"
    ax = pikes_grid.heatmap("attacker_wounds_mean")
    assert colour_label(ax) == "attacker's mean failed saves"
    sweep = odds.sweep(PIKES, "engagement.reaction", ["stand", "closing fire"], trials=300,
                       quiet=True)
    ax = sweep.plot("attacker_losses_mean")
    assert ax.get_ylabel() == "attacker's mean casualties"
    assert "attacker's mean casualties" in ax.get_title().replace("\n", " ")


def test_a_units_losses_are_counted_in_its_rulesets_words():
    """"mean 0.50 of 1 warrior out of action": one and several in the ruleset's words."""
    result = hand_made(example("mordheim"), CLOSING_FIRE)
    ax = plots.unit_losses(result)
    frame = result.units()
    assert [t.get_text() for t in ax.texts if t.get_text().startswith("mean ")] == [
        f"mean {plots._amount(u.losses_mean)} of "
        f"{report.count(u.models, 'warrior out of action', 'warriors out of action')}"
        for u in frame.itertuples()]
    assert any(t.get_text().endswith("of 1 warrior out of action") for t in ax.texts)


# --- 2. rounds to decision from round 0 ---------------------------------------------------

def bars_by_round(ax) -> dict:
    """Each bar's round -> the height of its stack."""
    heights = {}
    for container in (c for c in ax.containers if isinstance(c, BarContainer)):
        for patch in container:
            x = round(patch.get_x() + patch.get_width() / 2)
            heights[x] = heights.get(x, 0.0) + patch.get_height()
    return heights


def test_rounds_to_decision_shows_round_0_when_fights_end_there():
    """Closing fire breaks a charger before the first melee round: the chart has a bar at
    round 0, every round's stack is what the table says ended then, and the line of "decided
    by round r" starts at round 0 too (it counted those fights already)."""
    result = hand_made(PIKES, CLOSING_FIRE)
    table = result.rounds()
    assert table.loc[0, "destroyed"] == pytest.approx(1 / 4)  # the table has round 0
    ax = plots.rounds_to_decision(result)
    heights = bars_by_round(ax)
    ended = table[list(plots.ROUND_ENDS)].sum(axis=1) * 100
    assert sorted(heights) == [0, 1, 2]
    assert [heights[r] for r in sorted(heights)] == pytest.approx(list(ended))
    line = ax.figure.axes[-1].lines[0]
    assert list(line.get_xdata()) == [0, 1, 2]
    assert line.get_ydata()[0] == pytest.approx(25.0)


def test_a_fight_that_never_starts_is_shown_at_round_0():
    result = hand_made(PIKES, CLOSING_FIRE[1:] + [(NONE, NO_FIGHT, 0, 0, 0, 0, 0)])
    ax = plots.rounds_to_decision(result)
    assert bars_by_round(ax)[0] == pytest.approx(25.0)
    assert "no fight" in [t.get_text() for t in ax.figure.axes[-1].get_legend().get_texts()]


def test_rounds_to_decision_starts_at_round_1_when_nothing_ends_before():
    result = hand_made(PIKES, CLOSING_FIRE[1:])
    ax = plots.rounds_to_decision(result)
    assert sorted(bars_by_round(ax)) == [1, 2]
    assert list(ax.figure.axes[-1].lines[0].get_xdata()) == [1, 2]


# --- 3. differences in percentage points from a named baseline; possessives -----------------

def test_a_difference_heatmap_is_in_percentage_points_from_its_baseline(pikes_grid):
    ax = pikes_grid.heatmap("attacker_wins_diff")
    assert colour_label(ax) == ("attacker wins, difference from baseline 'stand' "
                                "(percentage points)")
    bar = ax.images[0].colorbar.ax
    ax.figure.draw_without_rendering()
    renderer = ax.figure.canvas.get_renderer()  # the long label is wrapped to the bar's height
    assert bar.yaxis.label.get_window_extent(renderer).height <= bar.get_window_extent().height
    assert "baseline 'stand'" in ax.get_title().replace("\n", " ")
    texts = [t.get_text() for t in ax.texts]
    assert not any("%" in t for t in texts)
    row = pikes_grid.frame.set_index("variant").loc["closing fire"]
    d, low, high = (plots._percent(100 * row[f"attacker_wins_diff{end}"], points=True)
                    for end in ("", "_low", "_high"))
    assert texts[1] == f"{d}\n[{low}, {high}]" and d.startswith(("+", "-"))


def test_a_difference_of_means_stays_in_its_own_unit(pikes_grid):
    """mean_rounds_diff is rounds, not a percentage: not multiplied by 100, no "%"."""
    ax = pikes_grid.heatmap("mean_rounds_diff")
    assert colour_label(ax) == ("mean rounds fought, difference from "
                                                      "baseline 'stand'")
    values = pikes_grid.frame["mean_rounds_diff"].to_numpy()
    assert np.abs(ax.images[0].get_array()).max() == pytest.approx(np.abs(values).max())
    assert ax.texts[1].get_text().split("\n")[0] == plots._amount(values[1], "+")


def test_possessives_of_names_ending_in_s(horse_vs_foot):
    assert report.possessive("My dragoons") == "My dragoons'"
    assert report.possessive("Sergeant's squad") == "Sergeant's squad's"
    ax = horse_vs_foot.heatmap()
    assert colour_label(ax) == "My dragoons' unit wins (%)"
    ax = horse_vs_foot.heatmap("defender_wins")
    assert colour_label(ax) == "Foot brigade's unit wins (%)"
    ax = horse_vs_foot.heatmap("attacker_wins_diff")
    assert colour_label(ax) == ("My dragoons' unit wins, difference from baseline "
                                "'Cuirassiers' (percentage points)")
    legend = plots.ranking_bars(horse_vs_foot).get_legend()
    assert legend.get_texts()[0].get_text() == "My dragoons' unit wins"


# --- 4. a bad name is a ScenarioError naming the argument, with "did you mean" --------------

def says(error, argument: str, near: str):
    assert error.value.source == "<arguments>" and error.value.field == argument
    assert f"did you mean {near!r}" in str(error.value)


def test_result_losses_names_its_argument():
    result = hand_made(PIKES, CLOSING_FIRE)
    with pytest.raises(ScenarioError) as error:
        result.losses("attackr")
    says(error, "side", "attacker")
    assert "one of 'attacker', 'defender'" in str(error.value)
    with pytest.raises(TypeError, match="side must be a string naming a side, got 0"):
        result.losses(0)


def test_comparison_methods_name_their_arguments(pikes_grid):
    with pytest.raises(ScenarioError) as error:
        pikes_grid.table("atacker_wins")
    says(error, "column", "attacker_wins")
    with pytest.raises(ScenarioError, match="column: unknown probability column 'mean_rounds'"):
        pikes_grid.table("mean_rounds")  # a mean: no interval to show
    with pytest.raises(TypeError, match="column must be a string"):
        pikes_grid.table(None)
    with pytest.raises(ScenarioError) as error:
        pikes_grid.heatmap("atacker_wins_diff")
    says(error, "metric", "attacker_wins_diff")
    with pytest.raises(TypeError, match="metric must be a string"):
        pikes_grid.heatmap(1)


def test_sweep_plot_names_its_argument():
    sweep = odds.sweep(PIKES, "engagement.reaction", ["stand", "closing fire"], trials=100,
                       quiet=True)
    with pytest.raises(ScenarioError) as error:
        sweep.plot("defender_win")
    says(error, "metric", "defender_wins")
    with pytest.raises(ScenarioError, match="metric: 'points_ratio' has no values here"):
        sweep.plot("points_ratio")


def test_round_robin_methods_name_their_arguments(horse_vs_foot):
    with pytest.raises(ScenarioError) as error:
        horse_vs_foot.table("atacker_wins")
    says(error, "metric", "attacker_wins")
    with pytest.raises(ScenarioError) as error:
        horse_vs_foot.heatmap("atacker_wins")
    says(error, "metric", "attacker_wins")
    with pytest.raises(ScenarioError) as error:
        horse_vs_foot.heatmap(charger="their")
    says(error, "charger", "theirs")
    with pytest.raises(ScenarioError, match="charger: 'theirs' charged in no cell"):
        horse_vs_foot.heatmap(charger="theirs")  # played one way round
    with pytest.raises(TypeError, match="charger must be a string"):
        horse_vs_foot.heatmap(charger=1)
    rating = horse_vs_foot.rating()
    with pytest.raises(ScenarioError) as error:
        rating.expected("Lancer", "Pike Block")
    says(error, "i", "Lancers")
    with pytest.raises(ScenarioError) as error:
        rating.expected("Lancers", "Pike block")
    says(error, "j", "Pike Block")
    with pytest.raises(ScenarioError, match="j: unit must be a name or an index 0..9"):
        rating.expected(0, 10)
    with pytest.raises(TypeError, match="i must be a unit's name or index, got 1.5"):
        rating.expected(1.5, 0)


# --- 5. "1 fight" -----------------------------------------------------------------------------

def test_one_fight_is_singular_wherever_counts_are_printed():
    result = hand_made(PIKES, CLOSING_FIRE[:1], seed=1)
    assert report.size(result) == "1 fight"
    shown = [str(result), repr(result), result._repr_html_(),
             plots.outcome_bars(result).get_title(), report.runs([1], 1, "cell"),
             report.runs([1, 1], 1, "cell", precision=0.1, met=[False, True])]
    grid = odds.compare(PIKES, {"stand": {}, "closing fire": {"engagement.reaction":
                                                                 "closing fire"}},
                        trials=1, quiet=True)
    shown += [str(grid), repr(grid), grid.heatmap().get_title()]
    assert all("1 fights" not in text for text in shown)
    assert "1 fight, seed 1" in shown[0] and "1 fight per cell" in shown[4]
    assert "1 fight a cell" in shown[-1].replace("\n", " ")
    assert report.count(1, "casualty", "casualties") == "1 casualty"
    assert report.count(2, "casualty", "casualties") == "2 casualties"


# --- 6. the opponents' ratings ------------------------------------------------------------

def test_the_round_robin_table_shows_their_ratings_as_the_json_has_them(horse_vs_foot):
    text = str(horse_vs_foot)
    lines = text.splitlines()
    head = lines.index("rating of Foot brigade's units (the opponents):")
    theirs = json.loads(horse_vs_foot.to_json())["rating"]["units"]
    foot = [u for u in theirs if u["unit"] in horse_vs_foot.theirs.unit_names]
    assert len(foot) == 5
    assert lines[head + 1].split() == ["unit", "elo"]
    for line, unit in zip(lines[head + 2:head + 7], foot):  # best first, as in the JSON
        assert line.startswith(unit["unit"])
        assert line.endswith(f"{unit['elo']:.0f} [{unit['elo_low']:.0f}, "
                             f"{unit['elo_high']:.0f}]")


def test_a_list_played_against_itself_has_no_second_rating_table():
    robin = odds.roster(ROSTERS / "blackpowder_horse.toml", trials=100, quiet=True)
    assert "(the opponents)" not in str(robin) and "rating:" in str(robin)
