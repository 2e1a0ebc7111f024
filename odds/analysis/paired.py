"""Playing the cells of a grid together, chunk by chunk, so that each variant's fights can be
paired with its baseline's.

Every cell uses the same seed and trial i draws from the stream of (seed, i) (common random
numbers), so fight i of a variant and fight i of the baseline saw the same dice wherever the
two consumed them alike. The cells of one group (one opponent) are played in lockstep over
the same trial indices, and each chunk of a variant's per-fight record is compared with the
baseline's and thrown away: only running sums are kept, so memory stays bounded.

With a Dask client the same spans of trials are cut into blocks played on the cluster
(:mod:`odds.core.distributed`), each block's tallies, pairings and fingerprints merged as it
finishes: integer sums, so the numbers are those of a local run, bit for bit.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

from odds.analysis import solving
from odds.analysis.intervals import mean_difference, paired_difference
from odds.analysis.result import Result, code_indicators, mean_keys, outcome_codes
from odds.api import BATCH, next_target
from odds.core import distributed, runner
from odds.core import schema as s
from odds.rulesets import get_ruleset


@dataclass
class Pairing:
    """Running sums of one cell's fights against its baseline's, fight by fight: how often
    each pair (cell's outcome code, baseline's code) occurred, and the paired differences of
    every counted column."""

    columns: tuple[str, ...]
    trials: int = 0
    same: bool = True  # every paired fight had the same record so far
    pairs: np.ndarray | None = None  # [cell code, baseline code] counts (outcome_codes)
    sums: dict = field(default_factory=dict)    # mean -> [sum of d, sum of d^2]

    def add(self, record, code, base_record, base_code) -> None:
        self.trials += record.shape[1]
        self.same = self.same and np.array_equal(record, base_record)
        k = len(next(iter(code_indicators(self.columns).values())))  # codes there are
        pairs = np.bincount(code * k + base_code, minlength=k * k).reshape(k, k)
        self.pairs = pairs if self.pairs is None else self.pairs + pairs
        for column, key in mean_keys(self.columns).items():
            i = self.columns.index(column)
            d = np.subtract(record[i], base_record[i], dtype=np.int64)
            sums = self.sums.setdefault(key, [0, 0])
            sums[0] += int(d.sum())
            sums[1] += int(d @ d)

    def differences(self) -> dict:
        """``<key>_diff``, ``_diff_low``, ``_diff_high`` for every probability (Newcombe's
        paired interval) and mean (normal interval), and ``paired_trials``. Fights that were
        all identical give exactly 0 [0, 0]."""
        n, out = self.trials, {}
        for key, m in code_indicators(self.columns).items():
            both, cell_only, base_only = (int(self.pairs[np.ix_(a, b)].sum())
                                          for a, b in ((m, m), (m, ~m), (~m, m)))
            diff = (0.0, 0.0, 0.0) if self.same else paired_difference(
                both, cell_only, base_only, n - both - cell_only - base_only)
            out.update(zip((f"{key}_diff", f"{key}_diff_low", f"{key}_diff_high"), diff))
        for key, (sum_d, sum_d2) in self.sums.items():
            out.update(zip((f"{key}_diff", f"{key}_diff_low", f"{key}_diff_high"),
                           mean_difference(n, sum_d, sum_d2)))
        out["paired_trials"] = n
        return out

    def merge(self, other: Pairing) -> Pairing:
        """Fold in the sums of other fights of the same two cells (e.g. another block)."""
        self.trials += other.trials
        self.same = self.same and other.same
        if other.pairs is not None:
            self.pairs = other.pairs if self.pairs is None else self.pairs + other.pairs
        for key, (sum_d, sum_d2) in other.sums.items():
            sums = self.sums.setdefault(key, [0, 0])
            sums[0] += sum_d
            sums[1] += sum_d2
        return self


SEGMENT = BATCH  # trials a fingerprint hashes together: runs stop at multiples of BATCH


class Fingerprint:
    """A cell's whole per-fight record in 32 bytes a column, however its trials were cut
    into chunks and blocks: each column's XOR, over its segments of ``SEGMENT`` trials, of
    SHA-256(segment index, the segment's values). Cells stop only at a multiple of SEGMENT
    or at their last trial, so blocks cut at segment edges, fingerprinted apart and merged,
    give the fingerprint of the whole. Equal fingerprints: identical fights."""

    def __init__(self, columns: int, first_trial: int = 0):
        if first_trial % SEGMENT:
            raise ValueError(f"a fingerprint starts at a segment edge, not trial {first_trial}")
        self.next_trial = first_trial
        self.xor = [0] * columns
        self.open = [None] * columns  # each column's hash of its unfinished segment

    def add(self, record: np.ndarray, first_trial: int) -> None:
        """Hash the next trials' rows (columns x trials), which start at ``first_trial``."""
        if first_trial != self.next_trial:
            raise ValueError(f"trials {self.next_trial} onward come next, not {first_trial}")
        at, n = 0, record.shape[1]
        while at < n:
            trial = first_trial + at
            end = min(n, at + SEGMENT - trial % SEGMENT)
            for j, column in enumerate(record):  # rows of a C-ordered record
                if self.open[j] is None:
                    self.open[j] = hashlib.sha256((trial // SEGMENT).to_bytes(8, "little"))
                self.open[j].update(column[at:end])
            if (first_trial + end) % SEGMENT == 0:
                self.xor = self.digest()
                self.open = [None] * len(self.open)
            at = end
        self.next_trial += n

    def digest(self) -> tuple[int, ...]:
        """The fingerprint of the trials added so far."""
        return tuple(x ^ (0 if h is None else int.from_bytes(h.digest(), "little"))
                     for x, h in zip(self.xor, self.open))

    def merge(self, digest: tuple[int, ...]) -> None:
        """Fold in the digest of other trials of the same cell (a block cut at segment
        edges)."""
        self.xor = [x ^ y for x, y in zip(self.xor, digest)]


@dataclass
class _Cell:
    """One scenario being played: its plan, its tally so far and where it stops."""

    scenario: object
    ruleset: object
    plan: object
    target: int
    columns: tuple = ()
    tally: object = None
    precision_met: bool | None = None
    fingerprint: Fingerprint | None = None

    @property
    def played(self) -> int:
        return 0 if self.tally is None else self.tally.trials


@dataclass
class Played:
    """What :func:`play` returns: a Result per cell, the pairings of the cells that have a
    baseline, and a fingerprint of each cell's whole per-fight record (equal digests:
    identical fights; None for a grid of one cell, which has no twin). Solved exactly: the
    pairings are :class:`ExactDifference` and the digests fingerprint the distributions;
    ``method_note`` says why a grid of method 'auto' was simulated."""

    results: list
    pairings: dict
    digests: list
    method_note: str | None = None


@dataclass
class ExactDifference:
    """A cell solved exactly against its baseline: every difference is exact (its interval
    the point itself) and no fights were paired."""

    result: Result
    base: Result

    def differences(self) -> dict:
        mine, base = _points(self.result), _points(self.base)
        out = {}
        for key, value in mine.items():
            out.update(dict.fromkeys((f"{key}_diff", f"{key}_diff_low", f"{key}_diff_high"),
                                     value - base[key]))
        out["paired_trials"] = None
        return out


def _points(result: Result) -> dict[str, float]:
    """Every probability and mean of a result, by key."""
    return {**{key: p for key, (p, _, _) in result.probabilities().items()}, **result.means()}


def _solved(results: list, baselines: dict[int, int]) -> Played:
    """The grid's exact results as :func:`play` returns them."""
    def digest(tally) -> bytes:
        h = hashlib.sha256(np.ascontiguousarray(tally.outcomes).tobytes())
        for name in tally.columns[3:]:
            h.update(np.ascontiguousarray(tally.by_winner[name]).tobytes())
        return h.digest()

    pairings = {i: ExactDifference(results[i], results[b]) for i, b in baselines.items()}
    return Played(results, pairings, [digest(r.tally) for r in results])


def play(scenarios: list, groups: list[list[int]], baselines: dict[int, int], *, seed: int,
         trials: int, precision: float | None, max_trials: int, threads: int | None,
         progress: bool, quiet: bool, client=None, records: dict | None = None,
         method: str = "mc", max_states: int | None = None,
         where: s.Where = s.ARGUMENTS) -> Played:
    """Play every scenario (cell) with ``seed``: ``trials`` fights each, or with ``precision``
    the batches ``simulate(precision=...)`` would play, so each cell's Result is the one
    ``simulate`` gives. The cells of each group are played in lockstep; a cell with a baseline
    (``baselines[cell] = baseline cell``, in the same group) is paired with it over the
    fights both played (the common prefix, when they stop at different counts). Unless
    ``quiet``, a kernel about to be compiled is announced on stderr, as in ``simulate``.

    With ``client`` (a ``dask.distributed.Client``) the fights are played on its cluster,
    ``threads`` kernel threads a task (default: the worker's threads), with the same
    numbers. ``records`` maps a cell to room for its per-fight rows (columns x trials, as
    many as it may play): its Result keeps the rows it played.

    ``method`` 'exact' solves every cell exactly instead (an error at ``where/method`` when
    one cannot be); 'auto' does when every cell can be and simulates them all otherwise, so
    differences from a baseline are never between a solved and a simulated cell."""
    note = None
    if method != "mc":
        solved, note = solving.solve(scenarios, method, max_states, where, quiet)
        if solved:
            return _solved(solved, baselines)
    if client is not None:
        distributed.check_client(client)
    first = trials if precision is None else min(BATCH, max_trials)
    fingerprint = len(scenarios) > 1  # a cell alone has no twin
    cells = []
    for scenario in scenarios:
        ruleset = get_ruleset(scenario.ruleset)
        columns = ruleset.columns(scenario)
        cells.append(_Cell(scenario, ruleset, ruleset.compile(scenario), first, columns,
                           fingerprint=Fingerprint(len(columns)) if fingerprint else None))
    pairings, records = {}, records or {}
    bar = runner.progress_bar(sum(c.target for c in cells), progress and not quiet)
    schedule = _Schedule(cells, groups, baselines, seed, precision, max_trials, bar)
    if client is None:
        runner.set_threads(threads)
        _play_here(schedule, pairings, records, quiet)
    else:
        _play_on(distributed.Blocks(client, threads), schedule, pairings, records,
                 fingerprint)
    if bar is not None:
        bar.close()
    results = [Result(c.scenario, c.tally, seed,
                      None if records.get(i) is None else records[i][:, :c.played],
                      precision_met=c.precision_met, precision=precision, method_note=note)
               for i, c in enumerate(cells)]
    return Played(results, pairings, [c.fingerprint and c.fingerprint.digest() for c in cells],
                  note)


@dataclass
class _Schedule:
    """Which trials each group of cells plays next: its active cells (baselines first) in
    lockstep up to the nearest target among them; then a precision cell that reached its
    target stops or gets a new one."""

    cells: list
    groups: list
    baselines: dict
    seed: int
    precision: float | None
    max_trials: int
    bar: object

    def span(self, group: list[int], done: int) -> tuple[list[int], int]:
        """The active cells of ``group`` after ``done`` trials and where their span ends
        (no cells: the group is finished)."""
        bases = set(self.baselines.values())
        active = [i for i in sorted(group, key=lambda i: i not in bases)
                  if self.cells[i].target > done]
        return active, min((self.cells[i].target for i in active), default=done)

    def advance(self, active: list[int]) -> None:
        grown = sum(_advance(self.cells[i], self.seed, self.precision, self.max_trials)
                    for i in active)
        if self.bar is not None and grown:
            self.bar.total += grown
            self.bar.refresh()


def _play_here(schedule: _Schedule, pairings: dict, records: dict, quiet: bool) -> None:
    """Every group, one after the other, on this machine."""
    for group in schedule.groups:
        done = 0
        active, end = schedule.span(group, done)
        while active:
            _play_span(schedule.cells, active, schedule.baselines, pairings, schedule.seed,
                       done, end, {i: records[i][:, done:end] for i in active if i in records},
                       quiet, schedule.bar)
            schedule.advance(active)
            done = end
            active, end = schedule.span(group, done)


def _play_span(cells, active: list[int], baselines: dict, pairings: dict, seed: int,
               start: int, stop: int, records: dict, quiet: bool, bar) -> None:
    """Trials ``[start, stop)`` of the ``active`` cells (baselines first), in lockstep
    chunks: each cell's tally and fingerprint grow, ``records[cell]`` (trials start to stop)
    is filled, and each cell with a baseline among them is paired with it."""
    bases = set(baselines.values())
    done = start
    while done < stop:
        end = min(done + runner.CHUNK, stop)
        kept = {}
        for i in active:
            cell = cells[i]
            rows = records[i][:, done - start:end - start] if i in records else None
            cell.tally, record = runner.run(cell.ruleset, cell.plan, end - done, seed,
                                            columns=cell.columns, first_trial=done,
                                            tally=cell.tally, keep_fights=True, record=rows,
                                            notice=not quiet)
            if cell.fingerprint is not None:
                cell.fingerprint.add(record, done)
            if i in bases or i in baselines:
                code = outcome_codes(record, cell.columns)
            if i in bases:
                kept[i] = record, code
            if baselines.get(i) in kept:
                pairing = pairings.setdefault(i, Pairing(cell.columns))
                pairing.add(record, code, *kept[baselines[i]])
            if bar is not None:
                bar.update(end - done)
        done = end


@dataclass
class _Block:
    """What a worker sends back for one block of a group: per cell its tally, fingerprint
    digest and record rows (if kept), and the block's pairings."""

    tallies: dict
    digests: dict
    records: dict
    pairings: dict


def _play_block(cells: list[tuple], baselines: dict, seed: int, fingerprint: bool,
                keep: set, start: int, stop: int) -> _Block:
    """A task: trials ``[start, stop)`` of one group's active cells, each given as
    ``(cell, ruleset id, plan, columns)``, baselines first, in lockstep."""
    played = {i: _Cell(None, get_ruleset(ruleset), plan, stop, columns,
                       fingerprint=Fingerprint(len(columns), start) if fingerprint else None)
              for i, ruleset, plan, columns in cells}
    records = {i: np.empty((len(played[i].columns), stop - start), np.int32) for i in keep}
    pairings = {}
    _play_span(played, list(played), baselines, pairings, seed, start, stop, records, True,
               None)
    return _Block({i: c.tally for i, c in played.items()},
                  {i: c.fingerprint.digest() for i, c in played.items() if fingerprint},
                  records, pairings)


def _play_on(cluster, schedule: _Schedule, pairings: dict, records: dict,
             fingerprint: bool) -> None:
    """Every group at once on the cluster: each group's span cut into blocks; when a span's
    last block is in, the group's next span is submitted."""
    cells, spans, blocks_left = schedule.cells, {}, {}

    def submit(g: int, done: int) -> None:
        active, end = schedule.span(schedule.groups[g], done)
        if active:
            specs = [(i, cells[i].ruleset.id, cells[i].plan, cells[i].columns) for i in active]
            pairs = {i: schedule.baselines[i] for i in active if i in schedule.baselines}
            kept = {i for i in active if i in records}
            blocks_left[g] = cluster.play(_play_block, (specs, pairs, schedule.seed,
                                                        fingerprint, kept), done, end, g)
            spans[g] = active, end

    for g in range(len(schedule.groups)):
        submit(g, 0)
    for g, a, b, block in cluster.finished():
        for i, tally in block.tallies.items():
            cell = cells[i]
            cell.tally = tally if cell.tally is None else cell.tally.merge(tally)
            if fingerprint:
                cell.fingerprint.merge(block.digests[i])
        for i, rows in block.records.items():
            records[i][:, a:b] = rows
        for i, pairing in block.pairings.items():
            pairings[i] = pairing if i not in pairings else pairings[i].merge(pairing)
        if schedule.bar is not None:
            schedule.bar.update((b - a) * len(block.tallies))
        blocks_left[g] -= 1
        if not blocks_left[g]:
            active, end = spans[g]
            schedule.advance(active)
            submit(g, end)


def _advance(cell: _Cell, seed: int, precision: float | None, max_trials: int) -> int:
    """After a chunk: a precision cell that reached its target stops or gets a new one.
    Returns how many more fights it will play."""
    if precision is None or cell.played < cell.target:
        return 0
    width = Result(cell.scenario, cell.tally, seed).headline_half_width()
    target = next_target(cell.played, width, precision, max_trials)
    if target is None:
        cell.precision_met = width <= precision
        return 0
    grown, cell.target = target - cell.target, target
    return grown
