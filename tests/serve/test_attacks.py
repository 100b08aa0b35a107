"""Issue 36's attacks on ``koma serve`` and ``koma web``, each through a real client on loopback (asyncssh, raw
sockets, aiohttp): every one must fail, and a normal player must be served after it."""

from __future__ import annotations

import asyncio
import contextlib
import re
import socket
import time
from pathlib import Path

import pytest
from serve_helpers import HAVE_ASYNCSSH, Server
from test_hostile import alive, open_game
from web_helpers import WebServer

pytestmark = pytest.mark.skipif(not HAVE_ASYNCSSH, reason="asyncssh is not installed (pip install -e '.[ssh]')")

GONE_SECONDS = 40.0  # a hung-up game has 5 s to save; the rest is room for a loaded 2-core box


async def start_and_abort(port: int, user: str) -> None:
    """Open a session with a pty and drop the TCP connection at once, while the game is still being started."""
    import asyncssh

    conn = await asyncssh.connect("127.0.0.1", port, username=user, known_hosts=None, connect_timeout=60)
    await conn.create_process(term_type="xterm-256color", term_size=(100, 30), encoding=None)
    conn.abort()


def started_pids(server: Server) -> list[int]:
    return [int(p) for p in re.findall(r"game started \(pid (\d+)", server.text())]


