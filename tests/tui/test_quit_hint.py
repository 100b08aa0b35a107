"""ctrl+c does not quit Koma: Textual's toast says which key does, once while it shows, however long ctrl+c is held."""

from __future__ import annotations

from tui_helpers import make_app, wait_for

from tui.screens.home import HomeScreen


def toasts(app) -> list:
    return list(app.screen.query("Toast"))


async def test_a_held_ctrl_c_shows_one_toast_and_another_once_it_is_gone(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen), what="the home screen")
        for _ in range(30):  # held down: a keyboard repeats 20 to 30 times a second
            await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: toasts(app), what="the toast")
        await pilot.pause()
        assert len(toasts(app)) == 1 and "to quit the app" in str(toasts(app)[0].render())
        app.quit_hint_until = 0.0  # as if its time were up
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: len(toasts(app)) == 2, what="a second toast")
