"""A game's WebSocket side (``koma web``): a :class:`~tui.server.transport.Transport` that outlives its socket.

The browser speaks textual-serve's small protocol: it sends ``["stdin", text]``, ``["resize", {"width": W,
"height": H}]`` and ``["ping", t]`` as text frames, and gets the terminal's bytes as binary frames (and
``["pong", t]``).  A socket may go (a reload, a dropped network) and another attach within
:data:`RECONNECT_SECONDS`: the game keeps running meanwhile, its output dropped; the new socket is given the
terminal modes the game had set (the alternate screen, mouse reporting, the hidden cursor) and the game redraws
the whole screen (a resize there and back).  After that window, reading ends and the game hangs up as over SSH.
Output is coalesced into one frame per send.  A socket that takes none of it for ``stall_seconds`` (the
game waits meanwhile, its output held at the pump's bound), or falls :data:`HARD_BACKLOG` behind, is aborted at
once, what was queued for it freed, and the game goes on as after a dropped network.  The game's last words (why
it ended) close the socket as its reason, with code 1012 when the server is shutting down, for the page to show.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Callable, Mapping
from typing import Any

from tui.server.transport import Size

RECONNECT_SECONDS = 60.0
HARD_BACKLOG = 4 << 20  # bytes queued for a socket that does not read: past this it is dropped
STALL_SECONDS = 20.0  # a socket that takes none of the game's output for this long is dropped
INBOX_BYTES = 64 * 1024  # keys queued for the game, at most (and one message more); past it the socket is not read
REDRAW_WAIT = 1.0
MODE = re.compile(rb"\x1b\[\?([0-9;]+)([hl])")
REPLAYED_MODES = {"1049", "47", "1047", "25", "1000", "1002", "1003", "1006", "1015", "1004", "2004", "7", "1", "2026"}


class WebTransport:
    """One web game's transport; :meth:`attach` and :meth:`detach` move it between sockets."""

    kind = "web"

    def __init__(self, columns: int, rows: int, on_detach: Callable[[str], None] | None = None,
                 reconnect_seconds: float = RECONNECT_SECONDS, stall_seconds: float = STALL_SECONDS,
                 restarting: Callable[[], bool] = lambda: False):
        self.reconnect_seconds, self.stall_seconds, self.restarting = reconnect_seconds, stall_seconds, restarting
        self.size: Size = (columns, rows, 0, 0)
        self.inbox: asyncio.Queue[bytes | Size] = asyncio.Queue(INBOX_BYTES)  # window sizes: at most this many too
        self.inbox_bytes = 0  # the keys in the inbox: bounded in bytes (a message may be 64 KiB), not in messages
        self.room = asyncio.Event()
        self.socket: Any = None  # an aiohttp WebSocketResponse while attached
        self.wires: dict[Any, Any] = {}  # each attached socket's TCP transport (asyncio's), from its request
        self.outbox = bytearray()
        self.wake = asyncio.Event()
        self.emptied = asyncio.Event()
        self.emptied.set()
        self.drawn = asyncio.Event()
        self.modes: dict[str, bytes] = {}
        self.tail = b""
        self.ended = False
        self.status: int | None = None
        self.sender: asyncio.Task | None = None
        self.expiry: asyncio.TimerHandle | None = None
        self.on_detach = on_detach
        self.tasks: set[asyncio.Task] = set()

    # --- the Transport protocol (what the game's pump uses) ---

    def terminal_type(self) -> str | None:
        return "xterm-256color"

    def terminal_size(self) -> Size:
        return self.size

    def client_environment(self) -> Mapping[str, str]:
        return {"COLORTERM": "truecolor"}  # xterm.js draws 24-bit colour

    def write(self, data: bytes) -> None:
        self._track_modes(data)
        self.drawn.set()
        if self.socket is None:
            return
        self.outbox += data
        self.emptied.clear()
        self.wake.set()
        if len(self.outbox) > HARD_BACKLOG:
            self.drop(self.socket, f"it fell {self.backlog() >> 10} KiB behind the game")

    def backlog(self) -> int:
        wire = self._wire(self.socket)
        return len(self.outbox) + (wire.get_write_buffer_size() if wire is not None else 0)

    async def drain(self) -> None:
        await self.emptied.wait()

    async def read(self) -> bytes | Size:
        item = await self.inbox.get()
        if isinstance(item, bytes):
            self.inbox_bytes -= len(item)
            self.room.set()
        return item

    def close(self, status: int, why: str = "") -> None:
        """The game is over: flush what it said last, then close the socket normally, ``why`` as its reason."""
        self.ended, self.status = True, status
        if self.expiry is not None:
            self.expiry.cancel()
        socket = self.socket
        if socket is not None:
            self._spawn(self._close_after_flush(socket, why))

    # --- the web server's side ---

    async def feed(self, item: bytes | Size) -> None:
        """Keys or a window size from the browser, in order; waits while the game is behind."""
        if isinstance(item, tuple):
            self.size = item
        else:
            while self.inbox_bytes and self.inbox_bytes + len(item) > INBOX_BYTES:
                self.room.clear()
                await self.room.wait()
            self.inbox_bytes += len(item)
        await self.inbox.put(item)

    def attach(self, socket: Any, columns: int, rows: int, reconnect: bool, wire: Any = None) -> None:
        """Send the game's output to ``socket`` from now on; on a reconnect, restore the modes and redraw.  ``wire`` is
        its TCP transport (its request's), whose buffer counts in the backlog and which a slow socket's drop aborts."""
        if self.expiry is not None:
            self.expiry.cancel()
            self.expiry = None
        self.socket = socket
        self.wires[socket] = wire
        self.outbox.clear()
        self.emptied.set()
        self.sender = self._spawn(self._send(socket))
        if reconnect:
            self.outbox += b"".join(self.modes.values()) + b"\x1b[2J"
            self.wake.set()
            self._spawn(self._redraw(columns, rows))

    def detach(self, socket: Any, why: str = "") -> None:
        """``socket`` has gone (or is dropped): the game waits :data:`RECONNECT_SECONDS` for another."""
        self.wires.pop(socket, None)
        if self.socket is not socket or socket is None:
            return
        self.socket = None
        self.outbox.clear()
        self.emptied.set()
        if self.sender is not None:
            self.sender.cancel()
        if not socket.closed:
            self._spawn(socket.close(code=1011 if why else 1001, message=why.encode()[:120]))
        if not self.ended:
            self.expiry = asyncio.get_running_loop().call_later(self.reconnect_seconds, self.expire)
            if self.on_detach is not None:
                self.on_detach(why)

    def drop(self, socket: Any, why: str) -> None:
        """``socket`` cannot keep up: abort its connection now (what was queued for it is freed; a polite close
        would wait for a client that does not read), then :meth:`detach` it."""
        wire = self._wire(socket)
        if wire is not None:
            wire.abort()
        self.detach(socket, why)

    def expire(self) -> None:
        """No browser came back in time: the game's input ends, so it hangs up (saves and exits)."""
        self.expiry = None
        while not self.inbox.empty():
            self.inbox.get_nowait()
        self.inbox_bytes = 0
        self.room.set()
        self.inbox.put_nowait(b"")

    # --- inside ---

    def _wire(self, socket: Any) -> Any:
        """The socket's TCP transport (asyncio's), or None."""
        return self.wires.get(socket)

    def _spawn(self, coroutine: Any) -> asyncio.Task:
        task = asyncio.get_running_loop().create_task(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    def _track_modes(self, data: bytes) -> None:
        text = self.tail + data
        for match in MODE.finditer(text):
            for mode in match.group(1).decode().split(";"):
                if mode in REPLAYED_MODES:
                    self.modes[mode] = b"\x1b[?" + mode.encode() + match.group(2)
        self.tail = text[-16:]

    async def _redraw(self, columns: int, rows: int) -> None:
        """The game redraws everything when its size changes: a row less, then the browser's own size."""
        self.drawn.clear()
        await self.feed((columns, rows - 1 if rows > 1 else rows + 1, 0, 0))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.drawn.wait(), REDRAW_WAIT)
        await self.feed((columns, rows, 0, 0))

    async def _send(self, socket: Any) -> None:
        try:
            while True:
                await self.wake.wait()
                self.wake.clear()
                if not self.outbox:
                    continue
                chunk = bytes(self.outbox)
                self.outbox.clear()
                try:
                    await asyncio.wait_for(socket.send_bytes(chunk), self.stall_seconds)
                except TimeoutError:
                    self.drop(socket, f"it took none of the game's output for {self.stall_seconds:g} s "
                                      f"({self.backlog() >> 10} KiB behind)")
                    return
                if not self.outbox:
                    self.emptied.set()
        except (ConnectionError, RuntimeError, OSError):
            self.detach(socket)

    async def _close_after_flush(self, socket: Any, why: str) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.emptied.wait(), 2.0)
        if self.sender is not None:
            self.sender.cancel()
        self.socket = None
        reason = (why or "The game has ended; it is saved.").encode()[:123].decode(errors="ignore").encode()
        with contextlib.suppress(ConnectionError, RuntimeError, OSError, TimeoutError):
            restart = bool(why) and self.restarting()  # the server ended the game (not its player) while stopping
            await asyncio.wait_for(socket.close(code=1012 if restart else 1000, message=reason), 5.0)
