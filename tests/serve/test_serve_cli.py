"""``koma serve`` on the command line: without asyncssh, bad options, the host key kept in the data dir, and
the environment each game process gets."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from serve_helpers import HAVE_ASYNCSSH


def run_koma(*code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "\n".join(code)], capture_output=True, text=True, timeout=60)


def test_without_asyncssh_serve_says_how_to_install_it():
    result = run_koma("import sys", "sys.modules['asyncssh'] = None  # as if it were not installed",
                      "from tui.main import main", "sys.exit(main(['serve', '--open']))")
    assert result.returncode == 2
    assert result.stderr.strip() == "koma: error: asyncssh is missing: pip install -e '.[ssh]'"
    assert "textual" not in run_koma("import sys, solver.tools.cli", "print(' '.join(sys.modules))").stdout


@pytest.mark.skipif(not HAVE_ASYNCSSH, reason="asyncssh is not installed (pip install -e '.[ssh]')")
@pytest.mark.parametrize("arguments, message", [
    ([], "one of the arguments --authorized-keys --open is required"),
    (["--open", "--authorized-keys", "k"], "not allowed with argument"),
    (["--open", "--port", "70000"], "--port 70000 is out of range"),
    (["--open", "--max-sessions", "0"], "--max-sessions 0 is out of range"),
    (["--open", "--max-sessions-per-player", "-1"], "--max-sessions-per-player -1 is out of range"),
    (["--open", "--max-startups", "0"], "--max-startups 0 is out of range"),
    (["--open", "--login-grace-time", "0"], "--login-grace-time 0.0 is out of range"),
    (["--open", "--keepalive-interval", "nan"], "--keepalive-interval nan is out of range"),
    (["--open", "--keepalive-count-max", "0"], "--keepalive-count-max 0 is out of range"),
    (["--open", "--idle-timeout", "inf"], "--idle-timeout inf is out of range"),
    (["--authorized-keys", "/nonexistent/keys"], "cannot read the authorized keys /nonexistent/keys"),
    (["--open", "--admin-port", "-1"], "--admin-port -1 is out of range"),
    (["--open", "--admin-port", "65536"], "--admin-port 65536 is out of range"),
    (["--open", "--drain-seconds", "-1"], "--drain-seconds -1.0 is out of range"),
    (["--open", "--drain-seconds", "inf"], "--drain-seconds inf is out of range"),
    (["--open", "--log-format", "xml"], "argument --log-format: invalid choice: 'xml'"),
])
def test_bad_serve_options_are_one_line(arguments, message, tmp_path):
    result = run_koma("import sys", "from tui.main import main", f"sys.exit(main(['serve', *{arguments!r}]))")
    assert result.returncode == 2 and message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_a_bad_option_is_told_before_the_servers_libraries_load():
    """The options are checked first: a mistyped one costs no import of asyncssh or aiohttp (a second of CPU)."""
    result = run_koma("import sys", "from tui.main import main", "status = main(['serve', '--open', '--port', '70000'])",
                      "print(' '.join(name for name in ('asyncssh', 'aiohttp') if name in sys.modules))",
                      "sys.exit(status)")
    assert result.returncode == 2 and "--port 70000 is out of range" in result.stderr
    assert result.stdout.strip() == ""


@pytest.mark.skipif(not HAVE_ASYNCSSH, reason="asyncssh is not installed (pip install -e '.[ssh]')")
def test_the_ssh_server_leaves_aiohttp_to_the_admin_listener():
    """aiohttp (0.4 s of CPU to import) is imported when an admin listener starts (``--admin-port``), not by every
    ``koma serve``."""
    result = run_koma("import sys, tui.server.ssh.server", "print('aiohttp' in sys.modules)")
    assert result.returncode == 0 and result.stdout.strip() == "False", result.stderr


@pytest.mark.skipif(not HAVE_ASYNCSSH, reason="asyncssh is not installed (pip install -e '.[ssh]')")
@pytest.mark.parametrize("arguments, expected", [([], "None False"), (["--ssh-port", "0", "--ssh-open"], "KomaServer True")],
                         ids=["web-alone", "with-ssh-port"])
def test_koma_web_imports_asyncssh_only_for_an_ssh_listener(arguments, expected):
    """``koma web`` gets the SSH front end (and asyncssh, 0.3 s of CPU to import) only with ``--ssh-port``."""
    result = run_koma("import sys", "from tui.server.web import server",
                      "server.web_command = lambda args, ssh=None: print(getattr(ssh, '__name__', ssh), "
                      "'asyncssh' in sys.modules) or 0",
                      "from tui.main import main", f"sys.exit(main(['web', '--open', '--port', '0', *{arguments!r}]))")
    assert result.returncode == 0 and result.stdout.strip() == expected, result.stderr


@pytest.mark.skipif(not HAVE_ASYNCSSH, reason="asyncssh is not installed (pip install -e '.[ssh]')")
def test_the_host_key_is_made_once_with_mode_0600_and_reused(tmp_path):
    from tui.server.ssh.server import host_key

    path = tmp_path / "data" / "ssh_host_ed25519_key"
    first = host_key(path)
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert host_key(path).get_fingerprint() == first.get_fingerprint()
    os.chmod(path, 0o644)
    assert host_key(path).get_fingerprint() == first.get_fingerprint()
    assert os.stat(path).st_mode & 0o777 == 0o600  # loose permissions are tightened


@pytest.mark.skipif(not HAVE_ASYNCSSH, reason="asyncssh is not installed (pip install -e '.[ssh]')")
def test_the_game_gets_the_operators_display_settings_and_nothing_else(monkeypatch):
    from types import SimpleNamespace

    from tui.server.served_game import ServedGame
    from tui.server.ssh.transport import SshTransport

    for name in ("NO_COLOR", "TEXTUAL_COLOR_SYSTEM", "LINES", "COLUMNS", "KOMA_SERVE_COLORTERM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TEXTUAL_ANIMATIONS", "none")
    monkeypatch.setenv("SSH_AUTH_SOCK", "/tmp/agent.sock")  # the operator's own: never a game's
    monkeypatch.setenv("LANG", "fr_FR.ISO-8859-1")
    game = ServedGame(None, SshTransport(SimpleNamespace(env={})), "user:ann", "ann", "127.0.0.1:1")
    env = game.environment("xterm-256color", 24, 80)
    assert env["TEXTUAL_ANIMATIONS"] == "none" and "NO_COLOR" not in env and "TEXTUAL_COLOR_SYSTEM" not in env
    assert "SSH_AUTH_SOCK" not in env and "LINES" not in env and "COLUMNS" not in env
    assert (env["TERM"], env["LANG"], env["KOMA_PLAYER"], env["KOMA_PLAYER_NAME"], env["KOMA_TRANSPORT"]) == (
        "xterm-256color", "C.UTF-8", "user:ann", "ann", "ssh")
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("TEXTUAL_COLOR_SYSTEM", "standard")
    env = game.environment("xterm", 24, 80)
    assert (env["NO_COLOR"], env["TEXTUAL_COLOR_SYSTEM"], env["TEXTUAL_ANIMATIONS"]) == ("1", "standard", "none")


def test_the_server_can_say_what_a_silent_game_is_doing():
    from tui.server.procfs import doing

    sleeper = subprocess.Popen(["sleep", "30"])
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not doing(sleeper.pid).startswith("state S"):
            time.sleep(0.01)
        assert doing(sleeper.pid).startswith("state S, 0.00 s of CPU, waiting in ")
    finally:
        sleeper.kill()
        sleeper.wait()
    assert doing(sleeper.pid) == "gone"


def test_the_warm_process_is_started_by_the_server_only():
    result = subprocess.run([sys.executable, "-m", "tui.zygote"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and result.stderr.strip() == "usage: python -m tui.zygote FD (started by koma serve)"


@pytest.mark.skipif(not HAVE_ASYNCSSH, reason="asyncssh is not installed (pip install -e '.[ssh]')")
def test_an_admin_port_in_use_is_one_line(tmp_path):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run([sys.executable, "-m", "tui.main", "serve", "--open", "--port", "0", "--cold",
                                 "--admin-port", str(port)], capture_output=True, text=True, timeout=60,
                                env=dict(os.environ, KOMA_DATA_DIR=str(tmp_path)))
    assert result.returncode == 2, result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith(f"koma: error: cannot listen on 127.0.0.1:{port} for the admin listener"), result.stderr
