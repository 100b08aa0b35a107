"""A real headless Chromium (Debian's ``chromium-headless-shell``) driven over the DevTools protocol.

No WebDriver: the browser is started with ``--remote-debugging-port=0``, says where it listens on stderr, and
one WebSocket (aiohttp's client) to its page speaks CDP: navigate, evaluate, key events, screenshots, and a phone's
screen with touch (device metrics, taps and swipes as touch events).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp

CHROMIUM = shutil.which("chromium-headless-shell") or shutil.which("chromium")
# key name -> (key, code, Windows virtual key code) for DevTools' Input.dispatchKeyEvent
KEYS = {"ArrowLeft": ("ArrowLeft", "ArrowLeft", 37), "ArrowRight": ("ArrowRight", "ArrowRight", 39),
        "ArrowUp": ("ArrowUp", "ArrowUp", 38), "ArrowDown": ("ArrowDown", "ArrowDown", 40),
        "Enter": ("Enter", "Enter", 13)}
# the terminal's text, a line per row, as xterm.js's screen-reader mode puts it in the page
SCREEN = ("(() => Array.from(document.querySelectorAll('.xterm-accessibility-tree > div'))"
          ".map(row => row.textContent).join('\\n'))")
# that text once it differs from `previous`, told by a MutationObserver (the page is not polled), or after `wait` ms
NEXT_SCREEN = f"""(previous, wait) => new Promise(done => {{
  const screen = {SCREEN};
  if (screen() !== previous) {{ done(screen()); return; }}
  const observer = new MutationObserver(() => {{ if (screen() !== previous) finish(); }});
  const timer = setTimeout(() => finish(), wait);
  function finish() {{ observer.disconnect(); clearTimeout(timer); done(screen()); }}
  observer.observe(document.documentElement, {{childList: true, subtree: true, characterData: true}});
}})"""
NEXT_SCREEN_SECONDS = 1.0  # the longest one wait in the page lasts (a change missed would cost at most that)


class Chromium:
    """One headless Chromium with a private profile; :meth:`page` opens the CDP session to its first tab."""

    def __init__(self, width: int = 1000, height: int = 640):
        assert CHROMIUM, "no chromium-headless-shell"
        self.profile = tempfile.TemporaryDirectory(prefix="koma-chromium-")
        self.process = subprocess.Popen(
            [CHROMIUM, "--headless", "--remote-debugging-port=0", f"--user-data-dir={self.profile.name}",
             "--no-sandbox", "--no-first-run", "--disable-gpu", "--disable-dev-shm-usage",
             f"--window-size={width},{height}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
        self.endpoint = ""
        self.http: aiohttp.ClientSession | None = None
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self.ids = itertools.count(1)
        self.waiting: dict[int, asyncio.Future] = {}
        self.reader: asyncio.Task | None = None
        self.console: list[str] = []

    async def page(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while not self.endpoint:
            line = await asyncio.wait_for(asyncio.to_thread(self.process.stderr.readline), timeout)
            found = re.search(r"DevTools listening on (ws://[^/]+)/", line)
            if found:
                self.endpoint = found.group(1).replace("ws://", "http://")
            elif not line or time.monotonic() > deadline:
                raise AssertionError(f"Chromium did not start: {line}")
        self.http = aiohttp.ClientSession()
        async with self.http.get(f"{self.endpoint}/json/list") as response:
            targets = [t for t in await response.json() if t["type"] == "page"]
        self.ws = await self.http.ws_connect(targets[0]["webSocketDebuggerUrl"], max_msg_size=0)
        self.reader = asyncio.create_task(self._read())
        await self.call("Page.enable")
        await self.call("Runtime.enable")

    async def _read(self) -> None:
        assert self.ws is not None
        async for message in self.ws:
            data = json.loads(message.data)
            future = self.waiting.pop(data.get("id", -1), None)
            if future is not None and not future.done():
                future.set_result(data)
            elif data.get("method") == "Runtime.consoleAPICalled":
                self.console.append(" ".join(str(a.get("value", "")) for a in data["params"]["args"]))

    async def call(self, method: str, timeout: float = 60.0, **params: Any) -> dict:
        assert self.ws is not None
        number = next(self.ids)
        future = asyncio.get_running_loop().create_future()
        self.waiting[number] = future
        await self.ws.send_str(json.dumps({"id": number, "method": method, "params": params}))
        answer = await asyncio.wait_for(future, timeout)
        if "error" in answer:
            raise AssertionError(f"{method}: {answer['error']}")
        return answer.get("result", {})

    async def evaluate(self, expression: str) -> Any:
        result = await self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        return result.get("result", {}).get("value")

    async def screen(self) -> str:
        """The terminal's text as xterm.js's screen-reader mode puts it in the page (one line per row)."""
        return await self.evaluate(f"{SCREEN}()") or ""

    async def next_screen(self, previous: str | None, wait: float = NEXT_SCREEN_SECONDS) -> str:
        """:meth:`screen` as soon as it is no longer ``previous`` (the page watches its own changes: nothing polls),
        or as it is after ``wait`` seconds."""
        try:
            return await self.evaluate(f"({NEXT_SCREEN})({json.dumps(previous)}, {round(wait * 1000)})") or ""
        except AssertionError:  # the page went while waiting (a reload), and the promise with it: read it anew
            return await self.screen()

    async def wait_for(self, pattern: str, timeout: float = 120.0) -> str:
        deadline = time.monotonic() + timeout
        screen = None
        while (left := deadline - time.monotonic()) > 0:
            screen = await self.next_screen(screen, min(left, NEXT_SCREEN_SECONDS))
            if re.search(pattern, screen):
                return screen
        raise AssertionError(f"{pattern!r} never appeared in the page; it shows:\n{screen}\nconsole: {self.console}")

    async def key(self, name: str) -> None:
        """A real key press (keyDown, keyUp) as the focused terminal receives it."""
        if name in KEYS:
            key, code, number = KEYS[name]
            down = dict(key=key, code=code, windowsVirtualKeyCode=number, nativeVirtualKeyCode=number)
            if name == "Enter":
                down.update(text="\r", unmodifiedText="\r")
        else:
            down = dict(key=name, text=name, unmodifiedText=name, code=f"Key{name.upper()}" if name.isalpha() else
                        f"Digit{name}", windowsVirtualKeyCode=ord(name.upper()))
        await self.call("Input.dispatchKeyEvent", type="keyDown", **down)
        await self.call("Input.dispatchKeyEvent", type="keyUp", **{k: v for k, v in down.items() if "ext" not in k})

    async def device(self, width: int, height: int, *, touch: bool = True, scale: float = 3.0) -> None:
        """Emulate a device's screen (CSS pixels; landscape when wider than high) and, with ``touch``, its
        touch screen: taps and swipes arrive as touch events, as on a phone."""
        landscape = width > height
        await self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=scale,
                        mobile=touch, screenWidth=width, screenHeight=height,
                        screenOrientation={"type": "landscapePrimary" if landscape else "portraitPrimary",
                                           "angle": 90 if landscape else 0})
        await self.call("Emulation.setTouchEmulationEnabled", enabled=touch, maxTouchPoints=5 if touch else 1)

    async def touch(self, points: list[tuple[float, float]], pause: float = 0.016) -> None:
        """One finger down at the first point, moved through the others, lifted at the last."""
        (x, y), *rest = points
        await self.call("Input.dispatchTouchEvent", type="touchStart", touchPoints=[{"x": x, "y": y}])
        for x, y in rest:
            await asyncio.sleep(pause)
            await self.call("Input.dispatchTouchEvent", type="touchMove", touchPoints=[{"x": x, "y": y}])
        await self.call("Input.dispatchTouchEvent", type="touchEnd", touchPoints=[])

    async def tap(self, x: float, y: float) -> None:
        await self.touch([(x, y)])

    async def swipe(self, x: float, y: float, dx: float, dy: float, steps: int = 4) -> None:
        await self.touch([(x + dx * k / steps, y + dy * k / steps) for k in range(steps + 1)])

    async def screenshot(self, path: Path) -> None:
        result = await self.call("Page.captureScreenshot", format="png")
        path.write_bytes(base64.b64decode(result["data"]))

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self.reader is not None:
            self.reader.cancel()
        if self.http is not None:
            await self.http.close()
        # Debian's chromium-headless-shell is a shell script that runs the browser as its child: the whole
        # process group goes, or the browser outlives the test
        for signal_number in (signal.SIGTERM, signal.SIGKILL):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal_number)
            try:
                self.process.wait(10)
                break
            except subprocess.TimeoutExpired:
                continue
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # the browser's own children too (the group's last members)
            try:
                os.killpg(self.process.pid, 0)
            except ProcessLookupError:
                break
            await asyncio.sleep(0.05)
        self.profile.cleanup()
