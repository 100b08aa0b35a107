"""The server's SSH host key: made once (ed25519, mode 0600, written atomically), then reused by every replica given it."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import asyncssh

from .private_files import make_private


def host_key(path: Path, log: Callable[[str], None] = lambda line: None) -> asyncssh.SSHKey:
    """The server's ed25519 host key: generated on first start (mode 0600, written atomically), then reused."""
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


def why_not_written(path: Path, problem: OSError) -> str:
    """What stops a file being written at ``path``: a folder on its way that is a file, else the system's reason."""
    for folder in reversed(path.parents):
        if folder.exists() and not folder.is_dir():
            return f"{folder} is not a directory"
    return problem.strerror or str(problem)
