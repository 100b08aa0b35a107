"""Helpers for driving the real app with Pilot: a private database, a frozen clock, no spinner frames."""

from __future__ import annotations

import time

from solver.puzzles.registry import get_puzzle
from tui.app import KomaApp
from tui.game.store import Store


def make_app(tmp_path, name=None, board=None, size=None, **options) -> KomaApp:
    puzzle = get_puzzle(name, size) if name else None
    start = puzzle.parse(board) if board else None
    store = options.pop("store", None) or Store(tmp_path / "koma.db")
    options.setdefault("keymap", {})
    return KomaApp(puzzle=puzzle, start=start, store=store, clock=lambda: 0.0, animate_spinner=False, **options)


async def wait_for(pilot, condition, timeout: float = 60.0, what: str = "condition") -> None:
    """Let the app run until ``condition()`` holds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.02)


async def wait_warm(pilot) -> None:
    screen = pilot.app.screen
    await wait_for(pilot, screen.warm.is_set, what="the warm-up")
    await wait_for(pilot, lambda: not screen.solver.distance_pending(screen.state) or not screen.proof.solvable, what="the distance")
    await pilot.pause()




def store_of(app: KomaApp) -> Store:
    """The store a test app was given, once its storage service has written everything and answered every read."""
    assert app.storage.settle(), "the storage service did not settle"
    return app.storage.connect()
