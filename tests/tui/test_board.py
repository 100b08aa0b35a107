"""The board widget (tui/widgets/board.py) in Speed's look: its styles are read once, until the CSS changes."""

from __future__ import annotations

from textual.app import App, ComposeResult

from solver.sliding.model import SlidingPuzzle
from tui.widgets.board import Board
from tui.widgets.looks import SpeedLook

GOAL = SlidingPuzzle(4, 4).goal
ONE_MOVE = (*GOAL[:14], 0, 15)  # 15 slid right


class CountingBoard(Board):
    """A Board that counts its reads of its component styles."""

    reads = 0

    def get_component_rich_style(self, *names: str, partial: bool = False):
        CountingBoard.reads += 1
        return super().get_component_rich_style(*names, partial=partial)


class BoardApp(App):
    CSS = "Board > .board--speed-tile { color: $success; }"

    def compose(self) -> ComposeResult:
        yield CountingBoard(SpeedLook(4, 4), GOAL, id="board")


def tile_style(board: Board, label: str):
    return next(segment.style for y in range(board.size.height) for segment in board.render_line(y)
                if segment.text.strip() == label)


async def test_a_move_repaints_the_board_without_reading_its_styles_again():
    app = BoardApp()
    async with app.run_test(size=(40, 16)) as pilot:
        await pilot.pause()
        board = app.query_one(CountingBoard)
        assert board.render_line(board.size.height // 2).text.strip()  # drawn: its styles are read
        CountingBoard.reads = 0
        board.show(ONE_MOVE)
        for y in range(board.size.height):
            board.render_line(y)
        await pilot.pause()
        assert any("15" in line for line in board.text_lines())  # the new board was drawn…
        assert CountingBoard.reads == 0  # …from the styles read before


async def test_the_board_takes_the_new_colours_when_the_theme_changes():
    app = BoardApp()
    async with app.run_test(size=(40, 16)) as pilot:
        await pilot.pause()
        board = app.query_one(CountingBoard)
        tile = board.get_component_rich_style("board--speed-tile", partial=True)
        assert tile_style(board, "1").color == tile.color
        app.theme = "nord" if app.theme != "nord" else "textual-dark"
        await pilot.pause()
        await pilot.pause()
        tile_now = board.get_component_rich_style("board--speed-tile", partial=True)
        assert tile_now.color != tile.color  # the theme does change this colour: the test below can fail
        assert tile_style(board, "1").color == tile_now.color
