"""``prefetch(a, i)``: ask the CPU to start loading element ``i`` of the 1-D array ``a`` into
its caches, so that a later read of it does not wait for memory (LLVM's ``prefetch``: a hint,
with no effect on any value; an index outside the array is harmless, nothing is read)."""

from __future__ import annotations

from llvmlite import ir
from numba import config
from numba.core import cgutils, types
from numba.core.extending import intrinsic


@intrinsic
def prefetch(typingctx, a, i):
    """Prefetch ``a[i]`` for reading (1-D array ``a``, integer ``i``)."""
    if not isinstance(a, types.Array) or a.ndim != 1 or not isinstance(i, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        aryty = sig.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        data = builder.bitcast(ary.data, ir.IntType(8).as_pointer())
        step = context.get_constant(types.intp, context.get_abi_sizeof(
            context.get_data_type(aryty.dtype)))
        index = args[1]
        if index.type.width < step.type.width:
            widen = builder.sext if sig.args[1].signed else builder.zext
            index = widen(index, step.type)
        offset = builder.mul(index, step)
        ptr = builder.gep(data, [offset])
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [ptr.type, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        builder.call(fn, [ptr, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return types.void(a, i), codegen


if config.DISABLE_JIT:  # plain Python (coverage runs): a hint with nothing to do
    def prefetch(a, i):  # noqa: F811
        return None
