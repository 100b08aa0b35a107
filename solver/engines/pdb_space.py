"""The space of a pattern database's BFS (:mod:`solver.engines.pdb`): combinations, regions, blocks, moves, permutations.

A state is (combination, region, permutation): the cells the pattern's ``k`` tiles occupy (ranked
in colex order), the connected region of free cells the blank is in, and the order of the tiles
on the occupied cells (a permutation of the ``k`` slots, ranked lexicographically).  The states
of one (combination, region) are a *block*; the moves between blocks and the maps of
permutations they apply are computed here, once per board and pattern size.
"""

from __future__ import annotations

import itertools
from functools import lru_cache
from math import comb, factorial

import numpy as np


def multipliers(cells: int, k: int) -> np.ndarray:
    """``mult[i] = (n-1-i)! / (n-k)!``: the weight of tile ``i``'s digit in a placement rank."""
    return np.array([factorial(cells - 1 - i) // factorial(cells - k) for i in range(k)], dtype=np.int64)


# --- the space: combinations, their regions, blocks and moves --------------------------------------
# In numpy, not numba: these run once per board and pattern size (milliseconds for the 15-puzzle), and a numba
# kernel of this size took seconds to compile on a fresh install, before the first table could be built.

def _bit_count(values: np.ndarray) -> np.ndarray:
    return np.bitwise_count(values).astype(np.int64)


def _space(width: int, cells: int, k: int, ncomb: int):
    """Every combination of ``k`` of the ``cells`` (colex order) with its regions of free cells, and the moves.

    Returns ``masks`` (cells of each combination), ``rbase`` (its first block; blocks are numbered
    by combination, then region in order of their smallest cell), ``parity`` (of the sum of the
    cells' rows and columns), ``region_id`` (``[comb * cells + cell]``, -1 on occupied cells), and
    the moves into each block ``b`` as ``adj_block[adj_start[b]:adj_start[b+1]]`` (the block they
    come from, in the order of the free cell they enter, then of the direction: up, down, left, right)
    with ``adj_map`` (-1: same permutation, else ``s*k+t``: the map that moves slot ``s`` to slot ``t``,
    from the source's permutation to this block's).
    """
    one = np.int64(1)
    full = (one << cells) - 1
    first_col = sum(1 << (r * width) for r in range(cells // width))
    not_first_col = np.int64(full & ~first_col)
    not_last_col = np.int64(full & ~(first_col << (width - 1)))
    binom = np.array([[comb(i, j) for j in range(k + 2)] for i in range(cells + 1)], np.int64)
    # colex order of the combinations is the numeric order of their cell masks
    chosen = np.array(list(itertools.combinations(range(cells), k)), np.int64).reshape(-1, k)
    masks = np.sort(np.bitwise_or.reduce(one << chosen, axis=1))[:ncomb]
    bits = one << np.arange(cells, dtype=np.int64)
    free = full & ~masks
    # the regions of free cells, each grown from the smallest free cell not in an earlier one
    region_id = np.full((ncomb, cells), -1, np.int8)
    nregions = np.zeros(ncomb, np.int64)
    rest = free.copy()
    j = 0
    while (left := np.flatnonzero(rest)).size:
        region = rest[left] & -rest[left]
        within = free[left]
        growing = np.arange(len(left))
        while growing.size:
            now = region[growing]
            grown = (now | (now << width) | (now >> width) | ((now & not_first_col) >> 1)
                     | ((now & not_last_col) << 1)) & within[growing]
            changed = grown != now
            region[growing] = grown
            growing = growing[changed]
        rest[left] &= ~region
        nregions[left] += 1
        for y in range(cells):
            region_id[left[(region >> y) & 1 != 0], y] = j
        j += 1
    is_free = region_id >= 0
    rows = np.arange(cells) // width
    cols = np.arange(cells) % width
    occupied = (masks[:, None] & bits) != 0
    parity = ((occupied * (rows + cols)).sum(axis=1) & 1).astype(np.uint8)
    rbase = np.zeros(ncomb + 1, np.int64)
    np.cumsum(nregions, out=rbase[1:])
    blocks = int(rbase[ncomb])
    into, cell, way, source, slot_map = [], [], [], [], []
    for y in range(cells):
        near = (y - width if y >= width else -1, y + width if y + width < cells else -1,
                y - 1 if y % width != 0 else -1, y + 1 if y % width != width - 1 else -1)
        for d, x in enumerate(near):
            if x < 0:
                continue
            # combinations with y free and x occupied: their tile on x moves to y, into the block ``other``
            i = np.flatnonzero(is_free[:, y] & occupied[:, x])
            if not len(i):
                continue
            held = masks[i]
            s = _bit_count(held & ((one << x) - 1))
            moved = (held & ~(one << x)) | (one << y)
            t = _bit_count(moved & ((one << y) - 1))
            other = np.searchsorted(masks, moved)
            into.append(rbase[i] + region_id[i, y])
            cell.append(np.full(len(i), y))
            way.append(np.full(len(i), d))
            source.append(rbase[other] + region_id[other, x])
            slot_map.append(np.where(s == t, -1, t * k + s))
    if into:
        into_all, order_cell, order_way = np.concatenate(into), np.concatenate(cell), np.concatenate(way)
        order = np.lexsort((order_way, order_cell, into_all))
        adj_block = np.concatenate(source)[order].astype(np.int64)
        adj_map = np.concatenate(slot_map)[order].astype(np.int16)
        counts = np.bincount(into_all, minlength=blocks)
    else:
        adj_block, adj_map, counts = np.empty(0, np.int64), np.empty(0, np.int16), np.zeros(blocks, np.int64)
    adj_start = np.zeros(blocks + 1, np.int64)
    np.cumsum(counts, out=adj_start[1:])
    return masks, rbase, parity, region_id.reshape(-1), adj_start, adj_block, adj_map, binom


def _perm_tables(k: int, mult: np.ndarray, fact: np.ndarray, maps: np.ndarray):
    """For every permutation ``p`` of the ``k`` slots (lexicographic rank; ``sigma[i]``: the slot of tile ``i``):

    ``maps[s*k+t, p]``: its rank once the tile on slot ``s`` moved to slot ``t`` (the slots between
    shift by one); ``base[p] + sum_t gap[t] * weight[p, t]`` is the placement rank of ``p`` on a
    combination whose ``t``-th cell is ``t + gap[t]``.
    """
    count = maps.shape[1]
    sigma = np.array(list(itertools.permutations(range(k))), np.int64).reshape(count, k)  # lexicographic order
    # the digits of p in the factorial number system: the tile's slot among the slots still free
    digits = sigma - np.array([(sigma[:, :i] < sigma[:, i:i + 1]).sum(axis=1) for i in range(k)],
                              np.int64).reshape(k, count).T
    base = digits @ mult[:k]
    weight = np.zeros((count, k), np.int64)
    np.put_along_axis(weight, sigma, np.broadcast_to(mult[:k], (count, k)), axis=1)
    # lexicographic order is the numeric order of the slots read as base-k digits
    powers = np.int64(k) ** np.arange(k - 1, -1, -1, dtype=np.int64)
    codes = sigma @ powers
    for s in range(k):
        for t in range(k):
            if s == t:
                continue
            moved = sigma.copy()
            if s < t:
                moved[(sigma > s) & (sigma <= t)] -= 1
            else:
                moved[(sigma >= t) & (sigma < s)] += 1
            moved[sigma == s] = t
            maps[s * k + t] = np.searchsorted(codes, moved @ powers)
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


def words_per_block(k: int) -> int:
    return (factorial(k) + 63) // 64
