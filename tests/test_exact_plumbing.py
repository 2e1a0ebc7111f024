"""The exact solver's plumbing (issue 12): Result, tables, JSON, CSV, charts, comparisons,
sweeps, round robins and the CLI from an exact tally, the state bound and method 'auto'.

A stand-in solver makes the plumbing testable on its own: it "solves" a scenario as the
empirical distribution of a fixed-seed simulation (each distinct outcome row weighted by
its share), so every exact figure must equal the simulated point estimate."""
from __future__ import annotations

import json

import numpy as np
import pytest

import odds
from odds.cli import main
from odds.core import exact
from odds.core.outcome import COLUMNS, empty_record
from odds.errors import ScenarioError

SCENARIO = "data/scenarios/whfb8_knights_lance_charge.toml"
UNITS = "data/scenarios/wh40k3_two_squads_vs_ork_mob.toml"
N, SEED = 3000, 11


class Empirical:
    """A solver module whose 'exact' distribution is N simulated fights (seed SEED)."""

    def __init__(self, ruleset, settings: dict):
        self.ruleset, self.settings, self.columns = ruleset, settings, None

    def judge(self, scenario):
        """covers(), from the scenario (its columns and name) rather than the plan."""
        self.columns = self.ruleset.columns(scenario)
        return "the test refuses it" if scenario.name in self.settings.get("refuse", ()) \
            else None

    def solve(self, plan, max_states):
        out = empty_record(N, self.columns[len(COLUMNS):])
        self.ruleset.play(plan, SEED, 0, out)
        rows, counts = np.unique(out, axis=1, return_counts=True)
        exact.check_states(rows.shape[1], max_states, 1)
        return rows, counts / N, rows.shape[1]


@pytest.fixture(autouse=True)
def no_figures_left():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.fixture
def empirical(monkeypatch):
    solvers = {}

    def module(ruleset):
        return solvers.setdefault(ruleset.id, Empirical(ruleset, solvers))

    monkeypatch.setattr(exact, "module", module)
    monkeypatch.setattr(exact, "covers",
                        lambda ruleset, scenario, plan=None: module(ruleset).judge(scenario))
    return solvers


def simulated(path=SCENARIO, **options):
    return odds.simulate(path, trials=N, seed=SEED, quiet=True, **options)


def test_exact_result_equals_the_distribution_it_was_given(empirical):
    solved, mc = odds.simulate(SCENARIO, method="exact", quiet=True), simulated()
    assert solved.method == "exact" and mc.method == "mc"
    assert solved.trials is None and solved.seed is None and solved.states > 1
    for key, (p, low, high) in solved.probabilities().items():
        assert low == p == high
        assert p == pytest.approx(mc.probabilities()[key][0], abs=1e-12)
    for key, value in solved.means().items():
        assert value == pytest.approx(mc.means()[key], abs=1e-12)
    assert solved.headline_half_width() == 0.0
    for table in ("losses", "cumulative", "rounds", "quantiles"):
        args = ("attacker",) if table == "losses" else ()
        a, b = getattr(solved, table)(*args), getattr(mc, table)(*args)
        assert list(a.columns) == list(b.columns)
        values = [c for c in a.columns if not str(c).endswith(("_low", "_high"))]
        assert np.allclose(a[values].to_numpy(float), b[values].to_numpy(float), atol=1e-12)
        for c in values:
            if f"{c}_low" in a:
                assert (a[f"{c}_low"] == a[c]).all() and (a[f"{c}_high"] == a[c]).all()


def test_exact_units_frame_and_table(empirical):
    solved, mc = odds.simulate(UNITS, method="exact", quiet=True), simulated(UNITS)
    a, b = solved.units(), mc.units()
    assert np.allclose(a["destroyed"], b["destroyed"], atol=1e-12)
    assert (a["destroyed_low"] == a["destroyed"]).all()
    text = str(solved)
    assert "exact (" in text and "fight states" in text and "95% interval" not in text


def test_exact_json_has_todays_keys_plus_method(empirical):
    solved, mc = odds.simulate(SCENARIO, method="exact", quiet=True).to_dict(), \
        simulated().to_dict()
    assert set(solved) == set(mc)
    assert solved["method"] == "exact" and mc["method"] == "mc"
    assert solved["trials"] is None and solved["seed"] is None
    for key in ("attacker_wins", "defender_fled"):
        assert solved[f"{key}_ci95"] == [solved[key], solved[key]]


def test_exact_csv_leaves_trials_and_seed_empty(empirical):
    text = odds.simulate(SCENARIO, method="exact", quiet=True).to_csv()
    head, first = text.splitlines()[:2]
    assert head.startswith("scenario,ruleset,method,trials,seed,outcome")
    assert ",exact,,,attacker_wins," in first


def test_exact_charts_render(empirical, tmp_path):
    from odds.plots import result_figure

    result = odds.simulate(UNITS, method="exact", quiet=True)
    fig = result_figure(result)
    fig.savefig(tmp_path / "exact.png")
    assert "exact (" in fig.get_suptitle() and "95%" not in fig.get_suptitle()
    assert (tmp_path / "exact.png").stat().st_size > 10_000


def test_exact_comparison_differences_are_the_differences_of_exact_results(empirical):
    variants = {"lances": {}, "more knights": {"attacker.models[0].count": 12}}
    grid = odds.compare(SCENARIO, variants, method="exact", quiet=True)
    f = grid.frame.set_index("variant")
    base = odds.simulate(SCENARIO, method="exact", quiet=True)
    more = grid.results["more knights", "base"]
    d = more.probabilities()["attacker_wins"][0] - base.probabilities()["attacker_wins"][0]
    assert f.loc["more knights", "attacker_wins_diff"] == pytest.approx(d, abs=1e-15)
    assert f.loc["more knights", "attacker_wins_diff_low"] == f.loc["more knights",
                                                                    "attacker_wins_diff"]
    assert (f["method"] == "exact").all() and f["paired_trials"].isna().all()
    text = str(grid)
    assert "in percentage points, exact" in text and "paired fight by fight" not in text
    assert "solved exactly, at most" in text and "[" not in text.split("means per fight")[0] \
        .split("\n", 3)[3]
    grid.heatmap("attacker_wins_diff")


