"""The engine contracts: reproducible streams, bounded memory, the outcome record."""
import numpy as np
import pytest

import odds
from odds.core import runner
from odds.core.outcome import COLUMNS
from odds.core.rng import d6, seed_stream
from odds.rulesets import get_ruleset
from conftest import SCENARIOS


def _record(path, trials, seed, threads, chunk=runner.CHUNK):
    scenario = odds.load(path)
    ruleset = get_ruleset(scenario.ruleset)
    runner.set_threads(threads)
    tally, record = runner.run(ruleset, ruleset.compile(scenario), trials, seed,
                               keep_fights=True, chunk=chunk)
    return tally, record


def test_same_seed_same_fights_whatever_threads_and_chunks(marines_vs_boyz):
    """Bit-identical per-fight rows with 1 or 2 threads and any chunk size (DESIGN contract)."""
    _, one = _record(marines_vs_boyz, 5000, 7, threads=1)
    _, two = _record(marines_vs_boyz, 5000, 7, threads=2)
    _, chunked = _record(marines_vs_boyz, 5000, 7, threads=2, chunk=777)
    assert np.array_equal(one, two)
    assert np.array_equal(one, chunked)


def test_trials_are_a_prefix_of_longer_runs(marines_vs_boyz):
    """Trial i's stream depends on (seed, i) only, so a short run is a prefix of a long one."""
    _, short = _record(marines_vs_boyz, 1000, 3, threads=2)
    _, long = _record(marines_vs_boyz, 3000, 3, threads=2)
    assert np.array_equal(short, long[:, :1000])


def test_other_seed_other_fights(marines_vs_boyz):
    _, a = _record(marines_vs_boyz, 2000, 1, threads=2)
    _, b = _record(marines_vs_boyz, 2000, 2, threads=2)
    assert not np.array_equal(a, b)


def test_tally_matches_the_rows_it_summarises(marines_vs_boyz):
    """The chunked histograms (bounded memory) equal counts taken from the full rows."""
    tally, record = _record(marines_vs_boyz, 20_000, 5, threads=2, chunk=3000)
    assert tally.trials == 20_000
    for i, column in enumerate(COLUMNS[3:], start=3):
        assert np.array_equal(tally.histogram(column), np.bincount(record[i]))
    key = record[0] * 1000 + record[1] * 100 + record[2]
    flat = {int(k): int(c) for k, c in zip(*np.unique(key, return_counts=True))}
    nonzero = {w * 1000 + e * 100 + r: int(c)
               for (w, e, r), c in np.ndenumerate(tally.outcomes) if c}
    assert flat == nonzero


def test_simulate_keeps_no_rows_unless_asked(marines_vs_boyz):
    result = odds.simulate(marines_vs_boyz, trials=1000, seed=1)
    assert result.fights_record is None
    with pytest.raises(ValueError, match="keep_fights"):
        result.fights()


def test_probabilities_partition_and_intervals_cover(marines_vs_boyz):
    """The five 'who won' outcomes sum to 1; every interval contains its estimate."""
    result = odds.simulate(marines_vs_boyz, trials=10_000, seed=11)
    probs = result.probabilities()
    total = sum(probs[k][0] for k in ("attacker_wins", "defender_wins", "both_destroyed",
                                      "unresolved", "no_fight"))
    assert total == pytest.approx(1.0, abs=1e-12)
    for p, lo, hi in probs.values():
        assert lo <= p <= hi
    assert probs["attacker_wins"][0] == pytest.approx(
        probs["defender_destroyed"][0] + probs["defender_fled"][0], abs=1e-12)


def test_d6_is_uniform():
    """The kernels' D6: each face 1/6 within |z| < 4 over 600,000 rolls."""
    from numba import njit

    @njit
    def roll(n):
        st = np.empty(4, np.uint64)
        seed_stream(st, 123, 0)
        counts = np.zeros(7, np.int64)
        for _ in range(n):
            counts[d6(st)] += 1
        return counts

    n = 600_000
    counts = roll(n)
    assert counts[0] == 0
    z = (counts[1:] - n / 6) / np.sqrt(n * (1 / 6) * (5 / 6))
    assert np.all(np.abs(z) < 4), z


def test_progress_bar_only_on_a_terminal(monkeypatch):
    """The bar is drawn on stderr only when it is a terminal and progress is wanted."""
    monkeypatch.setattr(runner.sys.stderr, "isatty", lambda: False, raising=False)
    assert runner.progress_bar(10**9, wanted=True) is None
    monkeypatch.setattr(runner.sys.stderr, "isatty", lambda: True, raising=False)
    assert runner.progress_bar(10**9, wanted=False) is None
    bar = runner.progress_bar(10**9, wanted=True)
    assert bar is not None and bar.total == 10**9
    bar.close()


SEVERAL_UNITS = [path for path in sorted(SCENARIOS.glob("*.toml"))
                 if len(odds.load(path).side("attacker").units) > 1
                 or len(odds.load(path).side("defender").units) > 1]


@pytest.mark.parametrize("path", SEVERAL_UNITS, ids=lambda path: path.stem)
def test_a_record_without_unit_columns_is_never_written_past(path):
    """A record of the ruleset's own columns only (``runner.run``'s default) is filled as far
    as it has rows, never past them: the kernels read no bounds, so a write past the record
    would land in whatever follows it (here: rows left at a sentinel). A d10skirmish gang
    once wrote its fighters' columns there."""
    scenario = odds.load(path)
    ruleset = get_ruleset(scenario.ruleset)
    plan = ruleset.compile(scenario)
    own = len(COLUMNS) + len(ruleset.extra_columns)
    assert len(ruleset.columns(scenario)) > own
    memory = np.full((own + 40, 300), -7, np.int32)
    ruleset.play(plan, 5, 0, memory[:own])
    assert (memory[own:] == -7).all()
    assert (memory[0] != -7).all()
