"""A name belongs to its key (issue 54): under ``koma serve --authorized-keys`` the first key to use a name owns it,
and another key logging in with it (any case) is refused in one line before any game starts; the attack runs
through a real ``koma serve`` and OpenSSH's client, on SQLite and on a real PostgreSQL database."""

from __future__ import annotations

import subprocess

import pytest
from serve_helpers import HAVE_ASYNCSSH, SSH_KEYGEN, Server
from test_serve import run_ssh

from tui.storage.store_choice import open_store

pytestmark = [pytest.mark.skipif(not HAVE_ASYNCSSH, reason="asyncssh is not installed (pip install -e '.[ssh]')"),
              pytest.mark.skipif(SSH_KEYGEN is None, reason="ssh-keygen is not installed")]


@pytest.fixture(params=["sqlite", "postgres"])
def database(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'koma.db'}"
    return request.getfixturevalue("postgres_url")


def test_a_name_belongs_to_the_first_key_that_used_it(tmp_path, database):
    keys = {}
    for who in ("alice", "mallory"):
        subprocess.run([SSH_KEYGEN, "-q", "-t", "ed25519", "-N", "", "-f", str(tmp_path / who)], check=True)
        keys[who] = ("-o", "IdentitiesOnly=yes", "-i", str(tmp_path / who))
    authorized = tmp_path / "authorized_keys"
    authorized.write_text((tmp_path / "alice.pub").read_text() + (tmp_path / "mallory.pub").read_text())
    server = Server(tmp_path / "data", "--authorized-keys", str(authorized), "--rate-limit", "0", "--cold",
                    "--database", database)
    try:
        first = run_ssh(server, "alice", "-T", *keys["alice"], command=("link",))
        assert first.returncode == 0 and "does not serve browsers" in first.stdout, first
        for name in ("alice", "ALICE"):
            taken = run_ssh(server, name, "-tt", *keys["mallory"])
            lines = [line for line in taken.stdout.splitlines() if line.strip()]
            assert taken.returncode == 1 and lines == [
                f"koma: the name {name} belongs to another key here; log in with another name (ssh OTHERNAME@host)"], taken
        assert "game started" not in server.text()  # today's code started mallory's game as "alice"
        again = run_ssh(server, "alice", "-T", *keys["alice"], command=("link",))
        own = run_ssh(server, "mallory", "-T", *keys["mallory"], command=("link",))
        assert again.returncode == 0 and own.returncode == 0, (again, own)
        assert server.stop() == 0
    finally:
        server.kill()
    store = open_store(database)
    owners = dict(store.backend.query("SELECT name, player FROM player_names", ()))
    assert set(owners) == {"alice", "mallory"} and owners["alice"] != owners["mallory"]
    assert all(player.startswith("key:SHA256:") for player in owners.values())
