"""The two-stage map-reduce under `oclpy.reduction.ReductionKernel` and oclpy.array's reductions.

`MapReduceKernel(ctx, np.float32, neutral="0", reduce_expr="a+b",
map_expr="x[i]*y[i]", arguments="float *x, float *y")` generates a two-stage
reduction. Stage 1 runs G work-groups of L work-items (L a power of two):
each work-item folds `map_expr` over its own contiguous run of indices, the
group combines its L partial values in __local memory with a barrier per
step, combining neighbours (`a` always from the lower indices, `b` from the
higher, so a merely associative `reduce_expr` gives the sequential answer)
and writes one value per group. Stage 2 (only when G > 1) is one group doing
the same over the G partial values. The call returns a 0-d array
(`.get()` gives the value), or `(array, event)` with `return_event=True`.

The result is made by `new_result`: an array of the class of the first
array argument. `oclpy.reduction.ReductionKernel` also makes one when no
argument is an array; oclpy.array's reductions, which sit below the Array
class, always pass one.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

import oclpy as cl

from .arguments import VectorArg, offset_adjuster, parse_arg_list, precision_pragmas
from .dtype_registry import kernel_ctype
from .launch import DeviceArray, call_queue, group_size, kernel_arg_values, wait_list
from .programs import build_kernel

MAX_GROUPS = 32


def _stage_source(name: str, out_ctype: str, args_decl: str, adjust: str, neutral: str,
                  map_expr: str, group: int, stage2: bool) -> str:
    partial = f"__global const {out_ctype} *pyopencl_partial, " if stage2 else ""
    value = "pyopencl_partial[k]" if stage2 else map_expr
    index = "" if stage2 else "    long i = start + k * step;\n"
    return f"""
