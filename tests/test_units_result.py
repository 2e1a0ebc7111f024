"""Per-unit outcomes (R0-13): Result.units(), their JSON, CSV rows, table section, per-fight
categoricals and the per-unit chart. A scenario of several units a side is read from its
per-unit record columns (built here as a synthetic record, the numbers computed from it); a
scenario of one unit a side derives each side's unit from the side record."""
import io
import json
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pytest

import odds
from odds import plots
from odds.analysis import report
from odds.analysis.intervals import wilson
from odds.analysis.result import Result
from odds.core.outcome import (ATTACKER, CAUGHT, COLUMNS, DEFENDER, DESTROYED, FLED, MUTUAL,
                               NONE, UNIT_CAUGHT, UNIT_DESTROYED, UNIT_FATES, UNIT_FLED,
                               unit_columns)
from odds.core.tally import Tally
from odds.rulesets import get_ruleset

from conftest import SCENARIOS

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.container import BarContainer  # noqa: E402

ISSUE_FILE = SCENARIOS / "wh40k3_two_squads_vs_ork_mob.toml"
ONE_UNIT = ["mordheim_captain_vs_skaven", "whfb8_knights_lance_charge", "wh40k3_ten_vs_ten",
            "d10skirmish_trooper_charges_sniper", "blackpowder_cuirassiers_charge_lancers"]
FATES = ("standing", "destroyed", "caught", "fled", "unreached")
SIDES = ("attacker", "defender")


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def models(unit) -> int:
    return sum(g.count for g in unit.models)


def synthetic(scenario, fights=3000, seed=7) -> Result:
    """A Result of a scenario of several units a side from a random record in the kernel's
    layout: per unit a fate (unreached only for a unit out of the fight at the start), its
    losses (all its models when destroyed or caught) and wounds; side columns their sums."""
    columns = COLUMNS + get_ruleset(scenario.ruleset).extra_columns + unit_columns(scenario)
    rng = np.random.default_rng(seed)
    record = np.zeros((len(columns), fights), np.int32)
    record[0] = rng.integers(0, 3, fights)
    record[1] = rng.integers(0, 3, fights)
    record[2] = rng.integers(1, 8, fights)
    for side in SIDES:
        for i, unit in enumerate(scenario.side(side).every_unit):
            stem = f"{side}.units[{i}]"
            fate = rng.integers(0, 5 if unit.options.get("engaged") is False else 4, fights)
            lost = np.where(np.isin(fate, (UNIT_DESTROYED, UNIT_CAUGHT)), models(unit),
                            rng.integers(0, models(unit), fights))
            wounds = lost + rng.integers(0, 2, fights)
            for part, values in (("fate", fate), ("lost", lost), ("wounds", wounds)):
                record[columns.index(f"{stem}.{part}")] = values
            record[columns.index(f"{side}_lost")] += lost
            record[columns.index(f"{side}_wounds")] += wounds
    tally = Tally(columns)
    tally.add(record)
    return Result(scenario, tally, seed, record)


@pytest.fixture(scope="module")
def issue():
    return synthetic(odds.load(ISSUE_FILE))


@pytest.fixture(scope="module", params=ONE_UNIT)
def one_unit(request):
    return odds.simulate(SCENARIOS / f"{request.param}.toml", trials=3000, seed=2,
                         keep_fights=True)


