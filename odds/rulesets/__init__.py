"""The rulesets: odds' own, one package each in this folder, and plug-ins: any installed
package that names a :class:`~odds.core.ruleset.Ruleset` under the ``odds.rulesets``
entry-point group (``[project.entry-points."odds.rulesets"] myruleset =
"odds_myruleset:RULESET"``), or one made known in a process with :func:`register`.
:func:`get_ruleset` returns one by its id; :func:`ruleset_ids` lists them. Everything odds
needs of a ruleset comes through its Ruleset object (``odds/rulesets/README.md``)."""
from __future__ import annotations

import importlib
import pkgutil
from importlib.metadata import entry_points

from odds.core.ruleset import Ruleset

BUILT_IN = tuple(sorted(m.name for m in pkgutil.iter_modules(__path__) if m.ispkg))
GROUP = "odds.rulesets"  # the entry-point group of plug-in rulesets
_PLUGINS = {e.name: e for e in entry_points(group=GROUP) if e.name not in BUILT_IN}
_REGISTERED: dict[str, Ruleset] = {}


def ruleset_ids() -> tuple[str, ...]:
    """Every ruleset's id: odds' own, then installed and registered plug-ins, sorted."""
    return tuple(sorted({*BUILT_IN, *_PLUGINS, *_REGISTERED}))


RULESETS = ruleset_ids()  # at import; ruleset_ids() also sees rulesets registered later


def register(ruleset: Ruleset) -> None:
    """Make ``ruleset`` known in this process by its id, as an installed plug-in is (e.g. a
    ruleset being written, or a test's). An id already known is a ValueError."""
    if not isinstance(ruleset, Ruleset):
        raise TypeError(f"register takes an odds.core.ruleset.Ruleset, got "
                        f"{type(ruleset).__name__}")
    if ruleset.id in ruleset_ids():
        raise ValueError(f"a ruleset {ruleset.id!r} is already known")
    _REGISTERED[ruleset.id] = ruleset


def get_ruleset(ruleset_id: str, where=None) -> Ruleset:
    """The :class:`Ruleset` named ``ruleset_id`` (a ScenarioError at ``where`` if unknown)."""
    if ruleset_id in BUILT_IN:
        return importlib.import_module(f"odds.rulesets.{ruleset_id}").RULESET
    if ruleset_id in _REGISTERED:
        return _REGISTERED[ruleset_id]
    if ruleset_id in _PLUGINS:
        ruleset = _PLUGINS[ruleset_id].load()
        if not isinstance(ruleset, Ruleset) or ruleset.id != ruleset_id:
            raise TypeError(f"the {GROUP} entry point {ruleset_id!r} must name an "
                            f"odds.core.ruleset.Ruleset with id {ruleset_id!r}, got {ruleset!r}")
        return ruleset
    message = f"unknown ruleset {ruleset_id!r}; known: {', '.join(ruleset_ids())}"
    if where is None:
        from odds.errors import ScenarioError
        raise ScenarioError(message, field="ruleset")
    raise where.error(message)
