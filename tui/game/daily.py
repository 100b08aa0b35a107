"""Daily puzzles: the same boards for everyone on one day, and the key a puzzle's games are saved under.

Never imports Textual.
"""

from __future__ import annotations

import datetime
import hashlib
import os

from solver.puzzle import Puzzle
from solver.registry import get_puzzle


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


def daily_seed(day: str, game: str) -> int:
    """The seed of ``day``'s board of puzzle id ``game``: the same everywhere, different every day."""
    return int.from_bytes(hashlib.sha256(f"koma-daily/{day}/{game}".encode()).digest()[:8], "big")


def daily_board(puzzle: Puzzle, day: str) -> tuple:
    return tuple(puzzle.random_state(daily_seed(day, puzzle_id(puzzle))))


def daily_key(day: str, game: str) -> str:
    """Where a daily game in progress is saved (apart from the puzzle's own game)."""
    return f"daily/{day}/{game}"


def daily_puzzles() -> list[Puzzle]:
    return [get_puzzle(name, size) for name, size in DAILY_PUZZLES]
