"""Saved games, stats, daily results and leaderboards in SQLite (stdlib ``sqlite3``, WAL), per player.

The database is ``koma.db`` in ``$KOMA_DATA_DIR`` or the user data dir (platformdirs).  Everything is
kept per *player*: ``$KOMA_PLAYER`` (set by ``koma serve`` to ``user:NAME`` or ``key:SHA256:...``),
else ``local``, the local user's profile.  One row per player and game key (a puzzle id such as
``8``, ``15``, ``goat``, ``ura-3x3``, ``sliding-3x4``, or ``daily/2025-01-31/8`` for a daily board)
holds the game in progress: the start board in the puzzle's notation, every move played, who played
it (``p`` the player, ``k`` Koma's playback), the undo position and the time spent.  Another row per
player and puzzle id holds the stats, and ``results`` holds each player's best daily result, which
the leaderboards rank (games Koma finished are never ranked).

Many sessions write at once (``koma serve``): WAL, a busy timeout, and read-modify-write updates in
``BEGIN IMMEDIATE`` transactions.  A version 1 database (one profile) is migrated in place: its
games and stats become the ``local`` player's.

Nothing here raises to the caller: a corrupt or unreadable database is moved aside with a one-line
notice (see :attr:`Store.notices`) and a fresh one is started; if even that fails, the store keeps
everything in memory for the session.  This module never imports Textual.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

from solver.engines.paths import data_dir
from tui.game.players import current_player

DB_NAME = "koma.db"
SCHEMA_VERSION = 2
SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    player   TEXT NOT NULL,
    puzzle   TEXT NOT NULL,      -- the game key: a puzzle id, or daily/DAY/PUZZLE-ID
    start    TEXT NOT NULL,
    moves    TEXT NOT NULL,      -- JSON list of move names
    origins  TEXT NOT NULL,      -- one letter per move: p = player, k = Koma
    position INTEGER NOT NULL,   -- moves[:position] are on the board, the rest can be redone
    seconds  REAL NOT NULL,
    hints    INTEGER NOT NULL DEFAULT 0,
    updated  REAL NOT NULL,
    PRIMARY KEY (player, puzzle)
);
CREATE TABLE IF NOT EXISTS stats (
    player        TEXT NOT NULL,
    puzzle        TEXT NOT NULL,
    solved        INTEGER NOT NULL DEFAULT 0,
    by_koma       INTEGER NOT NULL DEFAULT 0,
    best_moves    INTEGER,
    best_optimal  INTEGER,
    best_seconds  REAL,
    updated       REAL NOT NULL,
    PRIMARY KEY (player, puzzle)
);
CREATE TABLE IF NOT EXISTS players (
    player     TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    first_seen REAL NOT NULL,
    last_seen  REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS results (
    day      TEXT NOT NULL,      -- YYYY-MM-DD (UTC)
    puzzle   TEXT NOT NULL,      -- puzzle id
    player   TEXT NOT NULL,
    moves    INTEGER NOT NULL,
    optimal  INTEGER,            -- the board's optimal length, when known
    seconds  REAL NOT NULL,
    hints    INTEGER NOT NULL DEFAULT 0,
    finished REAL NOT NULL,
    PRIMARY KEY (day, puzzle, player)
);
"""
MIGRATE_1_TO_2 = """
ALTER TABLE games RENAME TO games_v1;
ALTER TABLE stats RENAME TO stats_v1;
""" + SCHEMA + """
INSERT INTO games (player, puzzle, start, moves, origins, position, seconds, hints, updated)
    SELECT 'local', puzzle, start, moves, origins, position, seconds, hints, updated FROM games_v1;
INSERT INTO stats (player, puzzle, solved, by_koma, best_moves, best_optimal, best_seconds, updated)
    SELECT 'local', puzzle, solved, by_koma, best_moves, best_optimal, best_seconds, updated FROM stats_v1;
DROP TABLE games_v1;
DROP TABLE stats_v1;
PRAGMA user_version = 2;
"""


def database_path() -> Path:
    return data_dir() / DB_NAME


@dataclass
class Result:
    """A ranked daily result: the player's best game on one day's board of one puzzle."""

    player: str
    name: str
    moves: int
    optimal: int | None
    seconds: float
    hints: int = 0

    @property
    def excess(self) -> int | None:
        return None if self.optimal is None else self.moves - self.optimal


@dataclass
class SavedGame:
    """A game in progress: ``moves[:position]`` lead from ``start`` to the board shown."""

    start: str
    moves: list[str] = field(default_factory=list)
    origins: str = ""
    position: int = 0
    seconds: float = 0.0
    hints: int = 0


@dataclass
class Stats:
    """Per-puzzle results: games solved by the player, games Koma finished, and the bests."""

    solved: int = 0
    by_koma: int = 0
    best_moves: int | None = None
    best_optimal: int | None = None
    best_seconds: float | None = None


