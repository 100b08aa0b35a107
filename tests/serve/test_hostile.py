"""``koma serve`` against hostile or careless clients: vanished clients, idle sockets, bad fields, forged logs.

Every case runs through a real OpenSSH client (in tmux), or an asyncssh client where the case is what a
client does on the wire (an abort, a break or signal request, a field OpenSSH would not send).
"""

from __future__ import annotations

import asyncio
import copy
import os
import re
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest
from serve_helpers import HAVE_ASYNCSSH, SCREEN_SECONDS, SSH, TMUX, Client, Server

pytestmark = [
    pytest.mark.skipif(not HAVE_ASYNCSSH, reason="asyncssh is not installed (pip install -e '.[ssh]')"),
    pytest.mark.skipif(SSH is None, reason="the OpenSSH client (ssh) is not installed; CI installs openssh-client"),
]
needs_tmux = pytest.mark.skipif(TMUX is None, reason="tmux is not installed (CI installs it)")

# A vanished client's game is hung up at once; it has STOP_GRACE_SECONDS (5) to save before it is killed.
# The rest is room for a loaded 2-core box, and still far below the 30-minute idle timeout.
GONE_SECONDS = 40.0
# One of the two 15-puzzle boards 80 moves from the goal: a solve that keeps a core busy for long.
HARDEST_15 = "_ 12 9 13/15 11 10 14/3 7 2 5/4 8 6 1"
ANSI = re.compile(rb"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[PX^_][^\x1b]*\x1b\\|[@-Z\\-_])")


def ssh_pid(client: Client, timeout: float = 30.0) -> int:
    """The pid of the ``ssh`` process a tmux client runs."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pane = subprocess.run([TMUX, "list-panes", "-t", client.name, "-F", "#{pane_pid}"],
                              capture_output=True, text=True).stdout.split()
        if pane:
            found = subprocess.run(["pgrep", "-P", pane[0], "-x", "ssh"], capture_output=True, text=True).stdout.split()
            if found:
                return int(found[0])
        time.sleep(0.05)
    raise AssertionError(f"no ssh process in {client.name}")


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie does not: it has ended, and waits only to be reaped)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


def wait_until_gone(server: Server, pid: int, player: str, timeout: float = GONE_SECONDS) -> float:
    """Wait until game ``pid`` has ended and the server has logged it; the seconds that took."""
    began = time.monotonic()
    deadline = began + timeout
    while time.monotonic() < deadline and alive(pid):
        time.sleep(0.05)
    assert not alive(pid), f"game {pid} still runs {timeout:g} s after its client vanished:\n{server.text()[-3000:]}"
    server.wait_for_log(rf"player user:{re.escape(player)}: game ended", max(1.0, deadline - time.monotonic()))
    return time.monotonic() - began


def wait_for_absence(client: Client, text: str, timeout: float = SCREEN_SECONDS) -> None:
    deadline = time.monotonic() + timeout
    while text in client.screen():
        assert time.monotonic() < deadline, f"{text!r} stayed on the screen:\n{client.screen()}"
        time.sleep(0.05)


def kill_client(client: Client) -> None:
    os.kill(ssh_pid(client), signal.SIGKILL)


@pytest.fixture
def server(tmp_path):
    started = Server(tmp_path / "data", "--open", "--rate-limit", "0")
    yield started
    started.kill()


# --- 1. a vanished client's game ends at once ---------------------------------------------------------

@needs_tmux
def test_a_client_killed_at_home_ends_its_game(shared_server, tmp_path):
    server = shared_server
    client = Client(server, "vanish", tmp_path)
    try:
        client.wait_for("8-puzzle")
        pid = server.game_pid("vanish")
        kill_client(client)
        wait_until_gone(server, pid, "vanish")
    finally:
        client.close()


SLOW_START = """
import os, time
if os.environ.get("KOMA_SERVE") == "1" and os.environ.get("KOMA_PLAYER") == "user:starting":
    time.sleep(600)  # a game still starting when its client vanishes
