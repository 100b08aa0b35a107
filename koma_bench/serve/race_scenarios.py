"""The race scenarios of ``koma bench serve`` (see :mod:`koma_bench.serve.scenarios` for the servers and players they drive).

- **race game**: one SSH racer against opponents that are link processes (:mod:`koma_bench.race_links`): its own
  key-to-screen time against a solo Speed solve's, before the race and beside it;
- **race screens**: SSH racers in one room, on one server or on replicas sharing a database, each reading its
  opponents' move counts and the reveal off its own screen (:class:`~koma_bench.serve.scenarios.ScreenGrid`).

This module imports neither asyncssh nor aiohttp.
"""

from __future__ import annotations

import asyncio
import re
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

from koma_bench.serve.race_crowd import race_crowd
from koma_bench.serve.scenarios import (
    CONNECT_SECONDS,
    LEFT,
    RIGHT,
    BenchServer,
    ScreenGrid,
    Session,
    first_move,
    open_game,
    open_private_room,
    percentile,
    play_moves,
    speed_game,
)
from tui.server.procfs import cpu_seconds

BESIDE_BLOCK = 10  # the race game's keys alternate between the racer and a solo player beside it, this many each


async def race_game(server: BenchServer, opponents: int = 7, tps: float = 10.0, moves: int = 90) -> dict[str, Any]:
    """A race against ``opponents`` racers typing ``tps`` tiles a second, beside a solo speed solve in the same run.

    First the solo baseline (:func:`speed_game` at ``tps``); then the SSH player opens Race (``x``), makes a private
    room (``c``), and the opponents join it by its code (each a process with its own store connection and race link,
    as a player's game has: :mod:`koma_bench.race_links`) and play a real solution of the scramble at ``tps``; the
    player starts the race (``s``) and types ``moves`` sideways keys at ``tps`` while the opponents' boards move
    beside its own.  The figure that matters is the ratio of the player's own key-to-screen p95 in the race to the
    solo one; the opponents' figures (what each saw of the others) come with it.

    The solo solve before the race meets another load of the shared box than the race does a minute later, so a
    second solo player keeps a Speed solve open through the race, and its keys alternate with the racer's in
    blocks of :data:`BESIDE_BLOCK`: ``race_over_solo_beside_p95`` compares the two under the same load (the
    opponents' processes included), which is what the race screen's own cost is."""
    import multiprocessing

    from koma_bench.race_links import RacerPlan, RacerReport, run_racers

    solo = await speed_game(server, moves, tps)
    beside, _, beside_pid = await open_game(server, "bench-beside")
    mark = len(beside.text)
    beside.key("s")
    await beside.wait_for(r"STM 0\b", mark)
    session, _, pid = await open_game(server, "bench-racer")
    code = await open_private_room(session)
    mark = len(session.text)  # the racers' count is drawn again as the opponents join
    url = f"sqlite:///{server.data / 'koma.db'}"
    context = multiprocessing.get_context("spawn")
    reports: Any = context.Queue()
    # the opponents walk out and back (their race outlasts the keys measured, those of the solo beside included)
    plans = [RacerPlan(url, f"bench-opponent-{k}", code, tps, padding=2 * moves, seed=k) for k in range(opponents)]
    racers = [context.Process(target=run_racers, args=([plan], reports), daemon=True) for plan in plans]
    for racer in racers:
        racer.start()
    try:
        await session.wait_for(rf"{opponents + 1} racers", mark, CONNECT_SECONDS)
        mark = len(session.text)
        session.key("s")
        await session.wait_for(r"ID \S+", mark, CONNECT_SECONDS)
        back, beside_back = await first_move(session), await first_move(beside)
        latencies: list[float] = []
        beside_latencies: list[float] = []
        cpu = beside_cpu = 0.0
        for _ in range(0, moves, BESIDE_BLOCK):  # even blocks: each starts with the same key
            before = cpu_seconds(pid)
            latencies += await play_moves(session, BESIDE_BLOCK, 1 / tps, back)
            cpu += cpu_seconds(pid) - before
            before = cpu_seconds(beside_pid)
            beside_latencies += await play_moves(beside, BESIDE_BLOCK, 1 / tps, beside_back)
            beside_cpu += cpu_seconds(beside_pid) - before
        moves = len(latencies)
        mark = len(session.text)
        session.key("\x1b")  # leave the race (a DNF, after the confirm): the round ends when the opponents finish
        await session.wait_for("DNF", mark)
        session.key("y")
        got: list[RacerReport] = [await asyncio.to_thread(reports.get, True, 300) for _ in plans]
    finally:
        for racer in racers:
            racer.join(10)
            if racer.is_alive():
                racer.kill()
    seen = [s for report in got for s in report.latencies]
    race_p95 = 1000 * percentile(latencies, 0.95)
    beside_p95 = 1000 * percentile(beside_latencies, 0.95)
    figures = {"solo_key_to_screen_p95_ms": solo["speed_key_to_screen_p95_ms"],
               "race_key_to_screen_median_ms": round(1000 * statistics.median(latencies), 1),
               "race_key_to_screen_p95_ms": round(race_p95, 1),
               "race_over_solo_p95": round(race_p95 / solo["speed_key_to_screen_p95_ms"], 2),
               "race_move_cpu_ms": round(1000 * cpu / moves, 2), "solo_move_cpu_ms": solo["speed_move_cpu_ms"],
               "solo_beside_key_to_screen_p95_ms": round(beside_p95, 1),
               "race_over_solo_beside_p95": round(race_p95 / beside_p95, 2),
               "solo_beside_move_cpu_ms": round(1000 * beside_cpu / len(beside_latencies), 2),
               "race_opponents": opponents, "race_tiles_per_second": tps,
               "race_opponent_errors": [r.error for r in got if r.error][:3]}
    if seen:
        figures["race_opponents_saw_moves_p95_ms"] = round(1000 * percentile(seen, 0.95), 1)
    shares = [r.cpu_share for r in got if r.cpu_share]
    if shares:  # an opponent's process over its race: its link's reads and writes, its sends, its one solve
        figures["race_opponent_cpu_percent_median"] = round(100 * statistics.median(shares), 1)
    await session.close()
    await beside.close()
    return figures


