"""PyOpenCL names added so that every public name is in oclpy (tests/test_pyopencl_names.py):
enqueue_fill, enqueue_migrate_mem_objects, tools.bitlog2 and register_dtype, and the
constant classes, each with PyOpenCL's values and behaviour."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy as cl
from oclpy import tools


def test_enqueue_fill_and_migrate(ctx, queue):
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 16)
    cl.enqueue_fill_buffer(queue, buf, np.int32(0), 0, 16)
    cl.enqueue_fill(queue, buf, np.int32(7), 8, offset=4)
    cl.enqueue_migrate_mem_objects(queue, [buf], cl.mem_migration_flags.HOST).wait()
    out = np.empty(4, np.int32)
    cl.enqueue_copy(queue, out, buf)
    assert out.tolist() == [0, 7, 7, 0]
    with pytest.raises(TypeError, match="enqueue_fill does not know how to fill"):
        cl.enqueue_fill(queue, np.zeros(4), np.int32(1), 4)
    with pytest.raises(cl.LogicError, match="invalid mem_migration_flags 64 \\(allowed: HOST, CONTENT_UNDEFINED\\)") as info:
        cl.enqueue_migrate_mem_objects(queue, [buf], 64)
    assert info.value.code == cl.status_code.INVALID_VALUE
    with pytest.raises(cl.LogicError, match="no memory objects to migrate"):
        cl.enqueue_migrate_mem_objects(queue, [])
    with pytest.raises(cl.LogicError, match="expected a Buffer or an Image, got LocalMemory") as info:
        cl.enqueue_migrate_mem_objects(queue, [cl.LocalMemory(4)])
    assert info.value.code == cl.status_code.INVALID_MEM_OBJECT


def test_tools_bitlog2_and_register_dtype():
    assert [tools.bitlog2(n) for n in (1, 2, 3, 4, 1023, 1024, 1 << 40)] == [0, 1, 1, 2, 9, 10, 40]
    with pytest.raises(ValueError, match="positive integer, got 0"):
        tools.bitlog2(0)
    dtype = np.dtype([("gap_a", np.int16), ("gap_b", np.int16)])
    with pytest.warns(DeprecationWarning, match="use get_or_register_dtype"):
        tools.register_dtype(dtype, "gap_pair_t")
    assert tools.dtype_to_ctype(dtype) == "gap_pair_t"


def test_constant_classes_have_pyopencl_values():
    assert cl.device_partition_property.EQUALLY == 0x1086
    assert cl.device_affinity_domain.to_string(cl.device_affinity_domain.NUMA | cl.device_affinity_domain.L1_CACHE) \
        == "NUMA | L1_CACHE"
    assert cl.program_binary_type.EXECUTABLE == 4 and cl.svm_mem_flags.SVM_ATOMICS == 1 << 11
    assert cl.version_bits.PATCH_MASK == 4095 and cl.kernel_sub_group_info.MAX_NUM_SUB_GROUPS == 0x11B9
    assert cl.sampler_properties.FILTER_MODE == cl.sampler_info.FILTER_MODE
    assert cl.WaitList is not None
