"""`ElementwiseKernel`: PyOpenCL's one-loop kernel builder (`pyopencl.elementwise`).

`ElementwiseKernel(ctx, "float *x, float a, float *y", "y[i] = a*x[i]")`
generates one OpenCL C kernel whose work-items stride over `i` in
[0, n) (`n`: the size of the first array argument) and run `operation` for
each `i`; `knl(x, 2.0, y)` launches it on the array's queue and returns the
launch's Event. `range=slice(a, b, c)` or `slice=` walk only those indices
(steps may be negative). Pointer arguments are declared with a byte offset,
so Array views with a nonzero `.offset` are passed as they are;
`PYOPENCL_ELWISE_CONTINUE` skips to the next index.

Programs are cached per (context, arguments, operation, name, preamble,
options, ranged or not): `get_elwise_kernel` is the memoized entry point the
array module uses for its own kernels. This module sits below oclpy.array:
it knows arrays as kernelgen's DeviceArray.
"""

from __future__ import annotations

import builtins
import re
import warnings
from typing import Any, Sequence

import numpy as np

import oclpy as cl

from .kernelgen.arguments import (DtypedArgument, ScalarArg, VectorArg, offset_adjuster, parse_arg_list,
                                  precision_pragmas)
from .kernelgen.launch import call_queue, kernel_arg_values, launch_size, wait_list
from .kernelgen.programs import ContextCache, build_kernel

_elwise_kernels = ContextCache()


def _loop(use_range: bool) -> str:
    if not use_range:
        return ("  for (long i = (long) get_global_id(0); i < n; i += gsize)\n  {\n"
                "    OPERATION;\n  }\n")
    return ("  if (step < 0)\n  {\n"
            "    for (long i = start + (long) get_global_id(0) * step; i > stop; i += gsize * step)\n"
            "    {\n      OPERATION;\n    }\n  }\n  else\n  {\n"
            "    for (long i = start + (long) get_global_id(0) * step; i < stop; i += gsize * step)\n"
            "    {\n      OPERATION;\n    }\n  }\n")


def elwise_source(args: Sequence[DtypedArgument], operation: str, name: str, preamble: str,
                  use_range: bool, loop_prep: str = "", after_loop: str = "") -> str:
    """The OpenCL C source of an elementwise kernel (the appended n/start/stop/step included)."""
    extra = ("long start, long stop, long step" if use_range else "long n")
    decls = ", ".join([*(a.declarator() for a in args), extra])
    pragma = precision_pragmas(args, (), operation + preamble)
    loop = _loop(use_range).replace("OPERATION", operation)
    return (f"{pragma}{preamble}\n#define PYOPENCL_ELWISE_CONTINUE continue\n\n"
            f"__kernel void {name}({decls})\n{{\n{offset_adjuster(args)}\n"
            f"  long gsize = (long) get_global_size(0);\n  {loop_prep};\n{loop}  {after_loop};\n}}\n")


class ElementwiseKernel:
    """PyOpenCL's ElementwiseKernel: `knl(*args, range=None, slice=None, queue=None, wait_for=None)`."""

    def __init__(self, context: Any, arguments: Any, operation: str, name: str = "elwise_kernel",
                 options: Any = None, preamble: str = "", **kwargs: Any) -> None:
        unknown = set(kwargs) - {"loop_prep", "after_loop", "auto_preamble"}
        if unknown:
            raise TypeError(f"unknown keyword arguments: {', '.join(sorted(unknown))}")
        self.context = context
        self.name = name
        self.operation = operation
        self.preamble = preamble
        self.options = options
        self._kernels: dict[bool, Any] = {}
        self.loop_prep = kwargs.get("loop_prep", "")
        self.after_loop = kwargs.get("after_loop", "")
        self.args = parse_arg_list(arguments, with_offset=True)
        self.args = [VectorArg(a.dtype, a.name, a.address_space == "__global", a.address_space,
                               a.const) if isinstance(a, VectorArg) else a for a in self.args]
        if not any(isinstance(a, VectorArg) for a in self.args):
            raise ValueError("ElementwiseKernel can only be used with functions that have at "
                             "least one vector argument")
        if re.search(r"\breturn\b", operation):
            warnings.warn("Using a 'return' statement in an element-wise operation will likely "
                          "lead to incorrect results. Use PYOPENCL_ELWISE_CONTINUE instead.",
                          stacklevel=2)

    def get_kernel(self, use_range: bool) -> tuple[Any, list[DtypedArgument]]:
        kernel = self._kernels.get(use_range)
        if kernel is None:
            source = elwise_source(self.args, self.operation, self.name, self.preamble, use_range,
                                   self.loop_prep, self.after_loop)
            kernel = self._kernels.setdefault(use_range,
                                              build_kernel(self.context, source, self.name, self.options))
        return kernel, self.args

    def __call__(self, *args: Any, range: builtins.slice | None = None,  # noqa: A002
                 slice: builtins.slice | None = None, queue: Any = None,  # noqa: A002
                 wait_for: Any = None, **kwargs: Any) -> Any:
        if kwargs:
            raise TypeError(f"unknown keyword arguments: '{', '.join(kwargs)}'")
        queue, repr_vec = call_queue(self.name, self.args, args, queue)
        if range is not None and slice is not None:
            raise TypeError("may not specify both range and slice keyword arguments")
        if slice is not None:
            if repr_vec is None:
                raise ValueError("slice= needs an Array argument to give the size")
            range = builtins.slice(*slice.indices(repr_vec.size))
        return self._launch(queue, args, range, repr_vec, wait_for)

    def _launch(self, queue: Any, args: Sequence[Any], rng: builtins.slice | None,
                repr_vec: Any, wait_for: Any) -> Any:
        kernel, _ = self.get_kernel(rng is not None)
        values = kernel_arg_values(self.args, args)
        if rng is None:
            if repr_vec is None:
                raise ValueError("range= is needed when no argument is an Array")
            count = repr_vec.size
            values.append(np.int64(count))
        else:
            start = 0 if rng.start is None else rng.start
            step = 1 if rng.step is None else rng.step
            if step == 0:
                raise ValueError("range step must not be zero")
            count = max(0, -(-(rng.stop - start) // step))
            values.extend((np.int64(start), np.int64(rng.stop), np.int64(step)))
        waits = wait_list(args, wait_for)
        if count == 0:
            return cl.enqueue_marker(queue, wait_for=waits or None)
        gsize, lsize = launch_size(queue, count)
        return kernel(queue, gsize, lsize, *values, wait_for=waits or None)


def get_elwise_kernel(context: Any, arguments: Any, operation: str, name: str = "elwise_kernel",
                      preamble: str = "", options: Any = None) -> ElementwiseKernel:
    """A memoized ElementwiseKernel (per context and text)."""
    key = (str(arguments), operation, name, preamble, str(options))
    return _elwise_kernels.get(context, key, lambda: ElementwiseKernel(context, arguments, operation,
                                                                       name, options, preamble))


__all__ = ["ElementwiseKernel", "ScalarArg", "VectorArg", "elwise_source", "get_elwise_kernel",
           "launch_size"]
