"""What a game served by ``koma serve`` tells the server's metrics: its store's saves and errors, and its screen.

Only when the server asks for it by setting ``PROMETHEUS_MULTIPROC_DIR`` (see :mod:`tui.server.metrics`; read on first
use, not at import): then the game writes prometheus-client's multiprocess files there (a memory-mapped add, off the UI thread for saves), and the
server merges them when Prometheus scrapes.  Otherwise, and where prometheus-client is not installed, every call
here does nothing.  Never imports Textual.
"""

from __future__ import annotations

import functools
import os
import threading
from dataclasses import dataclass
from typing import Any

SAVE_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


@dataclass(frozen=True)
class Instruments:
    save: Any
    errors: Any
    screens: Any


def instruments() -> Instruments | None:
    """The game's metrics, made on first use (the warm process makes them before it forks games): None unless the
    server set ``PROMETHEUS_MULTIPROC_DIR``, read then and not at import."""
    with _making:  # the UI thread and the storage thread may both be first
        return _made()


_making = threading.Lock()


@functools.cache
def _made() -> Instruments | None:
    if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        return None
    try:
        from prometheus_client import Counter, Gauge, Histogram
    except ImportError:  # pragma: no cover - the server would not have asked
        return None
    return Instruments(
        Histogram("koma_store_save_seconds", "Time to write one accepted save or result to the database",
                  buckets=SAVE_BUCKETS),
        Counter("koma_store_errors", "Writes the database refused or did not answer (kept in the outbox)"),
        Gauge("koma_game_screens", "Games now, by transport and the screen they show", ["transport", "screen"],
              multiprocess_mode="livesum"))


_screen = ""
_screen_pid = 0  # the process that showed _screen (a forked game starts with nothing shown)


def saved(seconds: float) -> None:
    if (made := instruments()) is not None:
        made.save.observe(seconds)


def store_error() -> None:
    if (made := instruments()) is not None:
        made.errors.inc()


def showing(screen: str) -> None:
    """The game shows ``screen`` now (a kind such as ``home``, ``play``, ``help``)."""
    global _screen, _screen_pid
    made = instruments()
    if made is None:
        return
    if _screen_pid != os.getpid():
        _screen, _screen_pid = "", os.getpid()
    if screen == _screen:
        return
    transport = os.environ.get("KOMA_TRANSPORT", "ssh")
    if _screen:
        made.screens.labels(transport, _screen).dec()
    made.screens.labels(transport, screen).inc()
    _screen = screen