"""


@needs_tmux
def test_a_client_killed_during_start_ends_its_game(tmp_path):
    """The game is held in its start-up by a sitecustomize module (cold: a forked game would not import it)."""
    (tmp_path / "slow").mkdir()
    (tmp_path / "slow" / "sitecustomize.py").write_text(SLOW_START)
    python_path = os.pathsep.join(p for p in (str(tmp_path / "slow"), os.environ.get("PYTHONPATH")) if p)
    server = Server(tmp_path / "data", "--open", "--cold", "--rate-limit", "0", env={"PYTHONPATH": python_path})
    client = Client(server, "starting", tmp_path)
    try:
        client.wait_for("Starting Koma")
        server.wait_for_log(r"player user:starting: game started")
        pid = server.game_pid("starting")
        assert alive(pid)
        kill_client(client)
        wait_until_gone(server, pid, "starting")
        assert server.stop() == 0
    finally:
        client.close()
        server.kill()


def seed_saved_game(data: Path, player: str, puzzle: str, board: str) -> None:
    """Give ``player`` a saved game in progress on ``board`` (what pressing the puzzle's key resumes)."""
    from tui.game.records import SavedGame
    from tui.storage.store import Store

    data.mkdir(parents=True, exist_ok=True)
    store = Store(data / "koma.db", player=f"user:{player}")
    try:
        store.save_game(puzzle, SavedGame(board))
    finally:
        store.close()


@needs_tmux
def test_a_client_killed_mid_solve_ends_its_game(shared_server, tmp_path):
    server = shared_server
    seed_saved_game(server.data_dir, "solver", "15", HARDEST_15)
    client = Client(server, "solver", tmp_path)
    try:
        client.wait_for("8-puzzle")
        client.keys("2")
        client.wait_for("Welcome back")
        client.keys("s")
        client.wait_for("Solving")
        pid = server.game_pid("solver")
        assert "Solved by Koma" not in client.screen()  # an 80-move board: the search goes on for long
        kill_client(client)
        wait_until_gone(server, pid, "solver")
    finally:
        client.close()


@needs_tmux
def test_three_vanished_clients_do_not_lock_their_player_out(tmp_path):
    server = Server(tmp_path / "data", "--open", "--rate-limit", "0", "--max-sessions-per-player", "3")
    clients = [Client(server, "trio", tmp_path) for _ in range(3)]
    try:
        for client in clients:
            client.wait_for("8-puzzle")
        pids = [int(p) for p in re.findall(r"player user:trio: game started \(pid (\d+)", server.text())]
        assert len(pids) == 3
        for client in clients:
            kill_client(client)
        for pid in pids:
            wait_until_gone(server, pid, "trio")
        again = Client(server, "trio", tmp_path)
        clients.append(again)
        again.wait_for("8-puzzle")
        assert "already have" not in server.text()
        again.keys("q")
        assert again.exit_status() == 0
        assert server.stop() == 0
    finally:
        for client in clients:
            client.close()
        server.kill()


class Screen:
    """What an asyncssh client's terminal has received, with the escape sequences taken out."""

    def __init__(self, process) -> None:
        self.process = process
        self.received = b""

    async def wait_for(self, text: str, timeout: float = SCREEN_SECONDS) -> None:
        deadline = time.monotonic() + timeout
        while text.encode() not in ANSI.sub(b"", self.received):
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{text!r} never came; received {ANSI.sub(b'', self.received)[-2000:]!r}")
            try:
                data = await asyncio.wait_for(self.process.stdout.read(65536), left)
            except TimeoutError:
                continue
            if not data:
                raise AssertionError(f"the session ended before {text!r} came; received {self.received[-2000:]!r}")
            self.received += data


async def open_game(server: Server, user: str, **options):
    import asyncssh

    conn = await asyncssh.connect("127.0.0.1", server.port, username=user, known_hosts=None, connect_timeout=60,
                                  **options)
    process = await conn.create_process(term_type="xterm-256color", term_size=(100, 30), encoding=None)
    return conn, process, Screen(process)


async def test_an_aborted_asyncssh_client_ends_its_game(shared_server):
    conn, _process, screen = await open_game(shared_server, "aborter")
    await screen.wait_for("8-puzzle")
    pid = shared_server.game_pid("aborter")
    conn.abort()  # the TCP connection closes with no SSH goodbye
    await asyncio.to_thread(wait_until_gone, shared_server, pid, "aborter")


async def test_break_and_signal_requests_are_ignored_and_keys_keep_flowing(shared_server):
    conn, process, screen = await open_game(shared_server, "breaker")
    try:
        await screen.wait_for("8-puzzle")
        pid = shared_server.game_pid("breaker")
        process.channel.send_break(500)
        for name in ("INT", "TERM", "KILL", "HUP", "bogus"):
            process.channel.send_signal(name)
        process.stdin.write(b"1")  # the 8-puzzle: the keys still reach the game
        await screen.wait_for("Moves")
        assert alive(pid)
        process.stdin.write(b"q")
        result = await asyncio.wait_for(process.wait(), SCREEN_SECONDS)
        assert result.exit_status == 0
    finally:
        conn.close()


class Relay:
    """A TCP relay to the server that can go silent (a network lost: nothing passes, nothing is closed)."""

    def __init__(self, port: int):
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.target = port
        self.silent = threading.Event()
        self.sockets: list[socket.socket] = []
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target))
            self.sockets += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self.pass_on, args=(source, sink), daemon=True).start()

    def pass_on(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                if self.silent.is_set():
                    continue  # dropped: the network is gone
                sink.sendall(data)
        except OSError:
            pass

    def close(self) -> None:
        self.listener.close()
        for sock in self.sockets:
            sock.close()


@needs_tmux
def test_a_client_whose_network_is_lost_has_its_game_ended_by_keepalives(tmp_path):
    server = Server(tmp_path / "data", "--open", "--rate-limit", "0", "--keepalive-interval", "1",
                    "--keepalive-count-max", "3")
    relay = Relay(server.port)
    through = copy.copy(server)
    through.port = relay.port
    client = Client(through, "lost", tmp_path)
    try:
        client.wait_for("8-puzzle")
        pid = server.game_pid("lost")
        relay.silent.set()
        wait_until_gone(server, pid, "lost")
        assert alive(ssh_pid(client))  # the client never said goodbye: the keepalives found it gone
        assert server.stop() == 0
    finally:
        client.close()
        relay.close()
        server.kill()


# --- 2. admission: only logged-in connections take a seat --------------------------------------------

def closed_within(sock: socket.socket, deadline: float) -> bool:
    """Whether the server closes ``sock`` before ``deadline`` (what it sends meanwhile is read and dropped)."""
    while time.monotonic() < deadline:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            if not sock.recv(65536):
                return True
        except (ConnectionResetError, BrokenPipeError):
            return True
        except TimeoutError:
            return False
    return False


@needs_tmux
def test_idle_sockets_that_never_log_in_take_no_seat_and_are_closed_after_the_grace_time(tmp_path):
    grace = 4.0
    server = Server(tmp_path / "data", "--open", "--rate-limit", "0", "--max-sessions", "2",
                    "--login-grace-time", f"{grace:g}")
    idle = []
    try:
        began = time.monotonic()
        idle = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(50)]
        server.wait_for_log(r"connected", count=20)  # then the log's throttle sums the rest up in one line
        server.wait_for_log(r"30 more connection\(s\) not logged")
        client = Client(server, "newcomer", tmp_path)  # the server has 2 seats and 50 sockets waiting
        try:
            client.wait_for("8-puzzle")
            deadline = began + grace + 30.0  # closed once their grace is over (some were dropped sooner)
            assert all(closed_within(sock, deadline) for sock in idle)
            assert "server is full" not in server.text()
            client.keys("q")
            assert client.exit_status() == 0
        finally:
            client.close()
        assert server.stop() == 0
    finally:
        for sock in idle:
            sock.close()
        server.kill()


