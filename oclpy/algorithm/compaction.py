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

from typing import Any, Sequence

import numpy as np

from .lists import BuiltList, ListOfListsBuilder
from .. import cltypes
from ..array.core import Array, empty, empty_like, zeros
from ..elementwise import ElementwiseKernel
from ..kernelgen.arguments import DtypedArgument, ScalarArg, VectorArg, parse_arg_list
from ..kernelgen.dtypes import kernel_ctype
from ..kernelgen.programs import ContextCache
from ..scan import GenericScanKernel

__all__ = ["BuiltList", "KeyValueSorter", "ListOfListsBuilder", "RadixSort", "copy_if", "partition",
           "remove_if", "unique"]

_COMPACT_OUTPUT = """
  if (prev_item != item) out[item - 1] = ary[i];
  if (i + 1 == N) *count = item;
"""

_PARTITION_OUTPUT = """
  if (prev_item != item) out_true[item - 1] = ary[i];
  else out_false[i - item] = ary[i];
  if (i + 1 == N) *count = item;
"""

scan_kernels = ContextCache()  # the scan kernels of copy_if, remove_if, partition and unique


def _extra_args(extra_args: Sequence[tuple[str, Any]] | None
                ) -> tuple[list[DtypedArgument], list[Any], list[Any]]:
    """(argument declarations, values, events to wait for) of PyOpenCL's `extra_args`."""
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

    def make() -> GenericScanKernel:
        args: list[Any] = [VectorArg(item, name) for name in arrays]
        args.append(VectorArg(scan, "count"))
        aliases = f"typedef {kernel_ctype(item)} item_t;\ntypedef {kernel_ctype(scan)} scan_t;\n"
        return GenericScanKernel(ary.context, scan, args + extra, input_expr=input_expr,
                                 scan_expr="a+b", neutral="0", output_statement=output,
                                 input_fetch_exprs=list(fetches), preamble=preamble + "\n" + aliases,
                                 name_prefix="oclpy_algorithm")

    return scan_kernels.get(ary.context, key, make)


def _count(ary: Any, queue: Any) -> Any:
    return empty(queue or ary.queue, (), _scan_dtype(ary))


def _compact(ary: Any, input_expr: str, extra_args: Any, preamble: str, queue: Any, wait_for: Any,
             fetches: Sequence[tuple[str, str, int]] = ()) -> tuple[Any, Any, Any]:
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


# -- RadixSort ----------------------------------------------------------------------------

_RADIX_PREAMBLE = """
typedef {key} oclpy_key_t;
typedef {count} oclpy_count_t;
typedef {count}{buckets} oclpy_counts_t;
#define OCLPY_RADIX_DIGIT ((uint) ((((oclpy_key_t) ({key_expr})) >> base_bit) & {mask}))
inline oclpy_counts_t oclpy_radix_onehot(uint d)
{{
  oclpy_count_t c[{buckets}];
  for (uint k = 0; k < {buckets}; ++k) c[k] = (k == d);
  return vload{buckets}(0, c);
}}
"""

# Element i goes to (elements of smaller digits) + (its rank among equal digits).
_RADIX_OUTPUT = """
  uint d = OCLPY_RADIX_DIGIT;
  oclpy_count_t counts[{buckets}], totals[{buckets}];
  vstore{buckets}(item, 0, counts);
  vstore{buckets}(last_item, 0, totals);
  oclpy_count_t pos = counts[d] - 1;
  for (uint k = 0; k < d; ++k) pos += totals[k];
  {scatter}
"""


