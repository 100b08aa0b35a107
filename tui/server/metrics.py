"""``koma serve``'s metrics in the Prometheus format, with prometheus-client; served by :mod:`tui.server.admin`.

Two kinds, so that measuring costs a game nothing:
- events the server sees (a game started or ended, a refusal, the home screen's first frame, a key's answer) update
  counters and histograms in this process: a lock and an add, on the event loop;
- states (sessions now, the warm process, the outbox, CPU and memory of the games) are read only when Prometheus
  scrapes, by :class:`ServerCollector`, in the admin listener's thread.
The games themselves (their saves, their screen) write to prometheus-client's multiprocess files in
:data:`GAMES_DIR`, which the server gives them as ``PROMETHEUS_MULTIPROC_DIR`` (see :mod:`tui.game_metrics`)
and merges at each scrape.  Every series the server makes about games has a ``transport`` label: ``ssh`` (``koma
serve``) or ``web`` (``koma web``, whose games run through the same server).
Never imports Textual.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterable
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.mmap_dict import MmapedDict
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead
from prometheus_client.process_collector import ProcessCollector

from tui.server.procfs import cpu_seconds

# Home screen: 0.07 s warm on an idle box, up to seconds cold on a loaded one.
HOME_BUCKETS = (0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 30.0)
KEY_BUCKETS = (0.002, 0.005, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0)
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

REGISTRY = CollectorRegistry(auto_describe=True)
GAMES_STARTED = Counter("koma_games_started", "Games started, by how (warm: forked; cold: a fresh process)",
                        ["transport", "how"], registry=REGISTRY)
GAMES_ENDED = Counter("koma_games_ended", "Games ended, by how (quit, hangup, idle, drained, shutdown, killed, crashed, "
                      "cpu_limit, error)", ["transport", "how"], registry=REGISTRY)
REFUSALS = Counter("koma_refusals", "Connections or games refused, by reason", ["transport", "reason"], registry=REGISTRY)
HOME_SECONDS = Histogram("koma_home_seconds", "From the connection to the first frame of the game's home screen",
                         ["transport"], buckets=HOME_BUCKETS, registry=REGISTRY)
KEY_SECONDS = Histogram("koma_key_seconds", "From a key reaching the server to the game's next output",
                        ["transport"], buckets=KEY_BUCKETS, registry=REGISTRY)
SLOW_FRAMES = Counter("koma_slow_frames", "Keys a game had not answered after 5 s", ["transport"], registry=REGISTRY)
WARM_FALLBACKS = Counter("koma_warm_cold_fallbacks", "Games started cold because the warm process could not fork them",
                         registry=REGISTRY)
ProcessCollector(registry=REGISTRY)  # the server's own CPU, memory, open files

SSH, WEB = "ssh", "web"  # the transports (tui.server.transport's kinds)
TRANSPORTS = (SSH, WEB)
PHASES = ("starting", "playing")
# bound once per transport: an observation is then a lookup, a lock and an add
HOME_LATENCY = {transport: HOME_SECONDS.labels(transport) for transport in TRANSPORTS}
KEY_LATENCY = {transport: KEY_SECONDS.labels(transport) for transport in TRANSPORTS}
GAMES_DIR: str | None = None  # the games' multiprocess files, while metrics are on
ENDED: list[int] = []  # games ended since the last compaction (appended on the event loop, taken by lifecycle.watch)
SCRAPING = threading.Lock()  # a scrape and a compaction, one at a time


def start_games_dir() -> dict[str, str]:
    """Make the games' metrics directory (fresh for this server) and merge it into scrapes; returns the variable
    that tells a game to use it."""
    global GAMES_DIR
    if GAMES_DIR is None:
        GAMES_DIR = tempfile.mkdtemp(prefix="koma-metrics-")
        REGISTRY.register(MultiProcessCollector(REGISTRY, path=GAMES_DIR))
    return {"PROMETHEUS_MULTIPROC_DIR": GAMES_DIR}


def game_environment() -> dict[str, str]:
    return {"PROMETHEUS_MULTIPROC_DIR": GAMES_DIR} if GAMES_DIR else {}


def game_ended(pid: int) -> None:
    """A game process is gone: its live gauges (its screen) leave the sums; its counts stay (see :func:`compact`)."""
    if GAMES_DIR:
        mark_process_dead(pid, GAMES_DIR)
        ENDED.append(pid)


def compact(pids: list[int]) -> None:
    """Fold the counts of ended games into one archive file per type and remove their files (blocking: run in a
    thread), so a scrape reads a few files however many games a server has seen.  Under the scrape's lock: a scrape
    never sees a game's counts twice (in its file and in the archive), or not at all."""
    if not GAMES_DIR:
        return
    with SCRAPING:
        for kind in ("counter", "histogram"):
            files = [path for pid in pids if os.path.exists(path := os.path.join(GAMES_DIR, f"{kind}_{pid}.db"))]
            if not files:
                continue
            archive = MmapedDict(os.path.join(GAMES_DIR, f"{kind}_archive.db"))
            try:
                for path in files:  # raw values: a histogram's are per bucket, so they add up as counters do
                    for key, value, _, _ in MmapedDict.read_all_values_from_file(path):
                        archive.write_value(key, archive.read_value(key)[0] + value, 0.0)
                    os.unlink(path)
            finally:
                archive.close()


