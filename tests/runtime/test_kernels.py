"""Kernels with fake compiled kernels: argument binding and packing, launch
shapes and how work-groups are spread, and every error path (raised before
anything is launched)."""

from __future__ import annotations

import struct
import threading

import numpy as np
import pytest

import oclpy as cl
from oclpy import cltypes

from .fakes import FakeKernel, buffer_of, make_vadd, read

SC = cl.status_code


@pytest.fixture()
def vadd(fake_program):
    fake = make_vadd()
    return fake_program(fake).vadd, fake


@pytest.fixture()
def args(ctx):
    n = 1000
    a, b = np.arange(n, dtype=np.float32), np.full(n, 0.5, np.float32)
    out = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR,
                    hostbuf=np.full(n, -1, np.float32))
    return n, a, b, buffer_of(ctx, a), buffer_of(ctx, b), out


def test_vadd_runs_and_packs_the_blob(ctx, queue, vadd, args):
    knl, fake = vadd
    n, a, b, da, db, dout = args
    evt = knl(queue, (n,), (100,), da, db, dout, np.int32(n))
    evt.wait()
    assert (read(queue, dout, a) == a + b).all()
    blob = fake.launches[0].blob
    driver = ctx.devices[0].driver
    for i, buf in enumerate((da, db, dout)):
        alloc, offset = buf.allocation(driver)
        assert struct.unpack_from("<Q", blob, fake.args[i].offset)[0] == alloc.address + offset
    assert struct.unpack_from("<i", blob, fake.args[3].offset)[0] == n
    assert len(blob) == fake.blob_size == 32


def test_groups_are_spread_and_each_runs_once(ctx, queue, fake_program):
    fake = FakeKernel("k", [("x", "scalar", 4, "int")])
    prg = fake_program(fake)
    prg.k(queue, (128, 64, 8), (8, 8, 2), np.int32(0), global_offset=(1, 2, 3)).wait()
    assert sorted(fake.groups_run) == sorted((x, y, z) for x in range(16) for y in range(8)
                                             for z in range(4))
    first = fake.launches[0]
    assert first.work_dim == 3 and first.global_size == (128, 64, 8)
    assert first.local_size == (8, 8, 2) and first.global_offset == (1, 2, 3)
    units = ctx.devices[0].max_compute_units
    assert len(fake.launches) == min(units * 4, 512)  # a few chunks per worker, of 512 groups
    spans = sorted((l.begin, l.end) for l in fake.launches)
    assert spans[0][0] == 0 and spans[-1][1] == 512
    assert all(e1 == b2 for (_, e1), (b2, _) in zip(spans, spans[1:]))


def test_small_launches_are_not_split(queue, fake_program):
    fake = FakeKernel("k", [("x", "scalar", 4, "int")])
    fake_program(fake).k(queue, (8, 6, 4), (2, 3, 2), np.int32(0)).wait()
    assert [(l.begin, l.end) for l in fake.launches] == [(0, 16)]


def test_one_dimensional_sizes_are_padded(queue, fake_program):
    fake = FakeKernel("k", [("x", "scalar", 4, "int")])
    fake_program(fake).k(queue, (64,), (16,), np.int32(0)).wait()
    launch = fake.launches[0]
    assert launch.work_dim == 1
    assert (launch.global_size, launch.local_size, launch.global_offset) == \
        ((64, 1, 1), (16, 1, 1), (0, 0, 0))


def test_local_size_none_picks_a_divisor(ctx, queue, fake_program):
    fake = FakeKernel("k", [("x", "scalar", 4, "int")])
    prg = fake_program(fake)
    prg.k(queue, (1000, 3), None, np.int32(0)).wait()
    local = fake.launches[0].local_size
    assert 1000 % local[0] == 0 and 3 % local[1] == 0
    assert local[0] * local[1] <= ctx.devices[0].max_work_group_size
    assert len(fake.groups_run) * local[0] * local[1] == 3000


