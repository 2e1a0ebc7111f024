"""Two casts the rule texts' compiled code makes where it is called (numba intrinsics):
``slot(i)``, a place in an array as an unsigned index, and ``whole(n)``, a number as a plain
int64. Intrinsics, not functions numba inlines: its inliner copies and types a function anew
at each place it is called, hundreds in a rule text, seconds of a first compile."""
from __future__ import annotations

from numba import types
from numba.extending import intrinsic


@intrinsic
def slot(typingctx, i):
    """A place ``i`` in an array (never negative) as an unsigned index: numba then reads
    and writes there without first checking for Python's negative, from-the-end index
    (wh40k3's and whfb8's rule texts play 1.3-1.6x as fast without those checks): the rule
    texts' places in their state (the table readers of :mod:`odds.core.packed` index
    without the checks too). whfb8's exact solver called it at 450 places; inlined by
    numba as a function, that and its 315 table reads cost about 4 CPU s of compiling."""
    if not isinstance(i, types.Integer):
        raise TypeError(f"slot takes a whole number, not {i}")

    def codegen(context, builder, signature, args):
        return context.cast(builder, args[0], signature.args[0], types.uint64)
    return types.uint64(i), codegen


@intrinsic
def whole(typingctx, n):
    """n as a plain int64: a constant would be a literal type, and each literal value a
    compile of its own of the function given it (and of all it calls with it)."""
    if not isinstance(n, types.Integer):
        raise TypeError(f"whole takes a whole number, not {n}")

    def codegen(context, builder, signature, args):
        return context.cast(builder, args[0], signature.args[0], types.int64)
    return types.int64(n), codegen
