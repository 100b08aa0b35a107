"""``koma bench web`` and ``koma bench web-crowd``: what ``koma bench serve`` measures, over WebSockets.

The scenarios are :mod:`koma_bench.serve.scenarios`'s, as ``koma bench serve`` runs them; only the server (``koma web --open``) and the player differ:
each player is a browser as aiohttp's client plays one: it loads the page (a guest cookie), opens the WebSocket
at 80x24 with the page's origin, sends keys as ``["stdin", …]`` and reads the binary screen stream.  Imported
only when a case runs.
"""

from __future__ import annotations

import asyncio
import base64
import json
import re
import secrets
import time
from typing import Any

from koma_bench.serve.scenarios import CONNECT_SECONDS, SCENARIOS, BenchServer, Session, run_with_server


class WebBenchSession(Session):
    """One browser on a terminal of ``size`` (80x24 unless the scenario says otherwise); its player is the guest its
    cookie names."""

    def __init__(self, user: str, server: WebBenchServer):
        super().__init__(user)
        self.server = server
        self.http: Any = None
        self.ws: Any = None
        self.sending: set[asyncio.Task] = set()

    async def connect(self, port: int) -> None:
        import aiohttp

        url = f"http://127.0.0.1:{port}/"
        self.http = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))  # cookies for an IP address
        async with self.http.get(url) as page:
            await page.read()
            cookie = page.cookies["koma_player"].value
        body = cookie.split(".")[0]
        self.server.players[self.user] = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))[0]
        self.ws = await asyncio.wait_for(self.http.ws_connect(
            f"{url}ws?width={self.size[0]}&height={self.size[1]}&session={secrets.token_urlsafe(18)}",
            headers={"Origin": url.rstrip("/")}, max_msg_size=0), CONNECT_SECONDS)
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        import aiohttp

        async for message in self.ws:
            if message.type == aiohttp.WSMsgType.BINARY:
                self.take(message.data)
        self.changed.set()

    def key(self, keys: str) -> None:
        task = asyncio.get_running_loop().create_task(self.ws.send_str(json.dumps(["stdin", keys])))
        self.sending.add(task)
        task.add_done_callback(self.sending.discard)

    async def close(self) -> None:
        if self.sending:
            await asyncio.gather(*self.sending, return_exceptions=True)
        if self.ws is not None:
            await self.ws.close()
        if self.reader is not None:
            self.reader.cancel()
        if self.http is not None:
            await self.http.close()


class WebBenchServer(BenchServer):
    """``koma web --open`` on 127.0.0.1:0 with a temporary data dir."""

    ARGUMENTS = ("web", "--open", "--host", "127.0.0.1", "--port", "0", "--rate-limit", "0", "--idle-timeout", "0",
                 "--max-sessions-per-player", "0", "--max-per-address", "1000", "--max-connections", "1000",
                 "--max-http-per-address", "2000")
    LISTENING = r"listening on http://127\.0\.0\.1:(\d+)/"

    def __init__(self, *options: str):
        super().__init__(*options)
        self.players: dict[str, str] = {}

    def session(self, user: str) -> Session:
        return WebBenchSession(user, self)

    async def game_pid(self, user: str, timeout: float = 10.0) -> int:
        deadline = time.monotonic() + timeout
        while user not in self.players and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        player = re.escape(self.players.get(user, user))
        found = await self.wait_for_log(rf"player {player}: game started \(pid (\d+)", timeout)
        return int(found.group(1))


def run_web_scenario(name: str, *options: str) -> dict[str, Any]:
    """Run one scenario of :data:`koma_bench.serve.scenarios.SCENARIOS` against a private ``koma web``."""
    return run_with_server(options, SCENARIOS[name], WebBenchServer)
