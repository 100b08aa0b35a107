"""Koma's puzzle models and solvers: numpy + numba only, never Textual.

Importing this package points numba's on-disk cache at a per-user directory keyed by a hash of
the solver sources.  Numba only invalidates a cached function when *its own* file changes, but our
per-puzzle kernels inline the shared engines from other files; keying the whole cache directory on
every solver source keeps a stale engine from ever being loaded.  It also keeps the cache writable
when the package is installed read-only (several SSH users sharing one install).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

__all__ = ["numba_cache_dir"]

_SOURCES = Path(__file__).resolve().parent
STALE_SECONDS = 7 * 24 * 3600


def _sources_digest() -> str:
    digest = hashlib.blake2b(digest_size=8)
    for path in sorted(_SOURCES.rglob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def numba_cache_dir() -> Path:
    """The numba cache directory for this exact version of the solver sources."""
    from solver.engines.paths import user_cache_root

    return user_cache_root() / "numba" / _sources_digest()


def _configure_numba_cache() -> None:
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    try:
        cache_dir = numba_cache_dir()
        cache_dir.mkdir(parents=True, exist_ok=True)
        os.utime(cache_dir)  # marks this version as in use
        import shutil
        import time

        for stale in cache_dir.parent.iterdir():  # versions nobody has used for a week
            if stale != cache_dir and stale.is_dir() and time.time() - stale.stat().st_mtime > STALE_SECONDS:
                shutil.rmtree(stale, ignore_errors=True)
    except OSError:
        return  # numba falls back to __pycache__ or compiles without caching
    os.environ["NUMBA_CACHE_DIR"] = str(cache_dir)
    import sys

    if "numba" in sys.modules:  # numba read its config already: tell it directly
        from numba.core import config

        config.CACHE_DIR = str(cache_dir)  # type: ignore[attr-defined]


_configure_numba_cache()
