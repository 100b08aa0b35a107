"""``koma web`` on a phone (issue 38): Debian's headless Chromium with a phone's screen and touch emulation.

At 390x844 and 360x740, portrait then landscape: the terminal gets enough columns, the 8-puzzle opens by a tap
on its card, a tap on a tile along the blank's line slides the line, the board is read from the page (the touch
bar's Read button puts it in the live region), the solver's moves are played by swipes alone, the touch bar's
buttons work, the page follows a rotation, and a reload finds the same game.  Swipe-to-board and key-to-board
times are measured in the same run, in the page (input event to the move counter's change in xterm.js's buffer),
and printed.  At 390x844 the 15-puzzle shows whole with its move counter, drawn for the phone's 3x pixels (a
canvas made for 1x shows it three times too large and cut off), and an on-screen keyboard (the page's height down
to 500 pixels, then back) refits the terminal while the game keeps its board and moves.  In Speed, a tap on a tile
in the blank's row slides the line (STM counts its tiles, MTM 1), the page sends a tap as one press and one
release, and tap-to-board, swipe-to-board and key-to-board times of the same run are printed.
"""

from __future__ import annotations

import asyncio
import functools
import re
import statistics
import time

import pytest

pytest.importorskip("aiohttp")
pytest.importorskip("asyncssh")

from cdp_browser import CHROMIUM, NEXT_SCREEN_SECONDS, Chromium
from web_helpers import WebServer

from solver import solving as search
from solver.ids import parse_game_id
from solver.registry import get_puzzle

pytestmark = pytest.mark.skipif(not CHROMIUM, reason="chromium-headless-shell is not installed (.ci/run installs it)")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """One ``koma web`` for the module's phones (about 2.4 CPU-seconds a start, its warm process's included): each
    phone is a new visitor (a Chromium with a profile of its own: a new guest, a game of its own), counts the games
    started since it came, and the server is checked to stop with status 0 after them all."""
    started = WebServer(tmp_path_factory.mktemp("phones") / "data", "--open")
    try:
        yield started
        assert started.stop() == 0
    finally:
        started.kill()

SWIPES = {"L": (-1, 0), "R": (1, 0), "U": (0, -1), "D": (0, 1)}  # a move names the way its tile goes
KEYS = {"L": "ArrowLeft", "R": "ArrowRight", "U": "ArrowUp", "D": "ArrowDown"}
TILE_TOP = re.compile("[╭┏╔][─━═]{3,}")  # a tile's top edge (the digits drawn in tiles have shorter strokes)
# in the page: when each "Moves N" first reached the terminal (xterm.js's buffer, as each write is parsed: its
# screen-reader rows are refreshed at most once a second, so they would time xterm.js's debounce, not the game),
# and when each key went down (touch ends are koma.swipes)
WATCH_MOVES = """
(() => {
  window.seen = {};
  window.keys = [];
  document.addEventListener("keydown", () => keys.push(performance.now()), true);
  koma.terminal.onWriteParsed(() => {
    const buffer = koma.terminal.buffer.active;
    for (let y = 0; y < koma.terminal.rows; y++) {
      const line = buffer.getLine(buffer.viewportY + y);
      const found = line && line.translateToString(true).match(/Moves (\\d+)/);
      if (found && !(found[1] in seen)) seen[found[1]] = performance.now();
    }
  });
  return true;
})()
"""


