"""Helpers for the ``koma serve`` tests: a server started by the test, and real ``ssh`` clients in tmux."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

from tmux_sessions import new_tmux_session

SSH = shutil.which("ssh")
SSH_KEYGEN = shutil.which("ssh-keygen")
TMUX = shutil.which("tmux")
KOMA = shutil.which("koma") or str(Path(sys.executable).with_name("koma"))
# Deadlines that hold on a loaded 2-core box: every wait polls for its condition and ends as soon as it holds.
SCREEN_SECONDS = 120.0
EXIT_SECONDS = 60.0
RECAPTURE_SECONDS = 1.0  # a wait reads an unchanged screen again after this long all the same

try:
    import asyncssh  # noqa: F401

    HAVE_ASYNCSSH = True
except ImportError:
    HAVE_ASYNCSSH = False


class LoggedServer:
    """A ``koma`` server command run by the test with a private data dir, its log in a file beside it."""

    def __init__(self, command: list[str], data_dir: Path, log_name: str, env: dict[str, str] | None = None):
        self.data_dir = data_dir
        self.log = data_dir.parent / log_name
        environment = dict(os.environ, KOMA_DATA_DIR=str(data_dir), TEXTUAL_ANIMATIONS="none", **(env or {}))
        environment.pop("KOMA_PLAYER", None)
        self.handle = open(self.log, "w")  # noqa: SIM115 - the server writes to it until stop()
        self.process = subprocess.Popen(command, stdout=self.handle, stderr=subprocess.STDOUT, env=environment)

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_for_log(self, pattern: str, timeout: float = 30.0, count: int = 1) -> re.Match:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            matches = list(re.finditer(pattern, self.text()))
            if len(matches) >= count:
                return matches[count - 1]
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError(f"{pattern!r} never appeared in the server log:\n{self.text()}")

    def stop(self, timeout: float = EXIT_SECONDS) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout)
        finally:
            self.handle.close()

    def kill(self) -> None:
        """SIGKILL the server and every process under it (its warm process and games, each in a session of its
        own): a killed server's games would otherwise run on, orphaned, and slow the rest of the suite."""
        below = descendants(self.process.pid)
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
        for pid in below:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.handle.close()


def descendants(pid: int) -> list[int]:
    """Every process under ``pid`` (children, theirs, ...), from /proc; none where /proc cannot tell."""
    found: list[int] = []
    waiting = [pid]
    while waiting:
        parent = waiting.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                children = [int(c) for c in Path(f"/proc/{parent}/task/{task}/children").read_text().split()]
            except (OSError, ValueError):
                continue
            found += children
            waiting += children
    return found


