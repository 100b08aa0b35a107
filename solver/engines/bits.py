"""Bit counting on uint64 words for numba kernels, as single instructions (LLVM ``ctpop`` and ``cttz``).

Both return an int64, so that the counts mix with Koma's int64 indices without numba widening them to floats.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic


@intrinsic
def ones(typingctx, word):
    """``ones(word)``: the number of set bits of a uint64."""

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.int64(types.uint64), codegen


@intrinsic
def low_zeros(typingctx, word):
    """``low_zeros(word)``: the index of the lowest set bit of a non-zero uint64 (undefined for zero)."""

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))

    return types.int64(types.uint64), codegen