def derived_unit_record(result) -> tuple[tuple[str, ...], np.ndarray]:
    """The side record of a one-unit-a-side result with the per-unit columns a kernel would
    write for it (units_spec section 7): fate from (winner, end), losses, wounds and the
    ruleset's unit flags the side record has (blackpowder: shaken) the side's."""
    columns, record = result.tally.columns, result.fights_record
    winner, end = record[0], record[1]
    flags = [f for f in get_ruleset(result.scenario.ruleset).unit_flags
             if f"attacker_{f}" in columns]
    extra = []
    for side, enemy in (("attacker", DEFENDER), ("defender", ATTACKER)):
        lost = winner == enemy
        fate = np.select([lost & (end == DESTROYED), (winner == NONE) & (end == MUTUAL),
                          lost & (end == CAUGHT), lost & (end == FLED)],
                         [UNIT_DESTROYED, UNIT_DESTROYED, UNIT_CAUGHT, UNIT_FLED], 0)
        extra += [fate, record[columns.index(f"{side}_lost")],
                  record[columns.index(f"{side}_wounds")]]
        extra += [record[columns.index(f"{side}_{flag}")] for flag in flags]
    names = tuple(f"{side}.units[0].{part}" for side in SIDES
                  for part in ("fate", "lost", "wounds", *flags))
    return columns + names, np.vstack([record, np.array(extra, np.int32)])


def recorded_twin(result, change=None) -> Result:
    """The same fights with the per-unit columns written out (``change(columns, record)``
    may edit them first)."""
    columns, record = derived_unit_record(result)
    if change:
        change(columns, record)
    tally = Tally(columns)
    tally.add(record)
    return Result(result.scenario, tally, result.seed, record)


# --- one unit a side: derived from the side record ---------------------------------------

def test_derived_units_are_the_sides(one_unit):
    """Each side's unit has its side's fate (destroyed also counts mutual destruction: the
    unit has no model left), losses and wounds; never unreached."""
    frame = one_unit.units().set_index("side")
    counts, means, n = one_unit.counts(), one_unit.means(), one_unit.trials
    sc = one_unit.scenario
    assert list(frame.index) == list(SIDES)
    for side in SIDES:
        row = frame.loc[side]
        assert row["unit"] == sc.side(side).name
        expected = {"destroyed": counts[f"{side}_destroyed"] + counts["both_destroyed"],
                    "caught": counts[f"{side}_caught"], "fled": counts[f"{side}_fled"],
                    "unreached": 0}
        expected["standing"] = n - expected["destroyed"] - expected["fled"]
        for fate, k in expected.items():
            assert round(row[fate] * n) == k, (side, fate)
            low, high = wilson(k, n)
            assert (row[f"{fate}_low"], row[f"{fate}_high"]) == (low, high)
        assert row["losses_mean"] == means[f"{side}_losses_mean"]
        assert row["wounds_mean"] == means[f"{side}_wounds_mean"]
        if sc.side(side).models:
            assert row["models"] == models(sc.side(side))
        else:  # a unit without model groups (Black Powder) has no model count
            assert pd.isna(row["models"])


def test_some_derived_unit_is_destroyed_or_fled():
    """The comparison above is not empty: in a fight to the end some unit is destroyed and
    some flees."""
    frame = odds.simulate(SCENARIOS / "wh40k3_ten_vs_ten.toml", trials=3000, seed=2).units()
    assert (frame["destroyed"] > 0).all() and (frame["fled"] > 0).any()


def test_unit_columns_give_the_same_numbers_as_the_side_record(one_unit):
    """A record that writes each side's unit out (as the kernel does for several units) gives
    the same unit rows, JSON and side-level figures as the side record alone."""
    twin = recorded_twin(one_unit)
    assert "attacker.units[0].fate" in twin.tally.columns
    pd.testing.assert_frame_equal(twin.units(), one_unit.units())
    assert twin.to_dict() == one_unit.to_dict()
    assert twin.means() == one_unit.means() and twin.probabilities() == one_unit.probabilities()
    assert str(twin) == str(one_unit) and twin.to_csv() == one_unit.to_csv()


def test_unit_columns_are_read_when_present(one_unit):
    """The twin's rows come from its unit columns: change a fate there and only that unit's
    row changes."""
    def flee_once(columns, record):
        row = columns.index("defender.units[0].fate")
        record[row, 0] = UNIT_FLED if record[row, 0] != UNIT_FLED else UNIT_DESTROYED

    changed, plain = recorded_twin(one_unit, flee_once).units(), one_unit.units()
    assert changed.iloc[0].equals(plain.iloc[0])
    assert changed.loc[1, "fled"] != plain.loc[1, "fled"]


