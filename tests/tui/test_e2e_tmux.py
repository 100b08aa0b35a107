"""End to end: the installed ``koma`` in a real terminal (tmux, 80x24): a move, an auto-solve, quit."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

TMUX = shutil.which("tmux")
KOMA = shutil.which("koma") or str(Path(sys.executable).with_name("koma"))

pytestmark = [
    pytest.mark.skipif(TMUX is None, reason="tmux is not installed (CI installs it)"),
    pytest.mark.skipif(not Path(KOMA).exists(), reason="the koma console script is not installed"),
]


def capture(session: str) -> str:
    return subprocess.run([TMUX, "capture-pane", "-p", "-t", session], capture_output=True, text=True).stdout


def wait_for_text(session: str, text: str, timeout: float = 60.0) -> str:
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = capture(session)
        if text in screen:
            return screen
        time.sleep(0.1)
    raise AssertionError(f"{text!r} never appeared; the screen was:\n{screen}")


def test_play_a_move_auto_solve_and_quit(tmp_path):
    session = f"koma-e2e-{uuid.uuid4().hex[:8]}"
    status = tmp_path / "status"
    env = {"KOMA_DATA_DIR": str(tmp_path / "data"), "LANG": "C.UTF-8", "TEXTUAL_ANIMATIONS": "none",
           "KOMA_CACHE_DIR": os.environ.get("KOMA_CACHE_DIR", str(tmp_path / "cache"))}
    command = f"{KOMA} play 8 --board '4 1 3/7 2 6/_ 5 8'; echo $? > {status}"
    args = [TMUX, "new-session", "-d", "-s", session, "-x", "80", "-y", "24"]
    for key, value in env.items():
        args += ["-e", f"{key}={value}"]
    subprocess.run(args + [command], check=True)
    try:
        wait_for_text(session, "Moves 0")
        subprocess.run([TMUX, "send-keys", "-t", session, "Left"], check=True)  # tile 5 slides left
        wait_for_text(session, "Moves 1")
        wait_for_text(session, "from solved")
        subprocess.run([TMUX, "send-keys", "-t", session, "s"], check=True)
        screen = wait_for_text(session, "Solved by Koma")
        assert "Moves" in screen
        subprocess.run([TMUX, "send-keys", "-t", session, "q"], check=True)
        deadline = time.monotonic() + 10
        while not status.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert status.read_text().strip() == "0"
    finally:
        subprocess.run([TMUX, "kill-session", "-t", session], capture_output=True)
