"""Sliding boards past 5x5 (to 10x10): played with compact tiles at 80x24, never solved (Koma says so)."""

from __future__ import annotations

import pytest
from tui_helpers import make_app, wait_for

from solver import solving as search
from solver.errors import KomaError
from solver.registry import get_puzzle
from tui.play.screen import PlayScreen
from tui.widgets.board import Board


async def test_koma_play_sliding_10x10_at_80x24(tmp_path):
    app = make_app(tmp_path, "sliding", size="10x10")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, PlayScreen), what="the play screen")
        screen = app.screen
        await wait_for(pilot, screen.warm.is_set, what="the warm-up")
        await pilot.pause()
        board = screen.query_one("#board", Board)
        assert board.compact and len(board.specs) == 100
        regions = [board.cell_region(spec.cell).translate(board.content_region.offset) for spec in board.specs]
        assert all(app.screen.region.contains_region(r) for r in regions)
        assert all(not a.overlaps(b) for k, a in enumerate(regions) for b in regions[k + 1:])
        lines = board.text_lines()
        row, col = divmod(board.state.index(57), 10)
        x, y = board.cell_origin(row * 10 + col)
        assert "57" in lines[y][x:x + board.tile_width]  # each tile drawn in its cell
        assert str(screen.query_one("#game-id").render()).startswith("ID sliding10x10-")
        assert "up to 5x5" in str(screen.query_one("#distance").render())
        await pilot.press("s")  # no solver at this size: the key does nothing, and nothing breaks
        assert screen.job is None
        before = screen.state
        blank_row = before.index(0) // 10
        await pilot.press("up" if blank_row < 9 else "down")
        assert screen.state != before and screen.position == 1


def test_big_boards_have_no_solver_and_say_why():
    puzzle = get_puzzle("sliding", "6x6")
    assert search.methods(puzzle) == []
    with pytest.raises(KomaError, match="up to 5x5"):
        search.solve(puzzle, puzzle.random_state(1))
