"""Starting games at a pace the box can hold: at most ``at_once`` games start at a time (a game is starting from the
moment it is asked for until its first frame is drawn, or :data:`START_HOLD_SECONDS` have passed); the arrivals
beyond wait in order, each told how many are ahead of it.  A burst of players is queued, not refused, and the
players already in keep their cores: a start costs a game about a tenth of a CPU-second, so a burst of fifty
forked at once would take both cores of a small box for seconds.  Never imports Textual.
"""

from __future__ import annotations

import asyncio
import collections
import os
import time
from collections.abc import Callable

START_HOLD_SECONDS = 5.0  # a game that has not drawn by then no longer holds up the queue (a hung or slow start)


def default_at_once() -> int:
    """Games that start at once by default: one per core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


class StartTurn:
    """One game's turn to start: :meth:`done` gives it back (safe to call more than once)."""

    def __init__(self, queue: StartQueue):
        self.queue = queue
        self.given_back = False

    def done(self) -> None:
        if not self.given_back:
            self.given_back = True
            self.queue._give_back()


class StartQueue:
    """At most ``at_once`` turns out at a time; :meth:`turn` waits in order for one."""

    def __init__(self, at_once: int):
        self.at_once = max(1, at_once)
        self.starting = 0  # turns out now
        self.waiting: collections.deque[tuple[asyncio.Future, Callable[[int], None]]] = collections.deque()
        self.admitted = 0  # turns given so far
        self.waited_seconds = 0.0  # in all, by the turns given

    async def turn(self, ahead: Callable[[int], None] = lambda count: None) -> StartTurn:
        """A turn to start a game: at once if one is free and nobody waits, else in order; ``ahead(n)`` is told each
        time the number of arrivals ahead of this one changes (first with the number when it joins the queue).
        Cancelling the wait (the player left) leaves the queue."""
        began = time.monotonic()
        if self.starting < self.at_once and not self.waiting:
            return self._given(began)
        future: asyncio.Future = asyncio.get_running_loop().create_future()
        entry = (future, ahead)
        self.waiting.append(entry)
        ahead(len(self.waiting) - 1)
        try:
            await future
        except BaseException:
            if entry in self.waiting:
                self.waiting.remove(entry)
                self._tell_positions()
            elif future.done() and not future.cancelled():  # the turn came as the wait was cancelled: pass it on
                self.starting -= 1
                self._next()
            raise
        self.starting -= 1  # _next counted it for this waiter; _given counts it again
        return self._given(began)

    def _given(self, began: float) -> StartTurn:
        self.starting += 1
        self.admitted += 1
        self.waited_seconds += time.monotonic() - began
        return StartTurn(self)

    def _give_back(self) -> None:
        self.starting -= 1
        self._next()

    def _next(self) -> None:
        while self.waiting and self.starting < self.at_once:
            future, _ = self.waiting.popleft()
            if future.done():
                continue
            self.starting += 1
            future.set_result(None)
        self._tell_positions()

    def _tell_positions(self) -> None:
        for position, (_, ahead) in enumerate(self.waiting):
            ahead(position)

    def state(self) -> dict[str, float]:
        """For the metrics: games starting now, arrivals waiting, turns given and the seconds they waited in all."""
        return {"starting": self.starting, "waiting": len(self.waiting), "admitted": self.admitted,
                "waited_seconds": self.waited_seconds, "at_once": self.at_once}
