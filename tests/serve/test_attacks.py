"""Issue 36's attacks on ``koma serve`` and ``koma web``, each through a real client on loopback (asyncssh, raw
sockets, aiohttp): every one must fail, and a normal player must be served after it."""

from __future__ import annotations

import asyncio
import re
import time

import pytest
from serve_helpers import HAVE_ASYNCSSH, Server
from test_hostile import alive, open_game

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


def wait_all_gone(server: Server, timeout: float = GONE_SECONDS) -> None:
    """Every game the server started has ended (its process gone, its end logged)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pids = started_pids(server)
        running = [pid for pid in pids if alive(pid)] + server.game_pids()
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
