"""OpenCL C 6.15.2 / 7.4: single-precision `sqrt` within 3 ulp, and correctly rounded under
-cl-fp32-correctly-rounded-divide-sqrt, on a dense sample of every binade: every 509th
bit pattern of the non-negative floats (subnormals, +0, +inf included) plus the negative
ones that must give NaN. The reference is NumPy's correctly rounded double sqrt."""

from __future__ import annotations

import numpy as np
import pytest

from .harness import ulp_error

SOURCE = """__kernel void root(__global const float *x, __global float *out) {
  size_t i = get_global_id(0);
  out[i] = sqrt(x[i]);
}"""


def _inputs() -> np.ndarray:
    bits = np.arange(0, 0x7F800001, 509, dtype=np.uint32)
    bits = np.concatenate([bits, [0x7F800000, 0x00000001, 0x007FFFFF, 0x80000000, 0xBF800000, 0xFF800000]])
    return bits.astype(np.uint32).view(np.float32)


@pytest.mark.parametrize("options, bound", [("", 3.0), ("-cl-fp32-correctly-rounded-divide-sqrt", 0.5)])
def test_sqrt_dense(run_kernel, options: str, bound: float) -> None:
    x = _inputs()
    (_, got) = run_kernel(SOURCE, "root", (x.size,), None, x, np.empty_like(x), options=options)
    with np.errstate(invalid="ignore"):
        want = np.sqrt(x.astype(np.float64))
    assert np.signbit(got[x == 0]).tolist() == np.signbit(x[x == 0]).tolist()  # sqrt(-0) is -0
    err = ulp_error(got, want, np.float32)
    worst = int(np.argmax(err))
    assert err[worst] <= bound, f"sqrt({x[worst]!r}) = {got[worst]!r}, {err[worst]:.3f} ulp from {want[worst]!r}"
