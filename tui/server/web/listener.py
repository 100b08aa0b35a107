"""``koma web``'s listener: who each connection is (the PROXY header from a balancer), how many each address has
open, and how long a connection may take to ask for something.

Every connection is accepted here, then goes to aiohttp's HTTP server as if aiohttp had accepted it.  With
``--proxy-protocol`` a connection from a ``--trust-proxy`` address must start with a PROXY header (HAProxy's
``send-proxy-v2``), read by :class:`tui.server.ssh.listener.HeaderListener` (one parser, the SSH listener's); the address
from it is looked up by its transport (:meth:`WebProxyListener.client_of`).  A client address (an IPv6 /64) with
``max_per_address`` connections open already has its next one closed at once (a balancer's own connections, which
carry many clients, are not counted).  A connection that is not in a request (its handler running: a page, a
WebSocket) is closed once ``request_seconds`` have passed since it was accepted or its last request ended: a silent
socket, a request trickled or half sent, an idle keep-alive.  Never imports Textual.
"""

from __future__ import annotations

import asyncio
import collections
import socket
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tui.server.proxy_protocol import Address, HeaderListener, address_group

SWEEP_SECONDS = 0.5


@dataclass(eq=False)
class Watched:
    """One connection: the address group it counts against ('' for none), when it last did something, and how
    many of its requests are being handled."""

    group: str
    since: float
    busy: int = 0


class WebProxyListener(HeaderListener):
    """Accepts for aiohttp's ``server`` (a protocol factory, the runner's); ``reads_header`` says whose PROXY header
    to read, ``trusted`` which addresses are balancers."""

    def __init__(self, server: Any, reads_header: Callable[[str], bool], trusted: Callable[[str], bool],
                 log: Callable[[str], None], max_per_address: int = 0, request_seconds: float = 0.0):
        super().__init__(log, backlog=256)
        self.server, self.reads_header, self.trusted = server, reads_header, trusted
        self.max_per_address, self.request_seconds = max_per_address, request_seconds
        self.clients: weakref.WeakKeyDictionary[Any, Address] = weakref.WeakKeyDictionary()
        self.watched: dict[Any, Watched] = {}  # transport -> its state, while it is open
        self.per_group: collections.Counter[str] = collections.Counter()
        self.refused = 0

    async def start(self, host: str, port: int) -> None:
        await super().start(host, port)
        self._spawn(self._sweep())

    def wants_header(self, peer: Address) -> bool:
        return self.reads_header(peer[0])

    async def serve(self, sock: socket.socket, client: Address | None, balancer: Address) -> None:
        group = "" if client is None and self.trusted(balancer[0]) else address_group((client or balancer)[0])
        if group and self.max_per_address and self.per_group[group] >= self.max_per_address:
            self.refused += 1
            sock.close()  # not a word: an HTTP answer would cost what the cap is there to save
            return
        try:
            transport, _ = await asyncio.get_running_loop().connect_accepted_socket(self.server, sock)
        except OSError:
            sock.close()
            return
        if client is not None:
            self.clients[transport] = client
        self.watched[transport] = Watched(group, time.monotonic())
        self.per_group[group] += 1

    def client_of(self, transport: Any) -> Address | None:
        """The address a connection's PROXY header named, or None (no header, or LOCAL/UNKNOWN)."""
        return self.clients.get(transport) if transport is not None else None

    def handling(self, transport: Any, began: bool) -> None:
        """A request on ``transport`` began (its handler runs) or ended."""
        watched = self.watched.get(transport)
        if watched is not None:
            watched.busy += 1 if began else -1
            watched.since = time.monotonic()

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(SWEEP_SECONDS)
            now = time.monotonic()
            for transport, watched in list(self.watched.items()):
                if self.request_seconds and not watched.busy and now - watched.since > self.request_seconds:
                    transport.abort()  # no request in time: silent, trickled, half sent, or an idle keep-alive
                if transport.is_closing():
                    del self.watched[transport]
                    self.per_group[watched.group] -= 1
                    if not self.per_group[watched.group]:
                        del self.per_group[watched.group]