__kernel void {name}(__global {out_ctype} *pyopencl_out, {partial}{args_decl}long n,
                     long chunk, long start, long step)
{{
{adjust}
  __local {out_ctype} pyopencl_ldata[{group}];
  long lid = (long) get_local_id(0);
  long first = (long) get_global_id(0) * chunk;
  long last = min(first + chunk, n);
  {out_ctype} acc = {neutral};
  for (long k = first; k < last; ++k)
  {{
{index}    {out_ctype} pyopencl_value = {value};
    acc = PYOPENCL_REDUCE(acc, pyopencl_value);
  }}
  pyopencl_ldata[lid] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (long s = 1; s < {group}; s <<= 1)
  {{
    if ((lid & (2 * s - 1)) == 0)
      pyopencl_ldata[lid] = PYOPENCL_REDUCE(pyopencl_ldata[lid], pyopencl_ldata[lid + s]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }}
  if (lid == 0)
    pyopencl_out[get_group_id(0)] = pyopencl_ldata[0];
}}
"""


class MapReduceKernel:
    """`knl(*args, queue=, wait_for=, return_event=, range=, slice=, out=, allocator=)`."""

    def __init__(self, ctx: Any, dtype_out: Any, neutral: str, reduce_expr: str,
                 map_expr: str | None = None, arguments: Any = None, name: str = "reduce_kernel",
                 options: Any = None, preamble: str = "") -> None:
        self.context = ctx
        self.dtype_out = np.dtype(dtype_out)
        self.neutral = str(neutral)
        self.reduce_expr = reduce_expr
        self.map_expr = map_expr if map_expr is not None else "in[i]"
        if arguments is None:
            raise TypeError("ReductionKernel needs 'arguments'")
        self.args = [VectorArg(a.dtype, a.name, a.address_space == "__global", a.address_space,
                               a.const) if isinstance(a, VectorArg) else a
                     for a in parse_arg_list(arguments)]
        self.name = name
        self.options = options
        self.preamble = preamble
        self.out_ctype = kernel_ctype(self.dtype_out)
        self._built: dict[Any, tuple[Any, Any, int]] = {}

    def _kernels(self, device: Any) -> tuple[Any, Any, int]:
        built = self._built.get(device)
        if built is None:
            built = self._built.setdefault(device, self._build_kernels(device))
        return built

    def _build_kernels(self, device: Any) -> tuple[Any, Any, int]:
        group = group_size(device)
        decl = "".join(a.declarator() + ", " for a in self.args)
        adjust = offset_adjuster(self.args)
        pragma = precision_pragmas(self.args, (self.dtype_out,))
        source = (f"{pragma}{self.preamble}\n#define PYOPENCL_REDUCE(a, b) ({self.reduce_expr})\n"
                  + _stage_source(f"{self.name}_stage1", self.out_ctype, decl, adjust,
                                  self.neutral, self.map_expr, group, False)
                  + _stage_source(f"{self.name}_stage2", self.out_ctype, decl, adjust,
                                  self.neutral, "", group, True))
        one = build_kernel(self.context, source, f"{self.name}_stage1", self.options)
        two = build_kernel(self.context, source, f"{self.name}_stage2", self.options)
        return one, two, group

    def new_result(self, queue: Any, allocator: Any, repr_vec: DeviceArray | None) -> Any:
        """The 0-d array the call writes: of the class of the first array argument."""
        if repr_vec is None:
            raise TypeError(f"{self.name}: no array argument to make the result like: pass out=")
        return type(repr_vec)(queue, (), self.dtype_out, allocator=allocator)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        queue, wait_for = kwargs.pop("queue", None), kwargs.pop("wait_for", None)
        return_event, out = kwargs.pop("return_event", False), kwargs.pop("out", None)
        allocator, rng = kwargs.pop("allocator", None), kwargs.pop("range", None)
        slc = kwargs.pop("slice", None)
        if kwargs:
            raise TypeError(f"invalid keyword argument(s): {', '.join(sorted(kwargs))}")
        queue, repr_vec = call_queue(self.name, self.args, args, queue)
        start, step, count = self._range(rng, slc, repr_vec)
        values = kernel_arg_values(self.args, args)
        if out is None:
            out = self.new_result(queue, allocator, repr_vec)
        evt = self._run(queue, values, (start, step, count), out, wait_list(args, wait_for))
        out.add_event(evt)
        return (out, evt) if return_event else out

    def _range(self, rng: Any, slc: Any, repr_vec: Any) -> tuple[int, int, int]:
        if rng is not None and slc is not None:
            raise TypeError("may not specify both range and slice keyword arguments")
        if slc is not None:
            if repr_vec is None:
                raise ValueError("slice= needs an Array argument to give the size")
            rng = builtins.slice(*slc.indices(repr_vec.size))
        if rng is None:
            if repr_vec is None:
                raise ValueError("range= is needed when no argument is an Array")
            return 0, 1, repr_vec.size
        start = 0 if rng.start is None else rng.start
        step = 1 if rng.step is None else rng.step
        if step == 0:
            raise ValueError("range step must not be zero")
        return start, step, max(0, -(-(rng.stop - start) // step))

    def _run(self, queue: Any, values: list[Any], rng: tuple[int, int, int], out: Any,
             waits: list[Any]) -> Any:
        one, two, group = self._kernels(queue.device)
        start, step, count = rng
        groups = max(1, min(MAX_GROUPS, -(-count // group)))
        chunk = max(1, -(-count // (groups * group)))
        tail = (np.int64(count), np.int64(chunk), np.int64(start), np.int64(step))
        waits = waits + list(out.events)
        if groups == 1:
            return one(queue, (group,), (group,), out.base_data, *values, *tail,
                       wait_for=waits or None)
        partial = cl.Buffer(self.context, cl.mem_flags.READ_WRITE, groups * self.dtype_out.itemsize)
        evt = one(queue, (groups * group,), (group,), partial, *values, *tail,
                  wait_for=waits or None)
        chunk2 = max(1, -(-groups // group))
        tail2 = (np.int64(groups), np.int64(chunk2), np.int64(0), np.int64(1))
        return two(queue, (group,), (group,), out.base_data, partial, *values, *tail2,
                   wait_for=[evt])
