"""Koma web's touch controls and announcements, as the game sees them (Pilot): a tap slides a whole line, the
page's touch bar presses bindings by id (so a remapped key stays right), and each move and the solved state
are announced in one short line, with the board readable row by row."""

from __future__ import annotations

import random

from tui_helpers import make_app, wait_for, wait_warm

from solver.registry import get_puzzle
from tui.screens.help import HelpScreen
from tui.screens.home import HomeScreen
from tui.screens.speed import SpeedScreen
from tui.widgets.board import Board
from tui.widgets.touch import TOUCH_BASE, TOUCH_BUTTONS, announcement_sequence, touch_button

BOARD = "8 6 7/2 5 4/3 _ 1"


def button_key(name: str) -> str:
    """The character the page's touch bar sends for a button."""
    return chr(TOUCH_BASE + list(TOUCH_BUTTONS).index(name))


async def tap(pilot, board: Board, cell: int) -> None:
    x, y = board.cell_origin(board.piece_on(cell).cell)
    assert await pilot.click(board, offset=(x + 1, y + 1))
    await pilot.pause()


async def test_a_tap_on_a_tile_along_the_blanks_row_slides_the_whole_line(tmp_path):
    app = make_app(tmp_path, "15", "1 2 3 4/5 6 7 8/9 10 11 12/_ 13 14 15")
    puzzle = get_puzzle("15")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_warm(pilot)
        screen = app.screen
        board = screen.query_one(Board)
        await tap(pilot, board, 15)  # tile 15, three to the right of the blank: 13, 14 and 15 slide left
        await wait_for(pilot, lambda: screen.won, what="the solve by one tap")
        assert screen.position == 3
        assert screen.state == puzzle.replay(puzzle.parse("1 2 3 4/5 6 7 8/9 10 11 12/_ 13 14 15"), ["L"] * 3)[-1]
        assert app.last_announcement == "Solved in 3 moves."


async def test_a_tap_off_the_blanks_lines_moves_nothing(tmp_path):
    app = make_app(tmp_path, "8", BOARD)
    bells = []
    app.bell = lambda: bells.append(True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_warm(pilot)
        board = app.screen.query_one(Board)
        await tap(pilot, board, 0)  # tile 8: neither in the blank's row (the bottom) nor its column (the middle)
        assert bells and app.screen.position == 0
        await tap(pilot, board, 1)  # tile 6, two up the blank's column: 5 then 6 slide down
        assert app.screen.position == 2 and app.screen.state == get_puzzle("8").parse("8 _ 7/2 6 4/3 5 1")


async def test_the_touch_bar_presses_bindings_by_id_even_when_remapped(tmp_path):
    app = make_app(tmp_path, "8", BOARD, keymap={"play.undo": "z", "play.hint": "x"})
    bells = []
    app.bell = lambda: bells.append(True)
    async with app.run_test(size=(44, 20)) as pilot:
        await wait_warm(pilot)
        screen = app.screen
        await pilot.press("left")
        assert screen.position == 1
        await pilot.press(button_key("undo"))  # the page does not know undo is on z now
        assert screen.position == 0
        await pilot.press(button_key("redo"))
        assert screen.position == 1
        await pilot.press(button_key("redo"))  # nothing to redo: turned off, a bell
        assert bells and screen.position == 1
        await pilot.press(button_key("hint"))
        await wait_for(pilot, lambda: screen.message.startswith("Hint"), what="the hint")
        await pilot.press(button_key("read"))
        assert app.last_announcement == screen.message
        await pilot.press(button_key("help"))
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), what="help")
        await pilot.press(button_key("back"))  # closes help (help.close)
        await wait_for(pilot, lambda: app.screen is screen, what="the game again")
        await pilot.press(button_key("back"))  # play.escape
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen), what="home")


async def test_each_move_is_announced_and_the_board_read_row_by_row(tmp_path):
    app = make_app(tmp_path, "8", BOARD)
    async with app.run_test(size=(40, 20)) as pilot:
        await wait_warm(pilot)
        await pilot.press("left")  # tile 1 slides left into the blank
        assert app.last_announcement == "1 left, move 1."
        await pilot.press("v")
        assert app.last_announcement == "row 1: 8, 6, 7; row 2: 2, 5, 4; row 3: 3, 1, blank."
        assert app.screen.message == app.last_announcement  # on the screen too


