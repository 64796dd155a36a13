"""Error paths of the foundation: bad kernel source (clang-style build log)
and host misuse (errors named after the OpenCL code, raised before anything
runs, nothing written)."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy as cl

BAD_SOURCE = """__kernel void k(__global int *out)
{
    out[0] = x + 1;
}
"""

GOOD_SOURCE = """__kernel void k(__global int *out, int v)
{
    out[get_global_id(0)] = v;
}
"""


def test_build_error_carries_clang_style_log(ctx):
    program = cl.Program(ctx, BAD_SOURCE)
    with pytest.raises(cl.RuntimeError) as info:
        program.build()
    err = info.value
    assert err.code == cl.status_code.BUILD_PROGRAM_FAILURE
    message = str(err)
    assert "BUILD_PROGRAM_FAILURE" in message
    assert "<kernel>:3:14: error: use of undeclared identifier 'x'" in message
    assert "    out[0] = x + 1;\n             ^" in message
    log = program.get_build_info(ctx.devices[0], cl.program_build_info.LOG)
    assert "<kernel>:3:14: error: use of undeclared identifier 'x'" in log


def test_several_errors_reported_in_one_build(ctx):
    src = "__kernel void k(__global int *o) {\n  o[0] = a;\n  o[1] = b;\n}\n"
    with pytest.raises(cl.RuntimeError) as info:
        cl.Program(ctx, src).build()
    message = str(info.value)
    assert "<kernel>:2:10: error: use of undeclared identifier 'a'" in message
    assert "<kernel>:3:10: error: use of undeclared identifier 'b'" in message


def test_syntax_error(ctx):
    src = "__kernel void k(__global int *o) {\n  o[0] = 1\n}\n"
    with pytest.raises(cl.RuntimeError) as info:
        cl.Program(ctx, src).build()
    assert "<kernel>:2:11: error: expected ';' after expression" in str(info.value)


@pytest.fixture()
def kernel_and_buffer(ctx):
    program = cl.Program(ctx, GOOD_SOURCE).build()
    host = np.full(16, 7, np.int32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=host)
    return program, buf, host


def _unchanged(queue, buf):
    out = np.zeros(16, np.int32)
    cl.enqueue_copy(queue, out, buf)
    queue.finish()
    return bool((out == 7).all())


def test_wrong_argument_count(queue, kernel_and_buffer):
    program, buf, _ = kernel_and_buffer
    with pytest.raises(cl.LogicError) as info:
        program.k(queue, (16,), (4,), buf)
    assert info.value.code == cl.status_code.INVALID_KERNEL_ARGS
    assert "INVALID_KERNEL_ARGS" in str(info.value)
    assert _unchanged(queue, buf)


def test_python_int_where_buffer_expected(queue, kernel_and_buffer):
    program, buf, _ = kernel_and_buffer
    with pytest.raises(cl.Error) as info:
        program.k(queue, (16,), (4,), 5, np.int32(1))
    assert "INVALID" in str(info.value)
    assert _unchanged(queue, buf)


def test_global_size_not_divisible(queue, kernel_and_buffer):
    program, buf, _ = kernel_and_buffer
    with pytest.raises(cl.LogicError) as info:
        program.k(queue, (16,), (5,), buf, np.int32(1))
    assert info.value.code == cl.status_code.INVALID_WORK_GROUP_SIZE
    assert "INVALID_WORK_GROUP_SIZE" in str(info.value)
    assert _unchanged(queue, buf)


def test_read_past_end_of_buffer(queue, kernel_and_buffer):
    _, buf, _ = kernel_and_buffer
    big = np.zeros(32, np.int32)
    with pytest.raises(cl.LogicError) as info:
        cl.enqueue_copy(queue, big, buf)
    assert info.value.code == cl.status_code.INVALID_VALUE
    assert not big.any()
