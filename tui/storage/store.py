"""Saved games, stats, daily results, replays and live games: one store, every statement written once.

The store speaks to a :class:`Backend` (the seam, like harlequin's ``adapter.py``): SQLite
(:mod:`tui.storage.sqlite`, a file per box, the default) or PostgreSQL (:mod:`tui.storage.postgres`,
shared by replicas).  The two differ only in connecting, placeholders (``?`` here, turned into ``%s`` by the
PostgreSQL backend) and locking (SQLite's ``BEGIN IMMEDIATE``; PostgreSQL's per-player advisory lock).

Everything is per *player* (``$KOMA_PLAYER``, else ``local``).  A row of ``games`` per player and game key
(a puzzle id, or ``daily/DAY/ID``) holds the game in progress; ``stats`` the figures per puzzle; ``results``
each player's best daily result, which the leaderboards rank; ``replays`` every finished game move by move;
``watchers`` and ``players.watchable`` serve live spectating (:mod:`tui.storage.live`).  Races' rooms, rounds and racers
(``race_*``) are :mod:`tui.storage.race_rooms`'s.

Every method either answers or raises :class:`StoreError` (one line): a failed read is "unknown", never
"nothing saved".  Writes are idempotent, so the outbox (:mod:`tui.storage.outbox`) may replay them: a save
carries the changes its game has had (``version``) and the time it was accepted (``revision``), and never replaces
a newer one (:func:`save_replaces`: more changes, or as many and accepted no earlier), so neither a late replay nor
a game resumed from an older state of it writes over a newer save; a save guarded ``absent``
(the session could not read the row) never replaces a stored game at all; and a finish is applied once,
by its id (``applied_ops``).  A damaged row is skipped with a notice (:attr:`Store.notices`).  This module
never imports Textual.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from solver.errors import KomaError
from tui.game.daily import implausible_daily_game
from tui.game.plausibility import implausible_speed_solve
from tui.game.players import player_identity
from tui.game.records import REPLAYS_KEPT, Replay, Result, SavedGame, Stats, after_win, rank_key
from tui.game.speed import SINGLE, SpeedResult
from tui.game.speed_notation import parse_solution, solve_from_record
from tui.game.speed_records import LONGEST_WINDOW, Entry, Record, bests, better, current_figures
from tui.game.writes import FinishGame, Guard, RecordSpeedSolve
from tui.storage.backend import Backend, Query, StoreError, one_line
from tui.storage.live import LiveGames
from tui.storage.race_rooms import RaceRooms
from tui.storage.rows import BadRow, game_from_row, replay_from_row, result_from_row, stats_from_row
from tui.storage.sqlite import MEMORY, MIGRATIONS, SCHEMA_VERSION, SqliteBackend, database_path, inspect, run_script

__all__ = ["MEMORY", "MIGRATIONS", "SCHEMA_VERSION", "Backend", "Replay", "Result", "SavedGame", "Stats", "Store", "StoreError",
           "database_path", "inspect", "one_line", "run_script"]

# --- every statement the store runs, for both backends -----------------------------------------------
SELECT_GAME = ("SELECT start, moves, origins, position, seconds, hints, version, revision FROM games "
               "WHERE player = ? AND puzzle = ?")
SELECT_GAMES = "SELECT puzzle, start, moves, origins, position, seconds, hints, version FROM games WHERE player = ?"
UPSERT_GAME = (  # a save replaces only an older one (see save_replaces): an outbox may replay saves late, and a
    # game resumed from an older state (another session's moves still on their way) must not write over a newer one
    "INSERT INTO games (player, puzzle, start, moves, origins, position, seconds, hints, updated, revision, version) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (player, puzzle) DO UPDATE SET start = excluded.start, "
    "moves = excluded.moves, origins = excluded.origins, position = excluded.position, seconds = excluded.seconds, "
    "hints = excluded.hints, updated = excluded.updated, revision = excluded.revision, version = excluded.version "
    "WHERE games.version < excluded.version OR (games.version = excluded.version "
    "AND (games.revision IS NULL OR games.revision <= excluded.revision))")
INSERT_GAME_IF_ABSENT = (  # a session that could not read the row never replaces it
    "INSERT INTO games (player, puzzle, start, moves, origins, position, seconds, hints, updated, revision, version) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (player, puzzle) DO NOTHING")
DELETE_GAME = "DELETE FROM games WHERE player = ? AND puzzle = ? AND (revision IS NULL OR revision <= ?)"
SELECT_STATS = ("SELECT solved, by_koma, best_moves, best_optimal, best_seconds FROM stats "
                "WHERE player = ? AND puzzle = ?")
UPSERT_STATS = (
    "INSERT INTO stats (player, puzzle, solved, by_koma, best_moves, best_optimal, best_seconds, updated) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (player, puzzle) DO UPDATE SET solved = excluded.solved, "
    "by_koma = excluded.by_koma, best_moves = excluded.best_moves, best_optimal = excluded.best_optimal, "
    "best_seconds = excluded.best_seconds, updated = excluded.updated")
UPSERT_PLAYER = ("INSERT INTO players (player, name, first_seen, last_seen) VALUES (?, ?, ?, ?) "
                 "ON CONFLICT (player) DO UPDATE SET name = excluded.name, last_seen = excluded.last_seen")
CLAIM_NAME = "INSERT INTO player_names (name, player, claimed) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING"
SELECT_NAME_OWNER = "SELECT player FROM player_names WHERE name = ?"
SELECT_RESULT = "SELECT moves, optimal, seconds FROM results WHERE day = ? AND puzzle = ? AND player = ?"
SELECT_KEPT_RESULT = "SELECT moves, optimal, seconds, hints, unverified FROM results WHERE day = ? AND puzzle = ? AND player = ?"
UPSERT_RESULT = (
    "INSERT INTO results (day, puzzle, player, moves, optimal, seconds, hints, finished, unverified) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (day, puzzle, player) DO UPDATE SET "
    "moves = excluded.moves, optimal = excluded.optimal, seconds = excluded.seconds, "
    "hints = excluded.hints, finished = excluded.finished, unverified = excluded.unverified")
RANKED = "COALESCE(moves - optimal, 1000000000), moves, seconds, player"  # rank_key's order, as results_by_rank holds it
SELECT_RESULTS = (  # a day's board of a puzzle: its top (read by the index results_by_rank), names joined after; only
    # results a human could have set (tui.game.plausibility)
    "SELECT r.player, COALESCE(p.name, r.player), r.moves, r.optimal, r.seconds, r.hints FROM ("
    "SELECT player, moves, optimal, seconds, hints FROM results WHERE day = ? AND puzzle = ? AND unverified IS NULL "
    f"ORDER BY {RANKED} LIMIT ?"
    ") r LEFT JOIN players p ON p.player = r.player "
    "ORDER BY COALESCE(r.moves - r.optimal, 1000000000), r.moves, r.seconds, r.player")
SELECT_MY_RESULT = (
    "SELECT r.player, COALESCE(p.name, r.player), r.moves, r.optimal, r.seconds, r.hints, r.unverified FROM results r "
    "LEFT JOIN players p ON p.player = r.player WHERE r.day = ? AND r.puzzle = ? AND r.player = ?")
COUNT_AHEAD = (  # the results ranked before one (its rank is this + 1), and how many there are in all
    "SELECT count(*) FILTER (WHERE (COALESCE(moves - optimal, 1000000000), moves, seconds, player) < (?, ?, ?, ?)), "
    "count(*) FROM results WHERE day = ? AND puzzle = ? AND unverified IS NULL")
COUNT_RESULTS = "SELECT count(*) FROM results WHERE day = ? AND puzzle = ? AND unverified IS NULL"
BOARD_TOP = 100  # the most results a daily board reads (its top); the player's own row is read by itself
INSERT_REPLAY = ("INSERT INTO replays (player, game, puzzle, start, moves, origins, seconds, optimal, by_koma, finished) "
                 "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
SELECT_REPLAYS = (  # a player's finished games, newest first (the caller puts them oldest first)
    "SELECT r.player, COALESCE(p.name, r.player), r.game, r.start, r.moves, r.origins, r.seconds, r.optimal, r.by_koma, "
    "r.finished FROM replays r LEFT JOIN players p ON p.player = r.player "
    "WHERE r.player = ? AND (CAST(? AS TEXT) IS NULL OR r.game = ?) ORDER BY r.finished DESC, r.id DESC LIMIT ?")
INSERT_SPEED_SOLVE = (  # once per write: the outbox may replay it
    "INSERT INTO speed_solves (player, op, size, event, run, leg, scramble, moves, times, time_ms, dnf, finished, "
    "control, source, unverified, memo_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (op) DO NOTHING")
SPEED_COLUMNS = "size, event, run, leg, scramble, moves, times, dnf, control, source, finished, memo_ms"
SELECT_SPEED_SOLVES = (  # newest first (the caller puts them oldest first)
    f"SELECT {SPEED_COLUMNS} FROM speed_solves WHERE player = ? "
    "AND (CAST(? AS TEXT) IS NULL OR size = ?) ORDER BY finished DESC, id DESC LIMIT ?")
SELECT_RECORD_SOLVES = (  # one size and event's one-solve results, newest first (LIMIT -1: every one)
    "SELECT time_ms, dnf, moves, finished FROM speed_solves WHERE player = ? AND size = ? AND event = ? AND run = '' "
    "ORDER BY finished DESC, id DESC LIMIT ?")
SELECT_RECORDS = ("SELECT size, event, statistic, time_ms, moves, tps, achieved FROM speed_records WHERE player = ? "
                  "AND (CAST(? AS TEXT) IS NULL OR size = ?) AND (CAST(? AS TEXT) IS NULL OR event = ?)")
UPSERT_RECORD = (
    "INSERT INTO speed_records (player, size, event, statistic, time_ms, moves, tps, achieved) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (player, size, event, statistic) DO UPDATE SET "
    "time_ms = excluded.time_ms, moves = excluded.moves, tps = excluded.tps, achieved = excluded.achieved")
INSERT_RECORD_HISTORY = ("INSERT INTO speed_record_history (player, size, event, statistic, time_ms, moves, tps, achieved) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
SELECT_RECORD_HISTORY = (
    "SELECT statistic, time_ms, moves, tps, achieved FROM speed_record_history WHERE player = ? AND size = ? "
    "AND event = ? ORDER BY achieved, id")
DELETE_RECORDS = "DELETE FROM speed_records WHERE player = ? AND size = ? AND event = ?"
DELETE_RECORD_HISTORY = "DELETE FROM speed_record_history WHERE player = ? AND size = ? AND event = ?"
SELECT_STALE = "SELECT size, event FROM speed_records_stale WHERE player = ?"
DELETE_STALE = "DELETE FROM speed_records_stale WHERE player = ? AND size = ? AND event = ?"
SELECT_SPEED_LOOKS = "SELECT scheme, hover FROM speed_settings WHERE player = ?"
UPSERT_SPEED_LOOKS = ("INSERT INTO speed_settings (player, scheme, hover) VALUES (?, ?, ?) ON CONFLICT (player) "
                      "DO UPDATE SET scheme = excluded.scheme, hover = excluded.hover")
EVERY_ROW = 2**62  # a LIMIT that keeps every row (both databases take it)
UPSERT_SPEED_FIRST = (  # each player's first solve of an event and size (an outbox may bring an earlier one late)
    "INSERT INTO speed_firsts (event, size, player, solve, dnf, time_ms, finished, unverified) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (event, size, player) DO UPDATE SET solve = excluded.solve, "
    "dnf = excluded.dnf, time_ms = excluded.time_ms, finished = excluded.finished, unverified = excluded.unverified "
    "WHERE excluded.finished < speed_firsts.finished")
FIRST_SOLVE_COLUMNS = ("f.player, COALESCE(p.name, f.player), s.size, s.event, s.run, s.leg, s.scramble, s.moves, s.times, "
                       "s.dnf, s.control, s.source, s.finished, s.memo_ms, f.unverified, f.dnf, f.time_ms")
SELECT_EVENT_SOLVES = (  # the top of one event and size (the daily speed board): each player's first solve, by time,
    # if a human could have played it (tui.game.plausibility)
    f"SELECT {FIRST_SOLVE_COLUMNS} FROM (SELECT player, solve, dnf, time_ms, unverified FROM speed_firsts "
    "WHERE event = ? AND size = ? AND unverified IS NULL ORDER BY dnf, time_ms, player LIMIT ?) f "
    "JOIN speed_solves s ON s.id = f.solve LEFT JOIN players p ON p.player = f.player ORDER BY f.dnf, f.time_ms, f.player")
SELECT_MY_FIRST_SOLVE = (
    f"SELECT {FIRST_SOLVE_COLUMNS} FROM speed_firsts f JOIN speed_solves s ON s.id = f.solve "
    "LEFT JOIN players p ON p.player = f.player WHERE f.event = ? AND f.size = ? AND f.player = ?")
COUNT_FIRSTS_AHEAD = ("SELECT count(*) FROM speed_firsts WHERE event = ? AND size = ? AND unverified IS NULL "
                      "AND (dnf, time_ms, player) < (?, ?, ?)")
SPEED_SOLVES_READ = 1000  # the most a read brings back: ten ao100s' worth
CLAIM_OP = "INSERT INTO applied_ops (op, applied) VALUES (?, ?) ON CONFLICT (op) DO NOTHING"
FORGET_OLD_OPS = "DELETE FROM applied_ops WHERE applied < ?"
OPS_KEPT_SECONDS = 30 * 86400.0  # an outbox older than this is not replayed (see tui.storage.outbox)


class Store(LiveGames, RaceRooms):
    """One player's view of the database; see the module's docstring for what it keeps and how it fails."""

    def __init__(self, path: Path | str | None = None, player: str | None = None, name: str | None = None, *,
                 backend: Backend | None = None, timeout: float = 5.0):
        """On ``backend``, else on the SQLite file ``path`` (default: koma.db in the data dir; ``:memory:``
        keeps nothing).  ``timeout`` is how long a SQLite statement waits for another process's lock."""
        if backend is None:
            backend = SqliteBackend(path, timeout)
        self.backend = backend
        self.player, self.player_name = player_identity(player, name)
        self.notices: list[str] = list(backend.notices)
        backend.notices.clear()
        self._told: set[str] = set()  # each damaged row is told once a session, however often it is read

    @property
    def memory_only(self) -> bool:
        """True when nothing reaches a file or a server (the session plays unsaved)."""
        return self.backend.memory_only

    @property
    def where(self) -> str:
        return self.backend.where

    def drain_notices(self) -> list[str]:
        out, self.notices = self.notices, []
        return out

    def close(self) -> None:
        self.backend.close()

    def batch(self) -> AbstractContextManager[None]:
        """Every statement in the block in one transaction (the storage service's writer applies many ops so)."""
        return self.backend.batch()

    def _rows(self, table: str, rows: list[tuple], check: Callable[[tuple], Any], where: str) -> Iterator[Any]:
        """The rows that pass ``check``; a damaged one is skipped with a notice, once a session (it never stops
        the game, and a list read again and again does not say it again)."""
        for row in rows:
            try:
                yield check(tuple(row))
            except BadRow as bad:
                notice = f"Skipped a damaged row of {table} ({where}: {bad}); koma doctor lists it."
                if notice not in self._told:
                    self._told.add(notice)
                    self.notices.append(notice)

    # --- games -------------------------------------------------------------------------------------
    def load_game(self, key: str) -> SavedGame | None:
        """The game saved under ``key``; None when there is none (StoreError when that is not known)."""
        stamped = self.load_stamped_game(key)
        return None if stamped is None else stamped[0]

    def load_stamped_game(self, key: str) -> tuple[SavedGame, float] | None:
        """The game saved under ``key`` and its ``revision`` (when the save was accepted; 0 for a save from before
        the outbox); None when there is none (StoreError when that is not known)."""
        rows = self.backend.query(SELECT_GAME, (self.player, key))
        return next(self._rows("games", [tuple(row) for row in rows], _stamped_game, f"player {self.player}, {key}"),
                    None)

    def games_in_progress(self) -> dict[str, SavedGame]:
        rows = self.backend.query(SELECT_GAMES, (self.player,))
        return {str(row[0]): game for row in rows
                for game in self._rows("games", [tuple(row[1:])], game_from_row, f"player {self.player}, {row[0]}")}

    def save_game(self, key: str, game: SavedGame, *, at: float | None = None, guard: Guard = Guard.NONE) -> bool:
        """Save ``game`` under ``key``, accepted at ``at``; False if a newer save is stored (:func:`save_replaces`),
        or (guard ``ABSENT``) any game is stored."""
        at = time.time() if at is None else at
        sql = INSERT_GAME_IF_ABSENT if guard is Guard.ABSENT else UPSERT_GAME
        args = (self.player, key, game.start, json.dumps(game.moves), game.origins, game.position, game.seconds, game.hints,
                time.time(), at, game.version)
        return bool(self.backend.query(sql + " RETURNING puzzle", args))

    def clear_game(self, key: str, *, at: float | None = None) -> None:
        """Forget the game under ``key`` (won, or replaced), unless a save newer than ``at`` is stored."""
        self.backend.query(DELETE_GAME, (self.player, key, time.time() if at is None else at))

    # --- stats -------------------------------------------------------------------------------------
    def stats(self, puzzle: str) -> Stats:
        rows = self.backend.query(SELECT_STATS, (self.player, puzzle))
        return next(self._rows("stats", rows, stats_from_row, f"player {self.player}, {puzzle}"), Stats())

    def record_win(self, puzzle: str, moves: int, optimal: int | None, seconds: float) -> Stats:
        """Count a game the player solved; keep the best moves (with that game's optimum) and the best time."""
        with self.backend.transaction(self.player) as query:
            return self._update_stats(query, puzzle, lambda old: after_win(old, moves, optimal, seconds))

    def record_koma_finish(self, puzzle: str) -> Stats:
        with self.backend.transaction(self.player) as query:
            return self._update_stats(query, puzzle, _koma_finished)

    def _update_stats(self, query: Query, puzzle: str, update: Callable[[Stats], Stats]) -> Stats:
        rows = query(SELECT_STATS, (self.player, puzzle))
        new = update(next(self._rows("stats", rows, stats_from_row, f"player {self.player}, {puzzle}"), Stats()))
        query(UPSERT_STATS, (self.player, puzzle, new.solved, new.by_koma, new.best_moves, new.best_optimal,
                             new.best_seconds, time.time()))
        return new

    # --- players, daily results, leaderboards ----------------------------------------------------------
    def seen(self) -> None:
        """Record that the player came (their name, first and last visit)."""
        now = time.time()
        self.backend.query(UPSERT_PLAYER, (self.player, self.player_name, now, now))

    def claim_name(self) -> str:
        """Claim the player's name (any case) for the player, unless another player has it: the name's owner (this
        player when the claim is theirs).  ``koma serve --authorized-keys`` asks before a key's game starts."""
        name = self.player_name.lower()
        with self.backend.transaction(f"name:{name}") as query:
            query(CLAIM_NAME, (name, self.player, time.time()))
            return str(query(SELECT_NAME_OWNER, (name,))[0][0])

    def record_daily(self, day: str, puzzle: str, moves: int, optimal: int | None, seconds: float,
                     hints: int = 0) -> int | None:
        """Keep the player's best result on ``day``'s board of ``puzzle`` (marked unverified when no hand could have
        played it: :func:`tui.game.daily.implausible_daily_game`); returns the player's rank that day (None when
        unverified: it is not ranked)."""
        with self.backend.transaction(self.player) as query:
            self._keep_best_result(query, day, puzzle, moves, optimal, seconds, hints)
        return self.rank(day, puzzle)

    def _keep_best_result(self, query: Query, day: str, puzzle: str, moves: int, optimal: int | None, seconds: float,
                          hints: int) -> None:
        """Keep this result if it is the player's best: a verified one beats an unverified one, then the rank."""
        unverified = implausible_daily_game(puzzle, moves, seconds)
        rows = query(SELECT_KEPT_RESULT, (day, puzzle, self.player))
        old = next(self._rows("results", [(self.player, "", *row) for row in rows], result_from_row,
                              f"{day} {puzzle}, player {self.player}"), None)
        new_key = (unverified is not None, *rank_key(moves, optimal, seconds))
        if old is None or new_key < (old.unverified is not None, *rank_key(old.moves, old.optimal, old.seconds)):
            query(UPSERT_RESULT, (day, puzzle, self.player, moves, optimal, seconds, hints, time.time(), unverified))

    def rank(self, day: str, puzzle: str) -> int | None:
        """The player's rank on ``day``'s board of ``puzzle`` (None without a result, or with an unverified one): their
        row and a count."""
        return self.daily_board(day, puzzle, top=0).my_rank

    def leaderboard(self, day: str, puzzle: str, limit: int | None = 20) -> list[Result]:
        """The day's ranked results for a puzzle (its top ``limit``; None: all): fewest moves over optimal, then
        fewest moves, then time; only those a human could have set (an unverified result is its player's alone:
        :meth:`daily_result`)."""
        rows = self.backend.query(SELECT_RESULTS, (day, puzzle, EVERY_ROW if limit is None else limit))
        return list(self._rows("results", rows, result_from_row, f"{day} {puzzle}"))

    def daily_board(self, day: str, puzzle: str, top: int = BOARD_TOP) -> DailyBoard:
        """What a daily board shows, read by index whatever its size: its ``top`` results, the player's own (verified
        or not), its rank (None when unverified) and how many ranked results there are."""
        ranked = self.leaderboard(day, puzzle, limit=top) if top else []
        mine = self.daily_result(day, puzzle)
        if mine is None or mine.unverified is not None:
            return DailyBoard(ranked, mine, None, int(self.backend.query(COUNT_RESULTS, (day, puzzle))[0][0]))
        moves, optimal, seconds = self.backend.query(SELECT_RESULT, (day, puzzle, self.player))[0]
        excess = moves - optimal if optimal is not None else 1000000000
        ahead, total = self.backend.query(COUNT_AHEAD, (excess, moves, seconds, self.player, day, puzzle))[0]
        return DailyBoard(ranked, mine, int(ahead) + 1, int(total))

    def daily_result(self, day: str, puzzle: str) -> Result | None:
        """This player's result on ``day``'s board of ``puzzle``, verified or not (see :attr:`Result.unverified`)."""
        rows = self.backend.query(SELECT_MY_RESULT, (day, puzzle, self.player))
        return next(self._rows("results", rows, result_from_row, f"{day} {puzzle}"), None)

    # --- replays ------------------------------------------------------------------------------------
    def record_replay(self, replay: Replay) -> None:
        """Keep a finished game of this player's, move by move."""
        self.backend.query(INSERT_REPLAY, self._replay_args(replay))

    def _replay_args(self, replay: Replay) -> tuple:
        return (self.player, replay.game, replay.puzzle, replay.start, json.dumps(replay.moves), replay.origins,
                replay.seconds, replay.optimal, int(replay.by_koma), replay.finished or time.time())

    def replays(self, player: str | None = None, game: str | None = None, limit: int = REPLAYS_KEPT) -> list[Replay]:
        """``player``'s (else this player's) last ``limit`` finished games, of one game key if given, oldest first."""
        who = player or self.player
        rows = self.backend.query(SELECT_REPLAYS, (who, game, game, limit))
        return list(self._rows("replays", rows, replay_from_row, f"player {who}"))[::-1]

    # --- speed solves --------------------------------------------------------------------------------
    def record_speed_solve(self, op_id: str, solve: RecordSpeedSolve, at: float) -> None:
        """Keep one speed solve (:func:`tui.game.speed_notation.solve_record`), once per ``op_id``, and the records
        it makes (one transaction).  A solve no hand could have played is kept with the reason
        (:mod:`tui.game.plausibility`)."""
        with self.backend.transaction(self.player) as query:
            if self._insert_speed_solve(query, op_id, solve, at) and not solve.run:
                self._update_records(query, solve.size, solve.event)

    def _insert_speed_solve(self, query: Query, op_id: str, solve: RecordSpeedSolve, at: float) -> bool:
        """Keep one solve, once per ``op_id`` (whether it was new), with the reason no hand could have played it if
        there is one; the first of each event and size played here is the player's entry on that board
        (``speed_firsts``: a solve brought late that came earlier takes its place; an imported one never does)."""
        finished = solve.finished if solve.finished is not None else at
        unverified = _unverified_solve(solve)
        added = query(INSERT_SPEED_SOLVE + " RETURNING id", (
            self.player, op_id, solve.size, solve.event, solve.run, solve.leg, solve.scramble, solve.moves, solve.times,
            solve.time_ms, int(solve.dnf), finished, solve.control, solve.source, unverified, solve.memo_ms))
        if added and not solve.source:
            query(UPSERT_SPEED_FIRST, (solve.event, solve.size, self.player, int(added[0][0]), int(solve.dnf),
                                       solve.time_ms, finished, unverified))
        return bool(added)

    def import_speed_solves(self, solves: Sequence[RecordSpeedSolve]) -> int:
        """Keep imported solves in one transaction (all or none), each once whatever how often it is imported (its
        op is its content's digest), and work their sizes' and events' records out again; returns how many were
        new."""
        now = time.time()
        added = 0
        touched: set[tuple[str, str]] = set()
        with self.backend.transaction(self.player) as query:
            for solve in solves:
                if self._insert_speed_solve(query, import_op(solve), solve, now):
                    added += 1
                    if not solve.run:
                        touched.add((solve.size, solve.event))
            for size, event in sorted(touched):
                self._recompute_records(query, size, event)
        return added

    def _entries(self, query: Query, size: str, event: str, limit: int) -> list[Entry]:
        rows = query(SELECT_RECORD_SOLVES, (self.player, size, event, limit))
        entries = []
        for time_ms, dnf, moves, finished in reversed(rows):
            stm = len(parse_solution(str(moves)))
            time_ms = int(time_ms)
            entries.append(Entry(math.inf if dnf else float(time_ms), stm, stm * 1000 / time_ms if time_ms else None,
                                 float(finished)))
        return entries

    def _stored_records(self, query: Query, size: str | None, event: str | None) -> list[tuple[str, str, Record]]:
        return [(str(row[0]), str(row[1]), Record(str(row[2]), float(row[3]), float(row[4]),
                                                  None if row[5] is None else float(row[5]), float(row[6])))
                for row in query(SELECT_RECORDS, (self.player, size, size, event, event))]

    def _update_records(self, query: Query, size: str, event: str) -> None:
        """The records the newest solve of ``size`` and ``event`` made (all of them worked out again if stale)."""
        if any((str(s), str(e)) == (size, event) for s, e in query(SELECT_STALE, (self.player,))):
            self._recompute_records(query, size, event)
            return
        old = {record.statistic: record for _, _, record in self._stored_records(query, size, event)}
        for name, value in current_figures(self._entries(query, size, event, LONGEST_WINDOW)).items():
            if better(value, old.get(name)):
                self._write_record(query, size, event, value)

    def _write_record(self, query: Query, size: str, event: str, record: Record, *, lasting: bool = True) -> None:
        args = (self.player, size, event, record.statistic, record.time_ms, record.moves, record.tps, record.achieved)
        if lasting:
            query(UPSERT_RECORD, args)
        query(INSERT_RECORD_HISTORY, args)

    def _recompute_records(self, query: Query, size: str, event: str) -> None:
        """Every record of ``size`` and ``event`` and their history, from every solve (after an import, or for
        solves stored before records were kept)."""
        best, history = bests(self._entries(query, size, event, EVERY_ROW))
        query(DELETE_RECORDS, (self.player, size, event))
        query(DELETE_RECORD_HISTORY, (self.player, size, event))
        for record in history:
            self._write_record(query, size, event, record, lasting=False)
        for record in best.values():
            query(UPSERT_RECORD, (self.player, size, event, record.statistic, record.time_ms, record.moves, record.tps,
                                  record.achieved))
        query(DELETE_STALE, (self.player, size, event))

    def _refresh_stale(self) -> None:
        if not self.backend.query(SELECT_STALE, (self.player,)):
            return
        with self.backend.transaction(self.player) as query:
            for size, event in query(SELECT_STALE, (self.player,)):
                self._recompute_records(query, str(size), str(event))

    def speed_records(self, size: str | None = None, event: str | None = None) -> list[tuple[str, str, Record]]:
        """This player's lasting records (of one size and event if given): (size, event, record) each."""
        self._refresh_stale()
        return self._stored_records(self.backend.query, size, event)

    def speed_record_history(self, size: str, event: str = SINGLE) -> list[Record]:
        """Each record of ``size`` and ``event`` as it was reached, oldest first."""
        self._refresh_stale()
        return [Record(str(row[0]), float(row[1]), float(row[2]), None if row[3] is None else float(row[3]),
                       float(row[4])) for row in self.backend.query(SELECT_RECORD_HISTORY, (self.player, size, event))]

    def speed_solves(self, size: str | None = None, limit: int = SPEED_SOLVES_READ) -> list[SpeedResult]:
        """This player's last ``limit`` speed solves (every leg of an event; of one size ``WxH`` if given), oldest
        first."""
        rows = self.backend.query(SELECT_SPEED_SOLVES, (self.player, size, size, limit))
        return list(self._rows("speed_solves", rows, _speed_solve_from_row, f"player {self.player}"))[::-1]

    def speed_looks(self) -> tuple[str, bool]:
        """This player's Speed looks: the colour scheme and hover control (plain and off until set)."""
        rows = self.backend.query(SELECT_SPEED_LOOKS, (self.player,))
        if not rows:
            return "plain", False
        return str(rows[0][0]), bool(rows[0][1])

    def set_speed_looks(self, scheme: str, hover: bool) -> None:
        with self.backend.transaction(self.player) as query:
            query(UPSERT_SPEED_LOOKS, (self.player, scheme, int(hover)))

    def speed_board(self, event: str, size: str, top: int = BOARD_TOP) -> list[SpeedEntry]:
        """The top ``top`` of one speed event and size (a day's daily board): each player's *first* solve of it played
        here (a scramble solved again is known; imports are on no board), the finished ones by time, then the DNFs.  A
        first solve no hand could have played (:mod:`tui.game.plausibility`) keeps its player off the board."""
        entries = self._speed_entries(self.backend.query(SELECT_EVENT_SOLVES, (event, size, top)), f"{event} {size}")
        return [entry for entry in entries if entry.unverified is None]

    def speed_standing(self, event: str, size: str, top: int = BOARD_TOP) -> SpeedStanding:
        """What a speed board shows, read by index whatever its size: its top, the player's entry (marked when no hand
        could have played it: then it has no place) and place."""
        board = self.speed_board(event, size, top)
        rows = self.backend.query(SELECT_MY_FIRST_SOLVE, (event, size, self.player))
        mine = next(iter(self._speed_entries(rows, f"{event} {size}")), None)
        if mine is None or not rows or mine.unverified is not None:
            return SpeedStanding(board, mine, None)
        ahead = self.backend.query(COUNT_FIRSTS_AHEAD, (event, size, rows[0][-2], rows[0][-1], self.player))[0][0]
        return SpeedStanding(board, mine, int(ahead) + 1)

    def _speed_entries(self, rows: list[tuple], where: str) -> list[SpeedEntry]:
        """Entries from rows of :data:`FIRST_SOLVE_COLUMNS`; a row kept before solves were judged is judged now."""
        entries = []
        for row in rows:
            for result in self._rows("speed_solves", [tuple(row[2:-3])], _speed_solve_from_row, where):
                marked = row[-3]
                reason = str(marked) if marked is not None else implausible_speed_solve(result.moves, result.times_ms,
                                                                                          result.dnf)
                entries.append(SpeedEntry(str(row[0]), str(row[1]), result, reason))
        return entries

    # --- a finished game, once ------------------------------------------------------------------------
    def finish(self, op_id: str, finish: FinishGame, at: float, *, clear: bool = True) -> tuple[Stats | None, int | None]:
        """Record a finished game in one transaction, once per ``op_id``: its replay, the stats, the daily result,
        and (``clear``) the saved game cleared.  A replay from the outbox records nothing the second time, but
        clears the game again (the saves replayed before it brought it back).  Returns the stats and the daily
        rank (None when not counted)."""
        stats: Stats | None = None
        with self.backend.transaction(self.player) as query:
            query(FORGET_OLD_OPS, (time.time() - OPS_KEPT_SECONDS,))
            first_time = query(CLAIM_OP + " RETURNING op", (op_id, time.time()))
            if first_time and finish.first:
                query(INSERT_REPLAY, self._replay_args(Replay(
                    finish.key, finish.start, list(finish.played), finish.origins, finish.seconds, finish.optimal,
                    finish.by_koma, at)))
                if finish.by_koma:
                    stats = self._update_stats(query, finish.stats_id, _koma_finished)
                else:
                    stats = self._update_stats(query, finish.stats_id, lambda old: after_win(
                        old, finish.moves, finish.optimal, finish.seconds))
                    if finish.daily:
                        self._keep_best_result(query, finish.daily, finish.stats_id, finish.moves, finish.optimal,
                                               finish.seconds, finish.hints)
            if clear:  # also when replayed: the saves before it came back too
                query(DELETE_GAME, (self.player, finish.key, at))
        rank = self.rank(finish.daily, finish.stats_id) if finish.daily and not finish.by_koma else None
        if stats is None and not finish.by_koma:
            stats = self.stats(finish.stats_id)
        return stats, rank

    # --- live games and watching (the methods are tui.storage.live.LiveGames's) -------------------------
    def _live_read(self, sql: str, args: tuple) -> list[tuple]:
        return self.backend.query(sql, args)

    def _live_write(self, key: tuple, sql: str, args: tuple) -> None:
        self.backend.query(sql, args)

    def _live_rows(self, rows: list[tuple], check: Callable[[tuple], Any], where: str) -> Iterator[Any]:
        return self._rows("games", rows, check, where)


