"""A game's :class:`~tui.server.transport.Transport` over SSH: an asyncssh session channel with a pty."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tui.patches.asyncssh_import import asyncssh
from tui.server.transport import Size


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
