"""The rulesets, one package each (found by name); :func:`get_ruleset` returns one by its id."""
from __future__ import annotations

import importlib
import pkgutil

from odds.core.ruleset import Ruleset

RULESETS = tuple(sorted(m.name for m in pkgutil.iter_modules(__path__) if m.ispkg))


def get_ruleset(ruleset_id: str, where=None) -> Ruleset:
    """The :class:`Ruleset` named ``ruleset_id`` (a ScenarioError at ``where`` if unknown)."""
    if ruleset_id not in RULESETS:
        message = f"unknown ruleset {ruleset_id!r}; known: {', '.join(RULESETS)}"
        if where is None:
            from odds.errors import ScenarioError
            raise ScenarioError(message, field="ruleset")
        raise where.error(message)
    return importlib.import_module(f"odds.rulesets.{ruleset_id}").RULESET
