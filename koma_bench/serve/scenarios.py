"""The server benchmarks' scenarios, whichever front end they drive: a private server and its players.

Each case starts a server (``koma serve --open``: :mod:`koma_bench.serve.ssh`; ``koma web --open``:
:mod:`koma_bench.serve.web`) on 127.0.0.1 (port 0) with a temporary data dir and ``TEXTUAL_ANIMATIONS=none``,
and drives players on an ``xterm-256color`` terminal of 80x24 (SSH clients, or browsers as aiohttp plays them).
Per-game figures come from ``/proc``: CPU is the game process's CPU-time clock (to the nanosecond;
``/proc/PID/stat``'s 10 ms ticks where the kernel refuses) plus its children's, memory is its PSS
(``/proc/PID/smaps_rollup``).  A figure is read off the
screen stream: the client strips the escape sequences and waits for the text (``8-puzzle`` for the
home screen, ``Moves N`` after a move).  Every wait has a deadline; a session that misses one is
counted as not served.  The groups run only when named (they are long); the crowd of 200 needs
``--full``.  This module imports neither asyncssh nor aiohttp.
"""

from __future__ import annotations

import asyncio
import codecs
import collections
import itertools
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from koma_bench.harness import running_checkout
from tui.server.procfs import cpu_seconds, memory_mib

HOME = "8-puzzle"
ESCAPES = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|[@-Z\\-_=>])")
INCOMPLETE_ESCAPE = re.compile(r"\x1b(\[[0-?]*[ -/]*|\][^\x07]*|[()])?$")
MOVES = re.compile(r"(?:Moves|STM) (\d+)")  # the play screen's move count, or the Speed screen's tiles moved
LINE_BREAKS = re.compile(r"(\r|\n)")
CURSOR_TO = re.compile(r"\x1b\[(\d*)(?:;(\d*))?H")  # an absolute cursor move (CUP): how Textual places what it redraws
CONNECT_SECONDS = 120.0  # generous: a cold start on a loaded 2-core box
SCREEN_SECONDS = 60.0


