"""Helpers for the ``koma web`` tests: a real ``koma web`` started by the test, and WebSocket players (aiohttp's
client) that read the screen stream as text, the escape sequences stripped (as ``koma bench serve`` does)."""

from __future__ import annotations

import asyncio
import base64
import codecs
import json
import os
import re
import secrets
import socket
import sys
import time
from pathlib import Path

import aiohttp
from serve_helpers import LoggedServer

from koma_bench.serve.scenarios import ESCAPES, INCOMPLETE_ESCAPE

SCREEN_SECONDS = 120.0  # deadlines that hold on a loaded 2-core box; every wait ends as soon as its condition holds
EXIT_SECONDS = 60.0
LEFT, RIGHT = "\x1b[D", "\x1b[C"


class WebServer(LoggedServer):
    """``koma web`` on 127.0.0.1 (an ephemeral port), with a private data dir; stop() returns its status."""

    def __init__(self, data_dir: Path, *options: str, log_name: str = "web.log"):
        super().__init__([sys.executable, "-m", "tui.main", "web", "--host", "127.0.0.1", "--port", "0", *options],
                         data_dir, log_name)
        try:
            self.port = int(self.wait_for_log(r"listening on http://127\.0\.0\.1:(\d+)/", 60).group(1))
            self.url = f"http://127.0.0.1:{self.port}/"
            if "--cold" not in options:
                self.wait_for_log(r"warm process ready", 180)
        except BaseException:
            self.kill()
            raise

    async def log_says(self, pattern: str, timeout: float = 30.0, count: int = 1) -> re.Match:
        return await asyncio.to_thread(self.wait_for_log, pattern, timeout, count)


def player_of(cookie: str) -> str:
    """The player a koma_player cookie names (its body is base64 JSON; only the signature is secret)."""
    body = cookie.split(".")[0]
    return json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))[0]