@dataclass(frozen=True)
class DailyBoard:
    """A daily board as a screen shows it: its ``top``, the player's own result (``mine``), its rank, and ``total``."""

    top: list[Result]
    mine: Result | None
    my_rank: int | None
    total: int


@dataclass(frozen=True)
class SpeedEntry:
    """One player's solve on a speed board."""

    player: str
    name: str
    result: SpeedResult
    unverified: str | None = None  # why no hand could have played it (such an entry is on no board)


def import_op(solve: RecordSpeedSolve) -> str:
    """An imported solve's op: the digest of what it is, so that importing it again keeps nothing twice."""
    what = "|".join((solve.size, solve.event, solve.run, str(solve.leg), solve.scramble, solve.moves, solve.times,
                     str(int(solve.dnf))))
    return "import-" + hashlib.sha256(what.encode()).hexdigest()[:32]


def _speed_solve_from_row(row: tuple) -> SpeedResult:
    size, event, run, leg, scramble, moves, times, dnf, control, source, finished, memo_ms = row
    try:
        return solve_from_record(RecordSpeedSolve(str(size), str(event), str(scramble), str(moves), str(times), 0,
                                                  bool(dnf), str(run or ""), int(leg or 0), str(control or ""),
                                                  str(source or ""), None if finished is None else float(finished),
                                                  None if memo_ms is None else int(memo_ms)))
    except (KomaError, TypeError, ValueError) as problem:
        raise BadRow(str(problem)) from None


