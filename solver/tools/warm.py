"""The puzzles a warm process loads before it forks games, and their first compile, in a process of its own.

On a fresh install (or after an upgrade of the solver) the kernels of these puzzles are not in numba's cache yet:
compiling them takes 8 CPU-seconds or more.  ``koma serve``'s warm process does not wait for that before it serves games:
it runs ``python -m solver.tools.warm`` beside it, which compiles the kernels (and builds their tables) into the
shared caches, and when that is done, loads them from there itself (:func:`warmed`).  A game that needs a kernel
meanwhile waits for its compile lock and loads it (:mod:`solver.engines.jit_cache`): nothing is compiled twice.

Two processes run beside (:func:`start_beside`): one compiles the 15-puzzle's search with a stand-in table
(:func:`solver.sliding.search.compile_database_search`) while the other compiles the table's builder and builds it,
so the two halves of a fresh install's first 15-puzzle solve compile at once, on two cores; then the first warms the
other puzzles.  ``koma`` starts them too, before it loads its interface: its own process then only loads what they
made (no compile holds its interface up; a 15-puzzle opened meanwhile waits for the table, :func:`table_built`).  They
stop when the process that started them goes (``--parent``).  What goes wrong in them (their stderr) is in
``koma-warm-beside-PART.log`` beside the marker (:func:`beside_log`), one start's at a time.

A marker in the kernel cache, named after the solver's sources (:func:`marker`), says the whole list was warmed with
this cache: a process that finds it loads the kernels at once, as ever.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

from solver.engines.jit_cache import sources_digest, status

PARENT_CHECK_SECONDS = 0.5

# What a player can open from the home screen with one key; other sizes warm up in the game itself.
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
    from solver import solving as search
    from solver.registry import get_puzzle

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


PARTS = ("search", "table")  # what each process beside does first (see main)
TABLE_BUILT = "table built"  # the line the ``table`` part writes on its stdout once the 15-puzzle's table is in the cache


def needs_the_table(puzzle) -> bool:
    """Whether ``puzzle``'s first solve needs the table that the ``table`` part builds (the 15-puzzle's 6-6-3)."""
    return (getattr(puzzle, "width", None), getattr(puzzle, "height", None)) == (4, 4)


def table_built() -> bool:
    """Whether the table that the ``table`` part builds is in the table cache (complete: it is renamed into place)."""
    from solver.sliding.tables import tables_present

    return tables_present("pdb663")


def command(parent: int, part: str = "search") -> list[str]:
    """The command line of the process beside ``parent`` that does ``part`` (one of :data:`PARTS`), with this process's
    table cache."""
    from solver.engines.tables import cache_dir

    return [sys.executable, "-m", "solver.tools.warm", "--parent", str(parent), "--part", part, "--tables", str(cache_dir())]


def beside_log(part: str) -> Path | None:
    """Where the process beside that does ``part`` writes what went wrong (its stderr), beside the marker; None
    without a cache."""
    path = marker()
    return None if path is None else path.with_name(f"koma-warm-beside-{part}.log")


def needed() -> bool:
    """Whether a process beside would compile anything: the kernels are not all in a cache it shares with this one."""
    return marker() is not None and not warmed()


def start_beside(parent: int | None = None) -> dict[str, subprocess.Popen]:
    """Start the processes beside this one (see the module's docstring), one per part of :data:`PARTS` (by part), if
    :func:`needed`; they stop when ``parent`` (this process) goes.  None started if not needed, or if one cannot start
    (this process then compiles what it needs itself, as ever)."""
    if not needed():
        return {}
    started: dict[str, subprocess.Popen] = {}
    with contextlib.ExitStack() as closing:  # the processes hold their own copies of their logs
        try:
            for part in PARTS:
                log = beside_log(part)
                errors: IO[bytes] | int = subprocess.DEVNULL
                if log is not None:
                    with contextlib.suppress(OSError):
                        errors = closing.enter_context(open(log, "wb"))  # this start's: the last one's is replaced
                said = subprocess.PIPE if part == "table" else subprocess.DEVNULL  # it says when its table is built
                started[part] = subprocess.Popen(command(parent or os.getpid(), part), stdin=subprocess.DEVNULL,
                                                 stdout=said, stderr=errors)
        except OSError:
            for process in started.values():
                process.terminate()
            return {}
    return started


def _stop_when_orphaned(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_SECONDS)
    os.kill(os.getpid(), signal.SIGTERM)  # as a stop by the parent: temporary files removed on the way out


def main(argv: list[str]) -> int:
    """``python -m solver.tools.warm [--parent PID] [--part search|table] [--tables DIR]``.

    ``search`` (the default): the 15-puzzle's search with a stand-in table, then every puzzle of :data:`WARM_PUZZLES`
    (loading what the other part made), then the marker; ``table``: the 15-puzzle's table (its builder, then the
    build; then the line :data:`TABLE_BUILT` on stdout), then its search (waiting for the other part's compile).
    The two run at once, on two cores.  One line on stderr per failure; 0 if all went well.  SIGTERM ends it as an
    exit does, so a table half written is removed (:mod:`solver.engines.tables`); so does the end of process PID.
    Tables go to ``DIR`` (the parent's table cache); the caches' notices are the parent's to show (it meets the same
    files), so none is told here."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    parser = argparse.ArgumentParser(prog="python -m solver.tools.warm")
    parser.add_argument("--parent", type=int, metavar="PID")
    parser.add_argument("--part", choices=PARTS, default="search")
    parser.add_argument("--tables", type=Path, metavar="DIR", help="the table cache (default: the solver's)")
    arguments = parser.parse_args(argv)
    from solver.engines import cache_files

    if arguments.tables is not None:
        cache_files.use_tables_dir(arguments.tables)
    cache_files.send_notices_to(lambda _message: None)
    if arguments.parent is not None:
        threading.Thread(target=_stop_when_orphaned, args=(arguments.parent,), daemon=True).start()

    def failed(name: str, problem: Exception) -> None:
        print(f"{arguments.part} (process {os.getpid()}): could not warm the {name} puzzle "
              f"({type(problem).__name__}: {problem})", file=sys.stderr, flush=True)

    if arguments.part == "table":
        from solver import solving as search
        from solver.registry import get_puzzle
        from solver.sliding.tables import build_tables

        try:
            build_tables("6-6-3")
            print(TABLE_BUILT, flush=True)  # whoever waits for the table (the interface) may load it now
            search.warm(get_puzzle("15", None))
        except Exception as problem:
            failed("15", problem)
            return 1
        return 0
    try:
        from solver.sliding.search import compile_database_search

        compile_database_search()
    except Exception as problem:
        failed("15", problem)
    return 0 if warm_all(failed) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
