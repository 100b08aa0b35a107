"""The warm pool of ``koma serve``: games forked from the warm process, with their own terminal, session,
limits and player; a dead warm process is replaced while games start cold; ``--cold`` keeps the old path."""

from __future__ import annotations

import contextlib
import os
import re
import signal
from pathlib import Path

import pytest
from serve_helpers import HAVE_ASYNCSSH, SSH, TMUX, Client, Server, moves_on, play_a_move, quit_all

pytestmark = [
    pytest.mark.skipif(not HAVE_ASYNCSSH, reason="asyncssh is not installed (pip install -e '.[ssh]')"),
    pytest.mark.skipif(SSH is None, reason="the OpenSSH client (ssh) is not installed; CI installs openssh-client"),
    pytest.mark.skipif(TMUX is None, reason="tmux is not installed (CI installs it)"),
]


def limits_of(pid: int) -> dict[str, tuple[str, str]]:
    out = {}
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines()[1:]:
        name, soft, hard = re.split(r"\s{2,}", line.strip())[:3]
        out[name] = (soft, hard)
    return out


def sockets_of(pid: int) -> set[str]:
    found = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:"):
            found.add(target)
    return found


def test_a_game_is_forked_warm_on_its_own_terminal_session_and_limits(tmp_path):
    server = Server(tmp_path / "data", "--open", "--rate-limit", "0", "--cpu-limit", "300", "--memory-limit", "3500")
    client = Client(server, "wes", tmp_path)
    try:
        zygote = server.warm_pid()
        client.wait_for("8-puzzle")
        assert server.wait_for_log(r"player user:wes: game started \(pid \d+, \S+ 100x30\) warm")
        game = server.game_pid("wes")
        status = dict(line.split(":\t", 1) for line in Path(f"/proc/{game}/status").read_text().splitlines())
        assert int(status["PPid"]) == zygote  # forked, not started afresh
        assert os.getsid(game) == game and os.getpgid(game) == game  # a session of its own
        assert os.readlink(f"/proc/{game}/fd/0").startswith("/dev/pts/")
        assert int(Path(f"/proc/{game}/stat").read_text().rsplit(")", 1)[1].split()[4]) != 0  # a controlling tty
        limits = limits_of(game)
        assert limits["Max cpu time"] == ("300", "305")
        assert limits["Max address space"] == (str(3500 * 2**20), str(3500 * 2**20))
        assert limits["Max core file size"] == ("0", "0")
        assert not sockets_of(game) & sockets_of(zygote)  # the warm process's channel is closed in the game
        client.keys("1")
        played = play_a_move(client)
        client.keys("q")
        assert client.exit_status() == 0
        assert server.wait_for_log(r"player user:wes: game ended \(status 0")
        assert server.stop() == 0
    finally:
        client.close()
        server.kill()
    from tui.storage.store import Store

    saved = Store(tmp_path / "data" / "koma.db", player="user:wes").load_game("8")  # the player's identity reached it
    assert saved is not None and saved.position == played
    assert Store(tmp_path / "data" / "koma.db", player="user:other").load_game("8") is None


def test_forked_games_draw_different_random_boards(tmp_path):
    from tui.storage.store import Store

    server = Server(tmp_path / "data", "--open", "--rate-limit", "0")
    players = ("rho", "sig", "tau")
    clients = [Client(server, name, tmp_path) for name in players]
    try:
        for client in clients:
            client.wait_for("8-puzzle")
            client.keys("1")
            client.wait_for(r"Moves 0")
        quit_all(server, *clients)
    finally:
        for client in clients:
            client.close()
        server.kill()
    starts = {Store(tmp_path / "data" / "koma.db", player=f"user:{name}").load_game("8").start for name in players}
    assert len(starts) == 3  # each child draws from its own seed, not from the warm process's copied state


def test_a_dead_warm_process_is_replaced_and_games_meanwhile_start_cold(tmp_path):
    server = Server(tmp_path / "data", "--open", "--rate-limit", "0")
    clients = []
    try:
        first = Client(server, "amy", tmp_path)
        clients.append(first)
        first.wait_for("8-puzzle")
        first.keys("1")
        before = play_a_move(first)
        os.kill(server.warm_pid(), signal.SIGKILL)
        server.wait_for_log(r"the warm process is gone")
        during = Client(server, "bob", tmp_path)  # served at once, cold or by the new warm process
        clients.append(during)
        during.wait_for("8-puzzle", timeout=120)
        server.warm_pid(count=2)
        after = Client(server, "cat", tmp_path)
        clients.append(after)
        after.wait_for("8-puzzle")
        assert server.wait_for_log(r"player user:cat: game started \(pid \d+, [^)]*\) warm")
        first.keys("u")  # amy's game, forked by the dead warm process, goes on
        first.wait_for(f"Moves {before - 1}\\b")
        first.keys("q")
        assert first.exit_status() == 0  # its exit status still reached the server (it reaps orphans)
        assert server.wait_for_log(r"player user:amy: game ended \(status 0")
        assert server.stop() == 0
    finally:
        for client in clients:
            client.close()
        server.kill()


def test_cold_keeps_the_fresh_process_path(tmp_path):
    server = Server(tmp_path / "data", "--open", "--rate-limit", "0", "--cold")
    client = Client(server, "old", tmp_path)
    try:
        client.wait_for("8-puzzle")
        assert server.wait_for_log(r"player user:old: game started \(pid \d+, [^)]*\) cold")
        assert "warm process" not in server.text()
        client.keys("1")
        assert moves_on(client.wait_for(r"Moves \d+")) == 0
        quit_all(server, client)
    finally:
        client.close()
        server.kill()


