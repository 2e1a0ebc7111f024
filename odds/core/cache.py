"""numba's on-disk cache, keyed on every source a compiled function is built from.

numba stamps a cached function with its own file's content only, but a kernel inlines its
ruleset's rule text (``fight.py``) and the core's dice, and the core's compiled loops take a
ruleset's rule text as a closure. So a cached function of the package is stamped with its
own folder's and ``odds/core``'s sources, and those of ``odds/core`` with every ruleset's too:
an edit (an editable install pulled, a developer's change) compiles again what it affects,
never loads a stale kernel.
"""
from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

from numba.core import caching

ODDS = Path(__file__).resolve().parents[1]
CORE = ODDS / "core"


@lru_cache(maxsize=None)
def stamp(folder: Path) -> str:
    """The content hash of the sources a function in ``folder`` is built from."""
    files = {*folder.glob("*.py"), *CORE.glob("*.py")}
    if folder == CORE:
        files.update((ODDS / "rulesets").rglob("*.py"))
    digest = hashlib.sha256()
    for file in sorted(files):
        digest.update(file.read_bytes())
    return digest.hexdigest()


class _Sources:
    """A locator mixin: the package's functions stamped by :func:`stamp`."""

    def get_source_stamp(self):
        return stamp(Path(self._py_file).resolve().parent)

    @classmethod
    def from_function(cls, py_func, py_file):
        if not Path(py_file).resolve().is_relative_to(ODDS):
            return None
        return super().from_function(py_func, py_file)


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
