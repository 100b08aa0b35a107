"""deploy/: the systemd unit starts koma with options that exist, and ``koma serve --database`` fails plainly."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

from serve_helpers import KOMA

from tui.server.options import add_serve_command, options_from

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def unit_commands(unit: Path) -> list[list[str]]:
    """The unit's ExecStartPre/ExecStart command lines (continuations joined), split like systemd does."""
    text = unit.read_text().replace("\\\n", " ")
    return [shlex.split(line.split("=", 1)[1]) for line in text.splitlines() if line.startswith(("ExecStart=", "ExecStartPre="))]


def test_the_unit_runs_koma_with_options_koma_has():
    from solver.tools.cli import build_parser

    commands = unit_commands(DEPLOY / "koma-serve.service")
    assert [c[1] for c in commands] == ["tables", "serve"]
    parser = build_parser([add_serve_command])
    for command in commands:
        assert Path(command[0]).name == "koma"
        args = parser.parse_args(command[1:])  # a usage error raises
    options = options_from(args)
    assert options.proxy_protocol and options.host_key == "/etc/koma/ssh_host_ed25519_key" and options.open


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
