"""A vector literal is a primary expression (OpenCL C 1.2 §6.1.6): a postfix operator after
`(type)(x)` applies to the literal, as in clang, even with one component. Found while
reducing CLSmith's vectors seed 1000112, whose `(int16)(e).s0123...` oclpy took for a
conversion of `(e).s0123...` where clang (and so PoCL) rejects too few elements."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy as cl

KERNEL = """kernel void entry(global int *out, global float *f) {
    int4 v = (int4)(1, 2, 3, 4);
    out[0] = (int4)(7).y;
    out[1] = (int2)(v.s23).s1;
    out[2] = (int4)(v).w;
    out[3] = (int4)(1, 2, 3, 4).wzyx.x;
    f[0] = (float4)(1.5f).w;
}"""


@pytest.mark.parametrize("options", ["", "-cl-opt-disable"])
def test_postfix_operators_apply_to_the_vector_literal(run_kernel, options) -> None:  # type: ignore[no-untyped-def]
    out, f = run_kernel(KERNEL, "entry", (1,), (1,), np.zeros(4, np.int32), np.zeros(1, np.float32), options=options)
    assert out.tolist() == [7, 4, 4, 4]
    assert f.tolist() == [1.5]


def test_a_literal_of_a_swizzled_vector_counts_the_vectors_components(ctx) -> None:  # type: ignore[no-untyped-def]
    src = "kernel void entry(float4 v, global float2 *p) {\n    p[0] = (float2)(v).xy;\n}\n"
    with pytest.raises(cl.RuntimeError) as info:
        cl.Program(ctx, src).build()
    assert "<kernel>:2:12: error: too many elements in vector initialization (expected 2 elements, have 4)" \
        in str(info.value)
