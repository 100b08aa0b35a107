"""Goat: article 001's sliding-block puzzle (a variant of "Get My Goat"), on a 4 x 3 board.

State: 12 cell codes in reading order (cells 0..11, row by row)::

    0 blank  .      1 ┌ r     2 │ i     3 └ l     4 ┘ j
    5 羊 S (sheep)  6 狼 W (wolf)       7 ‖ d (door)
    8 ─ -  (both ─; they are identical to the player)
    9 B    (each of the two cells of the big piece)

The codes 0..8 are the article's.  The big piece always lies in the top row, on cells 0-1, 1-2
or 2-3.  GOAL = ``r-BB/iSd./l-jW`` (the sheep in its pen), START = ``r-BB/i.dS/l-jW``.

Moves are named by the direction the piece moves, like the sliding puzzles: ``U D L R``.  At most
one piece can enter the blank from each side, so the letter names the piece: ``L`` is the piece
right of the blank sliding left.  When that piece is the big piece, ``L``/``R`` slide the whole big
piece one cell sideways and the blank jumps two cells the other way.  The big piece never moves
``U`` or ``D``.

The perfect hash is the article's minimal one (see :func:`rank`).  Every one of its 5,443,200
positions can reach GOAL (a full BFS from GOAL reaches them all), so every legal board is solvable;
:meth:`GoatPuzzle.proof` explains the parity argument that tells the two ─ apart.  The IDA* solvers
live in :mod:`solver.goat.search`.
"""

from __future__ import annotations

import random as _random
import time
from functools import lru_cache
from typing import TYPE_CHECKING

from solver.engines.permutations import pack
from solver.errors import BoardError, KomaError
from solver.goat.notation import (
    ASCII,
    BIG,
    BL,
    BLANK,
    BR,
    CELLS,
    CHAR_CODES,
    DASH,
    DOOR,
    HEIGHT,
    N_RANKS,
    NAMES,
    PIECE_COUNTS,
    SHEEP,
    SMALL_PLACES,
    TL,
    VBAR,
    WIDTH,
    WOLF,
    format_unicode,
)
from solver.puzzle import Proof, Puzzle, State

if TYPE_CHECKING:
    import numpy as np

    from solver.engines.tables import DepthTable

START: State = (TL, DASH, BIG, BIG, VBAR, BLANK, DOOR, SHEEP, BL, DASH, BR, WOLF)
GOAL: State = (TL, DASH, BIG, BIG, VBAR, SHEEP, DOOR, BLANK, BL, DASH, BR, WOLF)
ARTICLE_LONGEST: State = (WOLF, DOOR, BIG, BIG, BR, SHEEP, VBAR, DASH, BLANK, DASH, BL, TL)  # WdBB/jSi-/.-lr

VERSION = 1  # of the cached depth table's layout; bump when the hash or the codes change

MOVE_NAMES = "UDLR"  # the IDA* kernels use this order too (solver.goat.search)
PIECE_FROM = {"U": 4, "D": -4, "L": 1, "R": -1}  # where the moving piece comes from, relative to the blank

# The article's snake path A..L (its "経路"): bottom row left to right, middle row right to left,
# top row left to right.  Along it a vertical move carries a piece past 0, 2, 4 or 6 others.
SNAKE = (8, 9, 10, 11, 7, 6, 5, 4, 0, 1, 2, 3)
# The article's labelled codes: the ─ that ends on top is 8, the one that ends at the bottom 11;
# the big piece's left and right cells are 9 and 10.
TOP_DASH, BIG_LEFT, BIG_RIGHT, BOTTOM_DASH = 8, 9, 10, 11
LABELLED_GOAL = (TL, TOP_DASH, BIG_LEFT, BIG_RIGHT, VBAR, SHEEP, DOOR, BLANK, BL, BOTTOM_DASH, BR, WOLF)

