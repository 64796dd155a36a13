"""The elementwise kernels behind oclpy.array: operators, conversions, copies and selection.

Every operation is one generated ElementwiseKernel (memoized per context
and source through `elementwise.get_elwise_kernel`). An operand is an
array (`x[i]`), a 0-d "device scalar" array (`x[0]`, broadcast), or a host
scalar passed by value in the computation dtype. Operands are converted to
the computation dtype before the C operator runs, so C's integer
promotions never change a result: `binary(op, a, b)` computes in
`np.result_type` of the operands (true division in NumPy's division type)
and returns PyOpenCL's result dtype (int8 for comparisons and logical
operators). `copy_strided` copies any strided view into any other (bytes
moved as unsigned integers of the item size), which is how non-contiguous
arrays are read, written and made contiguous.

This module sits below the Array class (core.py imports it): it knows
arrays as kernelgen's `DeviceArray` and makes each new array (a result, a
contiguous copy) of the class of an array it was given, with the Array
constructor's arguments.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import complex as array_complex
from ..elementwise import get_elwise_kernel
from ..kernelgen.dtypes import dtype_to_ctype
from ..kernelgen.launch import DeviceArray

NO_QUEUE = ("the array has no queue; call .with_queue() to add one in order to be able to "
            "perform operations")
BOOL_DTYPE = np.dtype(np.int8)
_INT_POW = """
#define OCLPY_IPOW(T) \\
T oclpy_ipow_##T(T b, T e) { T r = 1; if (e < 0) return (b == 1) ? 1 : ((b == (T)-1) ? ((e & 1) ? (T)-1 : 1) : 0); \\
  while (e) { if (e & 1) r *= b; b *= b; e >>= 1; } return r; }
"""
_ARITH = {"+": "X + Y", "-": "X - Y", "*": "X * Y", "/": "X / Y"}
_BITWISE = {"&": "X & Y", "|": "X | Y", "^": "X ^ Y", "<<": "X << Y", ">>": "X >> Y"}
_COMPARE = {"==": "X == Y", "!=": "X != Y", "<": "X < Y", "<=": "X <= Y", ">": "X > Y",
            ">=": "X >= Y", "logical_and": "(X != 0) && (Y != 0)",
            "logical_or": "(X != 0) || (Y != 0)"}
_FLOAT_MINMAX = {"maximum": "isnan(X) ? X : (isnan(Y) ? Y : fmax(X, Y))",
                 "minimum": "isnan(X) ? X : (isnan(Y) ? Y : fmin(X, Y))"}
_INT_MINMAX = {"maximum": "max(X, Y)", "minimum": "min(X, Y)"}


def ctype(dtype: Any) -> str:
    """The C type a generated kernel stores `dtype` as (bool as uchar)."""
    return _ctype(np.dtype(dtype))


@functools.lru_cache(maxsize=256)
def _ctype(dtype: np.dtype) -> str:
    if dtype.kind == "c":
        return array_complex.vector_ctype(dtype)
    if dtype.kind == "b":
        return "uchar"
    return dtype_to_ctype(dtype)


def convert(expr: str, dtype: np.dtype, src: np.dtype | None = None) -> str:
    """`expr` (of dtype `src`, None: some real type) converted to `dtype` as NumPy casts.

    bool is a nonzero test; complex to real keeps the real part.
    """
    dtype = np.dtype(dtype)
    complex_form = array_complex.convert(expr, dtype, None if src is None else np.dtype(src))
    if complex_form is not None:
        return complex_form
    if dtype.kind == "b":
        return f"(uchar) (({expr}) != 0)"
    return f"({ctype(dtype)}) ({expr})"


@dataclass
class Operand:
    """One input of an elementwise operation."""

    value: Any
    dtype: np.dtype
    kind: str  # "array", "dscalar" or "scalar"

    def decl(self, name: str) -> str:
        if self.kind == "scalar":
            return f"{ctype(self.dtype)} {name}"
        return f"const {ctype(self.dtype)} *{name}"

    def expr(self, name: str) -> str:
        return {"array": f"{name}[i]", "dscalar": f"{name}[0]", "scalar": name}[self.kind]

    def arg(self) -> Any:
        if self.kind != "scalar":
            return self.value
        if self.dtype.kind == "c":
            return array_complex.scalar_value(self.value, self.dtype)
        return self.dtype.type(self.value)

    def converted(self, name: str, dtype: np.dtype) -> str:
        return convert(self.expr(name), dtype, self.dtype)


def new_array(like: DeviceArray, queue: Any, shape: Any, dtype: Any, allocator: Any = None,
              **kwargs: Any) -> Any:
    """A new array of `like`'s class (`queue` may be a context, as for the Array constructor)."""
    return type(like)(queue, shape, dtype, allocator=allocator, **kwargs)


