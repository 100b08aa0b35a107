"""Koma's puzzle models and solvers: numpy + numba only, never Textual.

Importing this package points numba's on-disk cache at a usable per-user directory keyed by the
solver sources (see :mod:`solver.engines.jit_cache`).
"""

from __future__ import annotations

from solver.engines.jit_cache import configure, numba_cache_dir

__all__ = ["numba_cache_dir"]

configure()
