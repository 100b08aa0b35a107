"""The play screen's side panel shows the start board's game ID, and y copies it (OSC 52)."""

from __future__ import annotations

from tui_helpers import make_app

from solver.ids import parse_game_id
from tui.play.screen import PlayScreen

START = "8 6 7/2 5 4/3 _ 1"


async def test_the_panel_shows_the_start_boards_id_and_y_copies_it(tmp_path):
    app = make_app(tmp_path, "8", START)
    copied: list[str] = []
    app.copy_to_clipboard = copied.append  # what Textual would send to the terminal as OSC 52
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, PlayScreen)
        shown = screen.status.game_id
        puzzle, board = parse_game_id(shown)
        assert puzzle.key == "8" and board == screen.puzzle.parse(START)
        assert shown in str(screen.status.query_one("#game-id").render())
        await pilot.press("left")  # a move changes the board, not the game's ID
        assert screen.status.game_id == shown
        await pilot.press("y")
        assert copied == [shown]


async def test_a_new_game_gets_its_own_id(tmp_path):
    app = make_app(tmp_path, "ura", "WBW/BWB/WBW", size="3x3")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        first = screen.status.game_id
        screen.new_game(screen.puzzle.parse("BBW/BBW/WWW"))
        await pilot.pause()
        assert screen.status.game_id != first
        assert parse_game_id(screen.status.game_id)[1] == screen.puzzle.parse("BBW/BBW/WWW")