def percentile(values: list[float], fraction: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


# --- a private server ----------------------------------------------------------------------------------

class BenchServer:
    """A server (``ARGUMENTS``, from a front end's subclass) on 127.0.0.1:0 with a temporary data dir; the log says
    each game's pid."""

    ARGUMENTS: tuple[str, ...] = ()
    LISTENING = ""

    def __init__(self, *options: str, checkout: str | None = None, data_dir: Path | None = None):
        """``checkout``: the directory of another checkout whose code to serve (``koma bench --against``);
        ``data_dir``: the data dir to serve from (default: one in a temporary folder, removed with it)."""
        self.folder = tempfile.TemporaryDirectory(prefix="koma-bench-serve-")
        self.data = data = data_dir or Path(self.folder.name) / "data"
        self.log = Path(self.folder.name) / "serve.log"
        env = dict(os.environ, KOMA_DATA_DIR=str(data), TEXTUAL_ANIMATIONS="none")
        env.pop("KOMA_PLAYER", None)
        env.pop("KOMA_BENCH_AGAINST", None)
        env = running_checkout(env, checkout)  # the script runs from it, and so do the games it forks
        command = [sys.executable, "-m", "tui.main", *self.ARGUMENTS, *options]
        with open(self.log, "wb") as handle:
            self.process = subprocess.Popen(command, stdout=handle, stderr=subprocess.STDOUT, env=env, cwd=checkout)
        self.port = 0

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    async def started(self, timeout: float = 60.0) -> None:
        found = await self.wait_for_log(self.LISTENING, timeout)
        self.port = int(found.group(1))

    async def wait_for_log(self, pattern: str, timeout: float) -> re.Match:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.process.poll() is None:
            found = re.search(pattern, self.text())
            if found:
                return found
            await asyncio.sleep(0.05)
        raise RuntimeError(f"koma serve never logged {pattern!r}:\n{self.text()[-2000:]}")

    def session(self, user: str) -> Session:
        """A new player of this server (the front end's client)."""
        raise NotImplementedError

    async def game_pid(self, user: str, timeout: float = 10.0) -> int:
        found = await self.wait_for_log(rf"player user:{re.escape(user)}: game started \(pid (\d+)", timeout)
        return int(found.group(1))

    def warm_pid(self) -> int | None:
        """The warm process's pid, when the server runs one (the last one started)."""
        found = re.findall(r"warm process ready \(pid (\d+)", self.text())
        return int(found[-1]) if found else None

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self.folder.cleanup()


# --- a player --------------------------------------------------------------------------------------------

class ScreenGrid:
    """What a terminal shows, as rows of characters: the stream's text written where its cursor is.

    It knows what Textual's output needs to be read back: absolute cursor moves (``CSI row;col H``), carriage
    returns and newlines; every other escape sequence (colours, modes) is skipped, an escape cut in two by the
    stream is kept until its end comes, and every character is taken as one cell wide (the screens read back draw
    none wider).  A terminal emulator library would do the same per character, in Python, on the same loaded box
    the figures are measured on; this costs a regular expression per piece of output and writes runs of text."""

    def __init__(self, columns: int = 80, rows: int = 24):
        self.columns, self.rows = columns, rows
        self.cells = [[" "] * columns for _ in range(rows)]
        self.x = self.y = 0
        self._tail = ""

    def feed(self, text: str) -> None:
        """Some of the stream, cut anywhere."""
        text = self._tail + text
        incomplete = INCOMPLETE_ESCAPE.search(text)
        self._tail = text[incomplete.start():] if incomplete else ""
        text = text[:incomplete.start()] if incomplete else text
        at = 0
        for move in CURSOR_TO.finditer(text):
            self._write(ESCAPES.sub("", text[at:move.start()]))
            self.y, self.x = int(move.group(1) or 1) - 1, int(move.group(2) or 1) - 1
            at = move.end()
        self._write(ESCAPES.sub("", text[at:]))

    def _write(self, text: str) -> None:
        for piece in LINE_BREAKS.split(text):
            if piece == "\r":
                self.x = 0
            elif piece == "\n":
                self.y += 1
            elif piece and 0 <= self.y < self.rows:
                piece = "".join(c for c in piece if c >= " ") if not piece.isprintable() else piece
                row, x = self.cells[self.y], self.x
                if x < self.columns:
                    fits = piece[:self.columns - x]
                    row[x:x + len(fits)] = fits
                self.x += len(piece)

    def lines(self) -> list[str]:
        return ["".join(row) for row in self.cells]


class Session:
    """One player on a terminal of ``size`` (80x24 unless the scenario says otherwise; a front end's client says
    how it connects); ``text`` is what the game drew, without escape sequences, and ``grid``, when a scenario
    sets one, where it drew it.

    Each piece of output is stamped when it arrives and read a moment later, after the pieces of the other sessions
    that arrived with it: one bench client stands for many players' machines, and its reading of one screen (the
    grid, the searches) must not make the next screen's output look later than it came."""

    size = (80, 24)

    def __init__(self, user: str):
        self.user = user
        self._text = ""
        self._arrived: list[tuple[bytes, float]] = []  # output stamped on arrival, not read yet
        self.changed = asyncio.Event()
        self.move_seen: dict[int, float] = {}  # "Moves N" -> when it was first drawn
        self.output_at: list[float] = []  # when each piece of output arrived (perf_counter)
        self.connection: Any = None
        self.process: Any = None
        self.reader: asyncio.Task | None = None
        self.grid: ScreenGrid | None = None  # the screen as a grid of cells (kept only when asked for: watch_screen)
        self.on_screen: Callable[[ScreenGrid, float], None] | None = None  # called after each piece of output
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._tail = ""
        self.received = 0  # bytes of the screen stream so far
        self.keep_chars = 0  # when set, ``text`` keeps only its last this many characters (marks before a cut are void)

    async def connect(self, port: int) -> None:
        """Connect to the server on ``port`` and start reading the screen stream (:meth:`take`)."""
        raise NotImplementedError

    def watch_screen(self, on_screen: Callable[[ScreenGrid, float], None] | None = None) -> None:
        """Keep :attr:`grid` from now on (the stream from here on, drawn on what was there), and call
        ``on_screen(grid, when)`` after each piece of output."""
        if self.grid is None:
            self.grid = ScreenGrid()
        self.on_screen = on_screen

    @property
    def text(self) -> str:
        """What the game drew so far, without escape sequences (every piece of output arrived so far read)."""
        self.read_arrived()
        return self._text

    def take(self, data: bytes) -> None:
        """Some of the screen stream, stamped now; read (:meth:`read_arrived`) once the loop has stamped what else
        arrived with it."""
        self._arrived.append((data, time.perf_counter()))
        if len(self._arrived) == 1:
            asyncio.get_running_loop().call_soon(self.read_arrived)

    def read_arrived(self) -> None:
        arrived, self._arrived = self._arrived, []
        for data, when in arrived:
            self._read_piece(data, when)

    def _read_piece(self, data: bytes, now: float) -> None:
        """A piece of the screen stream that arrived at ``now``: its text (escape sequences stripped), and when each
        move count appeared."""
        decoded = self._decoder.decode(data)
        if self.grid is not None:
            self.grid.feed(decoded)
        text = ESCAPES.sub("", self._tail + decoded)
        incomplete = INCOMPLETE_ESCAPE.search(text)
        self._tail = text[incomplete.start():] if incomplete else ""
        text = text[:incomplete.start()] if incomplete else text
        self.output_at.append(now)
        overlap = len(self._text)
        self._text += text
        for found in MOVES.finditer(self._text, max(0, overlap - 12)):
            self.move_seen.setdefault(int(found.group(1)), now)
        self.received += len(data)
        if self.keep_chars and len(self._text) > 2 * self.keep_chars:  # a crowd's client stays cheap: no long copies
            self._text = self._text[-self.keep_chars:]
        if self.on_screen is not None and self.grid is not None:
            self.on_screen(self.grid, now)
        self.changed.set()

    async def wait_for(self, pattern: str, since: int = 0, timeout: float = SCREEN_SECONDS) -> re.Match:
        """The first match of ``pattern`` drawn after ``text[since:]``; TimeoutError after ``timeout``."""
        compiled = re.compile(pattern)
        return await self.wait_until(lambda: compiled.search(self.text, since), timeout, repr(pattern))

    async def wait_until(self, found: Callable[[], Any], timeout: float = SCREEN_SECONDS, what: str = "it") -> Any:
        """``found()``'s first true answer, tried whenever the screen changes; TimeoutError after ``timeout`` (or
        when the stream has ended)."""
        deadline = time.monotonic() + timeout
        while not (answer := found()):
            left = deadline - time.monotonic()
            if left <= 0 or (self.reader is not None and self.reader.done()):
                raise TimeoutError(f"{what} never appeared for {self.user}")
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), left)
            except TimeoutError:
                pass
        return answer

    def drawn_at(self, moves: int) -> float:
        """When the screen first showed ``moves`` or more moves (a busy game may draw two moves at once)."""
        self.read_arrived()
        return min((at for shown, at in self.move_seen.items() if shown >= moves), default=float("inf"))

    def longest_silence(self, since: float, until: float) -> float:
        """The longest time between ``since`` and ``until`` in which the game drew nothing."""
        self.read_arrived()
        times = [since, *(at for at in self.output_at if since < at < until), until]
        return max(b - a for a, b in itertools.pairwise(times))

    def moves(self) -> int:
        shown = MOVES.findall(self.text)
        return int(shown[-1]) if shown else -1

    def key(self, keys: str) -> None:
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError


