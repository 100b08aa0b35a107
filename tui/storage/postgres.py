"""The PostgreSQL backend of the store (psycopg 3), shared by every replica.

The schema comes from versioned SQL files (:mod:`tui.storage.postgres_schema`).  The store's statements
(:mod:`tui.storage.store`) are written once with ``?``; this backend turns them into ``%s``.  A transaction
holds the player's advisory lock, so one player playing in two sessions on two replicas loses no update.
Statements are never prepared (``prepare_threshold=None``), so it also works through PgBouncer in
transaction mode.

Every call has a deadline: libpq's ``connect_timeout`` while connecting, ``lock_timeout`` inside a
transaction, and a watchdog that shuts the connection's socket when a statement outlives
:data:`STATEMENT_SECONDS` (a server frozen by SIGSTOP or a network stall answers nothing at all, not even
a cancel request).  A failure raises :class:`~tui.storage.store.StoreError`; the next statement connects
again.  A connection the server ended while it was idle (a restart, ``pg_terminate_backend``, a balancer's
timeout) is replaced before a statement is sent on it, so that a routine reconnect costs the game nothing
(no "not saved yet", no unknown read) and no statement is ever sent twice.  Never imports Textual.
"""

from __future__ import annotations

import contextlib
import os
import select
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import psycopg

from tui.storage.backend import StoreError, one_line
from tui.storage.postgres_schema import SchemaError, migrate
from tui.storage.store import Store

CONNECT_TIMEOUT_SECONDS = 3
STATEMENT_SECONDS = 3.0
LOCK_TIMEOUT_MS = 2000
PLAYER_LOCK_CLASS = 0x4B6F6D61  # "Koma": the first half of a player's advisory lock key


class StoreUnavailable(Exception):
    """The database could not be opened: unreachable or refused now, or (``permanent``) a schema this Koma
    cannot use."""

    def __init__(self, message: str, permanent: bool = False):
        super().__init__(message)
        self.permanent = permanent


def connect(url: str) -> psycopg.Connection:
    """An autocommit connection that never prepares statements (PgBouncer's transaction mode allows none),
    with TCP keepalives so that a dead peer is noticed."""
    return psycopg.connect(url, autocommit=True, prepare_threshold=None, connect_timeout=CONNECT_TIMEOUT_SECONDS,
                           application_name="koma", keepalives=1, keepalives_idle=5, keepalives_interval=2,
                           keepalives_count=2)


def open_schema(url: str, migrate_schema: bool = True) -> psycopg.Connection:
    """A connection to ``url`` with the schema brought up to date; StoreUnavailable (one line) if it fails."""
    try:
        connection = connect(url)
    except psycopg.Error as problem:
        raise StoreUnavailable(one_line(problem)) from None
    try:
        if migrate_schema:
            migrate(connection)
    except (psycopg.Error, SchemaError) as problem:
        connection.close()
        raise StoreUnavailable(one_line(problem), permanent=isinstance(problem, SchemaError)) from None
    return connection


