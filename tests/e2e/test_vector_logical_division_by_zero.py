"""A vector `&&` whose right operand divides by zero: the quotient is only an unspecified
value, and the `&&` does not depend on it. Reduced from CLSmith's vectors seed 1000112
(tools/clsmith/FINDINGS.md), where PoCL's optimising build deletes the kernel's store:
PoCL's bug, not oclpy's. OpenCL C 1.2 §6.3: for vectors both operands of `&&` are
evaluated, an integer division by zero gives an unspecified value and no exception,
`(a != 0)` is 0 in every component, so the `&&` is 0 and the vector `?:` selects `b`:
0x298C0595."""

from __future__ import annotations

import numpy as np
import pytest

KERNEL = """kernel void entry(global ulong *result) {
    int4 a = (int4)(%s);
    int4 b = (int4)(0x298C0595);
    int4 r = ((a != 0) && (b < INT_MAX / a)) ? a : b;
    result[0] = r.w;
}"""


@pytest.mark.parametrize("options", ["", "-cl-opt-disable"])
@pytest.mark.parametrize("zero", ["0", "(int)get_global_id(0)"])
def test_vector_and_ignores_a_quotient_by_zero(run_kernel, options, zero) -> None:  # type: ignore[no-untyped-def]
    (out,) = run_kernel(KERNEL % zero, "entry", (1,), (1,), np.full(1, 0xDEADBEEF, np.uint64), options=options)
    assert out.tolist() == [0x298C0595]
