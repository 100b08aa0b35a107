"""One game, whatever carries it: a process on its own pseudo-terminal (forked warm, or started cold), bridged to
its player over a :class:`~tui.server.transport.Transport` (an SSH channel, :mod:`tui.server.ssh.server`, or a
WebSocket, :mod:`tui.server.web.server`), with its start-up notices, idle timeout, hang-up and stop.  Its lifetime
is tied to its client from the first byte: a client gone before, during or after the fork has its game hung up.
Never imports Textual.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import signal
import termios
import time
from collections.abc import Callable
from typing import Protocol

from tui.server import lifecycle, metrics
from tui.server.admission import START_HOLD_SECONDS, StartQueue, StartTurn
from tui.server.colour import colour_environment
from tui.server.environment import base_environment
from tui.server.options import ServeOptions
from tui.server.procfs import doing
from tui.server.proxy_protocol import address_group
from tui.server.sandbox import confine
from tui.server.server_log import log
from tui.server.terminal import keys_not_signals, set_window_size, terminal_type, window_size
from tui.server.transport import Transport
from tui.server.warm_pool import WarmGame, apply_limits, signal_game


class Host(Protocol):
    """What a game asks of the server that hosts it (:class:`tui.server.host.GameHost`)."""

    port: int
    options: ServeOptions
    start_queue: StartQueue

    async def start_game(self, terminal: int, env: dict[str, str],
                         notice: Callable[[str], None] = ...) -> tuple[asyncio.subprocess.Process | WarmGame, str]: ...

STOP_GRACE_SECONDS = 5.0
IDLE_CHECK_SECONDS = 1.0
SILENT_GAME_SECONDS = (15.0, 60.0)  # a game that has drawn nothing by then gets a log line saying what it does
STARTING = "Starting Koma...\r\n"
STILL_STARTING = "Still starting after {seconds:g} s: the server is busy. Your game will appear here.\r\n"
QUEUED = "Starting, {ahead} ahead of you: players are arriving, your game starts in a moment.\r\n"
ERASE_LINE_ABOVE = b"\x1b[A\x1b[2K"  # cursor up a line, erase it


# --- the game process ------------------------------------------------------------------------------

def child_setup(cpu_limit: int, memory_limit: int, secrets: list[str]) -> None:  # pragma: no cover - runs in the child
    """In a cold game process, before exec: the pty becomes its controlling terminal; limits apply; the game is
    kept from ``secrets`` (the server logged at its start whether the kernel can)."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    apply_limits(cpu_limit, memory_limit)
    confine(secrets)


# --- one game ------------------------------------------------------------------------------------