class PostgresBackend:
    """The store's backend on a PostgreSQL server (see the module's docstring)."""

    memory_only = False
    notifies = True  # pg_notify and LISTEN (races: tui.storage.race_rooms, tui.storage.race_link)

    def __init__(self, url: str, *, migrate_schema: bool = True, connection: psycopg.Connection | None = None,
                 where: str = "PostgreSQL"):
        """Open ``url`` now (StoreUnavailable if that fails), unless given an open ``connection``."""
        self.url = url
        self.where = where
        self.notices: list[str] = []
        self.statement_seconds = STATEMENT_SECONDS
        self._db: psycopg.Connection | None = connection if connection is not None else open_schema(url, migrate_schema)

    def data_version(self) -> int | None:
        """None: PostgreSQL tells of changes by notifications instead (races: ``LISTEN koma_race``)."""
        return None

    def _connection(self) -> psycopg.Connection:
        if self._db is not None and not (self._db.closed or self._db.broken) and ended_by_server(self._db):
            with contextlib.suppress(Exception):
                self._db.close()
            self._db = None
        if self._db is None or self._db.closed or self._db.broken:
            if self._db is not None:
                self._db.close()
            self._db = None
            try:
                self._db = connect(self.url)
            except psycopg.Error as problem:
                raise StoreError(f"unreachable: {one_line(problem)}") from None
        return self._db

    @contextmanager
    def _deadline(self, connection: psycopg.Connection) -> Iterator[None]:
        """Shut the connection's socket if the block outlives the statement deadline (the call then fails)."""
        timed_out = threading.Event()

        def expire() -> None:
            timed_out.set()
            with contextlib.suppress(OSError):
                socket.socket(fileno=os.dup(connection.pgconn.socket)).shutdown(socket.SHUT_RDWR)

        timer = threading.Timer(self.statement_seconds, expire)
        timer.daemon = True
        timer.start()
        try:
            yield
        except psycopg.Error as problem:
            self._forget(connection)
            if timed_out.is_set():
                raise StoreError(f"no answer within {self.statement_seconds:g} s (the database is stalled)") from None
            raise StoreError(_reason(problem)) from None
        finally:
            timer.cancel()

    def _forget(self, connection: psycopg.Connection) -> None:
        if connection.broken or connection.closed:
            with contextlib.suppress(Exception):
                connection.close()
            if self._db is connection:
                self._db = None

    def query(self, sql: str, args: tuple = ()) -> list[tuple]:
        connection = self._connection()
        with self._deadline(connection):
            cursor = connection.execute(sql.replace("?", "%s"), args)
            return cursor.fetchall() if cursor.description is not None else []

    @contextmanager
    def transaction(self, lock: str) -> Iterator[Callable[[str, tuple], list[tuple]]]:
        """One transaction holding ``lock``'s advisory lock (a player's read-modify-writes run one at a time)."""
        connection = self._connection()

        def query(sql: str, args: tuple = ()) -> list[tuple]:
            cursor = connection.execute(sql.replace("?", "%s"), args)
            return cursor.fetchall() if cursor.description is not None else []

        with self._deadline(connection), connection.transaction():
            connection.execute(f"SET LOCAL lock_timeout = {LOCK_TIMEOUT_MS}")
            connection.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (PLAYER_LOCK_CLASS, lock))
            yield query

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Every statement of the block in one transaction (a ``transaction`` inside it is a savepoint), under one
        deadline."""
        connection = self._connection()
        with self._deadline(connection), connection.transaction():
            yield

    def listen(self, channel: str) -> Listener:
        """A :class:`Listener` on ``channel``, on a connection of its own (StoreError if it cannot be opened)."""
        return Listener(self.url, channel)

    def close(self) -> None:
        if self._db is not None:
            with contextlib.suppress(Exception):
                self._db.close()
            self._db = None


class Listener:
    """A connection of its own that ``LISTEN``s on one channel (races: :mod:`tui.storage.race_link`): its socket
    turns readable when a notification (or the server's goodbye) arrives; :meth:`drain` takes what came.  A failure
    raises :class:`~tui.storage.store.StoreError`."""

    def __init__(self, url: str, channel: str):
        try:
            self.connection = connect(url)
            self.connection.execute(f"LISTEN {channel}")
        except psycopg.Error as problem:
            raise StoreError(_reason(problem)) from None

    def fileno(self) -> int:
        return self.connection.pgconn.socket

    def drain(self) -> list[str]:
        """The payloads of the notifications received (none waited for)."""
        try:
            return [notify.payload for notify in self.connection.notifies(timeout=0)]
        except psycopg.Error as problem:
            raise StoreError(_reason(problem)) from None

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.connection.close()


def PostgresStore(url: str, player: str | None = None, name: str | None = None, *, migrate_schema: bool = True) -> Store:
    """The store on PostgreSQL at ``url``; raises StoreUnavailable if it cannot be opened now."""
    return Store(player=player, name=name, backend=PostgresBackend(url, migrate_schema=migrate_schema))


def ended_by_server(connection: psycopg.Connection) -> bool:
    """Whether the server has spoken on this idle connection.  Koma listens for nothing and has no statement
    in flight between calls, so that is the server's goodbye (an error, then end of file): the connection is
    dead, though libpq learns it only from the next statement.  Checked without a round trip."""
    try:
        poller = select.poll()  # not select(): a server process may hold descriptors past FD_SETSIZE
        poller.register(connection.pgconn.socket, select.POLLIN | select.POLLPRI)
        return bool(poller.poll(0))  # readable, or hung up / in error (always reported)
    except (OSError, ValueError, psycopg.Error):
        return True


def _reason(problem: psycopg.Error) -> str:
    if isinstance(problem, psycopg.OperationalError):
        return f"unreachable: {one_line(problem)}"
    return one_line(problem)
