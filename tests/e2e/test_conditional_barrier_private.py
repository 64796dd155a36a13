"""A private write made before a barrier that a called function reaches only under a
condition: every work-item keeps it. Reduced from CLSmith's atomic_reductions seed
1000033 (tools/clsmith/FINDINGS.md), where PoCL's pthread device loses the write in the
first work-item of each group on a (1, 8) work-group: PoCL's bug, not oclpy's. The
specification leaves one value: nothing in the kernel depends on the work-item but the
index of the result, and the barrier is skipped by every work-item alike (OpenCL C 1.2
§6.12.8), so each work-item XORs 0xB1A1 with 0xFFFF: 0x4E5E."""

from __future__ import annotations

import numpy as np
import pytest

KERNEL = """struct S { int a; int *p; ushort x; };
int *g(struct S *s) { s->x ^= 0xFFFF; return s->p; }
uint f(int *q) {
    if (*q) { return 1; }
    barrier(CLK_LOCAL_MEM_FENCE);
    return 2;
}
kernel void entry(global ulong *result) {
    struct S s = { 5, 0, 0xB1A1 };
    s.p = &s.a;
    barrier(CLK_LOCAL_MEM_FENCE);
    f(g(&s));
    result[get_global_id(1) * get_global_size(0) + get_global_id(0)] = s.x;
}"""


@pytest.mark.parametrize("options", ["", "-cl-opt-disable"])
@pytest.mark.parametrize("shape", [((1, 8), (1, 8)), ((2, 8), (1, 4)), ((8, 1), (8, 1))])
def test_every_work_item_keeps_its_write_before_a_skipped_barrier(run_kernel, options, shape) -> None:  # type: ignore[no-untyped-def]
    global_size, local_size = shape
    (out,) = run_kernel(KERNEL, "entry", global_size, local_size,
                        np.zeros(global_size[0] * global_size[1], np.uint64), options=options)
    assert out.tolist() == [0x4E5E] * out.size
