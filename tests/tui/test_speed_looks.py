"""The Speed board's looks and hover control on the real app: colour schemes chosen with c and remembered per player,
readable in the colour-blind theme and in ASCII mode; hover control (m) where the pointer's motion moves the blank."""

from __future__ import annotations

import random

from speed_helpers import drawn_cells
from tui_helpers import make_app, read_store, wait_for

from solver import solving as search
from solver.registry import get_puzzle
from tui.game.speed import HOVER, LineMove, hover_move, line_move_to
from tui.game.speed_schemes import FRINGE, OKABE_ITO, RAINBOW, board_groups
from tui.screens.speed import SpeedScreen
from tui.widgets.board import Board

DELTA = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}  # where a tile moving that way goes


def cell_backgrounds(board: Board) -> list[str | None]:
    """The background colour the board draws under each cell's number (read from the lines it renders)."""
    lines = [board.render_line(y) for y in range(board.size.height)]
    out = []
    for cell in range(board.columns * board.rows):
        x, y = board.cell_origin(cell)
        tw, th = board.tile_size()
        middle = y + th // 2 if board.boxed else y
        segments = list(lines[middle])
        position, colour = 0, None
        for segment in segments:
            if position <= x + tw // 2 < position + len(segment.text):
                colour = segment.style.bgcolor if segment.style else None
                break
            position += len(segment.text)
        out.append(None if colour is None else colour.get_truecolor().hex)
    return out


def test_hover_moves_the_blank_under_the_pointer_along_its_line_only():
    puzzle = get_puzzle("sliding", "4x4")
    state = tuple(range(1, 16)) + (0,)  # the blank at cell 15
    assert hover_move(puzzle, state, 12) == LineMove("R", 3)  # three tiles of its row slide right
    assert hover_move(puzzle, state, 3) == LineMove("D", 3)
    assert hover_move(puzzle, state, 12) == line_move_to(puzzle, state, 12)  # the same line move a click makes
    assert hover_move(puzzle, state, 5) is None  # off the blank's row and column: nothing
    assert hover_move(puzzle, state, 15) is None and hover_move(puzzle, state, None) is None
    assert hover_move(puzzle, state, 12, held=True) is None  # a button or ctrl held: the pointer is placed, no move


async def test_colour_schemes_step_with_c_and_are_remembered_for_the_player(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = SpeedScreen((7, 7), rng=random.Random(2))
        await app.push_screen(screen)
        await pilot.pause()
        board = screen.query_one("#speed-board", Board)
        plain = cell_backgrounds(board)
        await pilot.press("c")
        await wait_for(pilot, lambda: board.look.scheme == FRINGE, what="the fringe scheme")
        groups = board_groups(FRINGE, 7, 7)
        coloured = cell_backgrounds(board)
        for cell, value in enumerate(screen.solve.state):
            if value:
                assert coloured[cell] == RAINBOW[groups[value] % len(RAINBOW)]  # the tile's layer's colour
        assert coloured != plain and drawn_cells(board) == ["" if v == 0 else str(v) for v in screen.solve.state]
        assert "Fringe" in str(screen.query_one("#speed-title").render())
        assert await read_store(pilot, lambda store: store.speed_looks()) == (FRINGE, False)
    again = make_app(tmp_path)  # a new session of the same player: the scheme comes back
    async with again.run_test(size=(80, 24)) as pilot:
        screen = SpeedScreen((7, 7), rng=random.Random(2))
        await again.push_screen(screen)
        await wait_for(pilot, lambda: screen.query_one("#speed-board", Board).look.scheme == FRINGE,
                       what="the remembered scheme")


async def test_the_colour_blind_theme_and_ascii_mode_keep_layers_apart(tmp_path):
    app = make_app(tmp_path, ascii_only=True)
    async with app.run_test(size=(80, 24)) as pilot:
        app.theme = "colorblind"
        screen = SpeedScreen((7, 7), rng=random.Random(2), ascii_only=True)
        await app.push_screen(screen)
        await pilot.pause()
        await pilot.press("c")
        board = screen.query_one("#speed-board", Board)
        await wait_for(pilot, lambda: board.look.scheme == FRINGE, what="the fringe scheme")
        groups = board_groups(FRINGE, 7, 7)
        backgrounds = cell_backgrounds(board)
        text = "\n".join(board.text_lines())
        for cell, value in enumerate(screen.solve.state):
            if value:
                assert backgrounds[cell] == OKABE_ITO[groups[value] % len(OKABE_ITO)].lower()
        assert text.isascii()
        # each tile carries its layer's letter: layer 0 is a, layer 5 (the last 2x2) f
        marks = {mark for mark in text if mark.isalpha()}
        assert marks == set("abcdef")


async def test_a_hover_solve_follows_the_pointer_and_is_tagged_hover(tmp_path):
    app = make_app(tmp_path)
    app.clock = lambda: 0.0
    async with app.run_test(size=(80, 24)) as pilot:
        screen = SpeedScreen((3, 3), rng=random.Random(5))
        await app.push_screen(screen)
        await pilot.pause()
        await pilot.press("m")
        assert screen.hover
        board = screen.query_one("#speed-board", Board)
        moves = search.solve(screen.solve.puzzle, screen.solve.state).moves
        blank = screen.solve.state.index(0)
        for move in moves:  # the blank goes where the tile came from: point there
            row, col = divmod(blank, 3)
            d_row, d_col = DELTA[move]
            blank = (row - d_row) * 3 + (col - d_col)
            x, y = board.cell_origin(blank)
            await pilot.hover(board, offset=(x + 1, y + 1))
            await pilot.pause()
        await wait_for(pilot, lambda: screen.run.over, what="the hover solve")
        assert screen.last is not None and not screen.last.dnf and screen.last.control == HOVER
        assert "· hover" in str(screen.query_one("#speed-message").render())  # told beside the time
        stored = await read_store(pilot, lambda store: store.speed_solves("3x3"))
        assert [r.control for r in stored] == [HOVER]
        assert await read_store(pilot, lambda store: store.speed_looks()) == ("plain", True)


async def test_without_hover_control_the_pointer_moves_nothing(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = SpeedScreen((3, 3), rng=random.Random(5))
        await app.push_screen(screen)
        await pilot.pause()
        board = screen.query_one("#speed-board", Board)
        state = screen.solve.state
        for cell in range(9):
            x, y = board.cell_origin(cell)
            await pilot.hover(board, offset=(x + 1, y + 1))
        await pilot.pause()
        assert screen.solve.state == state and not screen.solve.started
