"""Ura-omote's numba kernels over bitboards: the successors, the perfect hash and the BFS.

The model (:mod:`solver.ura.model`) imports this module only to build a depth table or to check the
kernels against its plain-Python rules, so using the model one board at a time never loads numba.
"""

from __future__ import annotations

import numpy as np

from solver.engines import bfs
from solver.engines.jit import njit
from solver.ura.layout import P_COLS, P_H, P_MID_SHIFT, P_MID_TABLE, P_MIRROR, P_PAIR, P_W


@njit(cache=True, nogil=True, inline="always")
def ura_successors(packed, params, out):
    """The W + H neighbours of a bitboard: rows top to bottom, then columns left to right."""
    w = params[P_W]
    h = params[P_H]
    row_mask = (np.int64(1) << w) - 1
    mirror = params[P_MIRROR]
    mirrored = np.int64(0)  # every row reversed
    flipped = np.int64(0)  # the rows in reverse order
    for r in range(h):
        bits = (packed >> (r * w)) & row_mask
        mirrored |= params[mirror + bits] << (r * w)
        flipped |= bits << ((h - 1 - r) * w)
    turned_rows = packed ^ ~mirrored  # where a row turned over differs from the board
    turned_cols = packed ^ ~flipped
    for r in range(h):
        out[r] = packed ^ (turned_rows & (row_mask << (r * w)))
    cols = params[P_COLS]
    for c in range(w):
        out[h + c] = packed ^ (turned_cols & params[cols + c])
    return w + h


@njit(cache=True, nogil=True, inline="always")
def ura_rank(packed, params):
    """Perfect hash of a solvable bitboard: a sum of table entries, one per pair of mirrored rows plus the middle row.

    Fixed slots instead of a loop and a branch: this runs a dozen times per BFS node.
    """
    row_mask = (np.int64(1) << params[P_W]) - 1
    w = params[P_W]
    value = params[params[P_MID_TABLE] + ((packed >> params[P_MID_SHIFT]) & row_mask)]
    value += params[params[P_PAIR] + (((packed >> params[P_PAIR + 1]) & row_mask)
                                      | (((packed >> params[P_PAIR + 2]) & row_mask) << w))]
    value += params[params[P_PAIR + 3] + (((packed >> params[P_PAIR + 4]) & row_mask)
                                          | (((packed >> params[P_PAIR + 5]) & row_mask) << w))]
    value += params[params[P_PAIR + 6] + (((packed >> params[P_PAIR + 7]) & row_mask)
                                          | (((packed >> params[P_PAIR + 8]) & row_mask) << w))]
    return value


@njit(cache=True, nogil=True)
def ura_bfs(params, start, depth, queue, layer_ends, stop, progress):
    return bfs.bfs_fill(ura_successors, ura_rank, params, start, depth, queue, layer_ends, stop, progress)


@njit(cache=True, nogil=True)
def kernel_rank(packed, params):
    return ura_rank(packed, params)


@njit(cache=True, nogil=True)
def kernel_successors(packed, params, out):
    return ura_successors(packed, params, out)
