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
