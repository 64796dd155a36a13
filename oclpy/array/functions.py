"""The module functions of oclpy.array: selection, stacking, differences, cumsum.

`if_positive`/`where`, `maximum`/`minimum`, `logical_*` are generated
elementwise kernels; `take`/`multi_take`/`multi_put` gather and scatter by
index arrays; `concatenate`, `stack`, `hstack` copy each input into a view
of the result (any strides); `diff` is one kernel; `cumsum` is an
InclusiveScanKernel. The reductions are re-exported from
reductions.py. This module sits above the Array class (core.py).
"""

from __future__ import annotations

import builtins
import operator
from typing import Any, Sequence

import numpy as np

from . import arith as elw
from .arith import contiguous, copy_strided
from .core import Array, empty, to_device
from .reductions import dot, max, min, subset_dot, subset_max, subset_min, sum, vdot  # noqa: A004
from ..elementwise import get_elwise_kernel
from ..scan import get_inclusive_scan_kernel


def _queue_of(*objs: Any, queue: Any = None) -> Any:
    if queue is not None:
        return queue
    for obj in objs:
        if isinstance(obj, Array) and obj.queue is not None:
            return obj.queue
    raise ValueError("no queue: pass queue= or an array that has one")


def _scalar_result(value: Any, queue: Any, dtype: Any = None) -> Array:
    return to_device(queue, np.asarray(value, dtype=dtype))


def if_positive(criterion: Any, then_: Any, else_: Any, out: Any = None, queue: Any = None) -> Any:
    """then_[i] where criterion[i] > 0 else else_[i] (PyOpenCL's if_positive)."""
    if not isinstance(criterion, Array):
        if isinstance(then_, Array) or isinstance(else_, Array):
            raise ValueError("if_positive with a scalar criterion needs scalar branches")
        return then_ if criterion > 0 else else_
    crit = elw.binary(">", criterion, 0, queue=queue)
    return elw.where(crit, then_, else_, queue=queue, out=out)


def where(criterion: Any, then_: Any, else_: Any, out: Any = None, queue: Any = None) -> Any:
    """then_[i] where criterion[i] != 0 else else_[i]."""
    if not isinstance(criterion, Array):
        return then_ if criterion else else_
    return elw.where(criterion, then_, else_, queue=queue, out=out)


def any(a: Array, queue: Any = None, wait_for: Any = None) -> Any:  # noqa: A001
    """Whether some element is nonzero: a 0-d int8 array (np.int8(False) when empty)."""
    if len(a) == 0:
        return elw.BOOL_DTYPE.type(False)
    return a.any(queue=queue, wait_for=wait_for)


def all(a: Array, queue: Any = None, wait_for: Any = None) -> Any:  # noqa: A001
    """Whether every element is nonzero: a 0-d int8 array (np.int8(True) when empty)."""
    if len(a) == 0:
        return elw.BOOL_DTYPE.type(True)
    return a.all(queue=queue, wait_for=wait_for)


def _minmax(op: str, a: Any, b: Any, out: Any, queue: Any) -> Any:
    if not isinstance(a, Array) and not isinstance(b, Array):
        return getattr(np, op)(a, b)
    return elw.binary(op, a, b, out=out, queue=queue)


def maximum(a: Any, b: Any, out: Any = None, queue: Any = None) -> Any:
    return _minmax("maximum", a, b, out, queue)


def minimum(a: Any, b: Any, out: Any = None, queue: Any = None) -> Any:
    return _minmax("minimum", a, b, out, queue)


def _logical(op: str, x1: Any, x2: Any, out: Any, queue: Any) -> Any:
    if not isinstance(x1, Array) and not isinstance(x2, Array):
        value = getattr(np, op)(x1, x2)
        return _scalar_result(value, _queue_of(queue=queue), elw.BOOL_DTYPE)
    return elw.binary(op, x1, x2, out=out, queue=queue)


def logical_and(x1: Any, x2: Any, /, out: Any = None, queue: Any = None) -> Any:
    return _logical("logical_and", x1, x2, out, queue)


def logical_or(x1: Any, x2: Any, /, out: Any = None, queue: Any = None) -> Any:
    return _logical("logical_or", x1, x2, out, queue)


def logical_not(x: Any, /, out: Any = None, queue: Any = None) -> Any:
    if not isinstance(x, Array):
        return _scalar_result(np.logical_not(x), _queue_of(queue=queue), elw.BOOL_DTYPE)
    return elw.unary("(X == 0)", x, elw.BOOL_DTYPE, out=out, queue=queue, name="logical_not")


def take(a: Array, indices: Array, out: Any = None, queue: Any = None,
         wait_for: Any = None) -> Array:
    elw.check_index_dtype(indices)
    return elw.take(a, indices, out, queue)


def multi_take(arrays: Sequence[Array], indices: Array, out: Any = None,
               queue: Any = None) -> list[Array]:
    outs = list(out) if out is not None else [None] * len(arrays)
    return [elw.take(a, indices, o, queue) for a, o in zip(arrays, outs)]


def multi_put(arrays: Sequence[Array], dest_indices: Array, dest_shape: Any = None,
              out: Any = None, queue: Any = None, wait_for: Any = None) -> list[Array]:
    if out is None:
        out = [empty(_queue_of(*arrays, queue=queue), dest_shape, a.dtype) for a in arrays]
    for src, dest in zip(arrays, out):
        elw.put(dest, dest_indices, src, queue)
    return list(out)


