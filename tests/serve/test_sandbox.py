"""The games' sandbox (tui/server/sandbox.py): a confined process keeps every file but the server's secrets.

Each check confines a fresh Python process (Landlock is for good, so never this one) with the layout a server
has: a data dir the game writes in, and the keys in a folder beside it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tui.server import sandbox

needs_landlock = pytest.mark.skipif(sandbox.landlock_abi() < 1, reason="this kernel has no Landlock")


def layout(root: Path) -> tuple[Path, Path]:
    data, keys = root / "data", root / "data-keys"
    data.mkdir()
    keys.mkdir(mode=0o700)
    (data / "saved").write_text("a saved game")
    key = keys / "ssh_host_ed25519_key"
    key.write_text("the host key")
    return data, key


CONFINED = textwrap.dedent("""
    import json, os, sqlite3, subprocess, sys
    from tui.server.sandbox import confine
    data, key = sys.argv[1], sys.argv[2]
    said = {"refusal": confine([key])}

    def attempt(name, action):
        try:
            action()
            said[name] = "done"
        except PermissionError:
            said[name] = "refused"

    attempt("read key", lambda: open(key).read())
    attempt("write key", lambda: open(key, "a").write("x"))
    attempt("truncate key", lambda: os.truncate(key, 0))
    attempt("rename key", lambda: os.replace(key, os.path.join(data, "stolen")))
    attempt("remove key", lambda: os.unlink(key))
    attempt("list keys", lambda: os.listdir(os.path.dirname(key)))
    attempt("read saved", lambda: open(os.path.join(data, "saved")).read())
    attempt("new file", lambda: open(os.path.join(data, "new"), "w").write("fresh"))
    attempt("rename in data", lambda: os.replace(os.path.join(data, "new"), os.path.join(data, "renamed")))
    attempt("subfolder", lambda: os.makedirs(os.path.join(data, "outbox", "journals")))

    def database():
        db = sqlite3.connect(os.path.join(data, "koma.db"))
        db.execute("pragma journal_mode=wal")
        db.execute("create table t (a)")
        db.execute("insert into t values (1)")
        db.commit()
        assert db.execute("select a from t").fetchone() == (1,)

    attempt("sqlite", database)
    attempt("system file", lambda: open("/etc/passwd").read())
    attempt("numpy", lambda: __import__("numpy").arange(3).sum())
    child = subprocess.run(["cat", key], capture_output=True)
    said["child reads key"] = "done" if child.returncode == 0 else "refused"
    print(json.dumps(said))
""")


@needs_landlock
def test_a_confined_process_cannot_touch_the_keys_and_keeps_everything_else(tmp_path):
    data, key = layout(tmp_path)
    result = subprocess.run([sys.executable, "-c", CONFINED, str(data), str(key)], capture_output=True, text=True,
                            timeout=120, cwd=Path(__file__).resolve().parents[2])
    assert result.returncode == 0, result.stderr
    said = json.loads(result.stdout)
    assert said.pop("refusal") is None
    refused = {name for name, outcome in said.items() if outcome == "refused"}
    assert refused == {"read key", "write key", "truncate key", "rename key", "remove key", "list keys",
                       "child reads key"}
    assert key.read_text() == "the host key"
    assert (data / "renamed").read_text() == "fresh"


def test_the_rules_leave_out_the_way_to_the_secrets_and_links(tmp_path):
    data, key = layout(tmp_path)
    (tmp_path / "link-to-keys").symlink_to(key.parent)
    (key.parent / "other").write_text("beside the key")
    allowed = set(sandbox.allowed_paths([key]))
    assert data in allowed and key.parent / "other" in allowed
    assert not allowed & {key, key.parent, tmp_path, tmp_path / "link-to-keys", Path("/")}
    assert all(not key.is_relative_to(path) for path in allowed)
    assert Path("/usr") in allowed  # beside the way: allowed whole


def test_a_kernel_without_landlock_is_said_in_one_line(tmp_path, monkeypatch):
    _, key = layout(tmp_path)
    monkeypatch.setattr(sandbox, "landlock_abi", lambda: 0)
    reason = sandbox.confine_check([key])
    assert reason and "\n" not in reason and "Landlock" in reason
    assert sandbox.confine_check([tmp_path / "no-such-key"]) is None  # nothing to keep: nothing to say


def test_the_secrets_list_travels_in_the_warm_process_environment(tmp_path):
    paths = [str(tmp_path / "a key"), str(tmp_path / "b")]
    environment = {sandbox.SECRETS_VARIABLE: os.pathsep.join(paths)}
    assert sandbox.secrets_from_environment(environment) == paths
    assert sandbox.secrets_from_environment({}) == []


def test_a_folder_games_write_in_on_the_way_to_a_key_is_named(tmp_path, monkeypatch):
    """The rules cannot let games use new files in a folder on the way to a key (a SQLite database beside the data
    dir, whose journal is made and removed as it goes): the server says so, in one line, instead of breaking them."""
    data, key = layout(tmp_path)
    monkeypatch.setattr(sandbox, "landlock_abi", lambda: 7)
    assert sandbox.confine_check([key], [data, tmp_path / "cache"]) is None
    reason = sandbox.confine_check([key], [data, tmp_path])  # e.g. --database sqlite:///TMP/koma.db
    assert reason and "\n" not in reason and str(tmp_path) in reason and "folder of their own" in reason
    assert "folder of their own" in sandbox.confine_check([key], [key.parent])  # --host-key inside the data dir


def test_a_kernel_without_scopes_is_said_in_one_line():
    """Landlock's scopes (signals, abstract sockets) came with ABI 6: below it the server's log says games are not
    scoped apart, once, in one line; from it nothing is said."""
    for abi in (0, 1, 5):
        note = sandbox.scope_note(abi)
        assert note and "\n" not in note and "not scoped apart" in note and "not dumpable" in note
    assert "Landlock ABI 5, not 6" in sandbox.scope_note(5)
    assert sandbox.scope_note(6) is None and sandbox.scope_note(7) is None
    assert sandbox.scopes(5) == 0 and sandbox.scopes(6) == sandbox.SCOPE_SIGNAL | sandbox.SCOPE_ABSTRACT_UNIX_SOCKET


SCOPED = textwrap.dedent("""
    import json, os, signal, socket, sys
    from tui.server.sandbox import confine_game, dumpable
    parent = os.getppid()
    outside = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    outside.bind(b"\\0koma-scope-test-%d" % os.getpid())  # made before the game's domain: outside it
    said = {"refusal": confine_game(), "dumpable": dumpable()}
    def attempt(name, action):
        try:
            action()
            said[name] = "done"
        except PermissionError:
            said[name] = "refused"
    attempt("signal parent", lambda: os.kill(parent, 0))
    attempt("signal itself", lambda: os.kill(os.getpid(), 0))
    sender = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    attempt("abstract outside", lambda: sender.sendto(b"!", b"\\0koma-scope-test-%d" % os.getpid()))
    print(json.dumps(said))
""")


@pytest.mark.skipif(sandbox.landlock_abi() < sandbox.SCOPES_ABI, reason="this kernel's Landlock has no scopes")
def test_a_game_s_own_domain_keeps_it_from_signals_and_sockets_outside_it():
    result = subprocess.run([sys.executable, "-c", SCOPED], capture_output=True, text=True, timeout=120,
                            cwd=Path(__file__).resolve().parents[2])
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"refusal": None, "dumpable": False, "signal parent": "refused",
                                         "signal itself": "done", "abstract outside": "refused"}