# --- the perfect hash in Python (mirrors the kernels; tests check they agree) --------------------
def rank(state: State) -> int:
    """The article's minimal perfect hash of a legal board, in ``0..5,443,199``.

    The two ─ are identical, so the hash does not tell them apart either: it records where the big
    piece is (3 ways) and where the blank and the seven distinct pieces ┌ │ └ ┘ 羊 狼 ‖ are among
    the other 10 cells (10·9·…·3 ways); the two ─ take the two cells left over.  This is a
    bijection between legal boards (public states) and ``0..n_ranks-1``.
    """
    b1 = state.index(BIG)
    where = [0] * 8
    free_cell = 0
    for _cell, v in enumerate(state):
        if v != BIG:
            if v < DASH:
                where[v] = free_cell
            free_cell += 1
    used: set[int] = set()
    value = 0
    for i, q in enumerate(where):
        value = value * (10 - i) + q - sum(1 for u in used if u < q)
        used.add(q)
    return b1 * SMALL_PLACES + value


def unrank(r: int) -> State:
    """The legal board with hash ``r`` (inverse of :func:`rank`)."""
    if not 0 <= r < N_RANKS:
        raise KomaError(f"Goat rank {r} is out of range (0..{N_RANKS - 1})")
    b1, value = divmod(r, SMALL_PLACES)
    digits = [0] * 8
    for i in range(7, -1, -1):
        value, digits[i] = divmod(value, 10 - i)
    free = list(range(10))
    board = [DASH] * CELLS
    board[b1] = board[b1 + 1] = BIG
    for code, d in enumerate(digits):
        q = free.pop(d)
        board[q if q < b1 else q + 2] = code
    return tuple(board)


# --- the parity of the two ─ ---------------------------------------------------------------------
def inversions(sequence) -> int:
    return sum(1 for i, a in enumerate(sequence) for b in sequence[i + 1:] if b < a)


def snake_sequence(labelled) -> list[int]:
    """The labelled pieces along the snake path, blank skipped."""
    return [labelled[c] for c in SNAKE if labelled[c] != BLANK]


def label(state: State) -> tuple[int, ...]:
    """The article's labelled board: the big piece as 9 10, and the two ─ as 8 (ends on top) and 11.

    Of the two ways to label the ─, only the one whose snake sequence has an even inversion count
    (like GOAL's, 22) is reachable, because no move changes that parity.
    """
    board = list(state)
    b1 = board.index(BIG)
    board[b1], board[b1 + 1] = BIG_LEFT, BIG_RIGHT
    first, second = [c for c in SNAKE if board[c] == DASH]
    board[first], board[second] = TOP_DASH, BOTTOM_DASH
    if inversions(snake_sequence(board)) % 2:
        board[first], board[second] = BOTTOM_DASH, TOP_DASH
    return tuple(board)


def unlabel(labelled) -> State:
    out = []
    for v in labelled:
        v = int(v)
        out.append(DASH if v in (TOP_DASH, BOTTOM_DASH) else BIG if v in (BIG_LEFT, BIG_RIGHT) else v)
    return tuple(out)


def _cell_name(cell: int) -> str:
    return f"row {cell // WIDTH + 1}, column {cell % WIDTH + 1}"


