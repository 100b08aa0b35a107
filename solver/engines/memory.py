"""A memory prefetch for numba kernels: start loading a table entry that will be read a little later.

A search that looks up a big table at random waits for memory on every lookup; asking for the entry
ahead (LLVM's ``llvm.prefetch``) lets that wait overlap with other work, or with other lookups.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def prefetch(typingctx, array, index):
    """``prefetch(array, index)``: a hint to bring ``array[index]`` into the cache (no bounds check, no effect on
    the program's values: an index outside the array is harmless)."""

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        ary = context.make_array(array_type)(context, builder, args[0])
        pointer = builder.gep(ary.data, [args[1]])
        byte_pointer = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        function = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [byte_pointer, i32, i32, i32]),
                                                  "llvm.prefetch.p0i8")
        # a read (0), kept in every cache level (3), of data (1)
        builder.call(function, [builder.bitcast(pointer, byte_pointer), ir.Constant(i32, 0), ir.Constant(i32, 3),
                                ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return types.none(array, types.int64), codegen