def wait_all_gone(server, timeout: float = GONE_SECONDS) -> None:
    """Every game the server (koma serve or koma web) started has ended (its process gone, its end logged)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pids = started_pids(server)
        running = [pid for pid in pids if alive(pid)] + (server.game_pids() if isinstance(server, Server) else [])
        if not running and len(re.findall(r"game ended", server.text())) >= len(pids):
            return
        time.sleep(0.1)
    raise AssertionError(f"games still running {timeout:g} s after their clients went: "
                         f"{[pid for pid in started_pids(server) if alive(pid)]}\n{server.text()[-4000:]}")


@pytest.mark.parametrize("cold", [False, True], ids=["warm", "cold"])
async def test_clients_that_abort_while_their_games_start_leave_no_game(tmp_path, cold):
    """Finding 1: eight clients that request a pty and abort at once; every game ends within seconds, and a
    normal player then gets a game (the seats are free)."""
    options = ["--open", "--rate-limit", "0", "--max-sessions", "8", *(["--cold"] if cold else [])]
    server = await asyncio.to_thread(Server, tmp_path / "data", *options)
    try:
        await asyncio.gather(*(start_and_abort(server.port, f"ghost{n}") for n in range(8)))
        await asyncio.to_thread(server.wait_for_log, r"game started", 60.0)
        await asyncio.to_thread(wait_all_gone, server)
        assert "Unknown child process" not in server.text()
        conn, _process, screen = await open_game(server, "player")
        try:
            await screen.wait_for("8-puzzle")
        finally:
            conn.close()
        await asyncio.to_thread(wait_all_gone, server)
    finally:
        await asyncio.to_thread(server.kill)


async def test_websockets_closed_while_their_games_start_leave_no_game(tmp_path):
    """Finding 1 over koma web: eight pages whose socket closes right after it opened; each game waits
    --reconnect-seconds for its page, then ends, and a page is served again."""
    from web_helpers import Browser

    server = await asyncio.to_thread(WebServer, tmp_path / "data", "--open", "--reconnect-seconds", "2",
                                     "--rate-limit", "0", "--max-per-address", "8")
    browsers = [Browser(server) for _ in range(8)]
    try:
        async def open_and_close(browser: Browser) -> None:
            await browser.load()
            ws = await browser.connect()
            await ws.close()

        await asyncio.gather(*(open_and_close(browser) for browser in browsers))
        await asyncio.to_thread(server.wait_for_log, r"game started", 60.0)
        await asyncio.to_thread(wait_all_gone, server)
        again = Browser(server)
        browsers.append(again)
        await again.load()
        await again.connect()
        await again.wait_for("8-puzzle")
    finally:
        for browser in browsers:
            await browser.close()
        await asyncio.to_thread(server.kill)


# --- 2. a PROXY header is read only from a configured balancer -----------------------------------------------

def restricted_key(tmp_path):
    """A client key the authorized keys admit only from 203.0.113.7 (OpenSSH's ``from=`` option)."""
    import asyncssh

    key = asyncssh.generate_private_key("ssh-ed25519")
    keys = tmp_path / "authorized_keys"
    keys.write_text(f'from="203.0.113.7" {key.export_public_key().decode()}')
    return key, keys


@pytest.mark.parametrize("balancer, logs_in", [("127.0.0.1/32", True), ("10.9.9.9/32", False)],
                         ids=["from-the-balancer", "from-anyone-else"])
async def test_a_proxy_header_is_believed_only_from_a_trusted_balancer(tmp_path, balancer, logs_in):
    """Finding 2: a header claiming the one address a key is allowed from logs in only when it comes from a
    ``--trust-proxy`` address; from anyone else it is not read at all."""
    import asyncssh
    from test_proxy_protocol import connect_through, v2_header

    key, keys = restricted_key(tmp_path)
    server = await asyncio.to_thread(Server, tmp_path / "data", "--authorized-keys", str(keys), "--proxy-protocol",
                                     "--trust-proxy", balancer, "--cold")
    try:
        try:
            conn = await asyncio.wait_for(connect_through(server.port, v2_header("203.0.113.7", 40000), "mallory",
                                                         client_keys=[key]), 60)
        except (asyncssh.Error, OSError):
            assert not logs_in
        else:
            assert logs_in
            conn.close()
            await conn.wait_closed()
        if not logs_in:
            assert "203.0.113.7" not in server.text()
            # the same key from its own address (loopback, not 203.0.113.7) is refused as well
            with pytest.raises(asyncssh.PermissionDenied):
                await asyncssh.connect("127.0.0.1", server.port, username="mallory", client_keys=[key],
                                       known_hosts=None, connect_timeout=60)
    finally:
        await asyncio.to_thread(server.kill)


async def test_a_proxy_local_connection_is_a_health_check_that_never_logs_in(tmp_path):
    """Finding 2: LOCAL (the balancer's own check) does not log in, even with --open; it is logged and counted."""
    import asyncssh
    from test_proxy_protocol import connect_through, v2_header

    server = await asyncio.to_thread(Server, tmp_path / "data", "--open", "--proxy-protocol", "--trust-proxy",
                                     "127.0.0.1/32", "--cold")
    try:
        with pytest.raises(asyncssh.DisconnectError, match="health check"):
            await asyncio.wait_for(connect_through(server.port, v2_header("", 0, local=True), "ann"), 60)
        await asyncio.to_thread(server.wait_for_log, r"127\.0\.0\.1:\d+ through 127\.0\.0\.1:\d+: health check")
        conn = await asyncio.wait_for(connect_through(server.port, v2_header("198.51.100.4", 4000), "ann"), 60)
        conn.close()
    finally:
        await asyncio.to_thread(server.kill)


# --- 6. a cookie that is not ASCII -----------------------------------------------------------------------------

def raw_request(port: int, request: bytes, timeout: float = 30.0) -> bytes:
    """Send ``request`` on a raw socket and read the answer until the server closes (or ``timeout``)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(request)
        answer = b""
        try:
            while chunk := sock.recv(65536):
                answer += chunk
        except TimeoutError:
            pass
        return answer


def test_a_non_ascii_cookie_is_a_new_guest_not_a_server_error(tmp_path):
    """Finding 6: a cookie with non-ASCII characters was a 500 (hmac.compare_digest raised TypeError)."""
    server = WebServer(tmp_path / "data", "--open", "--cold")
    try:
        for cookie in ("koma_player=\u00e9t\u00e9.abc".encode(), b"koma_player=\xff\xfe.\xff"):
            answer = raw_request(server.port, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nCookie: "
                                 + cookie + b"\r\n\r\n")
            assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
            assert b"Set-Cookie: koma_player=" in answer  # a new guest
        assert "Traceback" not in server.text() and "Error handling request" not in server.text()
    finally:
        assert server.stop() == 0


# --- 7. the logs cannot be flooded -----------------------------------------------------------------------------

def test_a_flood_of_bare_connections_is_summed_up_in_the_log(tmp_path):
    """Finding 7: 150 TCP connections that say nothing were 150 "connected" lines; now a burst, then one line."""
    server = Server(tmp_path / "data", "--open", "--cold", "--rate-limit", "0", "--max-startups", "200")
    try:
        for _ in range(150):
            socket.create_connection(("127.0.0.1", server.port), timeout=10).close()
        server.wait_for_log(r"(\d+) more connection\(s\) not logged", 60)
        connected = len(re.findall(r": connected\n", server.text()))
        skipped = int(re.search(r"(\d+) more connection\(s\) not logged", server.text()).group(1))
        assert connected <= 20 and connected + skipped == 150
    finally:
        server.kill()


async def test_a_flood_of_refused_websockets_is_summed_up_in_the_log(tmp_path):
    """Finding 7: every refused WebSocket was a line in koma web's log."""
    import aiohttp

    server = await asyncio.to_thread(WebServer, tmp_path / "data", "--open", "--cold")
    try:
        async with aiohttp.ClientSession() as http:
            for _ in range(150):
                async with http.get(f"{server.url}ws?session={'x' * 20}") as response:  # no Origin: refused
                    assert response.status == 403
        refused = len(re.findall(r"WebSocket refused", server.text()))
        assert 0 < refused <= 20
    finally:
        await asyncio.to_thread(server.stop)


# --- 8. a refused connection never pushes out a login within its limits ----------------------------------------

def test_rate_limited_connections_do_not_push_out_a_waiting_login(tmp_path):
    """Finding 8: with --max-startups 3 --rate-limit 2, three rate-limited connections closed a login in progress."""
    _, keys = restricted_key(tmp_path)
    server = Server(tmp_path / "data", "--authorized-keys", str(keys), "--cold", "--max-startups", "3",
                    "--rate-limit", "2")
    sockets = []
    try:
        honest = socket.create_connection(("127.0.0.1", server.port), timeout=10)  # a login in progress (1 of 2)
        sockets.append(honest)
        assert honest.recv(256).startswith(b"SSH-2.0-")
        for count in range(1, 5):  # the second is within the limit; the next three are rate-limited
            sockets.append(socket.create_connection(("127.0.0.1", server.port), timeout=10))
            server.wait_for_log(r": connected\n", 30, count + 1)
        server.wait_for_log(r"dropped \(3 connections not logged in; this one is refused\)", 30, 2)
        honest.settimeout(1.0)
        with pytest.raises(TimeoutError):
            assert honest.recv(256) != b"", "the waiting login was closed"
        assert "waited longest" not in server.text()
    finally:
        for sock in sockets:
            sock.close()
        server.kill()


# --- 3. per-address limits count games, parked ones too, and an IPv6 /64 is one address ------------------------

async def test_a_closed_pages_game_and_a_fresh_cookie_do_not_step_around_the_per_address_cap(tmp_path):
    """Finding 3: with --max-per-address 1, a closed socket's game (waiting for its browser) and a new guest
    cookie let one address run several games; now the second game is refused, and the first browser still gets
    its own game back."""
    import aiohttp
    from web_helpers import Browser

    server = await asyncio.to_thread(WebServer, tmp_path / "data", "--open", "--cold", "--max-per-address", "1")
    first, second = Browser(server), Browser(server)
    try:
        await first.load()
        await first.connect()
        await first.wait_for("8-puzzle")
        await first.drop()  # the page closes: its game waits for it
        await second.load()  # another guest cookie, from the same address
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await second.connect()
        assert refused.value.status == 429
        assert len(started_pids(server)) == 1
        await first.connect()  # the first page comes back to its own game
        await first.wait_for("8-puzzle")
    finally:
        await first.close()
        await second.close()
        await asyncio.to_thread(server.stop)


def test_address_groups_and_link_code_tries_across_a_64():
    """Finding 3: what the per-address limits count by, and link-code tries spread over one /64 (koma web passes
    the address's group to LinkCodes.redeem)."""
    from tui.server.links import LINK_TRIES_PER_MINUTE, LinkCodes
    from tui.server.proxy import address_group

    assert address_group("2001:db8:1:2::1") == address_group("2001:db8:1:2:ffff:1:2:3") == "2001:db8:1:2::/64"
    assert address_group("2001:db8:1:3::1") != address_group("2001:db8:1:2::1")
    assert address_group("::ffff:192.0.2.7") == address_group("192.0.2.7") == "192.0.2.7"
    assert address_group("?") == "?"
    links = LinkCodes()
    said = [links.redeem("AAAA-AAAA", address_group(f"2001:db8:1:2::{n:x}")) for n in range(LINK_TRIES_PER_MINUTE + 1)]
    assert said[-1] == "too many tries from your address; wait a minute" and said[0] != said[-1]


def v1_header6(source: str, port: int) -> bytes:
    return f"PROXY TCP6 {source} ::1 {port} 2222\r\n".encode()


async def test_an_ipv6_64_is_one_address_for_the_rate_limit(tmp_path):
    """Finding 3: new addresses in one /64 are one address to the limits (here the rate limit, as the balancer
    names them)."""
    import asyncssh
    from test_proxy_protocol import connect_through

    server = await asyncio.to_thread(Server, tmp_path / "data", "--open", "--cold", "--rate-limit", "2",
                                     "--proxy-protocol", "--trust-proxy", "127.0.0.1/32")
    try:
        outcomes = []
        for host in ("2001:db8:1:2::1", "2001:db8:1:2::2", "2001:db8:1:2:ffff::3", "2001:db8:1:3::1"):
            try:
                conn = await asyncio.wait_for(connect_through(server.port, v1_header6(host, 5000)), 60)
                conn.close()
                await conn.wait_closed()
                outcomes.append("in")
            except asyncssh.DisconnectError as refusal:
                outcomes.append(refusal.reason)
        assert outcomes[:2] == ["in", "in"] and outcomes[3] == "in"
        assert "too many connections" in outcomes[2]
    finally:
        await asyncio.to_thread(server.kill)


# --- 4. a seat is a game ---------------------------------------------------------------------------------------

async def test_one_connection_cannot_run_more_games_than_the_server_has_seats(tmp_path):
    """Finding 4: with --max-sessions 1, one SSH connection ran three games; now its second is refused, and
    once its game has ended another player is served."""
    server = await asyncio.to_thread(Server, tmp_path / "data", "--open", "--cold", "--max-sessions", "1")
    try:
        conn, _process, screen = await open_game(server, "hog")
        await screen.wait_for("8-puzzle")
        for _ in range(2):
            more = await conn.create_process(term_type="xterm-256color", term_size=(100, 30), encoding=None)
            said = await asyncio.wait_for(more.stdout.read(), 60)
            assert b"the Koma server is full (1 games)" in said
        assert len(started_pids(server)) == 1
        conn.close()
        await conn.wait_closed()
        await asyncio.to_thread(wait_all_gone, server)
        conn, _process, screen = await open_game(server, "next")
        await screen.wait_for("8-puzzle")
        conn.close()
    finally:
        await asyncio.to_thread(server.kill)


# --- 10. files and secrets -------------------------------------------------------------------------------------

def mode(path) -> int:
    return path.stat().st_mode & 0o777


@pytest.mark.parametrize("length", [16, 64], ids=["short", "long"])
def test_a_cookie_key_others_can_read_is_made_private(tmp_path, length):
    """Finding 10: a short web_cookie_key at 0644 was rewritten and stayed 0644; a long one was used silently."""
    import os

    data = tmp_path / "data"
    data.mkdir()
    key = data / "web_cookie_key"
    key.write_bytes(os.urandom(length))
    key.chmod(0o644)
    server = WebServer(data, "--open", "--cold")
    try:
        assert mode(key) == 0o600
        if length == 64:
            server.wait_for_log(r"web_cookie_key was readable by others \(mode 0644\); made it 0600")
    finally:
        server.stop()


async def test_what_a_server_writes_is_its_users_alone(tmp_path):
    """Finding 10: koma.db, the data and outbox directories were world-readable; the host key at 0644 is fixed
    with one line."""
    from tui.server.ssh.host_key import host_key

    data = tmp_path / "data"
    key = tmp_path / "host_key"
    host_key(key)
    key.chmod(0o644)
    server = await asyncio.to_thread(Server, data, "--open", "--cold", "--host-key", str(key))
    try:
        conn, _process, screen = await open_game(server, "ann")
        await screen.wait_for("8-puzzle")
        conn.close()
        await asyncio.to_thread(wait_all_gone, server)
        assert "host_key was readable by others (mode 0644); made it 0600" in server.text()
        written = [data, *data.rglob("*")]
        assert any(p.name == "koma.db" for p in written)
        lax = [f"{p} {mode(p):04o}" for p in written if mode(p) & 0o077]
        assert not lax
    finally:
        await asyncio.to_thread(server.kill)


def test_a_password_in_the_database_urls_query_never_reaches_the_log_or_a_player(tmp_path):
    import subprocess

    from serve_helpers import KOMA

    from tui.storage.stores import for_player, redacted

    url = "postgresql://koma@127.0.0.1:1/koma?password=s3cret&connect_timeout=2&sslpassword=hush"
    assert "s3cret" not in redacted(url) and "hush" not in redacted(url) and "connect_timeout=2" in redacted(url)
    said = for_player(f"Cannot use the database {redacted(url)} (refused); the outbox at /var/lib/koma/outbox")
    assert "/var/lib" not in said and "127.0.0.1" not in said and said.endswith("the outbox at outbox")
    result = subprocess.run([KOMA, "serve", "--open", "--port", "0", "--database", url], capture_output=True,
                            text=True, timeout=60, env={"PATH": "/usr/bin:/bin", "KOMA_DATA_DIR": str(tmp_path)})
    assert result.returncode == 2 and "s3cret" not in result.stderr and "hush" not in result.stderr
    assert "password=***" in result.stderr


# --- 9. a WebSocket's input is bounded in bytes ----------------------------------------------------------------

def peak_rss_kib(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1))


