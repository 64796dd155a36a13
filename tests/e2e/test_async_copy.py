"""async_work_group_copy / async_work_group_strided_copy / wait_group_events
on the device: a cooperative copy into local memory and a strided copy out."""

from __future__ import annotations

import numpy as np

import oclpy as cl

SRC = """
kernel void k(global const float *a, global float *out, global float *strided, local float *tile) {
    event_t e = async_work_group_copy(tile, a + get_group_id(0) * 16, 16, 0);
    wait_group_events(1, &e);
    out[get_global_id(0)] = tile[15 - get_local_id(0)] * 2.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    event_t e2 = async_work_group_strided_copy(strided + get_group_id(0), tile, 16, 4, 0);
    wait_group_events(1, &e2);
    prefetch(a, 16);
}
"""


def test_async_copies_match_numpy(run_kernel) -> None:
    a = np.arange(64, dtype=np.float32)
    out = np.zeros(64, np.float32)
    strided = np.zeros(64, np.float32)
    _, out, strided = run_kernel(SRC, "k", (64,), (16,), a, out, strided, cl.LocalMemory(64))
    np.testing.assert_array_equal(out, (a.reshape(4, 16)[:, ::-1] * 2).ravel())
    np.testing.assert_array_equal(strided.reshape(16, 4), a.reshape(4, 16).T)
