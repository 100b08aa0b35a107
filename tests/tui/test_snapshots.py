"""Snapshots of every screen at 40x20, 60x24, 80x24 and 120x36: fixed boards, a frozen clock, no spinner frames.

Regenerate after a deliberate change with ``pytest tests/tui/test_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

import pytest
from tui_helpers import SNAPSHOT_SIZES, make_app, wait_for, wait_warm

SIZES = SNAPSHOT_SIZES
BOARDS = {
    "8": ("8", "8 6 7/2 5 4/3 _ 1", None),
    "15": ("15", "5 1 2 4/9 6 3 8/13 10 7 11/14 _ 15 12", None),
    "goat": ("goat", "r-BB/i.dS/l-jW", None),
    "ura": ("ura", "BWB/WBB/BBB", "3x3"),
}


async def settle(pilot) -> None:
    await wait_warm(pilot)
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_home(snap_compare, tmp_path, size):
    assert snap_compare(make_app(tmp_path), terminal_size=size)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("puzzle", list(BOARDS))
def test_play(snap_compare, tmp_path, size, puzzle):
    name, board, board_size = BOARDS[puzzle]
    assert snap_compare(make_app(tmp_path, name, board, board_size), terminal_size=size, run_before=settle)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_play_goat_ascii(snap_compare, tmp_path, size):
    app = make_app(tmp_path, "goat", "r-BB/i.dS/l-jW", ascii_only=True)
    assert snap_compare(app, terminal_size=size, run_before=settle)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_hint_and_win(snap_compare, tmp_path, size):
    async def hint_then_win(pilot):
        await settle(pilot)
        screen = pilot.app.screen
        await pilot.press("t")
        await wait_for(pilot, lambda: screen.message.startswith("Hint"), what="the hint")
        await pilot.press("left", "left")
        await wait_for(pilot, lambda: screen.won, what="the win")
        pilot.app.clear_notifications()
        await pilot.pause(0.3)

    assert snap_compare(make_app(tmp_path, "8", "1 2 3/4 5 6/_ 7 8"), terminal_size=size, run_before=hint_then_win)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("key", ["p", "question_mark", "n"], ids=["proof", "help", "new-game"])
def test_dialogs(snap_compare, tmp_path, size, key):
    app = make_app(tmp_path, "15", "1 2 3 4/5 6 7 8/9 10 11 12/13 15 14 _") if key == "p" else make_app(
        tmp_path, "8", "8 6 7/2 5 4/3 _ 1")

    async def open_dialog(pilot):
        await settle(pilot)
        await pilot.press(key)
        await pilot.pause(0.2)

    assert snap_compare(app, terminal_size=size, run_before=open_dialog)