def check_same_shape(a: Any, b: Any) -> None:
    if a.shape != b.shape and a.shape != () and b.shape != ():
        raise ValueError(f"operands could not be broadcast together with shapes {a.shape} "
                         f"and {b.shape}: oclpy arrays need equal shapes")
    if a.context != b.context:
        raise ValueError("the arrays belong to different contexts")


def check_index_dtype(indices: Any) -> None:
    if indices.dtype.kind not in "iu":
        raise TypeError(f"index arrays must be of integer dtype, not {indices.dtype}")


def operand(obj: Any, like: Any, compute: np.dtype) -> Operand:
    """`obj` as an Operand next to the array `like` (scalars take the computation dtype)."""
    if isinstance(obj, DeviceArray):
        if obj.shape == () and like is not None and like.shape != ():
            return Operand(obj, obj.dtype, "dscalar")
        return Operand(contiguous(obj), obj.dtype, "array")
    return Operand(obj, compute, "scalar")


def result_type(*objs: Any) -> np.dtype:
    """np.result_type over arrays (by dtype) and scalars (weak Python scalars, as in NumPy 2)."""
    return np.result_type(*(o.dtype if isinstance(o, DeviceArray) else o for o in objs))


def truediv_type(a: Any, b: Any) -> np.dtype:
    x = np.ones(1, a.dtype) if isinstance(a, DeviceArray) else a
    y = np.ones(1, b.dtype) if isinstance(b, DeviceArray) else b
    return np.result_type(np.true_divide(x, y))


def _template(op: str, compute: np.dtype) -> tuple[str, str]:
    """(C expression over X and Y, preamble) for `op` computed in `compute`."""
    if compute.kind == "c":
        return array_complex.template(op, compute)
    if op in _ARITH:
        return _ARITH[op], ""
    if op in _COMPARE:
        return _COMPARE[op], ""
    if op in _BITWISE:
        if compute.kind not in "iub":
            raise TypeError(f"unsupported operand dtype {compute} for '{op}': integers only")
        return _BITWISE[op], ""
    if op in _FLOAT_MINMAX:
        return (_FLOAT_MINMAX if compute.kind == "f" else _INT_MINMAX)[op], ""
    if op == "**":
        if compute.kind == "f":
            return "pow(X, Y)", ""
        name = ctype(compute)
        return f"oclpy_ipow_{name}(X, Y)", f"{_INT_POW}OCLPY_IPOW({name})\n"
    raise ValueError(f"no elementwise operator '{op}'")


def op_dtypes(op: str, a: Any, b: Any) -> tuple[np.dtype, np.dtype]:
    """(computation dtype, result dtype) of `a op b`."""
    compute = result_type(a, b)
    if op == "/":
        compute = truediv_type(a, b)
    if op in _COMPARE:
        return compute, BOOL_DTYPE
    return compute, compute


