"""Goat's numba kernels over packed boards (cell i in bits 4i..4i+3, the public codes): the perfect hash and
its inverse, the successors, and the BFS.  The plain-Python model (:mod:`solver.goat.model`) mirrors the hash
(tests check they agree) and imports this module only to build its depth table, so using the model one
board at a time never loads numba.
"""

from __future__ import annotations

import numpy as np

from solver.engines import bfs
from solver.engines.jit import njit
from solver.engines.ranking import nth_set_bit
from solver.goat.notation import BIG, CELLS, DASH, N_RANKS, SMALL_PLACES

_POPCOUNT10 = np.array([bin(i).count("1") for i in range(1 << 10)], dtype=np.int64)


@njit(cache=True, nogil=True, inline="always")
def goat_rank_packed(packed):
    """The article's minimal perfect hash of a packed board: ``1814400 * b1 + I``.

    ``b1`` is the big piece's left cell.  The 10 other cells are renumbered 0..9 (skipping the big
    piece), and ``I`` ranks the places of the blank and pieces 1..7, in that order, as a partial
    permutation (the article's ``board_to_number``); the two ─ fill the last two cells.
    """
    # branch-free: cells 0 and 1 are both big exactly when b1 = 0
    b1 = 2 - ((packed & 0xF) == BIG) - (((packed >> 4) & 0xF) == BIG)
    small = (packed & ((1 << (4 * b1)) - 1)) | ((packed >> (4 * (b1 + 2))) << (4 * b1))  # the 10 free cells
    where = 0  # the renumbered cell of code v in bits 4v..4v+3 (the two ─ write above bit 32, unread)
    for q in range(10):
        where |= q << (4 * ((small >> (4 * q)) & 0xF))
    used = 0
    value = 0
    for i in range(8):
        q = (where >> (4 * i)) & 0xF
        value = value * (10 - i) + q - _POPCOUNT10[used & ((1 << q) - 1)]
        used |= 1 << q
    return b1 * SMALL_PLACES + value


@njit(cache=True, nogil=True, inline="always")
def goat_unrank_packed(r):
    """Inverse of :func:`goat_rank_packed` (the article's ``number_to_board``)."""
    b1 = r // SMALL_PLACES
    value = r - b1 * SMALL_PLACES
    digits = 0
    for i in range(7, -1, -1):
        d = value % (10 - i)
        value //= 10 - i
        digits |= d << (4 * i)
    free = (1 << 10) - 1
    packed = 0
    for c in range(CELLS):
        packed |= DASH << (4 * c)
    for i in range(8):
        d = (digits >> (4 * i)) & 0xF
        q = nth_set_bit(free, d)  # the d-th free renumbered cell
        free &= ~(1 << q)
        cell = q if q < b1 else q + 2
        packed += (i - DASH) << (4 * cell)
    packed += (BIG - DASH) << (4 * b1)
    packed += (BIG - DASH) << (4 * (b1 + 1))
    return packed


@njit(cache=True, nogil=True, inline="always")
def goat_successors(packed, params, out):
    """The packed neighbours of a board, in move order U D L R (see :data:`MOVE_NAMES`)."""
    b = 0
    while (packed >> (4 * b)) & 0xF != 0:
        b += 1
    row = b >> 2
    col = b & 3
    k = 0
    if row < 2:  # U: the piece below moves up (never the big piece)
        p = (packed >> (4 * (b + 4))) & 0xF
        out[k] = packed + (p << (4 * b)) - (p << (4 * (b + 4)))
        k += 1
    if row > 0:  # D: the piece above moves down, unless it is the big piece
        p = (packed >> (4 * (b - 4))) & 0xF
        if p != BIG:
            out[k] = packed + (p << (4 * b)) - (p << (4 * (b - 4)))
            k += 1
    if col < 3:  # L: the piece on the right moves left; the big piece leaves its far cell blank
        p = (packed >> (4 * (b + 1))) & 0xF
        far = b + 2 if p == BIG else b + 1
        out[k] = packed + (p << (4 * b)) - (p << (4 * far))
        k += 1
    if col > 0:  # R: the piece on the left moves right
        p = (packed >> (4 * (b - 1))) & 0xF
        far = b - 2 if p == BIG else b - 1
        out[k] = packed + (p << (4 * b)) - (p << (4 * far))
        k += 1
    return k


@njit(cache=True, nogil=True, inline="always")
def goat_rank(packed, params):
    return goat_rank_packed(packed)


@njit(cache=True, nogil=True)
def goat_bfs(params, start, depth, queue, layer_ends, stop, progress):
    return bfs.bfs_fill(goat_successors, goat_rank, params, start, depth, queue, layer_ends, stop, progress)


@njit(cache=True, nogil=True)
def rank_roundtrip_all():
    """``rank(unrank(r)) == r`` for every rank; returns how many round-tripped (should be N_RANKS)."""
    ok = 0
    for r in range(N_RANKS):
        if goat_rank_packed(goat_unrank_packed(r)) == r:
            ok += 1
    return ok
