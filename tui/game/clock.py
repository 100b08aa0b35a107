"""A game's clock, without the UI: the time played, running only between ``start`` and ``pause``."""

from __future__ import annotations

from collections.abc import Callable


class GameClock:
    """Seconds played; ``now`` is the app's clock (tests freeze it)."""

    def __init__(self, now: Callable[[], float], seconds: float = 0.0):
        self.now = now
        self.seconds = seconds  # the time played before the current run
        self.since: float | None = None  # when the current run began, if the clock runs

    @property
    def running(self) -> bool:
        return self.since is not None

    def start(self) -> bool:
        """Run the clock; False if it already ran."""
        if self.since is not None:
            return False
        self.since = self.now()
        return True

    def pause(self) -> None:
        self.seconds = self.elapsed()
        self.since = None

    def elapsed(self) -> float:
        if self.since is None:
            return self.seconds
        return self.seconds + max(0.0, self.now() - self.since)
