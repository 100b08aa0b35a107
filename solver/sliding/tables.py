"""The sliding puzzles' pattern databases: which tiles, building them, caching and loading them.

* 6-6-3 (15-puzzle) is built at first use, in seconds, and cached on disk.
* 7-8 (15-puzzle, 576,576,000 entries) and 6-6-6-6 (24-puzzle, 510,048,000 entries) are built only on
  request (:func:`build_tables`, ``koma tables build``); solving memory-maps them.

Every database is built by the shared engine (:mod:`solver.engines.pdb`), ``BUILD_WORKERS`` patterns at
a time with ``BUILD_THREADS`` threads each, and kept in the table cache (:mod:`solver.engines.tables`):
written straight into the file as it is built (never whole in memory), checked on every load, rebuilt
when damaged.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from solver.engines.cache_files import discard
from solver.engines.pdb import build_memory_bytes, build_pattern, build_pattern_file, n_placements
from solver.engines.tables import Streamed, TableError, cached_table, read_table, table_path, write_streamed
from solver.errors import KomaError
from solver.sliding import dual as sliding_dual
from solver.sliding import search_kernels as search_kernels

Notice = Callable[[str], None]
Progress = Callable[[dict[str, Any]], None]

# Tiles of each pattern, for the goal 1..15 with the blank bottom-right.  6-6-3: the left column
# with the middle of the second one, the bottom-right block, and the rest of the top row (the
# best of several partitions tried on Korf's instances).  7-8: the top two rows, the bottom two.
# 6-6-6-6 for the 24-puzzle: Korf and Felner's partition (2002) in Koma's convention: three 2x3
# blocks (top-left, top-right, bottom-left) and the six tiles around the blank's corner.
PATTERNS = {
    "pdb663": ((1, 5, 6, 9, 10, 13), (7, 8, 11, 12, 14, 15), (2, 3, 4)),
    "pdb78": ((1, 2, 3, 4, 5, 6, 7, 8), (9, 10, 11, 12, 13, 14, 15)),
    "pdb6666": ((1, 2, 3, 6, 7, 8), (4, 5, 9, 10, 14, 15), (11, 12, 16, 17, 21, 22), (13, 18, 19, 20, 23, 24)),
}
WIDTHS = {"pdb663": 4, "pdb78": 4, "pdb6666": 5}  # the square board each database is for
TABLE_VERSION = 1
ALIASES = {"6-6-3": "pdb663", "663": "pdb663", "pdb663": "pdb663", "pdb-6-6-3": "pdb663",
           "7-8": "pdb78", "78": "pdb78", "pdb78": "pdb78", "pdb-7-8": "pdb78",
           "6-6-6-6": "pdb6666", "6666": "pdb6666", "pdb6666": "pdb6666"}
LABELS = {"pdb663": "6-6-3", "pdb78": "7-8", "pdb6666": "6-6-6-6"}
BUILD_COMMANDS = {"pdb663": "koma tables build 15", "pdb78": "koma tables build 15 --pdb 7-8",
                  "pdb6666": "koma tables build sliding --size 5x5"}
# The 24-puzzle searches in Korf and Felner's move order (the blank up, left, right, down on their board,
# which is Koma's turned half round), so that its node counts compare with theirs.
REVERSED_MOVES = {"pdb6666": True}
BUILD_WORKERS = {"pdb663": 1, "pdb78": 1, "pdb6666": 2}  # patterns built at once
# threads expanding each pattern's layers together (the 8-tile pattern: 2 threads on the 2-core box);
# 6-6-6-6 builds two patterns at once instead
BUILD_THREADS = {"pdb663": 2, "pdb78": 2, "pdb6666": 1}
PROCESS_BYTES = 160 << 20  # the interpreter, numpy, numba and the loaded kernels, measured before a build

_loaded: dict[str, np.ndarray] = {}
_load_lock = threading.Lock()
_building: dict[str, threading.Lock] = {}  # held while a table is built (see _load)

# --- tables -----------------------------------------------------------------------------------

def _canonical(name: str) -> str:
    key = str(name).strip().lower()
    if key not in ALIASES:
        raise KomaError(f"unknown pattern database {name!r}; choose 6-6-3 or 7-8 (4x4), or 6-6-6-6 (5x5)")
    return ALIASES[key]


def _cache_name(name: str) -> str:
    return f"fifteen-{name}" if WIDTHS[name] == 4 else f"twentyfour-{name}"


def table_requirements(name: str) -> dict[str, Any]:
    """What building and using pattern database ``name`` (``6-6-3``, ``7-8``, ``6-6-6-6``) takes, up front."""
    name = _canonical(name)
    groups, cells, workers = PATTERNS[name], WIDTHS[name] ** 2, BUILD_WORKERS[name]
    entries = sum(n_placements(cells, len(g)) for g in groups)
    # the bit planes of the patterns built at once; the values go straight into the file
    workspaces = sorted((build_memory_bytes(cells, len(g), WIDTHS[name]) for g in groups), reverse=True)
    build_peak = PROCESS_BYTES + sum(workspaces[:workers])
    return {
        "name": name,
        "label": LABELS[name],
        "board": f"{WIDTHS[name]}x{WIDTHS[name]}",
        "groups": [list(g) for g in groups],
        "entries": entries,
        "disk_bytes": entries + 256,  # one byte per entry plus the header and checksum trailer
        "build_memory_bytes": build_peak,
        "solve_memory_bytes": entries,  # memory-mapped, shared between processes
        "build_seconds_estimate": {"pdb663": 2, "pdb78": 30, "pdb6666": 60}[name],
        "build_command": BUILD_COMMANDS[name],
        "path": str(table_path(_cache_name(name))),
    }


def tables_present(name: str) -> bool:
    """Whether the table file exists (it is still checked when loaded)."""
    return table_path(_cache_name(_canonical(name))).exists()


def _build_into(name: str, progress: Progress | None, stop, target) -> None:
    """Every pattern of ``name`` end to end, built by the shared engine, ``BUILD_WORKERS[name]`` at a time.

    ``target`` is a uint8 array of all the entries, or ``(fd, offset)``: a file they go into.
    """
    groups, width = PATTERNS[name], WIDTHS[name]
    sizes = [n_placements(width * width, len(g)) for g in groups]
    offsets = [sum(sizes[:i]) for i in range(len(groups))]
    halt = np.zeros(1, np.uint8)  # the caller's stop, or a failed worker's: every build stops
    fractions = [0.0] * len(groups)
    began = time.perf_counter()
    lock = threading.Lock()
    pending = list(range(len(groups)))
    failures: list[BaseException] = []

    def build_one(i: int) -> None:
        def report(info):
            if stop is not None and stop[0]:
                halt[0] = 1
            if progress is None:
                return
            with lock:
                fractions[i] = info["fraction"]
                fraction = sum(f * n for f, n in zip(fractions, sizes)) / sum(sizes)
                progress({"phase": "build", "table": name, "label": LABELS[name], "group": i + 1,
                          "groups": len(groups), "tiles": list(groups[i]), "layer": info["layer"],
                          "fraction": fraction, "seconds": time.perf_counter() - began})
        if isinstance(target, np.ndarray):
            build_pattern(width, width, groups[i], stop=halt, progress=report,
                          out=target[offsets[i]:offsets[i] + sizes[i]], threads=BUILD_THREADS[name])
        else:
            fd, offset = target
            build_pattern_file(width, width, groups[i], fd, offset + offsets[i], stop=halt, progress=report,
                               threads=BUILD_THREADS[name])

    def worker() -> None:
        while not failures:
            with lock:
                if not pending:
                    return
                i = pending.pop(0)
            try:
                build_one(i)
            except BaseException as error:  # Cancelled included: the other workers stop too
                failures.append(error)
                halt[0] = 1

    workers = [threading.Thread(target=worker, name=f"koma-pdb-{n}", daemon=True)
               for n in range(min(BUILD_WORKERS[name], len(groups)) - 1)]
    for thread in workers:
        thread.start()
    worker()
    for thread in workers:
        thread.join()
    if failures:
        raise failures[0]


def _build_array(name: str, progress: Progress | None, stop) -> np.ndarray:
    """Every pattern of ``name`` end to end, in memory."""
    out = np.empty(sum(n_placements(WIDTHS[name] ** 2, len(g)) for g in PATTERNS[name]), np.uint8)
    _build_into(name, progress, stop, out)
    return out


def _streamed(name: str, progress: Progress | None, stop) -> Streamed:
    """The table ``name`` as the table cache writes it: built straight into its file."""
    entries = sum(n_placements(WIDTHS[name] ** 2, len(g)) for g in PATTERNS[name])
    return Streamed(entries, np.dtype(np.uint8), lambda fd, offset: _build_into(name, progress, stop, (fd, offset)),
                    lambda: _build_array(name, progress, stop))


def build_tables(name: str, progress: Progress | None = None, stop=None, notice: Notice | None = None) -> dict[str, Any]:
    """Build (or check) pattern database ``name`` (``6-6-3``, ``7-8`` or ``6-6-6-6``) in the table cache.

    ``progress`` receives ``{"phase": "build", "table", "group", "groups", "layer", "fraction",
    "seconds"}`` while it builds.  Returns the requirements plus ``built`` (False if a valid table
    was already there), ``seconds`` and ``path``.  Raises :class:`~solver.errors.Cancelled` if stopped.
    """
    name = _canonical(name)
    info = table_requirements(name)
    began = time.perf_counter()
    built = []

    def build() -> Streamed:
        built.append(True)
        return _streamed(name, progress, stop)

    with _load_lock:
        _loaded.pop(name, None)
    array = cached_table(_cache_name(name), TABLE_VERSION, build, notice)
    with _load_lock:
        _loaded[name] = array
    info.update(built=bool(built), seconds=time.perf_counter() - began, entries=int(array.size))
    return info


def _load(name: str, *, notice: Notice | None = None, progress: Progress | None = None, stop=None,
          build: bool = True) -> np.ndarray | None:
    """The table ``name``: already loaded, read from the cache, or (if ``build``) built now.

    Without ``build``, a missing or damaged file gives None (a damaged one with a notice).
    """
    with _load_lock:
        if name in _loaded:
            return _loaded[name]
        building = _building.setdefault(name, threading.Lock())
    if build:
        with building:  # one build per table at a time: a second caller waits for it, then finds it loaded
            with _load_lock:
                if name in _loaded:
                    return _loaded[name]
            build_tables(name, progress=progress, stop=stop, notice=notice)
            return _loaded[name]
    path = table_path(_cache_name(name))
    try:
        array = read_table(path, TABLE_VERSION)
        entries = sum(n_placements(WIDTHS[name] ** 2, len(g)) for g in PATTERNS[name])
        if array.shape != (entries,) or array.dtype != np.uint8:  # a sound file, but not this table
            raise TableError(f"{array.size:,} {array.dtype} entries, expected {entries:,} uint8")
    except FileNotFoundError:
        return None
    except (TableError, OSError) as problem:
        if name == "pdb663":
            discard(path)  # rebuilt next, and the table cache need not say again that it was damaged
        if notice is not None:
            fix = "rebuilding it" if name == "pdb663" else f"rebuild it with `{BUILD_COMMANDS[name]}`"
            notice(f"pattern database {LABELS[name]} is damaged ({problem}); {fix}")
        return None
    with _load_lock:
        _loaded[name] = array
    return array


def wait_for_tables(timeout: float | None = None) -> bool:
    """Wait for table builds under way in other threads; True if none is still running."""
    with _load_lock:
        locks = list(_building.values())
    for lock in locks:
        if not lock.acquire(timeout=-1 if timeout is None else timeout):
            return False
        lock.release()
    return True


@lru_cache(maxsize=4)
def _pdb_meta(name: str) -> np.ndarray:
    return search_kernels.pdb_tables(WIDTHS[name], PATTERNS[name], reverse=REVERSED_MOVES.get(name, False))


def build_file(name: str, path: Path | str) -> None:
    """Build table ``name`` into the file ``path`` as the table cache would (payload, trailer), outside the cache."""
    write_streamed(Path(path), _streamed(_canonical(name), None, None), TABLE_VERSION)


@lru_cache(maxsize=4)
def _pdb_dual_meta(name: str) -> np.ndarray:
    """:func:`_pdb_meta` with what the dual lookups need (:mod:`solver.sliding.dual`)."""
    return sliding_dual.pdb_dual_tables(WIDTHS[name], PATTERNS[name], reverse=REVERSED_MOVES.get(name, False))


def build_in_memory(name: str) -> dict[str, Any]:
    """Build a table in memory (the cache is left alone) and report its time and size."""
    began = time.perf_counter()
    array = _build_array(name, None, None)
    seconds = time.perf_counter() - began
    return {"build_seconds": round(seconds, 3), "entries": int(array.size), "bytes": int(array.nbytes)}
