"""Local-size choice, cltypes vectors, tools helpers."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy as cl
from oclpy import cltypes
from oclpy.runtime.ndrange import choose_local_size, largest_divisor_at_most, make_ndrange
from oclpy.tools import dtype_to_ctype


@pytest.mark.parametrize("n, limit, want", [(1000, 1024, 1000), (1024, 256, 256), (97, 64, 1),
                                            (360, 100, 90), (1, 1024, 1)])
def test_largest_divisor(n, limit, want):
    assert largest_divisor_at_most(n, limit) == want


def test_choose_local_size_leaves_work_for_every_unit():
    assert choose_local_size([1024], 1024, [1024] * 3, 4) == [256]
    assert choose_local_size([1 << 20], 1024, [1024] * 3, 4) == [1024]
    local = choose_local_size([64, 64], 1024, [1024] * 3, 2)
    assert local[0] * local[1] <= 1024 and 64 % local[0] == 0 and 64 % local[1] == 0
    assert (64 // local[0]) * (64 // local[1]) >= 2
    assert choose_local_size([7, 5, 3], 1024, [1024] * 3, 1) == [7, 5, 3]


def test_a_drivers_auto_group_shapes_the_chosen_local_size():
    gpu = (256, 64)  # cuda's auto_group
    assert choose_local_size([2048, 2048], 1024, [1024, 1024, 64], 132, gpu) == [64, 4]
    assert choose_local_size([1 << 20], 1024, [1024, 1024, 64], 132, gpu) == [256]
    assert choose_local_size([2048, 2048], 1024, [1024, 1024, 64], 132) == [1024, 1]
    assert choose_local_size([48, 2048, 8], 1024, [1024, 1024, 64], 132, gpu) == [48, 4, 1]
    nd = make_ndrange((2048, 2048), None, None, max_group=1024, max_items=[1024] * 3, units=132, auto=gpu)
    assert nd.local_size == (64, 4, 1)
    nd = make_ndrange((2048, 2048), (1024, 1), None, max_group=1024, max_items=[1024] * 3, units=132, auto=gpu)
    assert nd.local_size == (1024, 1, 1)  # a named local size is the caller's


def test_make_ndrange_pads_and_accepts_numpy_ints():
    nd = make_ndrange((np.int64(32), 4), (8, np.int32(2)), (1, 2), max_group=1024,
                      max_items=[1024] * 3, units=1)
    assert (nd.work_dim, nd.global_size, nd.local_size, nd.global_offset) == \
        (2, (32, 4, 1), (8, 2, 1), (1, 2, 0))
    assert nd.num_groups == (4, 2, 1) and nd.group_count == 8
    assert make_ndrange(16, None, None, max_group=1024, max_items=[1024] * 3, units=1).global_size == (16, 1, 1)


def test_vector_types():
    assert cltypes.float4.itemsize == 16 and cltypes.float3.itemsize == 16
    assert cltypes.uchar16.itemsize == 16 and cltypes.double2.itemsize == 16
    v = cltypes.make_float4(1, 2, 3, 4)
    assert v["x"] == 1 and v["s3"] == 4 and v.dtype == cltypes.float4
    w = cltypes.make_int3(1, 2, 3)
    assert (w["s0"], w["s1"], w["s2"]) == (1, 2, 3)
    assert cltypes.zeros_float2()["s1"] == 0
    assert cltypes.filled_short8(3)["s7"] == 3
    assert cltypes.int is np.int32 and cltypes.ulong is np.uint64
    with pytest.raises(TypeError, match="make_float4\\(\\) takes 4 values, got 3"):
        cltypes.make_float4(1, 2, 3)


def test_dtype_to_ctype():
    assert dtype_to_ctype(np.float32) == "float"
    assert dtype_to_ctype(np.uint16) == "ushort"
    assert dtype_to_ctype(cltypes.uint4) == "uint4"
    assert dtype_to_ctype(np.complex64) == "cfloat_t"
    with pytest.raises(ValueError, match="unable to map dtype"):
        dtype_to_ctype(np.dtype([("unregistered", np.int8)]))


def test_public_names():
    for name in ("Buffer", "CommandQueue", "Context", "Kernel", "LocalMemory", "Program",
                 "UserEvent", "enqueue_copy", "enqueue_fill_buffer", "enqueue_marker",
                 "enqueue_barrier", "enqueue_nd_range_kernel", "wait_for_events",
                 "create_some_context", "get_platforms", "status_code", "mem_flags",
                 "device_type", "command_queue_properties", "program_build_info"):
        assert hasattr(cl, name), name
    assert cl.get_cl_header_version() == (3, 0)
