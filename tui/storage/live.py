"""Live spectating in the database: the statements both backends run, and the store's methods over them.

The rules (how recent is live, how often each side beats) are the game's (:mod:`tui.game.live`), read at each
call.  The statements use ``?`` placeholders (SQLite's); the PostgreSQL backend turns them into ``%s``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

from tui.game import live as rules
from tui.game.live import LIVE_LIMIT, LiveGame
from tui.storage.rows import _text, game_from_row

SELECT_LIVE = (  # every live game of a player who lets others watch; with a player and key, just that one
    "SELECT g.player, COALESCE(p.name, g.player), g.puzzle, g.start, g.moves, g.origins, g.position, g.seconds, g.hints, "
    "g.updated, (SELECT count(*) FROM watchers w WHERE w.player = g.player AND w.game = g.puzzle AND w.seen > ?) "
    "FROM games g LEFT JOIN players p ON p.player = g.player "
    "WHERE g.updated > ? AND COALESCE(p.watchable, 1) = 1 AND (CAST(? AS TEXT) IS NULL OR (g.player = ? AND g.puzzle = ?)) "
    f"ORDER BY g.updated DESC LIMIT {LIVE_LIMIT}")
TOUCH_GAME = "UPDATE games SET updated = ? WHERE player = ? AND puzzle = ?"
UPSERT_WATCHER = ("INSERT INTO watchers (watcher, player, game, seen) VALUES (?, ?, ?, ?) ON CONFLICT (watcher) DO UPDATE "
                  "SET player = excluded.player, game = excluded.game, seen = excluded.seen")
DELETE_WATCHER = "DELETE FROM watchers WHERE watcher = ? OR seen < ?"  # this one, and any long gone
COUNT_WATCHERS = "SELECT count(*) FROM watchers WHERE player = ? AND game = ? AND seen > ?"
SELECT_WATCHABLE = "SELECT watchable FROM players WHERE player = ?"
SET_WATCHABLE = "UPDATE players SET watchable = ? WHERE player = ?"


def live_args(now: float, player: str | None = None, game: str | None = None) -> tuple:
    """The arguments of :data:`SELECT_LIVE` at time ``now``."""
    return (now - rules.WATCHER_SECONDS, now - rules.LIVE_SECONDS, player, player, game)


def count_args(player: str, game: str, now: float) -> tuple:
    """The arguments of :data:`COUNT_WATCHERS` at time ``now``."""
    return (player, game, now - rules.WATCHER_SECONDS)


def unwatch_args(watcher: str, now: float) -> tuple:
    """The arguments of :data:`DELETE_WATCHER`: this watcher, and any not seen for a minute of heartbeats."""
    return (watcher, now - 60 * rules.WATCHER_SECONDS)


def live_from_row(row: tuple) -> LiveGame:
    """A row of :data:`SELECT_LIVE`, checked; raises :class:`~tui.storage.rows.BadRow`."""
    player, name, game, *saved, updated, watchers = row
    return LiveGame(_text("player", player), str(name), _text("puzzle", game), game_from_row(tuple(saved)), float(updated),
                    int(watchers))


class LiveGames:
    """The live-game and watching methods of the store, over three primitives it supplies: a read, a write, and the
    row check that skips bad rows."""

    player: str

    def _live_read(self, sql: str, args: tuple) -> list[tuple]:
        raise NotImplementedError

    def _live_write(self, key: tuple, sql: str, args: tuple) -> None:
        """Run one change; ``key`` names it, so a store that queues unsaved changes keeps only the latest."""
        raise NotImplementedError

    def _live_rows(self, rows: list[tuple], check: Callable[[tuple], Any], where: str) -> Iterator[Any]:
        raise NotImplementedError

    def touch_game(self, game: str) -> None:
        """The heartbeat of a game being played: it stays in the live list."""
        self._live_write(("touch", game), TOUCH_GAME, (time.time(), self.player, game))

    def live_games(self) -> list[LiveGame]:
        """The games being played now by players who let others watch, the latest first."""
        return list(self._live_rows(self._live_read(SELECT_LIVE, live_args(time.time())), live_from_row, "live games"))

    def live_game(self, player: str, game: str) -> LiveGame | None:
        """``player``'s game ``game`` as last saved, if it is still live and may be watched."""
        rows = self._live_read(SELECT_LIVE, live_args(time.time(), player, game))
        return next(self._live_rows(rows, live_from_row, f"player {player}, {game}"), None)

    def watch(self, watcher: str, player: str, game: str) -> None:
        """The heartbeat of one watching session (``watcher``, any unique name) on ``player``'s ``game``."""
        self._live_write(("watch", watcher), UPSERT_WATCHER, (watcher, player, game, time.time()))

    def unwatch(self, watcher: str) -> None:
        self._live_write(("watch", watcher), DELETE_WATCHER, unwatch_args(watcher, time.time()))

    def watcher_count(self, game: str) -> int:
        """How many sessions watch this player's ``game`` now."""
        rows = self._live_read(COUNT_WATCHERS, count_args(self.player, game, time.time()))
        return int(rows[0][0]) if rows else 0

    def watchable(self) -> bool:
        """Whether this player lets others watch their games (the profile's setting; yes by default)."""
        rows = self._live_read(SELECT_WATCHABLE, (self.player,))
        return not rows or rows[0][0] != 0

    def set_watchable(self, allowed: bool) -> None:
        self._live_write(("watchable",), SET_WATCHABLE, (int(allowed), self.player))
