"""``koma serve --proxy-protocol``: the PROXY header (v2 and v1) before SSH, the client's own address in the
rate limit and the log, and ``--host-key`` shared by replicas.

The header reader is tested on real socket pairs; the server tests start ``koma serve`` on loopback and
speak to it with asyncssh as the client, after writing the header the way HAProxy does.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import ipaddress
import socket
import struct

import pytest
from serve_helpers import HAVE_ASYNCSSH, Server

pytestmark = pytest.mark.skipif(not HAVE_ASYNCSSH, reason="asyncssh is not installed (pip install -e '.[ssh]')")

V2_SIGNATURE = b"\r\n\r\n\x00\r\nQUIT\n"


def v2_header(source: str, source_port: int, dest: str = "127.0.0.1", dest_port: int = 2222, local: bool = False) -> bytes:
    """A PROXY v2 header for TCP over IPv4, written out by hand from the spec (not by the library under test)."""
    if local:
        return V2_SIGNATURE + bytes([0x20, 0x00]) + struct.pack("!H", 0)
    body = ipaddress.IPv4Address(source).packed + ipaddress.IPv4Address(dest).packed + struct.pack("!HH", source_port, dest_port)
    return V2_SIGNATURE + bytes([0x21, 0x11]) + struct.pack("!H", len(body)) + body


def v1_header(source: str, source_port: int) -> bytes:
    return f"PROXY TCP4 {source} 127.0.0.1 {source_port} 2222\r\n".encode()


def read_header(first_bytes: bytes, timeout: float = 2.0):
    """What read_proxy_header makes of a connection that starts with ``first_bytes``, and what it left unread."""
    from tui.server.proxy_protocol import read_proxy_header

    async def run():
        ours, theirs = socket.socketpair()
        ours.setblocking(False)
        with ours, theirs:
            theirs.sendall(first_bytes)
            try:
                return await read_proxy_header(ours, timeout), ours.recv(4096)
            except BlockingIOError:
                return await read_proxy_header(ours, timeout), b""

    return asyncio.run(run())


@pytest.mark.parametrize("header", [v2_header("203.0.113.7", 40000), v1_header("203.0.113.7", 40000)])
def test_the_header_gives_the_client_and_nothing_past_it_is_read(header):
    client, rest = read_header(header + b"SSH-2.0-OpenSSH_9.2\r\n")
    assert client == ("203.0.113.7", 40000)
    assert rest == b"SSH-2.0-OpenSSH_9.2\r\n"  # the SSH banner is left for the SSH server


@pytest.mark.parametrize("header", [v2_header("198.51.100.20", 1234), v1_header("198.51.100.20", 1234)])
def test_a_header_in_pieces_is_put_together(header):
    from tui.server.proxy_protocol import read_proxy_header

    async def run():
        ours, theirs = socket.socketpair()
        ours.setblocking(False)
        with ours, theirs:
            async def trickle() -> None:
                for k in range(0, len(header), 5):  # five bytes at a time, as a slow network might
                    theirs.sendall(header[k:k + 5])
                    await asyncio.sleep(0.005)
                theirs.sendall(b"SSH-2.0-x\r\n")

            sending = asyncio.ensure_future(trickle())
            client = await read_proxy_header(ours, 10.0)
            await sending
            return client, await asyncio.get_running_loop().sock_recv(ours, 100)

    assert asyncio.run(run()) == (("198.51.100.20", 1234), b"SSH-2.0-x\r\n")


def test_a_local_header_keeps_the_sockets_address():
    assert read_header(v2_header("", 0, local=True) + b"SSH-2.0-x\r\n") == (None, b"SSH-2.0-x\r\n")


@pytest.mark.parametrize("start", [b"SSH-2.0-OpenSSH_9.2\r\n", b"PROXY TCP4 not-an-address 127.0.0.1 1 2\r\n",
                                   b"PROXY " + b"9" * 600, V2_SIGNATURE + b"\x21\x11\x00"])
def test_a_connection_without_a_valid_header_is_refused(start):
    from tui.server.proxy_protocol import ProxyHeaderError

    with pytest.raises(ProxyHeaderError):
        read_header(start, timeout=1.0)


async def connect_through(port: int, header: bytes, username: str = "ann", **options):
    """An SSH connection to the replica on ``port``, as if HAProxy had forwarded it with ``header``."""
    import asyncssh

    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(header)
    return await asyncssh.connect(sock=sock, username=username, known_hosts=None, connect_timeout=20, **options)


def test_rate_limit_and_log_use_the_client_address_from_the_header(tmp_path):
    import asyncssh

    # --cold here and below: these connections log in and start no game, so a warm process would warm up for nothing
    server = Server(tmp_path / "data", "--open", "--proxy-protocol", "--trust-proxy", "127.0.0.1", "--rate-limit", "2",
                    "--cold")
    try:
        async def run() -> list[str]:
            outcomes = []
            for source in ("198.51.100.2", "198.51.100.2", "198.51.100.2", "198.51.100.3"):
                try:
                    connection = await connect_through(server.port, v2_header(source, 50000))
                    connection.close()
                    await connection.wait_closed()
                    outcomes.append("in")
                except asyncssh.DisconnectError as refused:
                    outcomes.append(refused.reason)
            return outcomes

        outcomes = asyncio.run(run())
        assert outcomes[:2] == ["in", "in"] and outcomes[3] == "in"
        assert "too many connections from 198.51.100.2" in outcomes[2]
        server.wait_for_log(r"198\.51\.100\.3:50000: connected through 127\.0\.0\.1:\d+")
        assert server.text().count("198.51.100.2:50000: connected through 127.0.0.1") == 3
        server.wait_for_log(r"198\.51\.100\.2:50000: refused \(too many connections")
    finally:
        assert server.stop() == 0


def test_a_connection_without_the_header_is_refused_and_logged(tmp_path):
    import asyncssh

    server = Server(tmp_path / "data", "--open", "--proxy-protocol", "--trust-proxy", "127.0.0.1", "--cold")
    try:
        async def run() -> None:
            with pytest.raises((asyncssh.Error, OSError)):
                await asyncssh.connect("127.0.0.1", server.port, username="ann", known_hosts=None, connect_timeout=20)

        asyncio.run(run())
        server.wait_for_log(r"127\.0\.0\.1:\d+: refused \(not a valid PROXY header")
        # v1 works as well as v2
        async def v1() -> None:
            connection = await connect_through(server.port, v1_header("192.0.2.9", 61000))
            connection.close()

        asyncio.run(v1())
        server.wait_for_log(r"192\.0\.2\.9:61000: connected through 127\.0\.0\.1")
    finally:
        assert server.stop() == 0


def test_replicas_given_one_host_key_present_one_fingerprint(tmp_path):
    import asyncssh

    key = tmp_path / "shared_host_key"
    with concurrent.futures.ThreadPoolExecutor(2) as starting:  # at once: the first to write the key wins, both use it
        replicas = list(starting.map(lambda name: Server(tmp_path / name, "--open", "--cold", "--host-key", str(key),
                                                         log_name=f"{name}.log"), ("a", "b")))
    other = Server(tmp_path / "c", "--open", "--cold", log_name="c.log")  # its own key, in its data dir
    try:
        async def fingerprints() -> list[str]:
            keys = [await asyncssh.get_server_host_key("127.0.0.1", s.port) for s in (*replicas, other)]
            return [k.get_fingerprint("sha256") for k in keys]

        a, b, c = asyncio.run(fingerprints())
        assert a == b != c
        assert asyncssh.read_private_key(str(key)).get_fingerprint("sha256") == a
        assert key.stat().st_mode & 0o077 == 0
    finally:
        for server in (*replicas, other):
            server.kill()


def test_an_unreadable_host_key_is_one_line_and_status_2(tmp_path):
    import subprocess

    from serve_helpers import KOMA

    bad = tmp_path / "not_a_key"
    bad.write_text("this is not a key\n")
    result = subprocess.run([KOMA, "serve", "--open", "--port", "0", "--host-key", str(bad)], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 2 and result.stderr.startswith("koma: error: cannot read the host key")
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_connection_accepted_just_before_a_drain_still_gets_its_game(tmp_path):
    """Behind the balancer, a player whose connection was accepted (its PROXY header read) a moment before the replica
    was told to drain for a restart finishes logging in and gets a game, as on the plain listener; stopping the
    listener no longer cuts the logins under way (the rolling restart's newcomer saw ConnectionLost)."""
    import signal
    import time

    import asyncssh

    server = Server(tmp_path / "data", "--open", "--proxy-protocol", "--trust-proxy", "127.0.0.1", "--rate-limit", "0",
                    "--drain-seconds", "30")

    async def read_until(process, text: str, timeout: float = 60.0) -> str:
        seen, deadline = "", time.monotonic() + timeout
        while text not in seen:
            left = deadline - time.monotonic()
            assert left > 0, f"{text!r} never came: {seen[-300:]!r}"
            chunk = await asyncio.wait_for(process.stdout.read(65536), left)
            assert chunk, f"the connection ended before {text!r}: {seen[-300:]!r}"
            seen += chunk.decode(errors="replace")
        return seen

    async def run() -> None:
        staying = await connect_through(server.port, v2_header("198.51.100.7", 50001), username="stays")
        stays = await staying.create_process(term_type="xterm-256color", term_size=(80, 24), encoding=None)
        await read_until(stays, "8-puzzle")  # a game in progress: the drain waits for it
        late = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        late.sendall(v2_header("198.51.100.8", 50002))
        server.wait_for_log(r"198\.51\.100\.8:50002: connected through")  # accepted, its header read
        server.process.send_signal(signal.SIGTERM)
        await asyncio.to_thread(server.wait_for_log, r"draining")
        newcomer = await asyncssh.connect(sock=late, username="newcomer", known_hosts=None, connect_timeout=30)
        process = await newcomer.create_process(term_type="xterm-256color", term_size=(80, 24), encoding=None)
        await read_until(process, "8-puzzle")
        newcomer.close()
        staying.close()

    try:
        asyncio.run(run())
    finally:
        assert server.stop() == 0
