"""``koma serve --proxy-protocol``: SSH behind a balancer that sends a PROXY header (:mod:`tui.server.proxy_protocol`)."""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any

from tui.patches.asyncssh_import import asyncssh
from tui.server.proxy_protocol import Address, HeaderListener


class ProxyListener(HeaderListener):
    """``koma serve --proxy-protocol``: a connection from a balancer (``trusted``) starts with a PROXY header,
    then runs SSH (asyncssh) with ``connection_factory(client, balancer)`` as its server; any other connection
    runs SSH as it came, with ``connection_factory(None, None)``: its own address, and no header is read from it."""

    def __init__(self, connection_factory: Callable[[Address | None, Address | None], asyncssh.SSHServer],
                 ssh_options: dict[str, Any], log: Callable[[str], None], trusted: Callable[[str], bool]):
        super().__init__(log)
        self.connection_factory, self.ssh_options, self.trusted = connection_factory, ssh_options, trusted

    def wants_header(self, peer: Address) -> bool:
        return self.trusted(peer[0])

    async def serve(self, sock: socket.socket, client: Address | None, balancer: Address) -> None:
        through = balancer if self.trusted(balancer[0]) else None
        try:
            await asyncssh.run_server(sock, server_factory=lambda: self.connection_factory(client, through),
                                      **self.ssh_options)
        except (OSError, asyncssh.Error, TimeoutError):  # refused, dropped, or a health check that only wanted the banner
            sock.close()