LEFT, RIGHT = "\x1b[D", "\x1b[C"


async def first_move(session: Session, timeout: float = SCREEN_SECONDS) -> str:
    """Play one sideways move (one of left and right always moves a tile); returns the way back."""
    before = session.moves()
    for key, back in ((LEFT, RIGHT), (RIGHT, LEFT)):
        session.key(key)
        try:
            await session.wait_for(rf"(?:Moves|STM) {before + 1}\b", 0, 3.0 if key == LEFT else timeout)
            return back
        except TimeoutError:
            continue
    raise TimeoutError(f"no sideways move was played for {session.user}")


async def play_moves(session: Session, count: int, gap: float, first: str) -> list[float]:
    """Send ``count`` sideways moves ``gap`` seconds apart; the key-to-screen time of each (inf: never drawn)."""
    start = session.moves()
    sent, key, other = [], first, LEFT if first == RIGHT else RIGHT
    for _ in range(count):
        sent.append(time.perf_counter())
        session.key(key)
        key, other = other, key
        await asyncio.sleep(gap)
    try:
        await session.wait_for(rf"(?:Moves|STM) {start + count}\b", 0, SCREEN_SECONDS)
    except TimeoutError:
        pass
    return [session.drawn_at(start + k + 1) - at for k, at in enumerate(sent)]


