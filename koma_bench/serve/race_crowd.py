"""``koma bench serve-race-crowd``: rooms of racers on one ``koma serve``, every racer a real player of it.

Default: 25 private rooms of 4 racers on the 4x4 (100 players) typing 3 tiles a second;
``$KOMA_BENCH_RACE_CROWD`` (``ROOMSxRACERS@TPS``, e.g. ``3x4@3``) sets another crowd.  Each room runs as
tests/serve/test_race_e2e.py runs one:

- the players arrive :data:`ARRIVALS_PER_SECOND` (each room's host first), reach the home screen and open Race (``x``);
- the host makes a private room of 4x4 (``c``) and reads its code off its screen; the others join by it (``j``,
  the code, enter); once every room is full, every host starts its room (``s``): the rooms race at once;
- each racer reads ``ID ...`` off its own screen after the reveal, has the bench solve that board (Koma's
  solver on a thread, each distinct scramble once) and types the solution as arrow keys at the set pace;
- it waits for its result (``You finished 2nd of 4.``) and the results table, and reads every racer's place, time
  (to the ms), STM and MTM off it.

Beside the crowd, :data:`SOLO_ROOMS` rooms of one racer race at the same time (2 more players): what a racing
game costs without opponents, in the same run.  The opponents' boards (minis) are redrawn at most 20 times a second
in all (``tui.screens.race_views.MINIS_PER_SECOND``); their cost is the crowd's CPU per move over the solo rooms'.

Checked: every racer finished (no DNF); the ID each racer saw names its room's scramble; each racer's own place and
every row of its results table are the store's (read by room, as the e2e test reads it); each racer's stored moves
are the keys it typed, and replay from the scramble to the goal with times that never go back.  A room where all
this holds is a completed race.

Measured: the wall time (all of it, and the race window, first reveal seen to last results seen); the games' CPU
(``/proc``: each game's CPU since its fork, and over its own race: that over the keys typed is the CPU of a move,
everything a racing game does included: its link's reads, its clock, its opponents' minis; and a game's CPU a
second on the race screen before the start, waiting for the others: mostly its link's reads); own moves'
key-to-screen (the key's send to the first drawing of its ``STM`` count); the screen stream each racer receives
while racing; the bench client's own CPU (its solver's apart) and the server's; the games' summed PSS at its peak;
and how busy the whole box was (``/proc/stat``: the box is shared, the figures are only as good as it was quiet).

The client stays cheap: it strips escape sequences and searches the text for the few markers it needs (no terminal
emulation), and while a racer types it keeps only the last few KiB of that screen's text.
"""

from __future__ import annotations

import asyncio
import os
import re
import resource
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from koma_bench.serve.scenarios import HOME, BenchServer, Session, percentile
from solver.errors import KomaError
from tui.game.race_rules import MAX_RACERS, RacePhase, Room
from tui.server.procfs import cpu_seconds, memory_mib

SHAPE_VARIABLE = "KOMA_BENCH_RACE_CROWD"
DEFAULT_SHAPE = (25, 4, 3.0)  # rooms, racers per room, tiles a second: issue 35's crowd
ARRIVALS_PER_SECOND = 4.0  # players logging in (spread, so the logins do not all land at once)
LOGINS_AT_ONCE = 8  # and at most this many between connecting and their home screen: a saturated box logs in slowly,
# and koma serve drops the oldest of more than 20 connections not logged in (OpenSSH's MaxStartups)
STEP_SECONDS = 300.0  # any one wait of a player (a login, a screen): the crowd saturates a 2-core box
RACE_SECONDS = 900.0  # from the start to a racer's results
KEEP_CHARS = 4096  # a typing racer's screen text kept (the markers it waits for come after its last key)
STORE_CLOSES_SECONDS = 60.0  # after the last results seen, for the store to say every round is done
MEMORY_EVERY_SECONDS = 5.0
IDLE_RACING_SECONDS = (1.0, 5.0)  # each racer types from the second of these after its reveal; its game's CPU between
# the two (the reveal drawn, nobody in the room typing yet) is what an idle race screen costs
SOLO_ROOMS = 2  # rooms of one racer racing beside the crowd: a racing game's cost without opponents, in the same run
ARROWS = {"U": "\x1b[A", "D": "\x1b[B", "R": "\x1b[C", "L": "\x1b[D"}
CODE = re.compile(r"Room ([A-Z]{5})")
SCRAMBLE_ID = re.compile(r"ID ([0-9x]+-[0-9A-Za-z]+)")
FINISH = re.compile(r"You finished (\d+)(?:st|nd|rd|th) of (\d+)")
RESULT_ROW = re.compile(r"(\d+)\. +(\S+) +(?:(\d+):)?(\d+)\.(\d{3}) +(\d+) +(\d+) ")


