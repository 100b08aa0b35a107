"""How a game reaches its player: the seam between :class:`tui.server.served_game.ServedGame` and a connection.

A game runs on a pty whatever carries it; only the transport knows the wire.  One game, two transports:
:class:`tui.server.ssh.transport.SshTransport` (an asyncssh session channel, ``koma serve``) and
:class:`tui.server.web.transport.WebTransport` (a WebSocket, ``koma web``).  ``ServedGame`` owns the pump, the limits,
the idle timeout and the hang-up; a transport only moves bytes, reports the terminal, and closes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

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
