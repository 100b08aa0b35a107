"""The warm process of ``koma serve`` holds everything a game loads: after its warm-up, a game that reaches
the home screen, opens every screen the home screen offers, then the 15-puzzle, learns its distance and
moves, imports no module of its own (each import would be unmarshalled and kept by every game that opens
that screen, and its new names could grow the shared interned-strings table into a private copy)."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import json, os, socket, sys, tempfile
os.environ["KOMA_DATA_DIR"] = tempfile.mkdtemp()
os.environ["TEXTUAL_ANIMATIONS"] = "none"
from tui import zygote
zygote.warm_up()
arguments = zygote.Zygote(socket.socketpair()[0]).arguments  # what a forked game is launched with
before = set(sys.modules)

from tui.app import KomaApp
from tui.launch import chosen_theme, prepare, wants_ascii
from tui.screens.home import HomeScreen
from tui.play.screen import PlayScreen

puzzle, state = prepare(arguments)
app = KomaApp(puzzle=puzzle, start=state, ascii_only=wants_ascii(arguments), theme_name=chosen_theme(arguments))
seen = {}

async def until(pilot, condition, again=()):
    for tick in range(3000):  # at most a minute (more on a loaded box)
        if condition():
            return
        if again and tick and tick % 250 == 0:  # a key pressed while the screen was still mounting can be lost
            await pilot.press(*again)
        await pilot.pause(0.02)
    raise AssertionError("the game never got there")

async def play(pilot):
    await until(pilot, lambda: isinstance(app.screen, HomeScreen))
    for key in ("g", "p", "o", "a", "d", "v", "w", "question_mark"):  # gallery, labs, leaderboard, stats, watch, help
        await pilot.press(key)
        await until(pilot, lambda: not isinstance(app.screen, HomeScreen))
        seen.setdefault("screens", []).append(type(app.screen).__name__)
        await pilot.pause(0.2)
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, HomeScreen), ("escape",))
    await pilot.press("2")
    await until(pilot, lambda: isinstance(app.screen, PlayScreen) and app.screen.state in app.screen.distances)
    seen["distance"] = app.screen.distances.get(app.screen.state)
    await pilot.press("left", "up", "right", "down")
    await pilot.pause(0.2)
    app.exit()

app.run(headless=True, size=(80, 24), auto_pilot=play)
print(json.dumps({"distance": seen.get("distance"), "screens": seen.get("screens"),
                  "new": sorted(set(sys.modules) - before)}))
"""


def test_a_game_after_the_warm_up_imports_nothing_new():
    result = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert isinstance(report["distance"], int) and report["distance"] > 0  # the game really got that far
    assert len(set(report["screens"])) == 8, report["screens"]
    assert report["new"] == []
