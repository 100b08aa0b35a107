"""Where Koma keeps its files: the one place that knows the data and cache directories.

``$KOMA_DATA_DIR`` and ``$KOMA_CACHE_DIR`` override the per-user platform directories (tests,
servers and several installs on one machine use them).
"""

from __future__ import annotations

import os
from pathlib import Path


def data_dir() -> Path:
    """Where saves, stats, the keymap and the server's host key live."""
    override = os.environ.get("KOMA_DATA_DIR")
    if override:
        return Path(override)
    from platformdirs import user_data_path

    return user_data_path("koma")


def user_cache_root() -> Path:
    """The per-user cache directory (numba's compiled kernels live under it)."""
    from platformdirs import user_cache_path

    return user_cache_path("koma")


def tables_dir() -> Path:
    """Where the big tables live: ``$KOMA_CACHE_DIR/tables`` or the user cache dir's."""
    override = os.environ.get("KOMA_CACHE_DIR")
    if override:
        return Path(override) / "tables"
    return user_cache_root() / "tables"