# --- the puzzle ----------------------------------------------------------------------------------
class GoatPuzzle(Puzzle):
    """Article 001's Goat: 3 rows x 4 columns, one big piece in the top row, the sheep to its pen."""

    key = "goat"
    title = "Goat"
    width = WIDTH
    height = HEIGHT
    goal = GOAL
    start = START
    n_ranks = N_RANKS

    def __repr__(self) -> str:
        return "GoatPuzzle()"

    # --- notation -------------------------------------------------------------------------
    def parse(self, text: str) -> State:
        """Three rows of four cells separated by ``/`` (or newlines); spaces are ignored."""
        text = (text or "").strip()
        if not text:
            raise BoardError("the board is empty")
        rows = ["".join(r.split()) for r in text.replace("\n", "/").split("/")]
        if len(rows) != HEIGHT:
            raise BoardError(f"expected {HEIGHT} rows separated by '/', got {len(rows)}")
        for i, row in enumerate(rows, 1):
            if len(row) != WIDTH:
                raise BoardError(f"row {i} has {len(row)} cells, expected {WIDTH}")
        board: list[int] = []
        for i, row in enumerate(rows, 1):
            for j, ch in enumerate(row, 1):
                if ch not in CHAR_CODES:
                    raise BoardError(f"unknown character {ch!r} at row {i}, column {j}; "
                                     f"use . r i l j d - S W B (or □ ┌ │ └ ┘ ‖ ─ 羊 狼 大)")
                board.append(CHAR_CODES[ch])
        bigs = [c for c, v in enumerate(board) if v == BIG]
        if len(bigs) != 2 or bigs[1] != bigs[0] + 1 or bigs[1] >= WIDTH:
            where = "; ".join(_cell_name(c) for c in bigs) or "nowhere"
            raise BoardError(f"the big piece must be two adjacent B in the top row (found B at {where})")
        wrong = [f"{board.count(code) or 'no'} {NAMES[code]} ({ASCII[code]}) instead of {PIECE_COUNTS[code]}"
                 for code in range(BIG) if board.count(code) != PIECE_COUNTS[code]]
        if wrong:
            raise BoardError("wrong piece counts: " + "; ".join(wrong))
        return tuple(board)

    def format(self, state: State) -> str:
        return "/".join("".join(ASCII[v] for v in state[r * WIDTH:(r + 1) * WIDTH]) for r in range(HEIGHT))

    def format_unicode(self, state: State) -> str:
        return format_unicode(state)

    # --- rules ----------------------------------------------------------------------------
    def _check(self, state: State) -> State:
        state = tuple(int(v) for v in state)
        if len(state) != CELLS:
            raise BoardError(f"a Goat board has {CELLS} cells, got {len(state)}")
        return state

    def moves(self, state: State) -> list[str]:
        """Legal moves from ``state`` in the order U D L R (the direction the piece moves)."""
        b = self._check(state).index(BLANK)
        legal = []
        for name in MOVE_NAMES:
            src = self._source(state, b, name)
            if src is not None:
                legal.append(name)
        return legal

    @staticmethod
    def _source(state: State, b: int, move: str) -> int | None:
        """The cell of the piece that ``move`` slides into the blank at ``b`` (None if illegal)."""
        row, col = divmod(b, WIDTH)
        if move == "U" and row < HEIGHT - 1:
            return b + WIDTH
        if move == "D" and row > 0 and state[b - WIDTH] != BIG:
            return b - WIDTH
        if move == "L" and col < WIDTH - 1:
            return b + 1
        if move == "R" and col > 0:
            return b - 1
        return None

    def apply(self, state: State, move: str) -> State:
        if move not in PIECE_FROM:
            raise KomaError(f"unknown move {move!r}; Goat moves are U, D, L, R (the direction the piece moves)")
        state = self._check(state)
        b = state.index(BLANK)
        src = self._source(state, b, move)
        if src is None:
            raise KomaError(f"move {move} is not possible here: no piece can move {move} into the blank")
        board = list(state)
        if board[src] == BIG:  # the far cell of the big piece becomes the blank
            far = src + (src - b)
            board[b], board[far] = BIG, BLANK
        else:
            board[b], board[src] = board[src], BLANK
        return tuple(board)

    # --- parity ---------------------------------------------------------------------------
    def proof(self, state: State) -> Proof:
        """Always solvable; explains which ─ ends on top (the article's snake-path parity)."""
        state = self._check(state)
        labelled = label(state)
        sequence = snake_sequence(labelled)
        count = inversions(sequence)
        top = labelled.index(TOP_DASH)
        bottom = labelled.index(BOTTOM_DASH)
        other = list(labelled)
        other[top], other[bottom] = BOTTOM_DASH, TOP_DASH
        other_sequence = snake_sequence(other)
        other_count = inversions(other_sequence)
        goal_sequence = snake_sequence(LABELLED_GOAL)
        goal_count = inversions(goal_sequence)
        summary = (f"solvable: the ─ at {_cell_name(top)} ends on top (inversions {count}, even); "
                   f"all {N_RANKS:,} positions reach GOAL")
        lines = (
            "Snake path (the article's A..L): cells " + " ".join(map(str, SNAKE))
            + " (bottom row left to right, middle row right to left, top row left to right).",
            "Pieces along it, blank skipped, numbered as in the article: ┌1 │2 └3 ┘4 羊5 狼6 ‖7, big piece 9 10, "
            "─ 8 (on top in GOAL) and ─ 11 (at the bottom in GOAL).",
            f"GOAL reads {goal_sequence}: {goal_count} inversions, even.",
            "No move changes the parity: sideways moves keep the order along the path (the big piece too), "
            "and a vertical move carries one piece past 0, 2, 4 or 6 others.",
            f"With the ─ at {_cell_name(top)} as 8: {sequence}, {count} inversions, even: reachable.",
            f"With the ─ at {_cell_name(bottom)} as 8 instead: {other_sequence}, {other_count} inversions, odd: "
            "impossible.",
            f"So the ─ at {_cell_name(top)} (cell {top}) ends on top (cell 1) and the ─ at {_cell_name(bottom)} "
            f"(cell {bottom}) ends at the bottom (cell 9).",
            f"Every one of the {N_RANKS:,} positions can reach GOAL: a full BFS from GOAL reaches them all "
            "(koma longest goat).",
            "Verdict: solvable.",
        )
        fields = {
            "snake_path": list(SNAKE),
            "labelled_board": list(labelled),
            "labelled_sequence": sequence,
            "inversions": count,
            "parity": "even",
            "other_labelling_sequence": other_sequence,
            "other_labelling_inversions": other_count,
            "goal_sequence": goal_sequence,
            "goal_inversions": goal_count,
            "top_dash_cell": top,
            "bottom_dash_cell": bottom,
            "every_position_reaches_goal": True,
            "positions": N_RANKS,
            "verified_by": f"a full BFS from GOAL reaches all {N_RANKS:,} positions",
        }
        return Proof(True, summary, fields, lines)

    # --- perfect hash and tables -----------------------------------------------------------
    def rank(self, state: State) -> int:
        return rank(self._check(state))

    def unrank(self, r: int) -> State:
        return unrank(int(r))

    def bfs_arrays(self, *, stop=None, progress=None):
        """One full BFS from GOAL: ``(depth, queue, layer_ends)`` as in :func:`solver.engines.bfs.breadth_first`."""
        from solver.engines import bfs
        from solver.goat.kernels import goat_bfs

        return bfs.breadth_first(goat_bfs, kernel_params(), pack(GOAL), N_RANKS, stop=stop, progress=progress)

    def depth_table(self, *, stop=None, progress=None) -> DepthTable:
        return goat_depth_table(stop=stop, progress=progress)

    def _random_solvable(self, rng: _random.Random) -> State:
        return unrank(rng.randrange(N_RANKS))