def test_null_local_struct_and_vector_arguments(ctx, queue, fake_program):
    point = np.dtype([("x", np.float32), ("y", np.int32)])
    fake = FakeKernel("k", [("p", "global", 8, "float*"), ("scratch", "local", 8, "float*"),
                            ("s", "scalar", 8, "struct point"), ("v", "scalar", 16, "float4"),
                            ("w", "scalar", 16, "float3")])
    prg = fake_program(fake)
    s = np.array((1.5, 7), dtype=point)[()]
    v = cltypes.make_float4(1, 2, 3, 4)
    w = cltypes.make_float3(5, 6, 7)
    prg.k(queue, (1,), (1,), None, cl.LocalMemory(256), s, v, w).wait()
    blob = fake.launches[0].blob
    assert struct.unpack_from("<Q", blob, fake.args[0].offset)[0] == 0
    assert struct.unpack_from("<Q", blob, fake.args[1].offset)[0] == 256
    assert struct.unpack_from("<fi", blob, fake.args[2].offset) == (1.5, 7)
    assert struct.unpack_from("<4f", blob, fake.args[3].offset) == (1, 2, 3, 4)
    assert struct.unpack_from("<3f", blob, fake.args[4].offset) == (5, 6, 7)
    assert prg.k.get_work_group_info(cl.kernel_work_group_info.LOCAL_MEM_SIZE, ctx.devices[0]) == 256


def test_set_scalar_arg_dtypes_accepts_python_numbers(queue, vadd, args):
    knl, fake = vadd
    n, a, b, da, db, dout = args
    knl.set_scalar_arg_dtypes([None, None, None, np.int32])
    knl(queue, (n,), None, da, db, dout, n).wait()
    assert (read(queue, dout, a) == a + b).all()
    with pytest.raises(cl.LogicError) as info:
        knl(queue, (n,), None, da, db, dout, "ten")
    assert info.value.code == SC.INVALID_ARG_VALUE
    assert "when processing arg#4 (1-based): cannot convert 'ten' to int32" in str(info.value)


def test_set_args_then_enqueue_nd_range_kernel(queue, vadd, args):
    knl, _ = vadd
    n, a, b, da, db, dout = args
    knl.set_args(da, db, dout, np.int32(n))
    cl.enqueue_nd_range_kernel(queue, knl, (n,), (10,)).wait()
    assert (read(queue, dout, a) == a + b).all()


def test_enqueue_with_unset_arguments(queue, fake_program, args):
    fake = make_vadd()
    knl = fake_program(fake).vadd
    knl.set_arg(0, args[3])
    knl.set_arg(3, np.int32(4))
    with pytest.raises(cl.LogicError) as info:
        cl.enqueue_nd_range_kernel(queue, knl, (4,), (4,))
    assert info.value.code == SC.INVALID_KERNEL_ARGS
    assert str(info.value) == ("clEnqueueNDRangeKernel failed: INVALID_KERNEL_ARGS - "
                               "kernel 'vadd': argument(s) b, out not set")
    assert fake.launches == []


# -- argument errors: raised before anything runs, nothing written ---------------------

def _check_nothing_ran(queue, fake, dout, n):
    assert fake.launches == []
    assert (read(queue, dout, np.zeros(n, np.float32)) == -1).all()


def test_wrong_argument_count(queue, vadd, args):
    knl, fake = vadd
    n, a, b, da, db, dout = args
    with pytest.raises(cl.LogicError) as info:
        knl(queue, (n,), None, da, db, dout)
    err = info.value
    assert err.code == SC.INVALID_KERNEL_ARGS and isinstance(err, TypeError)
    assert str(err) == ("Kernel.set_args failed: INVALID_KERNEL_ARGS - vadd: length of argument list (3) "
                        "and CL-generated number of arguments (4) do not agree (expected: a, b, out, n)")
    _check_nothing_ran(queue, fake, dout, n)


@pytest.mark.parametrize("position, value, code, text", [
    (3, 1000, SC.INVALID_VALUE,
     "Kernel.set_arg failed: INVALID_VALUE - when processing arg#4 (1-based): invalid kernel argument"),
    (0, 5, SC.INVALID_VALUE, "when processing arg#1 (1-based): invalid kernel argument (argument 'a' "
     "(__global float*) is a pointer: pass a Buffer (or None), not int)"),
    (3, np.float64(1), SC.INVALID_ARG_SIZE,
     "clSetKernelArg failed: INVALID_ARG_SIZE - when processing arg#4 (1-based): "
     "argument 'n' (int) takes 4 bytes, got 8 (numpy.float64)"),
    (3, None, SC.INVALID_ARG_VALUE, "argument 'n' (int) is passed by value: pass a numpy scalar of 4 bytes"),
    (1, np.zeros(4, np.float32), SC.INVALID_ARG_VALUE,
     "when processing arg#2 (1-based): argument 'b' (__global float*) is a pointer: "
     "pass a Buffer (or None), not numpy.ndarray"),
    (1, cl.LocalMemory(16), SC.INVALID_ARG_VALUE, "is a pointer: pass a Buffer (or None), not oclpy.LocalMemory"),
])
def test_bad_argument_values(queue, vadd, args, position, value, code, text):
    knl, fake = vadd
    n, a, b, da, db, dout = args
    call = [da, db, dout, np.int32(n)]
    call[position] = value
    with pytest.raises(cl.LogicError) as info:
        knl(queue, (n,), None, *call)
    assert info.value.code == code and text in str(info.value)
    _check_nothing_ran(queue, fake, dout, n)


