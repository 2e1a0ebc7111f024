"""Runs on a Dask cluster give the numbers of a local run, bit for bit: whatever the number of
workers and the block size, with precision, for comparisons and sweeps, with per-fight rows,
and when a worker dies mid-run. Block merges (Tally, Pairing, Fingerprint) are checked here
without a cluster."""
import atexit
import os
import signal
import sys
from types import SimpleNamespace

import dask
import numpy as np
import pandas as pd
import pytest
from distributed import Client, LocalCluster, get_task_stream

import odds
import odds.version
from odds.analysis.comparison_file import cell
from odds.analysis.result import outcome_codes
from odds.play.options import BATCH
from odds.play.pairing import SEGMENT, Fingerprint, Pairing
from odds.cli import main
from odds.core import distributed, runner
from odds.core.schema import Where
from odds.core.tally import Tally
from odds.rulesets import get_ruleset
from conftest import SCENARIOS

SERGEANT = "attacker.models[Veteran Sergeant]"
WS5 = {f"{SERGEANT}.profile.WS": 5}


@pytest.fixture(scope="module")
def client():
    """Three worker processes of one thread each."""
    with LocalCluster(n_workers=3, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        yield client


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of BATCH trials (a few thousand fights make several blocks)."""
    monkeypatch.setattr(distributed, "SMALLEST_BLOCK", BATCH)


def same_tally(a: Tally, b: Tally) -> bool:
    return (a.columns == b.columns and a.trials == b.trials
            and np.array_equal(a.outcomes, b.outcomes) and a.by_winner.keys() == b.by_winner.keys()
            and all(np.array_equal(a.by_winner[c], b.by_winner[c]) for c in a.by_winner))


def same_result(a, b) -> bool:
    return (same_tally(a.tally, b.tally) and a.probabilities() == b.probabilities()
            and a.means() == b.means() and a.precision_met == b.precision_met)


def test_without_dask_the_errors_say_how_to_install_it(capsys, monkeypatch, marines_vs_boyz):
    """First in the file: no cluster runs yet (its threads would import dask modules)."""
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed: ImportError
    assert main(["simulate", str(marines_vs_boyz), "--scheduler", "tcp://127.0.0.1:8786"]) == 2
    assert capsys.readouterr().err == ('odds: error: --scheduler: running on a Dask cluster '
                                       'needs dask: pip install "odds[dask]"\n')
    with pytest.raises(ImportError, match=r'pip install "odds\[dask\]"'):
        odds.simulate(marines_vs_boyz, trials=10, client=object())


@pytest.mark.parametrize("name", ["wh40k3_two_squads_vs_ork_mob", "d10skirmish_blademaster_vs_brute",
                                  "mordheim_two_on_one"])
def test_simulate_on_one_and_on_three_workers_equals_local(client, small_blocks, name):
    path = SCENARIOS / f"{name}.toml"
    here = odds.simulate(path, trials=70_000, seed=5, quiet=True)
    assert len(distributed.blocks(0, 70_000, 3)) == 5
    everywhere = odds.simulate(path, trials=70_000, seed=5, quiet=True, client=client)
    worker = sorted(client.nthreads())[0]
    with get_task_stream(client) as tasks, dask.annotate(workers=[worker]):
        one = odds.simulate(path, trials=70_000, seed=5, quiet=True, client=client)
    assert {task["worker"] for task in tasks.data} == {worker} and len(tasks.data) == 5
    assert same_result(here, everywhere) and same_result(here, one)


def test_block_size_changes_nothing(client, monkeypatch):
    path = SCENARIOS / "wh40k3_ten_vs_ten.toml"
    whole = odds.simulate(path, trials=100_000, seed=9, quiet=True, client=client)
    assert distributed.blocks(0, 100_000, 3) == [(0, 100_000)]
    monkeypatch.setattr(distributed, "SMALLEST_BLOCK", 2 * BATCH)
    monkeypatch.setattr(distributed, "TASKS_PER_THREAD", 1)
    assert distributed.blocks(0, 100_000, 3) == [(0, 4 * BATCH), (4 * BATCH, 100_000)]
    cut = odds.simulate(path, trials=100_000, seed=9, quiet=True, client=client)
    assert same_result(whole, cut) and same_result(whole, odds.simulate(
        path, trials=100_000, seed=9, quiet=True))


def test_precision_run_stops_where_the_local_one_does(client, small_blocks):
    path = SCENARIOS / "wh40k3_assault_marines_vs_boyz.toml"
    here = odds.simulate(path, precision=0.004, seed=2, quiet=True)
    there = odds.simulate(path, precision=0.004, seed=2, quiet=True, client=client)
    assert there.trials == here.trials > 2 * BATCH and there.precision_met is True
    assert same_result(here, there)


def test_kept_fights_are_the_local_rows(client, small_blocks):
    path = SCENARIOS / "whfb8_knights_lance_charge.toml"
    for options in ({"trials": 40_000}, {"precision": 0.006, "max_trials": 5 * BATCH}):
        here = odds.simulate(path, seed=3, quiet=True, keep_fights=True, **options)
        there = odds.simulate(path, seed=3, quiet=True, keep_fights=True, client=client,
                              **options)
        assert same_result(here, there)
        assert there.fights_record.shape[1] == here.trials
        assert np.array_equal(here.fights_record, there.fights_record)
        pd.testing.assert_frame_equal(here.fights(), there.fights())


def test_compare_frame_equals_the_local_one(client, monkeypatch, marines_vs_boyz):
    """With precision, the 10-Boyz cell stops first, so the "boyz" group plays its trials
    16,384 to 49,152 in two spans (two blocks) where the "ws5 anyway" group plays them in one
    block: the cells identical across the two groups are still found; the differences and
    paired counts are the same."""
    monkeypatch.setattr(distributed, "SMALLEST_BLOCK", 2 * BATCH)
    variants = {"fist": {}, "ws5": WS5, "10 boyz": {"defender.models[Boy].count": 10}}
    opponents = {"boyz": {}, "ws5 anyway": {**WS5, "defender.models[Boy].count": 20}}
    here = odds.compare(marines_vs_boyz, variants, opponents, precision=0.005, seed=6,
                        quiet=True)
    there = odds.compare(marines_vs_boyz, variants, opponents, precision=0.005, seed=6,
                         quiet=True, client=client)
    pd.testing.assert_frame_equal(here.frame, there.frame, check_exact=True)
    f = there.frame.set_index(["variant", "opponent"])
    assert f.loc[("10 boyz", "boyz"), "trials"] == 2 * BATCH
    assert (f["trials"] == 3 * BATCH).sum() == 5
    assert distributed.blocks(BATCH, 3 * BATCH, 3) == [(BATCH, 3 * BATCH)]
    assert f.loc[("ws5", "boyz"), "identical_to"] == "'fist' vs 'ws5 anyway'"
    assert f.loc[("10 boyz", "ws5 anyway"), "identical_to"] == "'fist' vs 'ws5 anyway'"
    assert f.loc[("ws5", "boyz"), "paired_trials"] == 3 * BATCH
    assert f.loc[("10 boyz", "boyz"), "paired_trials"] == 2 * BATCH
    assert str(here) == str(there)


def test_sweep_frame_equals_the_local_one(client, marines_vs_boyz):
    values = [5, 10, 20, 30]
    here = odds.sweep(marines_vs_boyz, "defender.models[Boy].count", values, trials=20_000,
                      quiet=True)
    there = odds.sweep(marines_vs_boyz, "defender.models[Boy].count", values, trials=20_000,
                       quiet=True, client=client)
    pd.testing.assert_frame_equal(here.frame, there.frame, check_exact=True)


class Bar:
    """Stands in for the tqdm bar: counts the fights reported and calls ``on_update``."""

    def __init__(self, total, on_update=lambda: None):
        self.total, self.n, self.on_update = total, 0, on_update

    def update(self, n):
        self.n += n
        self.on_update()

    def refresh(self):
        pass

    def close(self):
        pass


def test_progress_counts_every_finished_fight(client, small_blocks, monkeypatch,
                                              marines_vs_boyz):
    bars = []
    monkeypatch.setattr(runner, "progress_bar", lambda total, wanted: bars.append(Bar(total))
                        or bars[-1])
    grid = odds.compare(marines_vs_boyz, {"fist": {}, "30 boyz": {
        "defender.models[Boy].count": 30}}, precision=0.006, progress=True, client=client)
    assert bars[0].n == bars[0].total == grid.frame["trials"].sum() > 2 * BATCH


def test_a_worker_killed_mid_run_changes_nothing(client, small_blocks, monkeypatch):
    """One of the three worker processes is killed once the first block is in, while it is
    playing one: Dask plays its blocks again elsewhere, and the numbers are the same."""
    monkeypatch.setattr(distributed, "TASKS_PER_THREAD", 8)
    path = SCENARIOS / "wh40k3_ten_vs_ten.toml"
    pids = client.run(os.getpid)
    killed = []

    def kill_a_busy_worker():
        if not killed:
            busy = [w for w, keys in client.processing().items() if keys]
            killed.append(busy[0])
            os.kill(pids[busy[0]], signal.SIGKILL)

    monkeypatch.setattr(runner, "progress_bar",
                        lambda total, wanted: Bar(total, kill_a_busy_worker))
    there = odds.simulate(path, trials=3_000_000, seed=4, progress=True, client=client)
    assert killed and killed[0] not in client.nthreads()  # that worker is gone
    assert same_result(odds.simulate(path, trials=3_000_000, seed=4, quiet=True), there)


def test_cli_scheduler_plays_there_with_the_same_output(client, capsys, monkeypatch,
                                                        marines_vs_boyz):
    """The CLI's client is closed when odds exits (here: at the end of the test)."""
    at_exit = []
    monkeypatch.setattr(atexit, "register", at_exit.append)
    options = ["simulate", str(marines_vs_boyz), "--trials", "20000", "--json"]
    assert main(options) == 0
    here = capsys.readouterr().out
    assert main(options + ["--scheduler", client.scheduler.address]) == 0
    assert capsys.readouterr().out == here
    assert len(at_exit) == 1
    at_exit[0]()


def test_workers_of_another_odds_are_refused(client, capsys, monkeypatch, marines_vs_boyz):
    monkeypatch.setattr(odds.version, "__version__", "0.0.1")  # here only; workers have theirs
    words = "runs odds .*, this is odds 0.0.1: install the same odds on every worker"
    with pytest.raises(RuntimeError, match=words):
        odds.simulate(marines_vs_boyz, trials=10, client=client)
    monkeypatch.setattr(atexit, "register", lambda close: pytest.fail("a client was kept"))
    assert main(["simulate", str(marines_vs_boyz), "--scheduler", client.scheduler.address]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("odds: error: --scheduler: the Dask worker ")


def test_client_must_be_a_dask_client(marines_vs_boyz):
    for run in (lambda: odds.simulate(marines_vs_boyz, trials=10, client="tcp://x:8786"),
                lambda: odds.compare(marines_vs_boyz, trials=10, client=3),
                lambda: odds.sweep(marines_vs_boyz, "defender.models[0].count", [5],
                                   client=object())):
        with pytest.raises(TypeError, match="client must be a dask.distributed.Client"):
            run()


def test_cli_scheduler_nobody_answers_is_one_line(capsys, marines_vs_boyz):
    code = main(["simulate", str(marines_vs_boyz), "--scheduler", "tcp://127.0.0.1:1"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert err.startswith("odds: error: --scheduler: cannot reach a Dask scheduler at "
                          "tcp://127.0.0.1:1: ")
    assert main(["sweep", str(marines_vs_boyz), "defender.models[0].count", "5,10",
                 "--scheduler", "nonsense"]) == 2
    assert capsys.readouterr().err == ("odds: error: --scheduler: missing port number in "
                                       "address 'nonsense'\n")


def test_tallies_merge_in_any_order():
    path = SCENARIOS / "mordheim_captain_vs_skaven.toml"
    whole = odds.simulate(path, trials=30_000, seed=1, quiet=True).tally
    ruleset = get_ruleset("mordheim")
    plan = ruleset.compile(odds.load(path))
    parts = [runner.run(ruleset, plan, b - a, 1, first_trial=a)[0]
             for a, b in ((20_000, 30_000), (0, 7), (7, 20_000))]
    merged = parts[0]
    merged += parts[1]
    assert same_tally(merged.merge(parts[2]), whole)
    with pytest.raises(ValueError, match="cannot merge tallies of different columns"):
        merged.merge(Tally(whole.columns[:-1]))


def test_pairings_and_fingerprints_of_blocks_merge_into_the_whole(marines_vs_boyz):
    trials = 3 * SEGMENT + 5
    where = Where(str(marines_vs_boyz), "")
    fights = {name: odds.simulate(cell(odds.load(marines_vs_boyz), changes, {}, where),
                                  trials=trials, seed=1, quiet=True, keep_fights=True)
              for name, changes in (("fist", {}), ("ws5", WS5))}
    columns = fights["fist"].tally.columns
    (record, code), (base, base_code) = ((r.fights_record, outcome_codes(r.fights_record, columns))
                                         for r in (fights["ws5"], fights["fist"]))
    whole, blocks = Pairing(columns), Pairing(columns)
    whole.add(record, code, base, base_code)
    for a, b in ((2 * SEGMENT, trials), (0, 2 * SEGMENT)):
        part = Pairing(columns)
        part.add(record[:, a:b], code[a:b], base[:, a:b], base_code[a:b])
        blocks.merge(part)
    assert not whole.same and blocks.differences() == whole.differences()
    assert np.array_equal(blocks.pairs, whole.pairs) and blocks.sums == whole.sums

    one = Fingerprint(len(columns))
    one.add(record, 0)
    chunks = Fingerprint(len(columns))
    for a, b in ((0, 10), (10, SEGMENT + 3), (SEGMENT + 3, 2 * SEGMENT)):
        chunks.add(record[:, a:b], a)
    tail = Fingerprint(len(columns), 2 * SEGMENT)
    tail.add(record[:, 2 * SEGMENT:], 2 * SEGMENT)
    chunks.merge(tail.digest())
    assert chunks.digest() == one.digest()
    changed = record.copy()
    changed[3, SEGMENT + 7] += 1
    other = Fingerprint(len(columns))
    other.add(changed, 0)
    assert [x == y for x, y in zip(other.digest(), one.digest())] == [
        i != 3 for i in range(len(columns))]
    with pytest.raises(ValueError, match="segment edge"):
        Fingerprint(4, 10)


def test_round_robin_on_the_cluster_equals_local(client, small_blocks):
    """Two rosters both ways round: the cells, ranking and rating of a local run."""
    rosters = [SCENARIOS.parent / "rosters" / f"wh40k3_{n}.toml" for n in ("space_marines", "orks")]
    here = odds.roster(*rosters, both_ways=True, trials=3 * BATCH, quiet=True)
    there = odds.roster(*rosters, both_ways=True, trials=3 * BATCH, quiet=True, client=client)
    pd.testing.assert_frame_equal(here.frame, there.frame, check_exact=True)
    pd.testing.assert_frame_equal(here.ranking(), there.ranking(), check_exact=True)
    for key, result in here.comparison.results.items():
        assert same_result(result, there.comparison.results[key]), key


def test_cli_roster_on_the_cluster(client, capsys, monkeypatch):
    monkeypatch.setattr(atexit, "register", lambda close: None)
    roster = str(SCENARIOS.parent / "rosters" / "whfb8_empire.toml")
    options = ["roster", roster, "--trials", "2000", "--json", "--quiet"]
    assert main(options) == 0
    here = capsys.readouterr().out
    assert main(options + ["--scheduler", client.scheduler.address]) == 0
    assert capsys.readouterr().out == here


def test_a_cluster_that_fails_is_one_line_exit_1(capsys, monkeypatch, marines_vs_boyz):
    """Not bad input: a cluster losing its workers again and again (Dask gives up on a task
    after its retries) ends odds with one line and exit code 1, not a traceback."""
    from distributed.scheduler import KilledWorker

    def lost(*args, **kwargs):
        raise KilledWorker("play-block-1", SimpleNamespace(address="tcp://10.0.0.7:4242"), 3)

    monkeypatch.setattr(odds.api, "simulate", lost)
    assert main(["simulate", str(marines_vs_boyz), "--trials", "10"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("odds: error: --scheduler: the cluster failed: KilledWorker: ")
