"""``koma serve`` on the command line: without asyncssh, bad options, and the host key kept in the data dir."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from serve_helpers import HAVE_ASYNCSSH


def run_koma(*code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "\n".join(code)], capture_output=True, text=True, timeout=60)


def test_without_asyncssh_serve_says_how_to_install_it():
    result = run_koma("import sys", "sys.modules['asyncssh'] = None  # as if it were not installed",
                      "from tui.main import main", "sys.exit(main(['serve', '--open']))")
    assert result.returncode == 2
    assert result.stderr.strip() == "koma: error: asyncssh is missing: pip install -e '.[ssh]'"
    assert "textual" not in run_koma("import sys, solver.cli", "print(' '.join(sys.modules))").stdout


@pytest.mark.skipif(not HAVE_ASYNCSSH, reason="asyncssh is not installed (pip install -e '.[ssh]')")
@pytest.mark.parametrize("arguments, message", [
    ([], "one of the arguments --authorized-keys --open is required"),
    (["--open", "--authorized-keys", "k"], "not allowed with argument"),
    (["--open", "--port", "70000"], "--port 70000 is out of range"),
    (["--open", "--max-sessions", "0"], "--max-sessions 0 is out of range"),
    (["--authorized-keys", "/nonexistent/keys"], "cannot read the authorized keys /nonexistent/keys"),
])
def test_bad_serve_options_are_one_line(arguments, message, tmp_path):
    result = run_koma("import sys", "from tui.main import main", f"sys.exit(main(['serve', *{arguments!r}]))")
    assert result.returncode == 2 and message in result.stderr and len(result.stderr.strip().splitlines()) == 1


@pytest.mark.skipif(not HAVE_ASYNCSSH, reason="asyncssh is not installed (pip install -e '.[ssh]')")
def test_the_host_key_is_made_once_with_mode_0600_and_reused(tmp_path):
    from tui.serve import host_key

    path = tmp_path / "data" / "ssh_host_ed25519_key"
    first = host_key(path)
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert host_key(path).get_fingerprint() == first.get_fingerprint()
    os.chmod(path, 0o644)
    assert host_key(path).get_fingerprint() == first.get_fingerprint()
    assert os.stat(path).st_mode & 0o777 == 0o600  # loose permissions are tightened
