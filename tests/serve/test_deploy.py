"""deploy/: the systemd unit starts koma with options that exist, ``koma serve --database`` fails plainly, and PgBouncer
(deploy/pgbouncer.ini) serves again within a second of PostgreSQL restarting."""

from __future__ import annotations

import re
import shlex
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest
from serve_helpers import KOMA

from tui.server.options import options_from

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def unit_commands(unit: Path) -> list[list[str]]:
    """The unit's ExecStartPre/ExecStart command lines (continuations joined), split like systemd does."""
    text = unit.read_text().replace("\\\n", " ")
    return [shlex.split(line.split("=", 1)[1]) for line in text.splitlines() if line.startswith(("ExecStart=", "ExecStartPre="))]


def test_the_unit_runs_koma_with_options_koma_has():
    from tui.cli import build_parser

    commands = unit_commands(DEPLOY / "koma-serve.service")
    assert [c[1] for c in commands] == ["tables", "serve"]
    parser = build_parser()
    for command in commands:
        assert Path(command[0]).name == "koma"
        args = parser.parse_args(command[1:])  # a usage error raises
    options = options_from(args)
    assert options.proxy_protocol and options.host_key == "/etc/koma/ssh_host_ed25519_key" and options.open
    assert options.admin_port == 9222 and options.drain_seconds > 0 and options.log_format == "json"
    unit = (DEPLOY / "koma-serve.service").read_text()  # systemd waits out the drain before it kills
    stop_timeout = float(re.search(r"^TimeoutStopSec=(\d+)", unit, re.M).group(1))
    assert "KillSignal=SIGTERM" in unit and stop_timeout >= options.drain_seconds + 15


def test_serve_with_an_unreachable_database_is_one_line_and_status_2(tmp_path):
    result = subprocess.run([KOMA, "serve", "--open", "--port", "0", "--database",
                             "postgresql://koma:s3cret@127.0.0.1:1/koma?connect_timeout=2"], capture_output=True, text=True,
                            timeout=60, env={"PATH": "/usr/bin:/bin", "KOMA_DATA_DIR": str(tmp_path)})
    assert result.returncode == 2 and result.stderr.startswith("koma: error: cannot use the database postgresql://koma:***@")
    assert len(result.stderr.strip().splitlines()) == 1 and "s3cret" not in result.stderr


def test_serve_with_a_database_that_is_not_a_url_is_one_line_and_status_2(tmp_path):
    result = subprocess.run([KOMA, "serve", "--open", "--database", "koma.db"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and result.stderr.strip() == (
        "koma: error: the database URL koma.db is neither postgresql://… nor sqlite:///PATH")


# --- PgBouncer: back within a second of PostgreSQL ---------------------------------------------------
RECOVERY_SECONDS = 1.0  # issue 25: recovery after a PostgreSQL restart takes at most this long


def pgbouncer_settings() -> dict[str, str]:
    import configparser

    config = configparser.ConfigParser(interpolation=None)
    config.read_string((DEPLOY / "pgbouncer.ini").read_text())
    return dict(config["pgbouncer"])


def test_pgbouncer_retries_a_failed_login_well_within_the_recovery_target():
    """PgBouncer refuses every client for ``server_login_retry`` after a failed login (15 s by default), so
    recovery after a restart takes up to that long; the other two bound how long a client waits on a dead server."""
    settings = pgbouncer_settings()
    assert float(settings["server_login_retry"]) <= RECOVERY_SECONDS / 2  # half: a retry plus a login fit in the target
    assert float(settings["server_connect_timeout"]) <= 5  # a login that hangs (a frozen server) is abandoned and retried
    assert float(settings["query_wait_timeout"]) <= 5  # no client waits minutes for a server connection
    assert settings["pool_mode"] == "transaction"


def wait_for(condition, deadline_seconds: float, what: str) -> float:
    """Poll ``condition`` every 10 ms until it holds; the seconds that took.  Fails past the deadline."""
    start = time.monotonic()
    while not condition():
        if time.monotonic() - start > deadline_seconds:
            raise AssertionError(f"{what}: not within {deadline_seconds} s")
        time.sleep(0.01)
    return time.monotonic() - start


class Player:
    """A client that queries through PgBouncer every 50 ms, as games saving moves do, whatever the answers take.

    Each query runs in its own thread (a query may wait in PgBouncer's queue), at most 5 at once; :attr:`answers`
    holds ``(when, ok)`` for each finished one.
    """

    def __init__(self, psycopg, url: str):
        self.psycopg, self.url = psycopg, url
        self.answers: list[tuple[float, bool]] = []
        self.in_flight = threading.Semaphore(5)
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.play, daemon=True)
        self.thread.start()

    def query(self) -> None:
        try:
            with self.psycopg.connect(self.url, connect_timeout=2, autocommit=True, prepare_threshold=None) as db:
                ok = db.execute("SELECT 1").fetchone() == (1,)
        except self.psycopg.Error:
            ok = False
        finally:
            self.in_flight.release()
        self.answers.append((time.monotonic(), ok))

    def play(self) -> None:
        while not self.stopping.wait(0.05):
            if self.in_flight.acquire(blocking=False):
                threading.Thread(target=self.query, daemon=True).start()

    def first_answer(self, ok: bool, after: float) -> float | None:
        return next((when for when, answer in list(self.answers) if answer is ok and when > after), None)

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(5)


@pytest.mark.parametrize("stop_signal, how", [(signal.SIGINT, "fast shutdown"), (signal.SIGQUIT, "crash (immediate)")])
def test_pgbouncer_serves_again_within_a_second_of_postgres_restarting(stop_signal, how):
    """A private PostgreSQL behind PgBouncer as deploy/pgbouncer.ini sets it up, with a player querying all along:
    stop PostgreSQL (PgBouncer's logins fail), start it again, and time the player's first answer through PgBouncer
    from the moment PostgreSQL itself accepts a connection.  With PgBouncer's default ``server_login_retry`` (15 s)
    it took 14 s here."""
    from postgres_server import start_pgbouncer, start_postgres

    psycopg = pytest.importorskip("psycopg")
    server, why_not = start_postgres()
    if server is None:
        pytest.skip(why_not)
    bouncer = player = None
    try:
        bouncer, why_not = start_pgbouncer(server)
        if bouncer is None:
            pytest.skip(why_not)
        player = Player(psycopg, bouncer.url(server.url()))
        wait_for(lambda: player.first_answer(True, 0) is not None, 30, "a first answer through PgBouncer")
        server.process.send_signal(stop_signal)
        server.process.wait(30)
        stopped = time.monotonic()
        wait_for(lambda: player.first_answer(False, stopped + 1.0) is not None, 30, "PgBouncer failing for a second")
        server.process = subprocess.Popen(server.process.args, stdout=server.handle, stderr=subprocess.STDOUT, **server.run_as)

        def postgres_answers() -> bool:
            try:
                with psycopg.connect(server.url(), connect_timeout=2) as db:
                    return db.execute("SELECT 1").fetchone() == (1,)
            except psycopg.Error:
                return False

        wait_for(postgres_answers, 60, "PostgreSQL accepting connections again")
        back = time.monotonic()
        wait_for(lambda: player.first_answer(True, back) is not None, 30, "an answer through PgBouncer")
        recovery = player.first_answer(True, back) - back  # type: ignore[operator]
        print(f"PgBouncer answered {recovery:.3f} s after PostgreSQL was back ({how}; down {back - stopped:.2f} s)")
        assert recovery <= RECOVERY_SECONDS
    finally:
        if player is not None:
            player.stop()
        if bouncer is not None:
            bouncer.stop()
        server.stop()


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="needs systemd-analyze")
def test_systemd_reads_the_unit_without_a_complaint(tmp_path):
    """``systemd-analyze verify``: every directive known and well formed (KillSignal, TimeoutStopSec...); only the
    release's path, absent on a test box, may be missing."""
    unit = tmp_path / "koma-serve.service"
    unit.write_text((DEPLOY / "koma-serve.service").read_text())
    result = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60)
    complaints = [line for line in (result.stdout + result.stderr).splitlines()
                  if line.strip() and "/opt/koma/.venv/bin/koma is not executable" not in line]
    assert complaints == []


