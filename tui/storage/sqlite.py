"""The SQLite backend of the store (stdlib ``sqlite3``, WAL): one file per box, ``koma.db`` in the data dir.

The schema is the versioned SQL scripts in ``sql/sqlite/`` (``NNN-name.sql`` takes a database from
version NNN-1 to NNN); a new database is created in a private file by running them all in one
transaction, then linked into place, so a ``koma.db`` that exists is always a whole one.  Many
sessions write at once (``koma serve``): WAL, a busy timeout, and read-modify-write updates in
``BEGIN IMMEDIATE`` transactions.

Nothing healthy is ever moved: a file is moved aside (with a one-line notice) only when SQLite says it
is damaged (``SQLITE_CORRUPT``, ``SQLITE_NOTADB``, or a failed ``quick_check``).  A full disk, an I/O
error or a lock keeps the file where it is: the statement raises :class:`~tui.storage.store.StoreError`
("busy", "disk full"…), the outbox keeps the write, and the file is opened again on the next statement.
A database from a newer Koma is refused and left untouched (the session plays unsaved).  A ``koma.db``
that is no regular file (a FIFO, a device) is never opened.  This module never imports Textual.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from tui.config.paths import data_dir
from tui.storage.backend import StoreError, one_line
from tui.storage.rows import ROW_CHECKS, BadRow

DB_NAME = "koma.db"
MIGRATIONS = sorted(Path(__file__).with_name("sql").joinpath("sqlite").glob("[0-9][0-9][0-9]-*.sql"))
SCHEMA_VERSION = len(MIGRATIONS)
DAMAGE_CODES = (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)
MEMORY = ":memory:"  # the path of a store that keeps everything in memory, as in sqlite3
# --- what only SQLite runs: doctor's read-only checks -------------------------------------------
COUNT_REJECTED = "SELECT count(*) FROM rejected_rows"
SELECT_REJECTED = "SELECT source, data FROM rejected_rows ORDER BY rowid"
# every row koma doctor checks, table by table: two columns that name the row, then what ROW_CHECKS reads
SELECT_ALL = {
    "games": "SELECT player, puzzle, start, moves, origins, position, seconds, hints FROM games",
    "stats": "SELECT player, puzzle, solved, by_koma, best_moves, best_optimal, best_seconds FROM stats",
    "results": "SELECT day || ' ' || puzzle, player, player, player, moves, optimal, seconds, hints FROM results",
    "replays": ("SELECT player, game, player, player, game, start, moves, origins, seconds, optimal, by_koma, finished "
                "FROM replays"),
}


def database_path() -> Path:
    return data_dir() / DB_NAME


# --- telling a damaged file from a busy or full one --------------------------------------------------
class NewerSchema(Exception):
    """The database was written by a newer Koma (its ``user_version`` is above :data:`SCHEMA_VERSION`)."""

    def __init__(self, version: int):
        super().__init__(f"schema version {version}; this Koma knows up to {SCHEMA_VERSION}")
        self.version = version


class Damaged(sqlite3.DatabaseError):
    """``quick_check`` found damage: the only failure besides SQLITE_CORRUPT/NOTADB that moves a file aside."""


def is_damage(problem: BaseException) -> bool:
    """SQLite says the file itself is damaged (not busy, full, read-only or failing I/O)."""
    code = getattr(problem, "sqlite_errorcode", None)
    return isinstance(problem, Damaged) or (code is not None and code & 0xFF in DAMAGE_CODES)


def why_not_saved(problem: BaseException, where: Path) -> str:
    """A short reason for a failure that is not damage: ``busy``, ``disk full``, ``disk I/O error``, …"""
    code = (getattr(problem, "sqlite_errorcode", None) or 0) & 0xFF
    errno = getattr(problem, "errno", None)
    message = str(problem)
    if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or "is locked" in message:
        return "busy"
    if (code == sqlite3.SQLITE_FULL or errno == 28 or "disk is full" in message
            or (code == sqlite3.SQLITE_IOERR and _nearly_full(where))):
        return "disk full"
    if code == sqlite3.SQLITE_IOERR:
        return "disk I/O error"
    if code == sqlite3.SQLITE_READONLY:
        return "read-only"
    return str(problem) or type(problem).__name__


def _nearly_full(where: Path) -> bool:
    try:
        return shutil.disk_usage(where).free < 256 * 1024
    except OSError:
        return False


def run_script(db: sqlite3.Connection, script: str) -> None:
    """Run a script's statements one by one (``executescript`` would commit the caller's transaction)."""
    statement = ""
    for line in script.splitlines(keepends=True):
        statement += line
        if sqlite3.complete_statement(statement):
            if statement.strip(" \n;"):
                db.execute(statement)
            statement = ""


def upgrade(db: sqlite3.Connection) -> int:
    """Bring a database to :data:`SCHEMA_VERSION` in one transaction; returns the version it had.

    One writer at a time does it; the others find the work done.  Raises :class:`NewerSchema`."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise NewerSchema(version)
    if version == SCHEMA_VERSION:
        return version
    db.execute("BEGIN IMMEDIATE")
    try:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise NewerSchema(version)
        for script in MIGRATIONS[version:]:
            run_script(db, script.read_text(encoding="utf-8"))
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    return version


