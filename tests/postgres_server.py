"""A real PostgreSQL 15 server for the tests (initdb in a temporary dir, on 127.0.0.1 and a free port), and
PgBouncer in transaction mode in front of it, as beside each replica in deploy/.

Both refuse to run as root, so as root they run as the ``postgres`` user (the dir is given to it).
:func:`start_postgres` and :func:`start_pgbouncer` return None with the reason when they cannot start here.
"""

from __future__ import annotations

import configparser
import fcntl
import hashlib
import io
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

PGBOUNCER = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
PG_BIN = Path(os.environ.get("KOMA_TEST_PG_BIN", "/usr/lib/postgresql/15/bin"))
START_DEADLINE_SECONDS = 60.0


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


INITDB_OPTIONS = ("-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C")


def initdb(data: Path, run_as: dict) -> None:
    subprocess.run([str(PG_BIN / "initdb"), "-D", str(data), *INITDB_OPTIONS], check=True, capture_output=True,
                   timeout=120, **run_as)


def make_cluster(data: Path, run_as: dict) -> None:
    """A new, empty cluster in ``data`` (whose parent ``run_as`` can write), as ``initdb`` makes it.

    In a test run, a copy of the run's own initdb'd cluster, kept in the run's table cache (``$KOMA_CACHE_DIR``,
    shared by its workers and removed with it) and made there once by the first server of the run: initdb takes
    0.7-0.9 CPU-seconds, the copy 0.3, and each worker that runs a PostgreSQL test starts a server."""
    cache = os.environ.get("KOMA_CACHE_DIR")
    if not cache or not os.path.isdir(cache):
        initdb(data, run_as)
        return
    key = hashlib.blake2b(repr((str(PG_BIN.resolve()), (PG_BIN / "postgres").stat().st_mtime_ns, INITDB_OPTIONS,
                                 sorted(run_as.items()))).encode(), digest_size=6).hexdigest()
    template = Path(cache) / f"postgres-cluster-{key}"
    # cp -a keeps the owner (the server's user, when root copies) and the modes (postgres refuses a data directory
    # others can read)
    with open(Path(cache) / f"postgres-cluster-{key}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the first server of the run makes it; the others wait for it
        if template.is_dir():
            subprocess.run(["cp", "-a", str(template), str(data)], check=True, capture_output=True, timeout=120)
            return
        initdb(data, run_as)  # where run_as can write (the cache is not the server's user's), then kept
        partial = template.with_name(f"{template.name}.partial-{os.getpid()}")
        subprocess.run(["cp", "-a", str(data), str(partial)], check=True, capture_output=True, timeout=120)
        os.rename(partial, template)


class PostgresServer:
    """One ``postgres`` process owned by the test session; :meth:`new_database` gives each test its own database."""

    def __init__(self, root: Path, port: int, run_as: dict):
        self.root, self.port, self.run_as = root, port, run_as
        self.data = root / "data"
        self.log = root / "postgres.log"
        make_cluster(self.data, run_as)
        self.handle = open(self.log, "w")  # noqa: SIM115 - postgres writes to it until stop()
        self.start_server()

    def start_server(self) -> None:
        """Start the server (again, after :meth:`stop_server`) and wait until it answers."""
        self.process = subprocess.Popen(
            [str(PG_BIN / "postgres"), "-D", str(self.data), "-h", "127.0.0.1", "-p", str(self.port), "-k", str(self.root),
             "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"],
            stdout=self.handle, stderr=subprocess.STDOUT, **self.run_as)
        self.wait_until_ready()

    def stop_server(self, mode: str = "fast") -> None:
        """Stop the server as ``pg_ctl stop -m fast`` (SIGINT) or ``-m immediate`` (SIGQUIT: a crash) would."""
        self.process.send_signal(signal.SIGQUIT if mode == "immediate" else signal.SIGINT)
        self.process.wait(60)

    def all_pids(self) -> list[int]:
        """The postmaster and every backend and helper process it runs (to freeze them all, as a stall would)."""
        out = subprocess.run(["pgrep", "-P", str(self.process.pid)], capture_output=True, text=True).stdout
        return [self.process.pid, *(int(pid) for pid in out.split())]

    def url(self, database: str = "postgres", user: str = "postgres", port: int | None = None) -> str:
        return f"postgresql://{user}@127.0.0.1:{port or self.port}/{database}"

    def wait_until_ready(self) -> None:
        import psycopg

        deadline = time.monotonic() + START_DEADLINE_SECONDS
        while True:
            try:
                psycopg.connect(self.url(), connect_timeout=2).close()
                return
            except psycopg.OperationalError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"PostgreSQL did not start: {self.log.read_text()[-2000:]}") from None
                time.sleep(0.1)

    def new_database(self) -> str:
        """A fresh, empty database; returns its URL."""
        import psycopg

        name = f"koma_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url(), autocommit=True) as admin:
            admin.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)  # fast shutdown
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self.handle.close()
        shutil.rmtree(self.root, ignore_errors=True)


