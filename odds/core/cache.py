"""numba's on-disk cache of the package's compiled functions, keyed on every source a
function is built from.

numba stamps a cached function with its own file's content only, but a kernel inlines its
ruleset's rule text (``fight.py``) and the core's dice, and the core's compiled loops
(``odds.core.walk``) take a ruleset's rule text as a closure. So a cached function is stamped
with its own folder's and ``odds/core``'s sources, and with the folder of every module its
closure holds (a rule text's, a plug-in's too, wherever it lives): an edit (an editable
install pulled, a developer's or a plug-in author's change) compiles again what it affects,
never loads a stale kernel, and leaves the other rulesets' kernels cached.
"""
from __future__ import annotations

import hashlib
import types
from functools import lru_cache
from pathlib import Path

from numba.core import caching

ODDS = Path(__file__).resolve().parents[1]
CORE = ODDS / "core"


@lru_cache(maxsize=None)
def stamp(*folders: Path) -> str:
    """The content hash of the sources in ``folders`` and ``odds/core``."""
    files = {file for folder in {*folders, CORE} for file in folder.glob("*.py")}
    digest = hashlib.sha256()
    for file in sorted(files):
        digest.update(file.read_bytes())
    return digest.hexdigest()


def _closure_modules(py_func) -> list:
    """The modules ``py_func``'s closure holds (a rule text given to ``odds.core.walk``)."""
    return sorted((cell.cell_contents for cell in py_func.__closure__ or ()
                   if isinstance(cell.cell_contents, types.ModuleType)
                   and getattr(cell.cell_contents, "__file__", None)),
                  key=lambda module: module.__name__)


def variant_name(sizes) -> str:
    """A kernel variant's sizes (``odds.core.walk``) as a name part: ``(2, 1)`` is ``2x1``."""
    return "x".join(map(str, sizes))


def _closure_variant(py_func) -> list:
    """The whole numbers a closure holds (a kernel variant's sizes, ``odds.core.walk``), as
    name parts: each variant keeps an index of its own, so that whether it is cached can be
    told (:func:`odds.core.ruleset.needs_compiling`)."""
    values = [cell.cell_contents for cell in py_func.__closure__ or ()]
    return [variant_name(v) for v in values if isinstance(v, tuple) and v
            and all(isinstance(n, int) for n in v)]


class _Sources:
    """A locator mixin: the package's functions stamped by :func:`stamp`. The core's loop
    over a rule text keeps a cache index of its own per rule text (named after it): one
    index shared by every rule text would hold a plug-in's plan type, which a process
    without the plug-in cannot read, and the rule texts' stamps would overwrite each
    other's entries. So does each variant of a kernel (its sizes in the name)."""

    def get_source_stamp(self):
        return stamp(Path(self._py_file).resolve().parent,
                     *(Path(m.__file__).resolve().parent for m in self._closure))

    def get_disambiguator(self):
        return "-".join([super().get_disambiguator(), *(m.__name__ for m in self._closure),
                         *self._variant])

    @classmethod
    def from_function(cls, py_func, py_file):
        if not Path(py_file).resolve().is_relative_to(ODDS):
            return None
        locator = super().from_function(py_func, py_file)
        if locator is not None:
            locator._closure = _closure_modules(py_func)
            locator._variant = _closure_variant(py_func)
        return locator


def _numba(name: str):
    """A class of numba's caching module, public from numba 0.62 on, private before."""
    return getattr(caching, name, None) or getattr(caching, "_" + name)


class UserProvidedLocator(_Sources, _numba("UserProvidedCacheLocator")):
    """NUMBA_CACHE_DIR set."""


class InTreeLocator(_Sources, _numba("InTreeCacheLocator")):
    """The package's own __pycache__ folders."""


_LOCATORS = _numba("CacheImpl")._locator_classes  # numba internals (0.59 ... 0.68)
if UserProvidedLocator not in _LOCATORS:
    _LOCATORS[:0] = [UserProvidedLocator, InTreeLocator]