def remove_games_dir() -> None:
    if GAMES_DIR:
        shutil.rmtree(GAMES_DIR, ignore_errors=True)


def exposition() -> bytes:
    """Every metric in the text format (blocking: the admin listener runs it in a thread)."""
    with SCRAPING:
        return generate_latest(REGISTRY)


class ServerCollector:
    """The states of a running server, read at scrape time through ``state()`` (cheap, from the event loop's objects):
    a dict with ``sessions`` ({(transport, phase): n}), ``warm_up``, ``warm_forks``, ``warm_restarts``, ``database_trouble``,
    ``outbox_ops``, ``outbox_journals``, ``ready``, ``draining``, ``game_pids`` and ``start_queue``
    (:meth:`tui.server.admission.StartQueue.state`)."""

    def __init__(self, state: Callable[[], dict[str, Any]]):
        self.state = state

    def describe(self) -> Iterable[Metric]:
        return []

    def collect(self) -> Iterable[Metric]:
        state = self.state()
        sessions = GaugeMetricFamily("koma_sessions", "Games now, by transport and phase (starting: not drawn yet)",
                                     labels=["transport", "phase"])
        for (transport, phase), count in state["sessions"].items():
            sessions.add_metric([transport, phase], count)
        yield sessions
        yield GaugeMetricFamily("koma_ready", "1 when /readyz says the server can take a player now", value=state["ready"])
        yield GaugeMetricFamily("koma_draining", "1 while a SIGTERM drain is under way", value=state["draining"])
        yield GaugeMetricFamily("koma_warm_process_up", "1 when the warm process is ready to fork games",
                                value=state["warm_up"])
        yield CounterMetricFamily("koma_warm_forks", "Games forked by the warm process", value=state["warm_forks"])
        yield CounterMetricFamily("koma_warm_restarts", "Warm processes that stopped and were replaced",
                                  value=state["warm_restarts"])
        yield GaugeMetricFamily("koma_database_trouble", "1 while the database cannot be reached (games keep moves in the "
                                "outbox)", value=state["database_trouble"])
        yield GaugeMetricFamily("koma_outbox_ops", "Saved moves and results waiting in the outbox for the database",
                                value=state["outbox_ops"])
        yield GaugeMetricFamily("koma_outbox_journals", "Journals in the outbox", value=state["outbox_journals"])
        queue = state.get("start_queue")
        if queue is not None:  # admission: games start a few at a time, the rest wait in order (tui.server.admission)
            yield GaugeMetricFamily("koma_games_starting", "Games starting now (asked for, not drawn yet), holding a "
                                    "start turn", value=queue["starting"])
            yield GaugeMetricFamily("koma_games_starting_at_once", "Games allowed to start at once (--max-starting)",
                                    value=queue["at_once"])
            yield GaugeMetricFamily("koma_start_queue", "Arrivals waiting for their turn to start (told their place)",
                                    value=queue["waiting"])
            yield CounterMetricFamily("koma_start_turns", "Start turns given (games admitted to start)",
                                      value=queue["admitted"])
            yield CounterMetricFamily("koma_start_wait_seconds", "Seconds the admitted arrivals waited for their turn, "
                                      "in all", value=queue["waited_seconds"])
        cpu = 0.0
        for pid in state["game_pids"]:
            try:
                cpu += cpu_seconds(pid)
            except (OSError, ValueError):  # it ended meanwhile
                continue
        yield GaugeMetricFamily("koma_games_cpu_seconds", "CPU time used so far by the games running now (sum)",
                                value=cpu)
        # koma_games_memory_bytes is the games' own (tui.game_metrics): a game is not dumpable, so its smaps_rollup
        # is closed to a server that is not root


def watch(state: Callable[[], dict[str, Any]]) -> None:
    REGISTRY.register(ServerCollector(state))
