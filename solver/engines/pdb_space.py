"""The space of a pattern database's BFS (:mod:`solver.engines.pdb`): combinations, regions, blocks, moves, permutations.

A state is (combination, region, permutation): the cells the pattern's ``k`` tiles occupy (ranked
in colex order), the connected region of free cells the blank is in, and the order of the tiles
on the occupied cells (a permutation of the ``k`` slots, ranked lexicographically).  The states
of one (combination, region) are a *block*; the moves between blocks and the maps of
permutations they apply are computed here, once per board and pattern size.
"""

from __future__ import annotations

from functools import lru_cache
from math import comb, factorial

import numpy as np

from solver.engines.jit import njit
from solver.engines.ranking import nth_set_bit, popcount


def multipliers(cells: int, k: int) -> np.ndarray:
    """``mult[i] = (n-1-i)! / (n-k)!``: the weight of tile ``i``'s digit in a placement rank."""
    return np.array([factorial(cells - 1 - i) // factorial(cells - k) for i in range(k)], dtype=np.int64)


# --- the space: combinations, their regions, blocks and moves --------------------------------------

@njit(cache=True, nogil=True, inline="always")
def _region(start, free, width, not_first_col, not_last_col):
    """The connected region of ``free`` cells that contains the cell mask ``start``."""
    region = start
    while True:
        grown = (region | (region << width) | (region >> width) | ((region & not_first_col) >> 1)
                 | ((region & not_last_col) << 1)) & free
        if grown == region:
            return region
        region = grown


@njit(cache=True, nogil=True, inline="always")
def colex_rank(mask, binom):
    """Rank of a combination (cell mask) in colex order: the sum of C(cell_i, i+1) over its cells, smallest first."""
    r = 0
    i = 0
    while mask != 0:
        low = mask & -mask
        mask ^= low
        i += 1
        r += binom[popcount(low - 1), i]
    return r


@njit(cache=True, nogil=True)
def _space(width, cells, k, ncomb):
    """Every combination of ``k`` of the ``cells`` (colex order) with its regions of free cells, and the moves.

    Returns ``masks`` (cells of each combination), ``rbase`` (its first block; blocks are numbered
    by combination, then region in order of their smallest cell), ``parity`` (of the sum of the
    cells' rows and columns), ``region_id`` (``[comb * cells + cell]``, -1 on occupied cells), and
    the moves into each block ``b`` as ``adj_block[adj_start[b]:adj_start[b+1]]`` (the block they
    come from) with ``adj_map`` (-1: same permutation, else ``s*k+t``: the map that moves slot ``s``
    to slot ``t``, from the source's permutation to this block's).
    """
    full = (np.int64(1) << cells) - 1
    first_col = 0
    for r in range(cells // width):
        first_col |= np.int64(1) << (r * width)
    not_first_col = full & ~first_col
    not_last_col = full & ~(first_col << (width - 1))
    binom = np.zeros((cells + 1, k + 2), np.int64)
    for i in range(cells + 1):
        binom[i, 0] = 1
        for j in range(1, min(i, k + 1) + 1):
            binom[i, j] = binom[i - 1, j - 1] + (binom[i - 1, j] if j <= i - 1 else 0)
    masks = np.empty(ncomb, np.int64)
    m = (np.int64(1) << k) - 1
    for i in range(ncomb):  # Gosper's hack: the next larger number with k bits
        masks[i] = m
        if i + 1 < ncomb:
            low = m & -m
            r = m + low
            m = (((r ^ m) >> 2) // low) | r
    region_id = np.full(ncomb * cells, -1, np.int8)
    nregions = np.zeros(ncomb, np.int64)
    parity = np.zeros(ncomb, np.uint8)
    for i in range(ncomb):
        free = full & ~masks[i]
        rest = free
        j = 0
        while rest != 0:
            region = _region(rest & -rest, free, width, not_first_col, not_last_col)
            rest &= ~region
            while region != 0:
                bit = region & -region
                region ^= bit
                region_id[i * cells + popcount(bit - 1)] = j
            j += 1
        nregions[i] = j
        occupied = masks[i]
        s = 0
        while occupied != 0:
            bit = occupied & -occupied
            occupied ^= bit
            cell = popcount(bit - 1)
            s += cell // width + cell % width
        parity[i] = s & 1
    rbase = np.zeros(ncomb + 1, np.int64)
    for i in range(ncomb):
        rbase[i + 1] = rbase[i] + nregions[i]
    blocks = rbase[ncomb]
    near = np.full((cells, 4), -1, np.int64)
    for y in range(cells):
        if y >= width:
            near[y, 0] = y - width
        if y + width < cells:
            near[y, 1] = y + width
        if y % width != 0:
            near[y, 2] = y - 1
        if y % width != width - 1:
            near[y, 3] = y + 1
    adj_start = np.zeros(blocks + 1, np.int64)
    for sweep in range(2):
        if sweep == 1:
            for b in range(blocks):
                adj_start[b + 1] += adj_start[b]
            adj_block = np.empty(adj_start[blocks], np.int64)
            adj_map = np.empty(adj_start[blocks], np.int16)
        else:
            adj_block = np.empty(0, np.int64)
            adj_map = np.empty(0, np.int16)
        for i in range(ncomb):
            occupied = masks[i]
            for y in range(cells):
                j = region_id[i * cells + y]
                if j < 0:
                    continue
                b = rbase[i] + j
                for d in range(4):
                    x = near[y, d]
                    if x < 0 or not (occupied >> x) & 1:
                        continue
                    if sweep == 0:
                        adj_start[b + 1] += 1
                        continue
                    # this block's tile on x moves to y, into the block ``other``; coming back is the move in
                    s = popcount(occupied & ((np.int64(1) << x) - 1))
                    moved = (occupied & ~(np.int64(1) << x)) | (np.int64(1) << y)
                    t = popcount(moved & ((np.int64(1) << y) - 1))
                    c2 = colex_rank(moved, binom)
                    e = adj_start[b]
                    adj_start[b] += 1
                    adj_block[e] = rbase[c2] + region_id[c2 * cells + x]
                    adj_map[e] = -1 if s == t else t * k + s
        if sweep == 1:
            for b in range(blocks, 0, -1):
                adj_start[b] = adj_start[b - 1]
            adj_start[0] = 0
    return masks, rbase, parity, region_id, adj_start, adj_block, adj_map, binom


@njit(cache=True, nogil=True)
def _perm_tables(k, mult, fact, maps):
    """For every permutation ``p`` of the ``k`` slots (lexicographic rank; ``sigma[i]``: the slot of tile ``i``):

    ``maps[s*k+t, p]``: its rank once the tile on slot ``s`` moved to slot ``t`` (the slots between
    shift by one); ``base[p] + sum_t gap[t] * weight[p, t]`` is the placement rank of ``p`` on a
    combination whose ``t``-th cell is ``t + gap[t]``.
    """
    count = maps.shape[1]
    base = np.zeros(count, np.int64)
    weight = np.zeros((count, k), np.int64)
    sigma = np.empty(k, np.int64)
    moved = np.empty(k, np.int64)
    for p in range(count):
        r = p
        used = 0
        for i in range(k):
            digit = r // fact[k - 1 - i]
            r -= digit * fact[k - 1 - i]
            s = nth_set_bit(~used, digit)  # the digit-th free slot
            sigma[i] = s
            used |= 1 << s
            base[p] += digit * mult[i]
            weight[p, s] = mult[i]
        for s in range(k):
            for t in range(k):
                if s == t:
                    continue
                for i in range(k):
                    v = sigma[i]
                    if v == s:
                        v = t
                    elif s < v <= t:
                        v -= 1
                    elif t <= v < s:
                        v += 1
                    moved[i] = v
                q = 0
                used = 0
                for i in range(k):
                    q += (moved[i] - popcount(used & ((1 << moved[i]) - 1))) * fact[k - 1 - i]
                    used |= 1 << moved[i]
                maps[s * k + t, p] = q
    return base, weight


@lru_cache(maxsize=4)
def space_of(width: int, cells: int, k: int):
    return _space(width, cells, k, comb(cells, k))


@lru_cache(maxsize=4)
def perms_of(cells: int, k: int):
    size = factorial(k)
    maps = np.zeros((k * k, size), np.uint16 if size <= 1 << 16 else np.uint32)
    base, weight = _perm_tables(k, multipliers(cells, k), np.array([factorial(i) for i in range(k + 1)], np.int64), maps)
    return maps, base, weight


def _words_per_block(k: int) -> int:
    return (factorial(k) + 63) // 64


def words_per_block(k: int) -> int:
    return (factorial(k) + 63) // 64
