"""Measure, from a process start, the time to Koma's first frame and until auto-solve is ready.

``python tests/tui/timing.py [PUZZLE ...]`` starts a fresh process per puzzle (``koma play PUZZLE``
with a fixed seed, headless), and prints: the first frame, the warm-up end (table loaded or search
compiled: auto-solve ready, live distance shown), and one auto-solve answer measured from the key
to the solution on screen.  With tmux it also times the real ``koma`` in an 80x24 terminal until
its first frame is visible.  Run it twice: the first run of a fresh install builds caches.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

CHILD = r'''
import json, os, sys, time
T0 = float(os.environ["KOMA_T0"])
from tui.cli import parse_args
from tui.launch import prepare
from tui.app import KomaApp

args = parse_args(sys.argv[1:])
puzzle, state = prepare(args)
marks = {}

class Timed(KomaApp):
    def _first_frame(self):
        marks["first_frame"] = time.time() - T0
        self.set_interval(0.005, self._poll)

    def _poll(self):
        screen = self.screen
        now = time.monotonic()
        if "ready" not in marks:
            if screen.warm.is_set() and not screen.solver.distance_pending(screen.state):
                marks["ready"] = time.time() - T0
                marks["distance"] = screen.distances.get(screen.state)
                marks["next"] = now + 0.3
                marks["answers"] = []
        elif "key" not in marks and now >= marks["next"]:
            screen.playback.stop()
            screen.action_solve()  # what the s key does
            marks["key"] = now
        elif "key" in marks and (screen.playback.active or screen.job is None):
            marks["answers"].append(now - marks.pop("key"))
            marks["message"] = screen.message
            marks["next"] = now + 0.3
            if len(marks["answers"]) == 5:
                self.exit()
        if time.time() - T0 > 120:
            marks["timeout"] = True
            self.exit()

app = Timed(puzzle=puzzle, start=state)
app.run(headless=True, size=(80, 24))
print(json.dumps(marks))
'''


def headless(puzzle: list[str]) -> dict:
    env = dict(os.environ, KOMA_T0=repr(time.time()))
    out = subprocess.run([sys.executable, "-c", CHILD, "play", *puzzle, "--seed", "1"], env=env,
                         capture_output=True, text=True, cwd=Path(__file__).resolve().parents[2])
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    if not lines:
        raise SystemExit(f"the timing child failed:\n{out.stderr[-2000:]}")
    return json.loads(lines[-1])


def tmux_first_frame() -> float | None:
    tmux, koma = shutil.which("tmux"), shutil.which("koma") or str(Path(sys.executable).with_name("koma"))
    if tmux is None or not Path(koma).exists():
        return None
    session = f"koma-timing-{os.getpid()}"
    began = time.time()
    subprocess.run([tmux, "new-session", "-d", "-s", session, "-x", "80", "-y", "24", "-e", "LANG=C.UTF-8", koma],
                   check=True)
    try:
        while time.time() - began < 30:
            screen = subprocess.run([tmux, "capture-pane", "-p", "-t", session], capture_output=True, text=True).stdout
            if "8-puzzle" in screen:
                return time.time() - began
            time.sleep(0.005)
        return None
    finally:
        subprocess.run([tmux, "kill-session", "-t", session], capture_output=True)


def main(argv: list[str]) -> int:
    puzzles = [p.split(":") for p in (argv or ["8", "15", "goat", "ura:3x3", "ura:6x6"])]
    for spec in puzzles:
        args = [spec[0]] + (["--size", spec[1]] if len(spec) > 1 else [])
        marks = headless(args)
        answers = sorted(1000 * a for a in marks["answers"])
        print(f"{' '.join(args):16} first frame {marks['first_frame']:.2f} s · auto-solve ready {marks['ready']:.2f} s"
              f" · answer {answers[len(answers) // 2]:.0f} ms after the key (median of {len(answers)}, "
              f"max {answers[-1]:.0f}) · distance {marks.get('distance')}"
              f"\n{'':16} {marks.get('message', '')}")
    frame = tmux_first_frame()
    if frame is not None:
        print(f"koma (home screen) in tmux 80x24: first frame visible after {frame:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
