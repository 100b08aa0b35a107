"""Databases holding rows with wrong-typed values, for the store's tests and the screens' (Pilot); what a storage
service told its game."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

from tui.game.records import SavedGame
from tui.storage.store import MIGRATIONS, run_script

BAD_GAMES = [  # player, puzzle, start, moves, origins, position, seconds, hints, updated
    ("local", "8", "1 2 3/4 5 6/7 _ 8", '["L"]', "p", 1, "abc", 0, 0.0),
    ("local", "15", "1 2 3 4/5 6 7 8/9 10 11 12/13 14 _ 15", '["L"]', "p", "x", 1.0, 0, 0.0),
    ("local", "goat", "r-BB/i.dS/l-jW", "[]", "", 0, 1.0, "many", 0.0),
]
GOOD_GAME = ("local", "ura-3x3", "WBW/BWB/WBW", '["A"]', "p", 1, 2.5, 0, 0.0)
BAD_STATS = [("local", "8", 1, 0, 20, 20, "x", 0.0)]  # player, puzzle, solved, by_koma, best_moves, best_optimal, best_seconds
GOOD_STATS = ("local", "15", 2, 0, 50, 40, 60.0, 0.0)
BAD_RESULTS = [("2025-01-31", "8", "user:a", 20, "x", 30.0, 0, 0.0), ("2025-01-31", "8", "user:b", 22, 20, "slow", 0, 0.0)]
GOOD_RESULT = ("2025-01-31", "8", "user:c", 21, 20, 40.0, 0, 0.0)
BAD_VALUES = ["seconds is 'abc'", "position is 'x'", "hints is 'many'", "best_seconds is 'x'", "optimal is 'x'",
              "seconds is 'slow'"]


def database_with_bad_rows(path: Path, version: int) -> Path:
    """Rows of every kind with wrong-typed values (and good ones) in tables made by the migrations up to
    version 2, which do not check types, labelled ``version``.  Above 2 it stands for any store that let them
    in: the tables stay unchecked (version 3's STRICT tables are skipped), and the later migrations add what
    they add (replays, watching, the outbox's revision column), so that the store's statements all run."""
    db = sqlite3.connect(path, isolation_level=None)
    for script in MIGRATIONS[:2]:
        run_script(db, script.read_text(encoding="utf-8"))
    db.executemany("INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", [*BAD_GAMES, GOOD_GAME])
    db.executemany("INSERT INTO stats VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [*BAD_STATS, GOOD_STATS])
    db.executemany("INSERT INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [*BAD_RESULTS, GOOD_RESULT])
    for script in MIGRATIONS[3:version]:
        run_script(db, script.read_text(encoding="utf-8"))
    db.execute(f"PRAGMA user_version = {version}")
    db.close()
    return path


class Told:
    """The news a storage service posted, in order (from its threads)."""

    def __init__(self) -> None:
        self.items: list = []
        self.lock = threading.Lock()

    def __call__(self, news) -> None:
        with self.lock:
            self.items.append(news)

    def of(self, kind) -> list:
        with self.lock:
            return [n for n in self.items if isinstance(n, kind)]

    def wait_for(self, kind, count: int = 1, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while len(self.of(kind)) < count:
            assert time.monotonic() < deadline, f"no {kind.__name__} within {timeout} s: {self.items}"
            time.sleep(0.02)


def play_moves(session, count: int) -> list[float]:
    """Play ``count`` legal moves of a :class:`~tui.game.session.GameSession` (never undoing the last), each timed;
    returns the seconds each took."""
    took = []
    for _ in range(count):
        last = session.history.moves[session.position - 1] if session.position else None
        undo = {"U": "D", "D": "U", "L": "R", "R": "L"}
        move = next(m for m in sorted(session.puzzle.moves(session.state)) if m != undo.get(last or ""))
        began = time.perf_counter()
        session.push(move)
        took.append(time.perf_counter() - began)
    return took


def moves_of(game: SavedGame | bool | None) -> tuple | None:
    """What a saved game holds of its moves (the clock goes on between a save and a test's look)."""
    assert game is not False
    return None if not isinstance(game, SavedGame) else (game.start, tuple(game.moves), game.origins, game.position)
