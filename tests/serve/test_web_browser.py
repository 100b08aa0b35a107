"""``koma web`` in a real browser: Debian's headless Chromium, driven over the DevTools protocol.

A new visitor loads the page, reaches the home screen (read from the page: xterm.js's screen-reader mode puts the
screen's text in it), opens the 8-puzzle with a key, moves tiles with the arrow keys, reloads mid-game and finds the
same game; after the game, another, and a server that stops says so on the page.
``KOMA_WEB_SCREENSHOT=FILE`` also saves a screenshot of the game (the README's).
"""

from __future__ import annotations

import asyncio
import os
import re
import time
from pathlib import Path

import pytest

pytest.importorskip("aiohttp")
pytest.importorskip("asyncssh")

from cdp_browser import CHROMIUM, Chromium
from web_helpers import WebServer

pytestmark = pytest.mark.skipif(not CHROMIUM, reason="chromium-headless-shell is not installed (.ci/run installs it)")


def moves(screen: str) -> int:
    found = re.findall(r"Moves (\d+)", screen)
    return int(found[-1]) if found else -1


async def test_a_new_visitor_plays_and_reloads_into_the_same_game(tmp_path):
    server = WebServer(tmp_path / "data", "--open")
    browser = Chromium()
    try:
        await browser.page()
        began = time.perf_counter()
        await browser.call("Page.navigate", url=server.url)
        await browser.wait_for("8-puzzle")
        first_frame = time.perf_counter() - began
        assert await browser.evaluate("koma.terminal.options.screenReaderMode") is True
        assert await browser.evaluate("koma.terminal.cols") >= 80  # a desktop: Koma's full layouts
        assert await browser.evaluate("document.getElementById('touch-bar').hidden") is True  # no touch screen
        assert await browser.evaluate("koma.socket.url.startsWith('ws://127.0.0.1:')")
        await browser.evaluate("koma.terminal.focus()")
        await browser.key("1")
        screen = await browser.wait_for(r"Moves 0\b")
        board = re.findall(r"Moves.*", screen)
        played = 0
        for key in ("ArrowLeft", "ArrowRight", "ArrowLeft", "ArrowUp", "ArrowDown"):
            await browser.key(key)
            try:
                screen = await browser.wait_for(rf"Moves {played + 1}\b", 5.0)
                played += 1
            except AssertionError:
                continue  # that way was blocked by the edge
        assert played >= 2, screen
        pid = re.findall(r"game started \(pid (\d+)", server.text())
        assert len(pid) == 1
        screenshot = os.environ.get("KOMA_WEB_SCREENSHOT")
        if screenshot:
            await browser.screenshot(Path(screenshot))
        await browser.call("Page.reload")
        screen = await browser.wait_for(rf"Moves {played}\b")
        assert re.findall(r"game started \(pid (\d+)", server.text()) == pid  # the same game, not a new one
        assert "back to its game" in server.text()
        assert board
        print(f"page load to the home screen: {first_frame:.2f} s")
        await browser.evaluate("koma.terminal.focus()")
        await browser.key("q")
        server.wait_for_log(r"game ended \(status 0", 60)
        deadline = time.monotonic() + 60
        while "has ended" not in (await browser.evaluate("document.getElementById('status').textContent") or ""):
            assert time.monotonic() < deadline, "the page never said the game ended"
            await asyncio.sleep(0.05)
        # play again, then the server stops (SIGTERM): the page says it is shutting down and the game is saved
        await browser.evaluate("document.getElementById('status-button').click()")
        server.wait_for_log(r"game started \(pid", 60, count=2)
        await browser.wait_for("8-puzzle")
        server.process.terminate()
        deadline = time.monotonic() + 60
        while "shutting down. Your game is saved" not in (
                await browser.evaluate("document.getElementById('status').textContent") or ""):
            assert time.monotonic() < deadline, "the page never said the server is shutting down"
            await asyncio.sleep(0.05)
        assert await browser.evaluate("koma.closes.at(-1).code") == 1012
    finally:
        await browser.close()
        assert server.stop() == 0
