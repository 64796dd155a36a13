"""`oclpy.dask`: OpenCL kernels over Dask arrays, chunk by chunk (`pip install 'oclpy[dask]'`).

Dask schedules; oclpy computes each chunk on the worker's own device. Three
entry points build lazy Dask arrays:

- `map_kernel(source, name, *args, out_dtype=...)`: a kernel of yours, run once
  per chunk; it receives the output chunk's buffer first, then `args` in order
  (a Dask array as its chunk's buffer, anything else as given); its NDRange is
  the chunk's shape, last axis first. With `depth=` the chunks overlap by that
  many elements per axis (`dask.array.map_overlap`, `boundary=` as there) and
  the halo is trimmed from the result: stencils.
- `elementwise(arguments, operation, *args)`: an `ElementwiseKernel`
  (PyOpenCL's argument list and operation), per chunk; the output is the
  argument named by `out=` (default: the first pointer argument), and `args`
  are the others, in order.
- `reduction(neutral, reduce_expr, map_expr, arguments, *args, dtype_out=...)`:
  a `ReductionKernel` per chunk, then the partial values folded with the same
  `reduce_expr` (`dask.array.reduction`): a 0-d Dask array.

On a worker (worker.py) each device gets one context and queue, GPUs
(`cuda`) when the worker has them and else the cpu device, and each program
is built at its first chunk and reused; tasks carry the program's text, never
a binary. `worker_stats()` (for `client.run`) says what a worker built and
ran. Bad calls raise before anything is scheduled.
"""

from __future__ import annotations

import functools
from typing import Any, Sequence

import numpy as np

try:
    import dask.array as da
except ImportError as exc:  # an optional extra: say how to get it
    raise ImportError("oclpy.dask needs Dask: pip install 'oclpy[dask]' "
                      f"(dask[array] and distributed) ({exc})") from exc

from ..kernelgen.arguments import VectorArg, parse_arg_list
from .chunks import (ARRAY, combine_partials, elementwise_chunk, kernel_chunk, keep_partial,
                     reduction_chunk)
from .worker import pick_devices, stats

__all__ = ["elementwise", "map_kernel", "pick_devices", "reduction", "worker_stats"]


def worker_stats() -> dict[str, Any]:
    """This process's oclpy.dask state: pid, device names and kinds, programs built, tasks run."""
    return stats()


def _split(args: Sequence[Any], routine: str) -> tuple[list[Any], list[da.Array]]:
    """(argument template with ARRAY slots, the Dask arrays), the arrays of one shape."""
    arrays = [a for a in args if isinstance(a, da.Array)]
    if not arrays:
        raise TypeError(f"{routine}: no Dask array among the arguments")
    first = arrays[0]
    for other in arrays[1:]:
        if other.shape != first.shape:
            raise ValueError(f"{routine}: the Dask arrays' shapes differ: {first.shape} and {other.shape}")
    arrays = [first] + [a if a.chunks == first.chunks else a.rechunk(first.chunks) for a in arrays[1:]]
    template = [ARRAY if isinstance(a, da.Array) else a for a in args]
    return template, arrays


def map_kernel(source: str, name: str, *args: Any, out_dtype: Any, options: str = "",
               depth: Any = None, boundary: Any = "none") -> da.Array:
    """A Dask array: kernel `name` of `source` run on each chunk (see the module docstring)."""
    if not isinstance(source, str) or not isinstance(name, str):
        raise TypeError("map_kernel: source and name must be str")
    template, arrays = _split(args, "map_kernel")
    if not 1 <= arrays[0].ndim <= 3:
        raise ValueError(f"map_kernel: the NDRange is the chunk's shape, so the arrays need 1 to 3 "
                         f"dimensions, not {arrays[0].ndim}")
    dtype = np.dtype(out_dtype)
    run = functools.partial(kernel_chunk, source, name, options, dtype, template)
    if depth is None:
        return da.map_blocks(run, *arrays, dtype=dtype, meta=np.empty((0,) * arrays[0].ndim, dtype))
    return da.map_overlap(run, *arrays, depth=depth, boundary=boundary, dtype=dtype,
                          meta=np.empty((0,) * arrays[0].ndim, dtype))


def _output(arguments: str, out: str | None) -> tuple[int, np.dtype]:
    parsed = parse_arg_list(arguments)
    vectors = [(i, a) for i, a in enumerate(parsed) if isinstance(a, VectorArg)]
    if not vectors:
        raise ValueError("elementwise: the argument list has no pointer argument for the output")
    if out is None:
        index, arg = vectors[0]
    else:
        found = [(i, a) for i, a in vectors if a.name == out]
        if not found:
            names = ", ".join(a.name for _, a in vectors)
            raise ValueError(f"elementwise: out={out!r} is not a pointer argument (pointers: {names})")
        index, arg = found[0]
    return index, np.dtype(arg.dtype)


def elementwise(arguments: str, operation: str, *args: Any, out: str | None = None,
                name: str = "elwise_kernel", preamble: str = "") -> da.Array:
    """A Dask array: an ElementwiseKernel(arguments, operation) run on each chunk."""
    index, dtype = _output(arguments, out)
    count = len(parse_arg_list(arguments)) - 1
    if len(args) != count:
        raise TypeError(f"elementwise: {len(args)} arguments given; the argument list has "
                        f"{count} besides the output")
    template, arrays = _split(args, "elementwise")
    run = functools.partial(elementwise_chunk, arguments, operation, name, preamble, index, dtype,
                            template)
    return da.map_blocks(run, *arrays, dtype=dtype, meta=np.empty((0,) * arrays[0].ndim, dtype))


def reduction(neutral: str, reduce_expr: str, map_expr: str, arguments: str, *args: Any,
              dtype_out: Any, preamble: str = "", split_every: int | None = None) -> da.Array:
    """A 0-d Dask array: ReductionKernel(dtype_out, neutral, reduce_expr, map_expr,
    arguments) over every chunk, the partial values folded with `reduce_expr`."""
    count = len(parse_arg_list(arguments))
    if len(args) != count:
        raise TypeError(f"reduction: {len(args)} arguments given; the argument list has {count}")
    dtype = np.dtype(dtype_out)
    template, arrays = _split(args, "reduction")
    run = functools.partial(reduction_chunk, dtype, str(neutral), reduce_expr, map_expr, arguments,
                            preamble, template)
    ones = tuple((1,) * n for n in arrays[0].numblocks)
    partials = da.map_blocks(run, *arrays, chunks=ones, dtype=dtype,
                             meta=np.empty((0,) * arrays[0].ndim, dtype))
    fold = functools.partial(combine_partials, dtype_out=dtype, neutral=str(neutral),
                             reduce_expr=reduce_expr, preamble=preamble)
    return da.reduction(partials, chunk=keep_partial, combine=fold, aggregate=fold, dtype=dtype,
                        axis=None, keepdims=False, concatenate=True, split_every=split_every,
                        meta=np.empty((), dtype))
