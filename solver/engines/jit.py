"""numba's ``njit`` as every Koma kernel module gets it: importing this first repairs and guards the kernel cache.

Kernels are loaded from numba's on-disk cache at their first call, which is always after their module
imported ``njit`` from here, so :func:`solver.engines.jit_cache.prepare` has run by then (once per process:
the CLI, the game, the server's warm process).  Other numba programs on the machine are left alone.
"""

from __future__ import annotations

from numba import njit

from solver.engines.jit_cache import prepare

prepare()

__all__ = ["njit"]