@needs_tmux
def test_the_seats_are_the_logged_in_players(tmp_path):
    server = Server(tmp_path / "data", "--open", "--rate-limit", "0", "--max-sessions", "1")
    client = Client(server, "seated", tmp_path)
    try:
        client.wait_for("8-puzzle")
        result = subprocess.run(server.ssh("latecomer", "-tt"), capture_output=True, text=True,
                                stdin=subprocess.DEVNULL, timeout=120)
        assert result.returncode == 255 and "the Koma server is full (1 players)" in result.stderr
        client.keys("q")
        assert client.exit_status() == 0
        server.wait_for_log(r"player user:seated: game ended")
        again = Client(server, "latecomer", tmp_path)  # the seat is free again
        try:
            again.wait_for("8-puzzle")
        finally:
            again.close()
        assert server.stop() == 0
    finally:
        client.close()
        server.kill()


# --- 3. every field a client sends is bounded before anything is allocated ------------------------------

def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


@pytest.fixture(scope="module")
def shared_server(tmp_path_factory):
    """One server for the cases that leave it as they found it (each plays as players of its own, some ten short
    sessions): a server start is about 3 CPU-seconds.  It is checked to stop with status 0 after them all."""
    started = Server(tmp_path_factory.mktemp("hostile") / "data", "--open", "--rate-limit", "0",
                     "--max-sessions-per-player", "0")
    try:
        yield started
        assert started.stop() == 0
    finally:
        started.kill()


