"""Issue 36's attacks on ``koma serve`` and ``koma web``, each through a real client on loopback (asyncssh, raw
sockets, aiohttp): every one must fail, and a normal player must be served after it."""

from __future__ import annotations

import asyncio
import contextlib
import os
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
    from tui.server.proxy_protocol import address_group

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
    key = data / "web_cookie_key"  # where an earlier Koma kept it: it is moved beside the data dir
    key.write_bytes(os.urandom(length))
    key.chmod(0o644)
    server = WebServer(data, "--open", "--cold")
    try:
        moved = tmp_path / "data-keys" / "web_cookie_key"
        assert not key.exists() and mode(moved) == 0o600
        if length == 64:
            server.wait_for_log(r"web_cookie_key was readable by others \(mode 0644\); made it 0600")
            server.wait_for_log(r"moved the key .*data/web_cookie_key to .*data-keys/web_cookie_key")
    finally:
        server.stop()


@pytest.mark.parametrize("cold", [False, True], ids=["warm", "cold"])
async def test_games_are_kept_from_the_servers_keys(tmp_path, cold):
    """Finding 10: games run as the server's user and could read the host key, kept among their saves.  The key
    now lives beside the data dir (one left in it is moved, and keeps its fingerprint), and every game, forked
    warm or started cold, is Landlocked away from it (tests/serve/test_sandbox.py checks what that refuses)."""
    from tui.server.sandbox import landlock_abi
    from tui.server.ssh.host_key import host_key

    if landlock_abi() < 1:
        pytest.skip("this kernel has no Landlock")
    data = tmp_path / "data"
    old = data / "ssh_host_ed25519_key"
    fingerprint = host_key(old).get_fingerprint("sha256")
    server = await asyncio.to_thread(Server, data, "--open", *(["--cold"] if cold else []))
    try:
        moved = tmp_path / "data-keys" / "ssh_host_ed25519_key"
        assert not old.exists() and mode(moved) == 0o600 and fingerprint in server.text()
        conn, _process, screen = await open_game(server, "kim")
        await screen.wait_for("8-puzzle")
        pid = server.game_pid("kim")
        assert re.search(rf"game started \(pid {pid}, .*\) {'cold' if cold else 'warm'}", server.text())
        assert re.search(r"NoNewPrivs:\s+1", Path(f"/proc/{pid}/status").read_text())  # set just before Landlock
        assert "not sandboxed" not in server.text()
        conn.close()
        await asyncio.to_thread(wait_all_gone, server)
    finally:
        await asyncio.to_thread(server.kill)


def password_role(postgres_server) -> tuple[str, str, str]:
    """A role that must give its password over TCP (SCRAM) and a database it owns: (role, password, database).
    The role is named after this process's OS user, so that peer authentication on a Unix socket knows it."""
    import pwd
    import uuid

    import psycopg

    role, password = pwd.getpwuid(os.geteuid()).pw_name, f"pw-{uuid.uuid4().hex}"
    database = f"koma_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(postgres_server.url(), autocommit=True) as admin:
        exists = admin.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone()
        admin.execute(f"{'ALTER' if exists else 'CREATE'} ROLE \"{role}\" LOGIN PASSWORD '{password}'")
        admin.execute(f"CREATE DATABASE {database} OWNER \"{role}\"")
        hba = postgres_server.data / "pg_hba.conf"
        rule = f"host all {role} 127.0.0.1/32 scram-sha-256\n"
        if not hba.read_text().startswith(rule):
            hba.write_text(rule + hba.read_text())
            admin.execute("SELECT pg_reload_conf()")
    deadline = time.monotonic() + 30
    while True:  # the reload is asynchronous: wait until TCP asks this role for its password
        try:
            psycopg.connect(f"postgresql://{role}@127.0.0.1:{postgres_server.port}/{database}", password="",
                            connect_timeout=5).close()
        except psycopg.OperationalError:
            return role, password, database
        assert time.monotonic() < deadline, "PostgreSQL did not take the new pg_hba.conf"
        time.sleep(0.1)


