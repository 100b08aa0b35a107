"""The sliding puzzles' numba kernels: successors of a packed board, its rank, the BFS and bidirectional BFS.

Kept apart from the model (:mod:`solver.sliding.model`) so that using the model one board at a time
(parsing, rules, the parity proof, answers from a cached depth table) never imports numba.
"""

from __future__ import annotations

from solver.engines import bfs
from solver.engines.jit import njit
from solver.engines.ranking import rank_packed


@njit(cache=True, nogil=True, inline="always")
def _slide(packed, blank, cell):
    tile = (packed >> (4 * cell)) & 0xF
    return packed + (tile << (4 * blank)) - (tile << (4 * cell))


@njit(cache=True, nogil=True, inline="always")
def sliding_successors(packed, params, out):
    """Neighbours of a packed board (params = width, height, cells), blank up/left/right/down."""
    width = params[0]
    cells = params[2]
    blank = 0
    while (packed >> (4 * blank)) & 0xF != 0:
        blank += 1
    k = 0
    if blank >= width:
        out[k] = _slide(packed, blank, blank - width)
        k += 1
    if blank % width != 0:
        out[k] = _slide(packed, blank, blank - 1)
        k += 1
    if blank % width != width - 1:
        out[k] = _slide(packed, blank, blank + 1)
        k += 1
    if blank + width < cells:
        out[k] = _slide(packed, blank, blank + width)
        k += 1
    return k


@njit(cache=True, nogil=True, inline="always")
def sliding_rank(packed, params):
    return rank_packed(packed, params[2])


@njit(cache=True, nogil=True)
def sliding_bfs(params, start, depth, queue, layer_ends, stop, progress):
    return bfs.bfs_fill(sliding_successors, sliding_rank, params, start, depth, queue, layer_ends, stop, progress)


@njit(cache=True, nogil=True)
def bidirectional_kernel(params, start, goal, parent, side, queue, stop):
    return bfs.bidirectional_bfs(sliding_successors, sliding_rank, params, start, goal, parent, side, queue, stop)
