"""Live spectating's rules, without the UI or the database: when a game is live, how often each side beats.

A game is *live* while its row in ``games`` was written within :data:`LIVE_SECONDS`: every move saves
it, and a shown play screen touches it every :data:`PLAYER_BEAT_SECONDS`, so a game whose process is gone
drops out of the list.  A watching session says it still watches every :data:`HEARTBEAT_SECONDS`; the player's
count is the watchers seen within :data:`WATCHER_SECONDS`.  The statements are the storage's
(:mod:`tui.storage.live`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from tui.game.records import SavedGame

LIVE_SECONDS = 15.0  # a game saved or touched this recently is being played
PLAYER_BEAT_SECONDS = 5.0  # how often a shown play screen touches its game (and reads its watcher count)
HEARTBEAT_SECONDS = 2.0  # how often a watching screen says it is still watching
WATCHER_SECONDS = 5.0  # a watcher seen this recently is watching
POLL_SECONDS = 0.5  # how often a shown watching screen reads the game it follows
LIVE_LIMIT = 100


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


class LiveStore(Protocol):
    def touch_game(self, game: str) -> None: ...
    def watcher_count(self, game: str) -> int: ...


def heartbeat(store: LiveStore, game: str) -> int:
    """One heartbeat of the game on screen: it stays live; returns how many watch it now."""
    store.touch_game(game)
    return store.watcher_count(game)
