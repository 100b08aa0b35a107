"""Ura-omote (裏表, front/back), article 004: turn whole rows and columns over until the front is all white.

Board W x H (W columns, H rows), any size from 2x2 to 6x6.  State: one int per cell in reading
order, 0 = white (front), 1 = black.  Turning a line over reverses it and inverts every cell in it.
Moves: ``A``, ``B``, ... turn a row over (top = A); ``1``, ``2``, ... a column (left = 1).

Solvability.  Mirroring a cell in its row and in its column gives a 4-cell *orbit*
``{(r, c), (r, W-1-c), (H-1-r, c), (H-1-r, W-1-c)}``; a move either leaves an orbit alone or acts
on it as one move of a 2x2 board.  Cells on the middle row or column of an odd side are *free*.
Of the 16 patterns of an orbit only 6 reach all-white: an even number of blacks and not a
checkerboard.  Every board whose orbits all show one of those 6 patterns is solvable, so there
are ``6^orbits * 2^free`` solvable boards; the full BFS confirms it for every size.

Perfect hash: ``rank = sum(code[o] * 6^o) + 6^orbits * sum(bit[f] * 2^f)`` where ``code[o]`` (0..5)
numbers the 6 reachable patterns of orbit ``o`` and ``bit[f]`` is the colour of the f-th free
cell in reading order.  Only solvable boards have a rank.  The numba kernels work on a bitboard
(bit ``r*W + c`` = cell ``(r, c)``): the successors mirror the whole board once and splice one
line of the mirror (inverted) into each neighbour, and the rank adds one table entry per pair
of mirrored rows, so a BFS step costs a few shifts and lookups.

Symmetry: the board's rotations and reflections (8 for a square, 4 for a rectangle) commute with
the moves and fix the goal, so they preserve distances; :meth:`UraPuzzle.symmetry_classes`
groups positions under them.
"""

from __future__ import annotations

import random as _random
import re
import threading
import time
from functools import cached_property
from typing import TYPE_CHECKING, Any

from solver.errors import BoardError, KomaError
from solver.puzzle import Proof, Puzzle, State
from solver.ura.layout import MAX_PAIRS, MAX_SIDE, MIN_SIDE, P_COLS, P_H, P_HEADER, P_MID_SHIFT, P_MID_TABLE, P_MIRROR, P_PAIR, P_W

if TYPE_CHECKING:
    import numpy as np

    from solver.engines.tables import DepthTable

VERSION = 1  # of the cached depth tables' layout (bump when the rank order changes)
DEFAULT_SIZE = (3, 3)  # the article's main board
ARTICLE_PROBLEM = "BWB/WBB/BBB"  # solved in 7 moves

WHITE_CHARS = "W.□w"
BLACK_CHARS = "B#■b"
CELL_CODES = {**{ch: 0 for ch in WHITE_CHARS}, **{ch: 1 for ch in BLACK_CHARS}}
ROW_NAMES = "ABCDEF"
COL_NAMES = "123456"
FREE_LABEL = "*"

# An orbit's pattern as 4 bits: top-left, top-right, bottom-left, bottom-right (bits 0..3).
# The 6 patterns that reach all-white, numbered 0..5 for the perfect hash:
REACHABLE_PATTERNS = (0b0000, 0b0011, 0b1100, 0b0101, 0b1010, 0b1111)  # white, top, bottom, left, right, black
CHECKERBOARDS = (0b1001, 0b0110)
PATTERN_CODE = tuple(REACHABLE_PATTERNS.index(p) if p in REACHABLE_PATTERNS else -1 for p in range(16))

# --- geometry -----------------------------------------------------------------------------------
def check_size(width: int, height: int) -> None:
    if not (MIN_SIDE <= width <= MAX_SIDE and MIN_SIDE <= height <= MAX_SIDE):
        raise KomaError(f"Ura-omote boards go from {MIN_SIDE}x{MIN_SIDE} to {MAX_SIDE}x{MAX_SIDE}, "
                        f"not {width}x{height}")


def cell_name(row: int, col: int) -> str:
    """``A1`` is the top-left cell: the row's move letter and the column's move digit."""
    return f"{ROW_NAMES[row]}{COL_NAMES[col]}"


