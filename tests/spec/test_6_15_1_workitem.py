"""OpenCL C 6.15.1 work-item functions in 1, 2 and 3 dimensions, with a global
offset, and for dimensions beyond get_work_dim() (size 1, id 0)."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy as cl

SRC = """
__kernel void w(__global ulong *O) {
    size_t lin = get_global_linear_id();
    __global ulong *o = O + lin * 32;
    o[0] = get_work_dim();
    for (uint d = 0; d < 4; ++d) {
        o[1 + d * 7] = get_global_id(d);
        o[2 + d * 7] = get_local_id(d);
        o[3 + d * 7] = get_group_id(d);
        o[4 + d * 7] = get_global_size(d);
        o[5 + d * 7] = get_local_size(d);
        o[6 + d * 7] = get_num_groups(d);
        o[7 + d * 7] = get_global_offset(d);
    }
    o[29] = get_local_linear_id();
    o[30] = get_enqueued_local_size(0);
    o[31] = lin;
}"""


@pytest.mark.parametrize("gsize,lsize,offset", [
    ((12,), (4,), (0,)),
    ((6, 4), (3, 2), (5, 1)),
    ((4, 3, 2), (2, 3, 1), (0, 0, 7)),
])
def test_work_item_functions(ctx, run_kernel, gsize, lsize, offset) -> None:
    total = int(np.prod(gsize))
    prg = run_kernel.build(SRC, "-cl-std=CL2.0")  # the linear ids, get_enqueued_local_size
    O = np.zeros(total * 32, np.uint64)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=O)
    prg.w(run_kernel.queue, gsize, lsize, buf, global_offset=offset).wait()
    cl.enqueue_copy(run_kernel.queue, O, buf)
    dims = len(gsize)
    g = list(gsize) + [1] * (4 - dims)
    ls = list(lsize) + [1] * (4 - dims)
    off = list(offset) + [0] * (4 - dims)
    seen = set()
    for row in O.reshape(total, 32).tolist():
        assert row[0] == dims
        gid = [row[1 + d * 7] for d in range(4)]
        lid = [row[2 + d * 7] for d in range(4)]
        for d in range(4):
            base = 1 + d * 7
            _, l, grp, gs, lsz, ng, go = row[base:base + 7]
            if d >= dims:
                assert (gid[d], l, grp, gs, lsz, ng, go) == (0, 0, 0, 1, 1, 1, 0), f"dimension {d} beyond work_dim"
                continue
            assert (gs, lsz, ng, go) == (g[d], ls[d], g[d] // ls[d], off[d])
            assert gid[d] == off[d] + grp * ls[d] + l and l < ls[d] and grp < ng
        lin = sum((gid[d] - off[d]) * int(np.prod(g[:d])) for d in range(3))
        assert row[31] == lin
        assert row[29] == sum(lid[d] * int(np.prod(ls[:d])) for d in range(3))
        assert row[30] == ls[0]
        seen.add(tuple(gid))
    assert len(seen) == total
