"""What Koma's on-disk caches share: one-line notices for the user, and throwing a bad file away.

Everything in a cache directory can be rebuilt, so a file that cannot be trusted (truncated, garbage,
empty, a directory where a file should be) is removed and rebuilt, and the user is told in one
line.  The notices wait here until a front end shows them: the CLI prints them on stderr, the game
and the server drain them with :func:`drain_notices`.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

Notice = Callable[[str], None]
_notices: list[str] = []


def post(message: str, notice: Notice | None = None) -> None:
    """Keep ``message`` for :func:`drain_notices` and pass it to ``notice`` if given."""
    _notices.append(message)
    if notice is not None:
        notice(message)


def drain_notices() -> list[str]:
    """The notices about every cache (tables, compiled kernels) since the last call."""
    out = list(_notices)
    _notices.clear()
    return out


def discard(path: Path) -> bool:
    """Remove the bad cache entry at ``path``, whatever it is (file, link, directory); False if it stays."""
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)
    except OSError:
        return False
    return True
