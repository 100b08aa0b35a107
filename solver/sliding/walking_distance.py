"""Takahashi's walking distance for sliding puzzles: the small table and its transitions.

Look at one axis only, say the rows.  A board becomes an H x H matrix ``count[i][j]``, the number
of tiles in row ``i`` whose goal row is ``j``, plus the blank's row.  A vertical move carries one
tile from the row next to the blank into the blank's row; horizontal moves change nothing.  The
fewest such moves from a matrix to the goal's (diagonal, blank in the last row) is the vertical
walking distance; the horizontal one is the same idea on the columns (the rows of the transposed
board), and their sum is an admissible estimate that dominates Manhattan distance.  The 15-puzzle
has 24,964 matrices per axis, the 5-row axis of a 3x5 board 352,560; the table is built at first
use by a BFS from the goal, vectorised over each layer.

A matrix is coded as an integer: ``count[i][j]`` is the base-(W+1) digit ``i*H + j``, and the
blank's line sits above all of them.  Matrices are indexed in the sorted order of their codes.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

BLANK_UP, BLANK_DOWN = 0, 1  # the blank moves to the previous / next line


@dataclass(frozen=True)
class WalkingTable:
    """Walking distances along one axis: ``lines`` lines of ``slots`` cells (rows: H lines of W cells).

    ``successor[(s * 2 + direction) * lines + group]`` is the matrix after the blank moves one line
    up or down, swapping with a tile whose goal line is ``group`` (-1 if there is none);
    ``distance[s]`` is the walking distance of matrix ``s``; ``codes[s]`` its code.
    """

    lines: int
    slots: int
    distance: np.ndarray
    successor: np.ndarray
    codes: np.ndarray

    def matrix_of(self, board, line_of_cell, goal_line_of_tile) -> int:
        """The index of ``board``'s matrix, given each cell's line and each tile's goal line."""
        base = self.slots + 1
        code = 0
        for cell, tile in enumerate(board):
            if tile == 0:
                code += line_of_cell(cell) * base ** (self.lines * self.lines)
            else:
                code += base ** (line_of_cell(cell) * self.lines + goal_line_of_tile(tile))
        s = int(np.searchsorted(self.codes, code))
        if s >= len(self.codes) or self.codes[s] != code:  # pragma: no cover - every board has a matrix
            raise ValueError("not a walking-distance matrix of this board size")
        return s


@lru_cache(maxsize=8)
def walking_table(lines: int, slots: int) -> WalkingTable:
    """BFS from the goal matrix over every reachable matrix (moves are reversible)."""
    base = slots + 1
    if base ** (lines * lines) * lines >= 2 ** 62:
        raise ValueError(f"walking distance is not available for {lines} lines of {slots}")
    digit = np.array([base ** k for k in range(lines * lines)], dtype=np.int64)
    blank_unit = np.int64(base ** (lines * lines))
    goal = sum((slots - (i == lines - 1)) * int(digit[i * lines + i]) for i in range(lines))
    goal += (lines - 1) * int(blank_unit)

    def moves(codes: np.ndarray):
        """Every (direction, group) transition of ``codes``: the new codes, -1 where impossible."""
        blank = codes // blank_unit
        out = np.full((len(codes), 2, lines), -1, np.int64)
        for direction, step in ((BLANK_UP, -1), (BLANK_DOWN, 1)):
            other = blank + step
            inside = (other >= 0) & (other < lines)
            safe_other = np.clip(other, 0, lines - 1)
            for group in range(lines):
                leave = digit[safe_other * lines + group]
                arrive = digit[blank * lines + group]
                has = (codes // leave) % base > 0
                ok = inside & has
                new = codes - leave + arrive + step * blank_unit
                out[:, direction, group] = np.where(ok, new, -1)
        return out

    layers = [np.array([goal], np.int64)]
    while True:
        children = moves(layers[-1]).reshape(-1)
        children = np.unique(children[children >= 0])
        # a move is reversible, so a child is on the layer before, the same layer or the next one
        for layer in layers[-2:]:
            children = children[~np.isin(children, layer, assume_unique=True)]
        if len(children) == 0:
            break
        layers.append(children)
    codes = np.concatenate(layers)
    distance = np.concatenate([np.full(len(layer), d, np.int64) for d, layer in enumerate(layers)])
    order = np.argsort(codes)
    codes, distance = codes[order], distance[order]
    targets = moves(codes)
    index = np.searchsorted(codes, np.where(targets >= 0, targets, 0))
    successor = np.where(targets >= 0, index, -1).reshape(-1)
    return WalkingTable(lines, slots, distance, successor.astype(np.int64), codes)
