"""Stream compaction on device arrays: PyOpenCL's `pyopencl.algorithm` `copy_if`,
`remove_if`, `partition` and `unique`.

Each is one `oclpy.scan.GenericScanKernel`: the input expression is 1 for an
element that is kept (the predicate holds; for `unique`, the element differs
from its predecessor) and 0 otherwise, the scan adds them, and the output
statement writes element `i` to position `item - 1` when its flag is set
(`prev_item != item`); the last work-item writes the count to an on-device
scalar. The count type is uint32, or uint64 for arrays longer than 2**32 - 1,
as in PyOpenCL.

The scan kernels are built once per (context, element type, expression,
preamble, extra argument types) and kept. `extra_args` are `(name, value)`
pairs: a device `Array` becomes a `__global` pointer named `name`, a NumPy
scalar a by-value argument, as in PyOpenCL.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, Sequence

import numpy as np

from .kernel_args import DtypedArgument, ScalarArg, VectorArg, kernel_ctype
from .scan import GenericScanKernel

_COMPACT_OUTPUT = """
  if (prev_item != item) out[item - 1] = ary[i];
  if (i + 1 == N) *count = item;
"""

_PARTITION_OUTPUT = """
  if (prev_item != item) out_true[item - 1] = ary[i];
  else out_false[i - item] = ary[i];
  if (i + 1 == N) *count = item;
"""

_kernels: "weakref.WeakKeyDictionary[Any, dict[tuple, GenericScanKernel]]" = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def _extra_args(extra_args: Sequence[tuple[str, Any]] | None
                ) -> tuple[list[DtypedArgument], list[Any], list[Any]]:
    """(argument declarations, values, events to wait for) of PyOpenCL's `extra_args`."""
    from .array import Array

    decls: list[DtypedArgument] = []
    values: list[Any] = []
    waits: list[Any] = []
    for name, value in extra_args or []:
        if isinstance(value, Array):
            decls.append(VectorArg(value.dtype, name, with_offset=False))
            waits.extend(getattr(value, "events", []) or [])
        elif isinstance(value, np.generic):
            decls.append(ScalarArg(value.dtype, name))
        else:
            raise RuntimeError(f"argument '{name}' not understood")
        values.append(value)
    return decls, values, waits


def _scan_dtype(ary: Any) -> np.dtype:
    return np.dtype(np.uint64 if ary.size > np.iinfo(np.uint32).max else np.uint32)


def _scan_kernel(ary: Any, arrays: Sequence[str], input_expr: str, output: str, preamble: str,
                 extra: list[DtypedArgument], fetches: Sequence[tuple[str, str, int]] = ()
                 ) -> GenericScanKernel:
    """The (kept) scan kernel over `ary`'s elements with pointer arguments `arrays`."""
    item, scan = ary.dtype, _scan_dtype(ary)
    key = (item, scan, tuple(arrays), input_expr, output, preamble,
           tuple((type(a).__name__, a.dtype, a.name) for a in extra), tuple(fetches))
    with _lock:
        per_context = _kernels.setdefault(ary.context, {})
        knl = per_context.get(key)
        if knl is None:
            args: list[Any] = [VectorArg(item, name) for name in arrays]
            args.append(VectorArg(scan, "count"))
            aliases = f"typedef {kernel_ctype(item)} item_t;\ntypedef {kernel_ctype(scan)} scan_t;\n"
            knl = GenericScanKernel(ary.context, scan, args + extra, input_expr=input_expr,
                                    scan_expr="a+b", neutral="0", output_statement=output,
                                    input_fetch_exprs=list(fetches), preamble=preamble + "\n" + aliases,
                                    name_prefix="oclpy_algorithm")
            per_context[key] = knl
    return knl


def _count(ary: Any, queue: Any) -> Any:
    from .array import empty

    return empty(queue or ary.queue, (), _scan_dtype(ary))


def _compact(ary: Any, input_expr: str, extra_args: Any, preamble: str, queue: Any, wait_for: Any,
             fetches: Sequence[tuple[str, str, int]] = ()) -> tuple[Any, Any, Any]:
    from .array import empty_like

    decls, values, waits = _extra_args(extra_args)
    knl = _scan_kernel(ary, ("ary", "out"), input_expr, _COMPACT_OUTPUT, preamble, decls, fetches)
    out = empty_like(ary, queue=queue or ary.queue)
    count = _count(ary, queue)
    evt = knl(ary, out, count, *values, queue=queue or ary.queue, wait_for=[*(wait_for or []), *waits])
    return out, count, evt


def copy_if(ary: Any, predicate: str, extra_args: Sequence[tuple[str, Any]] | None = None,
            preamble: str = "", queue: Any = None, wait_for: Any = None) -> tuple[Any, Any, Any]:
    """(out, count, event): the elements `ary[i]` for which `predicate` holds, in order,
    at the start of `out` (as long as `ary`); `count` is an on-device scalar."""
    return _compact(ary, f"({predicate}) ? 1 : 0", extra_args, preamble, queue, wait_for)


def remove_if(ary: Any, predicate: str, extra_args: Sequence[tuple[str, Any]] | None = None,
              preamble: str = "", queue: Any = None, wait_for: Any = None) -> tuple[Any, Any, Any]:
    """(out, count, event): the elements for which `predicate` does not hold."""
    return copy_if(ary, f"!({predicate})", extra_args, preamble, queue, wait_for)


def partition(ary: Any, predicate: str, extra_args: Sequence[tuple[str, Any]] | None = None,
              preamble: str = "", queue: Any = None, wait_for: Any = None
              ) -> tuple[Any, Any, Any, Any]:
    """(out_true, out_false, count_true, event): the elements split by `predicate`,
    each part in its original order."""
    from .array import empty_like

    decls, values, waits = _extra_args(extra_args)
    knl = _scan_kernel(ary, ("ary", "out_true", "out_false"), f"({predicate}) ? 1 : 0",
                       _PARTITION_OUTPUT, preamble, decls)
    q = queue or ary.queue
    out_true, out_false = empty_like(ary, queue=q), empty_like(ary, queue=q)
    count = _count(ary, queue)
    evt = knl(ary, out_true, out_false, count, *values, queue=q, wait_for=[*(wait_for or []), *waits])
    return out_true, out_false, count, evt


def unique(ary: Any, is_equal_expr: str = "a == b", extra_args: Sequence[tuple[str, Any]] | None = None,
           preamble: str = "", queue: Any = None, wait_for: Any = None) -> tuple[Any, Any, Any]:
    """(out, count, event): the elements that `is_equal_expr` (of `a`, the predecessor,
    and `b`) does not call equal to their predecessor, like the Unix `uniq`."""
    equal = f"#define OCLPY_IS_EQUAL(a, b) ({is_equal_expr})\n"
    fetches = [("ary_im1", "ary", -1), ("ary_i", "ary", 0)]
    return _compact(ary, "(i == 0) || (OCLPY_IS_EQUAL(ary_im1, ary_i) ? 0 : 1)", extra_args,
                    preamble + "\n" + equal, queue, wait_for, fetches)
