"""``koma bench race``: racers in processes of their own racing one room on one store, through :class:`RaceLink`.

Each racer is a process with its own store connection and link (as each player's game process is), joined to one
room; when all are in, the host's link starts it.  At the reveal each racer plays a real solution of the scramble
(a random walk out and back, then Koma's optimal solution, so a race lasts long enough to measure) at a set rate,
sending every tile as it goes.  The solution is searched once the walk is typed, not at the reveal: a racer's
solver (its imports, its kernels' compiling, its search) never runs in the race's first seconds, where the others'
keys are measured (``koma bench serve``'s race game), and a racer types at its rate rather than catching up in a
burst.  Measured:

- **opponent-move latency**: from a racer's send of a move to another racer's ``on_room`` carrying it (each move's
  time is its send moment, in ms since the reveal, so every receiver knows when it was sent: one clock, one box);
- **reveal spread**: each racer schedules its reveal at ``reveal_at`` the moment it learns it; the spread is the
  latest racer's reveal moment minus the earliest's (and how long before the reveal the last racer learned it);
- each racer process's CPU over the race (its link's polls, reads and writes, and its own sends).

The figures also say whether every racer saw every opponent's every move and the same results as the store.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import random
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from solver import solving
from solver.sliding.model import SlidingPuzzle
from tui.game.race_rules import RacePhase, Room
from tui.storage.race_link import RaceLink
from tui.storage.store_choice import connect_store, redacted

UNDO = {"U": "D", "D": "U", "L": "R", "R": "L"}
URL_VARIABLE = "KOMA_BENCH_RACE_URL"  # race on this database instead of a fresh SQLite file
DEADLINE_SECONDS = 120.0  # for any one wait of a racer (joining, the start, the end): a loaded box is slow
REACTION_SECONDS = 0.25  # from the reveal to a racer's first move: a quick human's


@dataclass(frozen=True)
class RacerPlan:
    url: str
    player: str
    code: str
    tps: float = 10.0
    padding: int = 90  # moves of the random walk out (and as many back) before the solution
    host: bool = False
    racers: int = 1  # the host starts the room once this many are in it
    seed: int = 0


@dataclass
class RacerReport:
    player: str
    error: str = ""
    latencies: list[float] = field(default_factory=list)  # seconds, one per opponent move seen
    reveal_at: float = 0.0
    revealed: float = 0.0  # when this racer's reveal happened
    learned: float = 0.0  # when it learned reveal_at
    results: list[tuple] = field(default_factory=list)  # (player, place, finished_ms, dnf, moves) as it saw them last
    troubles: list[str] = field(default_factory=list)
    room: str = ""
    cpu_share: float = 0.0  # this racer's process's CPU time over the race's wall time (its link included)
    pid: int = 0


def padded_solution(puzzle: SlidingPuzzle, scramble: tuple[int, ...], padding: int, rng: random.Random) -> list[str]:
    """A solution of ``scramble``: :func:`padding_walk`, then Koma's optimal solution."""
    return padding_walk(puzzle, scramble, padding, rng) + list(solving.solve(puzzle, scramble).moves)


def padding_walk(puzzle: SlidingPuzzle, scramble: tuple[int, ...], padding: int, rng: random.Random) -> list[str]:
    """``padding`` random moves from ``scramble`` (never undoing the last), then the same undone: back at it."""
    walk: list[str] = []
    state = scramble
    for _ in range(padding):
        move = rng.choice([m for m in puzzle.moves(state) if not walk or m != UNDO[walk[-1]]])
        walk.append(move)
        state = puzzle.apply(state, move)
    return walk + [UNDO[m] for m in reversed(walk)]


def run_racer(plan: RacerPlan, reports: Any) -> None:
    """One racer's process (see the module's docstring); puts its :class:`RacerReport` on ``reports``."""
    report = RacerReport(plan.player, pid=os.getpid())
    try:
        _race(plan, report)
    except Exception as problem:  # told to the parent, which fails the run with it, rather than waiting
        report.error = f"{type(problem).__name__}: {problem}"
    reports.put(report)


