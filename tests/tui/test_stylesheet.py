"""The parsed stylesheet is shared by every app in the process, and the warm process fills it once."""

from __future__ import annotations

import asyncio
import threading
import time

from textual.css.stylesheet import Stylesheet
from tui_helpers import make_app

from tui import zygote
from tui.patches.stylesheet import SharedStylesheet
from tui.screens.home import HomeScreen
from tui.zygote import rehearse


def spy_parses(monkeypatch) -> list[str]:
    """The origin of every CSS source Textual parses from now on."""
    parsed: list[str] = []
    original = Stylesheet._parse_rules

    def parse_rules(self, css, read_from, *args, **kwargs):
        parsed.append(str(read_from))
        return original(self, css, read_from, *args, **kwargs)

    monkeypatch.setattr(Stylesheet, "_parse_rules", parse_rules)
    return parsed


async def home_styles(app) -> dict[str, tuple]:
    """Each home-screen widget's computed colours and size, by its place in the DOM."""
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        return {f"{n.css_identifier} {k}": (n.styles.color, n.styles.background, n.region)
                for k, n in enumerate(app.screen.walk_children())}


async def test_a_second_app_parses_no_css_and_looks_the_same(tmp_path, monkeypatch):
    first = await home_styles(make_app(tmp_path / "a"))
    parsed = spy_parses(monkeypatch)
    second = await home_styles(make_app(tmp_path / "b"))
    assert parsed == []
    assert second == first


async def test_other_css_variables_are_parsed_anew(tmp_path, monkeypatch):
    await home_styles(make_app(tmp_path / "a"))
    parsed = spy_parses(monkeypatch)
    app = make_app(tmp_path / "b")
    app.stylesheet.set_variables({**app.get_css_variables(), "primary": "#123456"})
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
    assert parsed  # rules parsed with other colours are not taken for these


def test_the_warm_process_rehearsal_fills_the_cache_and_leaves_no_thread_or_loop(monkeypatch):
    monkeypatch.setattr(SharedStylesheet, "parsed", {})
    monkeypatch.setattr(zygote, "REHEARSAL_THREADS_SECONDS", 600.0)
    released = threading.Event()
    callers = threading.Thread(target=released.wait, daemon=True)  # the caller's own thread, not the app's
    callers.start()
    before = set(threading.enumerate())  # another test's thread may end meanwhile: what counts is none new
    began = time.monotonic()
    try:
        rehearse()
        waited = time.monotonic() - began
    finally:
        released.set()
    assert waited < 300, "the rehearsal waited for a thread it did not start"
    assert SharedStylesheet.parsed
    assert not set(threading.enumerate()) - before
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        raise AssertionError("the rehearsal left an event loop running")
