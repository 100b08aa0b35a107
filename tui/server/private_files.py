"""The server's secrets on disk (the SSH host key, the cookie key): readable by the server's user alone.

A key file whose mode lets anyone else read it is made private (mode 0600) with one line in the log, or, when
the server may not change it, refused with one line saying what to do.  New ones are written atomically at
mode 0600.  Imports neither asyncssh, aiohttp nor Textual.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

from tui.config.paths import data_dir


def make_private(path: Path, log: Callable[[str], None]) -> None:
    """Make the key at ``path`` readable by its owner alone; ValueError (one line) if that cannot be done."""
    mode = stat.S_IMODE(path.stat().st_mode)
    if not mode & 0o077:
        return
    try:
        os.chmod(path, mode & 0o700 | 0o600)
    except OSError as problem:
        raise ValueError(f"{path} is readable by others (mode {mode:04o}) and cannot be made private "
                         f"({problem.strerror or problem}): chmod 600 it") from None
    log(f"{path} was readable by others (mode {mode:04o}); made it 0600")


def write_private(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` at mode 0600, atomically (a reader sees the old file or the new, whole)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    descriptor = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


KEY_DIR_VARIABLE = "KOMA_KEY_DIR"


def key_dir() -> Path:
    """Where the server keeps its keys unless told otherwise: ``$KOMA_KEY_DIR``, else a folder beside the data dir
    (``koma-keys`` beside ``koma``), never in it: games write new files in the data dir, and the games' sandbox
    (:mod:`tui.server.sandbox`) can keep them from a folder only if that folder is not on the way to theirs."""
    override = os.environ.get(KEY_DIR_VARIABLE)
    if override:
        return Path(override)
    data = data_dir()
    return data.with_name(f"{data.name}-keys")


def default_key_path(name: str, log: Callable[[str], None]) -> Path:
    """The key ``name`` in :func:`key_dir`; one an earlier Koma left in the data dir is moved there first (one line
    in the log), so the server keeps presenting the same key."""
    path = key_dir() / name
    old = data_dir() / name
    if not path.exists() and old.is_file():
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            os.replace(old, path)
        except OSError as problem:
            raise ValueError(f"cannot move the key {old} to {path}: {problem.strerror or problem}") from None
        public = old.with_name(old.name + ".pub")  # the host key's public half, if it was written beside it
        if public.exists():
            os.replace(public, path.with_name(public.name))
        log(f"moved the key {old} to {path}: games may not read it there")
    return path


def why_not_written(path: Path, problem: OSError) -> str:
    """What stops a file being written at ``path``: a folder on its way that is a file, else the system's reason."""
    for folder in reversed(path.parents):
        if folder.exists() and not folder.is_dir():
            return f"{folder} is not a directory"
    return problem.strerror or str(problem)
