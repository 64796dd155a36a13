"""PyOpenCL's `pyopencl.bitonic_sort.BitonicSort`: an in-place sort of a device
array along one axis, optionally carrying an index array along (argsort).

A bitonic sorting network over n = 2**m keys runs m(m+1)/2 compare-exchange
stages. Stage (k, j) (k = 2, 4, ..., n; j = k/2, ..., 1) pairs position
i = 2j*floor(p/j) + p%j with i + j for p < n/2, and puts the pair in
ascending order when `i & k` is 0, descending otherwise. Each stage is one
launch of n/2 work-items per line of the axis; the array is seen as
(outer, n, inner) around the axis, so any axis of a C-contiguous array sorts
without copies. The kernel is built once per (context, key type, index type).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import oclpy as cl

from .kernelgen.dtypes import kernel_ctype
from .kernelgen.programs import build_kernel

_SOURCE = """{pragma}
__kernel void oclpy_bitonic_stage(__global {key} *keys, __global {idx} *idx, long n_half, long inner,
                                  long k, long j)
{{
  long t = get_global_id(0);
  long q = t % inner, rest = t / inner;
  long p = rest % n_half, line = rest / n_half;
  long i = 2 * j * (p / j) + p % j;
  long base = line * 2 * n_half * inner + q;
  long a = base + i * inner, b = base + (i + j) * inner;
  {key} ka = keys[a], kb = keys[b];
  bool ascending = (i & k) == 0;
  if ((kb < ka) == ascending && ka != kb) {{
    keys[a] = kb; keys[b] = ka;
    {swap_idx}
  }}
}}
"""


class BitonicSort:
    """`sorter(arr, idx=None, queue=None, wait_for=None, axis=0)` -> (arr, event):
    sorts `arr` in place along `axis` (whose length must be a power of two);
    `idx`, when given, is permuted alongside (for an argsort)."""

    def __init__(self, context: Any) -> None:
        self.context = context

    def _kernel(self, key: np.dtype, idx: np.dtype | None) -> Any:
        swap = f"{kernel_ctype(idx)} ia = idx[a]; idx[a] = idx[b]; idx[b] = ia;" if idx is not None else ""
        wide = key == np.float64
        source = _SOURCE.format(pragma="#pragma OPENCL EXTENSION cl_khr_fp64 : enable" if wide else "",
                                key=kernel_ctype(key), idx=kernel_ctype(idx if idx is not None else key),
                                swap_idx=swap)
        return build_kernel(self.context, source, "oclpy_bitonic_stage", None)

    def __call__(self, arr: Any, idx: Any = None, queue: Any = None, wait_for: Any = None,
                 axis: int = 0) -> tuple[Any, Any]:
        queue = queue or arr.queue
        shape = tuple(arr.shape)
        axis = _check(arr, idx, shape, axis)
        n = shape[axis] if shape else 1
        waits = [*(wait_for or []), *arr.events, *(idx.events if idx is not None else [])]
        if arr.size == 0 or n < 2:
            return arr, cl.enqueue_marker(queue, wait_for=waits or None)
        inner = int(np.prod(shape[axis + 1:], dtype=np.int64))
        knl = self._kernel(arr.dtype, idx.dtype if idx is not None else None)
        gsize = arr.size // 2
        idx_buf = idx.base_data if idx is not None else arr.base_data
        evt = None
        k = 2
        while k <= n:
            j = k // 2
            while j >= 1:
                evt = knl(queue, (gsize,), None, arr.base_data, idx_buf, np.int64(n // 2), np.int64(inner),
                          np.int64(k), np.int64(j), wait_for=waits or None)
                waits = [evt]
                j //= 2
            k *= 2
        arr.add_event(evt)
        if idx is not None:
            idx.add_event(evt)
        return arr, evt


def _check(arr: Any, idx: Any, shape: tuple[int, ...], axis: int) -> int:
    """The axis, made non-negative; ValueError for what the sort cannot do."""
    if shape and not -len(shape) <= axis < len(shape):
        raise ValueError(f"BitonicSort: axis {axis} out of range for an array of {len(shape)} dimensions")
    axis = axis % len(shape) if shape else 0
    n = shape[axis] if shape else 1
    if n & (n - 1):
        raise ValueError(f"BitonicSort: the length along the axis ({n}) must be a power of two")
    if not arr.flags.c_contiguous or arr.offset:
        raise ValueError("BitonicSort: the array must be C-contiguous and start at its buffer's start")
    if arr.dtype.kind not in "iuf":
        raise ValueError(f"BitonicSort: cannot sort dtype {arr.dtype}")
    if idx is not None and (tuple(idx.shape) != shape or not idx.flags.c_contiguous or idx.offset):
        raise ValueError("BitonicSort: idx must be a C-contiguous array of the keys' shape")
    return axis
