"""What the store keeps (saved games, stats, ranked results) and the checks every stored row passes when read.

Backend-neutral: the SQLite store (:mod:`tui.storage.store`) and any other read rows through
:func:`game_from_row`, :func:`stats_from_row` and :func:`result_from_row`, which raise :class:`BadRow`
naming the column, so one wrong-typed value is skipped instead of stopping the game.  Never imports Textual.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

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


class BadRow(ValueError):
    """A stored row with a value of the wrong type or out of range; the message names the column."""


def _count(name: str, value: Any, optional: bool = False) -> int | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise BadRow(f"{name} is {value!r}")
    return value


def _seconds(name: str, value: Any, optional: bool = False) -> float | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise BadRow(f"{name} is {value!r}")
    return float(value)


def _text(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise BadRow(f"{name} is {value!r}")
    return value


def game_from_row(row: tuple) -> SavedGame:
    """``(start, moves, origins, position, seconds, hints)`` as stored, checked; raises :class:`BadRow`."""
    start, moves, origins, position, seconds, hints = row
    try:
        move_list = json.loads(_text("moves", moves))
    except ValueError:
        raise BadRow(f"moves is {moves!r}") from None
    if not isinstance(move_list, list) or not all(isinstance(m, str) for m in move_list):
        raise BadRow(f"moves is {moves!r}")
    position = _count("position", position)
    origins = _text("origins", origins or "").ljust(len(move_list), "p")[:len(move_list)]
    return SavedGame(_text("start", start), move_list, origins, min(position or 0, len(move_list)),
                     _seconds("seconds", seconds) or 0.0, _count("hints", hints) or 0)


def replay_from_row(row: tuple) -> Replay:
    """``(player, name, game, start, moves, origins, seconds, optimal, by_koma, finished)`` as stored, checked;
    raises :class:`BadRow`."""
    player, name, game, start, moves, origins, seconds, optimal, by_koma, finished = row
    saved = game_from_row((start, moves, origins, 0, seconds, 0))
    if by_koma not in (0, 1):
        raise BadRow(f"by_koma is {by_koma!r}")
    return Replay(_text("game", game), saved.start, saved.moves, saved.origins, saved.seconds,
                  _count("optimal", optimal, True), bool(by_koma), _seconds("finished", finished) or 0.0,
                  _text("player", player), str(name))


def stats_from_row(row: tuple) -> Stats:
    """``(solved, by_koma, best_moves, best_optimal, best_seconds)`` as stored, checked; raises :class:`BadRow`."""
    solved, by_koma, best_moves, best_optimal, best_seconds = row
    return Stats(_count("solved", solved) or 0, _count("by_koma", by_koma) or 0, _count("best_moves", best_moves, True),
                 _count("best_optimal", best_optimal, True), _seconds("best_seconds", best_seconds, True))


def result_from_row(row: tuple) -> Result:
    """``(player, name, moves, optimal, seconds, hints)`` as stored, checked; raises :class:`BadRow`."""
    player, name, moves, optimal, seconds, hints = row
    return Result(_text("player", player), str(name), _count("moves", moves) or 0, _count("optimal", optimal, True),
                  _seconds("seconds", seconds) or 0.0, _count("hints", hints) or 0)


ROW_CHECKS: dict[str, Callable[[tuple], Any]] = {"games": game_from_row, "stats": stats_from_row, "results": result_from_row,
                                                "replays": replay_from_row}


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