def multi_take_put(arrays: Sequence[Array], dest_indices: Array, src_indices: Array,
                   dest_shape: Any = None, out: Any = None, queue: Any = None,
                   src_offsets: Any = None) -> list[Array]:
    """out[k][dest_indices[i]] = arrays[k][src_indices[i] + src_offsets[k]]."""
    if not arrays:
        return []
    if src_indices.dtype != dest_indices.dtype:
        raise TypeError("src_indices and dest_indices must have the same dtype")
    if src_indices.ndim != 1 or src_indices.shape != dest_indices.shape:
        raise ValueError("src_indices and dest_indices must be 1D arrays of one shape")
    queue = _queue_of(src_indices, *arrays, queue=queue)
    if out is None:
        out = [empty(queue, dest_shape, a.dtype, allocator=a.allocator) for a in arrays]
    offsets = list(src_offsets) if src_offsets is not None else [0] * len(arrays)
    for src, dest, off in zip(arrays, out, offsets):
        index = src_indices if not off else elw.binary("+", src_indices, off)
        index = index.astype(src_indices.dtype) if index.dtype != src_indices.dtype else index
        elw.put(dest, dest_indices, elw.take(src, index, queue=queue), queue)
    return list(out)


def reshape(a: Array, shape: Any, order: str = "C") -> Array:
    return a.reshape(shape, order=order)


def transpose(a: Array, axes: Any = None) -> Array:
    return a.transpose(axes)


def _place(result: Array, parts: Sequence[Array], axis: int) -> Array:
    at = 0
    for part in parts:
        index = [slice(None)] * result.ndim
        index[axis] = slice(at, at + part.shape[axis])
        target = result[tuple(index)]
        copy_strided(target, part.astype(result.dtype) if part.dtype != result.dtype else part)
        at += part.shape[axis]
    return result


def concatenate(arrays: Sequence[Array], axis: int = 0, queue: Any = None,
                allocator: Any = None) -> Array:
    if not arrays:
        raise ValueError("need at least one array to concatenate")
    first = arrays[0]
    axis = operator.index(axis) % builtins.max(1, first.ndim)
    for ary in arrays[1:]:
        if ary.ndim != first.ndim or builtins.any(d1 != d2 for k, (d1, d2) in
                                         enumerate(zip(ary.shape, first.shape)) if k != axis):
            raise ValueError("arrays must have the same shape except along the concatenation "
                             f"axis: {first.shape} and {ary.shape}")
    shape = list(first.shape)
    shape[axis] = builtins.sum(a.shape[axis] for a in arrays)
    dtype = np.result_type(*(a.dtype for a in arrays))
    result = empty(_queue_of(*arrays, queue=queue), tuple(shape), dtype,
                   allocator=allocator or first.allocator)
    return _place(result, arrays, axis)


def hstack(arrays: Sequence[Array], queue: Any = None) -> Array:
    if not arrays:
        raise ValueError("need at least one array to hstack")
    return concatenate(arrays, axis=0 if arrays[0].ndim == 1 else 1, queue=queue)


def stack(arrays: Sequence[Array], axis: int = 0, queue: Any = None) -> Array:
    if not arrays:
        raise ValueError("need at least one array to stack")
    shape = arrays[0].shape
    if builtins.any(a.shape != shape for a in arrays):
        raise ValueError("all input arrays must have the same shape")
    axis = operator.index(axis)
    if not -len(shape) - 1 <= axis <= len(shape):
        raise ValueError(f"axis {axis} is out of bounds for the result's "
                         f"{len(shape) + 1} dimensions")
    axis %= len(shape) + 1
    expanded = [a.reshape(shape[:axis] + (1,) + shape[axis:]) if a.flags.forc
                else a.copy().reshape(shape[:axis] + (1,) + shape[axis:]) for a in arrays]
    return concatenate(expanded, axis=axis, queue=queue)


def diff(array: Array, queue: Any = None, allocator: Any = None) -> Array:
    if array.ndim != 1:
        raise ValueError("multi-D arrays are not supported")
    n = array.size
    queue = _queue_of(array, queue=queue)
    result = empty(queue, (builtins.max(0, n - 1),), array.dtype, allocator=allocator or array.allocator)
    if n > 1:
        src = elw.operand(array, array, array.dtype)
        t = elw.ctype(array.dtype)
        knl = get_elwise_kernel(array.context, f"{t} *out, const {t} *x",
                                "out[i] = x[i+1] - x[i]", "oclpy_diff")
        result.add_event(knl(result, src.value, queue=queue, wait_for=array.events))
    return result


def cumsum(a: Array, output_dtype: Any = None, queue: Any = None, wait_for: Any = None,
           return_event: bool = False) -> Any:
    dtype = np.dtype(output_dtype if output_dtype is not None else a.dtype)
    queue = _queue_of(a, queue=queue)
    result = empty(queue, a.shape, dtype, allocator=a.allocator)
    knl = get_inclusive_scan_kernel(a.context, dtype)
    src = a if a.dtype == dtype else a.astype(dtype)
    knl(contiguous(src), result, queue=queue, wait_for=wait_for)
    evt = result.events[-1] if result.events else None
    return (evt, result) if return_event else result


__all__ = ["all", "any", "concatenate", "cumsum", "diff", "dot", "hstack", "if_positive", "logical_and",
           "logical_not", "logical_or", "max", "maximum", "min", "minimum", "multi_put",
           "multi_take", "multi_take_put", "reshape", "stack", "subset_dot", "subset_max",
           "subset_min", "sum", "take", "transpose", "vdot", "where"]
