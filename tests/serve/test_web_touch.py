"""Every touch path of ``koma web`` (issue 53), in Debian's headless Chromium with a phone's screen (390x844, 3x,
touch emulation), and the desktop page's first key.

On a phone: the touch bar shows the buttons the screen can use and no others (Solve and Hint on a puzzle, not in the
race lobby), each at least 44x44 CSS pixels with room round its label; a tap on the lobby's "join a room by its
code" line opens the code field and the page brings up the on-screen keyboard by itself; a code typed the way some
Android keyboards type (keydown 229, then the text in an input event alone) reaches the field; the bar's Enter
submits it; a race's leave dialog is answered by tapping its buttons; the bar's Space plays Speed's next scramble.
On a desktop: the page's first key reaches the game with no click first, and a click that only gives the focus back
is no click in the game.
"""

from __future__ import annotations

import asyncio
import time

import pytest

pytest.importorskip("aiohttp")
pytest.importorskip("asyncssh")

from cdp_browser import CHROMIUM, Chromium
from test_web_phone import Phone, wait_gone
from web_helpers import WebServer

from tui.game.speed import random_scramble
from tui.storage.store import Store

pytestmark = pytest.mark.skipif(not CHROMIUM, reason="chromium-headless-shell is not installed (.ci/run installs it)")

WIDTH, HEIGHT = 390, 844
MIN_TARGET = 44  # CSS pixels a side: the usual least for a thumb's target
VISIBLE_BUTTONS = """Array.from(document.querySelectorAll('#touch-bar button')).filter(b => !b.hidden)
  .map(b => { const r = b.getBoundingClientRect(); const range = document.createRange(); range.selectNodeContents(b);
    const t = range.getBoundingClientRect();
    return [b.dataset.button, r.width, r.height, t.left - r.left, r.right - t.right]; })"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    started = WebServer(tmp_path_factory.mktemp("touch") / "data", "--open")
    try:
        yield started
        assert started.stop() == 0
    finally:
        started.kill()


async def until(browser: Chromium, expression: str, what: str, timeout: float = 30.0):
    """The value of ``expression`` in the page once it is truthy."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = await browser.evaluate(expression)
        if value:
            return value
        await asyncio.sleep(0.05)
    raise AssertionError(f"{what} never came: {expression} is {await browser.evaluate(expression)!r}\n"
                         f"{await browser.screen()}")


async def bar_shows(browser: Chromium, buttons: set[str], absent: set[str]) -> list:
    """Wait until the touch bar shows ``buttons`` and none of ``absent``; every button shown is a 44-pixel target
    with its label clear of its edges."""
    deadline = time.monotonic() + 30
    shown: list = []
    while time.monotonic() < deadline:
        shown = await browser.evaluate(VISIBLE_BUTTONS)
        names = {name for name, *_ in shown}
        if buttons <= names and not names & absent:
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError(f"the bar shows {shown}, not {buttons} without {absent}")
    for name, width, height, left_gap, right_gap in shown:
        assert width >= MIN_TARGET and height >= MIN_TARGET, (name, width, height)
        assert left_gap >= 3 and right_gap >= 3, (name, left_gap, right_gap)  # the label touches no edge
    return shown


async def phone_page(server: WebServer) -> tuple[Chromium, Phone]:
    browser = Chromium()
    await browser.page()
    await browser.device(WIDTH, HEIGHT)
    await browser.call("Page.navigate", url=server.url)
    await browser.wait_for("8-puzzle")
    return browser, Phone(browser)


async def type_as_android(browser: Chromium, text: str) -> None:
    """Each character as some Android keyboards send it: a keydown of key code 229, then the character in an
    ``insertText`` input event alone (no keypress, no composition)."""
    for character in text:
        await browser.call("Input.dispatchKeyEvent", type="rawKeyDown", key="Unidentified", code="",
                           windowsVirtualKeyCode=229, nativeVirtualKeyCode=229)
        assert await browser.evaluate(
            "(() => { const t = document.querySelector('.xterm-helper-textarea');"
            f" t.value += {character!r}; t.dispatchEvent(new InputEvent('input', {{data: {character!r},"
            " inputType: 'insertText', bubbles: true}));"
            " return true; })()")
        await browser.call("Input.dispatchKeyEvent", type="keyUp", key="Unidentified", code="",
                           windowsVirtualKeyCode=229, nativeVirtualKeyCode=229)


