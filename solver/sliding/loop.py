"""Article 003's "mindless" loop method for the 15-puzzle: not optimal, but it needs no thought.

The 15 tiles circulate along one fixed loop through all 16 cells.  Where a cell lets a tile slide
sideways over two others (loop positions 0, 2, 4, 8, 10, 12 as the blank's position), the tile
jumps if at least one of the two it would pass is larger than it; tile 1 never jumps and is never
jumped.  Repeating this blindly sorts the tiles along the loop into 1, 2, ..., 15 or 1, 3, 2, ...,
15, and the second ending means the board was unsolvable.

The method sorts *temporary labels*: Koma's goal, with its blank walked 7 steps forward along the
loop, is the loop-sorted arrangement; each tile is labelled by its place in it.  A run is the
loop moves, then those 7 steps backwards to the goal.  A board that is already solved takes no
moves (the loop would walk the blank 7 steps out and 7 back).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.engines.jit import njit
from solver.errors import KomaError
from solver.sliding.model import SlidingPuzzle

# loop position -> (row, column), from the article's table of a[] over the 4x4 board
LOOP_CELLS = ((1, 0), (0, 0), (0, 1), (1, 1), (1, 2), (0, 2), (0, 3), (1, 3),
              (2, 3), (3, 3), (3, 2), (2, 2), (2, 1), (3, 1), (3, 0), (2, 0))
JUMP_POSITIONS = (0, 2, 4, 8, 10, 12)  # blank here: the tile at +3 may jump over +1 and +2
LOOP_ARROWS = "↓←↓←↓↑←↑↓→↓↑→↑→↑"  # the article's drawing, row by row: where each cell's tile goes
CELL_OF = np.array([r * 4 + c for r, c in LOOP_CELLS], dtype=np.int64)
MAX_STEPS = 5_000_000
_FIFTEEN = SlidingPuzzle(4, 4)
NOT_FINISHED = -1


@njit(cache=True, nogil=True)
def _run_loop(a, max_steps, sources):
    """Play the loop rules on loop-ordered labels ``a`` (0 = blank) until sorted.

    ``sources[k]`` receives the loop position of the tile moved at step k (it moves into the
    blank).  Returns the number of steps, or NOT_FINISHED if ``max_steps`` ran out.
    """
    z = 0
    for i in range(16):
        if a[i] == 0:
            z = i
    steps = 0
    while True:
        if z == 0 and a[1] == 1:
            done = True
            for i in range(4, 16):
                if a[i] != i:
                    done = False
                    break
            if done:
                return steps
        if steps >= max_steps:
            return NOT_FINISHED
        if (z == 0 or z == 2 or z == 4 or z == 8 or z == 10 or z == 12) and a[z + 1] != 1 and a[z + 2] != 1 \
                and a[z + 3] != 1 and (a[z + 1] > a[z + 3] or a[z + 2] > a[z + 3]):
            source = z + 3
        elif z == 15:
            source = 0
        else:
            source = z + 1
        a[z] = a[source]
        a[source] = 0
        sources[steps] = source
        z = source
        steps += 1


def _direction(from_cell: int, to_cell: int) -> str:
    delta = to_cell - from_cell
    return {-4: "U", 4: "D", -1: "L", 1: "R"}[delta]


def _loop_goal() -> tuple[int, ...]:
    """Koma's goal with the blank walked forward along the loop to loop position 0."""
    board = list(_FIFTEEN.goal)
    z = LOOP_CELLS.index((3, 3))
    while z != 0:
        nxt = (z + 1) % 16
        here, there = CELL_OF[z], CELL_OF[nxt]
        board[here], board[there] = board[there], 0
        z = nxt
    return tuple(board)


LOOP_GOAL = _loop_goal()
# temporary label of each real tile: its loop position in LOOP_GOAL
LABEL_OF_TILE = {LOOP_GOAL[CELL_OF[i]]: i for i in range(1, 16)}
TILE_OF_LABEL = {label: tile for tile, label in LABEL_OF_TILE.items()}


@dataclass(frozen=True)
class LoopRun:
    """One run of the loop method: the moves, every board, and how it ended."""

    moves: tuple[str, ...]
    path: tuple[tuple[int, ...], ...]
    loop_steps: int
    sorted_end: bool  # True: 1, 2, 3, ... along the loop; False: 1, 3, 2, ... (unsolvable start)
    final_labels: tuple[int, ...]  # labels along the loop at the end, blank first

    @property
    def length(self) -> int:
        return len(self.moves)


def labels_along_loop(state) -> np.ndarray:
    """The board as temporary labels in loop order (0 = blank)."""
    return np.array([0 if state[CELL_OF[i]] == 0 else LABEL_OF_TILE[state[CELL_OF[i]]] for i in range(16)], dtype=np.int64)


def loop_moves(state, max_steps: int = MAX_STEPS) -> tuple[np.ndarray, bool, np.ndarray]:
    """The loop positions moved, whether it ended sorted, and the final labels (fast, no boards)."""
    a = labels_along_loop(state)
    sources = np.empty(max_steps, np.int64)
    steps = _run_loop(a, max_steps, sources)
    if steps == NOT_FINISHED:
        raise KomaError(f"the loop method did not finish within {max_steps:,} moves")
    return sources[:steps], bool(a[2] == 2), a


def loop_length(state) -> tuple[int, bool]:
    """How many moves a full run takes (loop steps + the 7 back to the goal) and whether it ends sorted."""
    if tuple(state) == _FIFTEEN.goal:
        return 0, True
    sources, sorted_end, _ = loop_moves(state)
    return len(sources) + (7 if sorted_end else 0), sorted_end


def run_loop_method(state) -> LoopRun:
    """Play the loop method on a 15-puzzle board, then walk the blank back to Koma's goal."""
    state = tuple(state)
    if len(state) != 16:
        raise KomaError("the loop method is for the 15-puzzle (4x4)")
    if state == _FIFTEEN.goal:
        return LoopRun((), (state,), 0, True, tuple(int(x) for x in labels_along_loop(state)))
    sources, sorted_end, labels = loop_moves(state)
    board = list(state)
    z = next(i for i in range(16) if board[CELL_OF[i]] == 0)
    moves: list[str] = []
    path = [tuple(board)]

    def slide(source: int) -> None:
        nonlocal z
        here, there = int(CELL_OF[z]), int(CELL_OF[source])
        board[here], board[there] = board[there], 0
        moves.append(_direction(there, here))
        path.append(tuple(board))
        z = source

    for source in sources:
        slide(int(source))
    if sorted_end:
        while CELL_OF[z] != 15:  # back along the loop to the goal's blank cell
            slide((z - 1) % 16)
    return LoopRun(tuple(moves), tuple(path), len(sources), sorted_end, tuple(int(x) for x in labels))
