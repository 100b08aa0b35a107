"""``koma web`` over real WebSockets: a real server on loopback, aiohttp's client as the browser.

The page and its files, a game played (home, the 8-puzzle, moves, a resize), a reload that finds the same game,
a browser that never comes back (hung up after the reconnect window), and the refusals: a wrong or missing
origin, a bad cookie, a giant frame, too many sockets from one address, half-open sockets; and, with the admin
listener, the games in the metrics (``transport="web"``) and the SIGTERM drain.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import re
import signal
import socket
import struct
import subprocess
import termios
import time

import pytest

pytest.importorskip("aiohttp")
pytest.importorskip("asyncssh")

import aiohttp
from admin_helpers import get, samples, value, wait_until
from web_helpers import SCREEN_SECONDS, Browser, WebServer

from tui.server.web.identity import Identities


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("web")
    running = WebServer(folder / "data", "--open", "--reconnect-seconds", "4", "--max-per-address", "4",
                        "--rate-limit", "0", "--max-sessions-per-player", "0")
    yield running
    assert running.stop() == 0
    assert "Traceback" not in running.text()


def game_pid(server: WebServer, player: str, count: int = 1) -> int:
    return int(server.wait_for_log(rf"player {player}: game started \(pid (\d+)", SCREEN_SECONDS, count).group(1))


def window_of(pid: int) -> tuple[int, int]:
    """The game's terminal size (rows, columns), read from its pty."""
    descriptor = os.open(f"/proc/{pid}/fd/0", os.O_RDONLY | os.O_NOCTTY)
    try:
        rows, columns, _, _ = struct.unpack("HHHH", fcntl.ioctl(descriptor, termios.TIOCGWINSZ, b"\0" * 8))
    finally:
        os.close(descriptor)
    return rows, columns


