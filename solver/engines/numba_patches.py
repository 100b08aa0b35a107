"""The one module that touches numba's internals: every patch Koma puts on numba, and every private name it uses.

Three seams, each checked once when this module is imported; a seam that is not what the patch was written for
is left alone, the patch steps aside (numba then behaves as shipped) and one notice says so
(:func:`solver.engines.cache_files.post`):

* ``Cache.load_overload`` / ``save_overload`` (:func:`guard_cache`): a cached kernel that cannot be loaded or saved
  is a miss, not a crash; a Koma kernel's load skips numba's refresh of its target context (the lean load,
  which needs ``Cache._load_overload``, ``Cache._guard_against_spurious_io_errors`` and ``rtsys.initialize``);
* ``Dispatcher.compile`` (:func:`lock_compiles`): an instance attribute over numba's bound method, so a kernel is
  compiled under a lock file shared by every process on the machine;
* ``numba.core.config.CACHE_DIR`` (:func:`point_cache_at`), set after numba was imported.

The policy (what a failure removes, what the user is told, where the lock files are) is
:mod:`solver.engines.jit_cache`'s; this module only fits it to numba.  ``tests/test_architecture.py`` checks that no
other module names these internals.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numba
import numba.core.caching
import numba.core.compiler_lock
import numba.core.dispatcher
import numba.core.registry
import numba.core.runtime
from numba.core import config, sigutils

from solver.engines.cache_files import post


def _missing(wanted: dict[str, bool]) -> str | None:
    missing = [name for name, present in wanted.items() if not present]
    return ", ".join(missing) if missing else None


def _step_aside(patch: str, missing: str, instead: str) -> str:
    message = f"numba {numba.__version__} is not what Koma's {patch} was written for (no {missing}); {instead}"
    post(message)
    return message


Cache: Any = getattr(numba.core.caching, "Cache", None)
Dispatcher: Any = getattr(numba.core.dispatcher, "Dispatcher", None)
global_compiler_lock: Any = getattr(numba.core.compiler_lock, "global_compiler_lock", None)
rtsys: Any = getattr(numba.core.runtime, "rtsys", None)
cpu_target: Any = getattr(numba.core.registry, "cpu_target", None)

CACHE_SEAM_PROBLEM = _missing({"Cache.load_overload": callable(getattr(Cache, "load_overload", None)),
                               "Cache.save_overload": callable(getattr(Cache, "save_overload", None)),
                               "Cache.cache_path": hasattr(Cache, "cache_path")})
LEAN_LOAD_PROBLEM = _missing({"Cache._load_overload": callable(getattr(Cache, "_load_overload", None)),
                              "Cache._guard_against_spurious_io_errors":
                                  callable(getattr(Cache, "_guard_against_spurious_io_errors", None)),
                              "rtsys.initialize": callable(getattr(rtsys, "initialize", None))})
COMPILE_SEAM_PROBLEM = _missing({"Dispatcher.compile": callable(getattr(Dispatcher, "compile", None)),
                                 "Dispatcher.stats": isinstance(getattr(Dispatcher, "stats", None), property),
                                 "global_compiler_lock": hasattr(global_compiler_lock, "__enter__")})
if CACHE_SEAM_PROBLEM:
    _step_aside("cache guard", CACHE_SEAM_PROBLEM, "a damaged kernel cache may stop a solve (remove the numba cache)")
if COMPILE_SEAM_PROBLEM:
    _step_aside("compile lock", COMPILE_SEAM_PROBLEM,
                "kernels compile without the cross-process lock (processes starting at once may each compile them)")
# the lean load falls back on numba's own load, which is only slower: no notice


# --- numba's configuration ----------------------------------------------------------------------

def point_cache_at(directory: Path) -> None:
    """Have numba, already imported, keep its compiled kernels in ``directory`` (it read ``NUMBA_CACHE_DIR`` at import)."""
    config.CACHE_DIR = str(directory)  # type: ignore[attr-defined]


def load_compiler() -> None:
    """Import and install numba's typing and lowering registries now, as a process's first compile would."""
    cpu_target.target_context.refresh()


# --- the cache guard ----------------------------------------------------------------------------

def function_of(cache: Any) -> Any:
    """The Python function a numba cache object caches (None when it cannot be told)."""
    return getattr(cache, "_py_func", None)


def entry_files(cache: Any) -> tuple[Path, str]:
    """A cache object's directory and the base name of its index and data files."""
    return Path(cache.cache_path), cache._impl.filename_base