def test_buffer_passed_by_value(queue, vadd, args):
    knl, fake = vadd
    n, a, b, da, db, dout = args
    with pytest.raises(cl.LogicError, match="not oclpy.Buffer"):
        knl(queue, (n,), None, da, db, dout, da)
    _check_nothing_ran(queue, fake, dout, n)


def test_local_argument_errors(queue, fake_program, ctx):
    fake = FakeKernel("k", [("scratch", "local", 8, "float*")])
    knl = fake_program(fake).k
    with pytest.raises(cl.LogicError) as info:
        knl(queue, (1,), (1,), cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 16))
    assert info.value.code == SC.INVALID_ARG_VALUE
    assert "argument 'scratch' (__local float*) is a __local pointer: pass LocalMemory(nbytes)" in str(info.value)
    with pytest.raises(cl.LogicError) as info:
        knl(queue, (1,), (1,), cl.LocalMemory(0))
    assert info.value.code == SC.INVALID_ARG_SIZE
    too_much = ctx.devices[0].local_mem_size + 1
    with pytest.raises(cl.RuntimeError) as info:
        knl(queue, (1,), (1,), cl.LocalMemory(too_much))
    assert info.value.code == SC.OUT_OF_RESOURCES
    assert f"needs {too_much} bytes of local memory per work-group" in str(info.value)
    assert fake.launches == []


def test_static_local_memory_counts(queue, fake_program, ctx):
    limit = ctx.devices[0].local_mem_size
    fake = FakeKernel("k", [("scratch", "local", 8, "float*")], static_local_bytes=limit - 40)
    knl = fake_program(fake).k
    # __local arguments start 16-byte aligned after the static variables: at limit - 32
    with pytest.raises(cl.RuntimeError, match=f"needs {limit + 1} bytes of local memory"):
        knl(queue, (1,), (1,), cl.LocalMemory(33))
    knl(queue, (1,), (1,), cl.LocalMemory(32)).wait()
    assert len(fake.launches) == 1


def test_released_and_foreign_buffers(queue, vadd, args):
    knl, fake = vadd
    n, a, b, da, db, dout = args
    gone = buffer_of(queue.context, a)
    gone.release()
    with pytest.raises(cl.LogicError) as info:
        knl(queue, (n,), None, gone, db, dout, np.int32(n))
    assert info.value.code == SC.INVALID_MEM_OBJECT and "the buffer was released" in str(info.value)
    other = buffer_of(cl.Context(dev_type=cl.device_type.CPU), a)
    with pytest.raises(cl.LogicError) as info:
        knl(queue, (n,), None, other, db, dout, np.int32(n))
    assert info.value.code == SC.INVALID_MEM_OBJECT
    assert "the buffer belongs to another context than the kernel" in str(info.value)
    _check_nothing_ran(queue, fake, dout, n)


def test_set_arg_index_errors(vadd):
    knl, _ = vadd
    with pytest.raises(cl.LogicError) as info:
        knl.set_arg(4, np.int32(1))
    assert info.value.code == SC.INVALID_ARG_INDEX
    assert "argument index 4 out of range (kernel 'vadd' has 4 arguments)" in str(info.value)
    with pytest.raises(cl.LogicError) as info:
        knl.set_scalar_arg_dtypes([None, np.int32])
    assert info.value.code == SC.INVALID_KERNEL_ARGS


# -- launch shape errors --------------------------------------------------------------