class ServedGame:
    """One game process on its own pty, played over a :class:`~tui.server.transport.Transport` (SSH or WebSocket)."""

    def __init__(self, server: Host, transport: Transport, player: str, name: str, peer: str,
                 connected: float = 0.0, address: str = ""):
        self.server = server
        self.transport = transport
        self.player, self.name, self.peer = player, name, peer
        self.address = address_group(address or peer.rsplit(":", 1)[0])  # what the per-address limit counts by
        self.child: asyncio.subprocess.Process | WarmGame | None = None
        self.master = -1
        self.last_input = time.monotonic()
        self.ending: str | None = None  # the message to show the client after the game has stopped
        self.output_done = asyncio.Event()
        self.first_output = asyncio.Event()
        self.notices = 0  # terminal rows said before the game's first output
        self.started = time.monotonic()
        self.gone = False  # the client has gone: the game is hung up as soon as it exists
        self.hanging_up: asyncio.Task | None = None
        self.connected = connected or self.started  # when its connection was made: the home screen's time counts from it
        self.key_at: float | None = None  # the first key the game has not answered yet (for the latency, slow frames)
        self.slow_logged: float | None = None
        self.home_at: float | None = None  # when its first frame was drawn
        self.left = asyncio.Event()  # set when the player has gone (see hang_up)
        self.ahead_told: int | None = None  # the place in the start queue last told to the player
        self.end_reason = ""  # for the metrics: idle, drained, shutdown (else from its status)

    async def run(self) -> None:
        transport = self.transport
        asked = transport.terminal_type()
        if asked is None:
            self.say("Koma is a terminal game: connect with a terminal (ssh -t), e.g. "
                     f"ssh -t -p {self.server.port} HOST\r\n")
            transport.close(1)
            return
        # Every field the client sent is bounded here, before anything is allocated for the game.
        terminal = terminal_type(asked)
        if terminal != asked:
            log(f"{self.peer} player {self.player}: TERM {asked[:40]}{'...' if len(asked) > 40 else ''} "
                f"({len(asked)} characters) replaced with {terminal}")
        columns, rows, width, height = window_size(*transport.terminal_size())
        env = self.environment(terminal, rows, columns)
        self.notice(STARTING)  # until the game draws, the player is not left at a blank screen
        turn = await self.wait_for_turn()
        if turn is None:  # the player left while waiting
            transport.close(1)
            return
        master, slave = os.openpty()
        self.master = master
        try:
            try:
                keys_not_signals(slave)
                set_window_size(master, rows, columns, width, height)
                os.set_blocking(master, False)
                self.child, how = await self.server.start_game(slave, env, self.notice)
            finally:
                os.close(slave)
        except Exception as problem:
            turn.done()
            os.close(master)
            log(f"{self.peer} player {self.player}: cannot start a game ({problem!r})")
            self.say("koma: the server could not start a game; try again later.\r\n")
            transport.close(1)
            return
        except BaseException:
            turn.done()
            os.close(master)
            raise
        metrics.GAMES_STARTED.labels(transport.kind, how).inc()
        log(f"{self.peer} player {self.player}: game started (pid {self.child.pid}, {terminal} {columns}x{rows}) {how}",
            "game_started", client=self.peer, player=self.player, pid=self.child.pid, how=how)
        if self.gone:  # the connection was lost while the game was starting
            self.hang_up()
        pump_out = asyncio.create_task(self.pump_out())
        pump_in = asyncio.create_task(self.pump_in())
        idle = asyncio.create_task(self.watch_idle())
        silent = asyncio.create_task(self.watch_first_output())
        holding = asyncio.create_task(self.hold_turn(turn))
        try:
            await self.child.wait()
            await asyncio.wait_for(self.output_done.wait(), 2.0)
        except TimeoutError:
            pass
        finally:
            turn.done()
            for task in (pump_in, idle, silent, pump_out, holding):
                task.cancel()
            await asyncio.gather(pump_in, idle, silent, pump_out, holding, return_exceptions=True)
            os.close(master)
        status = self.child.returncode
        if status is not None and status < 0:
            why = {int(signal.SIGXCPU): "it used up its CPU time", int(signal.SIGKILL): "it was stopped",
                   int(signal.SIGSEGV): "it crashed"}.get(-status, f"signal {-status}")
            if self.ending is None:
                self.ending = f"The game ended ({why}). Your moves so far are saved.\r\n"
        metrics.GAMES_ENDED.labels(transport.kind, lifecycle.how_it_ended(self, status)).inc()
        metrics.game_ended(self.child.pid)
        log(f"{self.peer} player {self.player}: game ended (status {status}, {time.monotonic() - self.started:.0f} s)",
            "game_ended", client=self.peer, player=self.player, pid=self.child.pid, status=status,
            how=lifecycle.how_it_ended(self, status), seconds=round(time.monotonic() - self.started, 3))
        if self.ending:
            self.say("\r\n" + self.ending)
        transport.close(0 if status == 0 or self.ending else 1, (self.ending or "").strip())

    def environment(self, terminal: str, rows: int, columns: int) -> dict[str, str]:
        """The game's environment: the server's common one, the client's terminal type and colours, the player."""
        client = self.transport.client_environment()
        return {**base_environment(), "TERM": terminal, "KOMA_PLAYER": self.player, "KOMA_PLAYER_NAME": self.name,
                "KOMA_ADDRESS": self.address,
                "KOMA_TRANSPORT": self.transport.kind,
                **colour_environment(terminal, client, os.environ)}

    async def wait_for_turn(self) -> StartTurn | None:
        """This game's turn to start (:class:`~tui.server.admission.StartQueue`), the player told their place while
        they wait; None if they leave first."""
        queue = self.server.start_queue
        waiting = asyncio.ensure_future(queue.turn(self.tell_place))
        left = asyncio.ensure_future(self.left.wait())
        try:
            await asyncio.wait((waiting, left), return_when=asyncio.FIRST_COMPLETED)
        finally:
            left.cancel()
        if waiting.done():
            return waiting.result()
        waiting.cancel()
        try:
            await waiting
        except asyncio.CancelledError:
            return None
        return None

    def tell_place(self, ahead: int) -> None:
        """The player's place in the start queue: one line, rewritten in place when it changes."""
        if ahead == self.ahead_told:
            return
        line = QUEUED.format(ahead=ahead)
        if self.ahead_told is None:
            self.notice(line)
        else:
            self.say(ERASE_LINE_ABOVE.decode() + line)
        self.ahead_told = ahead

    async def hold_turn(self, turn: StartTurn) -> None:
        """Give the start turn back once the game has drawn (or after :data:`START_HOLD_SECONDS` without)."""
        try:
            await asyncio.wait_for(self.first_output.wait(), START_HOLD_SECONDS)
        except TimeoutError:
            pass
        turn.done()

    def notice(self, line: str) -> None:
        """Say a line before the game has drawn; its first output erases the notices again."""
        columns = max(1, self.transport.terminal_size()[0] or 80)
        self.notices += max(1, -(-len(line.rstrip()) // columns))  # the rows it takes on the player's terminal
        self.say(line)

    def say(self, text: str) -> None:
        self.transport.write(text.encode())

    async def pump_out(self) -> None:
        """ServedGame -> client; when the client is gone, keep reading (and dropping) so the game never blocks."""
        loop = asyncio.get_running_loop()
        readable = asyncio.Event()
        loop.add_reader(self.master, readable.set)
        transport = self.transport
        try:
            while True:
                await readable.wait()
                readable.clear()
                try:
                    data = os.read(self.master, 65536)
                except BlockingIOError:
                    continue
                except OSError:  # EIO: every holder of the terminal's other end has gone
                    break
                if not data:
                    break
                lifecycle.drew(self, data)  # a key's answer, the home screen's first frame: for the metrics
                if not self.first_output.is_set():
                    self.first_output.set()
                    data = ERASE_LINE_ABOVE * self.notices + data  # the game draws: take our notices away
                transport.write(data)
                if transport.backlog() > 1 << 18:  # a slow client: let the game wait
                    loop.remove_reader(self.master)
                    try:
                        await asyncio.wait_for(transport.drain(), 30.0)
                    except TimeoutError:
                        pass
                    loop.add_reader(self.master, readable.set)
        finally:
            loop.remove_reader(self.master)
            self.output_done.set()

    async def pump_in(self) -> None:
        """Client -> game: keys, and window changes as TIOCSWINSZ.  However the transport ends (EOF, the
        connection reset or lost, any error) the game is hung up at once."""
        try:
            while True:
                data = await self.transport.read()
                if isinstance(data, tuple):
                    columns, rows, width, height = data
                    set_window_size(self.master, rows, columns, width, height)
                    continue
                if not data:
                    return
                self.last_input = time.monotonic()
                if self.key_at is None:
                    self.key_at = self.last_input
                await self.write_to_game(data)
        except Exception as problem:  # unforeseen: still a hang-up, and a line saying why
            log(f"{self.peer} player {self.player}: the input stopped ({problem!r})")
        finally:
            self.hang_up()

    def hang_up(self) -> None:
        """The player is gone: SIGHUP the game now (it saves and exits), SIGKILL it if it is still there after
        the grace.  Safe to call more than once, from a task being cancelled, and before the game has started
        (it is hung up as soon as it has)."""
        self.gone = True
        self.left.set()
        if not self.end_reason and (self.child is None or self.child.returncode is None):
            self.end_reason = "hangup"
        if self.hanging_up is None and self.child is not None:
            self.hanging_up = asyncio.get_running_loop().create_task(self.stop(None, signal.SIGHUP))

    async def write_to_game(self, data: bytes) -> None:
        deadline = time.monotonic() + 5.0
        while data and time.monotonic() < deadline:
            try:
                written = os.write(self.master, data)
            except BlockingIOError:
                await asyncio.sleep(0.01)
                continue
            except OSError:
                return
            data = data[written:]

    async def watch_first_output(self) -> None:
        """A game that has drawn nothing yet: tell the player it is still starting, and log what it is doing."""
        for seconds in SILENT_GAME_SECONDS:
            try:
                await asyncio.wait_for(self.first_output.wait(), max(0.0, self.started + seconds - time.monotonic()))
                return
            except TimeoutError:
                pid = self.child.pid if self.child is not None else 0
                log(f"{self.peer} player {self.player}: the game (pid {pid}) has drawn nothing in {seconds:g} s: "
                    f"{doing(pid)}")
                self.notice(STILL_STARTING.format(seconds=seconds))

    async def watch_idle(self) -> None:
        timeout = self.server.options.idle_timeout
        if not timeout:
            return
        while True:
            await asyncio.sleep(min(IDLE_CHECK_SECONDS, timeout / 4))
            if time.monotonic() - self.last_input > timeout:
                log(f"{self.peer} player {self.player}: idle for {timeout:g} s", "idle", client=self.peer, player=self.player)
                self.end_reason = "idle"
                await self.stop(f"Closed after {timeout:g} s without a key press. Your game is saved: "
                                "connect again to resume.\r\n")
                return

    async def stop(self, message: str | None, how: int = signal.SIGTERM) -> None:
        """Ask the game to save and exit (SIGTERM/SIGHUP), then kill its process group if it hangs."""
        if message is not None and self.ending is None:
            self.ending = message
        child = self.child
        if child is None or child.returncode is not None:
            return
        if not signal_game(child.pid, how):
            return
        try:
            await asyncio.wait_for(asyncio.shield(child.wait()), STOP_GRACE_SECONDS)
        except TimeoutError:
            signal_game(child.pid, signal.SIGKILL)
