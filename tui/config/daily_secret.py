"""The server secret the daily boards are drawn from, so that no one can compute a day's boards before it comes.

``$KOMA_DAILY_SECRET_FILE`` names a file the operator gives (replicas behind one balancer share it, as they share a
host key); otherwise the secret is ``daily-secret`` in the data dir, made once (32 random bytes, hex, mode 0600) by
the first Koma that needs it: a single-player ``koma`` keeps its own.  Read once a process (per path), so the warm
process reads it before it forks games.
"""

from __future__ import annotations

import contextlib
import functools
import os
import secrets
from pathlib import Path

from solver.errors import KomaError
from tui.config.paths import data_dir

SECRET_VARIABLE = "KOMA_DAILY_SECRET_FILE"
SECRET_NAME = "daily-secret"
MIN_SECRET_BYTES = 16


def daily_secret_path() -> Path:
    """Where the daily boards' secret is: the operator's file, else the data dir's."""
    given = os.environ.get(SECRET_VARIABLE)
    return Path(given) if given else data_dir() / SECRET_NAME


def daily_secret() -> bytes:
    """The daily boards' secret (made in the data dir at first use when no file is given); KomaError (one line)
    when a given file cannot be read or is too short to be a secret."""
    return _secret_at(daily_secret_path(), os.environ.get(SECRET_VARIABLE) is None)


@functools.lru_cache(maxsize=4)
def _secret_at(path: Path, make: bool) -> bytes:
    if make and not path.exists():
        _make_secret(path)
    try:
        secret = path.read_bytes().strip()
    except OSError as problem:
        raise KomaError(f"cannot read the daily boards' secret {path}: {problem.strerror}") from None
    if len(secret) < MIN_SECRET_BYTES:
        raise KomaError(f"the daily boards' secret {path} has {len(secret)} bytes; give at least {MIN_SECRET_BYTES} "
                        "(e.g. `openssl rand -hex 32`)")
    return secret


def _make_secret(path: Path) -> None:
    """Write a new secret to ``path`` whole or not at all: two processes making it at once agree on the first."""
    path.parent.mkdir(parents=True, exist_ok=True)
    draft = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "w") as out:
            out.write(secrets.token_hex(32) + "\n")
            out.flush()
            os.fsync(out.fileno())
        try:
            os.link(draft, path)
        except FileExistsError:  # another process made it first: theirs holds
            pass
        except OSError:  # a filesystem without hard links (FUSE, some network ones): a rename, unless one is there
            if not path.exists():
                os.replace(draft, path)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(draft)
