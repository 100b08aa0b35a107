"""``koma bench open``: the CPU it costs to open the 15-puzzle from the home screen, beside the floor.

- ``koma``: the app, from the home screen, ``2`` (the 15-puzzle) and back with ``escape``, :data:`OPENINGS` times.
- ``floor``: a bare Textual app whose ``2`` opens a screen shaped like the play screen (:class:`FloorPlayScreen`: a 4x4
  grid of bordered tiles, a side panel of eight lines, a title line and a line of keys: about thirty widgets, as
  Koma's has) and ``escape`` closes it: what Textual itself costs to open such a screen.

Each runs headless (Textual's test driver: no terminal output) in a process of its own that runs this file
(``runpy``), so that ``koma bench --against REV`` can run REV's app with it (REV's code first on the path).
The figure is the main thread's CPU (``time.thread_time``: the solvers' threads, such as the distance's search, are
not in it) from the key to :data:`SETTLE_SECONDS` later, once the screen has settled; the first openings load the
tables and kernels and are not counted.  The idle app costs about 0.2 ms of that time (measured beside it).
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

OPENINGS = 5
WARM_OPENINGS = 2  # the first openings load tables and kernels: not counted
SETTLE_SECONDS = 0.3
READY_SECONDS = 180.0  # a first run may build tables and compile kernels
ROUNDS = 3


async def until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + READY_SECONDS
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError("the screen never came")
        await asyncio.sleep(0.01)


async def openings(app: Any, opened: str, home: str, counted: int = OPENINGS) -> list[float]:
    """Main-thread CPU milliseconds of each of ``counted`` openings (after :data:`WARM_OPENINGS`): ``2`` from the
    screen named ``home`` to the one named ``opened``, settled; then ``escape`` back."""
    spent = []
    async with app.run_test(size=(80, 24)) as pilot:
        await until(lambda: type(app.screen).__name__ == home)
        for number in range(WARM_OPENINGS + counted):
            await asyncio.sleep(SETTLE_SECONDS)
            began = time.thread_time()
            await pilot.press("2")
            await until(lambda: type(app.screen).__name__ == opened)
            await asyncio.sleep(SETTLE_SECONDS)
            if number >= WARM_OPENINGS:
                spent.append(1000 * (time.thread_time() - began))
            await pilot.press("escape")
            await until(lambda: type(app.screen).__name__ == home)
    return spent


def floor_app() -> Any:
    from textual.app import App, ComposeResult
    from textual.containers import Grid, Horizontal, Vertical
    from textual.screen import Screen
    from textual.widgets import Static

    class FloorPlayScreen(Screen):
        """A bare screen shaped like Koma's play screen at 80x24."""

        CSS = """
        Grid { grid-size: 4 4; width: 48; height: 20; }
        .tile { border: round white; content-align: center middle; }
        #side { width: 1fr; }
        """
        BINDINGS = [("escape", "app.pop_screen", "back")]

        def compose(self) -> ComposeResult:
            yield Static("Koma — 15-puzzle 4x4")
            with Horizontal():
                with Grid():
                    for number in range(16):
                        yield Static(str(number + 1) if number < 15 else "", classes="tile")
                with Vertical(id="side"):
                    for line in ("15-puzzle 4x4", "ID 15-1kVwAsXD3 (y copies)", "Moves 0   Time 00:00", "",
                                 "64 moves from solved", "Parity: solvable\ninversions 55 + blank row 3 = 58, even",
                                 "", ""):
                        yield Static(line)
            yield Static("→ move s solve t hint u undo n new p parity esc back q quit ? help")

    class FloorHomeScreen(Screen):
        BINDINGS = [("2", "open", "open")]

        def compose(self) -> ComposeResult:
            yield Static("2 opens a screen shaped like the play screen")

        def action_open(self) -> None:
            self.app.push_screen(FloorPlayScreen())

    class FloorOpenApp(App[None]):
        def on_mount(self) -> None:
            self.push_screen(FloorHomeScreen())

    return FloorOpenApp()


def measure(which: str, counted: int = OPENINGS) -> list[float]:
    """This process's openings: ``koma`` (the app on the path: this checkout's, or REV's) or ``floor``."""
    os.environ["TEXTUAL_ANIMATIONS"] = "none"
    if which == "floor":
        return asyncio.run(openings(floor_app(), "FloorPlayScreen", "FloorHomeScreen", counted))
    from tui.app import KomaApp

    return asyncio.run(openings(KomaApp(), "PlayScreen", "HomeScreen", counted))


def one_process(which: str, checkout: str | None = None, counted: int = OPENINGS) -> list[float]:
    """:func:`measure` in a process of its own (on ``checkout``'s code, if given), in a fresh data directory."""
    from solver.tools.bench import running_checkout

    with tempfile.TemporaryDirectory(prefix="koma-open-") as data:
        env = running_checkout(dict(os.environ, KOMA_DATA_DIR=data), checkout)
        script = (f"import runpy, sys; sys.argv = ['open_bench', {which!r}, '{counted}']; "
                  f"runpy.run_path({str(Path(__file__).resolve())!r}, run_name='__main__')")
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=checkout,
                              timeout=READY_SECONDS + 120)
    if done.returncode != 0:
        raise RuntimeError(f"the {which} openings failed: {(done.stderr.strip().splitlines() or ['?'])[-1]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def open_beside_the_floor(against: str | None = None, rounds: int = ROUNDS, counted: int = OPENINGS) -> dict[str, Any]:
    """Medians over ``rounds`` alternating processes: Koma's main-thread CPU to open the 15-puzzle, the floor's, their
    ratio (and REV's Koma, if given)."""
    runs: dict[str, list[float]] = {"koma": [], "floor": [], "against": []}
    for _ in range(rounds):
        runs["koma"] += one_process("koma", None, counted)
        runs["floor"] += one_process("floor", None, counted)
        if against:
            runs["against"] += one_process("koma", against, counted)
    koma, floor = statistics.median(runs["koma"]), statistics.median(runs["floor"])
    figures: dict[str, Any] = {"koma_open_main_thread_ms": round(koma, 1), "floor_open_main_thread_ms": round(floor, 1),
                               "koma/floor": round(koma / floor, 2)}
    if against:
        there = statistics.median(runs["against"])
        figures.update({"against_open_main_thread_ms": round(there, 1), "koma/against": round(koma / there, 2)})
    figures["openings"] = {name: len(values) for name, values in runs.items() if values}
    return figures


if __name__ == "__main__":
    print(json.dumps([round(value, 2) for value in measure(sys.argv[1], int(sys.argv[2]))]))