def connect(path: Path, timeout: float, mode: str = "rw") -> sqlite3.Connection:
    """A connection to an existing file (``mode=rw`` or ``ro``: SQLite never creates it here)."""
    db = sqlite3.connect(f"file:{quote(str(path))}?mode={mode}", uri=True, timeout=timeout, isolation_level=None,
                         check_same_thread=False)
    db.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
    return db


class SqliteBackend:
    """The store's backend on a SQLite file (``:memory:``: nothing kept).  See the module's docstring."""

    notifies = False  # no LISTEN/NOTIFY: a racing process polls

    def __init__(self, path: Path | str | None = None, timeout: float = 5.0):
        self.in_memory = str(path) == MEMORY
        self.path = Path(path) if path is not None and not self.in_memory else database_path()
        self.where = MEMORY if self.in_memory else str(self.path)
        self.timeout = timeout
        self.notices: list[str] = []
        self.memory_only = False
        self._db: sqlite3.Connection | None = None
        if self.in_memory:
            self._db = self._memory()
            return
        try:
            self._db = self._open()
        except StoreError:
            pass  # busy or full now: the next statement tries the file again

    # --- statements ---------------------------------------------------------------------------------
    def query(self, sql: str, args: tuple = ()) -> list[tuple]:
        db = self._connection()
        try:
            return db.execute(sql, args).fetchall()
        except sqlite3.Error as problem:
            raise self._failure(problem) from None

    @contextmanager
    def transaction(self, lock: str) -> Iterator[Callable[[str, tuple], list[tuple]]]:
        """``BEGIN IMMEDIATE`` … ``COMMIT``: SQLite locks the whole file, so one writer at a time.  Inside a
        :meth:`batch`, it joins the batch's transaction."""
        db = self._connection()

        def query(sql: str, args: tuple = ()) -> list[tuple]:
            return db.execute(sql, args).fetchall()

        if db.in_transaction:
            yield query
            return
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as problem:
            raise self._failure(problem) from None
        try:
            yield query
            db.execute("COMMIT")
        except BaseException as problem:
            if db.in_transaction:
                try:
                    db.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
            if isinstance(problem, sqlite3.Error):
                raise self._failure(problem) from None
            raise

    def data_version(self) -> int | None:
        """SQLite's ``PRAGMA data_version``: it changes when another connection commits (never for this one's own)."""
        return int(self.query("PRAGMA data_version")[0][0])

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Every statement of the block in one ``BEGIN IMMEDIATE`` transaction."""
        with self.transaction(""):
            yield

    def close(self) -> None:
        if self._db is not None:
            try:
                self._db.close()
            except sqlite3.Error:  # pragma: no cover
                pass
            self._db = None

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = self._open()
        return self._db

    def _failure(self, problem: sqlite3.Error) -> StoreError:
        """A failed statement as a StoreError; a file SQLite now finds damaged is closed, to be set aside."""
        if is_damage(problem) and not self.memory_only:
            self.close()
        return StoreError(f"{why_not_saved(problem, self.path.parent)}: {one_line(problem)}")

    # --- opening ------------------------------------------------------------------------------------
    def _open(self) -> sqlite3.Connection:
        """The file, checked and up to date; a fallback in memory (with a notice) when it can never be used;
        StoreError when it cannot be used now (busy, full)."""
        if os.path.lexists(self.path) and not self.path.is_file():
            return self._unusable(f"{self.path} is not a regular file")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as problem:
            return self._unusable(f"cannot open {self.path} ({problem.strerror or problem})")
        try:
            return self._open_file()
        except NewerSchema as newer:
            return self._unusable(f"{self.path.name} is from a newer Koma ({newer}); it is left untouched")
        except (sqlite3.Error, OSError) as problem:
            if isinstance(problem, sqlite3.Error) and is_damage(problem):
                return self._replace_damaged(problem)
            raise StoreError(f"{why_not_saved(problem, self.path.parent)}: {one_line(problem)}") from None

    def _unusable(self, why: str) -> sqlite3.Connection:
        self.notices.append(f"{why[:1].upper()}{why[1:]}; games are not saved this session.")
        return self._memory()

    def _open_file(self) -> sqlite3.Connection:
        """Connect to ``koma.db`` (creating it whole if missing), check it, bring it up to date."""
        created = self._create_if_missing()
        if not created and _size(self.path) == 0 and _size(Path(f"{self.path}-wal")) == 0:
            # every koma.db is created whole (see _create_if_missing), so an empty one lost its data
            self.notices.append(f"The saved games database {self.path.name} was empty (truncated?); started afresh.")
        db = connect(self.path, self.timeout)
        try:
            if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")
            if db.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                raise Damaged("integrity check failed")
            rejected_before = self._rejected(db)
            upgrade(db)
            set_aside = self._rejected(db) - rejected_before
            if set_aside:
                self.notices.append(f"{set_aside} damaged row{'s' if set_aside != 1 else ''} of {self.path.name} did not fit "
                             "the new schema and were set aside (table rejected_rows); koma doctor lists them.")
        except BaseException:
            db.close()
            raise
        return db

    def _create_if_missing(self) -> bool:
        """Create a whole database in a private file and link it into place; another process may win."""
        if os.path.lexists(self.path):
            return False
        private = self.path.with_name(f".{self.path.name}.new-{os.getpid()}-{time.monotonic_ns()}")
        try:
            with closing(sqlite3.connect(private, isolation_level=None)) as db:
                db.execute("PRAGMA journal_mode = WAL")
                upgrade(db)
            if _size(Path(f"{private}-wal")):  # the closing checkpoint failed: the file is not whole
                raise sqlite3.OperationalError("could not write the new database")
            try:
                os.link(private, self.path)
            except FileExistsError:
                return False
            except OSError:  # no hard links here: a rename, which may replace a racing twin (also whole)
                os.replace(private, self.path)
            return True
        finally:
            for leftover in (private, Path(f"{private}-wal"), Path(f"{private}-shm")):
                try:
                    os.unlink(leftover)
                except OSError:
                    pass

    def _replace_damaged(self, problem: BaseException) -> sqlite3.Connection:
        moved = self._move_aside()
        if moved is None:
            self.notices.append(f"Cannot open {self.path} ({one_line(problem)}); games are not saved this session.")
            return self._memory()
        self.notices.append(f"The saved games database was unreadable ({one_line(problem)}); moved it to {moved.name} "
                     "and started afresh.")
        try:
            return self._open_file()
        except (sqlite3.Error, OSError, NewerSchema) as again:
            self.notices.append(f"Cannot open {self.path} ({one_line(again)}); games are not saved this session.")
            return self._memory()

    @staticmethod
    def _rejected(db: sqlite3.Connection) -> int:
        try:
            return db.execute(COUNT_REJECTED).fetchone()[0]
        except sqlite3.OperationalError:  # before version 3: no such table
            return 0

    def _memory(self, copy_of: Path | None = None) -> sqlite3.Connection:
        """An in-memory database for the session; with ``copy_of``, a snapshot of that file if it can be read."""
        self.memory_only = True
        db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        if copy_of is not None:
            try:  # immutable: no lock and no -shm file, which a full disk or another's lock would refuse
                with closing(sqlite3.connect(f"file:{quote(str(copy_of))}?mode=ro&immutable=1", uri=True)) as snapshot:
                    snapshot.backup(db)
                upgrade(db)
            except (sqlite3.Error, NewerSchema):
                db.close()
                db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        upgrade(db)
        return db

    def _move_aside(self) -> Path | None:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        target = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        try:
            os.replace(self.path, target)
        except OSError:
            return None
        for suffix in ("-wal", "-shm"):
            try:
                os.replace(str(self.path) + suffix, str(target) + suffix)
            except OSError:
                pass
        return target



def inspect(path: Path) -> dict[str, Any]:
    """What ``koma doctor`` says about a database, read-only (it is never created, moved or migrated):
    ``{"path", "state", "version", "problem", "bad_rows": [str], "rejected_rows": [str]}``, where ``state`` is
    ``missing``, ``ok``, ``newer`` (a newer Koma's), ``damaged`` or ``unreadable``, and ``problem`` says why."""
    report: dict[str, Any] = {"path": str(path), "state": "missing", "version": None, "problem": None,
                              "bad_rows": [], "rejected_rows": []}

    def trouble(state: str, problem: str) -> dict[str, Any]:
        report.update(state=state, problem=problem)
        return report

    if not os.path.lexists(path):
        return report
    if not path.is_file():
        return trouble("unreadable", f"{path} is not a file")
    try:
        with closing(connect(path, 2.0, mode="ro")) as db:
            version = report["version"] = db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                return trouble("newer", f"{path.name} is from a newer Koma (schema version {version}; this Koma knows up "
                                        f"to {SCHEMA_VERSION}): left untouched, and games are not saved")
            check = db.execute("PRAGMA integrity_check").fetchall()
            if check != [("ok",)]:
                return trouble("damaged", f"{path.name} is damaged ({one_line(Exception(check[0][0]))})")
            tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            for table, sql in SELECT_ALL.items():
                for row in db.execute(sql) if table in tables else ():
                    try:
                        ROW_CHECKS[table](row[2:])
                    except BadRow as bad:
                        report["bad_rows"].append(f"{table}: {row[0]}, {row[1]}: {bad}")
            if "rejected_rows" in tables:
                report["rejected_rows"] = [f"{source}: {one_line(Exception(data))}" for source, data in db.execute(SELECT_REJECTED)]
    except sqlite3.Error as problem:
        if is_damage(problem):
            return trouble("damaged", f"{path.name} is damaged ({one_line(problem)})")
        return trouble("unreadable", f"{path.name} cannot be read now ({why_not_saved(problem, path.parent)}: "
                                     f"{one_line(problem)})")
    report["state"] = "ok"
    return report


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
