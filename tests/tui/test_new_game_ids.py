"""The new-game dialog takes a game ID of its own puzzle and size, and refuses a foreign or mistyped one."""

from __future__ import annotations

from textual.widgets import Input
from tui_helpers import make_app, wait_for, wait_warm

from solver.ids import game_id
from solver.registry import get_puzzle


async def open_board_field(pilot):
    await pilot.press("n")
    dialog = pilot.app.screen
    await pilot.press("down", "down", "enter")  # "This board or game ID"
    field = dialog.query_one("#board", Input)
    assert field.has_focus
    return dialog, field


async def test_a_game_id_starts_that_board(tmp_path):
    ura = get_puzzle("ura", "4x4")
    app = make_app(tmp_path, "ura", ura.format(ura.random_state(1)), size="4x4")
    wanted = ura.random_state(2)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_warm(pilot)
        screen = app.screen
        dialog, field = await open_board_field(pilot)
        field.value = game_id(ura, wanted)
        await pilot.pause()
        assert str(dialog.query_one("#verdict").render()).startswith("Parity: solvable.")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is screen and screen.state == wanted, what="the board of the ID")
        assert screen.position == 0


async def test_foreign_and_mistyped_ids_are_refused(tmp_path):
    eight = get_puzzle("8")
    app = make_app(tmp_path, "8", "1 2 3/4 5 6/_ 7 8")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_warm(pilot)
        dialog, field = await open_board_field(pilot)
        verdict = dialog.query_one("#verdict")
        goat = get_puzzle("goat")
        field.value = game_id(goat, goat.goal)
        await pilot.pause()
        assert "names a Goat 4x3 board" in str(verdict.render()) and verdict.has_class("-bad")
        good = game_id(eight, eight.random_state(4))
        field.value = good[:-1] + ("0" if good[-1] != "0" else "1")
        await pilot.pause()
        assert "check character" in str(verdict.render()) and verdict.has_class("-bad")
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is dialog  # refused: the dialog stays open