def test_identical_exact_cells_are_noted(empirical):
    variants = {"a": {}, "b": {"attacker.models[0].count": 8}}  # b changes nothing
    text = str(odds.compare(SCENARIO, variants, method="exact", quiet=True))
    assert "has exactly the same outcomes as 'a'" in text and "same odds" in text


def test_exact_sweep_and_round_robin(empirical, tmp_path):
    sweep = odds.sweep(SCENARIO, "attacker.models[0].count", [4, 8], method="exact",
                       quiet=True)
    assert (sweep.frame["method"] == "exact").all() and sweep.frame["trials"].isna().all()
    ax = sweep.plot()
    assert "solved exactly" in ax.get_title()
    robin = odds.roster("data/rosters/whfb8_empire.toml", method="exact", quiet=True)
    assert (robin.frame["method"] == "exact").all()
    rank = robin.ranking()
    assert (rank["win_low"] == rank["win"]).all()
    assert robin.rating() is not None and "solved exactly" in str(robin)
    robin.plot_ranking().figure.savefig(tmp_path / "ranking.png")


def test_auto_solves_when_it_can_and_says_when_it_cannot(empirical):
    assert odds.simulate(SCENARIO, method="auto", quiet=True).method == "exact"
    states = odds.simulate(SCENARIO, method="exact", quiet=True).states
    fell = odds.simulate(SCENARIO, method="auto", max_states=states - 1, quiet=True)
    assert fell.method == "mc" and fell.trials > 0
    assert f"more than {states - 1:,} fight states" in fell.method_note
    assert fell.method_note in str(fell) and fell.to_dict()["method_note"] == fell.method_note
    assert odds.simulate(SCENARIO, method="exact", max_states=states, quiet=True).states == \
        states
    with pytest.raises(ScenarioError, match=f"more than {states - 1:,} fight states") as e:
        odds.simulate(SCENARIO, method="exact", max_states=states - 1, quiet=True)
    assert e.value.field == "method"


def test_a_scenario_the_solver_does_not_cover(empirical):
    name = odds.load(SCENARIO).name
    empirical["refuse"] = (name,)
    with pytest.raises(ScenarioError, match="cannot solve exactly: the test refuses it"):
        odds.simulate(SCENARIO, method="exact", quiet=True)
    assert "the test refuses it" in odds.simulate(SCENARIO, method="auto",
                                                  quiet=True).method_note


def test_auto_grid_is_all_or_nothing(empirical):
    """A grid is solved only when every cell can be, so no difference mixes methods."""
    variants = {"a": {}, "b": {"attacker.models[0].count": 12}}
    solved = odds.compare(SCENARIO, variants, method="auto", quiet=True)
    assert set(solved.frame["method"]) == {"exact"} and solved.method_note is None
    base = odds.load(SCENARIO).name
    empirical["refuse"] = (f"{base}: b vs base",)
    mixed = odds.compare(SCENARIO, variants, method="auto", quiet=True, trials=None)
    assert set(mixed.frame["method"]) == {"mc"}
    assert mixed.method_note == (f"simulated, not solved exactly: '{base}: b vs base': the "
                                 "test refuses it")
    assert mixed.method_note in str(mixed)


@pytest.mark.parametrize("option, value", [("precision", 0.01), ("keep_fights", True),
                                           ("trials", 100), ("seed", 3), ("threads", 1)])
def test_simulation_options_do_not_go_with_exact(option, value):
    with pytest.raises(ScenarioError) as e:
        odds.simulate(SCENARIO, method="exact", **{option: value})
    assert e.value.field == option


@pytest.mark.parametrize("method, max_states", [("fast", None), (None, None), ("exact", 0),
                                                ("exact", 1.5), ("exact", True)])
def test_bad_method_or_bound(method, max_states):
    with pytest.raises(ScenarioError) as e:
        odds.simulate(SCENARIO, method=method, max_states=max_states)
    assert e.value.field in ("method", "max_states")


def test_cli_exact_json_and_errors(empirical, capsys):
    assert main(["simulate", SCENARIO, "--method", "exact", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["method"] == "exact" and out["trials"] is None
    assert main(["simulate", SCENARIO, "--method", "exact", "--max-states", "3"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("odds: error: --method: cannot solve exactly")
    assert "more than 3 fight states" in err[0]
    assert main(["simulate", SCENARIO, "--method", "auto", "--max-states", "3",
                 "--trials", "500"]) == 0
    captured = capsys.readouterr()
    assert "odds: simulated, not solved exactly" in captured.err
    for extra in (["--trials", "5"], ["--seed", "2"], ["--threads", "1"]):
        assert main(["simulate", SCENARIO, "--method", "exact", *extra]) == 2
        assert "is for simulation" in capsys.readouterr().err
    assert main(["simulate", SCENARIO, "--method", "exact", "--precision", "0.01"]) == 2
    assert ("--precision: stops a simulation; the exact answer has no noise: drop --precision, "
            "or give --method auto or --method mc") in capsys.readouterr().err
    assert main(["simulate", SCENARIO, "--max-states", "9"]) == 2
    assert "--max-states: bounds the exact solver" in capsys.readouterr().err