def save_replaces(stored: tuple[int, float | None], save: tuple[int, float]) -> bool:
    """Whether a save stamped ``(version, revision)`` replaces a stored game stamped so (:data:`UPSERT_GAME`'s rule):
    a game that has had more changes, or as many and was accepted no earlier."""
    (stored_version, stored_revision), (version, revision) = stored, save
    return stored_version < version or (stored_version == version and (stored_revision is None
                                                                        or stored_revision <= revision))


def _stamped_game(row: tuple) -> tuple[SavedGame, float]:
    """A row of :data:`SELECT_GAME`, checked: the game and its revision; raises BadRow."""
    *saved, revision = row
    if revision is not None and (isinstance(revision, bool) or not isinstance(revision, int | float)):
        raise BadRow(f"revision is {revision!r}")
    return game_from_row(tuple(saved)), float(revision or 0.0)


def _koma_finished(old: Stats) -> Stats:
    return Stats(old.solved, old.by_koma + 1, old.best_moves, old.best_optimal, old.best_seconds)


@dataclass(frozen=True)
class SpeedStanding:
    """A speed board as a screen shows it: its ``top``, the player's entry (``mine``) and place."""

    top: list[SpeedEntry]
    mine: SpeedEntry | None
    my_rank: int | None


def _unverified_solve(solve: RecordSpeedSolve) -> str | None:
    """Why no hand could have played ``solve`` (:func:`implausible_speed_solve`); None when one may have."""
    try:
        result = solve_from_record(solve)
    except KomaError as problem:
        return f"unreadable moves ({problem})"
    return implausible_speed_solve(result.moves, result.times_ms, result.dnf)
