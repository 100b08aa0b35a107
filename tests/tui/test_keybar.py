"""The key bar (``tui.widgets.keybar``): the screen's keys on one line, from one widget.

How it looks is in the snapshots (it draws what Textual's compact footer drew).  These tests drive
the real app: the bar follows the keys that turn on and off, a click presses a key, and playing does
not leave widgets behind (Textual's footer kept every key widget it ever composed).
"""

from __future__ import annotations

import gc

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widget import Widget
from tui_helpers import make_app, wait_for, wait_warm

from tui.screens.help import HelpScreen
from tui.widgets.keybar import Group, Key, KeyBar

EIGHT = "1 2 3/4 5 6/7 _ 8"  # one move from solved


def bar_line(app) -> str:
    bar = app.screen.query_one(KeyBar)
    return "".join(segment.text for segment in bar.render_line(0)).rstrip()


def shown(bar: KeyBar, description: str) -> Key:
    return next(key for key in bar.items if isinstance(key, Key) and key.description == description)


async def test_the_bar_shows_the_screen_keys_and_follows_undo(tmp_path):
    app = make_app(tmp_path, "8", EIGHT)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_warm(pilot)
        bar = app.screen.query_one(KeyBar)
        assert [key.description for key in bar.items][:4] == ["move", "solve", "hint", "undo"]
        assert bar_line(app).startswith("→ move s solve t hint u undo n new")
        assert bar_line(app).endswith("▏^p palette")
        assert not shown(bar, "undo").enabled
        await pilot.press("left")
        await wait_for(pilot, lambda: shown(bar, "undo").enabled, what="undo to turn on")
        await pilot.press("u")
        await wait_for(pilot, lambda: not shown(bar, "undo").enabled, what="undo to turn off")


async def test_keys_turning_on_and_off_leave_no_widgets_behind(tmp_path):
    app = make_app(tmp_path, "8", EIGHT)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_warm(pilot)
        bar = app.screen.query_one(KeyBar)

        def live_widgets() -> int:
            gc.collect()
            return sum(1 for thing in gc.get_objects() if isinstance(thing, Widget))

        async def toggle_undo(times: int) -> None:
            for _ in range(times):
                await pilot.press("left")
                await wait_for(pilot, lambda: shown(bar, "undo").enabled, what="undo to turn on")
                await pilot.press("u")
                await wait_for(pilot, lambda: not shown(bar, "undo").enabled, what="undo to turn off")

        await toggle_undo(2)
        before = live_widgets()
        await toggle_undo(5)
        assert live_widgets() == before


async def test_a_click_presses_the_key_and_a_disabled_key_rings(tmp_path):
    app = make_app(tmp_path, "8", EIGHT)
    bells = []
    app.bell = lambda: bells.append(True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_warm(pilot)
        line = bar_line(app)
        assert await pilot.click(KeyBar, offset=(line.index("u undo"), 0))
        await pilot.pause()
        assert bells and app.screen.position == 0  # undo is off: nothing was undone
        assert await pilot.click(KeyBar, offset=(line.index("? help") + 2, 0))
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), what="the help screen")


class GroupedKeys(App):
    BINDINGS = [
        Binding("a", "bell", "", group=Binding.Group("pick", compact=True)),
        Binding("b", "bell", "", group=Binding.Group("pick", compact=True)),
        Binding("x", "push", "left", group=Binding.Group("side")),
        Binding("y", "pull", "right", group=Binding.Group("side")),
        Binding("z", "quit", "quit"),
    ]

    def compose(self) -> ComposeResult:
        yield KeyBar()

    def action_push(self) -> None: ...

    def action_pull(self) -> None: ...


async def test_a_group_of_keys_shares_one_description():
    app = GroupedKeys()
    async with app.run_test(size=(60, 3)) as pilot:
        await pilot.pause()
        bar = app.screen.query_one(KeyBar)
        groups = [entry for entry in bar.items if isinstance(entry, Group)]
        assert [(group.description, [key.key for key in group.keys]) for group in groups] == [("side", ["x", "y"])]
        assert bar_line(app).startswith("x y side z quit")