def crowd_shape(text: str | None) -> tuple[int, int, float]:
    """``ROOMSxRACERS@TPS`` (``25x4@3``) as (rooms, racers, tiles a second); None or empty: the default."""
    if not text or not text.strip():
        return DEFAULT_SHAPE
    found = re.fullmatch(r"\s*(\d+)\s*x\s*(\d+)\s*@\s*(\d+(?:\.\d+)?)\s*", text)
    if not found:
        raise KomaError(f"${SHAPE_VARIABLE}={text!r}: expected ROOMSxRACERS@TPS, e.g. 25x4@3")
    rooms, racers, tps = int(found.group(1)), int(found.group(2)), float(found.group(3))
    if rooms < 1 or not 1 <= racers <= MAX_RACERS or tps <= 0:
        raise KomaError(f"${SHAPE_VARIABLE}={text!r}: at least 1 room, 1 to {MAX_RACERS} racers, a pace above 0")
    return rooms, racers, tps


def screen_results(text: str) -> dict[str, tuple[int, int, int, int]]:
    """The results table's rows found in a screen's text: name -> (place, time in ms, STM, MTM); the last row
    drawn of each name (DNF rows have no place and are not rows here)."""
    rows = {}
    for found in RESULT_ROW.finditer(text):
        place, name, minutes, seconds, thousandths, stm, mtm = found.groups()
        ms = (int(minutes or 0) * 60 + int(seconds)) * 1000 + int(thousandths)
        rows[name] = (int(place), ms, int(stm), int(mtm))
    return rows


def stored_results(room: Room) -> dict[str, tuple[int, int, int, int]]:
    """The same rows as the store has them (finishers only)."""
    return {p.racer.name: (p.place, p.racer.finished_ms, p.racer.stm, p.racer.mtm) for p in room.results()
            if p.place is not None and p.racer.finished_ms is not None}


def racer_name(room: int, k: int) -> str:
    """Short (the results table cuts names to fit 80 columns) and unique: room 3's host is ``r3-0``."""
    return f"r{room}-{k}"


@dataclass
class CrowdRacer:
    """What one racer did and saw."""

    user: str
    room: int
    host: bool
    error: str = ""
    login_s: float = float("inf")
    pid: int = 0
    code: str = ""
    scramble_id: str = ""
    revealed: float = 0.0  # perf_counter when its ID showed
    done: float = 0.0  # perf_counter when its results showed
    typed: str = ""  # the moves it typed (the tiles' directions)
    latencies: list[float] = field(default_factory=list)  # key to screen of each own move (inf: never drawn)
    place: int | None = None  # as its screen said it
    rows: dict[str, tuple[int, int, int, int]] = field(default_factory=dict)  # its screen's results table
    race_cpu_s: float = 0.0  # its game's CPU from its reveal to its results
    race_bytes: int = 0  # the screen stream over the same time
    waiting: tuple[float, float] = (0.0, 0.0)  # seconds in its room before the start, and its game's CPU meanwhile
    idle_racing: tuple[float, float] = (0.0, 0.0)  # seconds racing, nobody typing, and its game's CPU meanwhile


