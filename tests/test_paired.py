"""Comparisons played in lockstep: paired differences from a baseline, identical cells, cells
equal to odds.simulate bit for bit, precision per cell and the trial cap."""
import numpy as np
import pandas as pd
import pytest

import odds
from odds.analysis.intervals import mean_difference, paired_difference
from odds.core import runner
from odds.errors import ScenarioError
from odds.play.options import BATCH

SERGEANT = "attacker.models[Veteran Sergeant]"
VARIANTS = {"fist": {}, "ws5": {f"{SERGEANT}.profile.WS": 5},
            "chainsword": {f"{SERGEANT}.equipment": ["bolt pistol", "chainsword"]}}


def same_tally(a, b) -> bool:
    return (a.trials == b.trials and np.array_equal(a.outcomes, b.outcomes)
            and all(np.array_equal(a.by_winner[c], b.by_winner[c]) for c in a.by_winner))


def direct(base, changes, **kwargs):
    """The cell's scenario simulated on its own (and its per-fight record)."""
    from odds.analysis.comparison_file import cell
    from odds.core.schema import Where

    scenario = cell(odds.load(base), changes, {}, Where(str(base), ""))
    return odds.simulate(scenario, keep_fights="precision" not in kwargs, **kwargs)


def test_cells_equal_simulate_bit_for_bit_across_chunks(marines_vs_boyz, monkeypatch):
    """Lockstep play in chunks of 1,000 (2,500 fights: three chunks) gives every cell the tally
    odds.simulate gives."""
    monkeypatch.setattr(runner, "CHUNK", 1000)
    grid = odds.compare(marines_vs_boyz, VARIANTS, trials=2500, seed=8)
    for name, changes in VARIANTS.items():
        assert same_tally(grid.results[name, "base"].tally,
                          direct(marines_vs_boyz, changes, trials=2500, seed=8).tally)


def test_paired_differences_are_those_of_the_per_fight_records(marines_vs_boyz, monkeypatch):
    """The 2 x 2 table of fight i of a variant against fight i of the baseline, counted by
    hand from keep_fights records, gives the frame's difference and interval exactly."""
    monkeypatch.setattr(runner, "CHUNK", 1000)
    grid = odds.compare(marines_vs_boyz, VARIANTS, trials=2500, seed=8)
    base = direct(marines_vs_boyz, {}, trials=2500, seed=8).fights()
    for name in ("ws5", "chainsword"):
        fights = direct(marines_vs_boyz, VARIANTS[name], trials=2500, seed=8).fights()
        row = grid.frame.set_index("variant").loc[name]
        x, y = fights["winner"] == "attacker", base["winner"] == "attacker"
        expected = paired_difference((x & y).sum(), (x & ~y).sum(), (~x & y).sum(),
                                     (~x & ~y).sum())
        assert (row["attacker_wins_diff"], row["attacker_wins_diff_low"],
                row["attacker_wins_diff_high"]) == expected
        assert row["attacker_wins_diff"] == pytest.approx(
            row["attacker_wins"] - grid.frame.iloc[0]["attacker_wins"], abs=1e-12)
        d = (fights["defender_lost"] - base["defender_lost"]).to_numpy(np.int64)
        assert (row["defender_losses_mean_diff"], row["defender_losses_mean_diff_low"],
                row["defender_losses_mean_diff_high"]) == mean_difference(
            len(d), int(d.sum()), int(d @ d))
        assert row["paired_trials"] == 2500 and row["baseline"] == "fist"
    assert "chainsword" in str(grid) and "(baseline)" in str(grid)


def test_paired_interval_is_narrower_than_independent_runs(marines_vs_boyz):
    """Common random numbers: the paired interval of a one-stat change is narrower than the
    two cells' own intervals combined as if independent."""
    grid = odds.compare(marines_vs_boyz, {"fist": {}, "ws5": VARIANTS["ws5"]}, trials=20_000,
                        seed=3).frame
    paired = grid.iloc[1]["attacker_wins_diff_high"] - grid.iloc[1]["attacker_wins_diff_low"]
    halves = [(r["attacker_wins_high"] - r["attacker_wins_low"]) for _, r in grid.iterrows()]
    assert paired < 0.8 * np.hypot(*halves)


def test_identical_cells_are_flagged_with_exactly_zero_difference(marines_vs_boyz):
    """Points change nothing in play: that variant's fights are the baseline's, fight for
    fight, so every difference is exactly 0 [0, 0]; an opponent change that does nothing is
    flagged too."""
    grid = odds.compare(marines_vs_boyz,
                        {"fist": {}, "priced": {f"{SERGEANT}.points": 40},
                         "ws5": VARIANTS["ws5"]},
                        {"boyz": {}, "priced boyz": {"defender.models[Boy].points": 6}},
                        trials=3000, seed=2)
    f = grid.frame.set_index(["variant", "opponent"])
    priced = f.loc["priced", "boyz"]
    assert priced["identical_to"] == "'fist' vs 'boyz'"
    diffs = [c for c in f.columns if c.endswith(("_diff", "_diff_low", "_diff_high"))]
    assert len(diffs) > 30 and (priced[diffs] == 0).all()
    assert f.loc["fist", "priced boyz"]["identical_to"] == "'fist' vs 'boyz'"
    assert f.loc["ws5", "priced boyz"]["identical_to"] == "'ws5' vs 'boyz'"
    assert pd.isna(f.loc["ws5", "boyz"]["identical_to"])
    assert f.loc["ws5", "boyz"]["attacker_wins_diff_high"] > f.loc["ws5", "boyz"][
        "attacker_wins_diff_low"]
    text = str(grid)
    assert "note: 'priced' played exactly the same fights as 'fist' against every opponent" in text
    assert ("note: against 'priced boyz', every variant played exactly the same fights as "
            "against 'boyz'") in text
    table = [line for line in text.splitlines() if line.startswith("priced ")]
    assert [line.count("same fights") for line in table] == [2, 2, 0, 0]  # odds, then means
    grid = odds.compare(marines_vs_boyz, {"fist": {}, "ws5": VARIANTS["ws5"]},
                        {"boyz": {}, "ws5 anyway": VARIANTS["ws5"]}, trials=500)
    text = str(grid)  # both cells are the sergeant at WS 5 against the Boyz
    assert ("note: 'ws5' vs 'boyz' played exactly the same fights as 'fist' vs 'ws5 anyway' "
            "(identical per-fight records") in text
    assert grid.frame.iloc[3]["identical_to"] == "'fist' vs 'ws5 anyway'"


