"""The 24-puzzle (5x5) solved optimally: IDA* with the 6-6-6-6 pattern databases, on both cores.

The heuristic is Korf and Felner's (2002): four disjoint 6-tile patterns, additive, and the max with
the same databases looked up on the board reflected about the main diagonal.  The search is the
shared engine's split IDA* (:func:`solver.engines.idastar.run_split`): every iteration's tree is
shared by the workers, subtree by subtree.  Every solution of a sliding puzzle has the parity of the
blank's distance to its home cell, so bounds of the other parity are skipped.

The tables are built on request (``koma tables build sliding --size 5x5``); without them the caller
falls back to the reduction (:mod:`solver.sliding.reduce`), labelled not optimal.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from solver.engines.idastar import run_split
from solver.errors import GaveUp
from solver.puzzle import Solution
from solver.sliding import search_kernels as kernels
from solver.sliding.model import SlidingPuzzle
from solver.sliding.tables import REVERSED_MOVES, _load, _pdb_meta, table_requirements

NAME = "pdb6666"
DESCRIPTION = "IDA* with 6-6-6-6 additive pattern databases, max with the reflection (Korf & Felner 2002)"
SPLIT_DEPTH = 10  # the levels every worker walks alike; below, subtrees are claimed one by one
DATA_FILE = Path(__file__).resolve().parent.parent / "data" / "korf50-24.txt"
# Korf and Felner's 15 easiest instances, easiest first (by their published node counts)

Progress = Callable[[dict[str, Any]], None]
Notice = Callable[[str], None]


def is_twentyfour(puzzle: SlidingPuzzle) -> bool:
    return (puzzle.width, puzzle.height) == (5, 5)


def workers() -> int:
    """Threads for one search: every core the process may use, at most two."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    return max(1, min(2, cores))


def tables(notice: Notice | None = None) -> np.ndarray | None:
    """The 6-6-6-6 databases, memory-mapped (None if not built, or damaged: then ``notice`` says so)."""
    return _load(NAME, notice=notice, build=False)


def missing_tables_notice() -> str:
    needs = table_requirements(NAME)
    return (f"the 24-puzzle's pattern databases are not built, so this answer is not proven optimal; build them once "
            f"with `{needs['build_command']}` ({needs['build_memory_bytes'] / 2**30:.1f} GiB of memory, "
            f"{needs['disk_bytes'] / 2**20:,.0f} MiB on disk, a few minutes)")


def blank_parity(puzzle: SlidingPuzzle, board) -> int:
    """The parity of every solution's length: that of the blank's distance to its home cell."""
    blank = list(board).index(0)
    home = puzzle.cells - 1
    return (abs(blank // puzzle.width - home // puzzle.width) + abs(blank % puzzle.width - home % puzzle.width)) % 2


def lower_bound(board, table: np.ndarray) -> int:
    """The heuristic's estimate of ``board`` (the search's first bound)."""
    state = kernels.new_state(board)
    return int(kernels.pdb_setup(state, (_pdb_meta(NAME), table)))


def solve_optimal(puzzle: SlidingPuzzle, board, table: np.ndarray, *, stop=None, progress: Progress | None = None,
                  limit: float | None = None, threads: int | None = None, meta: np.ndarray | None = None) -> Solution:
    """An optimal solution of the solvable 5x5 ``board``.

    ``table`` holds the databases end to end, ``meta`` their layout (:func:`sliding_kernels.pdb_tables`;
    by default the 6-6-6-6's): tests search with small patterns, whose sum is admissible too.

    ``progress`` receives ``{"phase": "search", "heuristic", "bound", "lower_bound", "nodes", "iteration",
    "nodes_per_second", "seconds"}`` several times a second.  Raises :class:`~solver.errors.GaveUp` (with
    the lower bound proved) after ``limit`` seconds, and Cancelled when ``stop[0]`` is set.
    """
    began = time.perf_counter()
    board = tuple(board)
    if board == puzzle.goal:
        return Solution((), (board,), True, 0, 0.0, f"ida*:{NAME}", DESCRIPTION)
    pair = (_pdb_meta(NAME) if meta is None else meta, table)
    states = []
    for _ in range(threads or workers()):
        state = kernels.new_state(board)
        h0 = int(kernels.pdb_setup(state, pair))
        states.append(state)
    report = None
    if progress is not None:
        def report(info):
            progress({"phase": "search", "heuristic": NAME, **info})
    result = run_split(kernels.ida_pdb_iteration, states, pair, h0, parity=blank_parity(puzzle, board),
                       split_depth=SPLIT_DEPTH, stop=stop, progress=report, limit=limit)
    if result.moves is None:
        raise GaveUp(result.bound, result.nodes, result.seconds)
    names = kernels.move_names(REVERSED_MOVES[NAME])
    moves = tuple(names[m] for m in result.moves)
    path = puzzle.replay(board, moves)
    return Solution(moves, path, True, result.nodes, time.perf_counter() - began, f"ida*:{NAME}", DESCRIPTION)


# --- Korf and Felner's 50 instances ----------------------------------------------------------------

def from_korf(tiles) -> tuple[int, ...]:
    """A board in Korf's convention (blank top-left, tile t on cell t) mapped to ours: a half turn, t -> 25 - t."""
    out = [0] * 25
    for p, t in enumerate(tiles):
        out[24 - p] = 0 if t == 0 else 25 - t
    return tuple(out)


@lru_cache(maxsize=1)
def korf50() -> tuple[tuple[int, tuple[int, ...], int, int], ...]:
    """Korf and Felner's 50 instances in Koma's convention: ``(index, board, optimal length, their nodes)``."""
    rows = []
    for line in DATA_FILE.read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        index, tiles, length, nodes = line.split()
        rows.append((int(index), from_korf([int(t) for t in tiles.split(",")]), int(length), int(nodes)))
    return tuple(rows)


def instance(index: int) -> tuple[int, tuple[int, ...], int, int]:
    return next(row for row in korf50() if row[0] == index)
