"""Atomic read-modify-write on one element of a numpy array, for numba kernels that share arrays across threads.

Koma's parallel kernels run in plain threads (``nogil``); where two of them may update the same
element, they use these (LLVM ``atomicrmw``) instead of a load and a store that could lose an update.
"""

from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


def _rmw(operation: str, array, value):
    """The signature and code of an atomic ``operation`` on ``array[index]`` with ``value``; returns the old value."""

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        ary = context.make_array(array_type)(context, builder, args[0])
        pointer = cgutils.get_item_pointer(context, builder, array_type, ary, [args[1]])
        operand = context.cast(builder, args[2], signature.args[2], array_type.dtype)
        return builder.atomic_rmw(operation, pointer, operand, "seq_cst")

    return array.dtype(array, types.int64, value), codegen


@intrinsic
def fetch_add(typingctx, array, index, value):
    """``fetch_add(array, index, value)``: add ``value`` to ``array[index]`` atomically; returns the old value."""
    return _rmw("add", array, value)


@intrinsic
def fetch_or(typingctx, array, index, value):
    """``fetch_or(array, index, value)``: OR ``value`` into ``array[index]`` atomically; returns the old value."""
    return _rmw("or", array, value)