async def test_a_phone_joins_a_room_by_touch_types_its_code_and_leaves_the_race_by_tapping(server, tmp_path):
    browser, phone = await phone_page(server)
    try:
        await bar_shows(browser, {"help"}, {"solve", "hint", "undo", "redo", "read"})  # home: no puzzle keys
        await phone.tap_text("8-puzzle")
        await browser.wait_for(r"Moves 0\b")
        await bar_shows(browser, {"solve", "hint", "new", "back", "read"}, {"undo", "enter", "space"})
        await phone.button("back")
        await wait_gone(browser, "Moves 0")

        # the race lobby (x; home's card is further down its page): its lines are links, and the code's field brings
        # up the keyboard by itself
        await browser.key("x")
        await browser.wait_for("join a room by its code")
        await bar_shows(browser, {"enter", "back"}, {"solve", "hint"})  # enter: the quick race
        assert await browser.evaluate("koma.keyboard") is False, await browser.evaluate("[koma.bar, koma.keyboardAsked]")
        await phone.tap_text("join a room by its code")
        await browser.wait_for("Room code")
        await until(browser, "koma.keyboard && document.querySelector('.xterm-helper-textarea')"
                             ".getAttribute('inputmode') === 'text'", "the keyboard")
        assert await browser.evaluate("document.querySelector('#touch-bar [data-button=keyboard]')"
                                      ".getAttribute('aria-pressed')") == "true"
        await bar_shows(browser, {"enter", "back"}, set())

        # a friend's room; its code typed as an Android keyboard types, then the bar's Enter
        host = Store(server.data_dir / "koma.db", player="user:host", name="host")
        room = host.create_private("user:host", "host", 3, 3)
        await type_as_android(browser, room.code.lower())
        await browser.wait_for(room.code.lower())  # in the field
        assert await browser.evaluate("koma.composed.join('')") == room.code.lower()
        await phone.button("enter")
        await browser.wait_for("the host starts it")
        await until(browser, "!koma.keyboard", "the keyboard down again")
        host_room = host.read_room(room.room)
        assert len(host_room.racers) == 2
        await bar_shows(browser, {"back"}, {"solve", "hint", "new", "undo", "read"})  # a race has no solve

        # the race: the host starts; leaving asks, and the dialog is answered by tapping its buttons
        assert host.start(room.room, 0, time.time() + 0.5, random_scramble(host_room.puzzle))
        await browser.wait_for("Race!", 30)
        await phone.button("back")
        await browser.wait_for("Leave the race")
        await browser.screenshot(tmp_path / "leave-dialog.png")
        await bar_shows(browser, {"back"}, set())
        await phone.tap_text("Race on")
        await wait_gone(browser, "Leave the race")
        await phone.button("back")
        await browser.wait_for("Leave the race")
        await phone.tap_text("Leave (DNF)")
        await browser.wait_for("join a room by its code")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if any(r.dnf for r in host.read_room(room.room).racers if r.player != "user:host"):
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError("the phone's racer was not DNF after leaving")
        await browser.screenshot(tmp_path / "lobby.png")
    finally:
        await browser.close()


async def test_space_on_the_bar_plays_speeds_next_scramble_and_new_works_too(server):
    browser, phone = await phone_page(server)
    try:
        await browser.key("s")
        first = await browser.wait_for(r"ID \S+")
        await bar_shows(browser, {"new", "back", "space", "enter"}, {"solve", "hint", "undo", "read"})
        for button in ("space", "new"):
            before = (await browser.screen()).split("ID ")[1].split()[0]
            await phone.button(button)
            deadline = time.monotonic() + 30
            while (await browser.screen()).split("ID ")[1].split()[0] == before:
                assert time.monotonic() < deadline, f"{button} played no new scramble"
                await asyncio.sleep(0.05)
        assert first
    finally:
        await browser.close()


async def test_the_desktop_page_takes_the_first_key_and_a_focusing_click_is_no_move(server):
    browser = Chromium()
    try:
        await browser.page()
        await browser.device(1000, 640, touch=False, scale=1.0)
        await browser.call("Page.navigate", url=server.url)
        await browser.wait_for("8-puzzle")
        assert await browser.evaluate("document.activeElement.classList.contains('xterm-helper-textarea')")
        await browser.key("s")  # no click first: Speed opens
        await browser.wait_for(r"STM 0 +MTM 0")
        # the focus goes away (a click on the page's body), and a click on the board brings it back: no move
        await browser.evaluate("(() => { document.activeElement.blur(); return true; })()")
        sent_before = await browser.evaluate("koma.focusClicks")
        box = await browser.evaluate("(() => { const r = document.querySelector('.xterm-screen')"
                                     ".getBoundingClientRect(); return [r.left + r.width / 4, r.top + r.height / 3]; })()")
        for kind in ("mousePressed", "mouseReleased"):
            await browser.call("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left", clickCount=1)
        await until(browser, f"koma.focusClicks > {sent_before}", "the focusing click")
        assert await browser.evaluate("document.activeElement.classList.contains('xterm-helper-textarea')")
        assert "STM 0 " in await browser.screen()  # the press went to the page, not the game
    finally:
        await browser.close()


def test_the_log_is_koma_webs(server):
    """Every line of koma web's log, its warm process's among them, says it is koma web's."""
    text = server.text()
    assert "koma web: warm process ready" in text and "koma serve:" not in text
