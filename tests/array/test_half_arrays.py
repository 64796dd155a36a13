"""float16 arrays through the generated kernels: elementwise operations, reductions, scans
and clmath enable cl_khr_fp16 themselves (`kernelgen.arguments.precision_pragmas`), so a
half kernel they write compiles under the pragma's rules; results as NumPy's float16."""

from __future__ import annotations

import numpy as np

import oclpy.array as cl_array
import oclpy.clmath as clmath
from oclpy.kernelgen.arguments import FP16_PRAGMA, FP64_PRAGMA, ScalarArg, VectorArg, precision_pragmas
from oclpy.scan import InclusiveScanKernel


def test_float16_arithmetic_reductions_and_scans(ctx, queue) -> None:  # type: ignore[no-untyped-def]
    host = (np.arange(40, dtype=np.float32) / 8).astype(np.float16)
    a = cl_array.to_device(queue, host)
    assert np.array_equal((a * 3 + a).get(), host * np.float16(3) + host)
    assert cl_array.max(a).get() == host.max()
    assert cl_array.sum(a).get() == host.astype(np.float32).sum()
    scan = InclusiveScanKernel(ctx, np.float16, "a+b", neutral="0")
    assert np.array_equal(scan(a.copy()).get(), np.cumsum(host, dtype=np.float16))
    np.testing.assert_allclose(clmath.sin(a).get().astype(np.float64), np.sin(host.astype(np.float64)),
                               atol=2 ** -11, rtol=2 ** -10)


def test_precision_pragmas_follow_the_types_and_the_text() -> None:
    half, double = VectorArg(np.float16, "h"), ScalarArg(np.float64, "d")
    assert precision_pragmas([half]) == FP16_PRAGMA
    assert precision_pragmas([double, half]) == FP64_PRAGMA + FP16_PRAGMA
    assert precision_pragmas([], (np.float32,), "out[i] = (half)x[i]") == FP16_PRAGMA
    assert precision_pragmas([], (np.dtype([("a", np.float64)]),)) == FP64_PRAGMA
    assert precision_pragmas([VectorArg(np.float32, "f")], (np.int32,), "out[i] = x[i]") == ""