async def play_and_quit(server: Server, user: str, resize: tuple[int, int, int, int] | None = None, **options) -> None:
    """One session with a client's odd fields: it reaches the home screen, (resizes,) quits with status 0."""
    import asyncssh

    async with asyncssh.connect("127.0.0.1", server.port, username=user, known_hosts=None,
                                connect_timeout=60) as conn:
        process = await conn.create_process(encoding=None, **{"term_type": "xterm-256color", "term_size": (100, 30),
                                                               **options})
        screen = Screen(process)
        await screen.wait_for("8-puzzle")
        if resize is not None:
            process.change_terminal_size(*resize)
            process.stdin.write(b"1")  # the game still takes keys after the window change
            await screen.wait_for("Moves")
        process.stdin.write(b"q")
        result = await asyncio.wait_for(process.wait(), SCREEN_SECONDS)
        assert result.exit_status == 0, ANSI.sub(b"", screen.received)[-2000:]
        assert b"Traceback" not in screen.received


BAD_FIELDS = {
    "a 70 KB TERM": dict(term_type="x" * 70_000),
    "a TERM with a newline": dict(term_type="xterm\nkoma serve: forged"),
    "a TERM with an ESC": dict(term_type="xterm\x1b[31m"),
    "a TERM with a NUL": dict(term_type="xterm\x00"),
    "pixel sizes over 65535 at the start": dict(term_size=(100, 30, 70_000, 4_294_967_295)),
    "pixel sizes over 65535 in a window change": dict(resize=(100, 30, 70_000, 4_294_967_295)),
    "cell sizes of 2**32 - 1": dict(term_size=(4_294_967_295, 4_294_967_295)),
    "a flood of environment variables": dict(env={f"KOMA_{k}": "x" * 30_000 for k in range(300)}),
}


@pytest.mark.parametrize("case", list(BAD_FIELDS))
async def test_a_bad_field_gets_a_game_and_leaks_no_descriptor(shared_server, case):
    server = shared_server
    user = re.sub(r"\W", "", case.split()[1] + case.split()[-1])
    warmups = server.text().count("user:warmup: game ended") + 1
    await play_and_quit(server, "warmup")  # whatever the server opens once is open before we count
    await asyncio.to_thread(server.wait_for_log, r"player user:warmup: game ended", 60, warmups)
    before = open_fds(server.process.pid)
    for _ in range(10):
        await play_and_quit(server, user, **BAD_FIELDS[case])
    await asyncio.to_thread(server.wait_for_log, rf"player user:{user}: game ended", 60, 10)
    deadline = time.monotonic() + 30
    while open_fds(server.process.pid) > before and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    assert open_fds(server.process.pid) <= before
    if "TERM" in case:
        assert re.search(rf"player user:{user}: game started \(pid \d+, xterm-256color 100x30\)", server.text())


