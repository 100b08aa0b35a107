"""Daily puzzles: the same boards for everyone of a server on one day (drawn from its secret, so that nobody can
compute tomorrow's today), and the key a puzzle's games are saved under.

Never imports Textual.
"""

from __future__ import annotations

import datetime
import hmac
import os

from solver.errors import KomaError
from solver.puzzle import Puzzle
from solver.registry import get_puzzle
from tui.game.plausibility import implausible_game


def puzzle_id(puzzle: Puzzle) -> str:
    """The key under which a puzzle's game and stats are saved: ``8``, ``15``, ``goat``, ``ura-3x3``…"""
    if puzzle.key in ("8", "15", "goat"):
        return puzzle.key
    family = "ura" if puzzle.key == "ura" else "sliding"
    return f"{family}-{puzzle.size_label}"


def puzzle_for_id(game: str) -> Puzzle:
    """The puzzle of a puzzle id or game key (:func:`puzzle_id`'s inverse); KomaError if unknown."""
    family, _, size = game.rsplit("/", 1)[-1].partition("-")
    return get_puzzle(family, size or None)


DAILY_PUZZLES = (("8", None), ("15", None), ("goat", None), ("ura", "4x4"))


def today() -> str:
    """The daily puzzles' day, ``YYYY-MM-DD`` in UTC (``$KOMA_DAY`` overrides it, for tests)."""
    return os.environ.get("KOMA_DAY") or datetime.datetime.now(datetime.UTC).date().isoformat()


def shift_day(day: str, delta: int) -> str:
    return (datetime.date.fromisoformat(day) + datetime.timedelta(days=delta)).isoformat()


def daily_seed(day: str, game: str, secret: bytes) -> int:
    """The seed of ``day``'s board of puzzle id ``game``: the same wherever ``secret`` is (a server's, see
    :mod:`tui.config.daily_secret`), different every day, and not to be computed without the secret (HMAC-SHA256)."""
    return int.from_bytes(hmac.digest(secret, f"koma-daily/{day}/{game}".encode(), "sha256")[:8], "big")


def daily_board(puzzle: Puzzle, day: str, secret: bytes) -> tuple:
    """``day``'s board of ``puzzle`` under ``secret``."""
    return tuple(puzzle.random_state(daily_seed(day, puzzle_id(puzzle), secret)))


def implausible_daily_game(game: str, moves: int, seconds: float) -> str | None:
    """Why a daily game of puzzle id ``game`` solved in ``moves`` and ``seconds`` was not played by hand
    (:func:`~tui.game.plausibility.implausible_game`: a sliding puzzle's click slides up to a whole line at once);
    None when it may have been."""
    try:
        puzzle = puzzle_for_id(game)
    except KomaError:
        return implausible_game(moves, seconds)
    sliding = puzzle.key in ("8", "15", "sliding")
    at_once = max(getattr(puzzle, "width", 2), getattr(puzzle, "height", 2)) - 1 if sliding else 1
    return implausible_game(moves, seconds, at_once)


def daily_key(day: str, game: str) -> str:
    """Where a daily game in progress is saved (apart from the puzzle's own game)."""
    return f"daily/{day}/{game}"


def daily_puzzles() -> list[Puzzle]:
    return [get_puzzle(name, size) for name, size in DAILY_PUZZLES]
