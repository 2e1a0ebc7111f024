"""The run options every entry point takes (``odds.simulate``, ``compare``, ``sweep``,
``roster``, the CLI, the explorer), checked in one place, and the schedule of a precision
run."""
from __future__ import annotations

import math

from odds.core import distributed
from odds.core import schema as s
from odds.scenario import SIMULATION

BATCH = 1 << 14  # precision runs grow in whole batches, so where they stop is deterministic
MAX_TRIALS = 100_000_000  # the default trial cap of a precision run
METHODS = ("mc", "exact", "auto")
FOR_SIMULATION = ("trials", "seed", "threads")  # options that only shape a simulation


def check(where: s.Where = s.ARGUMENTS, *, method: str = "mc", max_states=None,
          client=None, **given) -> None:
    """Each run option's type and range (the bounds of the ``[simulation]`` table), and the
    options that do not go together; a mistake is blamed on the argument
    (``<arguments>: threads``), or on ``where``. ``given``: any of trials, seed, threads,
    max_trials, precision, keep_fights, progress, quiet. ``client``, a Dask client, is
    checked last (it must run odds' version)."""
    whole = {"trials": SIMULATION["trials"][0], "seed": SIMULATION["seed"][0],
             "max_trials": SIMULATION["trials"][0], "threads": s.integer(1)}
    for name, value in given.items():
        if name in whole and value is not None:
            whole[name](value, where / name)
        elif name in ("keep_fights", "quiet") or name == "progress" and not callable(value):
            s.boolean(value, where / name)
    precision = given.get("precision")
    if precision is not None and not 0 < s.number()(precision, where / "precision") < 0.5:
        raise (where / "precision").error(f"must be between 0 and 0.5, got {precision}")
    if precision is not None and given.get("trials") is not None:
        raise (where / "trials").error("give trials or precision, not both (a precision run "
                                       "plays until it is met; max_trials caps its fights)")
    if given.get("max_trials") is not None and precision is None:
        raise (where / "max_trials").error("caps a precision run: give precision with it, or "
                                           "trials alone")
    _method(where, method, max_states, client, given)
    if client is not None:
        distributed.check_client(client)


def _method(where, method, max_states, client, given) -> None:
    """``method`` and ``max_states``, and the run options that need fights to be played
    (given with method 'exact', an error)."""
    if not isinstance(method, str) or method not in METHODS:
        raise (where / "method").error(f"must be one of 'mc' (simulate), 'exact' (solve) or "
                                       f"'auto' (solve when it can, else simulate); got "
                                       f"{method!r}")
    if max_states is not None:
        s.integer(1)(max_states, where / "max_states")
    if method == "mc":
        if max_states is not None:
            raise (where / "max_states").error("bounds the exact solver: give method 'exact' "
                                               "or method 'auto'")
        return
    if given.get("keep_fights"):
        raise (where / "keep_fights").error(
            f"method {method!r} may solve the fight exactly, which plays no fights to keep: "
            "give method 'mc' to keep them")
    if method != "exact":
        return
    if given.get("precision") is not None:
        raise (where / "precision").error("stops a simulation; the exact answer has no noise: "
                                          "drop precision, or give method 'auto' or method 'mc'")
    for name in FOR_SIMULATION:
        if given.get(name) is not None:
            raise (where / name).error("is for simulation; method 'exact' plays no fights "
                                       "(give method 'auto' to simulate what cannot be "
                                       "solved)")
    if client is not None:
        raise (where / "client").error("the exact solver runs here, not on a cluster: drop "
                                       "the client, or give method 'auto' (solved here when "
                                       "it can be, else simulated on the cluster)")


def next_target(played: int, width: float, precision: float, max_trials: int) -> int | None:
    """Where a precision run goes after ``played`` fights whose widest headline half-width is
    ``width``: None when it stops (precise enough, or at the cap), else the next whole batch
    (the half-width shrinks as 1/sqrt(n))."""
    if width <= precision or played >= max_trials:
        return None
    needed = played * (width / precision) ** 2 * 1.05
    return min(max_trials, BATCH * math.ceil(max(needed, 1.25 * played) / BATCH))