class Crowd:
    """The run's shared state: rooms' codes, the start barrier, the solutions, the players' sessions and games."""

    def __init__(self, server: BenchServer, rooms: int, racers: int, tps: float):
        self.server, self.tps = server, tps
        self.sizes = [racers] * rooms + [1] * SOLO_ROOMS  # each room's racers: the crowd's, then the solo rooms
        self.rooms = len(self.sizes)
        loop = asyncio.get_running_loop()
        self.codes: list[asyncio.Future[str]] = [loop.create_future() for _ in self.sizes]
        self.started: list[asyncio.Future[None]] = [loop.create_future() for _ in self.sizes]  # its host pressed s
        self.ready: set[int] = set()  # rooms whose host saw them full (or gave up)
        self.all_ready = asyncio.Event()
        self.solutions: dict[str, asyncio.Task[tuple[str, ...]]] = {}
        self.solver_cpu_s = 0.0
        self.sessions: list[Session] = []
        self.pids: list[int] = []
        self.memory_peak_mib = 0.0
        self.logins = asyncio.Semaphore(LOGINS_AT_ONCE)

    def room_ready(self, room: int) -> None:
        self.ready.add(room)
        if len(self.ready) == self.rooms:
            self.all_ready.set()

    def solution(self, scramble_id: str) -> asyncio.Task[tuple[str, ...]]:
        """Koma's solution of the board ``scramble_id`` names, searched once for all who ask."""
        if scramble_id not in self.solutions:
            self.solutions[scramble_id] = asyncio.ensure_future(asyncio.to_thread(self._solve, scramble_id))
        return self.solutions[scramble_id]

    def _solve(self, scramble_id: str) -> tuple[str, ...]:
        from solver.ids import parse_game_id
        from solver.solving import solve

        began = time.thread_time()
        puzzle, state = parse_game_id(scramble_id)
        moves = solve(puzzle, state).moves
        if puzzle.replay(state, moves)[-1] != puzzle.goal:
            raise RuntimeError(f"the solver's moves do not solve {scramble_id}")
        self.solver_cpu_s += time.thread_time() - began
        return tuple(moves)

    async def watch_memory(self) -> None:
        """The games' summed PSS (with the server's and its warm process's), every few seconds; its peak kept."""
        while True:
            pids = [self.server.process.pid, self.server.warm_pid() or 0, *self.pids]
            total = await asyncio.to_thread(summed_pss, pids)
            self.memory_peak_mib = max(self.memory_peak_mib, total)
            await asyncio.sleep(MEMORY_EVERY_SECONDS)


def summed_pss(pids: list[int]) -> float:
    return sum(memory_mib(pid).get("pss", 0.0) for pid in pids if pid)