async def test_a_flood_of_big_input_messages_does_not_grow_the_server(tmp_path):
    """Finding 9: one socket's input queue (256 messages of up to 64 KiB) took koma web from 70 to 88 MiB; now
    what waits for the game is bounded in bytes, and the socket is not read past it."""
    import json

    from web_helpers import Browser

    server = await asyncio.to_thread(WebServer, tmp_path / "data", "--open", "--cold")
    browser = Browser(server)
    try:
        await browser.load()
        ws = await browser.connect()
        await browser.wait_for("8-puzzle")
        before = peak_rss_kib(server.process.pid)
        message = json.dumps(["stdin", "z" * 60_000])  # 60 KB of keys, which the game takes one by one

        async def flood() -> None:
            for _ in range(256):
                await ws.send_str(message)

        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(flood(), 20.0)  # the server stops reading: the client's sends stall
        grown = peak_rss_kib(server.process.pid) - before
        assert grown < 8 * 1024, f"koma web grew by {grown} KiB"
    finally:
        await browser.close()
        await asyncio.to_thread(server.kill)


# --- 5. koma web: a deadline to ask, and a cap on connections per address -----------------------------------------

def closed_within(sock: socket.socket, seconds: float) -> float | None:
    """Seconds until the server closed ``sock`` (reading and dropping what it sent), or None if it did not."""
    began = time.monotonic()
    sock.settimeout(0.2)
    while time.monotonic() - began < seconds:
        try:
            if sock.recv(65536) == b"":
                return time.monotonic() - began
        except TimeoutError:
            continue
        except ConnectionResetError:
            return time.monotonic() - began
    return None