def test_one_unit_outputs_have_no_unit_section(one_unit):
    text, csv = str(one_unit), one_unit.to_csv()
    assert "per unit" not in text and ".units[" not in csv
    assert len(pd.read_csv(io.StringIO(csv))) == len(one_unit.summary())
    assert [(u["side"], u["unit"]) for u in one_unit.to_dict()["units"]] == [
        (side, one_unit.scenario.side(side).name) for side in SIDES]


# --- several units a side: read from the unit columns ------------------------------------

def expected_units(result) -> list[dict]:
    """Each unit's figures computed straight from the synthetic record."""
    columns, record, n = result.tally.columns, result.fights_record, result.trials
    out = []
    for side in SIDES:
        for i, unit in enumerate(result.scenario.side(side).every_unit):
            fate, lost, wounds = (record[columns.index(f"{side}.units[{i}].{part}")]
                                  for part in ("fate", "lost", "wounds"))
            counts = {name: int((fate == code).sum()) for code, name in enumerate(UNIT_FATES)}
            counts["destroyed"] += counts["caught"]
            out.append({"side": side, "unit": unit.name, "models": models(unit), "counts": counts,
                        "trials": n, "losses_mean": lost.mean(), "wounds_mean": wounds.mean()})
    return out


def test_units_of_several_units_come_from_their_columns(issue):
    frame = issue.units()
    expected = expected_units(issue)
    assert list(frame["unit"]) == ["Assault Squad", "Tactical Squad", "Ork Boyz", "Gretchin"]
    assert list(frame["side"]) == ["attacker", "attacker", "defender", "defender"]
    for row, want in zip(frame.itertuples(), expected):
        assert row.models == want["models"]
        for fate, k in want["counts"].items():
            low, high = wilson(k, want["trials"])
            assert (getattr(row, fate), getattr(row, f"{fate}_low"),
                    getattr(row, f"{fate}_high")) == (k / want["trials"], low, high)
        assert row.losses_mean == pytest.approx(want["losses_mean"], rel=1e-12)
        assert row.wounds_mean == pytest.approx(want["wounds_mean"], rel=1e-12)
    assert frame.loc[3, "unreached"] > 0 and (frame.loc[:2, "unreached"] == 0).all()


def test_side_figures_ignore_the_unit_columns(issue):
    """The unit columns are no ruleset count columns: no "<column>_mean" for them."""
    assert list(issue.means()) == ["mean_rounds", "attacker_losses_mean",
                                   "attacker_wounds_mean", "defender_losses_mean",
                                   "defender_wounds_mean"]
    assert issue.to_dict()["ruleset_outcomes"] == {}


def test_json_units(issue):
    data = json.loads(issue.to_json(), parse_constant=pytest.fail)
    plain = odds.simulate(SCENARIOS / "wh40k3_ten_vs_ten.toml", trials=200, seed=1).to_dict()
    assert set(data) == set(plain)
    frame = issue.units()
    assert len(data["units"]) == len(frame)
    for entry, row in zip(data["units"], frame.itertuples()):
        assert list(entry) == ["side", "unit", "models", *FATES, "losses_mean", "wounds_mean",
                               *(f"{fate}_ci95" for fate in FATES)]
        assert (entry["side"], entry["unit"], entry["models"]) == (row.side, row.unit,
                                                                   row.models)
        for fate in FATES:
            low, high = entry[f"{fate}_ci95"]
            assert entry[fate] == getattr(row, fate)
            assert (low, high) == (getattr(row, f"{fate}_low"), getattr(row, f"{fate}_high"))
            assert low <= entry[fate] <= high
        assert entry["losses_mean"] == row.losses_mean


def test_json_model_count_is_null_without_model_groups():
    result = odds.simulate(SCENARIOS / "blackpowder_cuirassiers_charge_lancers.toml",
                           trials=200, seed=1)
    assert [u["models"] for u in json.loads(result.to_json())["units"]] == [None, None]