def test_the_touch_characters_and_the_announcement_sequence():
    assert [touch_button(chr(TOUCH_BASE + i)) for i in range(len(TOUCH_BUTTONS))] == list(TOUCH_BUTTONS)
    assert touch_button("s") is None and touch_button(chr(TOUCH_BASE + len(TOUCH_BUTTONS))) is None
    assert announcement_sequence("Solved\x1b]0;x\x07 in\n3 moves.") == "\x1b]7757;Solved ]0;x in 3 moves.\x07"



async def screen_repaints(pilot, screen, act, done) -> int:
    """How many times ``act()`` (until ``done()`` holds) asks for the whole of ``screen`` to be repainted."""
    calls: list[int] = []
    refresh = screen.refresh

    def counted(*regions, **options):
        calls.append(1)
        return refresh(*regions, **options)

    screen.refresh = counted
    try:
        await act()
        await wait_for(pilot, done, what="the move")
        await pilot.pause()
    finally:
        del screen.refresh
    return len(calls)


async def test_a_tap_on_a_board_repaints_the_screen_no_more_than_a_key(tmp_path):
    """A press on a board is a move, not the start of a text selection: Textual's selection would repaint the whole
    screen on the press and again on the release, and the tap's move would reach the player a frame after a key's
    (tests/serve/test_web_phone.py measures both in the browser).  A key, then a tap that plays the same move
    back, on the play screen's board and on the Speed screen's."""
    app = make_app(tmp_path, "15", "1 2 3 4/5 6 _ 8/9 10 7 12/13 14 11 15")
    async with app.run_test(size=(48, 42)) as pilot:
        await wait_warm(pilot)
        screen = app.screen
        board = screen.query_one(Board)
        by_key = await screen_repaints(pilot, screen, lambda: pilot.press("left"), lambda: screen.position == 1)
        by_tap = await screen_repaints(pilot, screen, lambda: tap(pilot, board, 6), lambda: screen.position == 2)
        assert screen.state[6] == 0 and by_tap <= by_key

        speed = SpeedScreen((4, 4), rng=random.Random(1))
        await app.push_screen(speed)
        await pilot.pause()
        speed_board = speed.query_one(Board)
        blank = speed_board.state.index(0)
        key, beside = ("right", blank - 1) if blank % 4 else ("left", blank + 1)  # that tile slides into the blank
        by_key = await screen_repaints(pilot, speed, lambda: pilot.press(key),
                                       lambda: speed_board.state.index(0) == beside)
        x, y = speed_board.cell_origin(blank)

        async def tap_back():
            assert await pilot.click(speed_board, offset=(x + 1, y + 1))

        by_tap = await screen_repaints(pilot, speed, tap_back, lambda: speed_board.state.index(0) == blank)
        assert by_tap <= by_key


async def test_a_press_on_a_tile_plays_before_its_release(tmp_path):
    """A tap's move starts on its press, as a key's does on its key-down: the game does not wait for the release and
    the click Textual makes of the pair (the page sends both at once; a mouse's button may stay down a while)."""
    app = make_app(tmp_path, "15", "1 2 3 4/5 6 _ 8/9 10 7 12/13 14 11 15")
    async with app.run_test(size=(48, 42)) as pilot:
        await wait_warm(pilot)
        screen = app.screen
        board = screen.query_one(Board)
        x, y = board.cell_origin(7)
        pressed_at = (board.content_region.x + x + 1, board.content_region.y + y + 1)  # the finger goes down, lifts
        assert await pilot.mouse_down(board, offset=(x + 1, y + 1))
        await wait_for(pilot, lambda: screen.position == 1, what="the move on the press")
        assert screen.state[7] == 0
        await pilot.mouse_up(offset=pressed_at)  # where the tile was: it has moved away under the finger
        await pilot.pause()
        assert screen.position == 1 and screen.state[7] == 0  # the release (and Textual's click) moved nothing more

        speed = SpeedScreen((4, 4), rng=random.Random(1))
        await app.push_screen(speed)
        await pilot.pause()
        speed_board = speed.query_one(Board)
        blank = speed_board.state.index(0)
        beside = blank - 1 if blank % 4 else blank + 1
        x, y = speed_board.cell_origin(beside)
        assert await pilot.mouse_down(speed_board, offset=(x + 1, y + 1))
        await wait_for(pilot, lambda: speed_board.state.index(0) == beside, what="the Speed move on the press")
        assert await pilot.mouse_up(speed_board, offset=(x + 1, y + 1))