async def open_private_room(session: Session, timeout: float = SCREEN_SECONDS) -> str:
    """From the home screen: Race, a private room of the lobby's size; the room's code, read off the screen."""
    mark = len(session.text)
    session.key("x")
    await session.wait_for("private room", mark, timeout)
    mark = len(session.text)
    session.key("c")
    return (await session.wait_for(r"Room ([A-Z]{5})", mark, timeout)).group(1)


async def open_game(server: BenchServer, user: str) -> tuple[Session, float, int]:
    """Connect and wait for the home screen: the session, the seconds it took, the game's pid."""
    session = server.session(user)
    began = time.perf_counter()
    await session.connect(server.port)
    await session.wait_for(HOME, 0, CONNECT_SECONDS)
    seconds = time.perf_counter() - began
    return session, seconds, await server.game_pid(user)


def run_with_server(options: tuple[str, ...], scenario: Callable[[BenchServer], Awaitable[dict[str, Any]]],
                    kind: type[BenchServer], checkout: str | None = None) -> dict[str, Any]:
    async def main() -> dict[str, Any]:
        server = kind(*options, checkout=checkout) if checkout else kind(*options)
        try:
            await server.started()
            if "--cold" not in options:  # measure the steady state: the warm process is ready
                await server.wait_for_log(r"warm process ready", 180)
            before = cpu_seconds(server.process.pid, children=False)
            figures = await scenario(server)
            figures["server_cpu_s"] = round(cpu_seconds(server.process.pid, children=False) - before, 2)
            warm = server.warm_pid()
            if warm is not None:
                figures["warm_process_pss_mib"] = round(memory_mib(warm).get("pss", float("nan")), 1)
            return figures
        finally:
            server.stop()

    return asyncio.run(main())


# --- one game ----------------------------------------------------------------------------------------------

async def one_game(server: BenchServer, moves: int = 40, idle_seconds: float = 15.0) -> dict[str, Any]:
    """Home screen, the 15-puzzle, moves every 0.1 s, the idle board, memory: the per-game figures."""
    warmup, _, _ = await open_game(server, "bench-warmup")  # the caches (tables, kernels) are warm after this
    warmup.key("2")
    await warmup.wait_for("from solved", 0, 120)
    await warmup.close()
    session, home_seconds, pid = await open_game(server, "bench-player")
    figures: dict[str, Any] = {"home_seconds": round(home_seconds, 3), "home_cpu_s": round(cpu_seconds(pid), 3)}
    before, mark = cpu_seconds(pid), len(session.text)
    session.key("2")
    await session.wait_for(r"Moves \d+", mark)  # the board and its panel are on the screen: the puzzle is open
    figures["open15_cpu_s"] = round(cpu_seconds(pid) - before, 3)
    await session.wait_for("from solved", mark)  # and the optimal distance, an IDA* search, is known
    figures["open15_to_distance_cpu_s"] = round(cpu_seconds(pid) - before, 3)
    back = await first_move(session)
    await asyncio.sleep(0.5)
    before, began, serving = cpu_seconds(pid), time.perf_counter(), cpu_seconds(server.process.pid, children=False)
    latencies = await play_moves(session, moves, 0.1, back)
    await asyncio.sleep(0.5)
    spent = cpu_seconds(pid) - before
    figures["move_cpu_ms"] = round(1000 * spent / moves, 2)
    # the server's own CPU per key: it forwards the key to the game and the game's redraw to the client
    figures["server_cpu_per_key_ms"] = round(1000 * (cpu_seconds(server.process.pid, children=False) - serving) / moves, 3)
    figures["moves_window_s"] = round(time.perf_counter() - began, 2)
    figures["move_key_to_screen_p95_ms"] = round(1000 * percentile(latencies, 0.95), 1)
    await asyncio.sleep(1.0)
    before = cpu_seconds(pid)
    await asyncio.sleep(idle_seconds)
    figures["idle_cpu_ms_per_s"] = round(1000 * (cpu_seconds(pid) - before) / idle_seconds, 2)
    figures.update({f"game_{k}_mib": round(v, 1) for k, v in memory_mib(pid).items()})
    session.key("q")
    await session.close()
    return figures


