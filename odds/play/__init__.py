"""The run engine: every fight odds plays or solves goes through :func:`play`.

``odds.simulate``, ``compare``, ``sweep``, ``roster``, the CLI and the explorer all call it.
It plays a grid of scenarios (cells; one cell for ``simulate``), locally or on a Dask
cluster, to a trial count or to a precision, or solves them exactly (:mod:`odds.play.exact`),
and returns a Result per cell, the pairings of the cells that have a baseline and each
cell's fingerprint. Its options are checked in :mod:`odds.play.options`.

Every cell uses the same seed and trial i draws from the stream of (seed, i) (common random
numbers), so fight i of a variant and fight i of the baseline saw the same dice wherever the
two consumed them alike. The cells of one group (one opponent) are played in lockstep over
the same trial indices, and each chunk of a variant's per-fight record is compared with the
baseline's and thrown away: only running sums are kept (:mod:`odds.play.pairing`), so
memory stays bounded. With a Dask client the same spans of trials are cut into blocks
played on the cluster (:mod:`odds.core.distributed`), each block's tallies, pairings and
fingerprints merged as it finishes: integer sums, so the numbers are those of a local run,
bit for bit. A precision run plays whole batches (:func:`odds.play.options.next_target`),
prefixes of one trial sequence, so where it stops is deterministic for a seed.

Layers: ``odds.core`` and the rulesets below, then the outcome views (``odds.analysis``'s
result, intervals, report and units), then this engine, then what asks it for answers
(``odds.api``, ``odds.analysis``'s compare, sweep and round robin, the CLI, the explorer).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from odds.analysis.result import Result, outcome_codes
from odds.core import distributed, runner
from odds.core import schema as s
from odds.play import exact
from odds.play.options import BATCH, MAX_TRIALS, next_target
from odds.play.pairing import Fingerprint, Pairing
from odds.rulesets import get_ruleset

__all__ = ["play", "Played", "BATCH", "MAX_TRIALS"]


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


def play(scenarios: list, groups: list[list[int]] | None = None,
         baselines: dict[int, int] | None = None, *, seed: int, trials: int,
         precision: float | None = None, max_trials: int | None = None,
         threads: int | None = None, progress: bool = False, quiet: bool = False,
         client=None, keep_fights: bool = False, method: str = "mc",
         max_states: int | None = None, where: s.Where = s.ARGUMENTS) -> Played:
    """Play every scenario (cell) with ``seed``: ``trials`` fights each, or with ``precision``
    batches until every headline probability's 95% half-width is at most ``precision`` or
    ``max_trials`` (default :data:`MAX_TRIALS`, with ``keep_fights`` as many as 2 GB of rows
    hold) were played. The cells of each group (default: all in one) are played in
    lockstep; a cell with a baseline (``baselines[cell] = baseline cell``, in the same
    group) is paired with it over the fights both played (the common prefix, when they stop
    at different counts). Unless ``quiet``, a kernel about to be compiled is announced on
    stderr; ``progress`` shows a bar on a terminal, or is a callable given (fights played,
    fights planned) after every chunk (even when ``quiet``; what it raises stops the run).

    With ``client`` (a ``dask.distributed.Client``) the fights are played on its cluster,
    ``threads`` kernel threads a task (default: the worker's threads), with the same
    numbers. ``keep_fights``: each Result keeps its per-fight rows.

    ``method`` 'exact' solves every cell exactly instead (an error at ``where/method`` when
    one cannot be); 'auto' does when every cell can be and simulates them all otherwise, so
    differences from a baseline are never between a solved and a simulated cell."""
    groups = [list(range(len(scenarios)))] if groups is None else groups
    baselines = baselines or {}
    note = None
    if method != "mc":
        solved, note = exact.solve_all(scenarios, method, max_states, where, quiet)
        if solved:
            return Played(solved, *exact.differences(solved, baselines))
    rulesets = [get_ruleset(scenario.ruleset) for scenario in scenarios]
    columns = [ruleset.columns(scenario) for ruleset, scenario in zip(rulesets, scenarios)]
    if max_trials is None:  # keep_fights lowers the default cap to what 2 GB hold
        max_trials = min([MAX_TRIALS] + [runner.most_kept_fights(r, c) for r, c in
                                         zip(rulesets, columns) if keep_fights])
    first = trials if precision is None else min(BATCH, max_trials)
    rows, at = (trials, "keep_fights") if precision is None else (max_trials, "max_trials")
    fingerprint = len(scenarios) > 1  # a cell alone has no twin
    cells, records = [], {}
    for i, (scenario, ruleset, cols) in enumerate(zip(scenarios, rulesets, columns)):
        if keep_fights:
            records[i] = runner.new_record(ruleset, rows, where / at, cols)
        cells.append(_Cell(scenario, ruleset, ruleset.compile(scenario), first, cols,
                           fingerprint=Fingerprint(len(cols)) if fingerprint else None))
    pairings = {}
    lone = len(cells) == 1 and client is None  # its kernel calls show their own bar
    watch = progress if callable(progress) else progress and not quiet
    bar = runner.progress_bar(sum(c.target for c in cells), False if lone else watch)
    schedule = _Schedule(cells, groups, baselines, seed, precision, max_trials, bar)
    if client is None:
        runner.set_threads(threads)
        _play_here(schedule, pairings, records, quiet, watch if lone else False)
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


def _play_here(schedule: _Schedule, pairings: dict, records: dict, quiet: bool,
               progress: bool) -> None:
    """Every group, one after the other, on this machine (``progress``: a lone cell's bar,
    drawn by the kernel calls)."""
    for group in schedule.groups:
        done = 0
        active, end = schedule.span(group, done)
        while active:
            _play_span(schedule.cells, active, schedule.baselines, pairings, schedule.seed,
                       done, end, {i: records[i][:, done:end] for i in active if i in records},
                       quiet, schedule.bar, progress)
            schedule.advance(active)
            done = end
            active, end = schedule.span(group, done)


def _play_span(cells, active: list[int], baselines: dict, pairings: dict, seed: int,
               start: int, stop: int, records: dict, quiet: bool, bar,
               progress: bool = False) -> None:
    """Trials ``[start, stop)`` of the ``active`` cells (baselines first), in lockstep
    chunks: each cell's tally and fingerprint grow, ``records[cell]`` (trials start to stop)
    is filled, and each cell with a baseline among them is paired with it. A lone cell with
    nothing to pair or fingerprint plays the span in one kernel call (which chunks it
    itself, showing its own bar with ``progress``): a call a chunk costs it ~40% more time
    (fresh pages for every chunk's arrays)."""
    bases = set(baselines.values())
    lone = (len(active) == 1 and cells[active[0]].fingerprint is None
            and active[0] not in bases and active[0] not in baselines)
    done = start
    while done < stop:
        end = stop if lone else min(done + runner.CHUNK, stop)
        kept = {}
        for i in active:
            cell = cells[i]
            rows = records[i][:, done - start:end - start] if i in records else None
            kept_here = cell.fingerprint is not None or i in bases or i in baselines
            cell.tally, record = runner.run(cell.ruleset, cell.plan, end - done, seed,
                                            columns=cell.columns, first_trial=done,
                                            tally=cell.tally, keep_fights=kept_here,
                                            record=rows, notice=not quiet,
                                            progress=progress if lone else False)
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
