"""Wake-ups between the race links of one box (a SQLite store has no LISTEN/NOTIFY).  No Textual.

Every racer's link binds a datagram socket of its own, named by the room and the player, in a private folder beside
the database file (``koma.db.pokes``, mode 0700: only the server's user reaches it).  After a write that the others
should see (moves, a finish, a DNF, a start, a leave, a sweep that changed something) a link sends one byte to each
other racer of the room (:meth:`Pokes.poke`); a poked link reads the room.  A poke carries nothing but "read now":
the store stays the one record, a poke lost (a full queue, a racer whose link has no socket) only leaves the reader
to its slower safety poll, and a poke of a socket nobody has is dropped.

The sockets are files, not Linux's abstract names: a game's Landlock domain is scoped away from abstract sockets
made outside it (:mod:`tui.server.sandbox`), while a socket file is reached by whoever may open its folder.  A
socket's address goes through ``/proc/self/fd/N`` (``N`` this link's handle on the folder), so it stays far below
``sun_path``'s 108 bytes however deep the folder is; a link removes its file when it closes, and one left by a
killed process is found dead (nobody reads it) and replaced.  Where this cannot work (not Linux, a folder that
cannot be made) :meth:`Pokes.bind` gives None and the link polls as before.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import socket
import sys
from collections.abc import Iterable

FOLDER_SUFFIX = ".pokes"


def socket_name(room: str, player: str) -> str:
    """The file name of ``player``'s link to ``room`` in the database's pokes folder (32 hex digits)."""
    return hashlib.blake2s(f"{room}\n{player}".encode(), digest_size=16).hexdigest()


def pokes_folder(database: str) -> str:
    """The private folder of the store ``database``'s (its file path) race sockets."""
    return database + FOLDER_SUFFIX


class Pokes:
    """One link's socket: it is poked (its :meth:`fileno` becomes readable), and it pokes the others."""

    def __init__(self, sock: socket.socket, folder: int, room: str, name: str) -> None:
        self._sock, self._folder, self._room, self._name = sock, folder, room, name

    @classmethod
    def bind(cls, database: str, room: str, player: str) -> Pokes | None:
        """This link's socket; None where it cannot be had (not Linux; no folder; the same player's link already has
        it, as when a racer comes back before the old game's link ended): the link then polls."""
        if not sys.platform.startswith("linux"):
            return None
        try:
            os.makedirs(pokes_folder(database), mode=0o700, exist_ok=True)
            folder = os.open(pokes_folder(database), os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError:
            return None
        name = socket_name(room, player)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        try:
            sock.setblocking(False)
            if not _bind(sock, folder, name):
                raise OSError(errno.EADDRINUSE, "held by a live link")
        except OSError:
            sock.close()
            os.close(folder)
            return None
        return cls(sock, folder, room, name)

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
                self._sock.sendto(b"!", _address(self._folder, socket_name(self._room, player)))

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.unlink(_address(self._folder, self._name))
        self._sock.close()
        with contextlib.suppress(OSError):
            os.close(self._folder)


def _address(folder: int, name: str) -> str:
    return f"/proc/self/fd/{folder}/{name}"


def _bind(sock: socket.socket, folder: int, name: str) -> bool:
    """Bind ``sock`` to ``name`` in ``folder``, replacing a file no live link reads; False when a live link holds it."""
    try:
        sock.bind(_address(folder, name))
        return True
    except OSError as problem:
        if problem.errno != errno.EADDRINUSE:
            raise
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        probe.setblocking(False)
        probe.connect(_address(folder, name))
    except ConnectionRefusedError:  # a file left by a link that was killed: nobody reads it
        os.unlink(_address(folder, name))
        sock.bind(_address(folder, name))
        return True
    except BlockingIOError:
        return False
    finally:
        probe.close()
    return False
