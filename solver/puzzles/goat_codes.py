"""Goat's board: its size, the cell codes and the size of the perfect hash (see :mod:`solver.puzzles.goat`).

Shared by the model and its numba kernels (:mod:`solver.puzzles.goat_kernels`), so neither imports the other.
"""

from __future__ import annotations

WIDTH, HEIGHT, CELLS = 4, 3, 12
BLANK, TL, VBAR, BL, BR, SHEEP, WOLF, DOOR, DASH, BIG = range(10)

BIG_PLACES = 3  # the big piece's left cell: 0, 1 or 2
SMALL_PLACES = 10 * 9 * 8 * 7 * 6 * 5 * 4 * 3  # blank and 7 distinct pieces in the 10 free cells: 1,814,400
N_RANKS = BIG_PLACES * SMALL_PLACES  # 5,443,200
