"""Saved games, stats, daily results and leaderboards in PostgreSQL (psycopg 3), shared by every replica.

The same public API and rows as :class:`tui.game.store.Store` (see there for what each table holds), for
``koma serve`` replicas on several boxes.  The schema comes from versioned SQL files
(:mod:`tui.game.postgres_schema`).  Concurrent writers are safe: plain writes are upserts, and each
read-modify-write (stats, a daily result) runs in one transaction holding the player's advisory lock, so
one player playing in two sessions on two replicas loses no update.  Statements are never prepared
(``prepare_threshold=None``), so the store also works through PgBouncer in transaction mode.

Nothing here raises to the caller once the store is open: a failed statement becomes a one-line notice
(:meth:`drain_notices`) and an empty result, and the next statement reconnects.  Opening raises
:class:`StoreUnavailable`; :func:`tui.game.stores.open_store` turns that into a notice and a fallback.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import psycopg

from tui.game.live import (
    LiveGames,
)
from tui.game.players import player_identity
from tui.game.postgres_schema import SchemaError, migrate
from tui.game.records import (
    REPLAYS_KEPT,
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

T = TypeVar("T")
CONNECT_TIMEOUT_SECONDS = 5
PLAYER_LOCK_CLASS = 0x4B6F6D61  # "Koma": the first half of a player's advisory lock key


class StoreUnavailable(Exception):
    """The database could not be opened (unreachable, refused, or a schema this Koma cannot use)."""


def connect(url: str) -> psycopg.Connection:
    """An autocommit connection that never prepares statements (PgBouncer's transaction mode allows none)."""
    return psycopg.connect(url, autocommit=True, prepare_threshold=None, connect_timeout=CONNECT_TIMEOUT_SECONDS,
                           application_name="koma")


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
        raise StoreUnavailable(one_line(problem)) from None
    return connection


class PostgresStore(LiveGames):
    """The game database in PostgreSQL; once open, every method degrades to a notice instead of raising."""

    memory_only = False
    _in_transaction = False

    def __init__(self, url: str, player: str | None = None, name: str | None = None, *, migrate_schema: bool = True):
        self.url = url
        self.player, self.player_name = player_identity(player, name)
        self.notices: list[str] = []
        self.notice_listener: Callable[[], None] | None = None  # told when a notice arrives
        self._db: psycopg.Connection | None = open_schema(url, migrate_schema)
        self._seen()

    # --- statements --------------------------------------------------------------------------------
    def _connection(self) -> psycopg.Connection:
        if self._db is None or self._db.closed or self._db.broken:
            if self._db is not None:
                self._db.close()
            self._db = None
            self._db = connect(self.url)
        return self._db

    def _run(self, sql: str, args: tuple = ()) -> list[tuple]:
        """Run one statement; a failure becomes a notice (once) and an empty result.  A statement outside a
        transaction whose connection was lost (a restarted server or PgBouncer) is retried once on a new one."""
        for retry in (False, True):
            try:
                cursor = self._connection().execute(sql, args)
                return cursor.fetchall() if cursor.description is not None else []
            except psycopg.Error as problem:
                if retry or self._in_transaction or self._db is None or not self._db.broken:
                    self._notice(problem)
                    return []
        return []  # pragma: no cover - the loop always returns

    def _notice(self, problem: Exception) -> None:
        self._tell(f"Could not use the saved games database ({one_line(problem)}); play goes on unsaved.")

    def _tell(self, message: str) -> None:
        if message not in self.notices:
            self.notices.append(message)
            if self.notice_listener is not None:
                self.notice_listener()

    def _checked(self, table: str, rows: list, check: Callable[[tuple], T], where: str) -> Iterator[T]:
        """The rows that pass the shared row checks; a bad one is skipped with a notice (it never stops the game)."""
        for row in rows:
            try:
                yield check(tuple(row))
            except BadRow as bad:
                self._tell(f"Skipped a damaged {table} row ({where}): {bad}.")

    @contextmanager
    def _player_transaction(self) -> Iterator[None]:
        """One transaction holding this player's advisory lock: the player's read-modify-writes run one at a time."""
        entered = False
        try:
            connection = self._connection()
            with connection.transaction():
                connection.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (PLAYER_LOCK_CLASS, self.player))
                entered = self._in_transaction = True
                try:
                    yield
                finally:
                    self._in_transaction = False
        except psycopg.Error as problem:
            self._notice(problem)
            if not entered:  # no transaction: the statements still run, and report their own failures
                yield

    def drain_notices(self) -> list[str]:
        out, self.notices = self.notices, []
        return out

    def close(self) -> None:
        if self._db is not None:
            self._db.close()

    # --- games -------------------------------------------------------------------------------------
    def load_game(self, puzzle: str) -> SavedGame | None:
        rows = self._run("SELECT start, moves, origins, position, seconds, hints FROM games WHERE player = %s AND puzzle = %s",
                         (self.player, puzzle))
        return next(self._checked("games", rows, game_from_row, f"player {self.player}, {puzzle}"), None)

    def save_game(self, puzzle: str, game: SavedGame) -> None:
        self._run(
            "INSERT INTO games (player, puzzle, start, moves, origins, position, seconds, hints, updated) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (player, puzzle) DO UPDATE SET start = excluded.start, "
            "moves = excluded.moves, origins = excluded.origins, position = excluded.position, "
            "seconds = excluded.seconds, hints = excluded.hints, updated = excluded.updated",
            (self.player, puzzle, game.start, json.dumps(game.moves), game.origins, game.position, game.seconds, game.hints,
             time.time()),
        )

    def clear_game(self, puzzle: str) -> None:
        self._run("DELETE FROM games WHERE player = %s AND puzzle = %s", (self.player, puzzle))

    def games_in_progress(self) -> dict[str, SavedGame]:
        rows = self._run("SELECT puzzle, start, moves, origins, position, seconds, hints FROM games WHERE player = %s",
                         (self.player,))
        return {str(row[0]): game for row in rows
                for game in self._checked("games", [row[1:]], game_from_row, f"player {self.player}, {row[0]}")}

    # --- stats -------------------------------------------------------------------------------------
    def stats(self, puzzle: str) -> Stats:
        rows = self._run("SELECT solved, by_koma, best_moves, best_optimal, best_seconds FROM stats "
                         "WHERE player = %s AND puzzle = %s", (self.player, puzzle))
        return next(self._checked("stats", rows, stats_from_row, f"player {self.player}, {puzzle}"), Stats())

    def record_win(self, puzzle: str, moves: int, optimal: int | None, seconds: float) -> Stats:
        """Count a game the player solved; keep the best moves (with that game's optimum) and the best time."""
        with self._player_transaction():
            new = after_win(self.stats(puzzle), moves, optimal, seconds)
            self._write_stats(puzzle, new)
        return new

    def record_koma_finish(self, puzzle: str) -> Stats:
        with self._player_transaction():
            old = self.stats(puzzle)
            new = Stats(old.solved, old.by_koma + 1, old.best_moves, old.best_optimal, old.best_seconds)
            self._write_stats(puzzle, new)
        return new

    def _write_stats(self, puzzle: str, s: Stats) -> None:
        self._run(
            "INSERT INTO stats (player, puzzle, solved, by_koma, best_moves, best_optimal, best_seconds, updated) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (player, puzzle) DO UPDATE SET solved = excluded.solved, "
            "by_koma = excluded.by_koma, best_moves = excluded.best_moves, best_optimal = excluded.best_optimal, "
            "best_seconds = excluded.best_seconds, updated = excluded.updated",
            (self.player, puzzle, s.solved, s.by_koma, s.best_moves, s.best_optimal, s.best_seconds, time.time()),
        )

    # --- players, daily results, leaderboards --------------------------------------------------------
    def _seen(self) -> None:
        now = time.time()
        self._run("INSERT INTO players (player, name, first_seen, last_seen) VALUES (%s, %s, %s, %s) "
                  "ON CONFLICT (player) DO UPDATE SET name = excluded.name, last_seen = excluded.last_seen",
                  (self.player, self.player_name, now, now))

    def record_daily(self, day: str, puzzle: str, moves: int, optimal: int | None, seconds: float,
                     hints: int = 0) -> int | None:
        """Keep the player's best result on ``day``'s board of ``puzzle``; returns the player's rank that day."""
        with self._player_transaction():
            rows = self._run("SELECT moves, optimal, seconds FROM results WHERE day = %s AND puzzle = %s AND player = %s",
                             (day, puzzle, self.player))
            if not rows or rank_key(moves, optimal, seconds) < rank_key(*rows[0]):
                self._run("INSERT INTO results (day, puzzle, player, moves, optimal, seconds, hints, finished) "
                          "VALUES (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (day, puzzle, player) DO UPDATE SET "
                          "moves = excluded.moves, optimal = excluded.optimal, seconds = excluded.seconds, "
                          "hints = excluded.hints, finished = excluded.finished",
                          (day, puzzle, self.player, moves, optimal, seconds, hints, time.time()))
        board = self.leaderboard(day, puzzle, limit=None)
        return next((k for k, r in enumerate(board, 1) if r.player == self.player), None)

    def leaderboard(self, day: str, puzzle: str, limit: int | None = 20) -> list[Result]:
        """The day's ranked results for a puzzle: fewest moves over optimal, then fewest moves, then time."""
        rows = self._run(
            "SELECT r.player, COALESCE(p.name, r.player), r.moves, r.optimal, r.seconds, r.hints FROM results r "
            "LEFT JOIN players p ON p.player = r.player WHERE r.day = %s AND r.puzzle = %s", (day, puzzle))
        results = self._checked("results", rows, result_from_row, f"{day} {puzzle}")
        ranked = sorted(results, key=lambda r: (*rank_key(r.moves, r.optimal, r.seconds), r.name))
        return ranked if limit is None else ranked[:limit]

    def daily_result(self, day: str, puzzle: str) -> Result | None:
        return next((r for r in self.leaderboard(day, puzzle, limit=None) if r.player == self.player), None)

    # --- replays ------------------------------------------------------------------------------------
    def record_replay(self, replay: Replay) -> None:
        """Keep a finished game of this player's, move by move."""
        self._run("INSERT INTO replays (player, game, puzzle, start, moves, origins, seconds, optimal, by_koma, finished) "
                  "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                  (self.player, replay.game, replay.puzzle, replay.start, json.dumps(replay.moves), replay.origins,
                   replay.seconds, replay.optimal, int(replay.by_koma), replay.finished or time.time()))

    def replays(self, player: str | None = None, game: str | None = None, limit: int = REPLAYS_KEPT) -> list[Replay]:
        """``player``'s (else this player's) last ``limit`` finished games, of one game key if given, oldest first."""
        who = player or self.player
        rows = self._run(
            "SELECT r.player, COALESCE(p.name, r.player), r.game, r.start, r.moves, r.origins, r.seconds, r.optimal, "
            "r.by_koma, r.finished FROM replays r LEFT JOIN players p ON p.player = r.player "
            "WHERE r.player = %s AND (%s::text IS NULL OR r.game = %s) ORDER BY r.finished DESC, r.id DESC LIMIT %s",
            (who, game, game, limit))
        return list(self._checked("replays", rows, replay_from_row, f"player {who}"))[::-1]

    # --- live spectating (see tui.game.live: its statements, with %s for ?) -------------------------
    # --- live games and watching (the methods are tui.game.live.LiveGames's) -------------------------
    def _live_read(self, sql: str, args: tuple) -> list[tuple]:
        return self._run(sql.replace("?", "%s"), args)

    def _live_write(self, key: tuple, sql: str, args: tuple) -> None:
        self._run(sql.replace("?", "%s"), args)

    def _live_rows(self, rows: list[tuple], check: Callable[[tuple], Any], where: str) -> Iterator[Any]:
        return self._checked("games", rows, check, where)


def one_line(problem: BaseException) -> str:
    """An exception as one short line (psycopg's messages span several)."""
    text = " ".join(str(problem).split()) or type(problem).__name__
    return text[:300]
