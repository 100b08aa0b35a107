"""Two processor instructions for numba kernels that numba does not emit on its own: a memory prefetch and a
population count.

* :func:`prefetch` asks memory for a table entry that will be read a little later (LLVM's
  ``llvm.prefetch``): a search that looks a big table up at random waits for memory on every lookup,
  and entries asked for together arrive together.
* :func:`bit_count` counts the set bits of a word with the processor's own instruction (LLVM's
  ``llvm.ctpop``), where :func:`solver.engines.ranking.popcount` spells the count out in shifts and masks.
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
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [byte_pointer, i32, i32, i32]), "llvm.prefetch.p0i8")
        # a read (0), kept in every cache level (3), of data (1)
        builder.call(function, [builder.bitcast(pointer, byte_pointer), ir.Constant(i32, 0), ir.Constant(i32, 3),
                                ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return types.none(array, types.int64), codegen


@intrinsic
def bit_count(typingctx, word):
    """``bit_count(word)``: the number of set bits of an int64 (of its two's complement for a negative one)."""

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        function = cgutils.get_or_insert_function(builder.module, ir.FunctionType(i64, [i64]), "llvm.ctpop.i64")
        return builder.call(function, [args[0]])

    return types.int64(types.int64), codegen