def _race(plan: RacerPlan, report: RacerReport) -> None:
    def connect():
        return connect_store(plan.url, plan.player)

    store = connect()
    room = store.join_code(plan.player, plan.player, plan.code)
    store.close()
    report.room = room.room
    snapshots: queue.Queue[Room] = queue.Queue()
    seen: dict[str, int] = {}

    def on_room(snapshot: Room) -> None:
        now = time.time()
        if snapshot.reveal_at is not None:
            for racer in snapshot.racers:
                if racer.player != plan.player:
                    for k in range(seen.get(racer.player, 0), racer.stm):
                        report.latencies.append(now - (snapshot.reveal_at + racer.times_ms[k] / 1000))
                    seen[racer.player] = racer.stm
        snapshots.put(snapshot)

    link = RaceLink(connect, room, plan.player, on_room, report.troubles.append)
    link.start()
    try:
        latest = _wait(snapshots, room, lambda r: r.reveal_at is not None or (plan.host and len(r.racers) >= plan.racers))
        if latest.reveal_at is None:
            link.ask_start()
            latest = _wait(snapshots, latest, lambda r: r.reveal_at is not None)
        report.learned = time.time()
        assert latest.reveal_at is not None and latest.scramble is not None
        report.reveal_at = reveal_at = latest.reveal_at
        walk = padding_walk(latest.puzzle, latest.scramble, plan.padding, random.Random(plan.seed))
        time.sleep(max(0.0, reveal_at - time.time()))
        report.revealed = time.time()
        cpu_before = time.process_time()
        # a human's first move comes a reaction after the reveal (tui.game.plausibility marks a race begun sooner)
        _type(link, walk, reveal_at, reveal_at + REACTION_SECONDS, plan.tps, finish=False)
        solution = list(solving.solve(latest.puzzle, latest.scramble).moves)  # back at the scramble: now solve it
        _type(link, solution, reveal_at, time.time(), plan.tps, finish=True)
        done = _wait(snapshots, latest, lambda r: r.phase is RacePhase.DONE)
        report.cpu_share = (time.process_time() - cpu_before) / max(1e-9, time.time() - report.revealed)
        report.results = [(p.racer.player, p.place, p.racer.finished_ms, p.racer.dnf, p.racer.moves) for p in done.results()]
    finally:
        link.stop()
        link.join(DEADLINE_SECONDS)


def _type(link: RaceLink, moves: list[str], reveal_at: float, start: float, tps: float, *, finish: bool) -> None:
    """Send ``moves`` one at a time, the k-th at ``start + k / tps`` (each timed in ms since the reveal); with
    ``finish``, the last one (or, with none, the moment they are typed) is the finish."""
    for k, move in enumerate(moves):
        time.sleep(max(0.0, start + (k + 1) / tps - time.time()))
        ms = round((time.time() - reveal_at) * 1000)
        link.send(move, [ms], finished_ms=ms if finish and k == len(moves) - 1 else None)
    if finish and not moves:
        link.send("", [], finished_ms=round((time.time() - reveal_at) * 1000))


def _wait(snapshots: queue.Queue[Room], latest: Room, wanted: Callable[[Room], bool]) -> Room:
    deadline = time.monotonic() + DEADLINE_SECONDS
    while not wanted(latest):
        latest = snapshots.get(timeout=max(0.01, deadline - time.monotonic()))
    return latest


@dataclass
class RaceRun:
    reports: list[RacerReport]
    stored: list[Room]
    seconds: float


def run_races(url: str, rooms: int = 1, racers: int = 8, tps: float = 10.0, padding: int = 90, *,
              processes: int | None = None, width: int = 3, height: int = 3) -> RaceRun:
    """``rooms`` private rooms of ``racers`` racers each race on the store at ``url`` (see the module's docstring):
    each racer in a process of its own, or (``processes``) that many processes running racers in threads, a room's
    racers spread over them."""
    store = connect_store(url, "racer-0-0")
    plans = []
    for r in range(rooms):
        host = f"racer-{r}-0"
        code = store.create_private(host, host, width, height).code
        assert code is not None
        plans += [RacerPlan(url, f"racer-{r}-{k}", code, tps, padding, host=k == 0, racers=racers, seed=r * 100 + k)
                  for k in range(racers)]
    groups = [plans[k::processes] for k in range(processes)] if processes else [[plan] for plan in plans]
    context = multiprocessing.get_context("spawn")
    reports: Any = context.Queue()
    began = time.monotonic()
    running = [context.Process(target=run_racers, args=(group, reports), daemon=True) for group in groups]
    for process in running:
        process.start()
    try:
        got = [reports.get(timeout=DEADLINE_SECONDS * 3) for _ in plans]
    finally:
        for process in running:
            process.join(DEADLINE_SECONDS)
            if process.is_alive():
                process.kill()
    stored = [room for room_id in sorted({r.room for r in got if r.room}) if (room := store.read_room(room_id))]
    store.close()
    return RaceRun(sorted(got, key=lambda r: r.player), stored, time.monotonic() - began)


