"""A plan packed into a few flat arrays, for a rule text whose compiled parts call each other
rather than being inlined into one function.

A call between compiled functions passing a plan of many arrays costs more than the rule it
plays (and inlining every part into one function costs minutes of compiling). Packed, a plan
is ``ints`` (whole numbers), ``reals``, ``cdf`` (binomial tables, :mod:`odds.core.binomial`)
and ``laws`` (the laws of :mod:`odds.core.dice`, one a row, each padded to the widest with
outcomes that have no chance), and the plan's sizes ``G``, ``U`` and ``L``: every table's
shape is written in those sizes, so where a table starts and its strides are arithmetic on
three numbers the compiled code holds in registers, never a read of memory.

A rule text declares its tables once (:func:`tables`), which gives it a compiled reader per
table: ``wounds(plan, s, g)`` reads what ``plan.wounds[s, g]`` would, ``test_law(plan, ld)``
returns one law. Its ``compile`` packs the tables' values with :func:`pack`.
"""
from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.core.imputils import impl_ret_borrowed
from numba.core.typing import signature
from numba.extending import intrinsic
from numba.np.arrayobj import load_item, populate_array

SIZES = ("G", "U", "L")  # the sizes a table's shape may be written in


class Packed(NamedTuple):
    ints: np.ndarray   # int64: the whole-number tables, one after another
    reals: np.ndarray  # float64: the real tables
    cdf: np.ndarray    # float64: binomial CDF rows (odds.core.binomial.cdf_tables)
    laws: np.ndarray   # (n, 3, m): the laws of the law tables
    G: int
    U: int
    L: int
    X: int = 1  # 0: a kernel variant's plan has none of the rare rules its rule text lets a
    #             variant leave out (whfb8's known); 1: it may have them


class Tables(NamedTuple):
    """A rule text's tables: each kind a dict of name -> shape, in the order packed; a
    shape is a tuple of whole numbers and expressions in the SIZES (``"3 * G"``)."""

    ints: dict
    reals: dict
    laws: dict


@njit(cache=True, _nrt=False, forceinline=True)
def known(plan, sizes):
    """``plan`` with its sizes G and U given as ``sizes``, constants of the compiled code of
    a kernel variant (:func:`odds.core.walk.kernel` calls a rule text's ``known``, this for
    a packed plan): the rule text's loops over them unroll, or fold away."""
    return Packed(plan.ints, plan.reals, plan.cdf, plan.laws, sizes[0], sizes[1], plan.L,
                  plan.X)


def tables(ints: dict, reals: dict, laws: dict, namespace: dict) -> Tables:
    """Declare a rule text's tables (a law table's shape says how many laws it holds) and put
    each table's compiled reader into ``namespace`` (the rule text's globals) under its
    name."""
    out = Tables(dict(ints), dict(reals), dict(laws))
    for kind, declared in zip(("ints", "reals", "laws"), out):
        start = _sum(0)
        for name, shape in declared.items():
            namespace[name] = _reader(kind, start, shape)
            start = start + _size(shape)
    return out


@lru_cache(maxsize=None)
def _dimension(expression: str):
    """A declared dimension (e.g. ``"G + 1"``) compiled once, for eval over the sizes."""
    return compile(expression, "<dimension>", "eval")


def pack(declared: Tables, values: dict, cdf: np.ndarray, G: int, U: int, L: int) -> Packed:
    """The tables ``values`` (name -> array or number; a law table an array of laws, (...,
    3, m)) packed as ``declared`` says, for a plan of sizes G, U, L."""
    from odds.core.dice import CHANCE, laws as alias_tables

    sizes = {"G": G, "U": U, "L": L}
    parts = []
    for kind, table in zip(("ints", "reals", "laws"), declared):
        flat = []
        for name, shape in table.items():
            want = tuple(int(eval(_dimension(str(d)), {}, sizes)) for d in shape)
            value = np.asarray(values[name])
            got = value.shape[:-2] if kind == "laws" else value.shape
            if got != want:
                raise ValueError(f"table {name} has shape {got}, declared {want}")
            flat.append(value.reshape((-1,) + value.shape[-2:]) if kind == "laws"
                        else value.ravel())
        if kind == "laws":
            width = max(f.shape[-1] for f in flat)
            chances = np.zeros((sum(len(f) for f in flat), width))
            at = 0
            for f in flat:
                chances[at:at + len(f), :f.shape[-1]] = f[:, CHANCE]
                at += len(f)
            parts.append(alias_tables(chances))  # outcomes past a law's own: never drawn
        else:
            parts.append(np.concatenate(flat).astype(np.int64 if kind == "ints" else float))
    ints, reals, law_rows = parts
    return Packed(ints, reals, np.asarray(cdf, float), law_rows, G, U, L)


