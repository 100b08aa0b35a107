"""``koma web --proxy-protocol``: the PROXY header (v2 or v1) from the balancer names each browser's address.

A connection from a ``--trust-proxy`` address must start with a PROXY header (HAProxy's ``send-proxy-v2``), read
by :class:`tui.server.proxy.HeaderListener` (one parser, the SSH listener's); any other connection is served
as it came, without one.  The socket then goes to aiohttp's HTTP server as if aiohttp had accepted it, and the
address from its header is looked up by its transport (:meth:`WebProxyListener.client_of`).  Never imports
Textual.
"""

from __future__ import annotations

import asyncio
import socket
import weakref
from collections.abc import Callable
from typing import Any

from .proxy import Address, HeaderListener


class WebProxyListener(HeaderListener):
    """Accepts for aiohttp's ``server`` (a protocol factory, the runner's); ``trusted`` says whose header to read."""

    def __init__(self, server: Any, trusted: Callable[[str], bool], log: Callable[[str], None]):
        super().__init__(log, backlog=256)
        self.server, self.trusted = server, trusted
        self.clients: weakref.WeakKeyDictionary[Any, Address] = weakref.WeakKeyDictionary()

    def wants_header(self, peer: Address) -> bool:
        return self.trusted(peer[0])

    async def serve(self, sock: socket.socket, client: Address | None, balancer: Address) -> None:
        try:
            transport, _ = await asyncio.get_running_loop().connect_accepted_socket(self.server, sock)
        except OSError:
            sock.close()
            return
        if client is not None:
            self.clients[transport] = client

    def client_of(self, transport: Any) -> Address | None:
        """The address a connection's PROXY header named, or None (no header, or LOCAL/UNKNOWN)."""
        return self.clients.get(transport) if transport is not None else None
