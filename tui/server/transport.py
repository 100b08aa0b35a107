"""How a game reaches its player: the seam between :class:`tui.server.game.Game` and a connection.

A game runs on a pty whatever carries it; only the transport knows the wire.  One game, two transports:
:class:`SshTransport` (an asyncssh session channel, ``koma serve``) and
:class:`tui.server.web.transport.WebTransport` (a WebSocket, ``koma web``).  ``Game`` owns the pump, the limits,
the idle timeout and the hang-up; a transport only moves bytes, reports the terminal, and closes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

import asyncssh

Size = tuple[int, int, int, int]  # columns, rows, pixel width, pixel height (as a client sent them; unchecked)


class Transport(Protocol):
    """What a game needs of its player's connection."""

    kind: str  # "ssh" or "web": the ``transport`` label of the server's metrics, and the game's KOMA_TRANSPORT

    def terminal_type(self) -> str | None:
        """The client's TERM, or None when the client asked for no terminal (the game is refused)."""

    def terminal_size(self) -> Size:
        """The client's window size now."""

    def client_environment(self) -> Mapping[Any, Any]:
        """The variables the client sent (only ``COLORTERM`` is ever read)."""

    def write(self, data: bytes) -> None:
        """Send the game's output (or a notice); never raises, drops the bytes when the client is gone."""

    def backlog(self) -> int:
        """Bytes written but not yet sent: above 256 KiB the game waits for :meth:`drain`."""

    async def drain(self) -> None:
        """Wait until the backlog has gone out (the caller bounds the wait)."""

    async def read(self) -> bytes | Size:
        """The next keys, or a new window size; ``b""`` once the client has gone for good."""

    def close(self, status: int, why: str = "") -> None:
        """The game is over: end the connection's session with this exit status; never raises.  ``why`` is the
        line already written that says why it ended (a page shows it; a terminal has it on screen)."""


class SshTransport:
    """An asyncssh session (``SSHServerProcess``) with a pty: keys and window changes in, bytes out."""

    kind = "ssh"

    def __init__(self, process: Any):
        self.process = process

    def terminal_type(self) -> str | None:
        return self.process.get_terminal_type()

    def terminal_size(self) -> Size:
        return self.process.get_terminal_size()

    def client_environment(self) -> Mapping[Any, Any]:
        return self.process.env

    def write(self, data: bytes) -> None:
        try:
            self.process.stdout.write(data)
        except (OSError, asyncssh.Error):
            pass

    def backlog(self) -> int:
        return self.process.channel.get_write_buffer_size()

    async def drain(self) -> None:
        try:
            await self.process.stdout.drain()
        except (OSError, asyncssh.Error):
            pass

    async def read(self) -> bytes | Size:
        """SSH break and signal requests are ignored (the game reads ctrl+c as a key); however the channel ends
        (EOF, the connection reset or lost, any asyncssh error) this returns ``b""``."""
        while True:
            try:
                return await self.process.stdin.read(4096)
            except asyncssh.TerminalSizeChanged as change:
                return change.width, change.height, change.pixwidth, change.pixheight
            except (asyncssh.BreakReceived, asyncssh.SignalReceived):
                continue
            except (OSError, asyncssh.Error):
                return b""

    def close(self, status: int, why: str = "") -> None:
        try:
            self.process.exit(status)
        except (OSError, asyncssh.Error):
            pass
