"""Helpers for the Speed screen's tests: what its board draws, read back from the text it renders."""

from __future__ import annotations

from tui.widgets.board import Board


def drawn_cells(board: Board) -> list[str]:
    """What the board draws in each cell's tile (its number, or "" for the blank and hidden numbers), read from
    the text it renders."""
    lines = board.text_lines()
    tw, th = board.tile_size()
    cells = []
    for cell in range(board.columns * board.rows):
        x, y = board.cell_origin(cell)
        text = "".join(line[x:x + tw] for line in lines[y:y + th])
        cells.append(text.strip(" ╭╮╰╯─│+-|"))
    return cells