async def until(condition, timeout: float = SCREEN_SECONDS, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"never: {what}"
        await asyncio.sleep(0.05)


async def test_the_page_its_files_and_a_guest_cookie(server):
    browser = Browser(server)
    try:
        page = await browser.load()
        assert page.status == 200
        assert "default-src 'self'" in page.headers["Content-Security-Policy"]
        assert page.headers["Server"] == "Koma"  # no Python or aiohttp version for an attacker to look up
        body = await (await browser.http.get(server.url)).text()
        assert "<noscript>" in body and 'src="xterm/textual.js"' in body and "http" not in body.split("<body>")[0]
        assert browser.player.startswith("web:")
        for path, kind in (("xterm/textual.js", "javascript"), ("xterm/xterm.css", "css"), ("static/koma.js", "javascript"),
                           ("xterm/fonts/RobotoMono-VariableFont_wght.ttf", "font")):
            async with browser.http.get(server.url + path) as response:
                assert response.status == 200 and kind in response.content_type, path
        for path in ("xterm/../web_cookie_key", "static/index.html", "static/nothing.js"):
            async with browser.http.get(server.url + path) as response:
                assert response.status == 404, path
        async with browser.http.get(server.url + "healthz") as response:
            assert response.status == 200
    finally:
        await browser.close()


async def test_no_answer_names_a_version(server):
    """Pages, refusals and answers to requests aiohttp cannot even parse: none names Python's or aiohttp's version."""
    answers = []
    for request in (b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", b"GET /xterm/none.js HTTP/1.1\r\nHost: x\r\n\r\n",
                    b"GET /ws HTTP/1.1\r\nHost: x\r\n\r\n", b"POST /link HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
                    b"GET / HTTP/1.1\r\nHost: x\r\nA header without a colon\r\n\r\n", b"BREW \x00 HTTP/9\r\n\r\n"):
        reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", server.port), SCREEN_SECONDS)
        try:
            writer.write(request)
            await writer.drain()
            head = await asyncio.wait_for(reader.read(4096), SCREEN_SECONDS)
        finally:
            writer.close()
        answers.append(head)
        assert head.startswith(b"HTTP/1."), head[:80]
        assert b"aiohttp" not in head.lower() and b"python" not in head.lower(), head.split(b"\r\n\r\n")[0]
    assert any(b"\r\nServer: Koma\r\n" in head for head in answers)


async def test_play_resize_reload_and_quit(server):
    browser = Browser(server)
    try:
        await browser.load()
        player = browser.player
        await browser.connect(80, 24)
        await browser.wait_for("8-puzzle")
        pid = game_pid(server, player)
        assert window_of(pid) == (24, 80)
        await browser.key("1")
        await browser.wait_for(r"Moves 0\b")
        assert await browser.move() == 1
        await browser.resize(100, 30)
        await until(lambda: window_of(pid) == (30, 100), what="the game's pty took the new size")
        # a reload: the socket goes, a new one with the same session token finds the same game, redrawn whole
        await browser.drop()
        await browser.connect(90, 28)
        await browser.wait_for(r"Moves 1\b")
        await server.log_says(rf"player {player}: back to its game")
        assert game_pid(server, player) == pid
        # the reconnect redraws with a row less, then the browser's size: the second resize may come after "Moves 1"
        await until(lambda: window_of(pid) == (28, 90), what="the game's pty took the reconnected browser's size")
        assert await browser.move() == 2
        await browser.key("q")
        assert await browser.closed() == 1000  # the game ended: a normal close
        await server.log_says(rf"player {player}: game ended \(status 0")
    finally:
        await browser.close()


async def test_a_browser_that_never_comes_back_is_hung_up(server):
    browser = Browser(server)
    try:
        await browser.load()
        await browser.connect()
        await browser.wait_for("8-puzzle")
        await browser.drop()
        await server.log_says(rf"player {browser.player}: the browser went; its game waits 4 s")
        await server.log_says(rf"player {browser.player}: game ended", SCREEN_SECONDS)
        # the token's game is gone: the same token now starts a new game
        await browser.connect()
        await browser.wait_for("8-puzzle")
        assert len(game_pids := [m for m in server.text().split("\n") if f"{browser.player}: game started" in m]) == 2, game_pids
        await browser.key("q")
        assert await browser.closed() == 1000
    finally:
        await browser.close()


async def test_refusals_cost_nothing_and_say_why(server):
    browser = Browser(server, origin="http://evil.example")
    try:
        await browser.load()
        for origin in ("http://evil.example", ""):
            browser.origin = origin
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await browser.connect()
            assert refused.value.status == 403
        async with browser.http.get(f"{server.url}ws?session={browser.token}",
                                    headers={"Origin": "http://evil.example", "Connection": "Upgrade",
                                             "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
                                             "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}) as response:
            assert response.status == 403 and "origin" in await response.text()
        await server.log_says(r"WebSocket refused \(refused: the page's origin \(http://evil\.example\)")
    finally:
        await browser.close()
    # a cookie that is not ours: no WebSocket, and the page makes the browser a new guest
    forged = Browser(server)
    try:
        other = Identities(b"k" * 32).sign("user:alice", "alice")
        forged.http.cookie_jar.update_cookies({"koma_player": other}, aiohttp.client.URL(server.url))
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await forged.connect()
        assert refused.value.status == 403
        await forged.load()
        assert forged.player.startswith("web:")
        await server.log_says("a player cookie that is not ours; a new guest")
    finally:
        await forged.close()


async def test_a_giant_frame_closes_the_socket(server):
    browser = Browser(server)
    try:
        await browser.load()
        ws = await browser.connect()
        await browser.wait_for("8-puzzle")
        await ws.send_str('["stdin", "' + "x" * 200_000 + '"]')
        assert await browser.closed() == 1009  # message too big
        await browser.connect()  # the game is still there for the same tab
        await browser.wait_for("8-puzzle")
        await browser.key("q")
        assert await browser.closed() == 1000
    finally:
        await browser.close()


async def test_caps_per_address_and_half_open_sockets(server):
    loop = asyncio.get_running_loop()
    idle = []
    for _ in range(200):  # half-open: connected, never a byte
        sock = socket.socket()
        sock.setblocking(False)
        await loop.sock_connect(sock, ("127.0.0.1", server.port))
        idle.append(sock)
    browsers = [Browser(server) for _ in range(5)]
    try:
        # past --max-http-per-address (32) they are closed at once, the rest once --request-timeout (15 s) is over
        began = time.monotonic()
        for sock in idle:
            while True:
                try:
                    if await asyncio.wait_for(loop.sock_recv(sock, 1), max(0.1, began + 60 - time.monotonic())) == b"":
                        break
                except ConnectionResetError:
                    break
        assert time.monotonic() - began < 40
        began = time.monotonic()
        await browsers[0].load()
        assert time.monotonic() - began < 30
        for browser in browsers[:4]:
            await browser.load()
            await browser.connect()
        for browser in browsers[:4]:
            await browser.wait_for("8-puzzle")
        await browsers[4].load()
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await browsers[4].connect()
        assert refused.value.status == 429
        await server.log_says(r"too many connections from 127\.0\.0\.1 \(4 at once\)")
        for browser in browsers[:4]:
            await browser.key("q")
        for browser in browsers[:4]:
            assert await browser.closed() == 1000
    finally:
        for sock in idle:
            sock.close()
        for browser in browsers:
            await browser.close()


async def test_link_only_admits_a_browser_linked_by_a_code_shown_over_ssh(tmp_path):
    from serve_helpers import SSH

    if not SSH:
        pytest.skip("no ssh client")
    server = WebServer(tmp_path / "data", "--link-only", "--ssh-port", "0", "--ssh-open", "--rate-limit", "0")
    browser = Browser(server)
    try:
        ssh_port = int(server.wait_for_log(r"koma web: listening on 127\.0\.0\.1:(\d+)").group(1))
        async with browser.http.get(server.url) as page:
            assert page.status == 200 and "One-time code" in await page.text() and "koma_player" not in page.cookies
        with pytest.raises(aiohttp.WSServerHandshakeError):
            await browser.connect()
        said = await asyncio.to_thread(
            subprocess.run, [SSH, "-p", str(ssh_port), "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                             "-o", "LogLevel=ERROR", "-o", "BatchMode=yes", "alice@127.0.0.1", "link"],
            capture_output=True, text=True, timeout=SCREEN_SECONDS)
        code = re.search(r"one-time code: ([A-Z0-9]{4}-[A-Z0-9]{4})", said.stdout)
        assert said.returncode == 0 and code, said
        origin = {"Origin": server.url.rstrip("/")}
        async with browser.http.post(server.url + "link", data={"code": code.group(1)}) as answer:
            assert answer.status == 403  # a form without an Origin is no page's: refused, and the code not spent
        async with browser.http.post(server.url + "link", data={"code": code.group(1)},
                                     headers={"Origin": "http://elsewhere.example"}) as answer:
            assert answer.status == 403
        async with browser.http.post(server.url + "link", data={"code": "WRNG-CODE"}, headers=origin) as answer:
            assert answer.status == 400 and "not valid" in await answer.text()
        async with browser.http.post(server.url + "link", data={"code": code.group(1).lower()}, headers=origin) as answer:
            assert answer.status == 200  # followed the redirect to the game's page
            assert "textual.js" in await answer.text()
        assert browser.player == "user:alice"
        await browser.connect()
        await browser.wait_for("8-puzzle")
        await server.log_says(r"player user:alice: game started")
        again = Browser(server)
        try:  # the code worked once
            async with again.http.post(server.url + "link", data={"code": code.group(1)}, headers=origin) as answer:
                assert answer.status == 400
        finally:
            await again.close()
        await browser.key("q")
        assert await browser.closed() == 1000
    finally:
        await browser.close()
        assert server.stop() == 0


async def test_web_games_count_in_the_metrics_and_sigterm_drains_them(tmp_path):
    """With ``--admin-port``, ``koma web``'s games are counted as ``koma serve``'s are, labelled ``transport="web"``;
    SIGTERM drains: not ready at once, newcomers refused, each player told (and playing on), then exit 0 once they
    have left, well within ``--drain-seconds``."""
    server = WebServer(tmp_path / "data", "--open", "--rate-limit", "0", "--admin-port", "0", "--drain-seconds", "120")
    admin = int(server.wait_for_log(r"admin listener at http://127\.0\.0\.1:(\d+)/").group(1))
    browsers = [Browser(server) for _ in range(3)]
    stranger = Browser(server, origin="http://evil.example")
    try:
        assert await asyncio.to_thread(get, admin, "/readyz") == (200, "ready\n")
        for browser in browsers[:2]:
            assert await browser.first_move() == 1
        await stranger.load()
        with pytest.raises(aiohttp.WSServerHandshakeError):
            await stranger.connect()
        left, stays = browsers[:2]
        await left.key("q")
        assert await left.closed() == 1000

        def counted():
            found = samples(admin)
            ended = value(found, "koma_games_ended_total", transport="web") >= 1
            return found if ended and value(found, "koma_sessions", transport="web") == 1 else None

        found = await asyncio.to_thread(wait_until, counted, SCREEN_SECONDS, "the ended game in the metrics")
        assert value(found, "koma_games_started_total", transport="web", how="warm") == 2
        assert value(found, "koma_games_started_total", transport="ssh") == 0
        assert value(found, "koma_games_ended_total", transport="web", how="quit") == 1
        assert value(found, "koma_sessions", transport="web", phase="playing") == 1
        assert value(found, "koma_sessions", transport="ssh") == 0
        assert value(found, "koma_home_seconds_count", transport="web") == 2
        assert value(found, "koma_key_seconds_count", transport="web") >= 4  # "1", then one or two moves each
        assert value(found, "koma_game_screens", transport="web", screen="play") == 1
        assert value(found, "koma_refusals_total", transport="web", reason="origin") == 1

        server.process.send_signal(signal.SIGTERM)
        status, body = await asyncio.to_thread(
            wait_until, lambda: (answer := get(admin, "/readyz"))[0] != 200 and answer, 30, "/readyz failing")
        assert status == 503 and "draining" in body
        async with browsers[2].http.get(server.url + "healthz") as response:
            assert response.status == 503
        await browsers[2].load()
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:  # a newcomer goes elsewhere
            await browsers[2].connect()
        assert refused.value.status == 503
        await stays.wait_for("restarting")  # told, and still playing
        assert await stays.move() == 2
        await stays.key("q")
        assert await stays.closed() == 1000
        assert await asyncio.to_thread(server.process.wait, 60) == 0  # everyone left: no need to wait the 120 s
        server.handle.close()
        assert re.search(r"drained in [\d.]+ s; 0 game\(s\) left", server.text()), server.text()[-3000:]
        assert "Traceback" not in server.text()
    finally:
        for browser in [*browsers, stranger]:
            await browser.close()
        server.kill()
