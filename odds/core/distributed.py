"""Fights played on a Dask cluster: connecting to it, cutting a run's trials into blocks, and
the worker side of a block.

Each trial's stream depends on ``(seed, trial index)`` only (see :mod:`odds.core.rng`), so
blocks played on any worker, in any order, and merged give the tallies of a local run bit
for bit. A task only plays fights and returns what it played (no side effects), so Dask may
run it again when a worker dies. Dask is optional: ``pip install "odds[dask]"``.
"""
from __future__ import annotations

import math
import threading

from odds.core import runner

CONNECT_TIMEOUT = 5.0  # seconds to reach the scheduler
TASKS_PER_THREAD = 4  # blocks a run's stretch of trials is cut into, per worker thread
SMALLEST_BLOCK = runner.CHUNK  # trials; a block is a whole number of these (or the rest),
# a multiple of paired.SEGMENT so that blocks cut at fingerprint segment edges
NEEDS_DASK = 'running on a Dask cluster needs dask: pip install "odds[dask]"'

_KERNELS = threading.Lock()  # one task at a time in a worker process enters the kernels


def check_client(client) -> None:
    """``client`` is a ``dask.distributed.Client`` (else TypeError; ImportError without
    dask)."""
    try:
        from distributed import Client
    except ImportError:
        raise ImportError(NEEDS_DASK) from None
    if not isinstance(client, Client):
        raise TypeError(f"client must be a dask.distributed.Client (or None to play here), "
                        f"got {type(client).__name__}")


def connect(address: str, timeout: float = CONNECT_TIMEOUT):
    """A ``dask.distributed.Client`` of the scheduler at ``address`` (``tcp://HOST:PORT``).
    A scheduler that cannot be reached within ``timeout`` seconds is a ConnectionError saying
    why (a Client would wait for ever on a port that answers but is no scheduler); a bad
    address is a ValueError; no dask, an ImportError."""
    import asyncio
    import socket

    try:
        from distributed import Client
        from distributed.comm import connect as comm_connect
        from distributed.comm.addressing import get_address_host_port
    except ImportError:
        raise ImportError(NEEDS_DASK) from None
    host, port = get_address_host_port(address)  # ValueError: "missing port number ..."

    async def handshake():
        comm = await comm_connect(address, timeout=timeout)
        await comm.close()

    try:
        socket.create_connection((host, port), timeout=timeout).close()  # refused: at once
        asyncio.run(asyncio.wait_for(handshake(), timeout))
    except (OSError, asyncio.TimeoutError) as e:
        reason = (f"no answer within {timeout:g} s" if isinstance(e, asyncio.TimeoutError)
                  else e.strerror or str(e))
        raise ConnectionError(f"cannot reach a Dask scheduler at {address}: {reason}") from None
    client = Client(address, timeout=timeout, set_as_default=False)
    try:
        check_workers(client)
    except RuntimeError as e:
        client.close()
        raise ConnectionError(str(e)) from None
    return client


def check_workers(client) -> None:
    """Every worker of the cluster runs this version of odds, else RuntimeError (a worker
    without odds would never run a block: the run would wait for ever)."""
    from odds.version import __version__

    try:
        found = client.run(_odds_version)
    except Exception as e:  # the worker's error, e.g. ModuleNotFoundError: No module named 'odds'
        raise RuntimeError(f"the Dask workers cannot run odds ({e}): install odds "
                           f"{__version__} on every worker") from None
    for worker, version in sorted(found.items()):
        if version != __version__:
            raise RuntimeError(f"the Dask worker {worker} runs odds {version}, this is odds "
                               f"{__version__}: install the same odds on every worker")


def _odds_version() -> str:
    from odds.version import __version__

    return __version__


def blocks(start: int, stop: int, threads: int) -> list[tuple[int, int]]:
    """Trials ``[start, stop)`` cut into blocks for a cluster of ``threads`` worker threads:
    about ``TASKS_PER_THREAD`` blocks a thread, each a whole number of ``SMALLEST_BLOCK``
    trials but the last (a stretch shorter than that is one block). The numbers never depend
    on the cut."""
    n = math.ceil((stop - start) / (TASKS_PER_THREAD * max(1, threads) * SMALLEST_BLOCK))
    size = SMALLEST_BLOCK * max(1, n)
    return [(a, min(a + size, stop)) for a in range(start, stop, size)]


def on_worker(play, *args, threads: int | None = None):
    """``play(*args)`` on a Dask worker. numba's threading layer must not be entered from
    several threads at once, so the worker's tasks take turns, each with as many kernel
    threads as the worker has (or ``threads``). Kernels compile, or load from numba's cache,
    once per worker process: the modules stay imported."""
    from distributed import get_worker

    with _KERNELS:
        runner.set_threads(threads or get_worker().state.nthreads)
        return play(*args)


class Blocks:
    """Blocks of fights in flight on a cluster, handed back as they finish."""

    def __init__(self, client, threads: int | None = None):
        from distributed import as_completed

        check_workers(client)
        self.client, self.threads = client, threads
        self.size = sum(client.nthreads().values())  # worker threads now (results: the same)
        self._running = {}
        self._finished = as_completed(loop=client.loop)

    def play(self, task, args: tuple, start: int, stop: int, tag) -> int:
        """Submit ``task(*args, first, stop)`` for each block of ``[start, stop)``; returns
        how many blocks."""
        cut = blocks(start, stop, self.size)
        for a, b in cut:
            future = self.client.submit(on_worker, task, *args, a, b, threads=self.threads,
                                        pure=False)
            self._running[future] = tag, a, b
            self._finished.add(future)
        return len(cut)

    def finished(self):
        """``(tag, first, stop, output)`` of each block as it finishes (blocks submitted
        meanwhile too), until none is left; the rest are cancelled if the caller stops."""
        try:
            for future in self._finished:
                tag, a, b = self._running.pop(future)
                yield tag, a, b, future.result()
        finally:
            if self._running:
                self.client.cancel(list(self._running))