class RadixSort:
    """PyOpenCL's RadixSort: a stable LSD radix sort of the arrays `sort_arg_names`
    by the unsigned key `key_expr` (of `i` and `arguments`), `bits_at_a_time` bits
    per pass, each pass one GenericScanKernel over per-digit counts (a vector of
    2**bits_at_a_time counts). `sorter(*args, key_bits=None, allocator=None,
    queue=None, wait_for=None)` -> (sorted arrays in `sort_arg_names` order, event)."""

    def __init__(self, context: Any, arguments: Any, key_expr: str, sort_arg_names: Sequence[str],
                 bits_at_a_time: int = 2, index_dtype: Any = np.int32, key_dtype: Any = np.uint32,
                 scan_kernel: Any = GenericScanKernel, options: Any = None) -> None:
        if bits_at_a_time not in (1, 2, 3, 4):
            raise ValueError(f"RadixSort: bits_at_a_time must be 1 to 4, not {bits_at_a_time}")
        self.context, self.bits = context, bits_at_a_time
        self.key_dtype, self.index_dtype = np.dtype(key_dtype), np.dtype(index_dtype)
        self.arguments = parse_arg_list(arguments)
        names = {a.name: a for a in self.arguments}
        missing = [n for n in sort_arg_names if not isinstance(names.get(n), VectorArg)]
        if missing:
            raise ValueError(f"RadixSort: sort argument '{missing[0]}' is not a pointer argument")
        self.sort_arg_names = list(sort_arg_names)
        buckets = 1 << bits_at_a_time
        fmt = dict(key=kernel_ctype(self.key_dtype), count=kernel_ctype(self.index_dtype),
                   buckets=buckets, mask=buckets - 1, key_expr=key_expr)
        scatter = " ".join(f"sorted_{n}[pos] = {n}[i];" for n in self.sort_arg_names)
        outputs = [VectorArg(names[n].dtype, f"sorted_{n}") for n in self.sort_arg_names]
        self.scan = scan_kernel(context, cltypes.vec_types[self.index_dtype, buckets],
                                [*self.arguments, *outputs, ScalarArg(np.dtype(np.int32), "base_bit")],
                                input_expr="oclpy_radix_onehot(OCLPY_RADIX_DIGIT)", scan_expr="a+b",
                                neutral="0", output_statement=_RADIX_OUTPUT.format(scatter=scatter, **fmt),
                                preamble=_RADIX_PREAMBLE.format(**fmt), name_prefix="oclpy_radix",
                                options=options)

    def __call__(self, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        key_bits = kwargs.pop("key_bits", None) or self.key_dtype.itemsize * 8
        queue, wait_for = kwargs.pop("queue", None), kwargs.pop("wait_for", None)
        kwargs.pop("allocator", None)
        if kwargs:
            raise TypeError(f"invalid keyword argument(s): {', '.join(sorted(kwargs))}")
        if len(args) != len(self.arguments):
            raise TypeError(f"RadixSort: expected {len(self.arguments)} arguments, got {len(args)}")
        values = dict(zip((a.name for a in self.arguments), args))
        sorted_in = [values[n] for n in self.sort_arg_names]
        if not all(isinstance(a, Array) for a in sorted_in):
            raise TypeError("RadixSort: the sort arguments must be oclpy.array.Array objects")
        queue = queue or sorted_in[0].queue
        n = sorted_in[0].size
        current = list(sorted_in)
        evt = None
        waits = list(wait_for or [])
        for base_bit in range(0, key_bits, self.bits):
            outs = [empty_like(a, queue=queue) for a in current]
            values.update(zip(self.sort_arg_names, current))
            evt = self.scan(*values.values(), *outs, np.int32(base_bit), queue=queue, size=n,
                            wait_for=waits or None)
            waits = [evt]
            current = outs
        return tuple(current), evt


# -- KeyValueSorter -----------------------------------------------------------------------

# starts[k] = the first position whose key is >= k, for k in [0, nkeys].
_STARTS = """
  long prev = (i == 0) ? -1 : (long) keys[i - 1];
  for (long k = prev + 1; k <= (long) keys[i]; ++k) starts[k] = i;
  if (i + 1 == count) for (long k = (long) keys[i] + 1; k <= nkeys; ++k) starts[k] = count;
"""


class KeyValueSorter:
    """PyOpenCL's KeyValueSorter: `kvs(queue, keys, values, nkeys, starts_dtype,
    allocator=None, wait_for=None)` -> (starts, lists, event): `lists` holds the
    values grouped by key (keys in [0, nkeys)), those of key k at
    lists[starts[k]:starts[k+1]]."""

    def __init__(self, context: Any) -> None:
        self.context = context
        self._kernels: dict[tuple, tuple[RadixSort, Any]] = {}

    def _get_kernels(self, key: np.dtype, value: np.dtype, starts: np.dtype) -> tuple[RadixSort, Any]:
        found = self._kernels.get((key, value, starts))
        if found is None:
            k, v, s = kernel_ctype(key), kernel_ctype(value), kernel_ctype(starts)
            sort = RadixSort(self.context, f"{k} *keys, {v} *values", key_expr="keys[i]",
                             sort_arg_names=["keys", "values"], key_dtype=key)
            starts_knl = ElementwiseKernel(self.context, f"{k} *keys, {s} *starts, long nkeys, long count",
                                           _STARTS, name="oclpy_kvs_starts")
            found = self._kernels.setdefault((key, value, starts), (sort, starts_knl))
        return found

    def __call__(self, queue: Any, keys: Any, values: Any, nkeys: int, starts_dtype: Any,
                 allocator: Any = None, wait_for: Any = None) -> tuple[Any, Any, Any]:
        if keys.shape != values.shape or keys.ndim != 1:
            raise ValueError("KeyValueSorter: keys and values must be 1-d arrays of one length")
        if keys.dtype.kind not in "iu":
            raise ValueError(f"KeyValueSorter: keys must be integers, not {keys.dtype}")
        starts_dtype = np.dtype(starts_dtype)
        sort, starts_knl = self._get_kernels(keys.dtype, values.dtype, starts_dtype)
        key_bits = max(1, int(np.ceil(np.log2(max(nkeys, 2)))))
        (sorted_keys, lists), evt = sort(keys, values, key_bits=key_bits, queue=queue, wait_for=wait_for)
        starts = zeros(queue, (nkeys + 1,), starts_dtype)
        if keys.size:
            evt = starts_knl(sorted_keys, starts, np.int64(nkeys), np.int64(keys.size), queue=queue)
        return starts, lists, evt
