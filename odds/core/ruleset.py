"""What every ruleset provides to the scenario loader and the runner."""
from __future__ import annotations

import importlib
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
    rule_ids: tuple[str, ...] = ()  # the RULES.md rule IDs it implements (each one tested)
    points: Callable[[Any, str], float | None] = lambda scenario, side: None
    extra_columns: tuple[str, ...] = ()
    default_max_rounds: int = 10
    single_unit: bool = False  # a side is one unit described by side_keys, with no [[models]]
    rules: dict[str, tuple] = field(default_factory=dict)  # the scenario's [rules] table

    def play(self, plan, seed: int, first_trial: int, out) -> None:
        """Fill ``out`` with the outcome rows of trials ``first_trial`` onward. The kernel
        module is imported here, so numba compiles or loads it only when fights are played."""
        importlib.import_module(self.kernel).play_chunk(plan, seed, first_trial, out)