class Store:
    """The game database; every method degrades to a notice instead of raising."""

    def __init__(self, path: Path | str | None = None, player: str | None = None, name: str | None = None):
        self.path = Path(path) if path is not None else database_path()
        default_player, default_name = current_player()
        self.player = player or default_player
        self.player_name = name or (default_name if player is None else player.split(":", 1)[-1])
        self.notices: list[str] = []
        self.memory_only = False
        self._db = self._open()
        self._seen()

    # --- opening -----------------------------------------------------------------------------
    def _connect(self, target: str) -> sqlite3.Connection:
        db = sqlite3.connect(target, timeout=5.0, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA busy_timeout = 5000")
        if target != ":memory:":
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")
        if db.execute("PRAGMA quick_check").fetchone()[0] != "ok":
            db.close()
            raise sqlite3.DatabaseError("integrity check failed")
        try:
            self._upgrade(db)
        except sqlite3.DatabaseError:
            db.close()
            raise
        return db

    @staticmethod
    def _upgrade(db: sqlite3.Connection) -> None:
        """Create the tables, or migrate a version 1 database; one writer at a time does it."""
        if db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
            return
        db.execute("BEGIN IMMEDIATE")
        try:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version == 0:
                script = SCHEMA + f"PRAGMA user_version = {SCHEMA_VERSION};"
            elif version == 1:
                script = MIGRATE_1_TO_2
            elif version == SCHEMA_VERSION:
                script = ""
            else:
                raise sqlite3.DatabaseError(f"schema version {version}, expected {SCHEMA_VERSION}")
            for statement in script.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _open(self) -> sqlite3.Connection:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if self.path.is_file() and self.path.stat().st_size == 0 and not _has_data(str(self.path) + "-wal"):
                # Koma writes its tables on creation, so an empty file is a database that was lost
                self.notices.append(f"The saved games database {self.path.name} was empty (truncated?); "
                                    "started afresh.")
            return self._connect(str(self.path))
        except sqlite3.DatabaseError as problem:
            moved = self._move_aside()
            if moved is not None:
                self.notices.append(f"The saved games database was unreadable ({problem}); "
                                    f"moved it to {moved.name} and started afresh.")
                try:
                    return self._connect(str(self.path))
                except (sqlite3.Error, OSError):
                    pass
        except OSError as problem:
            self.notices.append(f"Cannot open {self.path} ({problem.strerror or problem}); "
                                "games are not saved this session.")
            return self._memory()
        except sqlite3.Error as problem:  # pragma: no cover - other sqlite failures
            self.notices.append(f"Cannot open {self.path} ({problem}); games are not saved this session.")
            return self._memory()
        self.notices.append(f"Cannot open {self.path}; games are not saved this session.")
        return self._memory()

    def _memory(self) -> sqlite3.Connection:
        self.memory_only = True
        return self._connect(":memory:")

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

    def _run(self, sql: str, args: tuple = ()) -> list[tuple]:
        """Run one statement; a failure becomes a notice (once) and an empty result."""
        try:
            return self._db.execute(sql, args).fetchall()
        except sqlite3.Error as problem:
            message = f"Could not use the saved games database ({problem}); play goes on unsaved."
            if message not in self.notices:
                self.notices.append(message)
            return []

    def drain_notices(self) -> list[str]:
        out, self.notices = self.notices, []
        return out

    def close(self) -> None:
        try:
            self._db.close()
        except sqlite3.Error:  # pragma: no cover
            pass

    # --- games -------------------------------------------------------------------------------
    def load_game(self, puzzle: str) -> SavedGame | None:
        rows = self._run("SELECT start, moves, origins, position, seconds, hints FROM games WHERE player = ? AND puzzle = ?",
                         (self.player, puzzle))
        if not rows:
            return None
        start, moves, origins, position, seconds, hints = rows[0]
        try:
            move_list = [str(m) for m in json.loads(moves)]
        except (ValueError, TypeError):
            return None
        origins = (origins or "").ljust(len(move_list), "p")[:len(move_list)]
        position = max(0, min(int(position), len(move_list)))
        return SavedGame(str(start), move_list, origins, position, float(seconds), int(hints))

    def save_game(self, puzzle: str, game: SavedGame) -> None:
        self._run(
            "INSERT INTO games (player, puzzle, start, moves, origins, position, seconds, hints, updated) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(player, puzzle) DO UPDATE SET start = excluded.start, "
            "moves = excluded.moves, origins = excluded.origins, position = excluded.position, "
            "seconds = excluded.seconds, hints = excluded.hints, updated = excluded.updated",
            (self.player, puzzle, game.start, json.dumps(game.moves), game.origins, game.position, game.seconds, game.hints,
             time.time()),
        )

    def clear_game(self, puzzle: str) -> None:
        self._run("DELETE FROM games WHERE player = ? AND puzzle = ?", (self.player, puzzle))

    def games_in_progress(self) -> dict[str, SavedGame]:
        return {p: g for (p,) in self._run("SELECT puzzle FROM games WHERE player = ?", (self.player,))
                if (g := self.load_game(p)) is not None}

    # --- stats -------------------------------------------------------------------------------
    def stats(self, puzzle: str) -> Stats:
        rows = self._run("SELECT solved, by_koma, best_moves, best_optimal, best_seconds FROM stats "
                         "WHERE player = ? AND puzzle = ?", (self.player, puzzle))
        return Stats(*rows[0]) if rows else Stats()

    def record_win(self, puzzle: str, moves: int, optimal: int | None, seconds: float) -> Stats:
        """Count a game the player solved; keep the best moves (with that game's optimum) and the best time."""
        with self._transaction():
            old = self.stats(puzzle)
            new = Stats(old.solved + 1, old.by_koma, old.best_moves, old.best_optimal, old.best_seconds)
            if new.best_moves is None or _excess(moves, optimal) < _excess(new.best_moves, new.best_optimal):
                new.best_moves, new.best_optimal = moves, optimal
            if new.best_seconds is None or seconds < new.best_seconds:
                new.best_seconds = seconds
            self._write_stats(puzzle, new)
        return new

    def record_koma_finish(self, puzzle: str) -> Stats:
        with self._transaction():
            old = self.stats(puzzle)
            new = Stats(old.solved, old.by_koma + 1, old.best_moves, old.best_optimal, old.best_seconds)
            self._write_stats(puzzle, new)
        return new

    def _write_stats(self, puzzle: str, s: Stats) -> None:
        self._run(
            "INSERT INTO stats (player, puzzle, solved, by_koma, best_moves, best_optimal, best_seconds, updated) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(player, puzzle) DO UPDATE SET solved = excluded.solved, "
            "by_koma = excluded.by_koma, best_moves = excluded.best_moves, best_optimal = excluded.best_optimal, "
            "best_seconds = excluded.best_seconds, updated = excluded.updated",
            (self.player, puzzle, s.solved, s.by_koma, s.best_moves, s.best_optimal, s.best_seconds, time.time()),
        )

    # --- players, daily results, leaderboards -----------------------------------------------------
    def _seen(self) -> None:
        now = time.time()
        self._run("INSERT INTO players (player, name, first_seen, last_seen) VALUES (?, ?, ?, ?) "
                  "ON CONFLICT(player) DO UPDATE SET name = excluded.name, last_seen = excluded.last_seen",
                  (self.player, self.player_name, now, now))

    def record_daily(self, day: str, puzzle: str, moves: int, optimal: int | None, seconds: float,
                     hints: int = 0) -> int | None:
        """Keep the player's best result on ``day``'s board of ``puzzle``; returns the player's rank that day."""
        with self._transaction():
            rows = self._run("SELECT moves, optimal, seconds FROM results WHERE day = ? AND puzzle = ? AND player = ?",
                             (day, puzzle, self.player))
            if not rows or _rank_key(moves, optimal, seconds) < _rank_key(*rows[0]):
                self._run("INSERT INTO results (day, puzzle, player, moves, optimal, seconds, hints, finished) "
                          "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(day, puzzle, player) DO UPDATE SET "
                          "moves = excluded.moves, optimal = excluded.optimal, seconds = excluded.seconds, "
                          "hints = excluded.hints, finished = excluded.finished",
                          (day, puzzle, self.player, moves, optimal, seconds, hints, time.time()))
        board = self.leaderboard(day, puzzle, limit=None)
        return next((k for k, r in enumerate(board, 1) if r.player == self.player), None)

    def leaderboard(self, day: str, puzzle: str, limit: int | None = 20) -> list[Result]:
        """The day's ranked results for a puzzle: fewest moves over optimal, then fewest moves, then time."""
        rows = self._run(
            "SELECT r.player, COALESCE(p.name, r.player), r.moves, r.optimal, r.seconds, r.hints FROM results r "
            "LEFT JOIN players p ON p.player = r.player WHERE r.day = ? AND r.puzzle = ?", (day, puzzle))
        ranked = sorted((Result(*row) for row in rows), key=lambda r: (*_rank_key(r.moves, r.optimal, r.seconds), r.name))
        return ranked if limit is None else ranked[:limit]

    def daily_result(self, day: str, puzzle: str) -> Result | None:
        return next((r for r in self.leaderboard(day, puzzle, limit=None) if r.player == self.player), None)

    def _transaction(self):
        """``BEGIN IMMEDIATE`` … ``COMMIT`` around a read-modify-write (nothing if the database failed)."""
        from contextlib import contextmanager

        @contextmanager
        def transaction():
            try:
                self._db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error:
                yield  # already in one, or the database is unusable: _run reports problems
                return
            try:
                yield
            finally:
                try:
                    self._db.execute("COMMIT")
                except sqlite3.Error as problem:
                    self._run("ROLLBACK")
                    message = f"Could not use the saved games database ({problem}); play goes on unsaved."
                    if message not in self.notices:
                        self.notices.append(message)

        return transaction()


def _has_data(path: str) -> bool:
    try:
        return os.path.getsize(path) > 0
    except OSError:
        return False


def _rank_key(moves: int, optimal: int | None, seconds: float) -> tuple:
    return (*_excess(moves, optimal), seconds)


def _excess(moves: int, optimal: int | None) -> tuple[int, int]:
    """How a result ranks: moves over the optimum first (unknown optimum ranks last), then raw moves."""
    return (moves - optimal if optimal is not None else 10**9, moves)
