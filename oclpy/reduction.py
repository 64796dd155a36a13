"""`ReductionKernel`: PyOpenCL's map-reduce kernel builder (`pyopencl.reduction`).

`ReductionKernel(ctx, np.float32, neutral="0", reduce_expr="a+b",
map_expr="x[i]*y[i]", arguments="float *x, float *y")` generates a two-stage
reduction (kernelgen/reduce.py says how it runs). The call returns a 0-d
Array (`.get()` gives the value), or `(array, event)` with
`return_event=True`; the result is an `oclpy.array.Array` even when every
argument is a Buffer.
"""

from __future__ import annotations

from typing import Any

from .array import empty
from .kernelgen.arguments import ScalarArg, VectorArg
from .kernelgen.launch import DeviceArray
from .kernelgen.reduce import MapReduceKernel


class ReductionKernel(MapReduceKernel):
    """PyOpenCL's ReductionKernel; `knl(*args, queue=, wait_for=, return_event=, range=, slice=, out=)`."""

    def new_result(self, queue: Any, allocator: Any, repr_vec: DeviceArray | None) -> Any:
        return empty(queue, (), self.dtype_out, allocator=allocator)


__all__ = ["ReductionKernel", "ScalarArg", "VectorArg"]
