"""Prefix sums: PyOpenCL's `GenericScanKernel`, `InclusiveScanKernel`, `ExclusiveScanKernel`.

A scan over n items runs as three launches, whatever n is:

1. G work-groups of L work-items; each work-item folds `input_expr` over its
   own contiguous run of indices, each group scans its L partial values in
   __local memory (Hillis-Steele, a barrier per step) and writes its total.
2. One work-item scans the G group totals sequentially, giving each group
   its exclusive prefix, and the total of everything (`last_item`).
3. Every group recomputes its work-items' partial values and local
   exclusive scan, adds the group prefix, and walks its run again, so each
   index gets `item` (inclusive), `prev_item` (exclusive) and runs
   `output_statement`.

Values always combine as `scan_expr(a=earlier, b=later)`. A segmented scan
(`is_segment_start_expr`) carries a flag "a segment starts inside this
span" with each partial value: combining passes `across_seg_boundary` = the
later span's flag to `scan_expr` (which implements the reset, as in
PyOpenCL), and `prev_item` is the neutral element at a segment start.
`GenericDebugScanKernel` runs the same three stages with one work-item.
`input_fetch_exprs` entries `(NAME, ARG, OFFSET)` declare `NAME =
ARG[i+OFFSET]` before `input_expr` (the element stays unread before the
array's start).

This module sits below oclpy.array (whose cumsum uses it): it knows arrays
as kernelgen's DeviceArray, and `output_ary="new"` is an array of the
input's class.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

import oclpy as cl

from .kernelgen.arguments import VectorArg, offset_adjuster, parse_arg_list, precision_pragmas
from .kernelgen.dtype_registry import kernel_ctype
from .kernelgen.launch import DeviceArray, group_size, kernel_arg_values, wait_list
from .kernelgen.programs import ContextCache, build_kernel

MAX_GROUPS = 64
_scan_kernels = ContextCache()


class GenericScanKernel:
    """PyOpenCL's GenericScanKernel; `knl(*args, queue=None, size=None, wait_for=None)` -> Event."""

    max_groups = MAX_GROUPS

    def group_size(self, device: Any) -> int:
        return group_size(device)

    def __init__(self, ctx: Any, dtype: Any, arguments: Any, input_expr: str, scan_expr: str,
                 neutral: str | None, output_statement: str,
                 is_segment_start_expr: str | None = None,
                 input_fetch_exprs: Sequence[tuple[str, str, int]] | None = None,
                 index_dtype: Any = None, name_prefix: str = "scan", options: Any = None,
                 preamble: str = "", devices: Any = None) -> None:
        if neutral is None:
            raise ValueError("must provide a 'neutral' element in scan")
        self.context = ctx
        self.dtype = np.dtype(dtype)
        self.index_dtype = np.dtype(index_dtype if index_dtype is not None else np.int32)
        if np.iinfo(self.index_dtype).min >= 0:
            raise TypeError("index_dtype must be signed")
        self.args = [VectorArg(a.dtype, a.name, a.address_space == "__global", a.address_space,
                               a.const) if isinstance(a, VectorArg) else a
                     for a in parse_arg_list(arguments)]
        self.first_array = next((k for k, a in enumerate(self.args) if isinstance(a, VectorArg)),
                                None)
        names = {a.name: a for a in self.args}
        for _, arg_name, offset in input_fetch_exprs or []:
            if arg_name not in names or not isinstance(names[arg_name], VectorArg):
                raise ValueError(f"input_fetch_exprs: '{arg_name}' is not a pointer argument")
            if offset not in (0, -1):
                raise ValueError(f"input_fetch_exprs: offset {offset} is not 0 or -1")
        self.fetches = list(input_fetch_exprs or [])
        self.input_expr, self.scan_expr, self.neutral = input_expr, scan_expr, str(neutral)
        self.output_statement = output_statement
        self.segment_expr = is_segment_start_expr
        self.name = name_prefix
        self.options, self.preamble = options, preamble
        self.ctype = kernel_ctype(self.dtype)
        self.devices = devices or ctx.devices
        self._built: dict[Any, tuple[Any, Any, Any, int]] = {}

    # -- code generation ------------------------------------------------------------

    def _fetch(self) -> str:
        """Statements giving `oclpy_v` (the input) and `oclpy_seg` (segment start) at index i."""
        names = {a.name: a for a in self.args}
        lines = []
        for var, arg, off in self.fetches:
            ctype = names[arg].ctype()
            lines.append(f"{ctype} {var}; if (i + ({off}) >= 0) {var} = {arg}[i + ({off})];")
        lines.append(f"scan_type oclpy_v = ({self.input_expr});")
        if self.segment_expr:
            lines.append(f"bool oclpy_seg; {{ scan_type a = oclpy_v; "
                         f"oclpy_seg = ({self.segment_expr}); }}")
        else:
            lines.append("bool oclpy_seg = false;")
        return "\n      ".join(lines)

    def _source(self, group: int) -> str:
        decl = "".join(a.declarator() + ", " for a in self.args)
        adjust = offset_adjuster(self.args)
        pragma = precision_pragmas(self.args, (self.dtype,))
        head = (f"{pragma}{self.preamble}\ntypedef {self.ctype} scan_type;\n"
                f"#define OCLPY_SCAN_OP(a, b, across_seg_boundary) ({self.scan_expr})\n"
                f"#define L {group}\n")
        fetch = self._fetch()
        fold = _CHUNK_FOLD.format(neutral=self.neutral, fetch=fetch, name=self.name)
        return head + _STAGES.format(decl=decl, adjust=adjust, neutral=self.neutral, fold=fold,
                                     fetch=fetch, output=self.output_statement, name=self.name)

    def _kernels(self, device: Any) -> tuple[Any, Any, Any, int]:
        built = self._built.get(device)
        if built is None:
            built = self._built.setdefault(device, self._build_kernels(device))
        return built

    def _build_kernels(self, device: Any) -> tuple[Any, Any, Any, int]:
        group = self.group_size(device)
        source = self._source(group)
        return (*(build_kernel(self.context, source, f"{self.name}_{stage}", self.options)
                  for stage in ("stage1", "stage2", "stage3")), group)

    # -- launching ---------------------------------------------------------------------

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        queue, size = kwargs.pop("queue", None), kwargs.pop("size", None)
        wait_for = kwargs.pop("wait_for", None)
        kwargs.pop("allocator", None)
        if kwargs:
            raise TypeError(f"invalid keyword argument(s): {', '.join(sorted(kwargs))}")
        if len(args) != len(self.args):
            raise TypeError(f"{self.name}: expected {len(self.args)} arguments, got {len(args)}")
        first = next((v for v in args if isinstance(v, DeviceArray)), None)
        queue = queue or (first.queue if first is not None else None)
        if queue is None:
            raise ValueError("no queue: pass queue= or an Array argument that has one")
        if size is None:
            if first is None:
                raise ValueError("size= is needed when no argument is an Array")
            size = first.size
        values = kernel_arg_values(self.args, args)
        return self._run(queue, values, int(size), wait_list(args, wait_for))

    def _run(self, queue: Any, values: list[Any], n: int, waits: list[Any]) -> Any:
        if n == 0:
            return cl.enqueue_marker(queue, wait_for=waits or None)
        one, two, three, group = self._kernels(queue.device)
        groups = max(1, min(self.max_groups, -(-n // group)))
        chunk = max(1, -(-n // (groups * group)))
        item = self.dtype.itemsize
        totals = cl.Buffer(self.context, cl.mem_flags.READ_WRITE, groups * item)
        prefix = cl.Buffer(self.context, cl.mem_flags.READ_WRITE, (groups + 1) * item)
        flags = cl.Buffer(self.context, cl.mem_flags.READ_WRITE, 2 * groups)
        sizes = (np.int64(n), np.int64(chunk))
        gsize, lsize = (groups * group,), (group,)
        evt = one(queue, gsize, lsize, *values, *sizes, totals, flags, wait_for=waits or None)
        evt = two(queue, (1,), (1,), *values, np.int64(groups), totals, flags, prefix,
                  wait_for=[evt])
        return three(queue, gsize, lsize, *values, *sizes, prefix, flags, wait_for=[evt])


# Stages 1 and 3: fold this work-item's chunk of the input, then scan the group's folds.
_CHUNK_FOLD = r"""  long first = (long) get_global_id(0) * chunk;
  long last = min(first + chunk, N);
  scan_type acc = {neutral};
  bool accf = false;
  for (long i = first; i < last; ++i)
  {{
    {{
      {fetch}
      OCLPY_COMBINE(acc, accf, oclpy_v, oclpy_seg);
    }}
  }}
  {name}_group_scan(lv, lf, lid, acc, accf);
"""

_STAGES = r"""
#define OCLPY_COMBINE(av, af, bv, bf) {{ av = OCLPY_SCAN_OP(av, bv, bf); af = af || bf; }}

/* The group's inclusive scan of its work-items' partial values, left in lv/lf. */
void {name}_group_scan(__local scan_type *lv, __local uchar *lf, long lid, scan_type acc,
                       bool accf)
{{
  lv[lid] = acc;
  lf[lid] = accf;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (long off = 1; off < L; off *= 2)
  {{
    scan_type tv = lv[lid];
    bool tf = lf[lid];
    if (lid >= off)
    {{
      scan_type pv = lv[lid - off];
      bool pf = lf[lid - off];
      OCLPY_COMBINE(pv, pf, tv, tf);
      tv = pv;
      tf = pf;
    }}
    barrier(CLK_LOCAL_MEM_FENCE);
    lv[lid] = tv;
    lf[lid] = tf;
    barrier(CLK_LOCAL_MEM_FENCE);
  }}
}}

__kernel void {name}_stage1({decl}long N, long chunk, __global scan_type *oclpy_totals,
                           __global uchar *oclpy_flags)
{{
{adjust}
  __local scan_type lv[L];
  __local uchar lf[L];
  long lid = (long) get_local_id(0);
{fold}  if (get_local_id(0) == L - 1)
  {{
    oclpy_totals[get_group_id(0)] = lv[L - 1];
    oclpy_flags[get_group_id(0)] = lf[L - 1];
  }}
}}

__kernel void {name}_stage2({decl}long groups, __global const scan_type *oclpy_totals,
                           __global uchar *oclpy_flags, __global scan_type *oclpy_prefix)
{{
{adjust}
  scan_type acc = {neutral};
  bool accf = false;
  for (long g = 0; g < groups; ++g)
  {{
    oclpy_prefix[g] = acc;
    oclpy_flags[groups + g] = accf;
    scan_type tv = oclpy_totals[g];
    bool tf = oclpy_flags[g];
    OCLPY_COMBINE(acc, accf, tv, tf);
  }}
  oclpy_prefix[groups] = acc;
}}

__kernel void {name}_stage3({decl}long N, long chunk, __global const scan_type *oclpy_prefix,
                           __global const uchar *oclpy_flags)
{{
{adjust}
  __local scan_type lv[L];
  __local uchar lf[L];
  long lid = (long) get_local_id(0);
  long groups = (long) get_num_groups(0);
{fold}  scan_type carry = oclpy_prefix[get_group_id(0)];
  bool carryf = oclpy_flags[groups + get_group_id(0)];
  if (lid > 0)
  {{
    scan_type pv = lv[lid - 1];
    bool pf = lf[lid - 1];
    OCLPY_COMBINE(carry, carryf, pv, pf);
  }}
  const scan_type last_item = oclpy_prefix[groups];
  for (long i = first; i < last; ++i)
  {{
    scan_type prev_item = carry;
    scan_type item;
    {{
      {fetch}
      if (oclpy_seg)
        prev_item = {neutral};
      item = OCLPY_SCAN_OP(carry, oclpy_v, oclpy_seg);
    }}
    carry = item;
    {{
      {output};
    }}
  }}
}}
"""


class GenericDebugScanKernel(GenericScanKernel):
    """The same scan done by one work-item, index by index (PyOpenCL's debugging aid)."""

    max_groups = 1

    def group_size(self, device: Any) -> int:
        return 1


class _LegacyScanKernel(GenericScanKernel):
    output = ""

    def __init__(self, ctx: Any, dtype: Any, scan_expr: str, neutral: str | None = None,
                 name_prefix: str = "scan", options: Any = None, preamble: str = "",
                 devices: Any = None) -> None:
        ctype = kernel_ctype(np.dtype(dtype))
        super().__init__(ctx, dtype, f"__global {ctype} *input_ary, __global {ctype} *output_ary",
                         "input_ary[i]", scan_expr, neutral, self.output, options=options,
                         preamble=preamble, devices=devices, name_prefix=name_prefix)

    def __call__(self, input_ary: Any, output_ary: Any = None, allocator: Any = None,  # type: ignore[override]
                 queue: Any = None, wait_for: Any = None) -> Any:
        queue = queue or input_ary.queue or (output_ary.queue if output_ary is not None else None)
        if output_ary is None:
            output_ary = input_ary
        if isinstance(output_ary, str) and output_ary == "new":
            output_ary = _empty_like(input_ary, allocator)
        if input_ary.shape != output_ary.shape:
            raise ValueError("input and output must have the same shape")
        if not input_ary.flags.forc:
            raise RuntimeError(f"{type(self).__name__} cannot handle non-contiguous arrays")
        if not input_ary.size:
            return output_ary
        evt = GenericScanKernel.__call__(self, input_ary, output_ary, queue=queue,
                                         wait_for=wait_for)
        output_ary.add_event(evt)
        return output_ary


class InclusiveScanKernel(_LegacyScanKernel):
    output = "output_ary[i] = item;"


class ExclusiveScanKernel(_LegacyScanKernel):
    output = "output_ary[i] = prev_item;"


def _empty_like(ary: DeviceArray, allocator: Any) -> Any:
    """A new array of `ary`'s class, shape, dtype and order (oclpy.array.empty_like)."""
    order = "F" if ary.flags.f_contiguous and not ary.flags.c_contiguous else "C"
    return type(ary)(ary.queue or ary.context, ary.shape, ary.dtype, order=order,
                     allocator=allocator or ary.allocator)


def get_inclusive_scan_kernel(ctx: Any, dtype: Any) -> InclusiveScanKernel:
    """A memoized `a+b` InclusiveScanKernel (cumsum's)."""
    return _scan_kernels.get(ctx, ("inclusive_scan", np.dtype(dtype)),
                             lambda: InclusiveScanKernel(ctx, dtype, "a+b", "0"))


__all__ = ["ExclusiveScanKernel", "GenericDebugScanKernel", "GenericScanKernel", "InclusiveScanKernel",
           "get_inclusive_scan_kernel"]
