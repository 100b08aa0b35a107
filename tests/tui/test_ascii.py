"""ASCII mode: every screen of the app, at 80x24, draws nothing but ASCII.

The check reads what the compositor would put on the terminal (every line of the screen, dialogs
over the screen under them, notifications included), plus the whole text of every ``Static`` so
that text scrolled out of view is checked too.
"""

from __future__ import annotations

import pytest
from textual.containers import VerticalScroll
from textual.content import Content, Span
from textual.scrollbar import ScrollBar, ScrollBarRender
from tui_helpers import make_app, wait_for, wait_warm

from tui.ascii import Static, ascii_content, ascii_key, to_ascii
from tui.play.screen import PlayScreen
from tui.screens.algorithm_lab import AlgorithmLabScreen
from tui.screens.gallery import GalleryScreen
from tui.screens.leaderboard import LeaderboardScreen
from tui.screens.loop_demo import LoopDemoScreen
from tui.screens.parity_lab import ParityLabScreen
from tui.storage.store import Store

SIZE = (80, 24)


def screen_lines(app) -> list[str]:
    """The screen as text, line by line, as the terminal would show it."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def assert_ascii(app, where: str) -> None:
    bad = [f"line {y}: {line!r}" for y, line in enumerate(screen_lines(app)) if not line.isascii()]
    for widget in app.screen.query(Static):
        text = widget.render()
        plain = text.plain if isinstance(text, Content) else ""
        if not plain.isascii():
            bad.append(f"{widget!r}: {plain!r}")
    assert not bad, f"non-ASCII on {where}:\n" + "\n".join(bad)


async def check(pilot, where: str, pause: float = 0.1) -> None:
    await pilot.pause(pause)
    assert_ascii(pilot.app, where)


async def check_dialog(pilot, key: str, where: str) -> None:
    """Open a dialog, check it at the top and scrolled to its end, close it."""
    screen = pilot.app.screen
    await pilot.press(key)
    await wait_for(pilot, lambda: pilot.app.screen is not screen, what=where)
    await check(pilot, where)
    for scroll in pilot.app.screen.query(VerticalScroll):
        scroll.scroll_end(animate=False)
    await check(pilot, f"{where}, scrolled to the end")
    await pilot.press("escape")
    await wait_for(pilot, lambda: pilot.app.screen is screen, what=f"{where} closed")


def test_the_mapping():
    assert to_ascii("solved 3 · best 20 → 1, 2, 3, …") == "solved 3 | best 20 -> 1, 2, 3, ..."
    assert to_ascii("┌1 │2 └3 ┘4 羊5 狼6 ‖7 ─ 大") == "r1 i2 l3 j4 S5 W6 d7 - B"  # Goat's ASCII letters
    assert to_ascii("Brüngger ✓ ✗ 6^4 × 2^0 🔎") == "Brungger ok x 6^4 x 2^0 ?"
    assert to_ascii("[b]plain[/b]") == "[b]plain[/b]"
    assert (ascii_key("↑"), ascii_key("shift+⏎"), ascii_key("^p"), ascii_key("+")) == ("up", "shift+enter", "^p", "+")


def test_styled_spans_follow_the_text():
    content = Content("a → b", [Span(0, 1, "bold"), Span(4, 5, "italic")])
    ascii = ascii_content(content)
    assert ascii.plain == "a -> b" and [(s.start, s.end) for s in ascii.spans] == [(0, 1), (5, 6)]
    assert ascii_content(Content("plain")).plain == "plain"


async def test_home_palette_and_notifications(tmp_path):
    app = make_app(tmp_path, ascii_only=True)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await check(pilot, "home")
        assert ScrollBar.renderer is not ScrollBarRender  # whole-cell thumbs, no eighth blocks
        app.notify("Saved game → restored · 1 of 2…", title="Saved games — ✓", severity="warning")
        await check(pilot, "a notification", 0.3)
        app.clear_notifications()
        await check_dialog(pilot, "question_mark", "help from home")
        await pilot.press("ctrl+p")
        await check(pilot, "the command palette", 0.3)
        await pilot.press("u", "n")
        await check(pilot, "the command palette, searching", 0.3)
        await pilot.press("escape")
        await pilot.press("down", "down", "down", "left")  # Ura-omote's card, a smaller size
        await check(pilot, "home, Ura-omote 2x2")
    assert ScrollBar.renderer is ScrollBarRender  # Textual's own again for the next app


@pytest.mark.parametrize("name, board, size", [
    ("8", "8 6 7/2 5 4/3 _ 1", None),
    ("15", "5 1 2 4/9 6 3 8/13 10 7 11/14 _ 15 12", None),
    ("goat", "r-BB/i.dS/l-jW", None),
    ("ura", "BWB/WBB/BBB", "3x3"),
])
async def test_play_screen_and_its_dialogs(tmp_path, name, board, size):
    app = make_app(tmp_path, name, board, size, ascii_only=True)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = app.screen
        assert isinstance(screen, PlayScreen)
        await check(pilot, f"{name}: warming up", 0)
        await wait_warm(pilot)
        await check(pilot, f"{name}: the board")
        await pilot.press("t")
        await wait_for(pilot, lambda: screen.message.startswith("Hint"), what="the hint")
        await check(pilot, f"{name}: a hint")
        await check_dialog(pilot, "p", f"{name}: the parity proof")
        await check_dialog(pilot, "question_mark", f"{name}: help")
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is not screen, what="the new-game dialog")
        await check(pilot, f"{name}: the new-game dialog")
        await pilot.press("up", "enter")  # the last choice: a typed board
        await pilot.press(*"12x")
        await check(pilot, f"{name}: the new-game dialog, a bad board")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, what="the play screen")
        await pilot.press("s")
        await check(pilot, f"{name}: solving", 0)
        await wait_for(pilot, lambda: screen.playback.active, what="the solution")
        await check(pilot, f"{name}: playing the solution back")
        while screen.playback.active:
            screen.playback.forward()
        assert screen.won
        await check(pilot, f"{name}: solved by Koma", 0.3)


async def open_screen(pilot, key: str, screen_class, what: str):
    """Press ``key`` on the home screen and wait until ``screen_class`` is on top; return it."""
    await pilot.press(key)
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, screen_class), what=what)
    return pilot.app.screen


async def test_gallery_tabs(tmp_path):
    app = make_app(tmp_path, ascii_only=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, "g", GalleryScreen, "the gallery")
        await check(pilot, "the gallery, running", 0)
        for tab in ("g-8", "g-15", "g-goat", "g-ura-3"):
            while screen.tab != tab:
                await pilot.press("right_square_bracket")
            await wait_for(pilot, lambda: screen.figures is not None or screen.fifteen, what=f"{tab}'s BFS")
            await check(pilot, f"the gallery, {tab}")
            await pilot.press("c", "right", "pagedown")
            await check(pilot, f"the gallery, {tab}, classes and paging")


@pytest.mark.parametrize("tab", ["p-15", "p-8", "p-goat", "p-ura-4"])
async def test_parity_lab(tmp_path, tab):
    app = make_app(tmp_path, ascii_only=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, "p", ParityLabScreen, "the parity lab")
        while screen.tab != tab:
            await pilot.press("right_square_bracket")
        await check(pilot, f"the parity lab, {tab}")
        await pilot.press("space", "right", "space")  # swap two pieces: the verdict changes
        await check(pilot, f"the parity lab, {tab}, edited")
        for scroll in screen.query(VerticalScroll):
            scroll.scroll_end(animate=False)
        await check(pilot, f"the parity lab, {tab}, scrolled to the end")


async def test_loop_demo(tmp_path):
    app = make_app(tmp_path, ascii_only=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, "o", LoopDemoScreen, "the loop demo")
        await wait_for(pilot, lambda: screen.run is not None, what="the loop run")
        await check(pilot, "the loop demo")
        await pilot.press("space")
        await check(pilot, "the loop demo, playing", 0.3)
        await pilot.press("e")
        await check(pilot, "the loop demo, at the end")
        await pilot.press("x")
        await check(pilot, "the loop demo, the other parity")


async def test_algorithm_lab(tmp_path):
    app = make_app(tmp_path, ascii_only=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, "a", AlgorithmLabScreen, "the algorithm lab")
        for tab in ("a-8", "a-goat"):
            while screen.tab != tab:
                await pilot.press("right_square_bracket")
            await check(pilot, f"the algorithm lab, {tab}")
            await pilot.press("r")
            await check(pilot, f"the algorithm lab, {tab}, running", 0)
            await wait_for(pilot, lambda: len(screen.results) == len(screen.methods) and not screen.jobs,
                           what="the methods")
            await check(pilot, f"the algorithm lab, {tab}, results")


async def test_leaderboard(tmp_path, monkeypatch):
    monkeypatch.setenv("KOMA_DAY", "2025-01-31")
    Store(tmp_path / "koma.db", player="user:zoë", name="zoë").record_daily("2025-01-31", "8", 30, 20, 5.0)
    app = make_app(tmp_path, store=Store(tmp_path / "koma.db", player="user:józef", name="józef"), ascii_only=True)
    async with app.run_test(size=SIZE) as pilot:
        await open_screen(pilot, "d", LeaderboardScreen, "the leaderboard")
        await check(pilot, "the leaderboard")
        assert "zoe" in "\n".join(screen_lines(app)) and "jozef" in "\n".join(screen_lines(app))
        await pilot.press("right", "left_square_bracket")
        await check(pilot, "the leaderboard, another puzzle and day")


@pytest.mark.parametrize("argv, expected", [
    (["--ascii"], True),                      # the home screen
    (["--ascii", "play", "goat"], True),      # before the command: the play parser must not reset it
    (["play", "goat", "--ascii"], True),
    (["play", "goat"], False),
    ([], False),
])
def test_the_command_line_asks_for_ascii(argv, expected):
    from tui.cli import parse_args
    from tui.launch import wants_ascii

    assert wants_ascii(parse_args(argv)) is expected