async def race_one(crowd: Crowd, racer: CrowdRacer, session: Session) -> None:
    """One racer's whole way (see the module's docstring), filling in ``racer``."""
    server = crowd.server
    async with crowd.logins:
        began = time.perf_counter()
        await session.connect(server.port)
        await session.wait_for(HOME, 0, STEP_SECONDS)
        racer.login_s = time.perf_counter() - began
    racer.pid = await server.game_pid(racer.user, STEP_SECONDS)
    crowd.pids.append(racer.pid)
    mark = len(session.text)
    session.key("x")
    await session.wait_for("join a room by its code", mark, STEP_SECONDS)
    mark = len(session.text)
    if racer.host:
        session.key("c")
        racer.code = (await session.wait_for(CODE.pattern, mark, STEP_SECONDS)).group(1)
        crowd.codes[racer.room].set_result(racer.code)
        in_room, cpu_in_room = time.perf_counter(), cpu_seconds(racer.pid)
        await session.wait_for(rf"\b{crowd.sizes[racer.room]} racers?\b", mark, STEP_SECONDS)
        crowd.room_ready(racer.room)
        await asyncio.wait_for(crowd.all_ready.wait(), STEP_SECONDS * 2)
        racer.waiting = (time.perf_counter() - in_room, cpu_seconds(racer.pid) - cpu_in_room)
        mark = len(session.text)
        session.key("s")
        crowd.started[racer.room].set_result(None)
    else:
        racer.code = await asyncio.wait_for(asyncio.shield(crowd.codes[racer.room]), STEP_SECONDS * 2)
        session.key("j")
        await session.wait_for("Type the room's code", mark, STEP_SECONDS)
        session.key(racer.code + "\r")
        await session.wait_for(rf"Room {racer.code}", mark, STEP_SECONDS)
        mark = len(session.text)
        in_room, cpu_in_room = time.perf_counter(), cpu_seconds(racer.pid)
        await asyncio.wait_for(asyncio.shield(crowd.started[racer.room]), STEP_SECONDS * 3)
        racer.waiting = (time.perf_counter() - in_room, cpu_seconds(racer.pid) - cpu_in_room)
    racer.scramble_id = (await session.wait_for(SCRAMBLE_ID.pattern, mark, RACE_SECONDS)).group(1)
    racer.revealed = time.perf_counter()
    cpu_before, bytes_before = cpu_seconds(racer.pid), session.received
    idle_from, idle_until = (racer.revealed + seconds for seconds in IDLE_RACING_SECONDS)
    await asyncio.sleep(max(0.0, idle_from - time.perf_counter()))
    idle_began, idle_cpu = time.perf_counter(), cpu_seconds(racer.pid)
    moves = await crowd.solution(racer.scramble_id)
    await asyncio.sleep(max(0.0, idle_until - time.perf_counter()))
    racer.idle_racing = (time.perf_counter() - idle_began, cpu_seconds(racer.pid) - idle_cpu)
    session.keep_chars = KEEP_CHARS
    start, sent = time.perf_counter(), []
    for k, move in enumerate(moves):
        await asyncio.sleep(max(0.0, start + k / crowd.tps - time.perf_counter()))
        if k == len(moves) - 1:  # what it waits for comes after its last key: from here the text is kept whole
            session.keep_chars = 0
            mark = len(session.text)
        sent.append(time.perf_counter())
        session.key(ARROWS[move])
        racer.typed += move
    found = await session.wait_for(FINISH.pattern, mark, RACE_SECONDS)
    racer.place = int(found.group(1))

    def whole_table() -> dict[str, tuple[int, int, int, int]]:
        rows = screen_results(session.text[mark:])
        return rows if len(rows) >= crowd.sizes[racer.room] else {}

    racer.rows = await session.wait_until(whole_table, STEP_SECONDS, "the whole results table")
    racer.done = time.perf_counter()
    racer.race_cpu_s = cpu_seconds(racer.pid) - cpu_before
    racer.race_bytes = session.received - bytes_before
    racer.latencies = [session.drawn_at(k + 1) - at for k, at in enumerate(sent)]


async def racer_task(crowd: Crowd, room: int, k: int, arrive_at: float) -> CrowdRacer:
    racer = CrowdRacer(racer_name(room, k), room, host=k == 0)
    await asyncio.sleep(arrive_at)
    session = crowd.server.session(racer.user)
    crowd.sessions.append(session)
    try:
        await race_one(crowd, racer, session)
    except Exception as problem:
        racer.error = f"{racer.user}: {type(problem).__name__}: {problem}"[:200]
    finally:
        if racer.host:
            crowd.room_ready(racer.room)  # a host that failed does not hold the others' start
            for news, what in ((crowd.codes, "made no room"), (crowd.started, "never started its room")):
                if not news[racer.room].done():  # the others are not left waiting
                    news[racer.room].set_exception(RuntimeError(f"its host {what}"))
                    news[racer.room].exception()  # retrieved: a room of one has no one else waiting
    return racer


def check_room(stored: Room | None, racers: list[CrowdRacer], size: int) -> list[str]:
    """What is wrong with one room's race (nothing: a completed race whose screens agree with the store)."""
    if stored is None:
        return ["the store has no such room"]
    problems = []
    if stored.phase is not RacePhase.DONE:
        problems.append(f"phase {stored.phase.value}, not done")
    if len(stored.racers) != size:
        problems.append(f"{len(stored.racers)} racers stored, not {size}")
    expected = stored_results(stored)
    for racer in stored.racers:
        if not racer.finished or racer.dnf:
            problems.append(f"{racer.name} did not finish")
        if stored.scramble is None or not stored.puzzle.is_goal(racer.state(stored.puzzle, stored.scramble)):
            problems.append(f"{racer.name}'s stored moves do not solve the scramble")
        if list(racer.times_ms) != sorted(racer.times_ms) or (racer.times_ms and racer.times_ms[0] < 0):
            problems.append(f"{racer.name}'s stored times go back")
    by_name = {r.name: r for r in stored.racers}
    for seen in racers:
        name = seen.user
        if seen.scramble_id != stored.scramble_id:
            problems.append(f"{name} saw ID {seen.scramble_id}, the store has {stored.scramble_id}")
        mine = by_name.get(name)
        if mine is None:
            problems.append(f"{name} is not stored in its room")
            continue
        if mine.moves != seen.typed:
            problems.append(f"{name}'s stored moves are not the {len(seen.typed)} it typed ({mine.stm} stored)")
        if seen.place != stored.place_of(mine.player):
            problems.append(f"{name}'s screen said place {seen.place}, the store {stored.place_of(mine.player)}")
        if seen.rows != expected:
            problems.append(f"{name}'s results table {seen.rows} is not the store's {expected}")
    return problems


