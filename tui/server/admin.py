"""``koma serve``'s admin listener (``--admin-port``, loopback by default), with aiohttp:

- ``GET /metrics``: every metric in the Prometheus text format (:mod:`tui.server.metrics`), made in a thread so a
  scrape never holds the event loop that carries the games;
- ``GET /healthz``: 200 while the process is alive and its event loop answers;
- ``GET /readyz``: 200 ``ready`` when a player can be taken now (not draining, the warm process ready, the store
  reachable or the outbox accepting), else 503 with the reasons: what HAProxy's health check asks.

Never imports Textual; transport-neutral (``koma web`` can mount the same routes).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from aiohttp import web

from tui.patches.server_header import use_plain_server_name
from tui.server import metrics


def admin_app(not_ready: Callable[[], list[str]]) -> web.Application:
    """The routes; ``not_ready()`` lists why a player cannot be taken now (empty: ready)."""

    async def healthz(request: web.Request) -> web.Response:
        return web.Response(text="ok\n")

    async def readyz(request: web.Request) -> web.Response:
        reasons = not_ready()
        if reasons:
            return web.Response(status=503, text="not ready: " + "; ".join(reasons) + "\n")
        return web.Response(text="ready\n")

    async def scrape(request: web.Request) -> web.Response:
        body = await asyncio.to_thread(metrics.exposition)
        return web.Response(body=body, headers={"Content-Type": metrics.CONTENT_TYPE})

    app = web.Application()
    use_plain_server_name()  # no Python or aiohttp version in the Server header
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", readyz)
    app.router.add_get("/metrics", scrape)
    return app


class AdminListener:
    """The admin app on ``host:port`` (0 picks a free port: see :attr:`port` after :meth:`start`)."""

    def __init__(self, not_ready: Callable[[], list[str]], host: str, port: int):
        self.runner = web.AppRunner(admin_app(not_ready), access_log=None, handle_signals=False)
        self.host, self.port = host, port

    async def start(self) -> None:
        await self.runner.setup()
        site = web.TCPSite(self.runner, self.host, self.port, reuse_address=True)
        await site.start()
        if self.runner.addresses:
            self.port = self.runner.addresses[0][1]

    async def close(self) -> None:
        await self.runner.cleanup()
