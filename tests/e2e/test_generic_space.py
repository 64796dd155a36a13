"""OpenCL 2.0 generic pointers on the device: to_global / to_local /
to_private / get_fence answer from where the pointer really points, at run
time (the pointers pass through a private array, so nothing folds them)."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy as cl

SRC = """
int classify(int *p) {
    return (to_global(p) != NULL) + (to_local(p) != NULL) * 2 + (to_private(p) != NULL) * 4
           + get_fence(p) * 10;
}
kernel void k(global int *g, local int *l, global int *out) {
    int priv = 3;
    local int lv[4];
    int i = get_global_id(0);
    l[get_local_id(0)] = i;
    lv[get_local_id(0)] = i;
    barrier(CLK_LOCAL_MEM_FENCE);
    int *ps[4] = { g + i, l + get_local_id(0), &priv, lv + get_local_id(0) };
    for (int j = 0; j < 4; j++)
        out[i * 4 + j] = classify(ps[j]);
    global int *back = to_global(ps[0]);
    back[0] = *to_private(ps[2]) + *to_local(ps[1]);
}
"""


@pytest.mark.parametrize("options", ["-cl-std=CL2.0", "-cl-std=CL3.0 -cl-opt-disable"])
def test_generic_space_queries_at_run_time(run_kernel, options) -> None:
    g, out = np.zeros(8, np.int32), np.zeros(32, np.int32)
    g, out = run_kernel(SRC, "k", (8,), (4,), g, cl.LocalMemory(16), out, options=options)
    assert out.reshape(8, 4).tolist() == [[21, 12, 24, 12]] * 8  # global, local, private, local
    np.testing.assert_array_equal(g, 3 + np.arange(8))