# a mini's moves and time: "84 12s 6.8" (running: whole seconds, "84 1:02 6.8" past a minute), "84 12.3s 6.8" (stopped)
MINI_FIGURES = re.compile(r"(\d+) (?:\d+:\d\d(?:\.\d)?|\d+(?:\.\d)?s) ")
REVEALED = re.compile(r"ID [\w-]{4}")  # the race screen's title once the scramble shows


class MiniReader:
    """Reads the opponents' move counts off one racer's screen (:class:`ScreenGrid`): each opponent's mini has its
    name, then its figures (``moves time TPS``) below it (a board's caption) or after its bar on the same line (one
    line per racer); ``seen[name][n]`` is when the screen first showed ``n`` or more of that opponent's moves."""

    def __init__(self, names: list[str]):
        self.names = re.compile(r"(?<![\w-])(" + "|".join(re.escape(name) for name in names) + r")(?![\w-])")
        self.shown: dict[str, int] = dict.fromkeys(names, 0)
        self.seen: dict[str, dict[int, float]] = {name: {} for name in names}
        self.revealed: float | None = None

    def read(self, grid: ScreenGrid, now: float) -> None:
        """The screen as it is ``now``."""
        lines = grid.lines()
        if self.revealed is None and REVEALED.search(lines[1] + lines[0]):
            self.revealed = now
        for y, line in enumerate(lines):
            for found in self.names.finditer(line):
                name = found.group(1)
                below = lines[y + 1][found.start():] if y + 1 < len(lines) else ""
                figures = MINI_FIGURES.match(below) or MINI_FIGURES.search(line, found.end())
                if figures is None:
                    continue
                count = int(figures.group(1))
                if count > self.shown[name]:
                    for n in range(self.shown[name] + 1, count + 1):
                        self.seen[name].setdefault(n, now)
                    self.shown[name] = count


