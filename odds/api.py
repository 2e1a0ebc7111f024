"""The Python entry point: :func:`simulate` a scenario and get its Result."""
from __future__ import annotations

import math
from pathlib import Path

from odds.analysis import solving
from odds.analysis.result import Result
from odds.core import distributed, runner
from odds.core import schema as s
from odds.rulesets import get_ruleset
from odds.scenario import SIMULATION, Scenario, as_scenario

BATCH = 1 << 14  # precision runs grow in whole batches, so where they stop is deterministic
MAX_TRIALS = 100_000_000  # the default trial cap of a precision run


def simulate(scenario: Scenario | dict | str | Path, *, trials: int | None = None,
             seed: int | None = None, threads: int | None = None, keep_fights: bool = False,
             progress: bool = False, quiet: bool = False, precision: float | None = None,
             max_trials: int | None = None, client=None, method: str = "mc",
             max_states: int | None = None) -> Result:
    """Play the scenario's fights (or solve them exactly) and return the :class:`Result`.

    ``scenario`` is a :class:`Scenario`, TOML-shaped data (a dict, as :func:`odds.from_dict`
    takes) or the path of a TOML file. ``trials`` (1 to 10**12) and ``seed`` (0 to 2**63 - 1)
    override the file's ``[simulation]`` table; the same seed and trials give bit-identical
    results whatever ``threads`` is (a whole number from 1; more than the machine's cores
    uses them all; default all). ``keep_fights`` keeps one row per fight
    (:meth:`Result.fights`), 4 bytes per outcome column, at most 2 GB (about 33 million
    fights for mordheim, 71 million for wh40k3); otherwise memory stays bounded however many
    trials are played. ``progress`` shows a progress bar on a terminal. The first run of a
    ruleset compiles its kernel (up to a minute or two, once): that is announced on stderr
    unless ``quiet``, which also hides the bar.

    With ``precision`` (e.g. 0.005) fights are played in batches until every headline
    probability's 95% interval half-width is at most that, or ``max_trials`` were played
    (default 100,000,000, or with ``keep_fights`` as many as 2 GB of rows hold; giving
    ``trials`` too is an error); ``Result.precision_met`` says which. The batches are prefixes of one
    trial sequence, so the stopping point is deterministic for a seed, and ``keep_fights``
    keeps the rows of every batch.

    With ``client`` (a ``dask.distributed.Client``, needs ``pip install "odds[dask]"``) the
    fights are played on its cluster in blocks of trials, with the same numbers bit for bit
    whatever the number of workers; ``threads`` is then the kernel threads of each task
    (default: the worker's threads).

    ``method="exact"`` solves the fight instead: the exact probability of every outcome and
    the exact loss and round distributions (``Result.method == "exact"``, ``trials`` and
    ``seed`` None, every interval the point itself), walking the distribution of fight states
    round by round; a scenario the ruleset's solver does not cover, or one needing more than
    ``max_states`` fight states at once (default 1,000,000; mordheim and wh40k3 20,000),
    is a ScenarioError.
    ``method="auto"`` solves when it can and simulates otherwise, saying why in
    ``Result.method_note`` (printed by the CLI). ``trials``, ``seed``, ``threads``,
    ``precision``, ``keep_fights`` and ``client`` are for simulation: an error with
    ``method="exact"``.
    """
    check_arguments(trials=trials, seed=seed, threads=threads, keep_fights=keep_fights,
                     progress=progress, quiet=quiet, precision=precision, max_trials=max_trials)
    solving.check(method, max_states, precision=precision, keep_fights=keep_fights,
                  client=client, trials=trials, seed=seed, threads=threads)
    if client is not None:
        distributed.check_client(client)
    scenario = as_scenario(scenario)
    trials = scenario.simulation["trials"] if trials is None else trials
    seed = scenario.simulation["seed"] if seed is None else seed
    scenario = scenario.replace(trials=trials, seed=seed)
    note = None
    if method != "mc":
        solved, note = solving.solve([scenario], method, max_states, quiet=quiet)
        if solved:
            return solved[0]
    result = _simulated(scenario, trials, seed, threads, keep_fights, progress, quiet,
                        precision, max_trials, client)
    result.method_note = note
    return result


