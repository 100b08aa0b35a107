"""Helpers for driving the real app with Pilot: a private database, a frozen clock, no spinner frames."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from solver.registry import get_puzzle
from tui.app import KomaApp
from tui.storage.service import Answer
from tui.storage.store import Store


def make_app(tmp_path, name=None, board=None, size=None, **options) -> KomaApp:
    puzzle = get_puzzle(name, size) if name else None
    start = puzzle.parse(board) if board else None
    store = options.pop("store", None) or Store(tmp_path / "koma.db")
    options.setdefault("keymap", {})
    options.setdefault("clock", lambda: 0.0)
    return KomaApp(puzzle=puzzle, start=start, store=store, animate_spinner=False, **options)


async def wait_for(pilot, condition, timeout: float = 60.0, what: str = "condition") -> None:
    """Let the app run until ``condition()`` holds.

    The app runs on this loop: sleeping lets it process its messages and draw.  (``pilot.pause(0.02)`` also waited,
    each time, for every widget of the screen to answer a callback: 3 ms of CPU per poll on a 30-widget screen, a
    seventh of a core while a test waited, against 0.3 ms.)"""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


async def wait_warm(pilot) -> None:
    screen = pilot.app.screen
    await wait_for(pilot, screen.warm.is_set, what="the warm-up")
    await wait_for(pilot, lambda: not screen.solver.distance_pending(screen.state) or not screen.proof.solvable, what="the distance")
    await pilot.pause()


async def settled(pilot, app: KomaApp | None = None, timeout: float = 60.0) -> None:
    """Let the app run until its storage service has written everything it accepted and answered every read.
    (Never ``storage.settle()`` on the app's loop: a read's answer comes back through that loop.)"""
    storage = (app or pilot.app).storage
    await wait_for(pilot, lambda: storage.settle(0), timeout, "the storage service to settle")


async def read_store(pilot, run: Callable[[Store], Any], app: KomaApp | None = None, timeout: float = 60.0) -> Any:
    """What ``run(store)`` answers on the app's own store, read by its storage service (its reader thread, as
    the screens read) once every write the app accepted is in the database."""
    app = app or pilot.app
    await settled(pilot, app, timeout)
    answers: list[Answer] = []
    app.storage.read(run, answers.append, deadline=timeout)
    await wait_for(pilot, lambda: answers, timeout, "the store's answer")
    assert answers[0].known, answers[0].unknown
    return answers[0].value


def store_of(app: KomaApp) -> Store:
    """The very store a test app was given, which its storage threads use: for patching (to watch what the app
    reads), not for asking (use :func:`read_store`)."""
    return app.storage.connect()


# every screen is snapshotted from a phone's or a small SSH client's terminal up (issue 38) to a large one
SNAPSHOT_SIZES = [(40, 20), (60, 24), (80, 24), (120, 36)]


def record_calls(monkeypatch, owner, name: str, what: Callable[..., Any] = lambda *args, **kwargs: args[0]) -> list:
    """Every call of ``owner.name`` from now on, as ``what`` sees its arguments (by default the first: ``self`` for a
    method); each call still runs as before.  ``monkeypatch`` undoes it after the test."""
    calls: list = []
    original = getattr(owner, name)

    def recorded(*args, **kwargs):
        calls.append(what(*args, **kwargs))
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, recorded)
    return calls
