"""A private array that is only written, inside a loop of a kernel with barriers, is
deleted before form-workgroups would give it a frame slot. Reduced from CLSmith's plain
seed 1000102 (tools/clsmith/FINDINGS.md): its `for (g = -18; g != 12; g += 9)` loop,
whose body only initialises such an array, runs 2,863,311,534 times (9 * k = 30 modulo
2**32); kept in the frame, the array's stores kept LLVM from computing the loop's exit
value, and oclpy ran the loop in every work-item where PoCL folded it (over 300 s against
PoCL's 22). The loop here is short; the frame's size says the array is gone."""

from __future__ import annotations

import numpy as np
import pytest

from oclpy.compiler import frontend_for, optimize
from oclpy.passes.form_workgroups import FRAME_ATTR

KERNEL = """struct S { int g; int h[40]; };
uint step(uint a) { return a + STEP; }
__kernel void entry(__global ulong *r) {
    struct S c = {0};
    struct S *p = &c;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (p->g = -18; p->g != 12; p->g = step(p->g)) {
        int l[7][5] = {{1,1,1,1,1},{1,1,1,1,1},{1,1,1,1,1},{1,1,1,1,1},{1,1,1,1,1},{1,1,1,1,1},{1,1,1,1,1}};
        int *q[2] = {&l[1][2], &l[3][4]};
        (1 + 1);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    r[get_global_id(0)] = p->g + p->h[3];
}"""


def test_only_the_read_struct_takes_a_frame_slot() -> None:
    module = frontend_for(KERNEL.replace("STEP", "9u"), "", "<k>").module
    optimize(module, 2, "cpu")
    fn = next(f for f in module.kernels() if not f.is_declaration)
    assert fn.attrs[FRAME_ATTR] == 4 + 40 * 4     # struct S alone: no l[7][5], no q[2]


@pytest.mark.parametrize("options", ["", "-cl-opt-disable"])
def test_the_loop_still_ends_where_it_should(run_kernel, options) -> None:  # type: ignore[no-untyped-def]
    (out,) = run_kernel(KERNEL.replace("STEP", "3u"), "entry", (8,), (4,), np.zeros(8, np.uint64),
                        options=options)
    assert out.tolist() == [12] * 8
