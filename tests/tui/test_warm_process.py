"""The warm process of ``koma serve`` holds everything a game loads: after its warm-up, a game that reaches
the home screen, opens the 15-puzzle, learns its distance and moves imports no module of its own (each
import would be unmarshalled and kept by every game, and would grow the shared interned-string table)."""

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
from tui.screens.play import PlayScreen

puzzle, state = prepare(arguments)
app = KomaApp(puzzle=puzzle, start=state, ascii_only=wants_ascii(arguments), theme_name=chosen_theme(arguments))
seen = {}

async def play(pilot):
    for _ in range(2000):
        if isinstance(app.screen, HomeScreen):
            break
        await pilot.pause(0.01)
    await pilot.press("2")
    for _ in range(3000):
        screen = app.screen
        if isinstance(screen, PlayScreen) and screen.state in screen.distances:
            break
        await pilot.pause(0.01)
    seen["distance"] = app.screen.distances.get(app.screen.state)
    await pilot.press("left", "up", "right", "down")
    await pilot.pause(0.2)
    app.exit()

app.run(headless=True, size=(80, 24), auto_pilot=play)
print(json.dumps({"distance": seen.get("distance"), "new": sorted(set(sys.modules) - before)}))
"""


def test_a_game_after_the_warm_up_imports_nothing_new():
    result = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert isinstance(report["distance"], int) and report["distance"] > 0  # the game really got that far
    assert report["new"] == []