def pattern_text(bits: int) -> str:
    """An orbit's 4-bit pattern drawn as a 2x2 board, e.g. ``BW/WB``."""
    ch = ["WB"[(bits >> k) & 1] for k in range(4)]
    return f"{ch[0]}{ch[1]}/{ch[2]}{ch[3]}"


def split_board(text: str) -> list[list[int]]:
    """The rows of a board in Ura-omote notation (no size check beyond raggedness); raises BoardError."""
    text = (text or "").strip()
    if not text:
        raise BoardError("the board is empty")
    rows = [re.sub(r"[\s,]+", "", row) for row in re.split(r"/|\n", text)]
    if any(not row for row in rows):
        raise BoardError("the board has an empty row (two '/' in a row, or a '/' at an end)")
    grid = []
    for i, row in enumerate(rows):
        cells = []
        for j, ch in enumerate(row):
            if ch not in CELL_CODES:
                raise BoardError(f"unknown character {ch!r} in row {i + 1}, cell {j + 1}: "
                                 f"use W, . or □ for white and B, # or ■ for black")
            cells.append(CELL_CODES[ch])
        grid.append(cells)
    for i, cells_of_row in enumerate(grid[1:], 2):
        if len(cells_of_row) != len(grid[0]):
            raise BoardError(f"ragged rows: row 1 has {len(grid[0])} cells but row {i} has {len(cells_of_row)}")
    return grid


def parse_any_size(text: str) -> tuple[int, int, State]:
    """``(width, height, state)`` of a board of any legal size, read off the board itself."""
    grid = split_board(text)
    width, height = len(grid[0]), len(grid)
    if not (MIN_SIDE <= width <= MAX_SIDE and MIN_SIDE <= height <= MAX_SIDE):
        raise BoardError(f"a {width}x{height} board is out of range: Ura-omote boards go from "
                         f"{MIN_SIDE}x{MIN_SIDE} to {MAX_SIDE}x{MAX_SIDE} (W columns x H rows)")
    return width, height, tuple(v for row in grid for v in row)