def test_a_hung_warm_process_is_replaced_and_the_player_still_gets_a_game(tmp_path):
    server = Server(tmp_path / "data", "--open", "--rate-limit", "0")
    zygote = server.warm_pid()
    os.kill(zygote, signal.SIGSTOP)  # hung: it never answers
    client = Client(server, "hal", tmp_path)
    try:
        client.wait_for("8-puzzle")  # started cold once the request timed out
        assert server.wait_for_log(r"the warm process did not answer")
        assert server.wait_for_log(r"player user:hal: game started \(pid \d+, [^)]*\) cold")
        assert server.warm_pid(count=2) != zygote
        quit_all(server, client)
    finally:
        client.close()
        server.kill()
        try:
            os.kill(zygote, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_a_player_who_arrives_while_the_warm_process_warms_up_waits_for_it(tmp_path):
    """Issue 37: a player who arrives before the warm process is ready is told so and gets a game forked from it
    once it is, rather than a cold start (seconds of CPU).  The warm process is held (SIGSTOP) until the player
    has been told, so the order is certain."""
    import asyncio
    import time

    from serve_helpers import KOMA, LoggedServer, descendants
    from test_hostile import open_game

    server = LoggedServer([KOMA, "serve", "--host", "127.0.0.1", "--port", "0", "--open", "--rate-limit", "0"],
                          tmp_path / "data", "serve.log")
    zygote = 0
    try:
        server.port = int(server.wait_for_log(r"listening on 127\.0\.0\.1:(\d+)", 60).group(1))
        deadline = time.monotonic() + 60
        while not zygote:
            zygote = next((pid for pid in descendants(server.process.pid)
                           if b"tui.zygote" in Path(f"/proc/{pid}/cmdline").read_bytes()), 0)
            assert time.monotonic() < deadline, "no warm process started"
            time.sleep(0.01)
        os.kill(zygote, signal.SIGSTOP)
        assert "warm process ready" not in server.text()

        async def arrive() -> None:
            conn, _process, screen = await open_game(server, "early")
            try:
                await screen.wait_for("Koma is warming up")
                os.kill(zygote, signal.SIGCONT)
                await screen.wait_for("8-puzzle", timeout=180)
            finally:
                conn.close()

        asyncio.run(arrive())
        assert server.wait_for_log(r"player user:early: game started \(pid \d+, [^)]*\) warm")
        assert "cold" not in server.text()
    finally:
        if zygote:
            with contextlib.suppress(ProcessLookupError):
                os.kill(zygote, signal.SIGCONT)
        server.kill()


def test_on_an_empty_kernel_cache_the_warm_process_serves_at_once_and_the_kernels_compile_beside(tmp_path):
    """Issue 37: on a fresh install the warm process does not compile the puzzles' kernels (seconds of CPU) before it
    serves: two processes beside it compile them (the 15-puzzle's search; its table), a game that needs one meanwhile
    gets it from there (or compiles it under its lock, never twice), and once they are in the cache the warm process
    loads them for the games it forks next.  The compilers are held (SIGSTOP) until the warm process says it is ready,
    so the order is certain."""
    import asyncio
    import time

    from serve_helpers import KOMA, LoggedServer
    from test_hostile import open_game

    kernels = tmp_path / "numba"
    server = LoggedServer([KOMA, "serve", "--host", "127.0.0.1", "--port", "0", "--open", "--rate-limit", "0"],
                          tmp_path / "data", "serve.log", env={"NUMBA_CACHE_DIR": str(kernels)})
    compilers: list[int] = []
    try:
        server.port = int(server.wait_for_log(r"listening on 127\.0\.0\.1:(\d+)", 60).group(1))
        found = server.wait_for_log(r"the kernels are not in the cache yet: processes (\d+), (\d+) compile them", 60)
        compilers = [int(pid) for pid in found.groups()]
        deadline = time.monotonic() + 60
        for pid in compilers:  # forked, then started afresh (exec): hold each once it is the compiler
            while b"solver.tools.warm" not in Path(f"/proc/{pid}/cmdline").read_bytes():
                assert time.monotonic() < deadline, "a process beside never started its compiler"
                time.sleep(0.01)
            os.kill(pid, signal.SIGSTOP)
        server.wait_for_log(r"warm process ready", 120)
        assert "compiler beside" not in server.text()
        parts = [Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0") for pid in compilers]
        assert [argv[argv.index(b"--part") + 1] for argv in parts] == [b"search", b"table"]
        for pid in compilers:
            os.kill(pid, signal.SIGCONT)

        async def play_fifteen(user: str) -> None:
            conn, process, screen = await open_game(server, user)
            try:
                await screen.wait_for("8-puzzle")
                process.stdin.write(b"2")
                await screen.wait_for("from solved", timeout=300)  # its optimal distance: a kernel's search
            finally:
                conn.close()

        asyncio.run(play_fifteen("early"))
        assert server.wait_for_log(r"player user:early: game started \(pid \d+, [^)]*\) warm")
        server.wait_for_log(r"the compiler beside compiled the kernels; loaded here", 300)
        assert list(kernels.glob("koma-warmed-*"))  # the next start loads them at once
        deadline = time.monotonic() + 30
        while any(Path(f"/proc/{pid}").exists() for pid in compilers):  # reaped by the warm process, no zombie
            assert time.monotonic() < deadline, "a compiler beside was never reaped"
            time.sleep(0.05)
        asyncio.run(play_fifteen("later"))
        assert "cold" not in server.text() and "could not warm" not in server.text()
    finally:
        for pid in compilers:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
        server.kill()
