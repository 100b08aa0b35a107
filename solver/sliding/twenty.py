"""The 4x5 and 5x4 boards (19 tiles) solved optimally: IDA* with 5-5-5-4 additive pattern databases, on both cores.

Four disjoint patterns, additive (the board is not square, so there is no reflection to take the max with; the
kernels' mirror side is the board itself).  The databases (5,697,720 entries for each shape) are built at first use
in about a second and cached on disk, as the 15-puzzle's 6-6-3 is.  The search is the shared engine's split IDA*,
as the 24-puzzle's (:mod:`solver.sliding.twentyfour`).

How long a random board takes varies widely: of 13 random 4x5 boards measured (``random_state`` seeds 1, 3-6 and
10-17, on a busy 2-core box), 6 were solved (56 to 71 moves, in 0.05 s to 11 s) and 7 were not within 15 to 20 s
(bounds 67 to 79 reached); of 10 random 5x4 boards (seeds 1, 3-5, 10-15), 3 were solved (62 to 76 moves, in 0.6 s
to 9 s) and 7 were not within 10 to 15 s.  So callers give a time ``limit`` (:class:`~solver.errors.GaveUp` says what was proved),
and this is asked for by name (the heuristic ``5-5-5-4``): a board's default solve stays the quick reduction.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import numpy as np

from solver.engines.idastar import run_split
from solver.engines.pdb import build_pattern, multipliers, n_placements
from solver.engines.tables import cached_table
from solver.errors import GaveUp
from solver.puzzle import Solution
from solver.sliding import search_kernels as kernels
from solver.sliding.model import SlidingPuzzle
from solver.sliding.twentyfour import SPLIT_DEPTH, blank_parity, workers

NAME = "pdb5554"
ALIASES = ("5-5-5-4", "5554", "pdb5554")
DESCRIPTION = "IDA* with 5-5-5-4 additive pattern databases"
TABLE_VERSION = 1
# Tiles of each pattern for the goal 1..19 with the blank bottom-right: three blocks and the tiles around the blank's
# corner (one partition each, measured on a few random boards, not tuned)
PATTERNS = {
    (4, 5): ((1, 2, 5, 6, 9), (3, 4, 7, 8, 12), (10, 11, 13, 14, 15), (16, 17, 18, 19)),
    (5, 4): ((1, 2, 6, 7, 11), (3, 4, 5, 8, 9), (12, 13, 16, 17, 18), (10, 14, 15, 19)),
}

Progress = Callable[[dict[str, Any]], None]
Notice = Callable[[str], None]


def is_twenty(puzzle: SlidingPuzzle) -> bool:
    return (puzzle.width, puzzle.height) in PATTERNS


def is_name(heuristic: str) -> bool:
    """Whether ``heuristic`` names these databases."""
    return heuristic.strip().lower() in ALIASES


@lru_cache(maxsize=2)
def meta(width: int, height: int) -> np.ndarray:
    """The kernels' int64 table of the patterns of the ``width`` x ``height`` board (the mirror side is the board)."""
    groups, cells = PATTERNS[(width, height)], width * height
    table = kernels._common(width, height, kernels.T_PDB_SIZE)
    table[kernels.T_GROUPS] = len(groups)
    table[kernels.T_GROUP_OF:kernels.T_GROUP_OF + kernels.MAX_CELLS] = -1
    base = 0
    for g, tiles in enumerate(groups):
        table[kernels.T_GROUP_SIZE + g] = len(tiles)
        table[kernels.T_GROUP_BASE + g] = base
        base += n_placements(cells, len(tiles))
        for i, (tile, multiplier) in enumerate(zip(tiles, multipliers(cells, len(tiles)))):
            table[kernels.T_GROUP_OF + tile] = g
            table[kernels.T_INDEX_OF + tile] = i
            table[kernels.T_MULT_OF + tile] = multiplier
            table[kernels.T_GROUP_TILES + g * kernels.MAX_GROUP + i] = tile
    for cell in range(cells):
        table[kernels.T_REFLECT_CELL + cell] = cell
    for tile in range(1, cells):
        table[kernels.T_REFLECT_TILE + tile] = tile
    return kernels.with_pruning(table)


def tables(width: int, height: int, notice: Notice | None = None) -> np.ndarray:
    """The databases of the ``width`` x ``height`` board end to end: from the table cache, else built now (a second)."""
    groups = PATTERNS[(width, height)]
    return cached_table(f"twenty-{width}x{height}-{NAME}", TABLE_VERSION,
                        lambda: np.concatenate([build_pattern(width, height, g, threads=2) for g in groups]), notice)


def solve_optimal(puzzle: SlidingPuzzle, board, *, stop=None, progress: Progress | None = None,
                  limit: float | None = None, notice: Notice | None = None, threads: int | None = None) -> Solution:
    """An optimal solution of the solvable 4x5 or 5x4 ``board``, searched on ``threads`` threads (by default every core
    the process may use, at most two).

    ``progress`` receives ``{"phase": "search", "heuristic", "bound", "lower_bound", "nodes", "iteration",
    "nodes_per_second", "seconds"}`` several times a second.  Raises :class:`~solver.errors.GaveUp` (with the lower
    bound proved) after ``limit`` seconds of search (the tables' first build is not counted), and Cancelled when ``stop[0]`` is set.
    """
    began = time.perf_counter()
    board = tuple(board)
    if board == puzzle.goal:
        return Solution((), (board,), True, 0, 0.0, f"ida*:{NAME}", DESCRIPTION)
    pair = (meta(puzzle.width, puzzle.height), tables(puzzle.width, puzzle.height, notice))
    states = []
    h0 = 0
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
    names = kernels.move_names(False)
    moves = tuple(names[m] for m in result.moves)
    path = puzzle.replay(board, moves)
    return Solution(moves, path, True, result.nodes, time.perf_counter() - began, f"ida*:{NAME}", DESCRIPTION)