class Browser:
    """One browser: a cookie jar (its player) and WebSocket games; ``text`` is what the game drew, as text."""

    def __init__(self, server: WebServer, origin: str | None = None, url: str | None = None):
        self.server = server
        self.url = url or server.url  # the page's address: the server's, or a balancer's in front of it
        self.origin = origin if origin is not None else self.url.rstrip("/")
        self.http = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))
        self.token = secrets.token_urlsafe(18)
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self.text = ""
        self.changed = asyncio.Event()
        self.reader: asyncio.Task | None = None
        self.close_reason = ""  # the reason of the server's close frame
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._tail = ""

    async def load(self) -> aiohttp.ClientResponse:
        async with self.http.get(self.url) as response:
            await response.read()
            return response

    @property
    def player(self) -> str:
        cookie = self.http.cookie_jar.filter_cookies(aiohttp.client.URL(self.url)).get("koma_player")
        assert cookie is not None, "no player cookie"
        return player_of(cookie.value)

    async def connect(self, columns: int = 80, rows: int = 24, **headers: str) -> aiohttp.ClientWebSocketResponse:
        """Open the game's WebSocket (a new game, or the token's running one) and start reading it."""
        self.text, self._tail = "", ""
        url = f"{self.url}ws?width={columns}&height={rows}&session={self.token}"
        if self.origin:
            headers.setdefault("Origin", self.origin)
        self.ws = await asyncio.wait_for(self.http.ws_connect(url, headers=headers, max_msg_size=0), SCREEN_SECONDS)
        self.reader = asyncio.create_task(self._read(self.ws))
        return self.ws

    async def _read(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        while True:
            message = await ws.receive()
            if message.type == aiohttp.WSMsgType.CLOSE:
                self.close_reason = str(message.extra or "")
            if message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSING, aiohttp.WSMsgType.CLOSED,
                                aiohttp.WSMsgType.ERROR):
                break
            if message.type == aiohttp.WSMsgType.BINARY:
                text = ESCAPES.sub("", self._tail + self._decoder.decode(message.data))
                incomplete = INCOMPLETE_ESCAPE.search(text)
                self._tail = text[incomplete.start():] if incomplete else ""
                self.text += text[:incomplete.start()] if incomplete else text
                self.changed.set()
        self.changed.set()

    async def wait_for(self, pattern: str, since: int = 0, timeout: float = SCREEN_SECONDS) -> re.Match:
        deadline = time.monotonic() + timeout
        compiled = re.compile(pattern)
        while True:
            found = compiled.search(self.text, since)
            if found:
                return found
            left = deadline - time.monotonic()
            if left <= 0 or (self.reader is not None and self.reader.done()):
                raise AssertionError(f"{pattern!r} never appeared; the screen stream ends:\n{self.text[-2000:]}\n"
                                     f"the server's log ends:\n{self.server.text()[-3000:]}")
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), left)
            except TimeoutError:
                pass

    async def closed(self, timeout: float = EXIT_SECONDS) -> int | None:
        """Wait for the server to close the socket; its close code."""
        assert self.reader is not None and self.ws is not None
        await asyncio.wait_for(asyncio.shield(self.reader), timeout)
        return self.ws.close_code

    async def key(self, keys: str) -> None:
        assert self.ws is not None
        await self.ws.send_str(json.dumps(["stdin", keys]))

    async def resize(self, columns: int, rows: int) -> None:
        assert self.ws is not None
        await self.ws.send_str(json.dumps(["resize", {"width": columns, "height": rows}]))

    def moves(self) -> int:
        shown = re.findall(r"Moves (\d+)", self.text)
        return int(shown[-1]) if shown else -1

    async def move(self) -> int:
        """On the play screen, play one sideways move (left, else right); the move count it shows."""
        before = self.moves()
        for key in (LEFT, RIGHT):
            await self.key(key)
            try:
                await self.wait_for(rf"Moves {before + 1}\b", 0, 3.0 if key == LEFT else SCREEN_SECONDS)
                return before + 1
            except AssertionError:
                continue
        raise AssertionError(f"no move was played; the stream ends:\n{self.text[-1500:]}")

    async def first_move(self) -> int:
        """Load the page, connect, open the 8-puzzle from the home screen and play one move; the Moves count."""
        await self.load()
        await self.connect()
        await self.wait_for("8-puzzle")
        await self.key("1")
        await self.wait_for(r"Moves 0\b")
        return await self.move()

    async def drop(self) -> None:
        """The browser goes (a reload, a closed tab): the socket closes, the game keeps running."""
        if self.ws is not None:
            await self.ws.close()
        if self.reader is not None:
            await asyncio.wait_for(self.reader, EXIT_SECONDS)

    async def close(self) -> None:
        if self.ws is not None and not self.ws.closed:
            await self.ws.close()
        if self.reader is not None:
            self.reader.cancel()
        await self.http.close()


async def raw_websocket(port: int, cookie: str, session: str, columns: int = 80, rows: int = 24, prefix: bytes = b"",
                        receive_buffer: int = 0) -> socket.socket:
    """A WebSocket opened by hand (``prefix`` first, e.g. a PROXY header; a small ``receive_buffer`` if given):
    its handshake's answer is read, nothing after it."""
    loop = asyncio.get_running_loop()
    sock = socket.socket()
    if receive_buffer:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.setblocking(False)
    await loop.sock_connect(sock, ("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    host = f"127.0.0.1:{port}"
    await loop.sock_sendall(sock, prefix + (
        f"GET /ws?width={columns}&height={rows}&session={session} HTTP/1.1\r\nHost: {host}\r\n"
        f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
        f"Origin: http://{host}\r\nCookie: koma_player={cookie}\r\n\r\n").encode())
    answer = b""
    while b"\r\n\r\n" not in answer:  # byte by byte: the game's output after the answer stays unread
        byte = await asyncio.wait_for(loop.sock_recv(sock, 1), SCREEN_SECONDS)
        if not byte:
            break
        answer += byte
    assert answer.startswith(b"HTTP/1.1 101"), answer
    return sock
