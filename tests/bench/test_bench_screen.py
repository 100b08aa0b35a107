"""``koma bench web``'s phone case reads where the game drew its board: the screen grid and the board's cells."""

from __future__ import annotations

from koma_bench.serve.scenarios import ScreenGrid, board_cells, tap

TILE = ["╭────╮", "│ 12 │", "╰────╯"]


def drawn(grid: ScreenGrid, board: list[list[bool]], left: int, top: int) -> None:
    """Draw ``board`` (True: a tile) as Textual does: each line placed with a cursor move, coloured, in pieces."""
    for row, tiles in enumerate(board):
        for line in range(3):
            text = "".join(TILE[line] if tile else " " * 6 for tile in tiles)
            half = len(text) // 2
            grid.feed(f"\x1b[{top + row * 3 + line + 1};{left + 1}H\x1b[38;2;1;2;3m{text[:half]}")
            grid.feed(f"\x1b[0m{text[half:]}")


def test_the_grid_holds_what_was_written_where_the_cursor_was_put():
    grid = ScreenGrid(10, 3)
    grid.feed("\x1b[2;3Hab\x1b[1;3")  # an escape cut in two, as a stream's pieces cut it
    grid.feed("1mcd\x1b[3;9Hxyz\rq\n")
    assert grid.lines() == ["          ", "  abcd    ", "q       xy"]


def test_the_board_is_found_once_every_tile_is_drawn():
    grid = ScreenGrid(40, 14)
    board = [[True, True, True], [True, False, True], [True, True, True]]
    drawn(grid, [[True, True, True], [True, False, True]], 5, 2)  # two rows of three: not yet the whole board
    assert board_cells(grid.lines(), 3, 3) == []
    drawn(grid, board, 5, 2)
    cells = board_cells(grid.lines(), 3, 3)
    assert cells[0] == (5 + 3, 2 + 1) and cells[4] == (5 + 6 + 3, 2 + 3 + 1) and cells[8] == (5 + 12 + 3, 2 + 6 + 1)
    assert tap(*cells[4]) == "\x1b[<0;15;7M\x1b[<0;15;7m"  # counted from 1
    assert tap(0, 0, motion=True) == "\x1b[<35;1;1M\x1b[<0;1;1M\x1b[<0;1;1m"