async def test_an_environment_flood_is_not_kept(shared_server):
    """300 variables of 30 KB each: the server stores none of them (its memory does not grow by their 9 MB)."""
    def resident_kib() -> int:
        status = Path(f"/proc/{shared_server.process.pid}/status").read_text()
        return int(re.search(r"VmRSS:\s+(\d+)", status).group(1))

    import asyncssh

    async with asyncssh.connect("127.0.0.1", shared_server.port, username="flood", known_hosts=None,
                                connect_timeout=60) as conn:
        before = resident_kib()
        process = await conn.create_process(encoding=None, term_type="xterm-256color", term_size=(100, 30),
                                            env={f"KOMA_{k}": "x" * 30_000 for k in range(300)})
        screen = Screen(process)
        await screen.wait_for("8-puzzle")
        assert resident_kib() - before < 4096
        process.stdin.write(b"q")
        await asyncio.wait_for(process.wait(), SCREEN_SECONDS)


# --- 4. no field a client sends can forge a log line -----------------------------------------------------

FORGED = "koma serve: 10.0.0.1:4242: refused (forged)"


async def test_a_term_or_username_with_control_characters_writes_none_to_the_log(shared_server):
    import asyncssh

    server = shared_server
    async with asyncssh.connect("127.0.0.1", server.port, username="mallet", known_hosts=None,
                                connect_timeout=60) as conn:
        process = await conn.create_process(encoding=None, term_type=f"xterm\n{FORGED}\x1b]0;owned\x07",
                                            term_size=(100, 30))
        await Screen(process).wait_for("8-puzzle")
        process.stdin.write(b"q")
        await asyncio.wait_for(process.wait(), SCREEN_SECONDS)
    # asyncssh's own client will not send such a username: OpenSSH's will (and the server refuses it)
    result = await asyncio.to_thread(subprocess.run, server.ssh(f"eve\n{FORGED}\x1b[2J", "-tt"), capture_output=True,
                                     stdin=subprocess.DEVNULL, timeout=120)
    assert result.returncode == 255
    await asyncio.to_thread(server.wait_for_log, r"player user:mallet: game ended")
    text = server.text()
    assert not re.search(r"[\x00-\x09\x0b-\x1f\x7f]", text)  # no control character but the line ends
    assert not any(line.startswith(FORGED) for line in text.splitlines())
    assert "TERM xterm\\nkoma serve: 10.0.0.1:4242: refused" in text  # the replaced TERM is logged, escaped


def test_the_log_escapes_control_characters(capsys):
    from tui.server.ssh.server import log

    log("a\nb\rc\x1b[2J\x00\x85\u2028\u202e ok é")
    line = capsys.readouterr().err
    assert line == "koma serve: a\\nb\\rc\\x1b[2J\\x00\\x85\\u2028\\u202e ok é\n"


# --- 5. no traceback ever reaches a player -----------------------------------------------------------------

@needs_tmux
@pytest.mark.parametrize("key, how", [("C-c", "--cold"), ("C-z", "--cold"), ("C-\\", "--cold"), ("C-c", "warm")])
def test_control_keys_held_during_start_are_keys_not_signals(tmp_path, key, how):
    """ctrl+c, ctrl+z and ctrl+\\ held from the first moment: no traceback, no frozen game, and the game plays."""
    server = Server(tmp_path / "data", "--open", "--rate-limit", "0", *([how] if how == "--cold" else []))
    client = Client(server, "holder", tmp_path)
    try:
        client.wait_for("Starting Koma|8-puzzle")  # ssh is connected (its own terminal is raw): keys go through
        deadline = time.monotonic() + SCREEN_SECONDS
        while "8-puzzle" not in client.screen() and time.monotonic() < deadline:
            client.keys(*[key] * 5)  # held down: as fast as a keyboard repeats
            time.sleep(0.05)
        screen = client.wait_for("8-puzzle", timeout=10)
        client.keys(*[key] * 20)
        client.keys("1")
        screen = client.wait_for("Moves")
        assert "Traceback" not in screen and "Error" not in screen
        pid = server.game_pid("holder")
        assert Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "T"  # not stopped
        client.keys("q")
        assert client.exit_status() == 0
        assert "Traceback" not in client.screen()
        assert server.stop() == 0
    finally:
        client.close()
        server.kill()


