"""Live spectating without the UI: which games are live, the watchers' heartbeats, and the SQL both stores run.

A game is *live* while its row in ``games`` was written within :data:`LIVE_SECONDS`: every move saves
it, and a shown play screen touches it every :data:`PLAYER_BEAT_SECONDS`, so a game whose process is gone
drops out of the list.  A watching session upserts its row in ``watchers`` every :data:`HEARTBEAT_SECONDS`; the player's count
is the rows seen within :data:`WATCHER_SECONDS`.  The statements use ``?`` placeholders (SQLite's);
the PostgreSQL store turns them into ``%s``.  Never imports Textual.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from tui.game.records import SavedGame, _text, game_from_row

LIVE_SECONDS = 15.0  # a game saved or touched this recently is being played
PLAYER_BEAT_SECONDS = 5.0  # how often a shown play screen touches its game (and reads its watcher count)
HEARTBEAT_SECONDS = 2.0  # how often a watching screen says it is still watching
WATCHER_SECONDS = 5.0  # a watcher seen this recently is watching
POLL_SECONDS = 0.5  # how often a shown watching screen reads the game it follows
LIVE_LIMIT = 100

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


@dataclass
class LiveGame:
    """A game being played now: whose, under which key, as last saved, and how many watch it."""

    player: str
    name: str
    game: str
    saved: SavedGame
    updated: float
    watchers: int = 0

    @property
    def puzzle(self) -> str:
        return self.game.rsplit("/", 1)[-1]


def live_args(now: float, player: str | None = None, game: str | None = None) -> tuple:
    """The arguments of :data:`SELECT_LIVE` at time ``now``."""
    return (now - WATCHER_SECONDS, now - LIVE_SECONDS, player, player, game)


def count_args(player: str, game: str, now: float) -> tuple:
    """The arguments of :data:`COUNT_WATCHERS` at time ``now``."""
    return (player, game, now - WATCHER_SECONDS)


def unwatch_args(watcher: str, now: float) -> tuple:
    """The arguments of :data:`DELETE_WATCHER`: this watcher, and any not seen for a minute of heartbeats."""
    return (watcher, now - 60 * WATCHER_SECONDS)


def live_from_row(row: tuple) -> LiveGame:
    """A row of :data:`SELECT_LIVE`, checked; raises :class:`~tui.game.records.BadRow`."""
    player, name, game, *saved, updated, watchers = row
    return LiveGame(_text("player", player), str(name), _text("puzzle", game), game_from_row(tuple(saved)), float(updated),
                    int(watchers))


class LiveStore(Protocol):
    def touch_game(self, game: str) -> None: ...
    def watcher_count(self, game: str) -> int: ...


def heartbeat(store: LiveStore, game: str) -> int:
    """One heartbeat of the game on screen: it stays live; returns how many watch it now."""
    store.touch_game(game)
    return store.watcher_count(game)


class LiveGames:
    """The live-game and watching methods of a store, written once over three primitives that each store
    (SQLite, PostgreSQL) supplies in its own way: a read, a write, and the row check that skips bad rows."""

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