@pytest.mark.parametrize("gsize, lsize, code, text", [
    ((1000,), (300,), SC.INVALID_WORK_GROUP_SIZE,
     "global size (1000,) is not divisible by local size (300,) (dimension 0: 1000 % 300 = 100)"),
    ((2048,), (2048,), SC.INVALID_WORK_ITEM_SIZE, "local size 2048 in dimension 0 exceeds the device maximum 1024"),
    ((64, 64), (64, 32), SC.INVALID_WORK_GROUP_SIZE, "local size (64, 32) has 2048 work-items; the maximum is 1024"),
    ((64,), (0,), SC.INVALID_WORK_GROUP_SIZE, "local size (0,) has a zero entry"),
    ((64, 2), (64,), SC.INVALID_VALUE, "global/local work sizes have differing dimensions"),
    ((4, 4, 4, 4), None, SC.INVALID_WORK_DIMENSION, "global size has 4 dimensions; 1 to 3 are supported"),
    ((), None, SC.INVALID_WORK_DIMENSION, "global size has 0 dimensions"),
    ((0,), ("x",), SC.INVALID_VALUE, "local size must be a tuple of integers"),
    (("x",), None, SC.INVALID_VALUE, "global size must be a tuple of integers"),
])
def test_launch_shape_errors(queue, vadd, args, gsize, lsize, code, text):
    knl, fake = vadd
    n, a, b, da, db, dout = args
    with pytest.raises(cl.LogicError) as info:
        knl(queue, gsize, lsize, da, db, dout, np.int32(n))
    assert info.value.code == code
    assert str(info.value).startswith(f"clEnqueueNDRangeKernel failed: {SC.to_string(code)} - ")
    assert text in str(info.value)
    _check_nothing_ran(queue, fake, dout, n)


@pytest.mark.parametrize("gsize, lsize, allow", [((0,), None, True), ((0,), None, False),
                                                  ((0,), (0,), False), ((0, 4), (1, 1), False)])
def test_an_empty_range_runs_nothing(queue, vadd, args, gsize, lsize, allow):
    """OpenCL 2.1 on (and PyOpenCL on PoCL): a zero in the global size is an empty
    launch, whatever the local size, with or without allow_empty_ndrange."""
    knl, fake = vadd
    n, a, b, da, db, dout = args
    evt = knl(queue, gsize, lsize, da, db, dout, np.int32(n), allow_empty_ndrange=allow)
    evt.wait()
    _check_nothing_ran(queue, fake, dout, n)


@pytest.mark.parametrize("gsize, lsize", [((1,), (0,)), ((0,), (4,)), ((2, 1), (0, 1)), ((2,), (0, 3))])
def test_g_times_l_with_a_zero_product_runs_nothing(queue, vadd, args, gsize, lsize):
    """From loopy's test_empty_domain (a loop tagged l.0 over an empty domain: one group
    of local size 0, launched with g_times_l): PyOpenCL on PoCL runs nothing; oclpy raised
    INVALID_WORK_GROUP_SIZE for the zero local entry."""
    knl, fake = vadd
    n, a, b, da, db, dout = args
    knl(queue, gsize, lsize, da, db, dout, np.int32(n), g_times_l=True).wait()
    _check_nothing_ran(queue, fake, dout, n)


def test_g_times_l_still_checks_a_zero_local_entry_of_a_non_empty_range(queue, vadd, args):
    knl, fake = vadd
    n, a, b, da, db, dout = args
    with pytest.raises(cl.LogicError, match=r"local size \(0, 1\) has a zero entry"):
        knl(queue, (2, 1), (0, 1), da, db, dout, np.int32(n))
    _check_nothing_ran(queue, fake, dout, n)


def test_global_offset_dimension_mismatch(queue, vadd, args):
    knl, fake = vadd
    n, a, b, da, db, dout = args
    with pytest.raises(cl.LogicError, match="global work offset has a different number of dimensions"):
        knl(queue, (n,), None, da, db, dout, np.int32(n), global_offset=(0, 0))


def test_g_times_l(queue, fake_program):
    fake = FakeKernel("k", [("x", "scalar", 4, "int")])
    fake_program(fake).k(queue, (4,), (8,), np.int32(0), g_times_l=True).wait()
    assert fake.launches[0].global_size == (32, 1, 1)


