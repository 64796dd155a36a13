"""A store through a private pointer that the kernel itself set to null is undefined
behaviour, and the simt device names it (CLSmith vectors seed 1000169, reduced by hand:
oclpy's cpu device and PoCL both die of SIGSEGV on that kernel; it is not a miscompile)."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy as cl

NULLED_THEN_STORED = """
struct S { int g14; int *g13; };
int f9(struct S *s) { int *p11; return (s->g13 = (p11 = (void*)0)) == &s->g14; }
int *f3(struct S *s, uint v) { *s->g13 = v; return &s->g14; }
__kernel void entry(__global ulong *result) {
    struct S c;
    struct S *p = &c;
    struct S c2 = { 0, &p->g14 };
    c = c2;
    barrier(CLK_LOCAL_MEM_FENCE);
    p->g13 = f3(p, f9(p) + 0x1F23D9D5u);
    barrier(CLK_LOCAL_MEM_FENCE);
    result[get_global_id(0)] = p->g14;
}
"""


def test_a_store_through_a_pointer_the_kernel_nulled_is_reported_on_simt() -> None:
    devices = [d for p in cl.get_platforms() for d in p.get_devices() if "simt" in d.name]
    ctx = cl.Context(devices[:1])
    queue = cl.CommandQueue(ctx)
    program = cl.Program(ctx, NULLED_THEN_STORED).build(options="-cl-opt-disable")
    result = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 8)
    program.entry(queue, (1,), (1,), result)
    with pytest.raises(cl.RuntimeError) as info:
        cl.enqueue_copy(queue, np.zeros(1, np.uint64), result)
        queue.finish()
    assert "4-byte private access at offset 0xffffffff is outside the lane's" in str(info.value)