async def speed_game(server: BenchServer, moves: int = 90, tps: float = 15.0, larger: int = 0) -> dict[str, Any]:
    """The Speed screen (``s`` at home; ``larger`` presses of ``+`` from its 4x4): ``moves`` sideways keys at ``tps``
    keys a second; the key-to-screen time of each, and how many were drawn before the next key was sent."""
    session, _, pid = await open_game(server, "bench-speed")
    mark = len(session.text)
    session.key("s")
    await session.wait_for(r"STM 0\b", mark)
    for _ in range(larger):
        mark = len(session.text)
        session.key("+")
        await session.wait_for(r"Speed on the \d+x\d+", mark)
    back = await first_move(session)
    await asyncio.sleep(0.5)
    before = cpu_seconds(pid)
    gap = 1 / tps
    latencies = await play_moves(session, moves, gap, back)
    figures = {"speed_keys": moves, "speed_tps_sent": tps,
               "speed_key_to_screen_median_ms": round(1000 * statistics.median(latencies), 1),
               "speed_key_to_screen_p95_ms": round(1000 * percentile(latencies, 0.95), 1),
               "speed_drawn_before_next_key": sum(1 for latency in latencies if latency < gap),
               "speed_move_cpu_ms": round(1000 * (cpu_seconds(pid) - before) / moves, 2)}
    session.key("q")
    await session.close()
    return figures


# --- crowds ------------------------------------------------------------------------------------------------

async def at_once(server: BenchServer, count: int = 20) -> dict[str, Any]:
    """``count`` players connect at the same moment: when does each see the home screen?  Then each opens the
    15-puzzle and plays a move: the memory of a game at home and of a game in play."""
    problems: collections.Counter = collections.Counter()

    async def one(k: int) -> tuple[Session | None, float]:
        session = server.session(f"crowd{k:03d}")
        began = time.perf_counter()
        try:
            await session.connect(server.port)
            await session.wait_for(HOME, 0, CONNECT_SECONDS)
            return session, time.perf_counter() - began
        except Exception as problem:
            problems[f"{problem.__class__.__name__}: {problem}"[:80]] += 1
            return session, float("inf")

    results = await asyncio.gather(*(one(k) for k in range(count)))
    homes = [seconds for _, seconds in results]
    home = [session for session, seconds in results if session is not None and seconds != float("inf")]
    pids = [await server.game_pid(session.user) for session in home]
    memory = [memory_mib(pid) for pid in pids]

    async def play(session: Session) -> bool:
        try:
            mark = len(session.text)
            session.key("2")
            await session.wait_for("from solved", mark)
            await first_move(session)
            return True
        except Exception as problem:
            problems[f"{problem.__class__.__name__}: {problem}"[:80]] += 1
            return False

    playing = [pid for pid, ok in zip(pids, await asyncio.gather(*(play(session) for session in home))) if ok]
    await asyncio.sleep(1.0)
    in_play = [memory_mib(pid) for pid in playing]
    await asyncio.gather(*(session.close() for session, _ in results if session is not None))
    served = [s for s in homes if s != float("inf")]

    def means(prefix: str, measured: list[dict[str, float]]) -> dict[str, float]:
        return {f"{prefix}_{k}_mean_mib": round(statistics.mean(m.get(k, 0) for m in measured), 1) for k in ("pss", "uss")} if measured else {}

    return {"players": count, "served": len(served), "home_median_s": round(statistics.median(homes), 2),
            **means("game", memory), **means("playing_15", in_play), "playing_15": len(in_play),
            "home_p95_s": round(percentile(homes, 0.95), 2), "home_max_s": round(max(homes), 2),
            **({"problems": dict(problems)} if problems else {})}


