"""Hover control in ``koma web``: a 4x4 speed solve in a real Chromium, the blank led by pointer moves alone
(DevTools' ``Input.dispatchMouseEvent`` mouseMoved, no click, no key): xterm.js reports the motion, the game moves the
blank under the pointer, and the solve ends tagged hover, on the page and in the store.  ``KOMA_HOVER_SCREENSHOT=FILE``
saves the solved board (in fringe colours)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

pytest.importorskip("aiohttp")
pytest.importorskip("asyncssh")

from cdp_browser import CHROMIUM, Chromium
from web_helpers import WebServer

from solver import ids
from solver import solving as search
from solver.sliding.model import TILE_DELTA
from tui.storage.store import Store

pytestmark = pytest.mark.skipif(not CHROMIUM, reason="chromium-headless-shell is not installed (.ci/run installs it)")

GEOMETRY = """(() => { const r = document.querySelector('.xterm-screen').getBoundingClientRect();
  return [r.left, r.top, r.width / koma.terminal.cols, r.height / koma.terminal.rows]; })()"""


def tile_cell(screen: str, tile: int) -> tuple[int, int]:
    """Where ``tile``'s number is drawn (column, row of the terminal), left of the panel, below the title bar and above
    the key bar."""
    lines = screen.split("\n")
    for row, line in enumerate(lines[:-2]):
        if row == 0:
            continue
        board = line.split("▏")[0]
        for found in re.finditer(r"\d+", board):
            if int(found.group()) == tile:
                return found.start(), row
    raise AssertionError(f"tile {tile} is not on the screen:\n{screen}")


async def test_a_hover_solve_in_the_browser_follows_the_pointer_and_is_tagged_hover(tmp_path):
    server = WebServer(tmp_path / "data", "--open")
    browser = Chromium()
    try:
        await browser.page()
        await browser.call("Page.navigate", url=server.url)
        await browser.wait_for("8-puzzle")
        await browser.evaluate("koma.terminal.focus()")
        await browser.key("s")
        await browser.wait_for("Session 4x4")
        await browser.key("m")
        await browser.key("c")  # in fringe colours, as big boards are played
        screen = await browser.wait_for("Fringe")
        assert "hover" in screen
        game_id = re.search(r"ID (15-\w+)", screen).group(1)
        puzzle, state = ids.parse_game_id(game_id)
        moves = search.solve(puzzle, state).moves
        left, top, cell_width, cell_height = await browser.evaluate(GEOMETRY)
        board = list(state)
        for move in moves:
            blank = board.index(0)
            d_row, d_col = TILE_DELTA[move]
            source = blank - d_row * puzzle.width - d_col  # the tile that moves into the blank
            tile = board[source]
            column, row = tile_cell(screen, tile)
            await browser.call("Input.dispatchMouseEvent", type="mouseMoved", x=left + (column + 0.5) * cell_width,
                               y=top + (row + 0.5) * cell_height)
            board[blank], board[source] = tile, 0
            screen = await _after_move(browser, screen, tile)
        screen = await browser.wait_for(r"Solved in [\d:.]+ · hover", 60)
        assert f"STM {len(moves)}" in screen
        if os.environ.get("KOMA_HOVER_SCREENSHOT"):
            await browser.screenshot(Path(os.environ["KOMA_HOVER_SCREENSHOT"]))
        store = Store(tmp_path / "data" / "koma.db", player="local")
        entries = store.speed_board("single", "4x4")
        assert len(entries) == 1 and entries[0].result.control == "hover" and not entries[0].result.dnf
        assert entries[0].result.moves == tuple(moves)
        store.close()
    finally:
        await browser.close()
        assert server.stop() == 0


async def _after_move(browser: Chromium, before: str, tile: int) -> str:
    """The screen once ``tile`` has moved (its number drawn elsewhere)."""
    where = tile_cell(before, tile)
    screen = before
    for _ in range(60):
        screen = await browser.next_screen(screen)
        try:
            if tile_cell(screen, tile) != where:
                return screen
        except AssertionError:
            continue  # a frame drawn half-way
    raise AssertionError(f"tile {tile} never moved under the pointer; the page shows:\n{screen}")