def box_cpu_ticks() -> tuple[int, int]:
    """The box's busy and total CPU ticks so far (``/proc/stat``)."""
    with open("/proc/stat") as handle:
        values = [int(v) for v in handle.readline().split()[1:]]
    idle = values[3] + (values[4] if len(values) > 4 else 0)
    return sum(values) - idle, sum(values)


async def race_crowd(server: BenchServer, rooms: int | None = None, racers: int | None = None,
                     tps: float | None = None) -> dict[str, Any]:
    """The scenario (see the module's docstring); the shape from the arguments, else ``$KOMA_BENCH_RACE_CROWD``."""
    shape = crowd_shape(os.environ.get(SHAPE_VARIABLE))
    rooms, racers, tps = rooms or shape[0], racers or shape[1], tps or shape[2]
    from solver.sliding.model import SlidingPuzzle
    from solver.solving import warm

    warmed = time.process_time()
    await asyncio.to_thread(warm, SlidingPuzzle(4, 4))  # the solver's tables and kernels, before anyone arrives
    warm_cpu = time.process_time() - warmed
    crowd = Crowd(server, rooms, racers, tps)
    busy_before, total_before = box_cpu_ticks()
    client_before, began = time.process_time(), time.perf_counter()
    memory = asyncio.create_task(crowd.watch_memory())
    order = [(room, k) for room, size in enumerate(crowd.sizes) for k in range(size)]
    try:
        done = await asyncio.gather(*(racer_task(crowd, room, k, n / ARRIVALS_PER_SECOND)
                                      for n, (room, k) in enumerate(order)))
        wall = time.perf_counter() - began
        client_cpu = time.process_time() - client_before - crowd.solver_cpu_s
        busy, total = box_cpu_ticks()
        games_cpu = sum(cpu_seconds(pid) for pid in crowd.pids)
        database = str(server.data / "koma.db")
        codes = {r.room: r.code for r in done if r.host and r.code}
        store_rooms = await asyncio.to_thread(read_rooms, database, codes)
        closing = time.monotonic() + STORE_CLOSES_SECONDS  # a racer's link closes the round on its next turn
        while any(room.phase is not RacePhase.DONE for room in store_rooms.values()) and time.monotonic() < closing:
            await asyncio.sleep(0.5)
            store_rooms = await asyncio.to_thread(read_rooms, database, codes)
    finally:
        memory.cancel()
        await asyncio.gather(*(session.close() for session in crowd.sessions), return_exceptions=True)

    problems: dict[int, list[str]] = {}
    for room, size in enumerate(crowd.sizes):
        members = [r for r in done if r.room == room]
        failed = [r.error for r in members if r.error]
        problems[room] = failed or check_room(store_rooms.get(room), members, size)
    in_crowd = [r for r in done if r.room < rooms]
    waits = [r.waiting for r in done if r.waiting[0] >= 2.0]  # a game on the race screen before the start: its link's reads
    logins = [r.login_s for r in done if r.login_s != float("inf")]
    spreads = [max(group) - min(group) for room in range(rooms)
               if len(group := [r.revealed for r in in_crowd if r.room == room and r.revealed]) == racers]
    figures: dict[str, Any] = {
        "crowd_rooms": rooms, "crowd_racers_per_room": racers, "crowd_tiles_per_second": tps,
        "crowd_players": len(in_crowd), "races_completed": sum(1 for room in range(rooms) if not problems[room]),
        "racers_finished_as_stored": sum(len(stored_results(store_rooms[room])) for room in range(rooms) if room in store_rooms),
        "solo_races_completed": sum(1 for room in range(rooms, crowd.rooms) if not problems[room]),
        "wall_s": round(wall, 1),
        "login_p50_s": round(statistics.median(logins), 2) if logins else None,
        "login_p95_s": round(percentile(logins, 0.95), 2) if logins else None,
        "reveal_seen_spread_max_ms": round(1000 * max(spreads), 1) if spreads else None,
        "games_cpu_s_total": round(games_cpu, 1),
        "game_cpu_ms_per_s_waiting_in_room": round(1000 * statistics.median(cpu / seconds for seconds, cpu in waits), 1)
        if waits else None,
        "game_cpu_ms_per_s_racing_idle": round(1000 * statistics.median(
            cpu / seconds for seconds, cpu in (r.idle_racing for r in in_crowd) if seconds), 1)
        if any(r.idle_racing[0] for r in in_crowd) else None,
        **racing_figures("", in_crowd), **racing_figures("solo_", [r for r in done if r.room >= rooms]),
        "client_cpu_s": round(client_cpu, 1), "client_solver_cpu_s": round(crowd.solver_cpu_s + warm_cpu, 1),
        "client_max_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "games_pss_peak_mib": round(crowd.memory_peak_mib, 1),
        "box_busy_cores": round((os.cpu_count() or 1) * (busy - busy_before) / max(1, total - total_before), 2)}
    if figures.get("game_cpu_per_move_ms") and figures.get("solo_game_cpu_per_move_ms"):
        figures["opponents_cost_per_move_ratio"] = round(figures["game_cpu_per_move_ms"] / figures["solo_game_cpu_per_move_ms"], 2)
    wrong = [f"room {room}: {problem}" for room, found in problems.items() for problem in found]
    if wrong:
        figures["problems"] = wrong[:8]
        figures["problems_count"] = len(wrong)
    return figures