async def arrivals(server: BenchServer, count: int = 40, per_second: float = 2.0, moves: int = 20,
                   gap: float = 0.3) -> dict[str, Any]:
    """Players arrive ``per_second``; each opens the 8-puzzle and plays ``moves`` moves ``gap`` s apart."""
    problems: collections.Counter = collections.Counter()

    async def one(k: int) -> tuple[float, list[float], bool]:
        await asyncio.sleep(k / per_second)
        session = server.session(f"arrival{k:03d}")
        began = time.perf_counter()
        home, latencies, served = float("inf"), [], False
        try:
            await session.connect(server.port)
            await session.wait_for(HOME, 0, CONNECT_SECONDS)
            home = time.perf_counter() - began
            mark = len(session.text)
            session.key("1")
            await session.wait_for(r"Moves \d+", mark)
            back = await first_move(session)
            latencies = await play_moves(session, moves - 1, gap, back)
            served = all(latency != float("inf") for latency in latencies)
            if not served:
                problems["a move never reached the screen"] += 1
            session.key("q")
        except Exception as problem:
            problems[f"{problem.__class__.__name__}: {problem}"[:80]] += 1
        finally:
            await session.close()
        return home, latencies, served

    results = await asyncio.gather(*(one(k) for k in range(count)))
    homes = [home for home, _, _ in results]
    latencies = [latency for _, each, _ in results for latency in each]
    return {"players": count, "served": sum(1 for *_, served in results if served),
            "home_median_s": round(statistics.median(homes), 2), "home_p95_s": round(percentile(homes, 0.95), 2),
            "key_to_screen_median_ms": round(1000 * statistics.median(latencies), 1) if latencies else None,
            "key_to_screen_p95_ms": round(1000 * percentile(latencies, 0.95), 1) if latencies else None,
            **({"problems": dict(problems)} if problems else {})}


async def idle_crowd(server: BenchServer, count: int = 200, batch: int = 10) -> dict[str, Any]:
    """``count`` players connect (``batch`` at a time) and stay idle; then a newcomer connects."""
    sessions: list[Session] = []
    pids: list[int] = []
    deadline = time.monotonic() + 900
    try:
        for first in range(0, count, batch):
            if time.monotonic() > deadline:
                break
            opened = await asyncio.gather(*(open_game(server, f"idle{k:03d}") for k in range(first, min(count, first + batch))),
                                          return_exceptions=True)
            for result in opened:
                if isinstance(result, BaseException):
                    continue
                sessions.append(result[0])
                pids.append(result[2])
        await asyncio.sleep(5)
        before = sum(cpu_seconds(pid) for pid in pids)
        await asyncio.sleep(10)
        idle_total = (sum(cpu_seconds(pid) for pid in pids) - before) / 10
        newcomer, seconds, pid = await open_game(server, "newcomer")
        sessions.append(newcomer)
        return {"idle_players": len(pids), "idle_cpu_all_games_ms_per_s": round(1000 * idle_total, 1),
                "newcomer_home_s": round(seconds, 2), "newcomer_home_cpu_s": round(cpu_seconds(pid), 3),
                "pss_mean_mib": round(statistics.mean(memory_mib(p).get("pss", 0) for p in pids[:20]), 1) if pids else None}
    finally:
        await asyncio.gather(*(session.close() for session in sessions))


# --- a phone: taps, swipes and keys ----------------------------------------------------------------------------

PHONE_SIZE = (48, 42)  # the terminal koma web's page gets in Chromium at 390x844 CSS pixels with touch
TILE_TOP = re.compile("[╭+][─-]{3,}")  # the top edge of a tile of the Speed board


def tap(column: int, row: int, motion: bool = False) -> str:
    """What the page sends for a tap on the cell (``column``, ``row``), counted from 0: a press and a release as the
    finger lifts (SGR mouse reports, as xterm.js encodes them); with ``motion``, the mouse move to the cell that the
    browser's own click sent before them (the page before issue 38's tap work)."""
    at = f"{column + 1};{row + 1}"
    return (f"\x1b[<35;{at}M" if motion else "") + f"\x1b[<0;{at}M\x1b[<0;{at}m"


