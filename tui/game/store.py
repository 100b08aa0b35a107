"""Saved games, stats, daily results and leaderboards in SQLite (stdlib ``sqlite3``, WAL), per player.

The database is ``koma.db`` in ``$KOMA_DATA_DIR`` or the user data dir (platformdirs).  Everything is
kept per *player*: ``$KOMA_PLAYER`` (set by ``koma serve`` to ``user:NAME`` or ``key:SHA256:...``),
else ``local``, the local user's profile.  One row per player and game key (a puzzle id such as
``8``, ``15``, ``goat``, ``ura-3x3``, ``sliding-3x4``, or ``daily/2025-01-31/8`` for a daily board)
holds the game in progress: the start board in the puzzle's notation, every move played, who played
it (``p`` the player, ``k`` Koma's playback), the undo position and the time spent.  Another row per
player and puzzle id holds the stats, and ``results`` holds each player's best daily result, which
the leaderboards rank (games Koma finished are never ranked).  ``replays`` keeps every finished game
move by move; ``watchers`` and ``players.watchable`` serve live spectating (:mod:`tui.game.live`).

The schema is the versioned SQL scripts in ``sql/sqlite/`` (``NNN-name.sql`` takes a database from
version NNN-1 to NNN); a new database is created in a private file by running them all in one
transaction, then linked into place, so a ``koma.db`` that exists is always a whole one.  Many
sessions write at once (``koma serve``): WAL, a busy timeout, and read-modify-write updates in
``BEGIN IMMEDIATE`` transactions.

Nothing here raises to the caller, and nothing healthy is ever moved: a file is moved aside (with a
one-line notice in :attr:`Store.notices`) only when SQLite says it is damaged (``SQLITE_CORRUPT``,
``SQLITE_NOTADB``, or a failed ``quick_check``).  A full disk, an I/O error or a lock keeps the file
where it is: the writes wait in memory (and reads see them), Koma says "not saved: disk full" (or
"busy") and retries.  A database from a newer Koma is refused and left untouched.  Every row is
checked when it is read; a damaged one is skipped with a notice.  This module never imports Textual.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any
from urllib.parse import quote

from solver.engines.paths import data_dir
from tui.game.live import (
    LiveGames,
)
from tui.game.players import current_player
from tui.game.records import (
    REPLAYS_KEPT,
    ROW_CHECKS,
    BadRow,
    Replay,
    Result,
    SavedGame,
    Stats,
    after_win,
    game_from_row,
    rank_key,
    replay_from_row,
    result_from_row,
    stats_from_row,
)

DB_NAME = "koma.db"
MIGRATIONS = sorted(Path(__file__).with_name("sql").joinpath("sqlite").glob("[0-9][0-9][0-9]-*.sql"))
SCHEMA_VERSION = len(MIGRATIONS)
DAMAGE_CODES = (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)
MEMORY = ":memory:"  # the path of a store that keeps everything in memory, as in sqlite3
RETRY_SECONDS = 3.0  # after a failed write, later writes wait in memory this long before the file is tried again

# --- every statement the store runs (a second backend follows this list) --------------------------
SELECT_GAME = "SELECT start, moves, origins, position, seconds, hints FROM games WHERE player = ? AND puzzle = ?"
SELECT_GAME_KEYS = "SELECT puzzle FROM games WHERE player = ?"
UPSERT_GAME = (
    "INSERT INTO games (player, puzzle, start, moves, origins, position, seconds, hints, updated) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(player, puzzle) DO UPDATE SET start = excluded.start, "
    "moves = excluded.moves, origins = excluded.origins, position = excluded.position, "
    "seconds = excluded.seconds, hints = excluded.hints, updated = excluded.updated")
DELETE_GAME = "DELETE FROM games WHERE player = ? AND puzzle = ?"
SELECT_STATS = ("SELECT solved, by_koma, best_moves, best_optimal, best_seconds FROM stats "
                "WHERE player = ? AND puzzle = ?")
UPSERT_STATS = (
    "INSERT INTO stats (player, puzzle, solved, by_koma, best_moves, best_optimal, best_seconds, updated) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(player, puzzle) DO UPDATE SET solved = excluded.solved, "
    "by_koma = excluded.by_koma, best_moves = excluded.best_moves, best_optimal = excluded.best_optimal, "
    "best_seconds = excluded.best_seconds, updated = excluded.updated")
UPSERT_PLAYER = ("INSERT INTO players (player, name, first_seen, last_seen) VALUES (?, ?, ?, ?) "
                 "ON CONFLICT(player) DO UPDATE SET name = excluded.name, last_seen = excluded.last_seen")
SELECT_RESULT = "SELECT moves, optimal, seconds FROM results WHERE day = ? AND puzzle = ? AND player = ?"
UPSERT_RESULT = (
    "INSERT INTO results (day, puzzle, player, moves, optimal, seconds, hints, finished) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(day, puzzle, player) DO UPDATE SET "
    "moves = excluded.moves, optimal = excluded.optimal, seconds = excluded.seconds, "
    "hints = excluded.hints, finished = excluded.finished")
SELECT_RESULTS = (
    "SELECT r.player, COALESCE(p.name, r.player), r.moves, r.optimal, r.seconds, r.hints FROM results r "
    "LEFT JOIN players p ON p.player = r.player WHERE r.day = ? AND r.puzzle = ?")
INSERT_REPLAY = ("INSERT INTO replays (player, game, puzzle, start, moves, origins, seconds, optimal, by_koma, finished) "
                 "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
SELECT_REPLAYS = (  # a player's finished games, newest first (the caller puts them oldest first)
    "SELECT r.player, COALESCE(p.name, r.player), r.game, r.start, r.moves, r.origins, r.seconds, r.optimal, r.by_koma, "
    "r.finished FROM replays r LEFT JOIN players p ON p.player = r.player WHERE r.player = ? AND (? IS NULL OR r.game = ?) "
    "ORDER BY r.finished DESC, r.id DESC LIMIT ?")
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


# --- the store --------------------------------------------------------------------------------------
class Store(LiveGames):
    """The game database; every method degrades to a notice instead of raising.

    ``timeout`` is how long a write waits for another process's lock before it counts as busy;
    after a failed write, the file is tried again ``retry_seconds`` later (writes wait in memory meanwhile).
    """

    def __init__(self, path: Path | str | None = None, player: str | None = None, name: str | None = None,
                 timeout: float = 5.0, retry_seconds: float = RETRY_SECONDS):
        self.in_memory = str(path) == MEMORY  # a session that keeps nothing (no file at all)
        self.path = Path(path) if path is not None else database_path()
        default_player, default_name = current_player()
        self.player = player or default_player
        self.player_name = name or (default_name if player is None else player.split(":", 1)[-1])
        self.timeout = timeout
        self.notices: list[str] = []
        self.notice_listener: Callable[[], None] | None = None  # the app shows notices as they come
        self.memory_only = False
        self.retry_seconds = retry_seconds
        self._told: set[str] = set()
        self._unsaved: dict[Any, Callable[[sqlite3.Connection], Any]] = {}  # writes the file has not taken yet
        self._unsaved_games: dict[str, SavedGame | None] = {}
        self._failing: str | None = None  # why the last write to the file failed
        self._next_try = 0.0
        self._file_closed = False  # True while the session runs in memory waiting for the file (busy, full)
        self._db = self._open()
        self._seen()

    # --- notices --------------------------------------------------------------------------------
    def _notice(self, message: str, once: bool = True) -> None:
        if once and message in self._told:
            return
        self._told.add(message)
        self.notices.append(message)
        if self.notice_listener is not None:
            self.notice_listener()

    def drain_notices(self) -> list[str]:
        out, self.notices = self.notices, []
        return out

    # --- opening ------------------------------------------------------------------------------------
    def _open(self) -> sqlite3.Connection:
        if self.in_memory:
            return self._memory()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as problem:
            self._notice(f"Cannot open {self.path} ({problem.strerror or problem}); games are not saved this session.")
            return self._memory()
        try:
            return self._open_file()
        except NewerSchema as newer:
            self._notice(f"{self.path.name} is from a newer Koma ({newer}); it is left untouched and games are "
                         "not saved this session.")
            return self._memory()
        except (sqlite3.Error, OSError) as problem:
            if isinstance(problem, sqlite3.Error) and is_damage(problem):
                return self._replace_damaged(problem)
            reason = why_not_saved(problem, self.path.parent)
            self._failing = reason
            self._notice(f"Not saved: {reason} ({_one_line(problem)}); {self.path.name} is left as it is, "
                         "your games are kept in memory and saved when it can be written again.")
            self._file_closed = True
            self._next_try = time.monotonic() + self.retry_seconds
            return self._memory(copy_of=self.path)

    def _open_file(self) -> sqlite3.Connection:
        """Connect to ``koma.db`` (creating it whole if missing), check it, bring it up to date."""
        created = self._create_if_missing()
        if not created and _size(self.path) == 0 and _size(Path(f"{self.path}-wal")) == 0:
            # every koma.db is created whole (see _create_if_missing), so an empty one lost its data
            self._notice(f"The saved games database {self.path.name} was empty (truncated?); started afresh.")
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
                self._notice(f"{set_aside} damaged row{'s' if set_aside != 1 else ''} of {self.path.name} did not fit "
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
            self._notice(f"Cannot open {self.path} ({_one_line(problem)}); games are not saved this session.")
            return self._memory()
        self._notice(f"The saved games database was unreadable ({_one_line(problem)}); moved it to {moved.name} "
                     "and started afresh.")
        try:
            return self._open_file()
        except (sqlite3.Error, OSError, NewerSchema) as again:
            self._notice(f"Cannot open {self.path} ({_one_line(again)}); games are not saved this session.")
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

    def _reopen(self) -> None:
        """After the file was busy or full at start: try it again; the session's writes then go to it."""
        try:
            disk = self._open_file()
        except (sqlite3.Error, OSError, NewerSchema):
            self._next_try = time.monotonic() + self.retry_seconds
            return
        self._db.close()
        self._db, self._file_closed, self.memory_only = disk, False, False

    def close(self) -> None:
        """Write what is still waiting (one last try), then close."""
        self._flush(force=True)
        try:
            self._db.close()
        except sqlite3.Error:  # pragma: no cover
            pass

    # --- reading and writing -------------------------------------------------------------------------
    def _read(self, sql: str, args: tuple = ()) -> list[tuple]:
        """Run one query; a failure becomes a notice (once) and an empty result."""
        try:
            return self._db.execute(sql, args).fetchall()
        except sqlite3.Error as problem:
            reason = why_not_saved(problem, self.path.parent)
            self._notice(f"Could not read the saved games ({reason}: {_one_line(problem)}); koma doctor checks the database.")
            return []

    def _rows(self, table: str, rows: list[tuple], check: Callable[[tuple], Any], what: str) -> Iterator[Any]:
        """The rows that pass ``check``; a damaged one is skipped with a notice."""
        for row in rows:
            try:
                yield check(row)
            except BadRow as bad:
                self._notice(f"Skipped a damaged row of {table} ({what}: {bad}); koma doctor lists it.")

    def _write(self, key: Any, change: Callable[[sqlite3.Connection], Any]) -> tuple[bool, Any]:
        """Make one change (a transaction) now, or keep it in memory to retry: nothing is lost to a lock
        or a full disk.  ``key`` names a change a later one replaces (a game's save); None never is.
        Returns (done, the change's result)."""
        self._unsaved.pop(key, None)
        key = key if key is not None else object()
        self._unsaved[key] = change
        if self.memory_only and not self._file_closed:  # no file this session: memory is the store
            self._saved(key)
            return self._attempt(change)
        if self._file_closed:
            outcome = self._attempt(change)  # in memory, so reads see it; it stays queued for the file
            self._flush()
            return outcome
        result = self._flush()
        done = key not in self._unsaved  # then it ran last in the flush, and result is its
        return done, result if done else None

    def _attempt(self, change: Callable[[sqlite3.Connection], Any]) -> tuple[bool, Any]:
        try:
            return True, _transaction(self._db, change)
        except sqlite3.Error:
            return False, None

    def _saved(self, key: Any) -> None:
        del self._unsaved[key]
        if isinstance(key, tuple) and key[0] == "game":
            self._unsaved_games.pop(key[1], None)

    def _flush(self, force: bool = False) -> Any:
        """Write the waiting changes in order (returns the last one's result); stop at a busy or full file
        and say so, once."""
        result = None
        if not self._unsaved or (not force and time.monotonic() < self._next_try):
            return result
        if self._file_closed:
            self._reopen()
            if self._file_closed:
                return result
        for key, change in list(self._unsaved.items()):
            try:
                result = _transaction(self._db, change)
            except sqlite3.Error as problem:
                if isinstance(problem, sqlite3.OperationalError) or is_damage(problem):
                    reason = why_not_saved(problem, self.path.parent)
                    if self._failing != reason:
                        self._failing = reason
                        self._notice(f"Not saved: {reason} ({_one_line(problem)}); play goes on, your game is "
                                     "kept in memory and Koma saves it when it can.", once=False)
                    self._next_try = time.monotonic() + self.retry_seconds
                    return None
                self._notice(f"A change was refused by the database ({_one_line(problem)}); it is dropped.")
                result = None
            self._saved(key)
        if self._failing is not None:
            self._notice(f"Saved again: what waited during the {self._failing} is in {self.path.name} now.", once=False)
            self._failing = None
        return result

    # --- games -------------------------------------------------------------------------------
    def load_game(self, puzzle: str) -> SavedGame | None:
        if puzzle in self._unsaved_games:
            return self._unsaved_games[puzzle]
        rows = self._read(SELECT_GAME, (self.player, puzzle))
        return next(self._rows("games", rows, game_from_row, f"player {self.player}, {puzzle}"), None)

    def save_game(self, puzzle: str, game: SavedGame) -> None:
        args = (self.player, puzzle, game.start, json.dumps(game.moves), game.origins, game.position, game.seconds,
                game.hints, time.time())
        self._unsaved_games[puzzle] = game
        self._write(("game", puzzle), lambda db: db.execute(UPSERT_GAME, args))

    def clear_game(self, puzzle: str) -> None:
        args = (self.player, puzzle)
        self._unsaved_games[puzzle] = None
        self._write(("game", puzzle), lambda db: db.execute(DELETE_GAME, args))

    def games_in_progress(self) -> dict[str, SavedGame]:
        keys = {p for (p,) in self._read(SELECT_GAME_KEYS, (self.player,)) if isinstance(p, str)} | set(self._unsaved_games)
        return {p: g for p in sorted(keys) if (g := self.load_game(p)) is not None}

    # --- stats -------------------------------------------------------------------------------
    def stats(self, puzzle: str) -> Stats:
        rows = self._read(SELECT_STATS, (self.player, puzzle))
        return next(self._rows("stats", rows, stats_from_row, f"player {self.player}, {puzzle}"), Stats())

    def record_win(self, puzzle: str, moves: int, optimal: int | None, seconds: float) -> Stats:
        """Count a game the player solved; keep the best moves (with that game's optimum) and the best time."""
        return self._update_stats(puzzle, lambda old: after_win(old, moves, optimal, seconds))

    def record_koma_finish(self, puzzle: str) -> Stats:
        return self._update_stats(puzzle, lambda old: Stats(old.solved, old.by_koma + 1, old.best_moves, old.best_optimal,
                                                            old.best_seconds))

    def _update_stats(self, puzzle: str, update: Callable[[Stats], Stats]) -> Stats:
        """Read-modify-write of one stats row; if it waits in memory, the figures it will write."""
        def change(db: sqlite3.Connection) -> Stats:
            rows = db.execute(SELECT_STATS, (self.player, puzzle)).fetchall()
            old = next(self._rows("stats", rows, stats_from_row, f"player {self.player}, {puzzle}"), Stats())
            new = update(old)
            db.execute(UPSERT_STATS, (self.player, puzzle, new.solved, new.by_koma, new.best_moves, new.best_optimal,
                                      new.best_seconds, time.time()))
            return new

        done, new = self._write(None, change)
        return new if done else update(self.stats(puzzle))

    # --- players, daily results, leaderboards -----------------------------------------------------
    def _seen(self) -> None:
        now = time.time()
        args = (self.player, self.player_name, now, now)
        self._write(("seen",), lambda db: db.execute(UPSERT_PLAYER, args))

    def record_daily(self, day: str, puzzle: str, moves: int, optimal: int | None, seconds: float,
                     hints: int = 0) -> int | None:
        """Keep the player's best result on ``day``'s board of ``puzzle``; returns the player's rank that day
        (None while the result waits to be saved)."""
        def change(db: sqlite3.Connection) -> None:
            rows = db.execute(SELECT_RESULT, (day, puzzle, self.player)).fetchall()
            old = next(self._rows("results", [(self.player, "", *row, 0) for row in rows], result_from_row,
                                  f"{day} {puzzle}, player {self.player}"), None)
            if old is None or rank_key(moves, optimal, seconds) < rank_key(old.moves, old.optimal, old.seconds):
                db.execute(UPSERT_RESULT, (day, puzzle, self.player, moves, optimal, seconds, hints, time.time()))

        done, _ = self._write(None, change)
        if not done:
            return None
        board = self.leaderboard(day, puzzle, limit=None)
        return next((k for k, r in enumerate(board, 1) if r.player == self.player), None)

    def leaderboard(self, day: str, puzzle: str, limit: int | None = 20) -> list[Result]:
        """The day's ranked results for a puzzle: fewest moves over optimal, then fewest moves, then time."""
        rows = self._read(SELECT_RESULTS, (day, puzzle))
        results = self._rows("results", rows, result_from_row, f"{day} {puzzle}")
        ranked = sorted(results, key=lambda r: (*rank_key(r.moves, r.optimal, r.seconds), r.name))
        return ranked if limit is None else ranked[:limit]

    def daily_result(self, day: str, puzzle: str) -> Result | None:
        return next((r for r in self.leaderboard(day, puzzle, limit=None) if r.player == self.player), None)

    # --- replays ------------------------------------------------------------------------------------
    def record_replay(self, replay: Replay) -> None:
        """Keep a finished game of this player's, move by move."""
        args = (self.player, replay.game, replay.puzzle, replay.start, json.dumps(replay.moves), replay.origins,
                replay.seconds, replay.optimal, int(replay.by_koma), replay.finished or time.time())
        self._write(None, lambda db: db.execute(INSERT_REPLAY, args))

    def replays(self, player: str | None = None, game: str | None = None, limit: int = REPLAYS_KEPT) -> list[Replay]:
        """``player``'s (else this player's) last ``limit`` finished games, of one game key if given, oldest first."""
        who = player or self.player
        rows = self._read(SELECT_REPLAYS, (who, game, game, limit))
        return list(self._rows("replays", rows, replay_from_row, f"player {who}"))[::-1]

    # --- live spectating (see tui.game.live) ----------------------------------------------------------
    # --- live games and watching (the methods are tui.game.live.LiveGames's) -------------------------
    def _live_read(self, sql: str, args: tuple) -> list[tuple]:
        return self._read(sql, args)

    def _live_write(self, key: tuple, sql: str, args: tuple) -> None:
        self._write(key, lambda db: db.execute(sql, args))

    def _live_rows(self, rows: list[tuple], check: Callable[[tuple], Any], where: str) -> Iterator[Any]:
        return self._rows("games", rows, check, where)


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
                return trouble("damaged", f"{path.name} is damaged ({_one_line(Exception(check[0][0]))})")
            tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            for table, sql in SELECT_ALL.items():
                for row in db.execute(sql) if table in tables else ():
                    try:
                        ROW_CHECKS[table](row[2:])
                    except BadRow as bad:
                        report["bad_rows"].append(f"{table}: {row[0]}, {row[1]}: {bad}")
            if "rejected_rows" in tables:
                report["rejected_rows"] = [f"{source}: {_one_line(Exception(data))}" for source, data in db.execute(SELECT_REJECTED)]
    except sqlite3.Error as problem:
        if is_damage(problem):
            return trouble("damaged", f"{path.name} is damaged ({_one_line(problem)})")
        return trouble("unreadable", f"{path.name} cannot be read now ({why_not_saved(problem, path.parent)}: "
                                     f"{_one_line(problem)})")
    report["state"] = "ok"
    return report


def _transaction(db: sqlite3.Connection, change: Callable[[sqlite3.Connection], Any]) -> Any:
    """``BEGIN IMMEDIATE`` … ``COMMIT`` around one change; rolled back if any part fails."""
    db.execute("BEGIN IMMEDIATE")
    try:
        result = change(db)
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            try:
                db.execute("ROLLBACK")
            except sqlite3.Error:
                pass
        raise
    return result


def _one_line(problem: BaseException) -> str:
    return " ".join(str(problem).split())[:160] or type(problem).__name__


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
