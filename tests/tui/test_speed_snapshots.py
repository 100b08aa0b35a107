"""Snapshots of the Speed screen at 80x24: a 4x4 scramble before the clock, and a 10x10 in compact tiles.

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
