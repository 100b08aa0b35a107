"""Permutations in plain Python (no numba): packing boards four bits per cell, and the lexicographic rank.

These are what a model needs one board at a time (``koma solve 8`` answers from its table with them and
never loads numba); the kernels' versions, working on packed boards, are in :mod:`solver.engines.ranking`.
"""

from __future__ import annotations

from math import factorial


def pack(cells) -> int:
    """Pack small non-negative values (< 16), cell i into bits 4i..4i+3, as a signed int64 value.

    Sixteen cells fill all 64 bits; the result wraps to a negative int64 then, which the kernels
    read back correctly because they mask every nibble after shifting.
    """
    packed = 0
    for i, v in enumerate(cells):
        packed |= int(v) << (4 * i)
    return packed - (1 << 64) if packed >= 1 << 63 else packed


def unpack(packed: int, n: int) -> tuple[int, ...]:
    """Inverse of :func:`pack` for ``n`` cells."""
    return tuple((int(packed) >> (4 * i)) & 0xF for i in range(n))


def rank(perm) -> int:
    """Lexicographic rank of a permutation of ``0..n-1`` (exact for any n, as a Python int)."""
    n = len(perm)
    if sorted(perm) != list(range(n)):
        raise ValueError("rank() needs a permutation of 0..n-1")
    used: set[int] = set()
    value = 0
    for i, v in enumerate(perm[:-1]):
        value += factorial(n - 1 - i) * (v - sum(1 for u in used if u < v))
        used.add(v)
    return value


def unrank(r: int, n: int) -> tuple[int, ...]:
    """The permutation of ``0..n-1`` with lexicographic rank ``r``."""
    if not 0 <= r < factorial(n):
        raise ValueError(f"rank {r} is out of range for {n} items (0..{factorial(n) - 1})")
    free = list(range(n))
    out = []
    for i in range(n):
        digit, r = divmod(r, factorial(n - 1 - i))
        out.append(free.pop(digit))
    return tuple(out)