def run_racers(plans: list[RacerPlan], reports: Any) -> None:
    """A process's racers, each on a thread of its own (one process per racer when there is one)."""
    threads = [threading.Thread(target=run_racer, args=(plan, reports)) for plan in plans]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def _results(room: Room) -> list[tuple]:
    return [(p.racer.player, p.place, p.racer.finished_ms, p.racer.dnf, p.racer.moves) for p in room.results()]


def figures(run: RaceRun) -> dict[str, Any]:
    """The bench's figures of a run (a failed racer is named in ``race_errors``)."""
    errors = [f"{r.player}: {r.error}" for r in run.reports if r.error]
    latencies = [s for r in run.reports for s in r.latencies]
    by_room: dict[str, list[RacerReport]] = {}
    for report in run.reports:
        by_room.setdefault(report.room, []).append(report)
    sent = sum(len(racer.moves) * (len(room.racers) - 1) for room in run.stored for racer in room.racers)
    identical = len(run.stored) == len(by_room) and all(
        room.phase is RacePhase.DONE and all(r.results == _results(room) for r in by_room[room.room]) for room in run.stored)
    out: dict[str, Any] = {
        "race_rooms": len(by_room), "race_racers": len(run.reports), "race_opponent_moves_seen": len(latencies),
        "race_opponent_moves_sent": sent, "race_results_identical": identical, "race_seconds": round(run.seconds, 1)}
    if latencies:
        out |= {"race_opponent_latency_p50_ms": round(1000 * statistics.median(latencies), 1),
                "race_opponent_latency_p95_ms": round(1000 * percentile(latencies, 0.95), 1),
                "race_opponent_latency_max_ms": round(1000 * max(latencies), 1)}
    spreads = [max(r.revealed for r in group) - min(r.revealed for r in group)
               for group in by_room.values() if all(r.revealed for r in group)]
    revealed = [r for r in run.reports if r.revealed]
    if spreads:
        out |= {"race_reveal_spread_ms": round(1000 * max(spreads), 2),
                "race_reveal_late_max_ms": round(1000 * max(r.revealed - r.reveal_at for r in revealed), 2),
                "race_reveal_known_ahead_min_ms": round(1000 * min(r.reveal_at - r.learned for r in revealed), 1)}
    shares = {r.pid: r.cpu_share for r in run.reports if r.cpu_share}  # a process's share, whichever racer measured it
    if shares:
        out |= {"race_processes": len(shares), "race_cpu_percent_per_process_median": round(100 * statistics.median(
            shares.values()), 2), "race_cpu_percent_total": round(100 * sum(shares.values()), 1)}
    if errors:
        out["race_errors"] = errors[:5]
    troubles = [t for r in run.reports for t in r.troubles]
    if troubles:
        out["race_troubles"] = troubles[:5]
    return out


def bench_race(rooms: int = 1, racers: int = 8, tps: float = 10.0, padding: int = 90,
               processes: int | None = None) -> dict[str, Any]:
    """A ``koma bench race`` case: ``rooms`` rooms of ``racers`` racers on a fresh SQLite store (on the database of
    ``$KOMA_BENCH_RACE_URL`` if set: a PostgreSQL one, directly or through PgBouncer), each playing ``tps`` tiles a
    second (see :func:`run_races` for ``processes``)."""
    url = os.environ.get(URL_VARIABLE)
    with tempfile.TemporaryDirectory(prefix="koma-bench-race-") as folder:
        where = url or f"sqlite:///{Path(folder) / 'koma.db'}"
        result = figures(run_races(where, rooms, racers, tps, padding, processes=processes))
        return {"race_database": redacted(url) if url else "sqlite", "race_tiles_per_second": tps, **result}
