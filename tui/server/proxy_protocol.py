"""The PROXY protocol (v2 and v1) in front of a listener: who the client really is, behind a balancer.

A :class:`HeaderListener` accepts each connection itself, reads exactly the PROXY header (parsed by the
``proxy-protocol`` library) and nothing past it, then serves the socket with the client's own address.  A
connection without a valid header within :data:`HEADER_TIMEOUT_SECONDS` is closed.  A ``LOCAL`` header (the
balancer's own health check) or ``UNKNOWN`` keeps the socket's address, as the protocol says.  Both front ends
build on it: :class:`tui.server.ssh.listener.ProxyListener` runs SSH (``koma serve --proxy-protocol``),
:class:`tui.server.web.listener.WebProxyListener` HTTP (``koma web --proxy-protocol``); both group addresses
(:func:`address_group`) and trust balancers (:func:`trusted_by`) alike.  Never imports Textual.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable
from typing import Any

from proxyprotocol import ProxyProtocolIncompleteError, ProxyProtocolWantRead
from proxyprotocol.detect import ProxyProtocolDetect
from proxyprotocol.result import ProxyResultIPv4, ProxyResultIPv6

HEADER_TIMEOUT_SECONDS = 5.0
MOST_HEADER_BYTES = 536  # the PROXY spec's recommended buffer: a v1 line is at most 107 bytes, a v2 header rarely more

Address = tuple[str, int]


class ProxyHeaderError(Exception):
    """The connection did not start with a valid PROXY header."""


def trusted_by(networks: list[Any]) -> Callable[[str], bool]:
    """Whether an address is in one of ``networks`` (the ``--trust-proxy`` balancers)."""
    def trusted(address: str) -> bool:
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        return any(ip in network for network in networks)
    return trusted


def address_group(address: str) -> str:
    """What per-address limits count by: an IPv4 address itself (also when IPv4-mapped), an IPv6 address's /64 (one
    subscriber's: an attacker there has 2**64 addresses), anything else (no address) as it is."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


async def read_proxy_header(sock: socket.socket, timeout: float = HEADER_TIMEOUT_SECONDS) -> Address | None:
    """Read one PROXY header from ``sock`` (no byte more): the client's address, or None for LOCAL/UNKNOWN."""
    try:
        result = await asyncio.wait_for(_read_result(sock), timeout)
    except TimeoutError:
        raise ProxyHeaderError(f"no PROXY header within {timeout:g} s") from None
    except (ValueError, UnicodeError) as problem:  # the library's syntax errors are ValueErrors
        raise ProxyHeaderError(f"not a valid PROXY header ({problem or type(problem).__name__})") from None
    if isinstance(result, ProxyResultIPv4 | ProxyResultIPv6):
        return str(result.source[0]), int(result.source[1])
    return None


async def _read_result(sock: socket.socket):
    parser = ProxyProtocolDetect()
    data = bytearray()
    while True:
        try:
            return parser.unpack(bytes(data))
        except ProxyProtocolIncompleteError as incomplete:
            want: ProxyProtocolWantRead = incomplete.want_read
        if want.want_bytes is not None:
            data += await _receive_exactly(sock, want.want_bytes, len(data))
        else:  # a v1 line: byte by byte, so that the SSH banner after it stays unread
            while not data.endswith(b"\n"):
                data += await _receive_exactly(sock, 1, len(data))


async def _receive_exactly(sock: socket.socket, count: int, already: int) -> bytes:
    if already + count > MOST_HEADER_BYTES:
        raise ValueError(f"longer than {MOST_HEADER_BYTES} bytes")
    loop = asyncio.get_running_loop()
    received = bytearray()
    while len(received) < count:
        chunk = await loop.sock_recv(sock, count - len(received))
        if not chunk:
            raise ValueError("the connection closed inside the header")
        received += chunk
    return bytes(received)


class HeaderListener:
    """A TCP listener that reads the PROXY header of each connection whose peer :meth:`wants_header` (every one,
    unless a subclass says otherwise), then :meth:`serve` s the socket with ``client``, the address from the
    header (None for LOCAL/UNKNOWN, or when no header was wanted), and ``balancer``, the socket's other end.  A
    connection with a bad header is logged and closed.  Like asyncssh's acceptor, it has :meth:`get_port`,
    :meth:`close` and :meth:`wait_closed`."""

    def __init__(self, log: Callable[[str], None], backlog: int = 128):
        self.log, self.backlog = log, backlog
        self.sockets: list[socket.socket] = []
        self.tasks: set[asyncio.Task] = set()  # every task: the accept loops, and each accepted connection's admission
        self.accepting: set[asyncio.Task] = set()

    def wants_header(self, peer: Address) -> bool:
        return True

    async def serve(self, sock: socket.socket, client: Address | None, balancer: Address) -> None:
        raise NotImplementedError

    async def start(self, host: str, port: int) -> None:
        loop = asyncio.get_running_loop()
        for family, kind, proto, _, address in await loop.getaddrinfo(host or None, port, type=socket.SOCK_STREAM,
                                                                       flags=socket.AI_PASSIVE):
            listening = socket.socket(family, kind, proto)
            listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listening.bind(address)
            listening.listen(self.backlog)
            listening.setblocking(False)
            self.sockets.append(listening)
            self.accepting.add(self._spawn(self._accept(listening)))
            break  # one address (like --host), as the plain listener does

    def get_port(self) -> int:
        return self.sockets[0].getsockname()[1] if self.sockets else 0

    def _spawn(self, work: Awaitable[None]) -> asyncio.Task:
        task = asyncio.ensure_future(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    async def _accept(self, listening: socket.socket) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                sock, peer = await loop.sock_accept(listening)
            except OSError:  # too many open files, a reset before accept: keep listening
                await asyncio.sleep(0.1)
                continue
            sock.setblocking(False)
            self._spawn(self._admit(sock, (str(peer[0]), int(peer[1]))))

    async def _admit(self, sock: socket.socket, balancer: Address) -> None:
        client = None
        if self.wants_header(balancer):
            try:
                client = await read_proxy_header(sock)
            except (ProxyHeaderError, OSError) as problem:
                self.log(f"{balancer[0]}:{balancer[1]}: refused ({problem})")
                sock.close()
                return
        await self.serve(sock, client, balancer)

    def close(self) -> None:
        """Accept no more; a connection already accepted finishes its header and handshake (a player who connected
        just before a restart's drain gets their game, as on the plain listener)."""
        for task in self.accepting:
            task.cancel()
        for listening in self.sockets:
            listening.close()

    async def wait_closed(self) -> None:
        if self.tasks:
            await asyncio.gather(*self.tasks, return_exceptions=True)
