"""The functions Dask runs on a worker, one chunk at a time: NumPy blocks in, NumPy blocks out.

Each takes the program as text (source, or the generator's expressions) and
the chunk's NumPy blocks, gets this worker's device and built program
(worker.py: built at the first chunk, kept for the others), copies the blocks
in, runs the kernel and copies the result out:

- `kernel_chunk`: a user kernel (`map_kernel`); its first argument is the
  output buffer, then every argument in order (a block becomes a buffer of
  its bytes, anything else is passed as it is); the NDRange is the output
  block's shape, last axis first, so `get_global_id(0)` walks the fastest axis;
- `elementwise_chunk`: an `ElementwiseKernel` over the blocks (`elementwise`);
- `reduction_chunk`: a `ReductionKernel` over the blocks, giving one partial
  value per chunk; `combine_partials` folds partial values with the same
  reduce expression (`reduction`).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

import oclpy as cl

from .. import array as cl_array
from ..elementwise import ElementwiseKernel
from ..kernelgen.dtype_registry import kernel_ctype
from ..reduction import ReductionKernel
from .worker import Slot, next_slot, program


def fill(template: Sequence[Any], blocks: Sequence[Any]) -> list[Any]:
    """The call's arguments: `template` with each ARRAY slot replaced by the next block."""
    found = iter(blocks)
    return [next(found) if item is ARRAY else item for item in template]


class _ArraySlot:
    """Where a Dask array's block goes in an argument template (pickled by name)."""

    def __reduce__(self) -> str:
        return "ARRAY"

    def __repr__(self) -> str:
        return "ARRAY"


ARRAY = _ArraySlot()


def _build_program(source: str, options: str) -> Any:
    return lambda ctx: cl.Program(ctx, source).build(options=options)


def kernel_chunk(source: str, name: str, options: str, out_dtype: Any, template: Sequence[Any],
                 *blocks: np.ndarray) -> np.ndarray:
    """One chunk of `map_kernel`: the output block, shaped as the first array block."""
    args = fill(template, blocks)
    out = np.empty(blocks[0].shape, dtype=out_dtype)
    if out.size == 0:
        return out
    slot = next_slot()
    knl = getattr(program(slot, ("kernel", source, options), _build_program(source, options)), name)
    mf = cl.mem_flags
    values: list[Any] = []
    for arg in args:
        if isinstance(arg, np.ndarray):
            data = np.ascontiguousarray(arg)
            values.append(cl.Buffer(slot.context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=data)
                          if data.nbytes else None)
        else:
            values.append(arg)
    result = cl.Buffer(slot.context, mf.WRITE_ONLY, out.nbytes)
    knl(slot.queue, out.shape[::-1], None, result, *values)
    cl.enqueue_copy(slot.queue, out, result)
    return out


def _device_args(slot: Slot, args: Sequence[Any]) -> list[Any]:
    return [cl_array.to_device(slot.queue, np.ascontiguousarray(a)) if isinstance(a, np.ndarray) else a
            for a in args]


def elementwise_chunk(arguments: str, operation: str, name: str, preamble: str, out_index: int,
                      out_dtype: Any, template: Sequence[Any], *blocks: np.ndarray) -> np.ndarray:
    """One chunk of `elementwise`: the template holds every argument but the output (at
    `out_index`)."""
    args = fill(template, blocks)
    if blocks[0].size == 0:
        return np.empty(blocks[0].shape, dtype=out_dtype)
    slot = next_slot()
    key = ("elementwise", arguments, operation, name, preamble)
    knl = program(slot, key, lambda ctx: ElementwiseKernel(ctx, arguments, operation, name,
                                                           preamble=preamble))
    values = _device_args(slot, args)
    out = cl_array.empty(slot.queue, blocks[0].shape, out_dtype)
    values.insert(out_index, out)
    knl(*values, queue=slot.queue)
    return out.get()


def _reduction(slot: Slot, dtype_out: Any, neutral: str, reduce_expr: str, map_expr: str,
               arguments: str, preamble: str) -> Any:
    key = ("reduction", np.dtype(dtype_out).str, neutral, reduce_expr, map_expr, arguments, preamble)
    return program(slot, key, lambda ctx: ReductionKernel(ctx, dtype_out, neutral, reduce_expr,
                                                          map_expr, arguments, preamble=preamble))


def reduction_chunk(dtype_out: Any, neutral: str, reduce_expr: str, map_expr: str, arguments: str,
                    preamble: str, template: Sequence[Any], *blocks: np.ndarray) -> np.ndarray:
    """One chunk's partial value, shaped (1, 1, ...) like the chunk's dimensions."""
    args = fill(template, blocks)
    shape = (1,) * blocks[0].ndim
    if blocks[0].size == 0:
        return np.full(shape, _neutral_value(dtype_out, neutral, reduce_expr, preamble))
    slot = next_slot()
    knl = _reduction(slot, dtype_out, neutral, reduce_expr, map_expr, arguments, preamble)
    value = knl(*_device_args(slot, args), queue=slot.queue).get()
    return np.asarray(value, dtype=dtype_out).reshape(shape)


def _neutral_value(dtype_out: Any, neutral: str, reduce_expr: str, preamble: str) -> Any:
    """The neutral element, as the device computes it (an expression such as "-INFINITY")."""
    return combine_partials(np.empty(0, dtype_out), dtype_out, neutral, reduce_expr, preamble)


def keep_partial(partials: np.ndarray, axis: Any = None, keepdims: bool = True) -> np.ndarray:
    """dask.array.reduction's chunk step over blocks that are partial values already."""
    return partials


def combine_partials(partials: np.ndarray, dtype_out: Any, neutral: str, reduce_expr: str,
                     preamble: str, axis: Any = None, keepdims: bool = False) -> np.ndarray:
    """Fold partial values with `reduce_expr` on the device (dask.array.reduction's chunk,
    combine and aggregate step: every axis is reduced, as `reduction` asks for)."""
    shape = (1,) * partials.ndim if keepdims else ()
    slot = next_slot()
    ctype = kernel_ctype(np.dtype(dtype_out))
    knl = _reduction(slot, dtype_out, neutral, reduce_expr, "pyopencl_partial_x[i]",
                     f"__global const {ctype} *pyopencl_partial_x", preamble)
    flat = np.ascontiguousarray(partials, dtype=dtype_out).reshape(-1)
    if flat.size == 0:
        flat = np.zeros(1, dtype_out)
        value = knl(cl_array.to_device(slot.queue, flat), queue=slot.queue, range=slice(0, 0, 1)).get()
    else:
        value = knl(cl_array.to_device(slot.queue, flat), queue=slot.queue).get()
    return np.asarray(value, dtype=dtype_out).reshape(shape)