def test_silent_half_sent_trickled_and_idle_http_connections_are_closed(tmp_path):
    """Finding 5: a silent socket, a half-sent request and a header trickled every second all stayed open; now
    each is closed once --request-timeout has passed without a whole request, while a page still loads."""
    server = WebServer(tmp_path / "data", "--open", "--cold", "--request-timeout", "3")
    opened = []
    try:
        silent, half, trickled, idle = (socket.create_connection(("127.0.0.1", server.port), timeout=10)
                                        for _ in range(4))
        opened += [silent, half, trickled, idle]
        half.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        idle.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")  # answered, then kept alive, idle
        began = time.monotonic()
        trickled.sendall(b"GET / HTTP/1.1\r\n")
        for n in range(12):
            time.sleep(1.0)  # the trickle's pace (not a wait for a condition)
            try:
                trickled.sendall(f"X-Slow-{n}: 1\r\n".encode())
            except OSError:
                break
        assert closed_within(trickled, 1.0) is not None and time.monotonic() - began < 9.0
        for sock in (silent, half, idle):
            assert closed_within(sock, 10.0) is not None
        assert raw_request(server.port, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").startswith(
            b"HTTP/1.1 200")
    finally:
        for sock in opened:
            sock.close()
        server.stop()


def test_one_address_cannot_hold_more_http_connections_than_its_cap(tmp_path):
    """Finding 5: plain HTTP connections had no per-address cap."""
    server = WebServer(tmp_path / "data", "--open", "--cold", "--max-http-per-address", "4")
    opened = []
    try:
        opened = [socket.create_connection(("127.0.0.1", server.port), timeout=10) for _ in range(4)]
        time.sleep(0.5)  # the server registers them as it accepts them (there is no event to wait on from outside)
        extra = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        opened.append(extra)
        assert closed_within(extra, 10.0) is not None
        assert all(closed_within(sock, 0.5) is None for sock in opened[:4])
        for sock in opened[:4]:
            sock.close()
        deadline = time.monotonic() + 30
        while True:  # once they are gone, the address is served again
            try:
                answer = raw_request(server.port, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", 5)
            except ConnectionResetError:  # not yet: the server has not seen them go
                answer = b""
            if answer.startswith(b"HTTP/1.1 200") or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert answer.startswith(b"HTTP/1.1 200")
    finally:
        for sock in opened:
            sock.close()
        server.stop()