def test_reqd_work_group_size(queue, ctx, fake_program):
    fake = FakeKernel("k", [("x", "scalar", 4, "int")], reqd=(8, 2, 1))
    knl = fake_program(fake).k
    with pytest.raises(cl.LogicError) as info:
        knl(queue, (16, 4), (4, 4), np.int32(0))
    assert info.value.code == SC.INVALID_WORK_GROUP_SIZE
    assert "local size (4, 4) does not match the kernel's reqd_work_group_size(8, 2, 1)" in str(info.value)
    assert fake.launches == []
    knl(queue, (16, 4), None, np.int32(0)).wait()  # the required size is used
    assert fake.launches[0].local_size == (8, 2, 1)
    dev = ctx.devices[0]
    assert knl.get_work_group_info(cl.kernel_work_group_info.COMPILE_WORK_GROUP_SIZE, dev) == [8, 2, 1]
    assert knl.get_work_group_info(cl.kernel_work_group_info.WORK_GROUP_SIZE, dev) == 16
    assert knl.attributes == "reqd_work_group_size(8,2,1)"


def test_queue_of_another_context(vadd, args):
    knl, fake = vadd
    n, a, b, da, db, dout = args
    other_queue = cl.CommandQueue(cl.Context(dev_type=cl.device_type.CPU))
    with pytest.raises(cl.LogicError) as info:
        knl(other_queue, (n,), None, da, db, dout, np.int32(n))
    assert info.value.code == SC.INVALID_CONTEXT
    assert fake.launches == []


# -- info and kernel objects ----------------------------------------------------------

def test_kernel_info(ctx, vadd):
    knl, _ = vadd
    assert knl.function_name == "vadd" and knl.num_args == 4
    assert knl.get_info(cl.kernel_info.NUM_ARGS) == 4
    assert knl.get_info(cl.kernel_info.FUNCTION_NAME) == "vadd"
    assert knl.get_info(cl.kernel_info.CONTEXT) is ctx
    ai = cl.kernel_arg_info
    assert knl.get_arg_info(0, ai.NAME) == "a" and knl.get_arg_info(0, ai.TYPE_NAME) == "float*"
    assert knl.get_arg_info(0, ai.ADDRESS_QUALIFIER) == cl.kernel_arg_address_qualifier.GLOBAL
    assert knl.get_arg_info(3, ai.ADDRESS_QUALIFIER) == cl.kernel_arg_address_qualifier.PRIVATE
    assert knl.get_arg_info(3, ai.ACCESS_QUALIFIER) == cl.kernel_arg_access_qualifier.NONE
    assert knl.get_arg_info(3, ai.TYPE_QUALIFIER) == cl.kernel_arg_type_qualifier.NONE
    with pytest.raises(cl.LogicError) as info:
        knl.get_arg_info(9, ai.NAME)
    assert info.value.code == SC.INVALID_ARG_INDEX
    dev = ctx.devices[0]
    wg = cl.kernel_work_group_info
    assert knl.get_work_group_info(wg.WORK_GROUP_SIZE, dev) == 1024
    assert knl.get_work_group_info(wg.COMPILE_WORK_GROUP_SIZE, dev) == [0, 0, 0]
    assert knl.get_work_group_info(wg.PREFERRED_WORK_GROUP_SIZE_MULTIPLE, dev) >= 1


def test_kernel_objects_are_cached_per_name(fake_program):
    prg = fake_program(make_vadd(), FakeKernel("other", []))
    assert prg.vadd is prg.vadd
    assert cl.Kernel(prg, "vadd") is not prg.vadd
    assert sorted(k.function_name for k in prg.all_kernels()) == ["other", "vadd"]
    assert prg.kernel_names == "vadd;other" and prg.num_kernels == 2


def test_racing_threads_get_one_kernel_object(fake_program):
    prg = fake_program(make_vadd())
    seen, start = [], threading.Barrier(8)

    def grab():
        start.wait()
        seen.append(prg.vadd)

    threads = [threading.Thread(target=grab) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({id(k) for k in seen}) == 1


def test_unknown_kernel_name(fake_program):
    prg = fake_program(make_vadd())
    assert not hasattr(prg, "vmul")
    with pytest.raises(cl.LogicError) as info:
        cl.Kernel(prg, "vmul")
    assert info.value.code == SC.INVALID_KERNEL_NAME
    assert str(info.value) == ("clCreateKernel failed: INVALID_KERNEL_NAME - "
                               "no kernel named 'vmul' in the program (kernels: vadd)")


def test_kernel_of_unbuilt_program(ctx):
    prg = cl.Program(ctx, "__kernel void k() {}")
    with pytest.raises(cl.LogicError) as info:
        prg.k
    assert info.value.code == SC.INVALID_PROGRAM_EXECUTABLE
    assert "the program has not been built successfully (call .build() first)" in str(info.value)
