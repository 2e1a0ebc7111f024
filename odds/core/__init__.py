"""Shared engine: random streams and dice, input checks, the chunked runner, the outcome record.

Importing it first makes numba's on-disk cache of every compiled function in the package
depend on the sources it is built from, not only on its own file (:mod:`odds.core.cache`)."""
from odds.core import cache  # noqa: F401
