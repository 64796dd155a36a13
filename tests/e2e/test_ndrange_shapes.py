"""NDRange shapes OpenCL allows and a device may not map one to one: more work-groups
in a dimension than a CUDA grid holds (65,535 in y and z), with a global offset.
Every work-item must see its own ids and the whole NDRange's sizes."""

from __future__ import annotations

import numpy as np

import oclpy as cl

SOURCE = """
__kernel void ids(__global uint *out, uint n) {
  size_t y = get_global_id(1) - get_global_offset(1), z = get_global_id(2) - get_global_offset(2);
  size_t i = z * get_global_size(1) + y;
  uint wrong = (get_num_groups(1) * get_local_size(1) != get_global_size(1))
             | (get_global_size(1) * get_global_size(2) != n) << 1
             | (get_group_id(1) != get_global_id(1) - get_global_offset(1)) << 2;
  out[i] = (uint)i | wrong << 29;
}
"""


def test_more_work_groups_than_a_cuda_grid_holds_in_y_and_z(ctx, queue):
    prg = cl.Program(ctx, SOURCE).build()
    for global_size in ((1, 70_001, 1), (1, 3, 65_539)):
        n = global_size[1] * global_size[2]
        out = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4 * n)
        prg.ids(queue, global_size, (1, 1, 1), out, np.uint32(n), global_offset=(0, 5, 7))
        got = np.empty(n, np.uint32)
        cl.enqueue_copy(queue, got, out)
        np.testing.assert_array_equal(got, np.arange(n, dtype=np.uint32))
