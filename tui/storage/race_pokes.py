"""Wake-ups between the race links of one box (a SQLite store has no LISTEN/NOTIFY).  No Textual.

Every racer's link binds a datagram socket of its own, named by the database file, the room and the player, in
Linux's abstract socket namespace (no file to make or remove: it goes when the link's process closes it).  After
a write that the others should see (moves, a finish, a DNF, a start, a leave, a sweep that changed something)
a link sends one byte to each other racer of the room (:meth:`Pokes.poke`); a poked link reads the room.  A poke
carries nothing but "read now": the store stays the one record, a poke lost (a full queue, a racer whose link has
no socket) only leaves the reader to its slower safety poll, and a poke of a socket nobody has is dropped.

The sockets are the kernel's (nothing runs to pass them on): one ``sendto`` per opponent for a write, against
twenty polls a second per racer, each a thread's wake-up and a query, while nobody moves.  Where abstract sockets
do not exist (not Linux) :meth:`Pokes.bind` gives None and the link polls as before.
"""

from __future__ import annotations

import contextlib
import hashlib
import socket
import sys
from collections.abc import Iterable

PREFIX = b"\0koma-race-"


def address(database: str, room: str, player: str) -> bytes:
    """The abstract socket address of ``player``'s link to ``room`` of the store ``database`` (its file path)."""
    digest = hashlib.blake2s(f"{database}\n{room}\n{player}".encode(), digest_size=16).hexdigest()
    return PREFIX + digest.encode()


class Pokes:
    """One link's socket: it is poked (its :meth:`fileno` becomes readable), and it pokes the others."""

    def __init__(self, sock: socket.socket, database: str, room: str) -> None:
        self._sock, self._database, self._room = sock, database, room

    @classmethod
    def bind(cls, database: str, room: str, player: str) -> Pokes | None:
        """This link's socket; None where it cannot be had (not Linux; the same player's link already has it, as
        when a racer comes back before the old game's link ended): the link then polls."""
        if not sys.platform.startswith("linux"):
            return None
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        try:
            sock.setblocking(False)
            sock.bind(address(database, room, player))
        except OSError:
            sock.close()
            return None
        return cls(sock, database, room)

    def fileno(self) -> int:
        return self._sock.fileno()

    def drain(self) -> bool:
        """Read every poke waiting; whether there was any."""
        poked = False
        while True:
            try:
                self._sock.recv(64)
            except (BlockingIOError, InterruptedError):
                return poked
            except OSError:
                return poked
            poked = True

    def poke(self, players: Iterable[str]) -> None:
        """Wake ``players``' links to this room (those that have a socket; never waits, never fails)."""
        for player in players:
            with contextlib.suppress(OSError):  # nobody there (gone, or polling), or its queue is full (awake anyway)
                self._sock.sendto(b"!", address(self._database, self._room, player))

    def close(self) -> None:
        self._sock.close()