def play_and_check_no_password(server: Server, player: str, password: str, postgres_server, database: str) -> None:
    """A player opens a game, which reaches the database; no game, nor the warm process, holds ``password``."""
    import psycopg

    async def play() -> int:
        conn, _process, screen = await open_game(server, player)
        await screen.wait_for("8-puzzle")
        pid = server.game_pid(player)
        conn.close()
        return pid

    pid = asyncio.run(play())
    with psycopg.connect(postgres_server.url(database=database), autocommit=True) as reader:
        deadline = time.monotonic() + 60
        while not reader.execute("SELECT 1 FROM players WHERE player = %s", (f"user:{player}",)).fetchone():
            assert time.monotonic() < deadline, "the game did not reach the database"
            time.sleep(0.1)
    for process in (pid, server.warm_pid()):
        for part in ("environ", "cmdline"):
            with contextlib.suppress(FileNotFoundError, ProcessLookupError):
                assert password.encode() not in Path(f"/proc/{process}/{part}").read_bytes()
    assert password not in server.text()


def test_games_never_hold_the_database_password(tmp_path, postgres_server):
    """Finding 10: every game was given the database URL, password and all, in its environment.  The server now
    gives games the URL without it, refuses to start (one line) when they could not log in without it, and
    serves when the server's user is let in without a password (here on PostgreSQL's Unix socket)."""
    import subprocess

    from serve_helpers import KOMA

    role, password, database = password_role(postgres_server)
    tcp = f"postgresql://{role}:{password}@127.0.0.1:{postgres_server.port}/{database}"
    refused = subprocess.run([KOMA, "serve", "--open", "--port", "0", "--database", tcp], capture_output=True,
                             text=True, timeout=120, env={"PATH": "/usr/bin:/bin", "KOMA_DATA_DIR": str(tmp_path / "a")})
    assert refused.returncode == 2 and password not in refused.stderr + refused.stdout
    assert len(refused.stderr.strip().splitlines()) == 1 and "a game never holds it" in refused.stderr

    socket_url = f"postgresql://{role}:{password}@/{database}?host={postgres_server.root}&port={postgres_server.port}"
    server = Server(tmp_path / "b", "--open", "--database", socket_url)
    try:
        play_and_check_no_password(server, "pat", password, postgres_server, database)
    finally:
        server.kill()


def test_deploys_pgbouncer_lets_koma_in_by_its_os_user_with_no_password_anywhere(tmp_path, postgres_server):
    """deploy/: PgBouncer with deploy/pgbouncer_hba.conf (peer on its Unix socket) holds the only copy of the
    password (its auth_file), which it gives PostgreSQL; koma serve is given a URL with none, and its games play."""
    from postgres_server import PGBOUNCER, PgBouncer

    if not os.path.exists(PGBOUNCER):
        pytest.skip("PgBouncer is not installed (CI installs the Debian package pgbouncer)")
    role, password, database = password_role(postgres_server)
    rules = []
    for line in (Path(__file__).resolve().parents[2] / "deploy" / "pgbouncer_hba.conf").read_text().splitlines():
        fields = line.split()
        if fields and not line.startswith("#"):
            kind, db, user, method = fields
            rules.append(f"{kind} {database if db == 'koma' else db} {role if user == 'koma' else user} {method}")
    assert any(rule.endswith(" peer") for rule in rules) and not any(rule.startswith("host") for rule in rules)
    bouncer = PgBouncer(postgres_server, users=f'"{role}" "{password}"\n', files={"hba.conf": "\n".join(rules) + "\n"},
                        settings={"auth_type": "hba", "auth_hba_file": "{root}/hba.conf", "unix_socket_dir": "{root}",
                                  "admin_users": role, "stats_users": role})
    try:
        server = Server(tmp_path / "data", "--open", "--database",
                        f"postgresql://{role}@/{database}?host={bouncer.root}&port={bouncer.port}")
        try:
            play_and_check_no_password(server, "quinn", password, postgres_server, database)
        finally:
            server.kill()
    finally:
        bouncer.stop()


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
