"""What the solver's on-disk caches share: where the table cache lives, where their notices go, and throwing a bad
file away.

Everything in a cache directory can be rebuilt, so a file that cannot be trusted (truncated, garbage, empty, a
directory where a file should be) is removed and rebuilt, and the user is told in one line.  The solver owns
neither the directory nor the channel: the program using it says once where tables live (:func:`use_tables_dir`)
and where the one-line notices go (:func:`send_notices_to`).  Without that, tables live in the per-user cache
directory and notices are warnings of the ``solver`` logger.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable
from pathlib import Path

Notice = Callable[[str], None]
_tables_dir: Callable[[], Path] | None = None
_listener: Notice | None = None


def default_cache_root() -> Path:
    """The per-user cache directory (the default of the table cache's parent; numba's compiled kernels live under it)."""
    from platformdirs import user_cache_path

    return user_cache_path("koma")


def use_tables_dir(where: Path | Callable[[], Path] | None) -> None:
    """Keep tables in ``where`` (a directory, or a function asked at each use); None: the default again."""
    global _tables_dir
    _tables_dir = where if where is None or callable(where) else (lambda: where)


def tables_dir() -> Path:
    """Where the big tables live: what :func:`use_tables_dir` was given, else ``tables`` in the per-user cache."""
    return _tables_dir() if _tables_dir is not None else default_cache_root() / "tables"


def send_notices_to(listener: Notice | None) -> None:
    """Send every cache's one-line notices (tables, compiled kernels) to ``listener``; None: the ``solver`` logger."""
    global _listener
    _listener = listener


def post(message: str, notice: Notice | None = None) -> None:
    """Tell ``message`` to the listener (:func:`send_notices_to`), and to ``notice`` too if given."""
    if _listener is not None:
        _listener(message)
    else:
        logging.getLogger("solver").warning(message)
    if notice is not None:
        notice(message)


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
