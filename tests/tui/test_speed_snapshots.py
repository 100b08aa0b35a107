"""Snapshots of the Speed screen at 80x24: a 4x4 scramble before the clock, and a 10x10 in compact tiles; the screen
its session and its event dialog at 40x20, 60x24 and 80x24.

Regenerate after a deliberate change with ``pytest tests/tui/test_speed_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

import random

import pytest
from tui_helpers import make_app

from tui.screens.speed import SpeedScreen


@pytest.mark.parametrize("size", [(4, 4), (10, 10)], ids=["4x4", "10x10"])
def test_speed(snap_compare, tmp_path, size):
    async def open_speed(pilot):
        await pilot.app.push_screen(SpeedScreen(size, rng=random.Random(2026)))
        await pilot.pause(0.3)

    assert snap_compare(make_app(tmp_path), terminal_size=(80, 24), run_before=open_speed)


@pytest.mark.parametrize("terminal", [(40, 20), (60, 24), (80, 24)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("screen", ["speed-4x4", "speed-10x10", "session", "events"])
def test_speed_in_a_small_terminal(snap_compare, tmp_path, terminal, screen):
    """Below 60 columns the panel goes below the board (issue 38); the session's averages sit above its records."""
    async def open_screen(pilot):
        size = (10, 10) if screen == "speed-10x10" else (4, 4)
        await pilot.app.push_screen(SpeedScreen(size, rng=random.Random(2026)))
        await pilot.pause(0.3)
        if screen in ("session", "events"):
            await pilot.press("v" if screen == "session" else "x")
            await pilot.pause(0.5)

    assert snap_compare(make_app(tmp_path), terminal_size=terminal, run_before=open_screen)
