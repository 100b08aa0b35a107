"""``koma web`` against a browser that does not read, and a server that stops.

A raw client does the WebSocket handshake, then floods its game with resizes (each a whole redraw) and never
reads a byte: the server must drop it with a reason in its log once it has taken nothing for ``--heartbeat``
seconds, its queued output bounded and freed, while another player meanwhile reaches the home screen and moves.
On SIGTERM a player's socket closes with code 1012 and the server's one line (shutting down, the game saved) as
its reason, which the page shows.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import re
import socket
import struct
import termios
import time
from pathlib import Path

import pytest

pytest.importorskip("aiohttp")

import aiohttp
from web_helpers import SCREEN_SECONDS, Browser, WebServer, raw_websocket

STALL = 10  # --heartbeat: the seconds a socket may take nothing before it is dropped


def frame(text: str) -> bytes:
    """One masked text frame, as a browser sends it."""
    payload = text.encode()
    mask = os.urandom(4)
    size = len(payload)
    header = bytes([0x81, 0x80 | size]) if size < 126 else bytes([0x81, 0x80 | 126]) + size.to_bytes(2, "big")
    return header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def unread(sock: socket.socket) -> int:
    """Bytes the kernel holds for ``sock`` that it has not read."""
    return struct.unpack("i", fcntl.ioctl(sock, termios.FIONREAD, b"\0\0\0\0"))[0]


async def until(condition, what: str, timeout: float = SCREEN_SECONDS) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"never: {what}"
        await asyncio.sleep(0.05)


def resident_kib(pid: int) -> int:
    found = re.search(r"VmRSS:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text())
    assert found
    return int(found.group(1))


async def test_a_socket_that_never_reads_is_dropped_and_holds_nobody(tmp_path):
    server = WebServer(tmp_path / "data", "--open", "--heartbeat", str(STALL), "--rate-limit", "0",
                       "--reconnect-seconds", "3")
    slow, other = Browser(server), Browser(server)
    sock: socket.socket | None = None
    try:
        await slow.load()
        cookie = slow.http.cookie_jar.filter_cookies(aiohttp.client.URL(slow.url))["koma_player"].value
        before = resident_kib(server.process.pid)
        sock = await raw_websocket(server.port, cookie, "slow-reader-0123456789", 200, 60, receive_buffer=4096)
        await server.log_says(rf"player {slow.player}: game started", SCREEN_SECONDS)
        loop = asyncio.get_running_loop()

        async def flood() -> int:
            """Resize back and forth (a whole redraw each) until the server hangs up on us."""
            sent = 0
            deadline = time.monotonic() + SCREEN_SECONDS
            while time.monotonic() < deadline:
                try:  # whole frames only: the server reads no faster than the game takes its input
                    await loop.sock_sendall(sock, frame(json.dumps(["resize", {"width": 200 - sent % 2, "height": 60}])))
                except (ConnectionError, OSError):
                    return sent
                sent += 1
                await asyncio.sleep(0.02)
            return sent

        flooding = asyncio.create_task(flood())
        # the client's receive buffer fills (the rest waits on the server), then another player arrives, and
        # reaches the home screen within a bounded time, before the slow one is dropped, and plays
        await until(lambda: unread(sock) >= 2048, "the slow client's buffer is full")
        await other.load()
        began = time.monotonic()
        await other.connect()
        await other.wait_for("8-puzzle", timeout=30)
        home = time.monotonic() - began
        assert "its socket was dropped" not in server.text()
        await other.key("1")
        await other.wait_for(r"Moves 0\b", timeout=30)
        assert await other.move() == 1
        dropped = await server.log_says(
            rf"player {slow.player}: its socket was dropped: it took none of the game's output for {STALL} s "
            rf"\((\d+) KiB behind\); its game waits 3 s for it", SCREEN_SECONDS)
        assert int(dropped.group(1)) < 2048, dropped.group(0)  # the game waited at the pump's bound, not 4 MiB
        sent = await asyncio.wait_for(flooding, SCREEN_SECONDS)
        assert sent > 20, sent
        # its queued output is freed: the server is no bigger than it was by more than a few MiB
        assert resident_kib(server.process.pid) - before < 32 * 1024
        # its game goes on without it (and is hung up after the reconnect window); the other plays on
        await server.log_says(rf"player {slow.player}: game ended", SCREEN_SECONDS)
        assert await other.move() == 2
        print(f"home for the other player in {home:.2f} s while the slow one flooded; {sent} resizes; "
              f"{dropped.group(1)} KiB behind at the drop")
        await other.key("q")
        assert await other.closed() == 1000
    finally:
        if sock is not None:
            sock.close()
        await slow.close()
        await other.close()
        assert server.stop() == 0
    assert "Traceback" not in server.text()


async def test_a_shutdown_tells_the_page_the_game_is_saved(tmp_path):
    server = WebServer(tmp_path / "data", "--open", "--rate-limit", "0")
    browser = Browser(server)
    try:
        assert await browser.first_move() == 1
        server.process.terminate()
        assert await browser.closed() == 1012  # service restart: the page says so, not "the game has ended"
        assert re.search(r"shutting down\. Your game is saved", browser.close_reason), browser.close_reason
        await browser.wait_for(r"shutting down\. Your game is saved")  # and the terminal has the line too
        assert await asyncio.to_thread(server.stop) == 0
    finally:
        await browser.close()
        server.kill()
    assert "Traceback" not in server.text()
