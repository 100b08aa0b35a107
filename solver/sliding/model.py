"""Sliding-tile puzzles on any board from 2x2 to 20x20: the 8-puzzle (3x3), the 15-puzzle (4x4) and friends.

State: tiles in reading order, 0 for the blank; the goal is 1..N-1 with the blank last.
Moves are named by the direction the *tile* moves (``U D L R``).  Boards of up to 10 cells have a
perfect hash (article 002's factorial-number-system rank over all n! arrangements) and a full BFS
depth table; larger boards are solved by heuristic search, up to 5x5 (:data:`MAX_SOLVE_SIDE`).  Boards
beyond that, to 20x20, are for play (speed solves): rules, notation and parity, no solver.
"""

from __future__ import annotations

import random as _random
import re
import threading
import time
from functools import cached_property
from typing import TYPE_CHECKING

from solver.engines.permutations import pack, rank, unrank
from solver.errors import BoardError, KomaError, shown
from solver.puzzle import Proof, Puzzle, State

if TYPE_CHECKING:
    import numpy as np

    from solver.engines.tables import DepthTable

MIN_SIDE, MAX_SIDE = 2, 20  # 20x20: the largest board speedsolvers race (Slidysim's leaderboards)
MAX_SOLVE_SIDE = 5  # the solvers (and their kernels, four bits a cell) stop here; larger boards are played only
MAX_TABLE_CELLS = 10  # 10! = 3,628,800 ranks; 12 cells would need a 479 M entry table
TABLE_VERSION = 1  # of the cached depth tables' layout (rank order, int8 depths); bump when it changes
BLANK_TOKENS = {"0", "_", "*"}
MOVE_NAMES = "DRLU"  # kernel order: blank up, left, right, down (article 002's neighbour order)
TILE_DELTA = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}  # where the moving tile goes


