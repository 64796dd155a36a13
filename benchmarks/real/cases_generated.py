"""Compiler-generated kernels: PyOpenCL's ElementwiseKernel output (a linear combination).

The host calls it as PyOpenCL's generated wrapper does: buffers with byte
offsets, n as a long, a grid-stride loop over a fixed number of work-groups.
"""

from __future__ import annotations

import numpy as np

from . import sources as src
from .case import Launch, RealCase

F32, I64 = np.float32, np.int64


def make_lin_comb(small: bool) -> RealCase:
    n = 10_000 if small else 1 << 24
    r = np.random.default_rng(61)
    x, y = r.standard_normal(n, dtype=F32), r.standard_normal(n, dtype=F32)
    args = (F32(2.0), "x", I64(0), F32(-0.5), "y", I64(0), "z", I64(0), I64(n))
    launch = Launch("lin_comb", args, (64 * 128,), (128,))
    return RealCase("pyopencl_lin_comb", "pyopencl-generated", "compiler-generated",
                    src.read("pyopencl-generated", "lin_comb.cl"), "",
                    {"x": x, "y": y, "z": np.zeros(n, F32)}, ("z",), (launch,), f"n={n}",
                    lambda v: {"z": F32(2.0) * v["x"] + F32(-0.5) * v["y"]})
