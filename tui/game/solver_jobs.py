"""Background solver jobs and their stop flags, without the UI.

Every long computation a screen starts (a solve, a hint, a live distance, a full BFS, a lab run)
is one :class:`SolverJob`: the board it works on, its stop flag and its latest progress.  The numba
kernels poll the stop flag (:mod:`solver.engines.stop`), so setting it stops them within
milliseconds.  The app keeps every running job's flag in one :class:`StopFlags`; quitting sets them
all, so no search outlives the game.

What a job is for is said by the message its answer comes back as (:mod:`tui.messages`), never by
a string on the job: a screen tells its jobs apart by identity (``event.job is self.job``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from solver.engines.stop import StopFlag, new_stop_flag, request_stop, stop_requested
from solver.puzzle import State


@dataclass(eq=False)
class SolverJob:
    """One background computation; a newer job of the same screen supersedes it (compare by identity)."""

    kind: str  # a label for logs and tests ("solve", "bfs", a lab method…); no code branches on it
    state: State = ()  # the board it works on, if it works on one
    stop: StopFlag = field(default_factory=new_stop_flag)
    began: float = field(default_factory=time.monotonic)
    progress: dict[str, Any] = field(default_factory=dict)  # the latest figures reported (bound, nodes, depth…)
    items: list[int] = field(default_factory=list)  # the positions it works through, if several
    done: int = 0  # how many of them are finished
    total: int = 0  # how many there are to do, when counted rather than listed

    def cancel(self) -> None:
        """Ask the computation to stop; it notices at its next poll of the flag."""
        request_stop(self.stop)

    @property
    def cancelled(self) -> bool:
        return stop_requested(self.stop)


class StopFlags:
    """The stop flags of every running job, by ``id`` of the flag: quitting (``stop_all``) sets them all.

    Jobs register from their worker threads while the UI thread may be quitting, so every change is
    made under one lock.
    """

    def __init__(self) -> None:
        self._flags: dict[int, StopFlag] = {}
        self._lock = threading.Lock()
        self.quitting = False

    @contextmanager
    def registered(self, job: SolverJob) -> Iterator[SolverJob]:
        """Keep ``job``'s flag here while the block runs (in the job's worker thread), then drop it.

        A job whose worker starts after the app began quitting is stopped at once.
        """
        with self._lock:
            self._flags[id(job.stop)] = job.stop
            quitting = self.quitting
        if quitting:
            job.cancel()
        try:
            yield job
        finally:
            with self._lock:
                self._flags.pop(id(job.stop), None)

    def stop_all(self) -> None:
        """Quitting: stop every job running now, and any that starts from now on."""
        with self._lock:
            self.quitting = True
            flags = list(self._flags.values())
        for flag in flags:
            request_stop(flag)

    def values(self) -> list[StopFlag]:
        """The flags registered now (a copy)."""
        with self._lock:
            return list(self._flags.values())

    def __contains__(self, key: object) -> bool:
        return key in self._flags

    def __len__(self) -> int:
        return len(self._flags)
