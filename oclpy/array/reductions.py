"""The reductions of oclpy.array: sum, dot, vdot, min, max, any, all and their subset_ forms.

Each is one ReductionKernel (memoized per context and dtype) over a
contiguous operand (a non-contiguous view is copied first) and returns a
0-d Array, as PyOpenCL's do. Float min/max propagate NaN like NumPy;
min/max of an empty array raise ValueError unless `initial` is given.

Like arith.py, this module sits below the Array class: the kernels are
kernelgen's MapReduceKernel, whose result has the class of the array
reduced.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import complex as array_complex
from .arith import BOOL_DTYPE, binary, check_same_shape, contiguous, convert, ctype, result_type
from ..kernelgen.launch import DeviceArray
from ..kernelgen.programs import ContextCache
from ..kernelgen.reduce import MapReduceKernel

_NAN_MINMAX = """
#define OCLPY_FMAX_NANPROP(a, b) (isnan(a) ? (a) : (isnan(b) ? (b) : fmax(a, b)))
#define OCLPY_FMIN_NANPROP(a, b) (isnan(a) ? (a) : (isnan(b) ? (b) : fmin(a, b)))
"""
_NoValue = object()
_kernels = ContextCache()


def get_reduction_kernel(ctx: Any, dtype_out: Any, neutral: str, reduce_expr: str,
                         map_expr: str, arguments: str, name: str = "reduce_kernel",
                         preamble: str = "") -> MapReduceKernel:
    """A memoized MapReduceKernel (per context and text)."""
    key = (np.dtype(dtype_out).str, neutral, reduce_expr, map_expr, arguments, name, preamble)
    return _kernels.get(ctx, key, lambda: MapReduceKernel(ctx, dtype_out, neutral, reduce_expr,
                                                          map_expr, arguments, name,
                                                          preamble=preamble))


def _run(knl: Any, args: list[Any], queue: Any, slice: Any = None) -> Any:  # noqa: A002
    waits = [e for a in args if hasattr(a, "events") for e in a.events]
    return knl(*args, queue=queue, wait_for=waits, slice=slice)


def sum(a: Any, dtype: Any = None, queue: Any = None, slice: Any = None,  # noqa: A001, A002
        initial: Any = _NoValue) -> Any:
    out = np.dtype(dtype) if dtype is not None else a.dtype
    a = contiguous(a)
    knl = get_reduction_kernel(a.context, out, convert("0", out), "a+b",
                               convert("in[i]", out, a.dtype), f"const {ctype(a.dtype)} *in",
                               "oclpy_sum")
    result = _run(knl, [a], queue, slice)
    if initial is not _NoValue:
        if not np.isscalar(initial):
            raise ValueError("'initial' is not a scalar")
        result += a.dtype.type(initial)
    return result


def _dot(a: Any, b: Any, dtype: Any, queue: Any, slice: Any, subset: Any = None,  # noqa: A002
         conjugate_first: bool = False) -> Any:
    check_same_shape(a, b)
    out = np.dtype(dtype) if dtype is not None else result_type(a, b)
    a, b = contiguous(a), contiguous(b)
    index = "i" if subset is None else "lookup_tbl[i]"
    x, y = convert(f"a[{index}]", out, a.dtype), convert(f"b[{index}]", out, b.dtype)
    preamble = ""
    if out.kind == "c":
        t = array_complex.real_ctype(out)
        if conjugate_first:
            x = f"(({t}2)(({x}).x, -({x}).y))"
        map_expr, preamble = f"oclpy_cmul_{t}({x}, {y})", array_complex.preamble(out)
    else:
        map_expr = f"{x} * {y}"
    args = f"const {ctype(a.dtype)} *a, const {ctype(b.dtype)} *b"
    if subset is not None:
        args = f"const {ctype(subset.dtype)} *lookup_tbl, " + args
    knl = get_reduction_kernel(a.context, out, convert("0", out), "a+b", map_expr, args,
                               "oclpy_dot", preamble)
    return _run(knl, ([subset] if subset is not None else []) + [a, b], queue, slice)


def dot(a: Any, b: Any, dtype: Any = None, queue: Any = None, slice: Any = None) -> Any:  # noqa: A002
    return _dot(a, b, dtype, queue, slice)


def vdot(a: Any, b: Any, dtype: Any = None, queue: Any = None, slice: Any = None) -> Any:  # noqa: A002
    return _dot(a, b, dtype, queue, slice, conjugate_first=a.dtype.kind == "c")


def subset_dot(subset: Any, a: Any, b: Any, dtype: Any = None, queue: Any = None,
               slice: Any = None) -> Any:  # noqa: A002
    return _dot(a, b, dtype, queue, slice, subset=contiguous(subset))


def _neutral(what: str, dtype: np.dtype) -> str:
    if dtype.kind == "f":
        return "INFINITY" if what == "min" else "-INFINITY"
    info = np.iinfo(dtype)
    value = info.max if what == "min" else info.min
    suffix = {8: "L" if dtype.kind == "i" else "UL"}.get(dtype.itemsize, "")
    if dtype.kind == "i" and value == info.min and dtype.itemsize == 8:
        return f"({value + 1}L - 1L)"
    return f"(({ctype(dtype)}) {value}{suffix})"


def _minmax_kernel(context: Any, what: str, dtype: np.dtype, subset: Any = None) -> Any:
    if dtype.kind == "f":
        reduce_expr = f"OCLPY_F{what.upper()}_NANPROP(a, b)"
    elif dtype.kind in "iu":
        reduce_expr = f"{what}(a, b)"
    else:
        raise TypeError(f"unsupported dtype for {what}: {dtype}")
    args = f"const {ctype(dtype)} *in"
    map_expr = "in[i]"
    if subset is not None:
        args = f"const {ctype(subset.dtype)} *lookup_tbl, " + args
        map_expr = "in[lookup_tbl[i]]"
    return get_reduction_kernel(context, dtype, _neutral(what, dtype), reduce_expr, map_expr,
                                args, f"oclpy_{what}", _NAN_MINMAX)


def _minmax(what: str, a: Any, queue: Any, initial: Any) -> Any:
    if not isinstance(a, DeviceArray):
        return np.array(a).dtype.type(a)
    if a.size == 0:
        if initial is _NoValue:
            raise ValueError(f"zero-size array to reduction operation {what} which has no "
                             f"identity")
        return initial
    if initial is not _NoValue and not np.isscalar(initial):
        raise ValueError("'initial' is not a scalar")
    a = contiguous(a)
    result = _run(_minmax_kernel(a.context, what, a.dtype), [a], queue)
    if initial is not _NoValue:
        result = binary("minimum" if what == "min" else "maximum", result, a.dtype.type(initial),
                        queue=queue)
    return result


def min(a: Any, queue: Any = None, initial: Any = _NoValue) -> Any:  # noqa: A001
    return _minmax("min", a, queue, initial)


def max(a: Any, queue: Any = None, initial: Any = _NoValue) -> Any:  # noqa: A001
    return _minmax("max", a, queue, initial)


def subset_min(subset: Any, a: Any, queue: Any = None, slice: Any = None) -> Any:  # noqa: A002
    a = contiguous(a)
    return _run(_minmax_kernel(a.context, "min", a.dtype, subset), [contiguous(subset), a], queue,
                slice)


def subset_max(subset: Any, a: Any, queue: Any = None, slice: Any = None) -> Any:  # noqa: A002
    a = contiguous(a)
    return _run(_minmax_kernel(a.context, "max", a.dtype, subset), [contiguous(subset), a], queue,
                slice)


def any_all(a: Any, what: str, queue: Any = None) -> Any:
    """a.any() / a.all() as a 0-d int8 array."""
    a = contiguous(a)
    neutral, reduce_expr = ("0", "a || b") if what == "any" else ("1", "a && b")
    knl = get_reduction_kernel(a.context, BOOL_DTYPE, neutral, reduce_expr,
                               convert("in[i]", np.dtype(np.bool_), a.dtype),
                               f"const {ctype(a.dtype)} *in", f"oclpy_{what}")
    return _run(knl, [a], queue)
