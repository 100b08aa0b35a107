"""Games apart (tui/server/sandbox.py): inside real served games, what a compromised game would try is refused.

``koma serve`` runs as an unprivileged user (``setpriv`` to nobody, 65534: the tests run as root, and root passes
every one of these checks), with private folders of that user's.  A probe (tests/serve/apart_probe/sitecustomize.py,
on the games' PYTHONPATH) runs inside each game once its store opens, after the game confined itself, and writes what
it could do: the game is not dumpable; it signals neither the warm process, another game nor the server; it reaches
no other game's abstract socket (its own works); it reads neither the server's nor the warm process's ``/proc``
entries (environment, descriptors, memory) and cannot ptrace the warm process.  The server's metrics still count the
games' memory, which each game now reports itself.
"""

from __future__ import annotations

import json
import os
import shutil
import site
import sys
import tempfile
import time
from pathlib import Path

import pytest
from admin_helpers import samples, value, wait_until
from serve_helpers import HAVE_ASYNCSSH, SSH, TMUX, Client, Server

from tui.server import sandbox

NOBODY = 65534
SETPRIV = shutil.which("setpriv")
PROBE = Path(__file__).with_name("apart_probe")
ROOT = Path(__file__).resolve().parents[2]
# nobody runs the system's Python of the same version on this checkout and this venv's packages (the venv's own
# interpreter may live where nobody cannot reach, such as root's home)
SYSTEM_PYTHON = Path(f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}")

pytestmark = [
    pytest.mark.skipif(not (HAVE_ASYNCSSH and SSH and TMUX), reason="needs asyncssh, ssh and tmux"),
    pytest.mark.skipif(SETPRIV is None or os.geteuid() != 0, reason="needs setpriv and root to become nobody"),
    pytest.mark.skipif(sandbox.landlock_abi() < sandbox.SCOPES_ABI, reason="needs Landlock's scopes (ABI 6)"),
    pytest.mark.skipif(not SYSTEM_PYTHON.exists(), reason=f"needs {SYSTEM_PYTHON} for nobody to run"),
]


@pytest.fixture
def nobody_home():
    """A private folder of nobody's (mode 0700): its data dir, home, TMPDIR and the probe's answers."""
    root = Path(tempfile.mkdtemp(prefix="koma-apart-"))
    for name in ("data", "home", "tmp", "tmp/koma-apart-probe"):
        (root / name).mkdir()
    for path in (root, *root.rglob("*")):
        os.chown(path, NOBODY, NOBODY)
    root.chmod(0o700)
    yield root
    shutil.rmtree(root, ignore_errors=True)


def serve_as_nobody(root: Path, *options: str) -> Server:
    path = os.pathsep.join([str(PROBE), *site.getsitepackages(), str(ROOT)])
    env = {"HOME": str(root / "home"), "TMPDIR": str(root / "tmp"), "PYTHONPATH": path}
    return Server(root / "data", *options, env=env,
                  prefix=(SETPRIV, "--reuid", str(NOBODY), "--regid", str(NOBODY), "--clear-groups", str(SYSTEM_PYTHON)))


def probed(root: Path, known: set[int], server: Server) -> dict:
    """The answer of the next game's probe (one not in ``known``)."""
    folder = root / "tmp" / "koma-apart-probe"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        failed = list(folder.glob("failed-*.txt"))
        assert not failed, failed[0].read_text()
        for path in folder.glob("[0-9]*.json"):
            if int(path.stem) not in known:
                return json.loads(path.read_text())
        time.sleep(0.05)
    raise AssertionError(f"no probe answered; the server's log:\n{server.text()[-3000:]}")


def test_warm_games_cannot_reach_the_warm_process_each_other_or_the_server(nobody_home, tmp_path):
    server = serve_as_nobody(nobody_home, "--open", "--admin-port", "0")
    clients = []
    try:
        assert "not scoped apart" not in server.text() and "not sandboxed" not in server.text()
        clients.append(Client(server, "ann", tmp_path))
        clients[0].wait_for("8-puzzle")
        ann = probed(nobody_home, set(), server)
        clients.append(Client(server, "bob", tmp_path))
        clients[1].wait_for("8-puzzle")
        bob = probed(nobody_home, {ann["pid"]}, server)
        for said in (ann, bob):
            assert said["uid"] == NOBODY and said["parent"] == server.warm_pid() and said["server"] == server.process.pid
            assert said["dumpable"] == 0
            assert said["abstract to itself"] == "done" and said["signal itself"] == "done"  # the probe can act
            for attempt in ("server environ", "server fds", "signal server", "signal warm process", "warm process mem",
                            "warm process environ", "ptrace warm process"):
                assert said[attempt] == "refused", (attempt, said)
        assert bob["other game"] == ann["pid"]
        for attempt in ("signal other game", "other game environ", "abstract to other game"):
            assert bob[attempt] == "refused", (attempt, bob)

        # the games' memory is still counted: each game reports its own (the server cannot read it as nobody)
        def counted():
            found = samples(server.admin_port)
            return found if value(found, "koma_games_memory_bytes") > 2 * 10 * 2**20 else None

        wait_until(counted, 60, "both games' memory in the metrics")
    finally:
        for client in clients:
            client.close()
        server.kill()


def test_a_cold_game_is_not_dumpable_and_cannot_reach_the_server(nobody_home, tmp_path):
    server = serve_as_nobody(nobody_home, "--open", "--cold")
    client = None
    try:
        client = Client(server, "cyd", tmp_path)
        client.wait_for("8-puzzle")
        cyd = probed(nobody_home, set(), server)
        assert cyd["parent"] == server.process.pid and cyd["dumpable"] == 0 and cyd["abstract to itself"] == "done"
        for attempt in ("server environ", "server fds", "signal server"):
            assert cyd[attempt] == "refused", (attempt, cyd)
    finally:
        if client is not None:
            client.close()
        server.kill()
