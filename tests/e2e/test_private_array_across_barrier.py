"""64 KiB of private memory per work-item, live across a barrier, in work-groups of up
to the size the kernel query allows: every work-item gets its sum. PoCL 3.0's pthread
device keeps such values per work-item on its worker thread's 8 MiB stack and dies of
SIGSEGV from 128 work-items on, while reporting a work-group size of 4096 and 1 KiB of
private memory (tools/clsmith/FINDINGS.md, "PoCL's bugs", cause C, seen on five CLSmith
kernels): PoCL's bug, not oclpy's. oclpy must report the private memory it needs and run
every work-group size it reports."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy as cl

KERNEL = """kernel void entry(global ulong *result) {
    ulong a[8192];
    for (int i = 0; i < 8192; i++)
        a[i] = (ulong)i ^ get_global_id(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    ulong s = 0;
    for (int i = 0; i < 8192; i++)
        s += a[i];
    result[get_global_id(0)] = s;
}"""


def expected(n: int) -> list[int]:
    i = np.arange(8192, dtype=np.uint64)
    return [int(np.sum(i ^ np.uint64(g), dtype=np.uint64)) for g in range(n)]


def test_the_kernel_query_counts_the_private_array(ctx) -> None:  # type: ignore[no-untyped-def]
    kernel = cl.Program(ctx, KERNEL).build().entry
    device = ctx.devices[0]
    assert kernel.get_work_group_info(cl.kernel_work_group_info.PRIVATE_MEM_SIZE, device) >= 65536


@pytest.mark.parametrize("options,local", [("", 128), ("", None), ("-cl-opt-disable", 128)])
def test_every_work_item_keeps_its_private_array_across_the_barrier(ctx, run_kernel, options, local) -> None:  # type: ignore[no-untyped-def]
    if local is None:     # the largest the kernel allows
        kernel = cl.Program(ctx, KERNEL).build(options=options).entry
        local = kernel.get_work_group_info(cl.kernel_work_group_info.WORK_GROUP_SIZE, ctx.devices[0])
    (out,) = run_kernel(KERNEL, "entry", (local,), (local,), np.zeros(local, np.uint64), options=options)
    assert out.tolist() == expected(local)