def test_csv_appends_one_row_per_unit_figure(issue):
    frame = pd.read_csv(io.StringIO(issue.to_csv()))
    summary = issue.summary()
    assert list(frame["outcome"][:len(summary)]) == list(summary.index)
    units = frame.iloc[len(summary):].set_index("outcome")
    names = [f"{side}.units[{unit}]" for side, unit in
             [("attacker", "Assault Squad"), ("attacker", "Tactical Squad"),
              ("defender", "Ork Boyz"), ("defender", "Gretchin")]]
    assert list(units.index) == [f"{stem}.{key}" for stem in names
                                 for key in (*FATES, "losses_mean", "wounds_mean")]
    assert set(units["kind"]) == {"probability", "mean"}
    assert (units["trials"] == issue.trials).all()
    for stem, row in zip(names, issue.units().itertuples()):
        caught = units.loc[f"{stem}.caught"]
        assert caught["kind"] == "probability"
        assert (caught["value"], caught["ci95_low"], caught["ci95_high"]) == pytest.approx(
            (row.caught, row.caught_low, row.caught_high), rel=1e-15)
        lost = units.loc[f"{stem}.losses_mean"]
        assert lost["kind"] == "mean" and np.isnan(lost["ci95_low"])
        assert lost["value"] == pytest.approx(row.losses_mean, rel=1e-15)


def test_table_has_a_per_unit_section(issue):
    text = str(issue)
    lines = text.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("per unit"))
    assert "mean per side" in "\n".join(lines[:head])
    assert lines[head].split() == ["per", "unit", "side", "destroyed", "95%", "interval", "of",
                                   "which", "caught", "fled", "unreached", "mean", "models",
                                   "lost"]
    for line, row in zip(lines[head + 1:], issue.units().itertuples()):
        assert line.startswith(row.unit) and row.side in line
        assert f"{100 * row.destroyed:.2f}%" in line
        assert f"[{100 * row.destroyed_low:.2f}%, {100 * row.destroyed_high:.2f}%]" in line
        assert line.endswith(f"{row.losses_mean:.2f} of {row.models}")
        assert line.split()[-5:-3] == [f"{100 * row.fled:.2f}%", f"{100 * row.unreached:.2f}%"]
    assert len(lines) == head + 1 + 4


def test_table_shows_unreached_only_when_a_unit_can_be(issue):
    scenario = odds.load(ISSUE_FILE)
    scenario.defender.units[1].options["engaged"] = True
    text = str(synthetic(scenario))
    assert "per unit" in text and "unreached" not in text


def test_fights_unit_fates_are_categoricals(issue):
    frame = issue.fights()
    columns = issue.tally.columns
    for stem in ("attacker.units[0]", "defender.units[1]"):
        fate = frame[f"{stem}.fate"]
        assert isinstance(fate.dtype, pd.CategoricalDtype)
        assert list(fate.cat.categories) == list(UNIT_FATES)
        assert (fate.cat.codes.to_numpy() == issue.fights_record[columns.index(
            f"{stem}.fate")]).all()
        assert frame[f"{stem}.lost"].dtype.kind == "i"


def test_missing_unit_columns_are_an_error():
    scenario = odds.load(ISSUE_FILE)
    tally = Tally(COLUMNS)
    tally.add(np.zeros((len(COLUMNS), 4), np.int32))
    with pytest.raises(ValueError, match=r"attacker\.units\[0\]\.fate.*Assault Squad"):
        Result(scenario, tally, 1).units()


# --- the per-unit chart -------------------------------------------------------------------

def bars(ax) -> list:
    return [c for c in ax.containers if isinstance(c, BarContainer)]