class UraPuzzle(Puzzle):
    """Ura-omote on a W x H board (W columns, H rows)."""

    key = "ura"
    title = "Ura-omote"

    def __init__(self, width: int = 3, height: int = 3):
        check_size(width, height)
        self.width, self.height = width, height
        self.cells = width * height
        self.goal = (0,) * self.cells
        pairs, half = height // 2, width // 2
        # orbit o = i * half + j holds (i, j), (i, W-1-j), (H-1-i, j), (H-1-i, W-1-j): TL, TR, BL, BR
        self.orbits: list[tuple[int, int, int, int]] = []
        for i in range(pairs):
            for j in range(half):
                top, bottom = i * width, (height - 1 - i) * width
                self.orbits.append((top + j, top + width - 1 - j, bottom + j, bottom + width - 1 - j))
        in_orbit = {cell for orbit in self.orbits for cell in orbit}
        self.free_cells: list[int] = [cell for cell in range(self.cells) if cell not in in_orbit]
        self.label = [FREE_LABEL] * self.cells
        for o, orbit in enumerate(self.orbits):
            for cell in orbit:
                self.label[cell] = str(o)
        self.orbit_weight = [6 ** o for o in range(len(self.orbits))]
        base = 6 ** len(self.orbits)
        self.free_weight = [base << f for f in range(len(self.free_cells))]
        self.n_ranks = base << len(self.free_cells)
        self.move_names = list(ROW_NAMES[:height]) + list(COL_NAMES[:width])
        # per move, the cell each cell comes from (turned over) and the cells it changes
        self._sources: dict[str, list[int]] = {}
        for r in range(height):
            src = list(range(self.cells))
            for c in range(width):
                src[r * width + c] = r * width + width - 1 - c
            self._sources[ROW_NAMES[r]] = src
        for c in range(width):
            src = list(range(self.cells))
            for r in range(height):
                src[r * width + c] = (height - 1 - r) * width + c
            self._sources[COL_NAMES[c]] = src
        self._line_cells = {ROW_NAMES[r]: {r * width + c for c in range(width)} for r in range(height)}
        self._line_cells.update({COL_NAMES[c]: {r * width + c for r in range(height)} for c in range(width)})

    def __repr__(self) -> str:
        return f"UraPuzzle({self.width}, {self.height})"

    # --- notation -------------------------------------------------------------------------
    def parse(self, text: str) -> State:
        grid = split_board(text)
        width, height = len(grid[0]), len(grid)
        if (width, height) != (self.width, self.height):
            if not (MIN_SIDE <= width <= MAX_SIDE and MIN_SIDE <= height <= MAX_SIDE):
                raise BoardError(f"a {width}x{height} board is out of range: Ura-omote boards go from "
                                 f"{MIN_SIDE}x{MIN_SIDE} to {MAX_SIDE}x{MAX_SIDE} (W columns x H rows)")
            if height != self.height:
                raise BoardError(f"expected {self.height} rows for a {self.size_label} board, got {height} "
                                 f"(for a {width}x{height} board use --size {width}x{height})")
            raise BoardError(f"expected {self.width} cells per row for a {self.size_label} board, got {width} "
                             f"(for a {width}x{height} board use --size {width}x{height})")
        return tuple(v for row in grid for v in row)

    def format(self, state: State) -> str:
        w = self.width
        return "/".join("".join("WB"[v] for v in state[r * w:(r + 1) * w]) for r in range(self.height))

    # --- rules ----------------------------------------------------------------------------
    def moves(self, state: State) -> list[str]:
        return list(self.move_names)

    def apply(self, state: State, move: str) -> State:
        src = self._sources.get(str(move).upper())
        if src is None:
            raise KomaError(f"unknown move {move!r}; rows are {ROW_NAMES[0]}..{ROW_NAMES[self.height - 1]} "
                            f"and columns 1..{self.width} on a {self.size_label} board")
        lines = self._line_cells[str(move).upper()]
        return tuple(1 - state[src[i]] if i in lines else state[i] for i in range(self.cells))

    def _check_state(self, state: State) -> State:
        state = tuple(state)
        if len(state) != self.cells or any(v not in (0, 1) for v in state):
            raise BoardError(f"a {self.size_label} Ura-omote board has {self.cells} cells of 0 (white) or 1 (black)")
        return state

    # --- parity ---------------------------------------------------------------------------
    def orbit_pattern(self, state: State, o: int) -> int:
        """The 4-bit pattern of orbit ``o``: TL, TR, BL, BR in bits 0..3."""
        return sum(state[cell] << k for k, cell in enumerate(self.orbits[o]))

    def orbit_map(self) -> list[list[str]]:
        """The board drawn with each cell's orbit label (``0``, ``1``, ...) or ``*`` for a free cell."""
        w = self.width
        return [self.label[r * w:(r + 1) * w] for r in range(self.height)]

    def proof(self, state: State) -> Proof:
        state = self._check_state(state)
        w, h = self.width, self.height
        k, f = len(self.orbits), len(self.free_cells)
        orbits: list[dict[str, Any]] = []
        unreachable: list[dict[str, Any]] = []
        for o, cells in enumerate(self.orbits):
            bits = self.orbit_pattern(state, o)
            blacks = bin(bits).count("1")
            if blacks % 2:
                status = "odd"
                reason = (f"{blacks} black{'s' if blacks != 1 else ''}, an odd number: turning a line over turns a "
                          f"pair of this orbit's cells, which changes its blacks by 0 or 2, and the goal has 0")
            elif bits in CHECKERBOARDS:
                status = "checkerboard"
                reason = ("a checkerboard: every line through this orbit holds one black and one white of it, and "
                          "turning them over swaps and inverts them, which gives back the same colours; "
                          "the pattern never changes")
            else:
                status = "reachable"
                reason = ("all white already" if blacks == 0 else
                          f"{blacks} blacks, even, not a checkerboard: one of the 6 patterns that reach all-white")
            entry: dict[str, Any] = {
                "label": str(o),
                "cells": [cell_name(*divmod(c, w)) for c in cells],
                "coords": [list(divmod(c, w)) for c in cells],
                "pattern": pattern_text(bits),
                "blacks": blacks,
                "status": status,
                "reachable": status == "reachable",
                "reason": reason,
            }
            orbits.append(entry)
            if status != "reachable":
                unreachable.append({"label": str(o), "why": status, "pattern": entry["pattern"], "reason": reason})
        solvable = not unreachable
        formula = f"6^{k} × 2^{f}"
        count = self.n_ranks
        free = [{"cell": cell_name(*divmod(c, w)), "colour": "WB"[state[c]]} for c in self.free_cells]
        rule = ("Turning a row or column over maps each 4-cell orbit onto itself and acts on it like one move "
                "of a 2x2 board, so each orbit can be judged alone. Of its 16 patterns only 6 reach all-white: "
                "an even number of blacks (a move changes it by 0 or 2) and not a checkerboard (no move changes "
                "one). Free cells, on the middle row or column of an odd side, take any colours. Every board "
                "whose orbits all show one of the 6 patterns is solvable (a full BFS reaches exactly "
                f"{formula} = {count:,} boards).")
        if solvable:
            summary = f"every orbit ({k} of {k}) shows one of the 6 reachable patterns: solvable"
        else:
            why = "; ".join(f"orbit {u['label']} {u['pattern']} " +
                            ("has an odd number of blacks" if u["why"] == "odd" else "is a checkerboard")
                            for u in unreachable)
            summary = f"{why}: not solvable"
        lines = [f"Orbit map of the {w}x{h} board (digits: 4-cell orbits, {FREE_LABEL}: free cells):",
                 "     " + " ".join(COL_NAMES[:w])]
        for r, row in enumerate(self.orbit_map()):
            colours = "".join("WB"[state[r * w + c]] for c in range(w))
            lines.append(f"   {ROW_NAMES[r]} " + " ".join(row) + f"    {colours}")
        for entry in orbits:
            mark = "ok" if entry["reachable"] else "UNREACHABLE"
            lines.append(f"Orbit {entry['label']} ({' '.join(entry['cells'])}): {entry['pattern']} - {mark}: "
                         f"{entry['reason']}")
        if free:
            lines.append(f"Free cells ({f}): " + " ".join(f"{x['cell']}={x['colour']}" for x in free)
                         + " - any colours")
        lines.append(rule)
        lines.append(f"Solvable boards: {formula} = {count:,} of 2^{self.cells} = {2 ** self.cells:,}.")
        lines.append(f"Verdict: {'solvable' if solvable else 'not solvable'}.")
        fields = {
            "width": w, "height": h,
            "orbit_map": self.orbit_map(),
            "orbits": orbits,
            "unreachable": unreachable,
            "free_cells": free,
            "orbit_count": k, "free_count": f,
            "count_formula": formula,
            "solvable_boards": count,
            "all_boards": 2 ** self.cells,
            "reachable_patterns": [pattern_text(p) for p in REACHABLE_PATTERNS],
            "rule": rule,
        }
        return Proof(solvable, summary, fields, tuple(lines))

    # --- perfect hash and tables -----------------------------------------------------------
    def rank(self, state: State) -> int:
        state = self._check_state(state)
        value = 0
        for o in range(len(self.orbits)):
            code = PATTERN_CODE[self.orbit_pattern(state, o)]
            if code < 0:
                raise KomaError(f"only solvable boards have a rank: {self.proof(state).summary}")
            value += code * self.orbit_weight[o]
        for f, cell in enumerate(self.free_cells):
            if state[cell]:
                value += self.free_weight[f]
        return value

    def unrank(self, r: int) -> State:
        r = int(r)
        if not 0 <= r < self.n_ranks:
            raise KomaError(f"rank {r} is out of range 0..{self.n_ranks - 1} for a {self.size_label} board")
        board = [0] * self.cells
        for orbit in self.orbits:
            r, code = divmod(r, 6)
            bits = REACHABLE_PATTERNS[code]
            for k, cell in enumerate(orbit):
                board[cell] = (bits >> k) & 1
        for cell in self.free_cells:
            board[cell] = r & 1
            r >>= 1
        return tuple(board)

    def pack(self, state: State) -> int:
        """The bitboard of a state (bit ``r*W + c`` = cell ``(r, c)``)."""
        return sum(v << i for i, v in enumerate(state))

    def unpack(self, packed: int) -> State:
        return tuple((int(packed) >> i) & 1 for i in range(self.cells))

    @cached_property
    def params(self) -> np.ndarray:
        """The kernels' int64 params: header (see ``P_*``), row mirror table, column masks, rank tables (made when a
        kernel first needs them: numpy is imported then, never by a server, which only plays)."""
        import numpy as np

        w, h = self.width, self.height
        pairs, half = h // 2, w // 2
        n_rows = 1 << w
        index = np.arange(n_rows * n_rows, dtype=np.int64)
        top, bottom = index & (n_rows - 1), index >> w
        free_index = {cell: f for f, cell in enumerate(self.free_cells)}
        codes = np.array([max(c, 0) for c in PATTERN_CODE], np.int64)  # unsolvable patterns never reach a kernel
        pair_tables = []
        for i in range(pairs):
            table = np.zeros(n_rows * n_rows, np.int64)
            for j in range(half):
                bits = (((top >> j) & 1) | (((top >> (w - 1 - j)) & 1) << 1)
                        | (((bottom >> j) & 1) << 2) | (((bottom >> (w - 1 - j)) & 1) << 3))
                table += codes[bits] * self.orbit_weight[i * half + j]
            if w % 2:  # the middle column's cells in these two rows are free
                table += ((top >> half) & 1) * self.free_weight[free_index[i * w + half]]
                table += ((bottom >> half) & 1) * self.free_weight[free_index[(h - 1 - i) * w + half]]
            pair_tables.append(table)
        mid_table = np.zeros(n_rows, np.int64)
        if h % 2:
            for c in range(w):
                mid_table += ((index[:n_rows] >> c) & 1) * self.free_weight[free_index[(h // 2) * w + c]]
        zero_table = np.zeros(n_rows * n_rows, np.int64)
        mirror = np.array([int(f"{v:0{w}b}"[::-1], 2) for v in range(n_rows)], np.int64)
        cols = np.array([sum(1 << (r * w + c) for r in range(h)) for c in range(w)], np.int64)
        header = np.zeros(P_HEADER, np.int64)
        parts = [header, mirror, cols, mid_table, zero_table, *pair_tables]
        offsets = np.cumsum([0] + [len(part) for part in parts]).tolist()
        header[P_W], header[P_H] = w, h
        header[P_MIRROR], header[P_COLS], header[P_MID_TABLE] = offsets[1], offsets[2], offsets[3]
        header[P_MID_SHIFT] = (h // 2) * w if h % 2 else 0  # no middle row: row 0 reads zeros
        for i in range(MAX_PAIRS):
            slot = P_PAIR + 3 * i
            if i < pairs:
                header[slot:slot + 3] = offsets[5 + i], i * w, (h - 1 - i) * w
            else:
                header[slot:slot + 3] = offsets[4], 0, 0
        return np.concatenate(parts)

    def kernel_rank(self, state: State) -> int:
        """The numba kernel's rank of a state (equals :meth:`rank` on solvable boards)."""
        import numpy as np

        from solver.ura.kernels import kernel_rank

        return int(kernel_rank(np.int64(self.pack(state)), self.params))

    def kernel_successors(self, state: State) -> list[State]:
        """The numba kernel's neighbours of a state, in move order."""
        import numpy as np

        from solver.engines import bfs
        from solver.ura.kernels import kernel_successors

        out = np.empty(bfs.MAX_SUCCESSORS, np.int64)
        k = kernel_successors(np.int64(self.pack(state)), self.params, out)
        return [self.unpack(int(p)) for p in out[:k]]

    def bfs_arrays(self, *, stop=None, progress=None):
        """One full BFS from the goal: ``(depth, queue, layer_ends)`` as in :func:`solver.engines.bfs.breadth_first`."""
        from solver.engines import bfs
        from solver.ura.kernels import ura_bfs

        return bfs.breadth_first(ura_bfs, self.params, 0, self.n_ranks, stop=stop, progress=progress)

    def depth_table(self, *, stop=None, progress=None) -> DepthTable:
        return ura_table(self.width, self.height, stop=stop, progress=progress)

    # --- symmetry ----------------------------------------------------------------------------
    def symmetries(self) -> list[list[int]]:
        """The board's rotations and reflections as cell maps (``image[i] = state[perm[i]]``).

        8 for a square board (the dihedral group of order 8), 4 for a rectangle (identity, the two
        mirrors and the half turn).  Each commutes with the moves and fixes the goal.
        """
        w, h = self.width, self.height
        maps = [
            lambda r, c: (r, c), lambda r, c: (r, w - 1 - c),
            lambda r, c: (h - 1 - r, c), lambda r, c: (h - 1 - r, w - 1 - c),
        ]
        if w == h:
            maps += [
                lambda r, c: (c, r), lambda r, c: (w - 1 - c, h - 1 - r),
                lambda r, c: (c, h - 1 - r), lambda r, c: (w - 1 - c, r),
            ]
        return [[sr * w + sc for r in range(h) for c in range(w) for sr, sc in [m(r, c)]] for m in maps]

    def canonical(self, state: State) -> State:
        """The smallest (as a tuple) of the board's images under its symmetries."""
        state = tuple(state)
        return min(tuple(state[i] for i in perm) for perm in self.symmetries())

    def symmetry_classes(self, positions) -> list[tuple[State, int]]:
        """Group ``positions`` under the board's symmetries: ``(representative, size)`` per class.

        The representative is the class's smallest board (:meth:`canonical`); ``size`` counts the
        given positions in the class, which for a symmetric set such as the positions at maximum
        depth is the number of distinct images of the representative.  Sorted by representative.
        """
        perms = self.symmetries()
        counts: dict[State, int] = {}
        for state in positions:
            state = tuple(state)
            key = min(tuple(state[i] for i in perm) for perm in perms)
            counts[key] = counts.get(key, 0) + 1
        return sorted(counts.items())

    # --- generation --------------------------------------------------------------------------
    def _random_solvable(self, rng: _random.Random) -> State:
        return self.unrank(rng.randrange(self.n_ranks))


# --- depth tables -----------------------------------------------------------------------------------
_tables: dict[tuple[int, int], DepthTable] = {}
_tables_lock = threading.Lock()


def ura_table(width: int, height: int, *, stop=None, progress=None) -> DepthTable:
    """The depth table of one board size: memoised per process, cached on disk as ``ura-WxH``.

    ``stop``/``progress`` reach the BFS when the table has to be built.  A cancelled build raises
    :class:`~solver.errors.Cancelled` and leaves nothing behind.
    """
    key = (width, height)
    table = _tables.get(key)
    if table is not None:
        return table
    from solver.engines.tables import DepthTable, cached_table

    puzzle = UraPuzzle(width, height)
    began = time.perf_counter()

    def build() -> np.ndarray:
        depth, queue, _ = puzzle.bfs_arrays(stop=stop, progress=progress)
        if len(queue) != puzzle.n_ranks:  # pragma: no cover - the tests prove the hash is onto
            raise KomaError(f"Ura-omote {puzzle.size_label} BFS reached {len(queue)} of {puzzle.n_ranks} states")
        return depth

    depth = cached_table(f"ura-{width}x{height}", VERSION, build)
    with _tables_lock:
        return _tables.setdefault(key, DepthTable(depth, time.perf_counter() - began))


def results_table(max_side: int = MAX_SIDE, min_side: int = MIN_SIDE) -> list[dict]:
    """Full-BFS figures for every W x H with both sides in ``min_side..max_side`` (runs the kernel)."""
    import numpy as np

    rows = []
    for width in range(min_side, max_side + 1):
        for height in range(min_side, max_side + 1):
            puzzle = UraPuzzle(width, height)
            began = time.perf_counter()
            _depth, queue, layer_ends = puzzle.bfs_arrays()
            seconds = time.perf_counter() - began
            histogram = np.diff(np.concatenate([[0], layer_ends])).tolist()
            rows.append({
                "width": width, "height": height,
                "orbits": len(puzzle.orbits), "free": len(puzzle.free_cells),
                "formula": f"6^{len(puzzle.orbits)} × 2^{len(puzzle.free_cells)}",
                "solvable_boards": puzzle.n_ranks,
                "states": len(queue),
                "max_depth": len(histogram) - 1,
                "at_max_depth": int(histogram[-1]),
                "histogram": [int(x) for x in histogram],
                "seconds": seconds,
            })
    return rows
