"""What a game served by ``koma serve`` tells the server's metrics: its store's saves and errors, its screen, and its
memory (its proportional set size, read from its own ``/proc/self/smaps_rollup`` every :data:`MEMORY_REPORT_SECONDS`
by a thread of its own: a game is not dumpable, so the server, not root, cannot read it there).

Only when the server asks for it by setting ``PROMETHEUS_MULTIPROC_DIR`` (see :mod:`tui.server.metrics`; read on first
use, not at import): then the game writes prometheus-client's multiprocess files there (a memory-mapped add, off the UI thread for saves), and the
server merges them when Prometheus scrapes.  Otherwise, and where prometheus-client is not installed, every call
here does nothing.  Never imports Textual.
"""

from __future__ import annotations

import functools
import os
import threading
import time
from dataclasses import dataclass
from typing import Any

SAVE_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
MEMORY_REPORT_SECONDS = 10.0  # how often a game reports its memory (a read of its own smaps_rollup: about a ms)


@dataclass(frozen=True)
class Instruments:
    save: Any
    errors: Any
    screens: Any
    memory: Any


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
              multiprocess_mode="livesum"),
        Gauge("koma_games_memory_bytes", "Proportional set size of the games running now, by transport (sum; each game "
              f"reports its own every {MEMORY_REPORT_SECONDS:.0f} s)", ["transport"], multiprocess_mode="livesum"))


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


_reporting_pid = 0  # the process whose memory the reporter thread reports


def report_memory() -> None:
    """Report this game's memory now and every :data:`MEMORY_REPORT_SECONDS` from a daemon thread (once a process;
    nothing unless the server asked for metrics).  Call it in the game, never in the warm process (which forks)."""
    global _reporting_pid
    made = instruments()
    if made is None or _reporting_pid == os.getpid():
        return
    _reporting_pid = os.getpid()
    # labelled, so that the warm process (which makes the metric before it forks) has no value file of its own
    gauge = made.memory.labels(os.environ.get("KOMA_TRANSPORT", "ssh"))
    threading.Thread(target=_report_memory, args=(gauge,), name="koma-memory-report", daemon=True).start()


def _report_memory(gauge: Any) -> None:
    while True:
        pss = own_pss_bytes()
        if pss is not None:
            gauge.set(pss)
        time.sleep(MEMORY_REPORT_SECONDS)


def own_pss_bytes() -> int | None:
    """This process's proportional set size in bytes (None where ``/proc/self/smaps_rollup`` cannot be read)."""
    try:
        with open("/proc/self/smaps_rollup", encoding="ascii") as rollup:
            for line in rollup:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None
