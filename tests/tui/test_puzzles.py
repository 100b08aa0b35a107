"""Pilot tests for Goat, Ura-omote and the home screen, plus the command line checks of ``koma play``."""

from __future__ import annotations

import pytest
from tui_helpers import make_app, wait_for, wait_warm

from tui.main import main
from tui.play.screen import PlayScreen
from tui.screens.home import HomeScreen, PuzzleCard
from tui.widgets.board import Board

GOAT_START = "r-BB/i.dS/l-jW"


async def test_goat_moves_pieces_and_the_big_piece(tmp_path):
    app = make_app(tmp_path, "goat", "r.BB/i-dS/l-jW")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        await pilot.press("left")  # the big piece slides left into the blank
        assert screen.puzzle.format(screen.state) == "rBB./i-dS/l-jW"
        board = screen.query_one(Board)
        big = next(spec for spec in board.specs if spec.kind == "big")
        assert big.cell == 1 and big.span == 2
        await pilot.press("u")
        assert screen.puzzle.format(screen.state) == "r.BB/i-dS/l-jW"
        await pilot.press("up")  # the ─ below the blank goes up
        assert screen.puzzle.format(screen.state) == "r-BB/i.dS/l-jW"


async def test_goat_auto_solve_reaches_the_pen(tmp_path):
    app = make_app(tmp_path, "goat", "r-BB/i.dS/l-jW")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_warm(pilot)
        screen = app.screen
        await pilot.press("s")
        await wait_for(pilot, lambda: screen.playback.active, what="the solution")
        for _ in range(6):
            await pilot.press("plus")
        await wait_for(pilot, lambda: screen.won, what="the playback")
        assert screen.puzzle.is_goal(screen.state) and "Solved by Koma" in screen.message


async def test_ura_letters_and_digits_turn_lines_over(tmp_path):
    app = make_app(tmp_path, "ura", "BWB/WBB/BBB", "3x3")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        await pilot.press("a")
        assert screen.history.moves == ["A"]
        await pilot.press("3")
        assert screen.history.moves == ["A", "3"]
        await pilot.press("f")  # no row F on a 3x3 board
        assert screen.position == 2
        await pilot.press("u", "u")
        board = screen.query_one(Board)
        await pilot.press("down", "right", "enter")  # the cursor moves; Enter turns its row (B) over
        assert board.cursor == 4 and screen.history.moves == ["B"]
        await pilot.press("space")  # and Space its column (2)
        assert screen.history.moves == ["B", "2"]
        origin = board.origin()
        row_c = (origin.x - 2, origin.y + 2 * board.tile_height + board.tile_height // 2)  # the row letter C
        assert board.line_at(*row_c) == "C"
        await pilot.click(board, offset=row_c)
        assert screen.history.moves[-1] == "C"
        column_3 = (origin.x + 2 * board.tile_width + 1, origin.y - 1)  # the column digit 3
        await pilot.click(board, offset=column_3)
        assert screen.history.moves[-1] == "3"


async def test_ura_auto_solve_article_problem(tmp_path):
    app = make_app(tmp_path, "ura", "BWB/WBB/BBB", "3x3")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_warm(pilot)
        screen = app.screen
        assert screen.distances[screen.state] == 7  # the article's answer
        await pilot.press("s")
        await wait_for(pilot, lambda: screen.playback.active, what="the solution")
        for _ in range(6):
            await pilot.press("plus")
        await wait_for(pilot, lambda: screen.won, what="the playback")
        assert screen.position == 7


async def test_home_opens_each_puzzle_and_picks_the_ura_size(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        assert isinstance(app.screen, HomeScreen)
        await pilot.press("down", "enter")
        assert isinstance(app.screen, PlayScreen) and app.screen.puzzle.key == "15"
        await pilot.press("escape")
        assert isinstance(app.screen, HomeScreen)
        await pilot.press("down", "down")
        card = app.screen.focused
        assert isinstance(card, PuzzleCard) and card.entry.name == "ura"
        await pilot.press("right", "right")
        assert card.side == 5
        await pilot.press("enter")
        assert app.screen.puzzle.size_label == "5x5"
        await pilot.press("escape", "3")
        assert app.screen.puzzle.key == "goat"


async def test_home_shows_the_game_in_progress(tmp_path):
    from tui.storage.store import Store

    path = tmp_path / "koma.db"
    app = make_app(tmp_path, "8", "8 6 7/2 5 4/3 _ 1", store=Store(path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("left", "escape")
        about = str(app.screen.query_one("#card-8 .about").render())
        assert "in progress: 1 move," in about


def name_colour(card: PuzzleCard):
    """The colour the card's name is drawn in (the name is the first line of its text)."""
    about = card.query_one(".about").visual
    return next(span.style.foreground for span in about.spans if span.start == 0 and hasattr(span.style, "foreground"))


async def test_the_focused_card_alone_shows_its_name_in_the_accent_colour(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        cards = {card.entry.name: card for card in app.screen.query(PuzzleCard)}
        accent = cards["8"].get_visual_style("card--name", partial=True).foreground
        for name in ("8", "15", "goat"):
            await wait_for(pilot, lambda name=name: name_colour(cards[name]) == accent, what=f"{name}'s name in the accent")
            assert [other for other, card in cards.items() if name_colour(card) == accent] == [name]
            await pilot.press("down")


@pytest.mark.parametrize("argv, problem", [
    (["play", "8", "--board", "1 2 3"], "expected 9 cells"),
    (["play", "ura", "--size", "9x9"], "2x2 to 6x6"),
    (["play", "sliding", "--size", "3by3"], "not of the form WxH"),
    (["play", "goat", "--board", "r-BB/i.dS/l-jX"], "unknown character"),
    (["play", "chess"], "unknown puzzle"),
    (["play", "8", "--seed", "x"], "invalid int value"),
    (["play", "8", "--seed", "3", "--board", "1 2 3/4 5 6/7 8 _"], "not both"),
])
def test_bad_play_arguments_are_one_line_and_exit_2(capsys, argv, problem):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("koma: error: ") and problem in err and err.count("\n") == 1 and "Traceback" not in err


def test_play_seed_gives_the_same_board():
    from tui.cli import parse_args
    from tui.launch import prepare

    one = prepare(parse_args(["play", "15", "--seed", "7"]))
    two = prepare(parse_args(["play", "15", "--seed", "7"]))
    assert one[1] == two[1] and one[0].proof(one[1]).solvable


async def test_the_cards_take_the_new_theme_colours(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        card = app.screen.query_one("#card-8", PuzzleCard)
        before = name_colour(card)
        await pilot.press("ctrl+t")  # the colour-blind theme: another accent
        await wait_for(pilot, lambda: name_colour(card) == card.get_visual_style("card--name", partial=True).foreground,
                       what="the name in the new theme's accent")
        assert name_colour(card) != before
