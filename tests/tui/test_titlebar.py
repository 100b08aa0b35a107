"""The title bar (``tui.widgets.titlebar``): Textual's header line, drawn by one widget.

How it looks is in the snapshots (cell for cell what Textual's header drew).  These tests drive the
real app: the bar follows the screen's sub-title, and a click opens the palette or makes it tall.
"""

from __future__ import annotations

from textual.command import CommandPalette
from tui_helpers import make_app, wait_for

from tui.screens.home import HomeScreen
from tui.widgets.titlebar import ICON_WIDTH, TitleBar


def bar_line(app) -> str:
    return "".join(segment.text for segment in app.screen.query_one(TitleBar).render_line(0)).rstrip()


async def test_the_bar_centres_the_title_and_follows_the_sub_title(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen), what="the home screen")
        await pilot.pause()
        line = bar_line(app)
        assert line.startswith(" 駒") and "Koma — sliding and flipping puzzles" in line
        middle = line[ICON_WIDTH - 1:].strip()  # 駒 is two cells wide, one character
        assert abs(line.index(middle) - (ICON_WIDTH - 1) - (80 - ICON_WIDTH - 10 - len(middle)) // 2) <= 1
        app.screen.sub_title = "a new sub-title"
        await pilot.pause()
        assert bar_line(app).endswith("Koma — a new sub-title")


async def test_a_click_on_the_icon_opens_the_palette_and_elsewhere_makes_the_bar_tall(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen), what="the home screen")
        bar = app.screen.query_one(TitleBar)
        assert await pilot.click(TitleBar, offset=(40, 0))
        await wait_for(pilot, lambda: bar.size.height == 3, what="a tall bar")
        assert await pilot.click(TitleBar, offset=(40, 1))
        await wait_for(pilot, lambda: bar.size.height == 1, what="a short bar")
        assert await pilot.click(TitleBar, offset=(1, 0))
        await wait_for(pilot, lambda: CommandPalette.is_open(app), what="the command palette")


async def test_in_a_narrow_terminal_the_sub_title_alone_takes_the_line(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(40, 20)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen), what="the home screen")
        app.screen.sub_title = "the loop method (article 003)"  # 29 columns: more than Koma's title leaves
        await pilot.pause()
        assert bar_line(app).endswith(" the loop method (article 003)") and "Koma" not in bar_line(app)
        app.screen.sub_title = "lab"
        await pilot.pause()
        assert bar_line(app).endswith("Koma — lab")