# --- the unit's sandbox ----------------------------------------------------------------------------------------

SYSTEMD_ANALYZE = shutil.which("systemd-analyze")
# What koma serve and its games call that a sandbox could take away: forks (warm and cold), the pty, the limits,
# the subreaper, the warm process's channel and its pidfds, numba's executable memory.
NEEDED_SYSCALLS = {"clone", "clone3", "fork", "execve", "setsid", "ioctl", "setrlimit", "prlimit64", "prctl",
                   "pidfd_open", "waitid", "wait4", "socketpair", "sendmsg", "recvmsg", "kill", "mmap", "mprotect",
                   "madvise", "openat", "fchmod", "sched_getaffinity", "getrusage", "epoll_wait", "pipe2",
                   # the games' sandbox (tui/server/sandbox.py): in no group of systemd 252's @system-service
                   "landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self"}


def syscalls(group: str) -> set[str]:
    """The system calls in a systemd syscall group (its nested groups expanded)."""
    lines = subprocess.run([SYSTEMD_ANALYZE, "syscall-filter", group], capture_output=True, text=True,
                           check=True).stdout.splitlines()[1:]
    names = set()
    for line in (line.strip() for line in lines):
        if line.startswith("@"):
            names |= syscalls(line)
        elif line and not line.startswith("#"):
            names.add(line)
    return names


@pytest.mark.skipif(SYSTEMD_ANALYZE is None, reason="systemd-analyze is not installed (.ci/run installs systemd)")
def test_the_unit_is_sandboxed_to_ok_and_leaves_koma_what_it_calls(tmp_path):
    unit = tmp_path / "koma-serve.service"
    unit.write_text((DEPLOY / "koma-serve.service").read_text())
    rated = subprocess.run([SYSTEMD_ANALYZE, "security", "--offline=yes", "--no-pager", str(unit)], capture_output=True,
                           text=True, timeout=60)
    level = re.search(r"Overall exposure level for koma-serve\.service: ([\d.]+)", rated.stdout)
    assert level, rated.stdout + rated.stderr
    assert float(level.group(1)) <= 4.0, rated.stdout
    text = unit.read_text()
    assert re.search(r"^UMask=0077$", text, re.M) and re.search(r"^MemoryMax=\S+", text, re.M)
    assert re.search(r"^TasksMax=\d+", text, re.M) and re.search(r"^CapabilityBoundingSet=$", text, re.M)
    assert "MemoryDenyWriteExecute=yes" not in text  # numba writes machine code
    allowed, denied = set(), set()
    for line in re.findall(r"^SystemCallFilter=(.+)$", text, re.M):
        groups = line.removeprefix("~").split()
        (denied if line.startswith("~") else allowed).update(*(syscalls(g) if g.startswith("@") else {g}
                                                               for g in groups))
    assert not NEEDED_SYSCALLS - (allowed - denied), sorted(NEEDED_SYSCALLS - (allowed - denied))
