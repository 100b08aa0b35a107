"""What the store keeps (saved games, stats, ranked results, replays) and how results rank: plain data.

Reading these from database rows, with the checks every stored row passes, is the storage's
(:mod:`tui.storage.rows`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

REPLAYS_KEPT = 500  # the most finished games a list or a trend line reads per player


@dataclass
class Result:
    """A ranked daily result: the player's best game on one day's board of one puzzle."""

    player: str
    name: str
    moves: int
    optimal: int | None
    seconds: float
    hints: int = 0
    unverified: str | None = None  # why no hand could have played it (tui.game.plausibility); such a result is not ranked

    @property
    def excess(self) -> int | None:
        return None if self.optimal is None else self.moves - self.optimal


@dataclass
class SavedGame:
    """A game in progress: ``moves[:position]`` lead from ``start`` to the board shown.  ``version`` counts the
    changes the game has had (each move, step back or forth, hint, new board: one more), so that a save made from
    an older state of it never replaces a newer one (:mod:`tui.storage.store`)."""

    start: str
    moves: list[str] = field(default_factory=list)
    origins: str = ""
    position: int = 0
    seconds: float = 0.0
    hints: int = 0
    version: int = 0


@dataclass
class Replay:
    """A finished game, kept move by move: ``moves`` lead from ``start`` to the goal; ``origins[k]`` played ``moves[k]``."""

    game: str  # the game key it was saved under: a puzzle id, or daily/DAY/PUZZLE-ID
    start: str
    moves: list[str]
    origins: str
    seconds: float
    optimal: int | None = None
    by_koma: bool = False  # Koma's playback made a move (such games are never ranked)
    finished: float = 0.0  # when, in seconds since the epoch
    player: str = ""
    name: str = ""

    @property
    def puzzle(self) -> str:
        """The puzzle id (``8``, ``ura-3x3``…), also of a daily game."""
        return self.game.rsplit("/", 1)[-1]

    @property
    def excess(self) -> int | None:
        return None if self.optimal is None else len(self.moves) - self.optimal


@dataclass
class Stats:
    """Per-puzzle results: games solved by the player, games Koma finished, and the bests."""

    solved: int = 0
    by_koma: int = 0
    best_moves: int | None = None
    best_optimal: int | None = None
    best_seconds: float | None = None


def after_win(old: Stats, moves: int, optimal: int | None, seconds: float) -> Stats:
    """The stats after one more game the player solved: the best moves (with that game's optimum), the best time."""
    new = Stats(old.solved + 1, old.by_koma, old.best_moves, old.best_optimal, old.best_seconds)
    if new.best_moves is None or excess_key(moves, optimal) < excess_key(new.best_moves, new.best_optimal):
        new.best_moves, new.best_optimal = moves, optimal
    if new.best_seconds is None or seconds < new.best_seconds:
        new.best_seconds = seconds
    return new


def rank_key(moves: int, optimal: int | None, seconds: float) -> tuple:
    return (*excess_key(moves, optimal), seconds)


def excess_key(moves: int, optimal: int | None) -> tuple[int, int]:
    """How a result ranks: moves over the optimum first (unknown optimum ranks last), then raw moves."""
    return (moves - optimal if optimal is not None else 10**9, moves)