def test_a_forked_game_that_fails_shows_the_player_one_line_and_the_log_the_traceback(tmp_path):
    """The warm process's last resort, driven directly: a request whose environment cannot be set (a NUL; the
    server never sends one) fails in the forked game, which exits 1."""
    import json
    import sys

    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    log_path = tmp_path / "zygote.log"
    env = dict(os.environ, KOMA_DATA_DIR=str(tmp_path / "data"), TEXTUAL_ANIMATIONS="none", KOMA_SERVE="1")
    with open(log_path, "w") as log:
        zygote = subprocess.Popen([sys.executable, "-m", "tui.zygote", str(theirs.fileno())], pass_fds=[theirs.fileno()],
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log, env=env)
    theirs.close()
    master = -1
    try:
        ours.settimeout(300)
        assert "ready" in json.loads(ours.recv(65536))
        master, terminal = os.openpty()
        request = {"id": 1, "env": {"TERM": "xterm\x00", "KOMA_SERVE": "1"}, "cwd": None, "cpu_limit": 0, "memory_limit": 0}
        socket.send_fds(ours, [json.dumps(request).encode()], [terminal])
        os.close(terminal)
        assert "pid" in json.loads(ours.recv(65536))
        shown = b""
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:  # EIO: the game has gone
                break
            if not data:
                break
            shown += data
        assert json.loads(ours.recv(65536))["status"] == 1
        assert shown.decode().strip() == "koma: the game stopped on an internal error (ValueError); connect again to play."
        logged = log_path.read_text()
        assert re.search(r"koma serve: warm process: game \d+: Traceback", logged)
        assert "embedded null byte" in logged
    finally:
        if master >= 0:
            os.close(master)
        zygote.kill()
        zygote.wait(10)
        ours.close()


# --- 6. nothing in a served game writes the server's files, opens its browser or stops its process --------

@needs_tmux
def test_the_palette_of_a_served_game_offers_no_screenshot(shared_server, tmp_path):
    client = Client(shared_server, "painter", tmp_path)
    try:
        client.wait_for("8-puzzle")
        for query, answer in (("them", "Change the current theme"), ("screensho", "No matches found")):
            client.keys("C-p")  # (a system command that is there, to show that the palette answers)
            client.wait_for("Search for commands")
            client.keys("-l", query)
            screen = client.wait_for(answer)
            client.keys("Escape")
            wait_for_absence(client, "🔎")
        assert "Save an SVG" not in screen
        client.keys("q")
        assert client.exit_status() == 0
    finally:
        client.close()
    assert not list(Path(shared_server.data_dir).rglob("*.svg"))


@pytest.mark.parametrize("served", [True, False])
async def test_a_served_app_writes_no_file_opens_no_url_and_does_not_suspend(tmp_path, monkeypatch, served):
    """Driven with Pilot: served (``KOMA_SERVE=1``), the app refuses what would happen on the server, and says
    so; not served (``koma`` on one's own computer), Screenshot is still there and writes its file."""
    from tui.app import KomaApp
    from tui.storage.store import Store

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DOWNLOAD_DIR", str(tmp_path / "home" / "Downloads"))
    if served:
        monkeypatch.setenv("KOMA_SERVE", "1")
    else:
        monkeypatch.delenv("KOMA_SERVE", raising=False)
    opened: list[str] = []
    (tmp_path / "shots").mkdir()
    app = KomaApp(store=Store(tmp_path / "koma.db"), animate_spinner=False, keymap={})
    async with app.run_test(size=(100, 30)) as pilot:
        monkeypatch.setattr(app._driver, "open_url", lambda url, new_tab=True: opened.append(url))
        titles = [command.title for command in app.get_system_commands(app.screen)]
        assert ("Screenshot" in titles) is not served and "Theme" in titles
        app.action_screenshot(path=str(tmp_path / "shots"))
        app.deliver_screenshot(path=str(tmp_path / "shots"))
        app.deliver_binary(tmp_path / "koma.db", save_directory=tmp_path / "shots", save_filename="copy.db")
        app.open_url("https://example.com/")
        app.action_suspend_process()  # headless: Textual's own would do nothing either; served: refused first
        await pilot.pause()

        def written() -> list[str]:
            return sorted(p.name for p in (tmp_path / "shots").iterdir())

        if not served:  # Textual saves in a thread of its own
            deadline = time.monotonic() + 60
            while len(written()) < 3 and time.monotonic() < deadline:
                await pilot.pause(0.05)
        notices = [n.message for n in app._notifications]
    if served:
        assert written() == [] and opened == []  # refused at once: nothing was started that could write later
        assert sum("Not in a game played over SSH" in n for n in notices) == 4  # all but the suspend, a silent no
    else:
        assert sum(name.endswith(".svg") for name in written()) == 2 and "copy.db" in written()
        assert opened == ["https://example.com/"]


