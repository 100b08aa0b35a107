"""numba's ``njit`` as every Koma kernel module gets it: importing this first repairs and guards the kernel cache.

Kernels are loaded from numba's on-disk cache at their first call, which is always after their module
imported ``njit`` from here, so :func:`solver.engines.jit_cache.prepare` has run by then (once per process:
the CLI, the game, the server's warm process).  Other numba programs on the machine are left alone.

Each dispatcher this ``njit`` makes with ``cache=True`` compiles under a per-kernel lock shared by every process
on the machine (:func:`solver.engines.jit_cache.with_compile_lock`): a kernel several processes need at once is
compiled by one of them and loaded from the cache by the others.  Kernels given signatures (compiled by numba
inside the decorator, before this sees them) compile without it; Koma's kernels are all compiled lazily.
"""

from __future__ import annotations

from typing import Any

from solver.engines.jit_cache import configure, prepare, with_compile_lock

configure()  # before numba is imported here, so it reads NUMBA_CACHE_DIR as Koma set it
from numba import njit as numba_njit  # noqa: E402

prepare()


def njit(*args: Any, **options: Any) -> Any:
    """numba's ``njit`` (same arguments), its dispatchers compiling under the kernel's cross-process lock."""
    made = numba_njit(*args, **options)
    if hasattr(made, "py_func"):  # @njit without arguments: the dispatcher itself
        return with_compile_lock(made)

    def decorate(function: Any) -> Any:
        return with_compile_lock(made(function))

    return decorate


__all__ = ["njit"]