def binary(op: str, a: Any, b: Any, out: Any = None, queue: Any = None) -> Any:
    """`a op b` elementwise (either may be a scalar, not both); writes `out` if given."""
    like = a if isinstance(a, DeviceArray) else b
    compute, res = op_dtypes(op, a, b)
    if isinstance(a, DeviceArray) and isinstance(b, DeviceArray):
        check_same_shape(a, b)
        like = a if a.shape != () else b
    x, y = operand(a, like, compute), operand(b, like, compute)
    expr, preamble = _template(op, compute)
    expr = expr.replace("X", x.converted("x", compute)).replace("Y", y.converted("y", compute))
    return run(op_name(op), [x, y], expr, res, like, out, preamble, queue,
               None if op in _COMPARE else compute)


def op_name(op: str) -> str:
    names = {"+": "add", "-": "sub", "*": "mul", "/": "div", "**": "pow", "&": "and", "|": "or",
             "^": "xor", "<<": "shl", ">>": "shr", "==": "eq", "!=": "ne", "<": "lt",
             "<=": "le", ">": "gt", ">=": "ge"}
    return names.get(op, op)


def unary(template: str, a: Any, res: Any, compute: Any = None, out: Any = None,
          queue: Any = None, preamble: str = "", name: str = "unary", expr_dtype: Any = None
          ) -> Any:
    """`template` (over X, in dtype `compute`) applied to each element of `a`.

    The result has dtype `res`; `expr_dtype` is the template's own dtype (None: real).
    """
    compute = np.dtype(compute if compute is not None else a.dtype)
    x = operand(a, a, compute)
    expr = template.replace("X", x.converted("x", compute))
    return run(name, [x], expr, np.dtype(res), a, out, preamble, queue, expr_dtype)


def run(name: str, operands: list[Operand], expr: str, res: np.dtype, like: Any, out: Any,
        preamble: str = "", queue: Any = None, expr_dtype: Any = None) -> Any:
    """Launch `out[i] = expr` over `like`'s shape; returns `out` (a new array if None).

    `expr_dtype` is the dtype of `expr` when it may be complex (None: a real type).
    """
    queue = queue or like.queue
    if queue is None:
        raise ValueError(NO_QUEUE)
    if out is None:
        out = new_array(like, queue, like.shape, res, like.allocator)
    target = out if out.flags.c_contiguous else new_array(out, queue, out.shape, out.dtype)
    names = "xyzw"
    args = ", ".join([f"{ctype(target.dtype)} *out",
                      *(op.decl(names[k]) for k, op in enumerate(operands))])
    knl = get_elwise_kernel(like.context, args, f"out[i] = {convert(expr, target.dtype, expr_dtype)}",
                            f"oclpy_{name}", preamble)
    evt = knl(target, *(op.arg() for op in operands), queue=queue,
              wait_for=[e for op in operands if isinstance(op.value, DeviceArray)
                        for e in op.value.events] + list(target.events))
    target.add_event(evt)
    if target is not out:
        copy_strided(out, target, queue)
    return out


def where(cond: Any, a: Any, b: Any, queue: Any = None, out: Any = None) -> Any:
    """cond[i] ? a[i] : b[i] (a and b arrays or scalars), PyOpenCL's if_positive order."""
    res = result_type(a, b)
    for other in (a, b):
        if isinstance(other, DeviceArray) and other.shape != ():
            check_same_shape(cond, other)
    ops = [operand(cond, cond, cond.dtype), operand(a, cond, res), operand(b, cond, res)]
    expr = (f"({ops[0].converted('x', np.dtype(np.bool_))}) ? {ops[1].converted('y', res)} "
            f": {ops[2].converted('z', res)}")
    return run("where", ops, expr, res, cond, out, "", queue, res)


def take(a: Any, indices: Any, out: Any = None, queue: Any = None) -> Any:
    """out[i] = a[indices[i]] (a contiguous)."""
    queue = queue or indices.queue or a.queue
    if out is None:
        out = new_array(a, queue, indices.shape, a.dtype, a.allocator)
    src, idx = operand(a, a, a.dtype), operand(indices, indices, indices.dtype)
    args = f"{_uint_of(a.dtype)} *out, const {_uint_of(a.dtype)} *x, {idx.decl('y')}"
    knl = get_elwise_kernel(a.context, args, "out[i] = x[y[i]]", "oclpy_take")
    out.add_event(knl(out, src.value, idx.value, queue=queue,
                      wait_for=[*a.events, *indices.events, *out.events]))
    return out