@pytest.mark.parametrize("served", [True, False])
def test_an_error_that_ends_a_served_app_is_one_line(tmp_path, monkeypatch, served):
    """Textual prints the traceback of an error that ended the app (it names the server's files); served, the player
    reads one line and the server's log gets the traceback (the warm process writes it when the game ends)."""
    import io

    from tui.app import KomaApp
    from tui.storage.store import Store
    from tui.zygote import tell_server_log

    failures: list[str] = []
    monkeypatch.setattr("tui.app.SERVED_FAILURES", failures)

    if served:
        monkeypatch.setenv("KOMA_SERVE", "1")
    else:
        monkeypatch.delenv("KOMA_SERVE", raising=False)
    app = KomaApp(store=Store(tmp_path / "koma.db"), animate_spinner=False, keymap={})
    shown = io.StringIO()
    app.error_console.file = shown

    def fail() -> None:
        raise ValueError("a bug in a handler")

    async def break_it(pilot) -> None:
        pilot.app.call_later(fail)  # raised in the app's message loop: Textual ends the app and keeps the traceback

    app.run(headless=True, size=(80, 24), auto_pilot=break_it)
    assert app.return_code == 1
    if served:
        assert shown.getvalue() == "koma: the game stopped on an internal error; connect again to play.\n"
        kept = "".join(failures)  # for the server's log: the traceback the player did not read
        assert "a bug in a handler" in kept and "test_hostile.py" in kept
        read, write = os.pipe()
        try:
            tell_server_log(kept.splitlines(), "the app stopped on an internal error", write)
            os.close(write)
            logged = os.read(read, 1 << 20).decode().splitlines()
        finally:
            os.close(read)
        assert all(re.fullmatch(r"koma serve: warm process: game \d+: .*", line) for line in logged)
        assert any("ValueError: a bug in a handler" in line for line in logged)
    else:
        assert "a bug in a handler" in shown.getvalue() and "test_hostile.py" in shown.getvalue()


# --- 7. distinct usernames are distinct players -------------------------------------------------------------

def test_usernames_map_to_distinct_stable_player_names():
    from tui.server.ssh.server import safe_username

    names = ["日本", "中文", "Ωμέγα", "", "a b", "ab", "a" * 40, "a" * 41, "bob", "bob~1234abcd", "x" * 32]
    mapped = [safe_username(name) for name in names]
    assert len(set(mapped)) == len(names)  # before, the first four were all "guest"
    assert [safe_username(name) for name in names] == mapped  # the same username: the same player, always
    assert safe_username("bob") == "bob" and safe_username("x" * 32) == "x" * 32  # plain names are kept
    assert all(re.fullmatch(r"[A-Za-z0-9._-]{1,23}~[0-9a-f]{8}", m) for m, n in zip(mapped, names, strict=True)
               if n not in ("ab", "bob", "x" * 32))
    assert safe_username("bob~1234abcd") != "bob~1234abcd"  # nobody can claim a mapped name as their own


