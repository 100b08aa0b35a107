"""Permutation ranking in the factorial number system (article 002's ``to_num``/``from_num``).

``rank(p)`` is the lexicographic index of the permutation ``p`` of ``0..n-1`` among all n!
permutations: ``rank((1,2,3,4,5,6,7,8,0)) == 46233``.  The numba kernels work on boards packed
four bits per cell (cell ``i`` in bits ``4i..4i+3``), so they cover boards of up to 16 cells.
The plain-Python helpers live in :mod:`solver.engines.permutations` (no numba) and are re-exported here.
"""

from __future__ import annotations

from math import factorial

import numpy as np

from solver.engines.jit import njit
from solver.engines.permutations import pack as pack
from solver.engines.permutations import rank as rank
from solver.engines.permutations import unpack as unpack
from solver.engines.permutations import unrank as unrank

FACTORIALS = np.array([factorial(i) for i in range(21)], dtype=np.int64)


@njit(cache=True, nogil=True, inline="always")
def popcount(x):
    """Number of set bits of a non-negative int64.

    Computed in unsigned arithmetic: the final multiply by 0x0101... overflows, which is defined
    (wrapping) for uint64 but undefined for int64, and LLVM miscompiled the signed version inline.
    """
    u = np.uint64(x)
    u = u - ((u >> np.uint64(1)) & np.uint64(0x5555555555555555))
    u = (u & np.uint64(0x3333333333333333)) + ((u >> np.uint64(2)) & np.uint64(0x3333333333333333))
    u = (u + (u >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((u * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True, nogil=True, inline="always")
def rank_packed(packed, n):
    """Lexicographic rank of the permutation held in ``packed`` (n cells, 4 bits each)."""
    used = 0
    value = 0
    for i in range(n - 1):
        v = (packed >> (4 * i)) & 0xF
        smaller_used = popcount(used & ((1 << v) - 1))
        value += FACTORIALS[n - 1 - i] * (v - smaller_used)
        used |= 1 << v
    return value


@njit(cache=True, nogil=True, inline="always")
def nth_set_bit(mask, d):
    """The position of the ``d``-th (0-based) set bit of ``mask``, counting from bit 0."""
    v = 0
    while True:
        if (mask >> v) & 1:
            if d == 0:
                return v
            d -= 1
        v += 1


@njit(cache=True, nogil=True, inline="always")
def unrank_packed(r, n):
    """The packed permutation of ``0..n-1`` whose lexicographic rank is ``r``."""
    free = (1 << n) - 1
    packed = 0
    for i in range(n):
        f = FACTORIALS[n - 1 - i]
        digit = r // f
        r -= digit * f
        v = nth_set_bit(free, digit)  # the digit-th smallest value still free
        free &= ~(1 << v)
        packed |= v << (4 * i)
    return packed


@njit(cache=True, nogil=True)
def rank_unrank_roundtrip(count, n, stride):
    """Benchmark kernel: unrank then rank ``count`` ranks; returns how many round-tripped."""
    ok = 0
    total = FACTORIALS[n]
    r = 0
    for _ in range(count):
        if rank_packed(unrank_packed(r, n), n) == r:
            ok += 1
        r = (r + stride) % total
    return ok
