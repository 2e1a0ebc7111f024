"""The server's run queue: every page's runs wait in one queue and are played one at a time
by one worker thread, so the kernels are compiled once and no visitor's run starves the
others (each run is bounded: :data:`odds.web.matchup.MOST_FIGHTS`). A page polls its run
(:class:`Run` holds its progress and outcome); a run is cancelled by its page's button or
when the page closes, between two chunks of fights."""
from __future__ import annotations

import queue
import sys
import threading
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable

from odds.errors import ScenarioError


class Cancelled(Exception):
    """Raised from a run's progress call once the run was cancelled: it stops the run."""


@dataclass
class Run:
    """One request: ``work(watch)`` is called on the worker thread with ``watch(played,
    planned)``, the progress callable odds' runs take. ``state`` goes queued -> running ->
    done | failed | cancelled; ``value`` is what ``work`` returned, ``error`` the words of a
    :class:`~odds.errors.ScenarioError` (or of an internal error, whose traceback goes to
    the server's stderr, never to the page)."""

    work: Callable[[Callable[[int, int], None]], Any]
    state: str = "queued"
    played: int = 0
    planned: int = 0
    value: Any = None
    error: str | None = None
    _stop: threading.Event = field(default_factory=threading.Event, repr=False)

    def watch(self, played: int, planned: int) -> None:
        if self._stop.is_set():
            raise Cancelled
        self.played, self.planned = played, planned

    def cancel(self) -> None:
        self._stop.set()
        if self.state == "queued":
            self.state = "cancelled"

    @property
    def finished(self) -> bool:
        return self.state in ("done", "failed", "cancelled")


class Runs:
    """The queue and its worker thread (started on the first :meth:`submit`)."""

    def __init__(self):
        self._waiting: queue.Queue[Run] = queue.Queue()
        self._order: list[Run] = []
        self._lock = threading.Lock()
        self._worker: threading.Thread | None = None

    def submit(self, work) -> Run:
        run = Run(work)
        with self._lock:
            self._order.append(run)
            if self._worker is None:
                self._worker = threading.Thread(target=self._serve, name="odds-runs",
                                                daemon=True)
                self._worker.start()
        self._waiting.put(run)
        return run

    def ahead(self, run: Run) -> int:
        """How many runs will be played before ``run``."""
        with self._lock:
            return sum(1 for r in self._order[:self._order.index(run)] if not r.finished) \
                if run in self._order else 0

    def _serve(self) -> None:
        while True:
            run = self._waiting.get()
            if run.state == "queued":
                _play(run)
            with self._lock:
                self._order.remove(run)


def _play(run: Run) -> None:
    run.state = "running"
    try:
        run.value = run.work(run.watch)
        run.state = "done"
    except Cancelled:
        run.state = "cancelled"
    except ScenarioError as error:
        run.error, run.state = str(error), "failed"
    except Exception as error:  # a bug: its traceback on the server's stderr, words on the page
        traceback.print_exc(file=sys.stderr)
        run.error, run.state = f"internal error ({type(error).__name__}: {error})", "failed"
