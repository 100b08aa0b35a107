"""Where Koma keeps its files: the one place that knows the data directory and the table cache.

``$KOMA_DATA_DIR`` and ``$KOMA_CACHE_DIR`` override the per-user platform directories (tests, servers and several
installs on one machine use them); both are read at each use.  The solver is told where its table cache is
(:func:`solver.engines.cache_files.use_tables_dir`) when :mod:`tui` is imported.
"""

from __future__ import annotations

import os
from pathlib import Path

from solver.engines.cache_files import default_cache_root


def data_dir() -> Path:
    """Where saves, stats, the keymap and the server's host key live."""
    override = os.environ.get("KOMA_DATA_DIR")
    if override:
        return Path(override)
    from platformdirs import user_data_path

    return user_data_path("koma")


def user_cache_root() -> Path:
    """The per-user cache directory (numba's compiled kernels live under it)."""
    return default_cache_root()


def tables_dir() -> Path:
    """Where the big tables live: ``$KOMA_CACHE_DIR/tables`` or the user cache dir's."""
    override = os.environ.get("KOMA_CACHE_DIR")
    if override:
        return Path(override) / "tables"
    return user_cache_root() / "tables"