class Phone:
    """The page as a player's thumb sees it: cells of the terminal in CSS pixels, taps and swipes on them."""

    def __init__(self, browser: Chromium):
        self.browser = browser

    async def cells(self) -> tuple[float, float, float, float]:
        """The terminal's left, top, cell width and cell height, in CSS pixels."""
        return tuple(await self.browser.evaluate(
            "(() => { const r = document.querySelector('.xterm-screen').getBoundingClientRect();"
            " return [r.left, r.top, r.width / koma.terminal.cols, r.height / koma.terminal.rows]; })()"))

    async def tap_cell(self, column: float, row: float) -> None:
        left, top, width, height = await self.cells()
        await self.browser.tap(left + (column + 0.5) * width, top + (row + 0.5) * height)

    async def tap_text(self, text: str) -> None:
        """Tap the middle of ``text`` on the screen, again if the page never saw the tap (see :meth:`seen`)."""
        lines = (await self.browser.screen()).split("\n")
        row = next(number for number, line in enumerate(lines) if text in line)
        await self.seen(functools.partial(self.tap_cell, lines[row].index(text) + len(text) / 2, row), "koma.taps")

    async def button(self, name: str) -> None:
        """Tap a button of the touch bar.  On a loaded box Chromium now and then drops a whole touch sequence (no
        click follows): the page records each press, and a tap it never saw is tapped again."""
        pressed = len(await self.browser.evaluate("koma.presses"))
        # the bar shows the buttons the game says the screen can use: once it shows this one, and it stays in one
        # place for a moment (a screen's next state may add or take away a row of the bar, as a thumb would wait)
        place, still = None, 0
        for _ in range(500):
            now = await self.browser.evaluate(
                f"(() => {{ const b = document.querySelector('#touch-bar [data-button=\"{name}\"]');"
                " const r = b.getBoundingClientRect(); return b.hidden ? null : [r.left, r.top]; })()")
            still = still + 1 if now is not None and now == place else 0
            place = now
            if still >= 3:
                break
            await asyncio.sleep(0.05)
        for _ in range(3):
            x, y = await self.browser.evaluate(
                f"(() => {{ const r = document.querySelector('#touch-bar [data-button=\"{name}\"]')"
                ".getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()")
            await self.browser.tap(x, y)
            deadline = time.monotonic() + 3
            while time.monotonic() < deadline:
                presses = await self.browser.evaluate("koma.presses")
                if len(presses) > pressed:
                    assert presses[pressed:] == [name]
                    return
                await asyncio.sleep(0.02)
        raise AssertionError(f"three taps on {name} never reached the page; the bar: {await self.browser.evaluate('koma.bar')}, "
                             f"presses {await self.browser.evaluate('koma.presses')}\n{await self.browser.screen()}")

    async def board_cells(self, width: int, height: int) -> list[tuple[float, float]]:
        """The centre (column, row) of each cell of the board drawn on the terminal, row by row
        (:func:`cells_of`), as the page's screen-reader text shows it."""
        screen, deadline = None, time.monotonic() + 20
        while True:  # until the board is drawn whole (the page may be between two frames)
            screen = await self.browser.next_screen(screen)
            centres = cells_of(screen.split("\n"), width, height)
            if centres:
                return centres
            if time.monotonic() > deadline:
                raise AssertionError("no board in the page:\n" + screen)

    async def board_cells_now(self, width: int, height: int) -> list[tuple[float, float]]:
        """:meth:`board_cells` as the terminal's buffer has the board this moment (the screen-reader text is
        refreshed at most once a second: a thumb taps where the board is drawn now)."""
        lines: list[str] = []
        for _ in range(100):
            lines = await self.browser.evaluate(
                "(() => { const t = koma.terminal, b = t.buffer.active; return Array.from({length: t.rows}, "
                "(_, y) => { const line = b.getLine(b.viewportY + y); return line ? line.translateToString(true) : ''; "
                "}); })()")
            centres = cells_of(lines, width, height)
            if centres:
                return centres
            await asyncio.sleep(0.05)  # between two frames
        raise AssertionError("no board in the terminal's buffer:\n" + "\n".join(lines))

    async def seen(self, gesture, record: str) -> None:
        """Make ``gesture()`` until the page records it in ``record`` (koma.taps, koma.swipes): on a loaded box
        Chromium now and then drops a whole touch sequence, as :meth:`button` says."""
        made = await self.browser.evaluate(f"{record}.length")
        for _ in range(3):
            await gesture()
            deadline = time.monotonic() + 3
            while time.monotonic() < deadline:
                if await self.browser.evaluate(f"{record}.length") > made:
                    return
                await asyncio.sleep(0.02)
        raise AssertionError(f"three gestures never reached the page's {record}")

    async def stable_board_cells(self, width: int, height: int) -> list[tuple[float, float]]:
        """:meth:`board_cells` once two readings half a second apart agree (a screen's first frames may lay the board
        out for a wider screen before its narrow layout)."""
        centres = await self.board_cells(width, height)
        for _ in range(100):
            await asyncio.sleep(0.5)
            again = await self.board_cells(width, height)
            if again == centres:
                return centres
            centres = again
        raise AssertionError("the board never stayed in one place")

    async def swipe(self, move: str) -> None:
        left, top, width, height = await self.cells()
        dx, dy = SWIPES[move]
        rows = await self.browser.evaluate("koma.terminal.rows")
        await self.browser.swipe(left + 20 * width, top + rows * height / 3, 80 * dx, 80 * dy)

    async def read_board(self, puzzle) -> tuple:
        """The board as the page says it: the Read button puts "row 1: 8, 6, 7; ..." in the live region."""
        await self.browser.evaluate("document.getElementById('announce').textContent = ''")
        await self.button("read")
        text = ""
        for _ in range(500):
            text = await self.browser.evaluate("document.getElementById('announce').textContent") or ""
            if text.startswith("row 1:"):
                break
            await self.browser.evaluate("new Promise(done => setTimeout(done, 20))")
        else:
            raise AssertionError(f"the board was not read: presses {await self.browser.evaluate('koma.presses')}, "
                                 f"announced {await self.browser.evaluate('koma.announcements')}\n"
                                 f"{await self.browser.screen()}")
        rows = re.findall(r"row \d+: ([^;.]+)", text)
        assert len(rows) == puzzle.height, text
        return puzzle.parse("/".join(" ".join("_" if v.strip() == "blank" else v.strip() for v in row.split(","))
                                     for row in rows))