class _Sum(dict):
    """A whole-number sum of products of the SIZES (a product: a sorted tuple of their
    names -> its coefficient), compiled as one such sum (:func:`_lowered`): where a table
    starts is the sum of the sizes of those before it, and added table by table it would be
    a long sum at every read."""

    def __add__(self, other):
        out = _Sum(self)
        for term, k in _sum(other).items():
            out[term] = out.get(term, 0) + k
        return out

    __radd__ = __add__

    def __mul__(self, other):
        out = _Sum()
        for a, j in self.items():
            for b, k in _sum(other).items():
                term = tuple(sorted(a + b))
                out[term] = out.get(term, 0) + j * k
        return out

    __rmul__ = __mul__


def _sum(value) -> _Sum:
    return value if isinstance(value, _Sum) else _Sum({(): int(value)})


def _size(shape) -> _Sum:
    """The number of values of a table of ``shape`` (its dimensions: whole numbers and
    expressions in the SIZES)."""
    names = {n: _Sum({(n,): 1}) for n in SIZES}
    out = _sum(1)
    for d in shape:
        out = out * _sum(eval(str(d), {}, names))
    return out


def _reader(kind: str, start: _Sum, shape: tuple):
    """The compiled reader of a table that starts at ``start``: its value at the indexes
    given, or for a law table one law (a view of the plan's laws). An intrinsic: the
    compiler emits the table's place (Horner: a multiply and an add an index, the sizes
    read from the plan) and the read where it is called (see :mod:`odds.core.casts`).
    Written out for its number of indexes, as an intrinsic takes no ``*index``."""
    dims = [_size(shape[n:n + 1]) for n in range(1, len(shape))]

    def typed(plan, *index):
        if not all(isinstance(i, types.Integer) for i in index):
            raise TypeError(f"a reader of a table of {len(shape)} indexes takes that many "
                            f"whole numbers, not {index}")
        table = plan[plan.fields.index(kind)]
        value = types.Array(table.dtype, 2, "C") if kind == "laws" else table.dtype

        def codegen(context, builder, signature, args):
            sizes, index_types = signature.args[0], signature.args[1:]
            places = [context.cast(builder, a, t, types.int64)
                      for a, t in zip(args[1:], index_types)]
            at = places[0] if places else _lowered(context, builder, sizes, args[0], _sum(0))
            for dim, i in zip(dims, places[1:]):
                at = builder.add(builder.mul(at, _lowered(context, builder, sizes, args[0],
                                                          dim)), i)
            at = builder.add(_lowered(context, builder, sizes, args[0], start), at)
            array = context.make_array(table)(
                context, builder, builder.extract_value(args[0], sizes.fields.index(kind)))
            if kind != "laws":
                return load_item(context, builder, table, builder.gep(array.data, [at]))
            shapes = cgutils.unpack_tuple(builder, array.shape)
            strides = cgutils.unpack_tuple(builder, array.strides)
            zero = context.get_constant(types.intp, 0)
            law = context.make_array(value)(context, builder)
            populate_array(law, data=cgutils.get_item_pointer2(
                               context, builder, array.data, shapes, strides, "C",
                               [at, zero, zero]),
                           shape=shapes[1:], strides=strides[1:], itemsize=array.itemsize,
                           meminfo=array.meminfo)
            return impl_ret_borrowed(context, builder, value, law._getvalue())
        return signature(value, plan, *index), codegen

    index = "".join(f", i{n}" for n in range(len(shape)))
    scope = {"typed": typed}
    exec(compile(f"def read(typingctx, plan{index}):\n    return typed(plan{index})\n",
                 f"<odds.core.packed reader of {len(shape)} indexes>", "exec"), scope)
    return intrinsic(scope["read"])


def _lowered(context, builder, plan_type, plan, total: _Sum):
    """The compiled value of a sum of products of the plan's sizes (its fields G, U, L)."""
    out = context.get_constant(types.int64, 0)
    for term, k in ((term, k) for term, k in total.items() if k):
        product = context.get_constant(types.int64, k)
        for name in term:
            at = plan_type.fields.index(name)
            product = builder.mul(product, context.cast(
                builder, builder.extract_value(plan, at), plan_type[at], types.int64))
        out = builder.add(out, product)
    return out