def test_precision_cells_stop_apart_and_pair_over_the_common_prefix(marines_vs_boyz):
    """With precision each cell stops where odds.simulate(precision=...) stops, bit for bit;
    the 30-Boyz variant (near 50%) needs more fights than the 5-Boyz baseline, so the pair
    uses the baseline's fights only, and the table says so."""
    variants = {"5 boyz": {"defender.models[Boy].count": 5},
                "30 boyz": {"defender.models[Boy].count": 30}}
    grid = odds.compare(marines_vs_boyz, variants, precision=0.006, seed=4)
    f = grid.frame.set_index("variant")
    for name, changes in variants.items():
        alone = direct(marines_vs_boyz, changes, precision=0.006, seed=4)
        assert same_tally(grid.results[name, "base"].tally, alone.tally)
        assert f.loc[name, "precision_met"] == alone.precision_met is True
    assert f.loc["30 boyz", "trials"] > f.loc["5 boyz", "trials"]
    assert f.loc["30 boyz", "paired_trials"] == f.loc["5 boyz", "trials"]
    text = str(grid)
    assert "precision ±0.60% met in every cell" in text and "paired_trials" in text
    assert f"{f.loc['5 boyz', 'trials']:,} to {f.loc['30 boyz', 'trials']:,} fights" in text


def test_max_trials_caps_every_cell(marines_vs_boyz):
    grid = odds.compare(marines_vs_boyz, VARIANTS, precision=0.001, max_trials=BATCH, seed=1)
    assert (grid.frame["trials"] == BATCH).all() and not grid.frame["precision_met"].any()
    assert "met in 0 of 3 cells (* = not met: trial cap reached)" in str(grid)
    curve = odds.sweep(marines_vs_boyz, "defender.models[0].count", [10, 20], precision=0.001,
                       max_trials=BATCH)
    assert (curve.frame["trials"] == BATCH).all()


def test_baseline_by_name(marines_vs_boyz):
    grid = odds.compare(marines_vs_boyz, VARIANTS, baseline="ws5", trials=1000)
    f = grid.frame.set_index("variant")
    assert (f["baseline"] == "ws5").all() and f.loc["ws5", "attacker_wins_diff"] == 0
    assert f.loc["fist", "attacker_wins_diff"] == pytest.approx(
        f.loc["fist", "attacker_wins"] - f.loc["ws5", "attacker_wins"], abs=1e-12)
    with pytest.raises(ScenarioError, match="baseline: no variant named 'bolter'"):
        odds.compare(marines_vs_boyz, VARIANTS, baseline="bolter", trials=10)


@pytest.mark.parametrize("kwargs,words", [
    ({"variants": [{"a": 1}]}, "variants must be a dict mapping each name to its changes"),
    ({"opponents": {"x": [1]}}, r"opponents\['x'\] must be a dict of path -> value"),
    ({"variants": {1: {}}}, "each name must be a string"),
    ({"baseline": 3}, "baseline must be the name of a variant"),
])
def test_wrong_argument_types_say_what_is_expected(marines_vs_boyz, kwargs, words):
    with pytest.raises(TypeError, match=words):
        odds.compare(marines_vs_boyz, **kwargs)


def test_wrong_base_and_sweep_types(marines_vs_boyz):
    with pytest.raises(TypeError, match="expected a Scenario, a dict of scenario data or the path"):
        odds.compare(123)
    with pytest.raises(TypeError, match="values must be a list, tuple, range or numpy array"):
        odds.sweep(marines_vs_boyz, "defender.models[0].count", "10,20")
    with pytest.raises(TypeError, match="values must be"):
        odds.sweep(marines_vs_boyz, "defender.models[0].count", {10, 20})
    with pytest.raises(TypeError, match="path must be a string"):
        odds.sweep(marines_vs_boyz, 3, [1])
    with pytest.raises(ScenarioError, match="the value 10 is listed twice"):
        odds.sweep(marines_vs_boyz, "defender.models[0].count", [10, 10])
    curve = odds.sweep(marines_vs_boyz, "defender.models[0].count", np.array([10, 20]),
                       trials=200)
    assert list(curve.frame["value"]) == [10, 20]


@pytest.mark.parametrize("option,value,words", [
    ("trials", 0, "trials: must be from 1 to"), ("seed", -1, "seed: must be from 0 to"),
    ("threads", 0, "threads: must be at least 1"), ("threads", "2", "threads: must be a whole"),
    ("max_trials", 0, "max_trials: must be from 1"), ("precision", 0.7, "precision: must be"),
])
def test_bad_run_options(marines_vs_boyz, option, value, words):
    for run in (lambda **k: odds.compare(marines_vs_boyz, **k),
                lambda **k: odds.sweep(marines_vs_boyz, "defender.models[0].count", [5], **k)):
        with pytest.raises(ScenarioError, match=words):
            run(**{option: value})