def lean_loader() -> Callable[[Any, Any, Any], Any] | None:
    """numba's ``Cache.load_overload`` without its first step, or None when this numba lacks what it relies on.

    numba refreshes its whole target context before it loads a cached overload: it imports and installs
    every typing and lowering registry (about 0.25 s, half of a ``koma solve``'s own time). A load needs
    none of that: it unpickles the compiled library, links it, and wraps its entry point. What the linked
    code calls must be known to LLVM: numba's C helpers and the math library (put there when the target
    context is made), the memory runtime (:func:`rtsys.initialize`, which the refresh also starts) and the
    hash secret (put there by importing ``numba.cpython.hashing``). A compile still refreshes the context
    first (numba's compiler does), so a process that loads some kernels and compiles others is whole.
    """
    if LEAN_LOAD_PROBLEM:
        return None

    def lean_load(cache, sig, target_context):
        rtsys.initialize(target_context)
        import numba.cpython.hashing  # noqa: F401  # its import gives LLVM the hash secret's symbols

        with cache._guard_against_spurious_io_errors():
            return cache._load_overload(sig, target_context)

    return lean_load


def guard_cache(is_ours: Callable[[Any], bool], load_failed: Callable[[Any, BaseException], None],
                save_failed: Callable[[Any, BaseException, Callable[[], None]], None]) -> bool:
    """Wrap numba's ``Cache.load_overload`` and ``save_overload`` (once): for a cache that ``is_ours``, a load goes the
    lean way (:func:`lean_loader`) and a failure is handed over instead of raised (a failed load is then a miss:
    numba compiles the kernel); ``save_failed(cache, problem, again)`` may call ``again()`` to save once more.
    Other caches keep numba's own behaviour.  False when the seam is not there (nothing is patched)."""
    if CACHE_SEAM_PROBLEM:
        return False
    if getattr(Cache.load_overload, "koma_guard", False):
        return True
    load, save = Cache.load_overload, Cache.save_overload
    lean = lean_loader()

    def guarded_load(cache, sig, target_context):
        try:
            if lean is not None and is_ours(cache):
                return lean(cache, sig, target_context)
            return load(cache, sig, target_context)
        except Exception as problem:
            if not is_ours(cache):
                raise
            load_failed(cache, problem)
            return None  # a miss: numba compiles the kernel and saves it again

    def guarded_save(cache, sig, data):
        try:
            save(cache, sig, data)
        except Exception as problem:
            if not is_ours(cache):
                raise
            save_failed(cache, problem, lambda: save(cache, sig, data))

    guarded_load.koma_guard = True  # type: ignore[attr-defined]
    Cache.load_overload = guarded_load
    Cache.save_overload = guarded_save
    return True


# --- the compile lock ---------------------------------------------------------------------------

def cache_path_of(dispatcher: Any) -> str | None:
    """Where numba caches a dispatcher's overloads (None: it does not cache them)."""
    return getattr(dispatcher.stats, "cache_path", None)


def compiled(dispatcher: Any, sig: Any) -> bool:
    """Whether ``dispatcher`` has an overload for ``sig`` already."""
    return tuple(sigutils.normalize_signature(sig)[0]) in dispatcher.overloads


def lock_compiles(dispatcher: Any, around: Callable[[Callable[[Any], Any], Any], Any], lock: Path) -> bool:
    """Route ``dispatcher``'s compiles through ``around(compile, sig)`` (which holds what it must, then calls
    ``compile(sig)``) by an instance attribute over numba's bound ``compile``: numba calls ``self.compile(sig)`` on a
    first call with new argument types, when a kernel being compiled calls it, and when asked.  The wrapper names its
    ``lock`` file (``koma_lock``).  False when the seam is not there (nothing is patched)."""
    if COMPILE_SEAM_PROBLEM:
        return False
    compile_unlocked = dispatcher.compile

    def compile_locked(sig):
        return around(compile_unlocked, sig)

    compile_locked.koma_lock = lock  # type: ignore[attr-defined]
    dispatcher.compile = compile_locked
    return True


__all__ = ["COMPILE_SEAM_PROBLEM", "global_compiler_lock"]