@lru_cache(maxsize=1)
def kernel_params() -> np.ndarray:
    """The kernels' parameters (none: one board); numpy is imported when a kernel first needs it, never by a server."""
    import numpy as np

    return np.zeros(1, np.int64)


def _build_depth(stop=None, progress=None) -> np.ndarray:
    depth, _, _ = GoatPuzzle().bfs_arrays(stop=stop, progress=progress)
    return depth


def load_cached_depth(stop=None, progress=None) -> DepthTable:
    from solver.engines import tables
    from solver.engines.tables import DepthTable

    began = time.perf_counter()
    depth = tables.cached_table("goat", VERSION, lambda: _build_depth(stop, progress))
    return DepthTable(depth, time.perf_counter() - began)


_fresh: list[DepthTable] = []  # a table built under a caller's stop flag, handed to the memo


@lru_cache(maxsize=1)
def _memo_table() -> DepthTable:
    return _fresh.pop() if _fresh else load_cached_depth()


def goat_depth_table(*, stop=None, progress=None) -> DepthTable:
    """The BFS depth table from GOAL: loaded from the disk cache (or built and saved), once per process."""
    if (stop is None and progress is None) or _memo_table.cache_info().currsize:
        return _memo_table()
    _fresh[:] = [load_cached_depth(stop, progress)]
    return _memo_table()
