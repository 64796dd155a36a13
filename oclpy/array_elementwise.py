"""Elementwise `+`, `-` and `*` for `oclpy.array.Array` (what PyOpenCL's tests use to
compare device results, e.g. `dest - (a + b)` in its `test_spirv`).

An operation takes two arrays of one shape and dtype, or an array and a
scalar, and runs a generated OpenCL C kernel (built once per source through
the runtime's build cache) on the first operand's queue after both operands'
pending events; the result is a new Array carrying the launch's event.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

_C_TYPES = {np.dtype(k): v for k, v in (
    ("int8", "char"), ("uint8", "uchar"), ("int16", "short"), ("uint16", "ushort"),
    ("int32", "int"), ("uint32", "uint"), ("int64", "long"), ("uint64", "ulong"),
    ("float32", "float"), ("float64", "double"))}
_OPS = ("+", "-", "*")


def _source(ctype: str, op: str, scalar: bool, reverse: bool) -> str:
    b = "b" if scalar else "b[i]"
    lhs, rhs = (b, "a[i]") if reverse else ("a[i]", b)
    b_param = f"{ctype} b" if scalar else f"__global const {ctype} *b"
    pragma = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" if ctype == "double" else ""
    return (f"{pragma}__kernel void elementwise(__global {ctype} *out, __global const {ctype} *a, "
            f"{b_param}, ulong n)\n{{\n    size_t i = get_global_id(0);\n"
            f"    if (i < n) out[i] = {lhs} {op} {rhs};\n}}\n")


def binary(op: str, reverse: bool = False) -> Callable[[Any, Any], Any]:
    """The Array method for `op` (`reverse`: the array is the right operand)."""
    if op not in _OPS:
        raise ValueError(f"no elementwise operator '{op}'")

    def apply(self: Any, other: Any) -> Any:
        from . import Program
        from .array import Array, empty_like

        ctype = _C_TYPES.get(self.dtype)
        scalar = not isinstance(other, Array)
        if ctype is None:
            raise TypeError(f"elementwise '{op}' on {self.dtype} arrays is not supported")
        if not scalar and (other.shape != self.shape or other.dtype != self.dtype):
            raise ValueError(f"operands differ: {self.shape} {self.dtype} and {other.shape} {other.dtype}")
        if scalar and not np.isscalar(other):
            return NotImplemented
        result = empty_like(self)
        if not self.size:
            return result
        knl = Program(self.context, _source(ctype, op, scalar, reverse)).build().elementwise
        b = self.dtype.type(other) if scalar else other.base_data
        waits = [*self.events, *([] if scalar else other.events)]
        evt = knl(self.queue, (self.size,), None, result.base_data, self.base_data, b,
                  np.uint64(self.size), wait_for=waits)
        result.add_event(evt)
        return result

    return apply