def cells_of(lines: list[str], width: int, height: int) -> list[tuple[float, float]] | None:
    """The centre (column, row) of each cell of the board drawn in ``lines``, row by row, found from the tiles' top
    edges (every row and every column of a board has a tile); None if the board is not drawn whole."""
    tops = [number for number, line in enumerate(lines) if TILE_TOP.search(line)][:height]
    columns = sorted({found.start() for number in tops for found in TILE_TOP.finditer(lines[number])})[:width]
    if len(tops) != height or len(columns) != width:
        return None
    tile_height, tile_width = tops[1] - tops[0], columns[1] - columns[0]
    return [(columns[c] + tile_width / 2, tops[r] + tile_height / 2) for r in range(height) for c in range(width)]


async def wait_gone(browser: Chromium, text: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    screen = await browser.screen()
    while text in screen:
        assert time.monotonic() < deadline, (f"{text!r} stayed in the page; the touch bar's presses: "
                                             f"{await browser.evaluate('koma.presses')}\n{await browser.screen()}")
        screen = await browser.next_screen(screen, min(NEXT_SCREEN_SECONDS, max(0.0, deadline - time.monotonic())))


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) >= 2 else values[0]


@pytest.mark.parametrize("width, height, columns", [(390, 844, 43), (360, 740, 40)], ids=["390x844", "360x740"])
async def test_a_phone_plays_by_touch_rotates_and_reloads(server, width, height, columns):
    since = len(server.text())  # this test's lines of the shared server's log
    browser = Chromium()
    phone = Phone(browser)
    puzzle = get_puzzle("8")
    try:
        await browser.page()
        await browser.device(width, height)
        await browser.call("Page.navigate", url=server.url)
        await browser.wait_for("8-puzzle")
        assert await browser.evaluate("koma.terminal.options.screenReaderMode") is True
        assert await browser.evaluate("koma.terminal.cols") >= columns
        assert await browser.evaluate("document.getElementById('touch-bar').hidden") is False

        await phone.tap_text("8-puzzle")  # the card: a tap is a click
        await browser.wait_for(r"Moves 0\b")
        await browser.evaluate(WATCH_MOVES)

        # a tap on a tile in the blank's row or column slides the whole line between them
        state = await phone.read_board(puzzle)
        blank = state.index(0)
        line = [cell for cell in range(9) if cell != blank and (cell // 3 == blank // 3 or cell % 3 == blank % 3)]
        far = max(line, key=lambda cell: abs(cell // 3 - blank // 3) + abs(cell % 3 - blank % 3))
        distance = abs(far // 3 - blank // 3) + abs(far % 3 - blank % 3)
        centres = await phone.board_cells(3, 3)
        await phone.seen(functools.partial(phone.tap_cell, *centres[far]), "koma.taps")
        await browser.wait_for(rf"Moves {distance}\b", 30)

        # the solver's moves, by swipes alone
        state = await phone.read_board(puzzle)
        solution = search.solve(puzzle, state).moves
        assert puzzle.is_goal(puzzle.replay(state, list(solution))[-1])
        for number, move in enumerate(solution, distance + 1):
            await phone.swipe(move)
            await browser.wait_for(rf"Moves {number}\b", 30)
        await browser.wait_for(r"[Ss]olved", 30)
        assert "Solved in" in (await browser.evaluate("koma.announcements.join('|')"))

        # the touch bar: undo, redo, new (a dialog), back (closes it), hint on a new game, help and back
        played = distance + len(solution)
        await phone.button("undo")
        await browser.wait_for(rf"Moves {played - 1}\b", 30)
        await phone.button("redo")
        await browser.wait_for(rf"Moves {played}\b", 30)
        await phone.button("new")
        await browser.wait_for("New 8-puzzle game", 30)
        await phone.button("back")
        await wait_gone(browser, "New 8-puzzle game")
        await phone.button("new")
        await browser.wait_for("New 8-puzzle game", 30)
        await browser.wait_for("Cancel", 30)
        await phone.tap_text("Start")  # a random board
        await browser.wait_for(r"Moves 0\b", 30)
        await phone.button("hint")
        await browser.wait_for("Hint", 60)
        await phone.button("help")
        await browser.wait_for("Rules", 30)
        await phone.button("back")
        await wait_gone(browser, "Rules")

        # swipe-to-board and key-to-board, interleaved on one board: back and forth along the blank's row
        state = await phone.read_board(puzzle)
        there = "L" if state.index(0) % 3 < 2 else "R"
        back = "R" if there == "L" else "L"
        swiped, keyed = [], []
        await browser.evaluate("(() => { seen = {}; keys.length = 0; return true; })()")  # this game's counts only
        for number in range(1, 21):
            move = there if number % 2 else back
            if number % 4 in (1, 2):
                await phone.swipe(move)
                await browser.wait_for(rf"Moves {number}\b", 30)
                swiped.append(await browser.evaluate(f"seen['{number}'] - koma.swipes.at(-1).at"))
            else:
                await browser.key(KEYS[move])
                await browser.wait_for(rf"Moves {number}\b", 30)
                keyed.append(await browser.evaluate(f"seen['{number}'] - keys.at(-1)"))
        print(f"{width}x{height}: swipe-to-board p95 {p95(swiped):.0f} ms (median {statistics.median(swiped):.0f}), "
              f"key-to-board p95 {p95(keyed):.0f} ms (median {statistics.median(keyed):.0f}), 10 of each")

        # rotate: landscape, then portrait again; the game stays, the terminal follows
        await browser.device(height, width)
        await browser.wait_for(r"Moves 20\b", 30)
        for _ in range(200):
            if await browser.evaluate("koma.terminal.cols") >= 80:
                break
            await browser.evaluate("new Promise(done => setTimeout(done, 20))")
        assert await browser.evaluate("koma.terminal.cols") >= 80
        await browser.device(width, height)
        for _ in range(200):
            if await browser.evaluate("koma.terminal.cols") < 60:
                break
            await browser.evaluate("new Promise(done => setTimeout(done, 20))")
        assert columns <= await browser.evaluate("koma.terminal.cols") < 60
        await browser.wait_for(r"Moves 20\b", 30)

        # reload: the same game
        await browser.call("Page.reload")
        await browser.wait_for(r"Moves 20\b", 60)
        assert len(re.findall(r"game started \(pid (\d+)", server.text()[since:])) == 1
    finally:
        await browser.close()


TILE_BOTTOM = re.compile("[╰┗╚][─━═]{3,}")


def whole_tiles(screen: str) -> int:
    """How many tiles the page's text draws whole: a top edge with a bottom edge below it in the same columns (a
    big tile's number is drawn in line art, so the tiles are counted, and the board itself read from the page)."""
    lines = screen.split("\n")
    tops = [(row, found.span()) for row, line in enumerate(lines) for found in TILE_TOP.finditer(line)]
    bottoms = {(row, found.span()) for row, line in enumerate(lines) for found in TILE_BOTTOM.finditer(line)}
    return sum(1 for row, span in tops if any((below, span) in bottoms for below in range(row + 1, len(lines))))


async def wait_whole_board(browser: Chromium, puzzle, moves: int) -> str:
    """The page's text once it shows every tile of ``puzzle``'s board whole and the move counter at ``moves``,
    together."""
    deadline = time.monotonic() + 60
    tiles = puzzle.width * puzzle.height - 1
    screen = None
    while (left := deadline - time.monotonic()) > 0:
        screen = await browser.next_screen(screen, min(left, NEXT_SCREEN_SECONDS))
        # the blank's cell is a box too when the cursor is on it (a tap leaves it there): at least every tile
        if whole_tiles(screen) >= tiles and re.search(rf"Moves {moves}\b", screen):
            return screen
    raise AssertionError(f"the whole board and 'Moves {moves}' were never in the page together:\n{screen}")


async def keyboard(browser: Chromium, width: int, height: int, seen_height: int) -> None:
    """An on-screen keyboard opens (``seen_height`` < ``height``) or closes: the screen stays, the page sees less."""
    await browser.call("Emulation.setDeviceMetricsOverride", width=width, height=seen_height, deviceScaleFactor=3.0,
                       mobile=True, screenWidth=width, screenHeight=height,
                       screenOrientation={"type": "portraitPrimary", "angle": 0})


async def rows_become(browser: Chromium, test, what: str) -> int:
    for _ in range(500):
        rows = await browser.evaluate("koma.terminal.rows")
        if test(rows):
            return rows
        await browser.evaluate("new Promise(done => setTimeout(done, 20))")
    raise AssertionError(f"the terminal never refitted to {what}: {await browser.evaluate('koma.terminal.rows')} rows")


async def drawn_for_the_density(browser: Chromium) -> None:
    """The terminal's canvas has the screen's pixels (its size on the page times the device pixel ratio): a canvas
    made for 1x on a 3x screen shows the terminal three times too large, its right and bottom cut off."""
    sizes = []
    for _ in range(500):
        sizes = await browser.evaluate(
            "(() => { const c = document.querySelector('#terminal .xterm-screen canvas');"
            " return c ? [c.width, c.getBoundingClientRect().width * devicePixelRatio] : []; })()")
        if sizes and abs(sizes[0] - sizes[1]) <= 2:
            return
        await browser.evaluate("new Promise(done => setTimeout(done, 20))")
    raise AssertionError(f"the terminal's canvas is {sizes[0] if sizes else '?'} pixels wide on a screen of "
                         f"{sizes[1] if sizes else '?'}")


async def test_the_15_puzzle_is_whole_on_a_phone_and_keeps_its_game_through_the_on_screen_keyboard(server):
    width, height, keyboard_up = 390, 844, 500
    since = len(server.text())  # this test's lines of the shared server's log
    browser = Chromium()
    phone = Phone(browser)
    puzzle = get_puzzle("15")
    try:
        await browser.page()
        await browser.device(width, height)
        await browser.call("Page.navigate", url=server.url)
        await browser.wait_for("15-puzzle")
        assert await browser.evaluate("koma.terminal.cols") >= 43
        assert await browser.evaluate("devicePixelRatio") == 3
        await drawn_for_the_density(browser)
        await phone.tap_text("15-puzzle")
        await wait_whole_board(browser, puzzle, 0)

        state = await phone.read_board(puzzle)
        blank = state.index(0)
        moves = ["L" if blank % 4 < 3 else "R", "U" if blank // 4 < 3 else "D"]
        for number, move in enumerate(moves, 1):
            await browser.key(KEYS[move])
            await browser.wait_for(rf"Moves {number}\b", 30)
        played = await phone.read_board(puzzle)
        assert played == puzzle.replay(state, moves)[-1]
        rows, columns = await browser.evaluate("[koma.terminal.rows, koma.terminal.cols]")

        # the keyboard opens: the page sees 500 of its 844 pixels; the terminal refits to fewer rows, the game stays
        await keyboard(browser, width, height, keyboard_up)
        small = await rows_become(browser, lambda r: r < rows, "fewer rows")
        assert small >= 20 and await browser.evaluate("koma.terminal.cols") >= 43
        seen = await browser.evaluate("window.visualViewport.height")
        terminal_bottom = await browser.evaluate("document.querySelector('.xterm-screen').getBoundingClientRect().bottom")
        assert terminal_bottom <= seen + 1  # the whole terminal above the keyboard
        await wait_whole_board(browser, puzzle, len(moves))
        assert await phone.read_board(puzzle) == played

        # and closes: the terminal is as it was, the game still the same
        await keyboard(browser, width, height, height)
        assert await rows_become(browser, lambda r: r == rows, f"{rows} rows again") == rows
        assert await browser.evaluate("koma.terminal.cols") == columns
        await drawn_for_the_density(browser)
        await wait_whole_board(browser, puzzle, len(moves))
        assert await phone.read_board(puzzle) == played
        assert len(re.findall(r"game started \(pid (\d+)", server.text()[since:])) == 1
        print(f"{width}x{height}: {columns}x{rows} cells; with the keyboard up ({width}x{keyboard_up}) {columns}x{small}")
    finally:
        await browser.close()


# in the page: when each STM count first reached the terminal (xterm.js's buffer, as each write is parsed), with its
# MTM; when each key went down (a tap's and a swipe's clocks start as the finger lifts: koma.taps, koma.swipes); and
# what the page sent to the game since ``sent`` was last emptied
WATCH_FIGURES = """
(() => {
  window.figures = {};
  window.keys = [];
  window.sent = [];
  document.addEventListener("keydown", () => keys.push({ at: performance.now() }), true);
  const send = koma.socket.send.bind(koma.socket);
  koma.socket.send = (data) => { sent.push(JSON.parse(data)); return send(data); };
  koma.terminal.onWriteParsed(() => {
    const buffer = koma.terminal.buffer.active;
    for (let y = 0; y < koma.terminal.rows; y++) {
      const line = buffer.getLine(buffer.viewportY + y);
      const found = line && line.translateToString(true).match(/STM (\\d+) +MTM (\\d+)/);
      if (found && !(found[1] in figures)) figures[found[1]] = [performance.now(), Number(found[2])];
    }
  });
  return true;
})()
"""
MOUSE_REPORT = re.compile(r"\x1b\[<(\d+);(\d+);(\d+)([Mm])")


def ratio(value: float, base: float) -> str:
    return f"{value / base:.2f}x" if base > 0 else "-"


async def test_speed_a_tap_slides_a_whole_line_and_taps_swipes_and_keys_reach_the_board_alike(server):
    """Speed in the browser (issues 38, 39): a tap on a tile in the blank's row slides the line between them, one move
    that counts every tile in STM and 1 in MTM, and the page sends it as one press and one release as the finger
    lifts (no mouse move before it, which the game would work on first).  Taps, swipes and arrow keys take turns;
    tap-to-board, swipe-to-board and key-to-board times of the same run are printed (each from the moment the
    gesture is complete: the finger lifted, or the key went down)."""
    width, height = 390, 844
    browser = Chromium()
    phone = Phone(browser)
    try:
        await browser.page()
        await browser.device(width, height)
        await browser.call("Page.navigate", url=server.url)
        await browser.wait_for("8-puzzle")
        await browser.key("s")
        screen = await browser.wait_for(r"STM 0 +MTM 0")
        await browser.evaluate(WATCH_FIGURES)
        puzzle, state = parse_game_id(re.search(r"ID (\S+)", screen).group(1))
        assert (puzzle.width, puzzle.height) == (4, 4)
        centres = await phone.stable_board_cells(4, 4)
        # the panel's rule (a row of ▔, wider in the page's text than in the terminal's cells) leaves the page as wide
        # as the phone, and the whole touch bar on it
        assert await browser.evaluate(
            "[innerWidth, document.getElementById('touch-bar').getBoundingClientRect().right]") == [width, width]

        blank = state.index(0)
        row, column = divmod(blank, 4)
        far = row * 4 + (3 if column < 2 else 0)  # the tile at the other end of the blank's row
        distance = abs(far % 4 - column)
        stm = mtm = 0
        tapped, swiped, keyed = [], [], []

        async def figures_reach(count: int, moves: int, since: str) -> float:
            """Wait for 'STM count MTM moves' on the page; the time from the last tap, swipe or key to it, in ms."""
            await browser.wait_for(rf"STM {count} +MTM {moves}\b", 30)
            at, shown_mtm = await browser.evaluate(f"figures['{count}']")
            assert shown_mtm == moves
            return at - await browser.evaluate(f"{since}.at(-1).at")

        async def one_tile_there_and_back(blank_row: int, by_swipe: bool) -> None:
            """The tile above or below the blank slides into it, and back: each one tile, each its own MTM move (across
            the taps' row, so neither joins the line the tap just slid)."""
            nonlocal stm, mtm
            ways = ("D", "U") if blank_row > 0 else ("U", "D")  # arrows and swipes name the way the tile goes
            for way in ways:
                if by_swipe:
                    await phone.seen(functools.partial(phone.swipe, way), "koma.swipes")
                else:
                    await browser.key(KEYS[way])
                stm, mtm = stm + 1, mtm + 1
                (swiped if by_swipe else keyed).append(await figures_reach(stm, mtm, "koma.swipes" if by_swipe
                                                                           else "keys"))

        ends = [far, blank]  # a tap slides the line to the blank; the next tap, at the other end, slides it back
        for number in range(20):
            await browser.evaluate("sent.length = 0")
            target = (await phone.board_cells_now(4, 4))[ends[number % 2]]
            await phone.seen(functools.partial(phone.tap_cell, *target), "koma.taps")
            stm, mtm = stm + distance, mtm + 1
            try:
                tapped.append(await figures_reach(stm, mtm, "koma.taps"))
            except AssertionError as error:  # say where the tap went, and where the board is now
                raise AssertionError(
                    f"{error}\ntap {number} at cell {target}; the page sent {await browser.evaluate('sent')}; "
                    f"terminal {await browser.evaluate('[koma.terminal.cols, koma.terminal.rows]')}, its cells "
                    f"{await phone.cells()}; the board's cells now {await phone.board_cells(4, 4)}, "
                    f"when read {centres}") from None
            reports = [MOUSE_REPORT.fullmatch(text) for kind, text in await browser.evaluate("sent") if kind == "stdin"]
            assert [(r.group(1), r.group(4)) for r in reports if r] == [("0", "M"), ("0", "m")], reports  # no move
            await one_tile_there_and_back(row, by_swipe=number % 2 == 1)
        assert stm == 20 * distance + 40 and mtm == 60
        key_p95 = p95(keyed)
        print(f"speed at {width}x{height}: key-to-board p95 {key_p95:.0f} ms (median {statistics.median(keyed):.0f}, "
              f"{len(keyed)} keys), tap-to-board p95 {p95(tapped):.0f} ms (median {statistics.median(tapped):.0f}, "
              f"{len(tapped)} taps of {distance} tiles; {ratio(p95(tapped), key_p95)}), swipe-to-board p95 "
              f"{p95(swiped):.0f} ms (median {statistics.median(swiped):.0f}, {len(swiped)} swipes; "
              f"{ratio(p95(swiped), key_p95)})")
    finally:
        await browser.close()
