"""Running OpenCL C kernels for the spec-section tests.

`KernelRunner(ctx)(source, name, global_size, local_size, *args)` builds
`source` with the public API, copies NumPy arrays into buffers, runs kernel
`name` and returns the arrays read back (scalars pass through).
`ulp_error` measures a float32/float64 result against a wider reference.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

import oclpy as cl


def device_context() -> Any:
    """A context on the device under test: OCLPY_DEVICE's kind (cpu, cuda, simt), else the cpu."""
    return cl.create_some_context(interactive=False)


class KernelRunner:
    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        self.queue = cl.CommandQueue(ctx)

    def build(self, source: str, options: str = "") -> Any:
        return _build(self.ctx, source, options)

    def __call__(self, source: str, name: str, global_size: tuple[int, ...],
                 local_size: tuple[int, ...] | None, *args: Any, options: str = "") -> list[np.ndarray]:
        program = self.build(source, options)
        mf = cl.mem_flags
        buffers, call_args = [], []
        for arg in args:
            if isinstance(arg, np.ndarray):
                buf = cl.Buffer(self.ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=arg)
                buffers.append((buf, arg))
                call_args.append(buf)
            else:
                call_args.append(arg)
        getattr(program, name)(self.queue, global_size, local_size, *call_args).wait()
        for buf, arr in buffers:
            cl.enqueue_copy(self.queue, arr, buf)
        self.queue.finish()
        return [arr for _, arr in buffers]


@lru_cache(maxsize=64)
def _build(ctx: Any, source: str, options: str) -> Any:
    return cl.Program(ctx, source).build(options=options)


def ulp_error(got: np.ndarray, ref: np.ndarray, dtype: Any) -> np.ndarray:
    """|got - ref| in units of the last place of `dtype` at ref (0 where both
    are the same NaN/inf; inf where exactly one is non-finite or they differ)."""
    got = np.asarray(got, dtype=np.longdouble)
    ref = np.asarray(ref, dtype=np.longdouble)
    info = np.finfo(dtype)
    both_nan = np.isnan(got) & np.isnan(ref)
    same_inf = np.isinf(got) & np.isinf(ref) & (np.sign(got) == np.sign(ref))
    rounded = ref.astype(dtype)
    # ulp of the reference's binade (ulp(2^k) is the spacing above 2^k)
    mag = np.abs(ref)
    exp = np.floor(np.log2(np.where(mag > 0, mag, 1)))
    exp = np.maximum(exp, info.minexp)
    ulp = np.ldexp(np.longdouble(1), (exp - info.nmant).astype(int))
    with np.errstate(invalid="ignore"):
        err = np.abs(got - ref) / ulp
    err = np.where(np.isinf(rounded) & np.isinf(got) & (np.sign(got) == np.sign(ref)), 0, err)
    err = np.where(both_nan | same_inf, 0, err)
    return np.where(np.isnan(err), np.inf, err).astype(np.float64)
