"""Big sliding boards (5x5 and friends): a quick solution by reduction, not proven optimal.

The board shrinks one line at a time, as people solve it: the top row while the board is at least
as tall as it is wide, else the left column, until what is left is small enough to solve optimally
(12 cells or fewer, 3x5, 5x3 or 4x4).  A line is filled a few tiles at a time; each step is an exact BFS
over the cells of just those tiles and the blank, with the tiles already placed locked in place, so
every step is as short as it can be given the steps before it, and the last two tiles of a line are
always placed together (one at a time, the last one cannot get in without disturbing the other).
"""

from __future__ import annotations

import itertools

import numpy as np

from solver.engines.jit import njit
from solver.errors import Cancelled, KomaError

STOP_MASK = (1 << 16) - 1


def small_enough(width: int, height: int) -> bool:
    """Boards the optimal solver handles directly (random 3x5 boards take it well under a second)."""
    return width * height <= 12 or (width, height) in ((4, 4), (3, 5), (5, 3))


@njit(cache=True, nogil=True)
def _place(width, cells, board, locked, tiles, targets, stop):
    """Shortest blank walk that puts ``tiles`` on ``targets`` without touching ``locked`` cells.

    Returns the blank's cells along the walk (starting with its current cell), or an empty array if
    no such walk exists, or ``[-1]`` if stopped.  The state is the cells of the chosen tiles and of
    the blank, in base ``cells``: the other free tiles are interchangeable for this purpose.
    """
    k = tiles.shape[0]
    pos = np.empty(k + 1, np.int64)
    for i in range(k):
        for c in range(cells):
            if board[c] == tiles[i]:
                pos[i] = c
    for c in range(cells):
        if board[c] == 0:
            pos[k] = c
    powers = np.empty(k + 1, np.int64)
    powers[0] = 1
    for i in range(1, k + 1):
        powers[i] = powers[i - 1] * cells
    size = powers[k] * cells
    parent = np.full(size, -1, np.int64)
    queue = np.empty(size, np.int64)
    start = 0
    for i in range(k + 1):
        start += pos[i] * powers[i]
    parent[start] = start
    queue[0] = start
    head, tail = 0, 1
    found = -1
    while head < tail:
        if (head & STOP_MASK) == 0 and stop[0] != 0:
            return np.full(1, -1, np.int64)
        s = queue[head]
        head += 1
        x = s
        done = True
        for i in range(k + 1):
            pos[i] = x % cells
            x //= cells
            if i < k and pos[i] != targets[i]:
                done = False
        if done:
            found = s
            break
        blank = pos[k]
        r, c = blank // width, blank % width
        for d in range(4):
            if d == 0:
                if r == 0:
                    continue
                nxt = blank - width
            elif d == 1:
                if c == 0:
                    continue
                nxt = blank - 1
            elif d == 2:
                if c == width - 1:
                    continue
                nxt = blank + 1
            else:
                if blank + width >= cells:
                    continue
                nxt = blank + width
            if (locked >> nxt) & 1:
                continue
            child = s + (nxt - blank) * powers[k]
            for i in range(k):
                if pos[i] == nxt:
                    child += (blank - nxt) * powers[i]
            if parent[child] < 0:
                parent[child] = s
                queue[tail] = child
                tail += 1
    if found < 0:
        return np.empty(0, np.int64)
    length = 0
    s = found
    while parent[s] != s:
        length += 1
        s = parent[s]
    walk = np.empty(length + 1, np.int64)
    s = found
    for j in range(length, -1, -1):
        walk[j] = s // powers[k]
        s = parent[s]
    return walk


def _moves_of_walk(walk, width: int) -> list[str]:
    """The blank walking from cell a to a neighbour b slides the tile at b the other way."""
    names = {-width: "D", width: "U", -1: "R", 1: "L"}
    return [names[int(b) - int(a)] for a, b in itertools.pairwise(walk)]


def _chunks(line: list[int]) -> list[list[int]]:
    """Split a line's cells into BFS steps: up to three at a time, the last two always together."""
    if len(line) <= 3:
        return [line]
    head, tail = line[:-2], line[-2:]
    return [head[i:i + 3] for i in range(0, len(head), 3)] + [tail]


def reduce_board(puzzle, state, *, stop=None):
    """Fill lines until the rest fits the optimal solver.

    Returns ``(moves, state, (left, top, width, height))``: the moves so far, the board after them
    and the unsolved region (columns ``left..``, rows ``top..``).
    """
    width, height, cells = puzzle.width, puzzle.height, puzzle.cells
    stop = np.zeros(1, np.uint8) if stop is None else stop
    left, top = 0, 0
    moves: list[str] = []
    state = tuple(state)
    locked = 0
    while not small_enough(width - left, height - top):
        if height - top >= width - left:
            line = [top * width + c for c in range(left, width)]
            top += 1
        else:
            line = [r * width + left for r in range(top, height)]
            left += 1
        for chunk in _chunks(line):
            tiles = np.array([c + 1 for c in chunk], np.int64)
            walk = _place(width, cells, np.array(state, np.int64), locked, tiles, np.array(chunk, np.int64), stop)
            if len(walk) == 1 and walk[0] == -1:
                raise Cancelled()
            if len(walk) == 0:  # pragma: no cover - every chunk of a solvable board can be placed
                raise KomaError("could not place the tiles of a line; is the board solvable?")
            step = _moves_of_walk(walk, width)
            state = puzzle.replay(state, step)[-1]
            moves += step
            for c in chunk:
                locked |= 1 << c
    return moves, state, (left, top, width - left, height - top)


def sub_board(state, width: int, region) -> tuple[int, ...]:
    """The unsolved region as a board of its own, tiles renumbered to its goal."""
    left, top, w, h = region
    out = []
    for r in range(top, top + h):
        for c in range(left, left + w):
            tile = state[r * width + c]
            if tile == 0:
                out.append(0)
            else:
                gr, gc = divmod(tile - 1, width)
                out.append((gr - top) * w + (gc - left) + 1)
    return tuple(out)
