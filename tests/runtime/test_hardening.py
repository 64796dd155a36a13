"""Hostile input to the host API (issue 13): every case is a clean OpenCL error
at the call (its name and message checked) or the fixed behaviour, never a
traceback from inside the runtime, a file written where it should not be, or
a crash of the process."""

from __future__ import annotations

import os
import tempfile

import numpy as np
import pytest

import oclpy as cl
from oclpy.runtime.linking import MAGIC

KERNEL = "__kernel void k(__global int *a) { a[get_global_id(0)] = 1; }"


@pytest.fixture()
def private_tmp(tmp_path, monkeypatch):
    """The system temporary folder, for this test alone (others write to /tmp meanwhile)."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return str(folder)


def _raises(kind, code, match, fn, *args, **kwargs):
    with pytest.raises(kind, match=match) as info:
        fn(*args, **kwargs)
    assert info.value.code == code
    return info.value


@pytest.mark.parametrize("name", ["{tmp}/abs.h", "../up.h", "inc/../../up.h", "", "inc/", "a\0b.h"])
def test_header_names_cannot_leave_their_folder(ctx, name, private_tmp):
    name = name.format(tmp=private_tmp)
    header = cl.Program(ctx, "#define PWNED 1\n")
    main = cl.Program(ctx, f'#include "{name}"\n__kernel void k() {{}}\n')
    before = set(os.listdir(private_tmp))
    _raises(cl.LogicError, cl.status_code.INVALID_VALUE, "not a relative include name",
            main.compile, headers=[(name, header)])
    assert set(os.listdir(private_tmp)) == before


def test_header_in_a_subfolder_is_still_found(ctx):
    header = cl.Program(ctx, "#define VALUE 3\n")
    main = cl.Program(ctx, '#include "sub/v.h"\n__kernel void k(__global int *a) { a[0] = VALUE; }')
    main.compile(headers=[("sub/v.h", header)])
    assert main.get_build_info(ctx.devices[0], cl.program_build_info.BINARY_TYPE) == 1


def test_failed_builds_leave_nothing_in_the_temp_folder(ctx, private_tmp):
    before = set(os.listdir(private_tmp))
    for i in range(3):
        with pytest.raises(cl.RuntimeError, match="BUILD_PROGRAM_FAILURE"):
            cl.Program(ctx, f"__kernel void k{i}() {{ undeclared_{i} = 1; }}").build()
    with pytest.raises(cl.RuntimeError, match="COMPILE_PROGRAM_FAILURE"):
        cl.Program(ctx, "void f( {").compile(headers=[("h.h", cl.Program(ctx, "int x;"))])
    assert set(os.listdir(private_tmp)) == before


@pytest.mark.parametrize("source", ["__kernel void k() {}\n//\udcff\n", "__kernel void k() { \udcff }"])
def test_lone_surrogates_in_source_are_invalid_value(ctx, source):
    err = _raises(cl.LogicError, cl.status_code.INVALID_VALUE, "not valid Unicode text",
                  cl.Program, ctx, source)
    assert err.routine == "clCreateProgramWithSource"


def test_lone_surrogates_in_a_header_are_invalid_value(ctx):
    header = cl.Program(ctx, "int x;")
    header._source = "int \udcff;"  # a Program that slipped past the check
    _raises(cl.LogicError, cl.status_code.INVALID_VALUE, "not valid Unicode text",
            cl.Program(ctx, KERNEL).compile, headers=[("h.h", header)])


@pytest.mark.parametrize("header, message", [
    (b'{"type": "executable", "device": "cpu", "options": ["-O2"]}', "'options' is not a string"),
    (b'{"type": "executable", "device": 3, "options": ""}', "'device' is not a string"),
    (b'[1, 2]', "not an object"),
    (b"[" * 100_000 + b"]" * 100_000, "corrupt oclpy program binary"),
])
def test_binary_header_fields_are_checked(ctx, header, message):
    data = MAGIC + header + b"\n" + KERNEL.encode()
    _raises(cl.LogicError, cl.status_code.INVALID_BINARY, message,
            cl.Program, ctx, ctx.devices, [data])


@pytest.mark.parametrize("source, options", [
    ("__kernel void k(__global ulong *a) { a[0] = 18446744073709551616; }", ""),
    ("__kernel void k(__global ulong *a) { a[0] = X; }", "-D X=" + "9" * 5000),
])
def test_too_large_integer_literal_is_a_build_error(ctx, source, options):
    err = _raises(cl.RuntimeError, cl.status_code.BUILD_PROGRAM_FAILURE,
                  "error: integer literal is too large to be represented in any integer type",
                  cl.Program(ctx, source).build, options)
    assert "internal compiler error" not in str(err)


@pytest.mark.parametrize("shape, strides, dtype, message", [
    ((-1,), None, np.int32, "shape dimension must be a non-negative integer, got -1"),
    ((2**20, 2**20), None, np.int32, "overruns the buffer's 64 bytes"),
    ((2**62, 2**62, 2**62), None, np.int32, "spans"),
    ((4,), (1 << 20,), np.int32, "overruns the buffer's 64 bytes"),
    ((4,), (-4,), np.int32, "reach 12 bytes before the start of the map"),
    ((4, 4), (4,), np.int32, "1 strides for a shape of 2 dimensions"),
    ((4,), ("x",), np.int32, "a stride must be an integer"),
    ((4,), None, object, "a map cannot hold Python objects"),
    ((4,), None, "no-such-type", "invalid dtype"),
    ((1,) * 65, None, np.int32, "dimensions, got 65"),
    (2.5, None, np.int32, "shape must be a sequence"),
])
def test_map_shape_strides_and_dtype_are_checked(ctx, queue, shape, strides, dtype, message):
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64)
    _raises(cl.LogicError, cl.status_code.INVALID_VALUE, message, cl.enqueue_map_buffer,
            queue, buf, cl.map_flags.READ, 0, shape, dtype, strides=strides)


def test_map_with_strides_inside_the_buffer(ctx, queue):
    data = np.arange(16, dtype=np.int32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=data)
    ary, _ = cl.enqueue_map_buffer(queue, buf, cl.map_flags.READ, 4, (4, 2), np.int32, strides=(12, 4))
    assert ary.tolist() == [[1, 2], [4, 5], [7, 8], [10, 11]]
    ary.base.release()
    _raises(cl.LogicError, cl.status_code.INVALID_VALUE, "mapping 44 bytes at offset 24 overruns",
            cl.enqueue_map_buffer, queue, buf, cl.map_flags.READ, 24, (4, 2), np.int32, strides=(12, 4))


@pytest.mark.parametrize("global_size", [(2**64,), (2**32, 2**32), (2**22, 2**21, 2**21), (2**64 + 5, 1)])
def test_global_sizes_beyond_size_t_are_refused_at_the_call(ctx, queue, global_size):
    prg = cl.Program(ctx, KERNEL).build()
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64)
    local = None if len(global_size) == 1 else (1,) * len(global_size)
    _raises(cl.LogicError, cl.status_code.INVALID_GLOBAL_WORK_SIZE, "more than a size_t",
            prg.k, queue, global_size, local, buf)
    _raises(cl.LogicError, cl.status_code.INVALID_GLOBAL_WORK_SIZE, "more than a size_t",
            prg.k, queue, global_size, None, buf)


def test_wait_for_events_of_two_contexts(ctx, queue):
    other = cl.Context(dev_type=cl.device_type.CPU)
    mine, theirs = cl.enqueue_marker(queue), cl.enqueue_marker(cl.CommandQueue(other))
    _raises(cl.LogicError, cl.status_code.INVALID_CONTEXT, "2 different contexts",
            cl.wait_for_events, [mine, theirs])
    cl.wait_for_events([mine, cl.enqueue_marker(queue)])


def test_released_and_exited_queues_refuse_work(ctx):
    prg = cl.Program(ctx, KERNEL).build()
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64)
    released = cl.CommandQueue(ctx)
    released.release()
    _raises(cl.LogicError, cl.status_code.INVALID_COMMAND_QUEUE, "the queue was released", released.finish)
    _raises(cl.LogicError, cl.status_code.INVALID_COMMAND_QUEUE, "the queue was released",
            prg.k, released, (4,), None, buf)
    with cl.CommandQueue(ctx) as exited:
        prg.k(exited, (4,), None, buf)
    for call in (lambda: prg.k(exited, (4,), None, buf), lambda: prg.k(exited, (4,), None, buf),
                 lambda: cl.enqueue_copy(exited, np.zeros(4, np.int32), buf),
                 lambda: cl.enqueue_fill_buffer(exited, buf, np.int32(0), 0, 16)):
        _raises(cl.LogicError, cl.status_code.INVALID_COMMAND_QUEUE, "used after its `with` block", call)
    exited.finish()  # nothing pending: a no-op, as in PyOpenCL


def test_an_uncalled_helper_with_a_barrier_builds(ctx, queue):
    src = """void sync(__local int *p) { p[0] = 1; barrier(CLK_LOCAL_MEM_FENCE); }
             __kernel void k(__global int *a) { a[0] = 5; }"""
    prg = cl.Program(ctx, src).build()
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4)
    prg.k(queue, (1,), None, buf)
    out = np.zeros(1, np.int32)
    cl.enqueue_copy(queue, out, buf)
    assert out[0] == 5


def test_programs_built_run_and_released_leave_no_python_objects_behind(monkeypatch):
    """Issue 13's 2,000 programs grew RSS by ~80 KiB each: LLVM's (llvmlite 0.50's new pass
    manager keeps ~67 KiB per optimisation run, which no Python object holds). Ours is
    checked here: what tracemalloc sees left per program, the in-process cache cut to 2."""
    import gc
    import tracemalloc

    from oclpy.compiler import cache as buildcache

    monkeypatch.setattr(buildcache, "MEMORY_ENTRIES", 2)
    monkeypatch.setenv("OCLPY_NO_CACHE", "1")
    device = cl.Context(dev_type=cl.device_type.CPU).devices[0]
    tag = os.urandom(8).hex()

    def one(i):
        ctx = cl.Context([device])
        queue = cl.CommandQueue(ctx)
        buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 256)
        prg = cl.Program(ctx, f"__kernel void k(__global int *a) {{ a[get_global_id(0)] += {i}; }} // {tag}")
        prg.build().k(queue, (64,), None, buf)
        queue.finish()
        ctx.release()

    for i in range(8):
        one(i)
    tracemalloc.start()
    try:
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        for i in range(8, 38):
            one(i)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown / 30 < 8 << 10, f"{grown / 30:.0f} bytes per program"
