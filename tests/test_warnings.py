"""A dependency's warning never reaches a player or the server's log raw: asyncssh's known one is filtered where the
product imports asyncssh (narrowly), any other becomes one line (the CLI's, or an event of the server's log), and the
entry points import cleanly with warnings turned into errors for Koma's own modules."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HAVE_SERVERS = all(__import__("importlib").util.find_spec(name) for name in ("asyncssh", "aiohttp"))
ENTRY_POINTS = [
    "tui.main",  # koma
    "tui.launch",  # koma, koma play: the game
    "tui.app",
    "tui.zygote",  # the warm process koma serve forks games from
    "solver.tools.cli",  # koma solve, parity, longest, generate
    "solver.solving",
]
SERVER_ENTRY_POINTS = ["tui.server.ssh.server", "tui.server.web.server"]  # koma serve, koma web


def python(code: str, **environment: str) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONWARNINGS"}
    env.update(environment)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT, env=env)


@pytest.mark.skipif(not HAVE_SERVERS, reason="the ssh and web extras are not installed")
def test_importing_asyncssh_the_products_way_writes_nothing():
    result = python("import tui.patches.asyncssh_import")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


@pytest.mark.skipif(not HAVE_SERVERS, reason="the ssh and web extras are not installed")
def test_the_filter_is_narrow_another_warning_from_asyncssh_still_shows():
    code = ("import warnings, tui.patches.asyncssh_import\n"
            "warnings.warn_explicit('something else', UserWarning, 'asyncssh/x.py', 1, module='asyncssh.x')\n"
            "from cryptography.utils import CryptographyDeprecationWarning\n"
            "warnings.warn_explicit('DSA elsewhere', CryptographyDeprecationWarning, 'other.py', 1, module='other')\n")
    result = python(code)
    assert result.returncode == 0, result.stderr
    assert "something else" in result.stderr  # another category from asyncssh
    assert "DSA elsewhere" in result.stderr  # that category from another module


@pytest.mark.parametrize("module", ENTRY_POINTS + SERVER_ENTRY_POINTS)
def test_every_entry_point_imports_without_a_warning_from_koma(module):
    if module in SERVER_ENTRY_POINTS and not HAVE_SERVERS:
        pytest.skip("the ssh and web extras are not installed")
    code = ("import warnings\n"
            "warnings.filterwarnings('error', module=r'(tui|solver)(\\.|$)')\n"
            f"import {module}\n")
    result = python(code)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


def test_the_product_imports_asyncssh_only_through_the_quiet_import():
    offenders = []
    for path in sorted((ROOT / "tui").rglob("*.py")) + sorted((ROOT / "solver").rglob("*.py")):
        if path.name == "asyncssh_import.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if any(name == "asyncssh" or name.startswith("asyncssh.") for name in names):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == []


def test_a_warning_in_the_server_is_one_json_line_of_its_log():
    code = ("import warnings\n"
            "from tui.server.server_log import use_format\n"
            "use_format('json')\n"
            "warnings.warn('a library complains\\nover two lines', DeprecationWarning, stacklevel=1)\n")
    result = python(code, PYTHONWARNINGS="always")
    lines = result.stderr.splitlines()
    assert result.returncode == 0
    assert len(lines) == 1, result.stderr
    event = json.loads(lines[0])
    assert event["event"] == "warning"
    assert event["category"] == "DeprecationWarning"
    assert "a library complains" in event["message"]


def test_a_warning_in_a_command_is_one_line():
    code = ("import sys, warnings\n"
            "import tui.cli as cli\n"
            "real = cli.run\n"
            "def run(handler, args):\n"
            "    warnings.warn('a library complains\\nover two lines', UserWarning, stacklevel=1)\n"
            "    return real(handler, args)\n"
            "cli.run = run\n"
            "from tui.main import main\n"
            "sys.exit(main(['parity', '8', '1 2 3 4 5 6 7 8 0']))\n")
    result = python(code)
    assert result.returncode == 0, result.stderr
    assert result.stderr == "koma: warning: UserWarning: a library complains over two lines\n"
