"""Takahashi's walking distance for sliding puzzles: the small table and its transitions.

Look at one axis only, say the rows.  A board becomes an H x H matrix ``count[i][j]``, the number
of tiles in row ``i`` whose goal row is ``j``, plus the blank's row.  A vertical move carries one
tile from the row next to the blank into the blank's row; horizontal moves change nothing.  The
fewest such moves from a matrix to the goal's (diagonal, blank in the last row) is the vertical
walking distance; the horizontal one is the same idea on the columns (the rows of the transposed
board), and their sum is an admissible estimate that dominates Manhattan distance.  The 15-puzzle
has 24,964 matrices per axis; the table is built by a BFS from the goal at first use.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

BLANK_UP, BLANK_DOWN = 0, 1  # the blank moves to the previous / next line


@dataclass(frozen=True)
class WalkingTable:
    """Walking distances along one axis: ``lines`` lines of ``slots`` cells (rows: H lines of W cells).

    ``successor[(s * 2 + direction) * lines + group]`` is the matrix after the blank moves one line
    up or down, swapping with a tile whose goal line is ``group`` (-1 if there is none);
    ``distance[s]`` is the walking distance of matrix ``s``.
    """

    lines: int
    slots: int
    distance: np.ndarray
    successor: np.ndarray
    index: dict

    def matrix_of(self, board, line_of_cell, goal_line_of_tile) -> int:
        """The index of ``board``'s matrix, given each cell's line and each tile's goal line."""
        counts = [[0] * self.lines for _ in range(self.lines)]
        blank = 0
        for cell, tile in enumerate(board):
            if tile == 0:
                blank = line_of_cell(cell)
            else:
                counts[line_of_cell(cell)][goal_line_of_tile(tile)] += 1
        return self.index[(tuple(tuple(row) for row in counts), blank)]


@lru_cache(maxsize=8)
def walking_table(lines: int, slots: int) -> WalkingTable:
    """Enumerate every matrix reachable from the goal by a BFS (moves are reversible)."""
    goal_counts = tuple(tuple((slots - (i == lines - 1)) if i == j else 0 for j in range(lines)) for i in range(lines))
    goal = (goal_counts, lines - 1)
    index = {goal: 0}
    states = [goal]
    distance = [0]
    links: list[list[int]] = []
    queue = deque([0])
    while queue:
        s = queue.popleft()
        counts, blank = states[s]
        row_links = [-1] * (2 * lines)
        for direction, other in ((BLANK_UP, blank - 1), (BLANK_DOWN, blank + 1)):
            if not 0 <= other < lines:
                continue
            for group in range(lines):
                if counts[other][group] == 0:
                    continue
                new = [list(row) for row in counts]
                new[other][group] -= 1
                new[blank][group] += 1
                key = (tuple(tuple(row) for row in new), other)
                t = index.get(key)
                if t is None:
                    t = index[key] = len(states)
                    states.append(key)
                    distance.append(distance[s] + 1)
                    queue.append(t)
                row_links[direction * lines + group] = t
        links.append(row_links)
    return WalkingTable(lines, slots, np.array(distance, dtype=np.int64),
                        np.array(links, dtype=np.int64).reshape(-1), index)