def racing_figures(prefix: str, racers: list[CrowdRacer]) -> dict[str, Any]:
    """What ``racers`` cost and saw while racing (from each one's reveal to its results), names given ``prefix``."""
    raced = [r for r in racers if r.revealed and r.done]
    if not raced:
        return {}
    latencies = [s for r in raced for s in r.latencies]
    drawn = [s for s in latencies if s != float("inf")]
    moves = sum(len(r.typed) for r in raced)
    cpu = sum(r.race_cpu_s for r in raced)
    seconds = [r.done - r.revealed for r in raced]
    out = {"race_window_s": round(max(r.done for r in raced) - min(r.revealed for r in raced), 1),
           "race_seconds_max": round(max(seconds), 1), "moves_typed": moves,
           "games_cpu_s_racing": round(cpu, 1),
           "game_cpu_per_move_ms": round(1000 * cpu / moves, 1) if moves else None,
           "game_cpu_percent_while_racing": round(100 * cpu / sum(seconds), 1),
           "own_key_to_screen_p50_ms": round(1000 * statistics.median(drawn), 1) if drawn else None,
           "own_key_to_screen_p95_ms": round(1000 * percentile(drawn, 0.95), 1) if drawn else None,
           "own_keys_never_drawn": len(latencies) - len(drawn),
           "screen_kib_per_s_per_racer": round(statistics.median(r.race_bytes / 1024 / s for r, s in zip(raced, seconds)), 1)}
    return {prefix + name: value for name, value in out.items()}


def read_rooms(database: str, codes: dict[int, str]) -> dict[int, Room]:
    """Each room's latest round as the store has it, by the bench's room number."""
    from tui.storage.store_choice import connect_store

    store = connect_store(f"sqlite:///{database}", "user:bench")
    try:
        found = {}
        for room, code in codes.items():
            room_id = store.room_of_code(code, open_only=False)
            stored = store.read_room(room_id) if room_id else None
            if stored is not None:
                found[room] = stored
        return found
    finally:
        store.close()