class SlidingPuzzle(Puzzle):
    """The W x H sliding-tile puzzle."""

    def __init__(self, width: int, height: int):
        if not (MIN_SIDE <= width <= MAX_SIDE and MIN_SIDE <= height <= MAX_SIDE):
            raise KomaError(f"sliding boards go from {MIN_SIDE}x{MIN_SIDE} to {MAX_SIDE}x{MAX_SIDE}, not {width}x{height}")
        self.width, self.height = width, height
        self.cells = width * height
        self.goal = tuple(range(1, self.cells)) + (0,)
        self.key = {(3, 3): "8", (4, 4): "15"}.get((width, height), "sliding")
        self.title = f"{self.cells - 1}-puzzle"
        from math import factorial

        self.n_ranks = factorial(self.cells) if self.cells <= MAX_TABLE_CELLS else 0

    @cached_property
    def params(self) -> np.ndarray:
        """The kernels' view of the board size (numpy is imported when a kernel first needs it: a server, which
        only plays, never does)."""
        import numpy as np

        return np.array([self.width, self.height, self.cells], dtype=np.int64)

    def __repr__(self) -> str:
        return f"SlidingPuzzle({self.width}, {self.height})"

    @property
    def solvable_by_koma(self) -> bool:
        """Whether Koma's solvers take this size (up to 5x5); larger boards are played, not solved."""
        return self.width <= MAX_SOLVE_SIDE and self.height <= MAX_SOLVE_SIDE

    # --- notation -------------------------------------------------------------------------
    def parse(self, text: str) -> State:
        text = (text or "").strip()
        if not text:
            raise BoardError("the board is empty")
        rows = [r for r in re.split(r"\s*/\s*|\n", text)]
        tokens_by_row = [[t for t in re.split(r"[\s,]+", r.strip()) if t] for r in rows]
        if len(rows) > 1:
            if len(rows) != self.height:
                raise BoardError(f"expected {self.height} rows for a {self.size_label} board, got {len(rows)}")
            for i, row in enumerate(tokens_by_row, 1):
                if len(row) != self.width:
                    raise BoardError(f"row {i} has {len(row)} cells, expected {self.width}")
        tokens = [t for row in tokens_by_row for t in row]
        tiles: list[int] = []
        for token in tokens:
            if token in BLANK_TOKENS:
                tiles.append(0)
            elif token.isascii() and token.isdigit():
                if len(token.lstrip("0")) > 3:  # no board has a tile past 399; never convert a huge number
                    raise BoardError(f"tile {shown(token)} is out of range for a {self.size_label} board "
                                     f"(tiles are 1..{self.cells - 1})")
                tiles.append(int(token))
            else:
                raise BoardError(f"{shown(token)} is not a tile number or a blank (0, _ or *)")
        if len(tiles) != self.cells:
            raise BoardError(f"expected {self.cells} cells for a {self.size_label} board, got {len(tiles)}")
        for t in tiles:
            if not 0 <= t < self.cells:
                raise BoardError(f"tile {t} is out of range for a {self.size_label} board (tiles are 1..{self.cells - 1})")
        blanks = tiles.count(0)
        if blanks == 0:
            raise BoardError("the board has no blank (0, _ or *)")
        if blanks > 1:
            raise BoardError(f"the board has {blanks} blanks; it needs exactly one")
        seen: set[int] = set()
        for t in tiles:
            if t in seen:
                raise BoardError(f"tile {t} appears more than once")
            seen.add(t)
        return tuple(tiles)

    def format(self, state: State) -> str:
        cells = ["_" if t == 0 else str(t) for t in state]
        return "/".join(" ".join(cells[r * self.width:(r + 1) * self.width]) for r in range(self.height))

    # --- rules ----------------------------------------------------------------------------
    def moves(self, state: State) -> list[str]:
        blank = state.index(0)
        row, col = divmod(blank, self.width)
        legal = []
        for name in MOVE_NAMES:
            dr, dc = TILE_DELTA[name]
            r, c = row - dr, col - dc  # the tile that would move into the blank
            if 0 <= r < self.height and 0 <= c < self.width:
                legal.append(name)
        return legal

    def apply(self, state: State, move: str) -> State:
        if move not in TILE_DELTA:
            raise KomaError(f"unknown move {move!r}; sliding moves are U, D, L, R (the direction the tile moves)")
        blank = state.index(0)
        row, col = divmod(blank, self.width)
        dr, dc = TILE_DELTA[move]
        r, c = row - dr, col - dc
        if not (0 <= r < self.height and 0 <= c < self.width):
            raise KomaError(f"move {move} is not possible here: no tile can move {move} into the blank")
        cell = r * self.width + c
        board = list(state)
        board[blank], board[cell] = board[cell], 0
        return tuple(board)

    # --- parity ---------------------------------------------------------------------------
    def proof(self, state: State) -> Proof:
        w, h = self.width, self.height
        tiles = [t for t in state if t != 0]
        counts = [sum(1 for u in tiles[i + 1:] if u < t) for i, t in enumerate(tiles)]
        inversions = sum(counts)
        blank_row = state.index(0) // w + 1
        if w % 2:
            total = inversions
            required = 0
            rule = (f"The width {w} is odd. A sideways move leaves the reading order alone, and a vertical move "
                    f"carries one tile past {w - 1} others, an even number, so the inversion sum keeps its parity. "
                    f"The goal has 0 inversions, so the inversion sum must be even; the blank's row does not count.")
            summary_total = f"inversion sum {inversions}"
        else:
            total = inversions + blank_row
            required = h % 2
            rule = (f"The width {w} is even. A sideways move changes nothing; a vertical move carries one tile past "
                    f"{w - 1} others, an odd number, so it changes the inversion sum by an odd amount and the blank's "
                    f"row by 1. Inversion sum + blank row therefore keeps its parity. The goal has 0 inversions and "
                    f"the blank on row {h}, so the total must be {'even' if required == 0 else 'odd'}.")
            summary_total = f"inversions {inversions} + blank row {blank_row} = {total}"
        parity = "even" if total % 2 == 0 else "odd"
        solvable = total % 2 == required
        verdict = "solvable" if solvable else "not solvable"
        summary = f"{summary_total}, {parity}: {verdict}"
        lines = [
            "Tiles in reading order, without the blank: " + " ".join(map(str, tiles)),
            "Smaller tiles to the right of each:          " + " ".join(map(str, counts)),
            f"Inversion sum: {' + '.join(map(str, counts))} = {inversions}",
            f"Blank's row (1-based from the top): {blank_row}",
            f"Total: {total} ({parity})" + ("" if w % 2 == 0 else " (odd width: the inversion sum alone decides)"),
            rule,
            ("Every board with the goal's parity is reachable: any board can be brought to the goal except for "
             "the order of its last two tiles, and that final pair is fixed exactly when the parity matches."),
            f"Verdict: {verdict}.",
        ]
        fields = {
            "tiles": tiles, "smaller_counts": counts, "inversions": inversions, "blank_row": blank_row,
            "total": total, "parity": parity, "required_parity": "even" if required == 0 else "odd",
            "rule": rule, "width": w, "height": h,
        }
        return Proof(solvable, summary, fields, tuple(lines))

    # --- perfect hash and tables -----------------------------------------------------------
    def _check_enumerable(self) -> None:
        if not self.enumerable:
            raise KomaError(f"the {self.title} ({self.size_label}) is too large for a full table; "
                            f"boards of up to {MAX_TABLE_CELLS} cells have one")

    def rank(self, state: State) -> int:
        self._check_enumerable()
        return rank(state)

    def unrank(self, r: int) -> State:
        self._check_enumerable()
        return unrank(r, self.cells)

    def depth_table(self, *, stop=None, progress=None) -> DepthTable:
        self._check_enumerable()
        return _sliding_table(self.width, self.height, stop=stop, progress=progress)

    def bfs_arrays(self, *, stop=None, progress=None):
        """One full BFS from the goal: ``(depth, queue, layer_ends)`` as in :func:`solver.engines.bfs.breadth_first`."""
        self._check_enumerable()
        from solver.engines import bfs
        from solver.sliding.kernels import sliding_bfs

        return bfs.breadth_first(sliding_bfs, self.params, pack(self.goal), self.n_ranks, stop=stop, progress=progress)

    def move_between(self, a: State, b: State) -> str:
        """The move that takes board ``a`` to board ``b`` (one move apart)."""
        for move, child in self.neighbours(a):
            if child == b:
                return move
        raise KomaError("boards are not one move apart")  # pragma: no cover

    # --- generation --------------------------------------------------------------------------
    def flip_lr(self, state: State) -> State:
        """Mirror the board left to right (article 000's fix for an unsolvable 4-wide shuffle)."""
        w = self.width
        return tuple(state[r * w + (w - 1 - c)] for r in range(self.height) for c in range(w))

    def swap_first_tiles(self, state: State) -> State:
        """Swap the first two tiles in reading order: flips the parity, for any width."""
        board = list(state)
        i, j = [k for k, t in enumerate(board) if t != 0][:2]
        board[i], board[j] = board[j], board[i]
        return tuple(board)

    def parity_fix(self, state: State) -> State:
        """A bijection between unsolvable and solvable boards (so uniform stays uniform)."""
        return self.flip_lr(state) if self.width == 4 else self.swap_first_tiles(state)

    def _random_solvable(self, rng: _random.Random) -> State:
        board = list(range(self.cells))
        rng.shuffle(board)
        state = tuple(board)
        if not self.proof(state).solvable:
            state = self.parity_fix(state)
        return state


_TABLES: dict[tuple[int, int], DepthTable] = {}
_TABLES_LOCK = threading.Lock()


def _sliding_table(width: int, height: int, *, stop=None, progress=None) -> DepthTable:
    """The depth table of one board size: loaded from the disk cache (or built and saved), once per process.

    A cancelled build keeps nothing.  Loading needs only numpy: ``koma solve 8`` never loads numba.
    """
    from solver.engines import tables
    from solver.engines.tables import DepthTable

    with _TABLES_LOCK:
        table = _TABLES.get((width, height))
        if table is None:
            began = time.perf_counter()
            depth = tables.cached_table(f"sliding-{width}x{height}", TABLE_VERSION,
                                        lambda: SlidingPuzzle(width, height).bfs_arrays(stop=stop, progress=progress)[0])
            table = _TABLES[(width, height)] = DepthTable(depth, time.perf_counter() - began)
        return table
