"""OpenCL C 6.15.8 synchronisation: barrier and work_group_barrier with local
and global fences (a tree reduction in local memory, a neighbour exchange
through global memory, barriers inside loops), and the mem_fence family."""

from __future__ import annotations

import numpy as np

SRC = """
__kernel void reduce(__global const int *X, __global int *S, __global int *N, __global int *G) {
    __local int L[64];
    size_t l = get_local_id(0), n = get_local_size(0), i = get_global_id(0);
    L[l] = X[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = n / 2; s > 0; s >>= 1) {          /* barrier inside a loop */
        if (l < s) L[l] += L[l + s];
        work_group_barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0) S[get_group_id(0)] = L[0];
    /* neighbour exchange through global memory */
    G[i] = (int)(i * 3);
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    write_mem_fence(CLK_GLOBAL_MEM_FENCE);
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    read_mem_fence(CLK_GLOBAL_MEM_FENCE);
    size_t base = i - l;
    N[i] = G[base + (l + 1) % n];
}"""


def test_barriers_and_fences(run_kernel) -> None:
    x = np.arange(256, dtype=np.int32) * 7 - 300
    S, N, G = np.zeros(4, np.int32), np.zeros(256, np.int32), np.zeros(256, np.int32)
    _, S, N, _ = run_kernel(SRC, "reduce", (256,), (64,), x, S, N, G, options="-cl-std=CL2.0")  # work_group_barrier
    assert S.tolist() == x.reshape(4, 64).sum(axis=1).tolist()
    want = [3 * (i - i % 64 + (i % 64 + 1) % 64) for i in range(256)]
    assert N.tolist() == want
