"""The product's notices: one-line messages for the player or the operator (a cache rebuilt, a patch that stepped
aside), kept until a front end shows them: the command line prints them on stderr, the game shows them as
notifications.  The solver's caches tell theirs here (:func:`solver.engines.cache_files.send_notices_to`, set when
:mod:`tui` is imported)."""

from __future__ import annotations

import threading

_kept: list[str] = []
_keeping = threading.Lock()  # a kernel's notice may come from a worker thread


def post(message: str) -> None:
    """Keep ``message`` for the next :func:`drain`."""
    with _keeping:
        _kept.append(message)


def drain() -> list[str]:
    """The notices since the last call, oldest first."""
    with _keeping:
        out = list(_kept)
        _kept.clear()
    return out
