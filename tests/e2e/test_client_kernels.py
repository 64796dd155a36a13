"""Kernels reduced from the PyOpenCL ecosystem's test suites (loopy, reikna, pyFAI,
silx: tools/clients.py runs them), each once a failure on oclpy where PoCL passed."""

from __future__ import annotations

import numpy as np
import pytest

# silx's bitshuffle-LZ4 decompressor: two helpers with barriers, then a __local
# pointer chosen between two arrays (was invalid LLVM IR at -O1 and -O2).
BITSHUFFLE = """
void copy_local(local uchar *inp, local uchar *out) { out[get_local_id(0)] = inp[get_local_id(0)]; barrier(CLK_LOCAL_MEM_FENCE); }
void setup(local uint *n) { if (get_local_id(0) == 0) n[0] = 16; barrier(CLK_LOCAL_MEM_FENCE); }
kernel void k(global uchar *dst, const uchar item_size) {
    local uchar a[64], b[64]; local uint n[1];
    a[get_local_id(0)] = 1; b[get_local_id(0)] = 2;
    setup(n);
    local uchar *buf;
    if (item_size == 1) { copy_local(a, b); buf = b; } else { buf = a; }
    dst[get_global_id(0)] = buf[get_local_id(0)] + n[0];
}
"""


@pytest.mark.parametrize("level", ["-O0", "-O1", "-O2"])
@pytest.mark.parametrize("item_size,expected", [(1, 17), (2, 17)])
def test_a_local_pointer_chosen_after_helpers_with_barriers(run_kernel, level, item_size, expected):
    dst = np.zeros(64, np.uint8)
    (out,) = run_kernel(BITSHUFFLE, "k", (64,), (64,), dst, np.uint8(item_size), options=level)
    np.testing.assert_array_equal(out, np.full(64, expected, np.uint8))


# pyFAI's CSR integrator and silx's bitonic sort: helpers with barriers that no kernel
# calls, one called only by another uncalled helper (was "ocl.barrier left after
# form-workgroups"; fixed for issue 13 by inline's deletion of such helpers).
UNCALLED_BARRIER_HELPERS = """
static inline float group_sum(local float *s, float v) {
    s[get_local_id(0)] = v; barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = get_local_size(0) / 2; i > 0; i >>= 1) {
        if (get_local_id(0) < i) s[get_local_id(0)] += s[get_local_id(0) + i];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return s[0];
}
static float8 twice(local float *s, float v) { return (float8)(group_sum(s, v) + group_sum(s, 2 * v)); }
kernel void k(global float *out) { out[get_global_id(0)] = 3.0f; }
"""


@pytest.mark.parametrize("level", ["-O0", "-O1", "-O2"])
def test_helpers_with_barriers_that_no_kernel_calls(run_kernel, level):
    out = np.zeros(8, np.float32)
    (res,) = run_kernel(UNCALLED_BARRIER_HELPERS, "k", (8,), (8,), out, options=level)
    np.testing.assert_array_equal(res, np.full(8, 3, np.float32))
