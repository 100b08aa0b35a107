"""The seam between the store and a database (like harlequin's ``adapter.py``): what a backend must do.

:class:`tui.storage.store.Store` runs every statement through a :class:`Backend`: SQLite
(:mod:`tui.storage.sqlite`) or PostgreSQL (:mod:`tui.storage.postgres`).  Never imports Textual.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Protocol


class StoreError(Exception):
    """The database could not answer (unreachable, stalled past its deadline, busy, full…): one line."""


Query = Callable[[str, tuple], list[tuple]]


class Backend(Protocol):
    """How the store reaches one database.  ``query`` runs one statement in its own transaction and returns
    its rows; ``transaction(lock)`` gives a query function whose statements run in one transaction, one at a
    time per ``lock`` (a player) across every process; ``batch()`` runs every statement of its block in one
    transaction (a ``transaction`` inside it joins it).  They raise :class:`StoreError`.  ``where`` names the
    database for messages (no password); ``notices`` holds what opening it had to say.  ``notifies``: the database
    has ``pg_notify`` and ``LISTEN`` (PostgreSQL; races use them, :mod:`tui.storage.race_rooms`).  ``data_version()``: a
    number that differs from the last one this backend returned when another connection has committed a change
    since (SQLite's ``PRAGMA data_version``: a racing process's poll that finds nothing new costs no query), or None
    when the database cannot tell."""

    where: str
    memory_only: bool
    notifies: bool
    notices: list[str]

    def query(self, sql: str, args: tuple = ()) -> list[tuple]: ...
    def transaction(self, lock: str) -> AbstractContextManager[Query]: ...
    def batch(self) -> AbstractContextManager[None]: ...
    def data_version(self) -> int | None: ...
    def close(self) -> None: ...


def one_line(problem: BaseException) -> str:
    """An exception as one short line (psycopg's and SQLite's messages may span several)."""
    return " ".join(str(problem).split())[:200] or type(problem).__name__
