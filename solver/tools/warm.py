"""The puzzles a warm process loads before it forks games, and their first compile, in a process of its own.

On a fresh install (or after an upgrade of the solver) the kernels of these puzzles are not in numba's cache yet:
compiling them takes 8 CPU-seconds or more.  ``koma serve``'s warm process does not wait for that before it serves games:
it runs ``python -m solver.tools.warm`` beside it, which compiles the kernels (and builds their tables) into the
shared caches, and when that is done, loads them from there itself (:func:`warmed`).  A game that needs a kernel
meanwhile waits for its compile lock and loads it (:mod:`solver.engines.jit_cache`): nothing is compiled twice.

A marker in the kernel cache, named after the solver's sources (:func:`marker`), says the whole list was warmed with
this cache: a process that finds it loads the kernels at once, as ever.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable
from pathlib import Path

from solver import solving as search
from solver.engines.jit_cache import sources_digest, status
from solver.registry import get_puzzle

WARM_PUZZLES = (("8", None), ("15", None), ("goat", None), ("ura", "3x3"))


def marker() -> Path | None:
    """The file that says :data:`WARM_PUZZLES` were all warmed with the kernel cache in use (None: no usable cache,
    kernels compile in a temporary one, per process)."""
    cache = status()
    if cache.temporary or cache.active is None:
        return None
    return cache.active / f"koma-warmed-{sources_digest()}"


def warmed() -> bool:
    """Whether the kernels and tables of :data:`WARM_PUZZLES` are in the caches (the marker is there)."""
    path = marker()
    return path is not None and path.exists()


def warm_all(failed: Callable[[str, Exception], None]) -> bool:
    """Load (or compile and build) every puzzle of :data:`WARM_PUZZLES`; ``failed(name, problem)`` for each that
    fails.  Leaves the marker when all of them were warmed; True then."""
    whole = True
    for name, size in WARM_PUZZLES:
        try:
            search.warm(get_puzzle(name, size))
        except Exception as problem:
            failed(name, problem)
            whole = False
    path = marker()
    if whole and path is not None:
        try:
            path.touch()
        except OSError:
            pass  # the next start compiles nothing either way: it only warms in its own process again
    return whole


def main() -> int:
    """``python -m solver.tools.warm``: warm every puzzle; one line on stderr per failure; 0 if all were warmed.
    SIGTERM ends it as an exit does, so a table half written is removed (:mod:`solver.engines.tables`)."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    return 0 if warm_all(lambda name, problem: print(f"could not warm the {name} puzzle ({problem})",
                                                     file=sys.stderr)) else 1


if __name__ == "__main__":
    sys.exit(main())
