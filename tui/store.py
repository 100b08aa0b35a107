"""Saved games and per-puzzle stats in SQLite (stdlib ``sqlite3``, WAL), shared by concurrent sessions.

The database is ``koma.db`` in ``$KOMA_DATA_DIR`` or the user data dir (platformdirs).  One row per
puzzle id (``8``, ``15``, ``goat``, ``ura-3x3``, ``sliding-3x4``) holds the game in progress: the
start board in the puzzle's notation, every move played, who played it (``p`` the player, ``k``
Koma's playback), the undo position and the time spent.  Another row per puzzle id holds the stats.

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

DB_NAME = "koma.db"
SCHEMA_VERSION = 1
SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    puzzle   TEXT PRIMARY KEY,
    start    TEXT NOT NULL,
    moves    TEXT NOT NULL,      -- JSON list of move names
    origins  TEXT NOT NULL,      -- one letter per move: p = player, k = Koma
    position INTEGER NOT NULL,   -- moves[:position] are on the board; the rest can be redone
    seconds  REAL NOT NULL,
    hints    INTEGER NOT NULL DEFAULT 0,
    updated  REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS stats (
    puzzle        TEXT PRIMARY KEY,
    solved        INTEGER NOT NULL DEFAULT 0,
    by_koma       INTEGER NOT NULL DEFAULT 0,
    best_moves    INTEGER,
    best_optimal  INTEGER,
    best_seconds  REAL,
    updated       REAL NOT NULL
);
"""


def data_dir() -> Path:
    """Where saves and stats live: ``$KOMA_DATA_DIR`` or the user data dir."""
    override = os.environ.get("KOMA_DATA_DIR")
    if override:
        return Path(override)
    from platformdirs import user_data_path

    return user_data_path("koma")


def database_path() -> Path:
    return data_dir() / DB_NAME


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

    def __init__(self, path: Path | str | None = None):
        self.path = Path(path) if path is not None else database_path()
        self.notices: list[str] = []
        self.memory_only = False
        self._db = self._open()

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
        db.executescript(SCHEMA)
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version == 0:
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        elif version != SCHEMA_VERSION:
            db.close()
            raise sqlite3.DatabaseError(f"schema version {version}, expected {SCHEMA_VERSION}")
        return db

    def _open(self) -> sqlite3.Connection:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
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
        rows = self._run("SELECT start, moves, origins, position, seconds, hints FROM games WHERE puzzle = ?", (puzzle,))
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
            "INSERT INTO games (puzzle, start, moves, origins, position, seconds, hints, updated) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(puzzle) DO UPDATE SET start = excluded.start, "
            "moves = excluded.moves, origins = excluded.origins, position = excluded.position, "
            "seconds = excluded.seconds, hints = excluded.hints, updated = excluded.updated",
            (puzzle, game.start, json.dumps(game.moves), game.origins, game.position, game.seconds, game.hints,
             time.time()),
        )

    def clear_game(self, puzzle: str) -> None:
        self._run("DELETE FROM games WHERE puzzle = ?", (puzzle,))

    def games_in_progress(self) -> dict[str, SavedGame]:
        return {p: g for (p,) in self._run("SELECT puzzle FROM games") if (g := self.load_game(p)) is not None}

    # --- stats -------------------------------------------------------------------------------
    def stats(self, puzzle: str) -> Stats:
        rows = self._run("SELECT solved, by_koma, best_moves, best_optimal, best_seconds FROM stats WHERE puzzle = ?",
                         (puzzle,))
        return Stats(*rows[0]) if rows else Stats()

    def record_win(self, puzzle: str, moves: int, optimal: int | None, seconds: float) -> Stats:
        """Count a game the player solved; keep the best moves (with that game's optimum) and the best time."""
        old = self.stats(puzzle)
        new = Stats(old.solved + 1, old.by_koma, old.best_moves, old.best_optimal, old.best_seconds)
        if new.best_moves is None or _excess(moves, optimal) < _excess(new.best_moves, new.best_optimal):
            new.best_moves, new.best_optimal = moves, optimal
        if new.best_seconds is None or seconds < new.best_seconds:
            new.best_seconds = seconds
        self._write_stats(puzzle, new)
        return new

    def record_koma_finish(self, puzzle: str) -> Stats:
        old = self.stats(puzzle)
        new = Stats(old.solved, old.by_koma + 1, old.best_moves, old.best_optimal, old.best_seconds)
        self._write_stats(puzzle, new)
        return new

    def _write_stats(self, puzzle: str, s: Stats) -> None:
        self._run(
            "INSERT INTO stats (puzzle, solved, by_koma, best_moves, best_optimal, best_seconds, updated) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(puzzle) DO UPDATE SET solved = excluded.solved, "
            "by_koma = excluded.by_koma, best_moves = excluded.best_moves, best_optimal = excluded.best_optimal, "
            "best_seconds = excluded.best_seconds, updated = excluded.updated",
            (puzzle, s.solved, s.by_koma, s.best_moves, s.best_optimal, s.best_seconds, time.time()),
        )


def _excess(moves: int, optimal: int | None) -> tuple[int, int]:
    """How a result ranks: moves over the optimum first (unknown optimum ranks last), then raw moves."""
    return (moves - optimal if optimal is not None else 10**9, moves)