async def test_players_with_non_ascii_usernames_do_not_share_saves(shared_server):
    server = shared_server
    for user in ("日本", "中文", "日本"):
        conn, process, screen = await open_game(server, user)
        try:
            await screen.wait_for("8-puzzle")
            process.stdin.write(b"q")
            await asyncio.wait_for(process.wait(), SCREEN_SECONDS)
        finally:
            conn.close()
    await asyncio.to_thread(server.wait_for_log, r"player user:guest~[0-9a-f]{8}: game ended", 60, 3)
    players = re.findall(r"player (user:guest~[0-9a-f]{8}): game started", server.text())[-3:]
    assert players[0] != players[1] and players[0] == players[2]


# --- 8, 9. the server's own failures and signals -------------------------------------------------------------

def test_a_data_dir_that_is_a_file_is_named_as_the_problem(tmp_path):
    from serve_helpers import KOMA

    data = tmp_path / "data"
    data.write_text("not a folder")
    env = dict(os.environ, KOMA_DATA_DIR=str(data))
    result = subprocess.run([KOMA, "serve", "--open", "--host", "127.0.0.1", "--port", "0"], capture_output=True,
                            text=True, env=env, timeout=120)
    assert result.returncode == 2
    assert result.stderr.strip() == f"koma: error: cannot use the data dir {data}: {data} is not a directory"


@needs_tmux
def test_sighup_drains_the_server_like_sigterm(server, tmp_path):
    client = Client(server, "hupped", tmp_path)
    try:
        client.wait_for("8-puzzle")
        server.process.send_signal(signal.SIGHUP)
        assert server.process.wait(60) == 0
        assert "server is shutting down" in client.wait_for("shutting down")
        assert client.exit_status() == 0
        assert "SIGHUP: shutting down: 1 game(s) to save" in server.text()
        assert re.search(r"player user:hupped: game ended \(status 0", server.text())
    finally:
        client.close()


# --- 10. a koma.db that is a FIFO hangs nothing ----------------------------------------------------------------

@needs_tmux
def test_a_koma_db_that_is_a_fifo_hangs_no_served_game(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    os.mkfifo(data / "koma.db")
    started = Server(data, "--open", "--rate-limit", "0")
    client = Client(started, "fifo", tmp_path)
    try:
        client.wait_for("8-puzzle")
        client.wait_for("not a regular")  # the player is told that games are not saved (the toast wraps the line)
        client.keys("1")
        client.wait_for(r"Moves 0")
        client.keys("q")
        assert client.exit_status() == 0
    finally:
        client.close()
    assert stat_is_fifo(data / "koma.db")  # left as it was: nothing wrote into it or moved it
    assert started.stop() == 0


@needs_tmux
def test_koma_play_with_a_koma_db_that_is_a_fifo_plays_unsaved(tmp_path):
    from serve_helpers import KOMA
    from tmux_sessions import new_tmux_session

    data = tmp_path / "data"
    data.mkdir()
    os.mkfifo(data / "koma.db")
    name = f"koma-fifo-{os.getpid()}"
    status = tmp_path / "status"
    new_tmux_session(TMUX, "-d", "-s", name, "-x", "80", "-y", "24", "-e", f"KOMA_DATA_DIR={data}",
                     "-e", "TEXTUAL_ANIMATIONS=none", f"'{KOMA}' play 8 --seed 3; echo $? > {status}; sleep 60")
    try:
        deadline = time.monotonic() + SCREEN_SECONDS
        screen = ""
        while "Moves 0" not in screen or "not a regular" not in screen:
            assert time.monotonic() < deadline, f"koma play never drew its board:\n{screen}"
            time.sleep(0.1)
            screen = subprocess.run([TMUX, "capture-pane", "-p", "-t", name], capture_output=True, text=True).stdout
        subprocess.run([TMUX, "send-keys", "-t", name, "q"], check=True)
        while not (status.exists() and status.read_text().strip()):
            assert time.monotonic() < deadline, "koma play did not quit"
            time.sleep(0.05)
        assert status.read_text().strip() == "0"
    finally:
        subprocess.run([TMUX, "kill-session", "-t", name], capture_output=True)
    assert stat_is_fifo(data / "koma.db")


def stat_is_fifo(path: Path) -> bool:
    import stat

    return stat.S_ISFIFO(os.lstat(path).st_mode)
