"""What every ruleset provides to the scenario loader and the runner."""
from __future__ import annotations

import importlib
import types
from dataclasses import dataclass, field
from typing import Any, Callable


@dataclass(frozen=True)
class Ruleset:
    """A ruleset: its scenario schema, its cross-field checks, and its compiled kernel.

    ``profile``, ``group_keys``, ``side_keys`` and ``engagement`` map a key to
    ``(check, default)`` as in :func:`odds.core.schema.fields`, and so does ``rules`` (the
    scenario's ``[rules]`` table: rule variants and house rules). ``check(scenario)`` raises
    :class:`~odds.errors.ScenarioError` for mistakes that span fields. ``compile(scenario)``
    returns a plan; ``kernel`` names the module whose ``play_chunk(plan, seed, first_trial,
    out)`` fills one chunk of the outcome record (see :mod:`odds.core.outcome`).
    ``points(scenario, side)`` is a side's points value, or None when the scenario gives none.
    ``exact`` names the module that solves its fights exactly (:mod:`odds.core.exact`).
    ``lost`` and ``wounds`` say in the game's words what the record's ``<side>_lost`` and
    ``<side>_wounds`` count, for tables and charts (``lost``: one, then several).
    ``profile`` is a stat line's keys: a model group's, or a single-unit side's ``profile``
    table. ``catalogues()`` lists the names a scenario may use (weapons, special rules...) as
    :class:`odds.core.catalogue.Section` s, for ``odds weapons`` and the explorer.
    """

    id: str
    title: str
    profile: dict[str, tuple]
    group_keys: dict[str, tuple]
    side_keys: dict[str, tuple]
    engagement: dict[str, tuple]
    check: Callable[[Any], None]
    compile: Callable[[Any], Any]
    kernel: str
    rule_ids: tuple[str, ...] = ()  # the rule IDs it implements (each one named by a test)
    points: Callable[[Any, str], float | None] = lambda scenario, side: None
    extra_columns: tuple[str, ...] = ()
    flag_columns: tuple[str, ...] = ()  # the yes/no ones among extra_columns (0 or 1 a fight)
    default_max_rounds: int = 10
    single_unit: bool = False  # a unit is described by side_keys alone, with no [[models]]
    multi_unit: bool = False  # a side may be several units ([[<side>.units]], R0-13)
    # the unit key that, false, puts a unit out of the fight at the start (R0-12); None:
    # every unit is in it (blackpowder's `engaged` says something else)
    fresh_key: str | None = "engaged"
    # yes/no figures each unit of a side of several has beside its fate, lost and wounds
    # (blackpowder: shaken); its side's own column is ``<side>_<flag>`` (extra_columns)
    unit_flags: tuple[str, ...] = ()
    # counts each unit of a side of several has after its flags, reported as means
    # (d10skirmish: each fighter's exchanges)
    unit_counts: tuple[str, ...] = ()
    rules: dict[str, tuple] = field(default_factory=dict)  # the scenario's [rules] table
    exact: str | None = None  # the module of its exact solver (see odds.core.exact), if any
    own_special_rules: bool = False  # a scenario may add special rules ([special_rules])
    # the columns a scenario adds after extra_columns (whfb8: challenges, with characters)
    scenario_columns: Callable[[Any], tuple[str, ...]] = lambda scenario: ()
    lost: tuple[str, str] = ("model lost", "models lost")
    wounds: str = "wounds taken"
    catalogues: Callable[[], list] = lambda: []

    def columns(self, scenario) -> tuple[str, ...]:
        """The outcome record's columns for ``scenario``: the shared ones, the ruleset's own
        (those of every scenario, then ``scenario_columns``'), and for a side of several units
        each unit's (:func:`odds.core.outcome.unit_columns`)."""
        from odds.core.outcome import COLUMNS, unit_columns

        return (COLUMNS + self.own_columns(scenario)
                + unit_columns(scenario, self.unit_flags + self.unit_counts))

    def own_columns(self, scenario) -> tuple[str, ...]:
        """The ruleset's own columns of ``scenario``: ``extra_columns`` + ``scenario_columns``."""
        return self.extra_columns + tuple(self.scenario_columns(scenario))

    def play(self, plan, seed: int, first_trial: int, out) -> None:
        """Fill ``out`` with the outcome rows of trials ``first_trial`` onward. The kernel
        module is imported here, so numba compiles or loads it only when fights are played."""
        importlib.import_module(self.kernel).play_chunk(plan, seed, first_trial, out)

    def needs_compiling(self, plan=None) -> bool:
        """Whether the first :meth:`play` of ``plan`` compiles the kernel: see
        :func:`needs_compiling`."""
        return needs_compiling(importlib.import_module(self.kernel), plan)


def needs_compiling(module, plan=None, entry: str = "play_chunk") -> bool:
    """Whether calling ``module.play_chunk`` (or another ``entry``, e.g. an exact solver's
    ``solve``) compiles numba code first: one of its entry functions has nothing compiled in
    this process and no fresh entry in numba's on-disk cache (an index file whose stamp
    matches the source). When that cannot be told, False.

    The entry functions are the entry itself when it is compiled, else the one that
    ``module.entry(plan)`` names for this plan (a kernel compiled in variants), or those an
    exact solver's ``module.compiled(plan)`` names (a solver whose compiled parts depend on
    the plan), else the compiled functions a plain-Python entry calls (e.g. one per thread),
    or a tuple of them it names (an exact solver's ``COMPILED`` parts,
    :func:`odds.core.walk.solver`)."""
    return any(not d.overloads and not _cached(d)
               for d in _entry_dispatchers(module, plan, entry))


def _entry_dispatchers(module, plan=None, entry: str = "play_chunk") -> list:
    from numba.core.dispatcher import Dispatcher

    if plan is not None and entry == "play_chunk" and hasattr(module, "entry"):
        return [module.entry(plan)]
    if plan is not None and entry == "solve" and hasattr(module, "compiled"):
        return list(module.compiled(plan))
    play = getattr(module, entry)
    if isinstance(play, Dispatcher):
        return [play]
    names, codes = set(), [play.__code__]
    while codes:  # the function's code and the code of functions nested in it
        code = codes.pop()
        names.update(code.co_names)
        codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]
    found = [getattr(module, name, None) for name in sorted(names)]
    found += [d for t in found if isinstance(t, tuple) for d in t]  # a rule text's COMPILED
    return [d for d in found if isinstance(d, Dispatcher)]


def _cached(dispatcher) -> bool:
    try:
        index = dispatcher._cache._cache_file._load_index  # numba internals (0.59 ... 0.68)
    except AttributeError:
        return True  # no on-disk cache to inspect: say nothing
    return bool(index())
