"""Background solver jobs and their stop flags, without the UI.

Every long computation a screen starts (a solve, a hint, a live distance, a full BFS, a lab run)
is one :class:`SolverJob`: what it is for, the board it works on, its stop flag and its latest
progress.  The numba kernels poll the stop flag (:mod:`solver.engines.stop`), so setting it stops
them within milliseconds.  The app keeps every running job's flag in one :class:`StopFlags`;
quitting sets them all, so no search outlives the game.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from solver.engines.stop import StopFlag, new_stop_flag, request_stop, stop_requested


@dataclass(eq=False)
class SolverJob:
    """One background computation; a newer job of the same screen supersedes it (compare by identity)."""

    kind: str  # what it is for: "solve", "hint", "distance", "bfs", "verify", a lab method, "loop"...
    state: tuple = ()  # the board it works on, if it works on one
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


class StopFlags(dict[int, StopFlag]):
    """The stop flags of every running job, by id: quitting (``stop_all``) sets them all."""

    quitting = False

    @contextmanager
    def registered(self, job: SolverJob) -> Iterator[SolverJob]:
        """Keep ``job``'s flag here while the block runs (in the job's worker thread), then drop it.

        A job whose worker starts after the app began quitting is stopped at once.
        """
        self[id(job.stop)] = job.stop
        if self.quitting:
            job.cancel()
        try:
            yield job
        finally:
            self.pop(id(job.stop), None)

    def stop_all(self) -> None:
        """Quitting: stop every job running now, and any that starts from now on."""
        self.quitting = True
        for flag in list(self.values()):
            request_stop(flag)
