"""The checks every stored row passes when read: a saved game, stats, a ranked result, a replay.

Backend-neutral: the store (:mod:`tui.storage.store`) reads rows through :func:`game_from_row`,
:func:`stats_from_row`, :func:`result_from_row` and :func:`replay_from_row`, which raise :class:`BadRow`
naming the column, so one wrong-typed value is skipped instead of stopping the game.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

from tui.game.records import Replay, Result, SavedGame, Stats


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
    """``(start, moves, origins, position, seconds, hints[, version])`` as stored, checked; raises :class:`BadRow`."""
    start, moves, origins, position, seconds, hints, *rest = row
    try:
        move_list = json.loads(_text("moves", moves))
    except ValueError:
        raise BadRow(f"moves is {moves!r}") from None
    if not isinstance(move_list, list) or not all(isinstance(m, str) for m in move_list):
        raise BadRow(f"moves is {moves!r}")
    position = _count("position", position)
    origins = _text("origins", origins or "").ljust(len(move_list), "p")[:len(move_list)]
    return SavedGame(_text("start", start), move_list, origins, min(position or 0, len(move_list)),
                     _seconds("seconds", seconds) or 0.0, _count("hints", hints) or 0,
                     (_count("version", rest[0]) or 0) if rest else 0)


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
    """``(player, name, moves, optimal, seconds, hints[, unverified])`` as stored, checked; raises :class:`BadRow`."""
    player, name, moves, optimal, seconds, hints, *rest = row
    unverified = rest[0] if rest else None
    return Result(_text("player", player), str(name), _count("moves", moves) or 0, _count("optimal", optimal, True),
                  _seconds("seconds", seconds) or 0.0, _count("hints", hints) or 0,
                  None if unverified is None else str(unverified))


ROW_CHECKS: dict[str, Callable[[tuple], Any]] = {"games": game_from_row, "stats": stats_from_row, "results": result_from_row,
                                                "replays": replay_from_row}
