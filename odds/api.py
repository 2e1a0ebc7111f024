"""The Python entry point: :func:`simulate` a scenario and get its Result (one cell of the
run engine, :func:`odds.play.play`)."""
from __future__ import annotations

from pathlib import Path

from odds.analysis.result import Result
from odds.play import play
from odds.play import options
from odds.scenario import Scenario, as_scenario


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
    trials are played. ``progress`` shows a progress bar on a terminal (or is a callable
    given the fights played and planned after every chunk: what it raises stops the run).
    The first run of a ruleset compiles its kernel (10 to 40 CPU seconds, once):
    that is announced on stderr unless ``quiet``, which also hides the bar.

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
    ``max_states`` fight states at once (default 1,000,000; mordheim 20,000, wh40k3 70,000),
    is a ScenarioError.
    ``method="auto"`` solves when it can and simulates otherwise, saying why in
    ``Result.method_note`` (printed by the CLI). ``trials``, ``seed``, ``threads``,
    ``precision``, ``keep_fights`` and ``client`` are for simulation: an error with
    ``method="exact"``.
    """
    options.check(trials=trials, seed=seed, threads=threads, keep_fights=keep_fights,
                  progress=progress, quiet=quiet, precision=precision, max_trials=max_trials,
                  method=method, max_states=max_states, client=client)
    scenario = as_scenario(scenario)
    trials = scenario.simulation["trials"] if trials is None else trials
    seed = scenario.simulation["seed"] if seed is None else seed
    if (trials, seed) != (scenario.simulation["trials"], scenario.simulation["seed"]):
        scenario = scenario.replace(trials=trials, seed=seed)
    played = play([scenario], seed=seed, trials=trials, precision=precision,
                  max_trials=max_trials, threads=threads, progress=progress, quiet=quiet,
                  client=client, keep_fights=keep_fights, method=method,
                  max_states=max_states)
    return played.results[0]
