"""Speed boards in a real terminal (tmux, the installed ``koma``): a 7x7 in fringe colours at 80x24 and a 20x20 at
200x60 are whole and readable: every number on the screen, each layer in its colour."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from tmux_sessions import new_tmux_session

from tui.game.speed_schemes import FRINGE, group_count

TMUX = shutil.which("tmux")
KOMA = shutil.which("koma") or str(Path(sys.executable).with_name("koma"))
BACKGROUND = re.compile(r"\x1b\[(?:[0-9;]*;)?48;(?:5;(\d+)|2;(\d+);(\d+);(\d+))")

pytestmark = [
    pytest.mark.skipif(TMUX is None, reason="tmux is not installed (CI installs it)"),
    pytest.mark.skipif(not Path(KOMA).exists(), reason="the koma console script is not installed"),
]


def capture(session: str, *, escapes: bool = False) -> str:
    flags = ["-p", "-e"] if escapes else ["-p"]
    return subprocess.run([TMUX, "capture-pane", *flags, "-t", session], capture_output=True, text=True).stdout


def wait_for(session: str, condition, what: str, timeout: float = 60.0) -> str:
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = capture(session)
        if condition(screen):
            return screen
        time.sleep(0.1)
    raise AssertionError(f"{what} never appeared; the screen was:\n{screen}")


def send(session: str, *keys: str) -> None:
    subprocess.run([TMUX, "send-keys", "-t", session, *keys], check=True)


@pytest.fixture
def koma_in_tmux(tmp_path):
    sessions = []

    def start(columns: int, lines: int) -> str:
        session = f"koma-speed-{uuid.uuid4().hex[:8]}"
        env = {"KOMA_DATA_DIR": str(tmp_path / "data"), "LANG": "C.UTF-8", "TEXTUAL_ANIMATIONS": "none",
               "KOMA_CACHE_DIR": os.path.abspath(os.environ.get("KOMA_CACHE_DIR", str(tmp_path / "cache"))),
               "TERM": "xterm-256color"}
        args = ["-d", "-s", session, "-x", str(columns), "-y", str(lines)]
        for key, value in env.items():
            args += ["-e", f"{key}={value}"]
        new_tmux_session(TMUX, *args, f"env -u COLUMNS -u LINES {KOMA}")
        sessions.append(session)
        wait_for(session, lambda screen: "8-puzzle" in screen, "the home screen", timeout=180)  # (a cold cache compiles)
        send(session, "s")
        wait_for(session, lambda screen: "Session 4x4" in screen, "the Speed screen")
        return session

    yield start
    for session in sessions:
        subprocess.run([TMUX, "kill-session", "-t", session], capture_output=True)


def board_numbers(screen: str) -> list[int]:
    """The numbers drawn left of the panel (the panel starts at its bar, ▏)."""
    board = "\n".join(line.split("▏")[0] for line in screen.splitlines()[1:-2])
    return [int(token) for token in re.findall(r"\d+", board)]


def board_backgrounds(screen: str) -> set[str]:
    """The background colours set left of the panel."""
    found = set()
    for line in screen.splitlines()[1:-2]:
        for match in BACKGROUND.finditer(line.split("▏")[0]):
            found.add(match.group(0))
    return found


def choose_size(session: str, size: str) -> None:
    send(session, "s")
    wait_for(session, lambda screen: "Board size" in screen, "the size dialog")
    send(session, "-l", size)
    send(session, "Enter")
    wait_for(session, lambda screen: f"Session {size}" in screen, f"the {size}")


def test_a_7x7_in_fringe_colours_is_readable_at_80x24(koma_in_tmux):
    session = koma_in_tmux(80, 24)
    choose_size(session, "7x7")
    plain = board_backgrounds(capture(session, escapes=True))
    send(session, "c")
    screen = wait_for(session, lambda screen: "Fringe" in screen, "the fringe scheme")
    assert sorted(board_numbers(screen)) == list(range(1, 49))  # every tile's number, whole
    coloured = board_backgrounds(capture(session, escapes=True))
    # six fringe layers, each in its own colour, beside the board's plain background
    assert len(coloured - plain) >= group_count(FRINGE, 7, 7) == 6


def test_a_20x20_is_readable_at_200x60_and_refused_in_one_line_at_80x24(koma_in_tmux):
    session = koma_in_tmux(200, 60)
    choose_size(session, "20x20")
    screen = wait_for(session, lambda screen: len(board_numbers(screen)) == 399, "the 20x20's 399 numbers")
    assert sorted(board_numbers(screen)) == list(range(1, 400))
    send(session, "c")
    wait_for(session, lambda screen: "Fringe" in screen, "the fringe scheme")
    assert len(board_backgrounds(capture(session, escapes=True))) >= 8  # the palette's eight colours, at least
    small = koma_in_tmux(80, 24)
    send(small, "s")
    wait_for(small, lambda screen: "Board size" in screen, "the size dialog")
    send(small, "-l", "20x20")
    send(small, "Enter")
    screen = wait_for(small, lambda screen: "112x23" in screen, "the refusal")
    panel = " ".join(" ".join(line.split("▏", 1)[1] for line in screen.splitlines() if "▏" in line).split())
    assert "A 20x20 board needs a terminal of at least 112x23 (this one is 80x24)." in panel
    assert "Session 4x4" in screen  # the board stays as it was
    assert "Fringe" in panel  # the player's scheme, remembered from the other terminal