def board_cells(lines: list[str], columns: int, rows: int) -> list[tuple[int, int]]:
    """The centre (column, row) of each cell of a sliding board drawn in ``lines``, row by row, from its tiles' top
    edges; empty until the whole board is drawn (``rows`` lines of edges, ``columns`` places, every tile once)."""
    edges = [(number, found.start()) for number, line in enumerate(lines) for found in TILE_TOP.finditer(line)]
    tops = sorted({number for number, _ in edges})
    starts = sorted({start for _, start in edges})
    if len(tops) != rows or len(starts) != columns or len(edges) != rows * columns - 1:
        return []
    height, width = tops[1] - tops[0], starts[1] - starts[0]
    return [(starts[c] + width // 2, tops[r] + height // 2) for r in range(rows) for c in range(columns)]


async def phone_game(server: BenchServer, rounds: int = 25, gap: float = 0.25) -> dict[str, Any]:
    """Speed on the 4x4 at a phone's terminal (:data:`PHONE_SIZE`): keys, taps and the old page's taps take turns.

    Each round: a tap on the tile at the far end of the blank's row (the whole line slides, one move; the next
    round's tap slides it back), then the tile beside the blank there and back three ways: by arrow keys, by taps
    (what the page sends), and by taps as the page sent them before (a mouse move, then the press and the release).
    A swipe is not a case of its own: the page sends a swipe as the arrow key's bytes, as the finger lifts, so the
    game sees a key (the page's own part is timed in tests/serve/test_web_phone.py).  Each input waits for its move
    on the screen (``STM N``) and ``gap`` seconds more; the figures are each kind's input-to-screen time and the
    game's CPU from the input to its move drawn."""
    from solver.ids import parse_game_id

    session = server.session("bench-phone")
    session.size = PHONE_SIZE
    session.grid = ScreenGrid(*PHONE_SIZE)
    await session.connect(server.port)
    await session.wait_for(HOME, 0, CONNECT_SECONDS)
    pid = await server.game_pid(session.user)
    mark = len(session.text)
    session.key("s")
    found = await session.wait_for(r"ID (15-\S+)", mark)
    await session.wait_for(r"STM 0\b", mark)
    puzzle, state = parse_game_id(found.group(1))
    width = puzzle.width
    deadline = time.monotonic() + SCREEN_SECONDS
    # the board once the screen is still (the clock starts on the first move): its first frames may lay it out anew
    while (time.perf_counter() - session.output_at[-1] < 0.5
           or not (cells := board_cells(session.grid.lines(), width, puzzle.height))):
        if time.monotonic() > deadline:
            raise TimeoutError("no whole board on the phone's screen:\n" + "\n".join(session.grid.lines()))
        await asyncio.sleep(0.05)
    blank = state.index(0)
    row, column = divmod(blank, width)
    far = row * width + (width - 1 if column < width / 2 else 0)
    distance = abs(far - blank)
    seen = session.moves()
    kinds = ("key", "tap", "tap_line", "tap_with_motion")
    times: dict[str, list[float]] = {kind: [] for kind in kinds}
    cpu: dict[str, float] = dict.fromkeys(kinds, 0.0)

    async def play(kind: str, keys: str, tiles: int = 1) -> None:
        nonlocal seen
        before, sent = cpu_seconds(pid), time.perf_counter()
        session.key(keys)
        seen += tiles
        await session.wait_for(rf"STM {seen}\b", 0, SCREEN_SECONDS)
        times[kind].append(session.drawn_at(seen) - sent)
        cpu[kind] += cpu_seconds(pid) - before
        await asyncio.sleep(gap)

    ends = [far, blank]
    for number in range(rounds):
        await play("tap_line", tap(*cells[ends[number % 2]]), distance)
        blank = ends[number % 2]  # the tapped cell is the blank now
        beside = blank - 1 if blank % width else blank + 1
        there, back = (RIGHT, LEFT) if beside < blank else (LEFT, RIGHT)  # arrows name the way the tile goes
        await play("key", there)
        await play("key", back)
        await play("tap", tap(*cells[beside]))
        await play("tap", tap(*cells[blank]))
        await play("tap_with_motion", tap(*cells[beside], motion=True))
        await play("tap_with_motion", tap(*cells[blank], motion=True))
    figures: dict[str, Any] = {"phone_terminal": f"{PHONE_SIZE[0]}x{PHONE_SIZE[1]}", "tap_line_tiles": distance}
    for kind, values in times.items():
        figures[f"{kind}_to_screen_median_ms"] = round(1000 * statistics.median(values), 1)
        figures[f"{kind}_to_screen_p95_ms"] = round(1000 * percentile(values, 0.95), 1)
        figures[f"{kind}_cpu_ms"] = round(1000 * cpu[kind] / len(values), 2)
    for kind in kinds[1:]:
        figures[f"{kind}_to_key_p95_ratio"] = round(figures[f"{kind}_to_screen_p95_ms"] / figures["key_to_screen_p95_ms"], 2)
    session.key("q")
    await session.close()
    return figures


SCENARIOS: dict[str, Callable[[BenchServer], Awaitable[dict[str, Any]]]] = {
    "one game": one_game, "at once": at_once, "arrivals": arrivals, "idle crowd": idle_crowd, "speed game": speed_game,
    "arrivals 150": lambda server: arrivals(server, count=150, per_second=10.0),
    "speed game 10x10": lambda server: speed_game(server, larger=8), "phone game": phone_game}
