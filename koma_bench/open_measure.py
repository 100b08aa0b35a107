"""The measuring half of ``koma bench open`` (:mod:`koma_bench.open_screen`), run in a process of its own by file (``runpy``),
on this checkout's code or on another's first on the path: ``koma`` or ``floor``, and how many openings to count.
It prints the main thread's CPU milliseconds of each counted opening, as JSON.  Nothing imports it: the bench's
side (:mod:`koma_bench.open_screen`) stays free of Textual and the app, as the servers' modules must.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any

OPENINGS = 5
WARM_OPENINGS = 2  # the first openings load tables and kernels: not counted
SETTLE_SECONDS = 0.3
READY_SECONDS = 180.0  # a first run may build tables and compile kernels


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


def measure(which: str, counted: int = OPENINGS) -> list[float]:
    """This process's openings: ``koma`` (the app on the path: this checkout's, or REV's) or ``floor``."""
    os.environ["TEXTUAL_ANIMATIONS"] = "none"
    if which == "floor":
        from koma_bench.floor_app import FloorOpenApp

        return asyncio.run(openings(FloorOpenApp(), "FloorPlayScreen", "FloorHomeScreen", counted))
    from tui.app import KomaApp

    return asyncio.run(openings(KomaApp(), "PlayScreen", "HomeScreen", counted))


if __name__ == "__main__":
    print(json.dumps([round(value, 2) for value in measure(sys.argv[1], int(sys.argv[2]))]))