def put(dest: Any, indices: Any, values: Any, queue: Any = None) -> Any:
    """dest[indices[i]] = values[i] (dest contiguous)."""
    queue = queue or dest.queue
    if isinstance(values, DeviceArray) and values.size == 1 and indices.size != 1:
        values = values.reshape(())  # one value for every index, as NumPy broadcasts it
    vals = operand(values, indices, dest.dtype)
    item = _uint_of(dest.dtype) if vals.kind != "scalar" else ctype(dest.dtype)
    args = f"{item} *out, const {ctype(indices.dtype)} *y, " + (
        f"const {item} *x" if vals.kind != "scalar" else f"{item} x")
    knl = get_elwise_kernel(dest.context, args, f"out[y[i]] = {vals.expr('x')}", "oclpy_put")
    waits = [*dest.events, *indices.events, *getattr(values, "events", [])]
    evt = knl(dest, indices, vals.arg() if vals.kind == "scalar" else vals.value, queue=queue,
              range=slice(0, indices.size, 1), wait_for=waits)
    dest.add_event(evt)
    return evt


_UINTS = {1: "uchar", 2: "ushort", 4: "uint", 8: "ulong", 16: "ulong2"}


def _uint_of(dtype: np.dtype) -> str:
    name = _UINTS.get(np.dtype(dtype).itemsize)
    if name is None:
        raise NotImplementedError(f"oclpy.array: moving items of {np.dtype(dtype).itemsize} bytes "
                                  f"({dtype}) is not supported")
    return name


def strided_copy_kernel(context: Any, itemsize: int, ndim: int) -> Any:
    """Kernel copying an ndim-strided source into an ndim-strided destination (byte strides)."""
    dims = range(ndim)
    args = ", ".join(["uchar *dst", "const uchar *src", *(f"long n{k}" for k in dims),
                      *(f"long ds{k}" for k in dims), *(f"long ss{k}" for k in dims)])
    walk = "".join(f"idx = rem % n{k}; rem /= n{k}; doff += idx * ds{k}; soff += idx * ss{k}; "
                   for k in reversed(dims))
    item = _uint_of(np.dtype(f"V{itemsize}"))
    body = (f"long rem = i, idx, doff = 0, soff = 0; {walk}"
            f"*(__global {item} *) (dst + doff) = *(__global const {item} *) (src + soff)")
    return get_elwise_kernel(context, args, body, f"oclpy_copy_strided{ndim}")


def contiguous(a: Any) -> Any:
    """`a` itself if C-contiguous, else a C-contiguous copy."""
    if a.flags.c_contiguous:
        return a
    result = new_array(a, a.queue or a.context, a.shape, a.dtype, a.allocator)
    if a.queue is None:
        raise ValueError(NO_QUEUE)
    copy_strided(result, a, a.queue)
    return result


def copy_strided(dst: Any, src: Any, queue: Any = None) -> None:
    """dst[...] = src[...] for any strides (equal shapes and item sizes)."""
    if dst.shape != src.shape or dst.dtype.itemsize != src.dtype.itemsize:
        raise ValueError(f"cannot copy {src.shape} {src.dtype} into {dst.shape} {dst.dtype}")
    if not dst.size:
        return
    queue = queue or dst.queue or src.queue
    knl = strided_copy_kernel(dst.context, dst.dtype.itemsize, max(1, len(dst.shape)))
    shape, ds, ss = dst.shape or (1,), dst.strides or (0,), src.strides or (0,)
    flat_dst = new_array(dst, queue, (dst.size,), dst.dtype, data=dst.base_data, offset=dst.offset,
                         strides=(dst.dtype.itemsize,))
    evt = knl(flat_dst, src, *map(np.int64, (*shape, *ds, *ss)), queue=queue,
              wait_for=[*dst.events, *src.events])
    dst.add_event(evt)