async def race_screens(servers: list[BenchServer], racers: int = 8, tps: float = 10.0, moves: int = 80) -> dict[str, Any]:
    """``racers`` SSH players race one private room (spread over ``servers``: replicas sharing a database), each
    typing ``moves`` sideways keys at ``tps``, each reading its screen (:class:`MiniReader`): when an opponent's move
    count in its mini first shows each move, against when that opponent's key was sent (one clock: the bench's), and
    when the scramble shows (``ID``) on each screen after the host's start."""
    client_cpu = time.process_time()  # the bench's own CPU (its clients read 8 screens on the box measured)
    names = [f"racer{k}" for k in range(racers)]
    readers = {name: MiniReader([other for other in names if other != name]) for name in names}
    sessions: list[Session] = []
    try:
        for k, name in enumerate(names):
            session, _, _ = await open_game(servers[k % len(servers)], name)
            session.watch_screen(readers[name].read)
            sessions.append(session)
        host, guests = sessions[0], sessions[1:]
        code = await open_private_room(host)
        mark = len(host.text)  # the racers' count is drawn again as the guests join

        async def join(session: Session) -> None:
            mark = len(session.text)
            session.key("x")
            await session.wait_for("join by code", mark)
            session.key("j")
            await asyncio.sleep(0.3)  # the code's field takes focus
            session.key(code + "\r")
            await session.wait_for(rf"Room {code}", mark)

        await asyncio.gather(*(join(session) for session in guests))
        await host.wait_for(rf"{racers} racers", mark, CONNECT_SECONDS)
        host.key("s")
        await asyncio.gather(*(session.wait_for(r"ID [\w-]{4}", 0, CONNECT_SECONDS) for session in sessions))
        backs = await asyncio.gather(*(first_move(session) for session in sessions))
        sent: dict[str, list[float]] = {}

        async def type_keys(session: Session, back: str) -> None:
            await asyncio.sleep(0.5)
            start = session.moves()  # 1: the first move's time is not known to the ms (it was found by trying)
            key, other = back, LEFT if back == RIGHT else RIGHT
            times = sent.setdefault(session.user, [float("nan")] * (start + 1))
            began = time.perf_counter()
            for k in range(moves):
                await asyncio.sleep(max(0.0, began + k / tps - time.perf_counter()))
                times.append(time.perf_counter())
                session.key(key)
                key, other = other, key

        await asyncio.gather(*(type_keys(session, back) for session, back in zip(sessions, backs, strict=True)))
        await asyncio.sleep(2.0)  # the last moves reach the screens
        own = [session.drawn_at(n) - at for session in sessions for n, at in enumerate(sent[session.user]) if n >= 2]
        latencies, missing = [], 0
        for reader in readers.values():
            for opponent, seen in reader.seen.items():
                for n, at in enumerate(sent[opponent]):
                    if n < 2:
                        continue
                    if n in seen:
                        latencies.append(seen[n] - at)
                    else:
                        missing += 1
        reveals = [reader.revealed for reader in readers.values() if reader.revealed is not None]
        for session in sessions:  # leave (a DNF, after the confirm)
            session.key("\x1b")
        await asyncio.sleep(0.5)
        for session in sessions:
            session.key("y")
        await asyncio.sleep(0.5)
    finally:
        await asyncio.gather(*(session.close() for session in sessions), return_exceptions=True)
    figures: dict[str, Any] = {
        "race_racers": racers, "race_replicas": len(servers), "race_tiles_per_second": tps,
        "race_opponent_moves_on_screen": len(latencies), "race_opponent_moves_never_shown": missing,
        "race_screens_revealed": len(reveals), "bench_client_cpu_s": round(time.process_time() - client_cpu, 2)}
    if latencies:
        figures |= {"race_opponent_move_to_screen_median_ms": round(1000 * statistics.median(latencies), 1),
                    "race_opponent_move_to_screen_p95_ms": round(1000 * percentile(latencies, 0.95), 1),
                    "race_opponent_move_to_screen_max_ms": round(1000 * max(latencies), 1)}
    if reveals:
        figures["race_reveal_spread_on_screens_ms"] = round(1000 * (max(reveals) - min(reveals)), 1)
    own = [latency for latency in own if latency != float("inf")]
    if own:
        figures["race_own_key_to_screen_p95_ms"] = round(1000 * percentile(own, 0.95), 1)
    return figures


def run_with_replicas(options: tuple[str, ...], replicas: int,
                      scenario: Callable[[list[BenchServer]], Awaitable[dict[str, Any]]],
                      kind: type[BenchServer]) -> dict[str, Any]:
    """Like :func:`run_with_server`, with ``replicas`` servers started with the same ``options`` (``--database``:
    replicas sharing it)."""
    async def main() -> dict[str, Any]:
        servers = [kind(*options) for _ in range(replicas)]
        try:
            for server in servers:
                await server.started()
                await server.wait_for_log(r"warm process ready", 180)
            return await scenario(servers)
        finally:
            for server in servers:
                server.stop()

    return asyncio.run(main())


RACE_SCENARIOS: dict[str, Callable[[BenchServer], Awaitable[dict[str, Any]]]] = {
    "race game": race_game, "race screens": lambda server: race_screens([server]), "race crowd": race_crowd}
