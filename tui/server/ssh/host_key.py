"""The server's SSH host key: made once (ed25519, mode 0600, written atomically), then reused by every replica given it;
and the server's part of ``koma doctor`` (:func:`serving_health`).  asyncssh is imported only to read or make a key.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.server.private_files import default_key_path, key_dir, make_private, why_not_written

if TYPE_CHECKING:
    from solver.tools.doctor import Problem
    from tui.patches.asyncssh_import import asyncssh

HOST_KEY_NAME = "ssh_host_ed25519_key"  # in the key dir, unless koma serve --host-key names another file


def default_host_key_path(log: Callable[[str], None] = lambda line: None) -> Path:
    """Where the host key is kept by default (one left in the data dir by an earlier Koma is moved there)."""
    return default_key_path(HOST_KEY_NAME, log)


def host_key(path: Path, log: Callable[[str], None] = lambda line: None) -> asyncssh.SSHKey:
    """The server's ed25519 host key: generated on first start (mode 0600, written atomically), then reused."""
    from tui.patches.asyncssh_import import asyncssh

    if path.exists():
        try:
            key = asyncssh.read_private_key(str(path))
            make_private(path, log)
            return key
        except (OSError, asyncssh.KeyImportError) as problem:
            raise ValueError(f"cannot read the host key {path}: {getattr(problem, 'strerror', None) or problem}") from None
    key = asyncssh.generate_private_key("ssh-ed25519", comment="koma serve")
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(descriptor, "wb") as handle:
                handle.write(key.export_private_key())
            os.link(temp, path)  # never replaces a key that a replica starting at the same time wrote first
        finally:
            os.unlink(temp)
    except FileExistsError as problem:
        if problem.filename2 != str(path):  # not the link to the key: a file where a folder should be
            raise ValueError(f"cannot write the host key {path}: {why_not_written(path, problem)}") from None
        return asyncssh.read_private_key(str(path))
    except OSError as problem:
        raise ValueError(f"cannot write the host key {path}: {why_not_written(path, problem)}") from None
    key.write_public_key(str(path) + ".pub")
    log(f"generated the host key {path}")
    return key


def serving_health(report: dict[str, Any]) -> tuple[dict[str, Any], list[Problem]]:
    """``koma doctor``'s figures about serving (asyncssh installed, the default host key) and its advice."""
    try:
        have_asyncssh = bool(metadata.version("asyncssh"))
    except metadata.PackageNotFoundError:
        have_asyncssh = False
    path = key_dir() / HOST_KEY_NAME
    problems = [] if have_asyncssh else [{"problem": "asyncssh is missing, so 'koma serve' is unavailable",
                                          "fix": "pip install -e '.[ssh]'", "severity": "advice"}]
    return {"asyncssh": have_asyncssh, "host_key": str(path), "host_key_exists": path.exists()}, problems


def serving_line(serve: dict[str, Any]) -> str:
    return (f"serve         asyncssh={'yes' if serve['asyncssh'] else 'no'}  host key {serve['host_key']}"
            f" ({'present' if serve['host_key_exists'] else 'not generated yet'})")