@pytest.mark.parametrize("which", ["issue", "one"])
def test_unit_losses_chart(which, issue):
    result = issue if which == "issue" else odds.simulate(
        SCENARIOS / "mordheim_captain_vs_skaven.toml", trials=500, seed=1)
    ax = plots.unit_losses(result)
    frame = result.units()
    assert [t.get_text().replace("\n", " ") for t in ax.get_yticklabels()] == [
        f"{u} ({s})" for u, s in zip(frame["unit"], frame["side"])]
    assert [t.get_color() for t in ax.get_yticklabels()] == [
        plots.SIDE_COLOURS[s] for s in frame["side"]]
    assert result.scenario.name in ax.get_title().replace("\n", " ")
    fate_bars = [c for c in bars(ax) if c.get_label() in
                 {name for name, _ in plots.UNIT_FATES.values()}]
    totals = np.sum([[p.get_width() for p in c] for c in fate_bars], axis=0)
    assert totals == pytest.approx(100.0)  # every unit's fates stack to 100%
    destroyed = [p.get_width() for p in fate_bars[0]]
    assert destroyed == pytest.approx(list(100 * (frame["destroyed"] - frame["caught"])))
    lost = [c for c in bars(ax) if c not in fate_bars]
    shares = [c[0].get_width() for c in lost[1::2]]  # each unit: its whole, then its mean lost
    assert shares == pytest.approx(list(100 * frame["losses_mean"] / frame["models"]))
    assert [t.get_text() for t in ax.texts if t.get_text().startswith("mean ")] == [
        f"mean {plots._amount(u.losses_mean)} of "
        f"{report.count(u.models, *get_ruleset(result.scenario.ruleset).lost)}"
        for u in frame.itertuples()]


def test_unit_losses_legend_clears_the_axis_label(issue):
    ax = plots.unit_losses(issue)
    ax.figure.draw_without_rendering()
    renderer = ax.figure.canvas.get_renderer()
    legend = ax.get_legend().get_window_extent(renderer)
    label = ax.xaxis.label.get_window_extent(renderer)
    assert legend.y1 <= label.y0 and legend.y0 >= 0
    assert "never reached" in [t.get_text() for t in ax.get_legend().get_texts()]


def test_unit_losses_without_model_counts():
    """A unit without model groups (Black Powder) has its mean losses as text, no bar, and
    its unit flag beside (shaken)."""
    result = odds.simulate(SCENARIOS / "blackpowder_cuirassiers_charge_lancers.toml",
                           trials=300, seed=1)
    ax = plots.unit_losses(result)
    labels = {name for name, _ in plots.UNIT_FATES.values()}
    assert all(c.get_label() in labels for c in bars(ax))
    units = result.units()
    assert [t.get_text() for t in ax.texts if t.get_text().startswith("mean ")] == [
        f"mean {plots._amount(m)} casualties, shaken {plots._percent(100 * s)}"
        for m, s in zip(units["losses_mean"], units["shaken"])]
    assert list(units["shaken"]) == [result.probabilities()[f"{side}_shaken"][0]
                                     for side in SIDES]
    assert "models" not in ax.get_xlabel()


def test_html_shows_each_unit_only_for_several_units(issue, one_unit):
    """In Jupyter a Result of several units a side shows each unit's table too."""
    assert "each unit" in issue._repr_html_() and "Gretchin" in issue._repr_html_()
    assert "each unit" not in one_unit._repr_html_()


def test_a_grid_of_one_unit_and_several_unit_cells_has_every_unit_figure():
    """A comparison whose cells differ in units (the Chaos Lord's weapons with and without
    the Knights): the one-unit cells give their one unit's figures too, so no cell of a
    per-unit column is missing, and they agree with the side's own figures."""
    data = Path(__file__).resolve().parents[1] / "data"
    grid = odds.compare(data / "comparisons" / "whfb8_chaos_lord_weapons.toml", trials=400,
                        quiet=True).frame
    caught = grid["defender.units[Night Goblins].caught"]
    assert caught.notna().all()
    assert (caught == grid["defender_caught"]).all()  # the defender is one unit in every cell
    alone = grid["variant"].str.endswith("Warriors alone")
    assert grid.loc[~alone, "attacker.units[Chaos Knights].destroyed"].notna().all()
