"""``koma web --proxy-protocol``: behind HAProxy's ``send-proxy-v2``, the browser's own address from the header.

A real ``koma web`` trusts 127.0.0.1 (the test plays the balancer): a connection with a v2 header is served as the
header's address (in the log, the per-address cap), a LOCAL header (a health check) keeps the socket's, and one
without a header is refused and logged.  The header is parsed by the SSH listener's reader (one parser).
"""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

pytest.importorskip("aiohttp")
pytest.importorskip("asyncssh")

import aiohttp
from test_proxy_protocol import v2_header
from web_helpers import SCREEN_SECONDS, Browser, WebServer, raw_websocket


async def exchange(port: int, data: bytes) -> bytes:
    """Send ``data`` on a new connection and read until the server closes it."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(data)
        await writer.drain()
        return await asyncio.wait_for(reader.read(), SCREEN_SECONDS)
    finally:
        writer.close()


async def test_the_browser_address_comes_from_the_proxy_header(tmp_path):
    server = WebServer(tmp_path / "data", "--open", "--trust-proxy", "127.0.0.1/32", "--proxy-protocol",
                       "--rate-limit", "0", "--max-per-address", "1")
    browser = Browser(server)
    sockets = []
    try:
        server.wait_for_log(r"trusting a PROXY header and X-Forwarded-For from 127\.0\.0\.1/32")
        # a health check: HAProxy's check-send-proxy sends a LOCAL header
        health = await exchange(server.port, v2_header("", 0, local=True) +
                                b"GET /healthz HTTP/1.1\r\nHost: koma\r\nConnection: close\r\n\r\n")
        assert health.startswith(b"HTTP/1.1 200") and health.endswith(b"ok\n"), health
        # no header from the balancer: refused, with a line in the log
        async with aiohttp.ClientSession() as plain:
            with pytest.raises(aiohttp.ClientError):
                await plain.get(server.url, timeout=aiohttp.ClientTimeout(total=SCREEN_SECONDS))
        await server.log_says(r"127\.0\.0\.1:\d+: refused \(not a valid PROXY header")
        # a page and a game for 203.0.113.7, named by the header
        page = await exchange(server.port, v2_header("203.0.113.7", 40001, dest_port=server.port) +
                              b"GET / HTTP/1.1\r\nHost: koma\r\nConnection: close\r\n\r\n")
        assert page.startswith(b"HTTP/1.1 200"), page[:200]
        cookie = page.split(b"koma_player=", 1)[1].split(b";", 1)[0].decode()
        sockets.append(await raw_websocket(server.port, cookie, "proxied-0123456789abc",
                                           prefix=v2_header("203.0.113.7", 40002, dest_port=server.port)))
        await server.log_says(r"203\.0\.113\.7:40002 player web:[0-9a-f]+: game started", SCREEN_SECONDS)
        # --max-per-address 1 counts 203.0.113.7, not the balancer: another address still plays, the same is refused
        sockets.append(await raw_websocket(server.port, cookie, "proxied-0123456789abd",
                                           prefix=v2_header("198.51.100.9", 40003, dest_port=server.port)))
        await server.log_says(r"198\.51\.100\.9:40003 player web:[0-9a-f]+: game started", SCREEN_SECONDS)
        with pytest.raises(AssertionError, match="429"):
            await raw_websocket(server.port, cookie, "proxied-0123456789abe",
                                prefix=v2_header("203.0.113.7", 40004, dest_port=server.port))
        await server.log_says(r"too many connections from 203\.0\.113\.7 \(1 at once\)")
    finally:
        for sock in sockets:
            sock.close()
        await browser.close()
        assert server.stop() == 0
    assert "Traceback" not in server.text()


def test_the_header_needs_trusted_balancers():
    said = subprocess.run([sys.executable, "-m", "tui.main", "web", "--open", "--proxy-protocol"],
                          capture_output=True, text=True, timeout=60)
    assert said.returncode == 2
    assert said.stderr.strip().splitlines() == [
        "koma: error: --proxy-protocol needs --trust-proxy CIDR: the balancers whose connections carry the header"]