def _simulated(scenario, trials, seed, threads, keep_fights, progress, quiet, precision,
               max_trials, client) -> Result:
    ruleset = get_ruleset(scenario.ruleset)
    columns = ruleset.columns(scenario)
    record = None
    if precision is not None:
        if max_trials is None:
            max_trials = min(MAX_TRIALS, runner.most_kept_fights(ruleset, columns)) \
                if keep_fights else MAX_TRIALS
        record = runner.new_record(ruleset, max_trials, s.ARGUMENTS / "max_trials", columns) \
            if keep_fights else None
    if client is not None:
        if precision is None and keep_fights:
            record = runner.new_record(ruleset, trials, columns=columns)
        return _on_cluster(client, scenario, threads, progress, quiet, precision,
                           max_trials, record)
    plan = ruleset.compile(scenario)
    runner.set_threads(threads)
    show = {"progress": progress and not quiet, "notice": not quiet, "columns": columns}
    if precision is None:
        tally, record = runner.run(ruleset, plan, trials, seed, keep_fights=keep_fights, **show)
        return Result(scenario, tally, seed, record)
    return _until_precise(scenario, ruleset, plan, seed, precision, max_trials, record, show)


def _on_cluster(client, scenario, threads, progress, quiet, precision, max_trials,
                record) -> Result:
    """:func:`simulate` on a Dask cluster: the scenario as a grid of one cell whose trials
    are cut into blocks (:func:`odds.analysis.paired.play`); ``record``, if given, is filled
    block by block."""
    from odds.analysis.paired import play  # paired builds on this module

    played = play([scenario], [[0]], {}, seed=scenario.simulation["seed"],
                  trials=scenario.simulation["trials"], precision=precision,
                  max_trials=max_trials or MAX_TRIALS, threads=threads, progress=progress,
                  quiet=quiet, client=client, records=None if record is None else {0: record})
    return played.results[0]


def check_arguments(where: s.Where = s.ARGUMENTS, **given) -> None:
    """Each run option's type and range, with the same bounds as the [simulation] table; a
    mistake is blamed on the argument (``<arguments>: threads``), or on ``where``."""
    whole = {"trials": SIMULATION["trials"][0], "seed": SIMULATION["seed"][0],
             "max_trials": SIMULATION["trials"][0], "threads": s.integer(1)}
    for name, value in given.items():
        if name in whole and value is not None:
            whole[name](value, where / name)
        elif name in ("keep_fights", "progress", "quiet"):
            s.boolean(value, where / name)
    precision = given.get("precision")
    if precision is not None and not 0 < s.number()(precision, where / "precision") < 0.5:
        raise (where / "precision").error(f"must be between 0 and 0.5, got {precision}")
    if precision is not None and given.get("trials") is not None:
        raise (where / "trials").error("and precision: give one (a precision run plays "
                                       "until it is met; max_trials caps its fights)")


def next_target(played: int, width: float, precision: float, max_trials: int) -> int | None:
    """Where a precision run goes after ``played`` fights whose widest headline half-width is
    ``width``: None when it stops (precise enough, or at the cap), else the next whole batch
    (the half-width shrinks as 1/sqrt(n)). Comparisons and sweeps follow the same schedule."""
    if width <= precision or played >= max_trials:
        return None
    needed = played * (width / precision) ** 2 * 1.05
    return min(max_trials, BATCH * math.ceil(max(needed, 1.25 * played) / BATCH))


def _until_precise(scenario, ruleset, plan, seed, precision, max_trials, record, show) -> Result:
    """Play batches until the widest headline half-width is at most ``precision``; with a
    ``record`` (room for ``max_trials`` rows), each batch's rows go into their slice of it."""
    tally, played = None, 0
    target = min(BATCH, max_trials)
    while True:
        rows = None if record is None else record[:, played:target]
        tally, _ = runner.run(ruleset, plan, target - played, seed, first_trial=played,
                              tally=tally, record=rows, **show)
        played = target
        result = Result(scenario, tally, seed, None if record is None else record[:, :played],
                        precision=precision)
        width = result.headline_half_width()
        target = next_target(played, width, precision, max_trials)
        if target is None:
            result.precision_met = width <= precision
            return result