class Server(LoggedServer):
    """``koma serve`` on 127.0.0.1 (an ephemeral port), with a private data dir; stop() returns its status."""

    def __init__(self, data_dir: Path, *options: str, log_name: str = "serve.log", env: dict[str, str] | None = None,
                 prefix: tuple[str, ...] = ()):
        """``prefix``: what runs the command (e.g. ``setpriv`` to serve as another user)."""
        super().__init__([*prefix, KOMA, "serve", "--host", "127.0.0.1", "--port", "0", *options], data_dir, log_name,
                         env)
        try:
            found = self.wait_for_log(r"listening on 127\.0\.0\.1:(\d+)", 60)
            self.port = int(found.group(1))
            if "--cold" not in options:  # games fork from the warm process once it is ready (cold before that)
                self.wait_for_log(r"warm process ready", 180)
            self.admin_port = 0
            if "--admin-port" in options:
                self.admin_port = int(self.wait_for_log(r"admin listener at http://[\d.]+:(\d+)/", 60).group(1))
        except BaseException:
            self.kill()
            raise

    def warm_pid(self, count: int = 1) -> int:
        """The pid of the ``count``-th warm process the server started."""
        return int(self.wait_for_log(r"warm process ready \(pid (\d+)", 180, count).group(1))

    def game_pid(self, player: str) -> int:
        """The pid of ``player``'s latest game."""
        found = re.findall(rf"player user:{re.escape(player)}: game started \(pid (\d+)", self.text())
        assert found, f"no game started for {player}:\n{self.text()}"
        return int(found[-1])

    def game_pids(self) -> list[int]:
        """The game processes running now: the server's children (cold) and the warm process's (forked)."""
        def children(pid: int) -> list[int]:
            out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
            return [int(p) for p in out.split()]

        warm = {int(p) for p in re.findall(r"warm process ready \(pid (\d+)", self.text())}
        direct = children(self.process.pid)
        return [p for p in direct if p not in warm] + [g for p in direct if p in warm for g in children(p)]

    def ssh(self, user: str, *extra: str) -> list[str]:
        return [SSH, "-p", str(self.port), "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                "-o", "LogLevel=ERROR", "-o", "BatchMode=yes", "-o", "ConnectTimeout=60", *extra, f"{user}@127.0.0.1"]



class Client:
    """A real OpenSSH client in a tmux session (a terminal of ``columns`` x ``rows``)."""

    def __init__(self, server: Server, user: str, tmp: Path, *extra: str, columns: int = 100, rows: int = 30):
        self.name = f"koma-ssh-{uuid.uuid4().hex[:8]}"
        self.server = server
        self.status = tmp / f"{self.name}.status"
        command = " ".join(f"'{a}'" for a in server.ssh(user, "-tt", *extra)) + f"; echo $? > {self.status}; sleep 60"
        new_tmux_session(TMUX, "-d", "-s", self.name, "-x", str(columns), "-y", str(rows),
                         "-e", "LANG=C.UTF-8", "-e", "TERM=xterm-256color", command)
        # what the pane receives, appended to a file: a wait reads the screen again when that grew, not every poll
        self.output = tmp / f"{self.name}.out"
        subprocess.run([TMUX, "pipe-pane", "-t", self.name, "-o", f"cat >> '{self.output}'"], capture_output=True)

    def screen(self) -> str:
        return subprocess.run([TMUX, "capture-pane", "-p", "-t", self.name], capture_output=True, text=True).stdout

    def received(self) -> int:
        """How many bytes the pane has received since the output file was set up (-1: no file, so unknown)."""
        try:
            return self.output.stat().st_size
        except OSError:
            return -1

    def wait_for(self, pattern: str, timeout: float = SCREEN_SECONDS, poll: float = 0.1) -> str:
        """The screen once ``pattern`` is on it.  Checked every ``poll`` seconds, and read (``tmux capture-pane``, a
        process) when the pane has received something since the last reading, or :data:`RECAPTURE_SECONDS` passed."""
        deadline = time.monotonic() + timeout
        screen, size, read_at = "", None, 0.0
        while time.monotonic() < deadline:
            received = self.received()
            if received != size or received < 0 or time.monotonic() - read_at >= RECAPTURE_SECONDS:
                size, read_at = received, time.monotonic()
                screen = self.screen()
                if re.search(pattern, screen):
                    return screen
            time.sleep(poll)
        raise AssertionError(f"{pattern!r} never appeared on {self.name}; the screen was:\n{screen}\n"
                             f"the server's log ends:\n{self.server.text()[-3000:]}")

    def keys(self, *keys: str) -> None:
        subprocess.run([TMUX, "send-keys", "-t", self.name, *keys], check=True)

    def timed(self, key: str, pattern: str, timeout: float = SCREEN_SECONDS) -> float:
        """Seconds from sending ``key`` until ``pattern`` is on the screen (polled every 5 ms)."""
        began = time.perf_counter()
        self.keys(key)
        self.wait_for(pattern, timeout, poll=0.005)
        return time.perf_counter() - began

    def exit_status(self, timeout: float = EXIT_SECONDS) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.status.exists() and self.status.read_text().strip():
                return int(self.status.read_text())
            time.sleep(0.05)
        raise AssertionError(f"ssh did not exit; the screen was:\n{self.screen()}")

    def close(self) -> None:
        subprocess.run([TMUX, "kill-session", "-t", self.name], capture_output=True)


def quit_all(server: Server, *clients: Client) -> None:
    """Press q in every game, check each exited with status 0, then stop the server and check it exited 0."""
    for client in clients:
        client.keys("q")
        assert client.exit_status() == 0
    assert server.stop() == 0


def moves_on(screen: str) -> int | None:
    found = re.search(r"Moves (\d+)", screen)
    return int(found.group(1)) if found else None


def play_a_move(client: Client, timeout: float = SCREEN_SECONDS) -> int:
    """On the play screen: play one or two sideways moves (the board is random; one of left and right always
    moves a tile), wait until the game has drawn them all, and return the move count it shows."""
    before = moves_on(client.wait_for(r"Moves \d+", timeout))
    deadline = time.monotonic() + timeout
    client.keys("Left")
    if not _moves_change(client, before, min(3.0, timeout)):  # at the right edge: left moves nothing
        client.keys("Right")
    if not _moves_change(client, before, max(0.0, deadline - time.monotonic())):
        raise AssertionError(f"no move was played; the screen was:\n{client.screen()}")
    settled, shown = time.monotonic(), moves_on(client.screen())
    while time.monotonic() - settled < 2.0 and time.monotonic() < deadline:  # a slow game may draw a second move
        now = moves_on(client.screen())
        if now != shown:
            settled, shown = time.monotonic(), now
        time.sleep(0.1)
    assert shown is not None
    return shown


def _moves_change(client: Client, before: int | None, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        now = moves_on(client.screen())
        if now is not None and now != before:
            return True
        time.sleep(0.1)
    return False