def start_postgres() -> tuple[PostgresServer | None, str]:
    """A running server, or None and why not."""
    if not (PG_BIN / "postgres").exists():
        return None, f"PostgreSQL is not installed in {PG_BIN} (CI installs postgresql-15)"
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return None, "psycopg is not installed (pip install -e '.[test]')"
    root = Path(tempfile.mkdtemp(prefix="koma-pg-"))
    run_as: dict = {}
    if os.geteuid() == 0:
        try:
            owner = pwd.getpwnam("postgres")
        except KeyError:
            return None, "running as root and there is no postgres user to run PostgreSQL as"
        os.chown(root, owner.pw_uid, owner.pw_gid)
        run_as = {"user": owner.pw_uid, "group": owner.pw_gid, "extra_groups": []}
    try:
        return PostgresServer(root, free_port(), run_as), ""
    except (OSError, subprocess.SubprocessError, RuntimeError) as problem:
        shutil.rmtree(root, ignore_errors=True)
        return None, f"PostgreSQL could not start: {' '.join(str(problem).split())[:300]}"


DEPLOY_PGBOUNCER = Path(__file__).resolve().parent.parent / "deploy" / "pgbouncer.ini"


def pgbouncer_config(postgres_port: int, port: int, root: Path, settings: dict[str, str] | None = None) -> str:
    """``deploy/pgbouncer.ini`` (its pool settings) pointed at the test server, with the test's own paths and no
    passwords (``settings`` overrides; ``{root}`` in a value is the test's folder)."""
    config = configparser.ConfigParser(interpolation=None, inline_comment_prefixes=None)
    config.read_string(DEPLOY_PGBOUNCER.read_text())
    config["databases"] = {"*": f"host=127.0.0.1 port={postgres_port}"}
    config["pgbouncer"].update({"listen_addr": "127.0.0.1", "listen_port": str(port), "unix_socket_dir": "",
                                "auth_type": "trust", "auth_file": str(root / "users.txt"), "admin_users": "postgres",
                                "stats_users": "postgres", "logfile": str(root / "pgbouncer.log"),
                                "pidfile": str(root / "pgbouncer.pid"),
                                **{key: value.format(root=root) for key, value in (settings or {}).items()}})
    text = io.StringIO()
    config.write(text)
    return text.getvalue()


class PgBouncer:
    """PgBouncer on 127.0.0.1 and a free port, with deploy/pgbouncer.ini's pool (transaction mode, 10 server connections)."""

    def __init__(self, postgres: PostgresServer, settings: dict[str, str] | None = None, users: str = '"postgres" ""\n',
                 files: dict[str, str] | None = None):
        """``settings`` override the test's [pgbouncer] ones; ``users`` is its auth_file; ``files`` more files in
        its folder (:attr:`root`, also its Unix socket's folder), by name."""
        self.postgres, self.port = postgres, free_port()
        self.root = postgres.root / f"pgbouncer-{self.port}"
        self.root.mkdir()
        (self.root / "users.txt").write_text(users)
        for name, text in (files or {}).items():
            (self.root / name).write_text(text)
        (self.root / "pgbouncer.ini").write_text(pgbouncer_config(postgres.port, self.port, self.root, settings))
        if postgres.run_as:
            os.chown(self.root, postgres.run_as["user"], postgres.run_as["group"])
            for child in self.root.iterdir():
                os.chown(child, postgres.run_as["user"], postgres.run_as["group"])
        self.process = subprocess.Popen([PGBOUNCER, str(self.root / "pgbouncer.ini")], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.STDOUT, **postgres.run_as)
        self.wait_until_ready()

    def url(self, database_url: str) -> str:
        """``database_url`` (a database on the server behind) reached through PgBouncer."""
        return database_url.replace(f":{self.postgres.port}/", f":{self.port}/", 1)

    def wait_until_ready(self) -> None:
        deadline = time.monotonic() + START_DEADLINE_SECONDS
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=2).close()
                return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    log = self.root / "pgbouncer.log"
                    raise RuntimeError(f"PgBouncer did not start: {log.read_text()[-1000:] if log.exists() else ''}") from None
                time.sleep(0.1)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


def start_pgbouncer(postgres: PostgresServer) -> tuple[PgBouncer | None, str]:
    if not os.path.exists(PGBOUNCER):
        return None, "PgBouncer is not installed (CI installs the Debian package pgbouncer)"
    try:
        return PgBouncer(postgres), ""
    except (OSError, subprocess.SubprocessError, RuntimeError) as problem:
        return None, f"PgBouncer could not start: {' '.join(str(problem).split())[:300]}"
