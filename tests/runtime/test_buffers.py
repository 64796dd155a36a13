"""Buffers: creation rules and errors, USE_HOST_PTR, sub-buffers, release."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import oclpy as cl

from .fakes import read

mf = cl.mem_flags


def test_copy_host_ptr_and_size(ctx, queue):
    host = np.arange(16, dtype=np.int32)
    buf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=host)
    assert buf.size == 64 and buf.get_info(cl.mem_info.SIZE) == 64
    host[:] = 0  # a copy was taken
    assert (read(queue, buf, host) == np.arange(16)).all()
    assert buf.get_info(cl.mem_info.FLAGS) == mf.READ_ONLY | mf.COPY_HOST_PTR


def test_explicit_size_smaller_than_hostbuf(ctx, queue):
    host = np.arange(16, dtype=np.int32)
    buf = cl.Buffer(ctx, mf.COPY_HOST_PTR, size=32, hostbuf=host)
    assert buf.size == 32
    assert (read(queue, buf, host[:8]) == np.arange(8)).all()


def test_memory_is_128_byte_aligned(ctx):
    from oclpy.runtime.drivers.cpu import ALIGNMENT

    driver = ctx.devices[0].driver
    for size in (1, 3, 100, 4096):
        alloc, offset = cl.Buffer(ctx, mf.READ_WRITE, size).allocation(driver)
        assert alloc.address % ALIGNMENT == 0 and offset == 0
        assert alloc.address == alloc.handle.ctypes.data


def test_use_host_ptr_shares_memory_on_cpu(ctx, queue):
    host = np.zeros(8, dtype=np.float32)
    buf = cl.Buffer(ctx, mf.READ_WRITE | mf.USE_HOST_PTR, hostbuf=host)
    assert buf.hostbuf is host
    cl.enqueue_fill_buffer(queue, buf, np.float32(2.5), 0, 32)
    queue.finish()
    assert (host == 2.5).all()


def test_alloc_host_ptr_is_accepted(ctx):
    assert cl.Buffer(ctx, mf.READ_WRITE | mf.ALLOC_HOST_PTR, 64).size == 64


def _raises(cls, code, text, fn, *args, **kwargs):
    with pytest.raises(cls) as info:
        fn(*args, **kwargs)
    assert info.value.code == code, str(info.value)
    assert text in str(info.value)
    return info.value


def test_size_zero_without_hostbuf(ctx):
    _raises(cl.LogicError, cl.status_code.INVALID_BUFFER_SIZE,
            "clCreateBuffer failed: INVALID_BUFFER_SIZE - buffer size 0 is not in 1..",
            cl.Buffer, ctx, mf.READ_WRITE)


def test_size_over_the_device_limit(ctx):
    too_big = ctx.devices[0].max_mem_alloc_size + 1
    _raises(cl.LogicError, cl.status_code.INVALID_BUFFER_SIZE, f"buffer size {too_big}",
            cl.Buffer, ctx, mf.READ_WRITE, too_big)


def test_negative_or_non_integer_size(ctx):
    _raises(cl.LogicError, cl.status_code.INVALID_BUFFER_SIZE, "size must be a non-negative integer",
            cl.Buffer, ctx, mf.READ_WRITE, -4)
    _raises(cl.LogicError, cl.status_code.INVALID_BUFFER_SIZE, "size must be a non-negative integer",
            cl.Buffer, ctx, mf.READ_WRITE, 4.5)
    assert cl.Buffer(ctx, mf.READ_WRITE, np.int64(8)).size == 8


def test_hostbuf_without_host_ptr_flag_warns_then_fails(ctx):
    with pytest.warns(UserWarning, match="'hostbuf' was passed, but no memory flags to make use of it."):
        _raises(cl.LogicError, cl.status_code.INVALID_HOST_PTR,
                "clCreateBuffer failed: INVALID_HOST_PTR - hostbuf given without COPY_HOST_PTR",
                cl.Buffer, ctx, mf.READ_ONLY, hostbuf=np.zeros(4, np.float32))


def test_host_ptr_flag_without_hostbuf(ctx):
    _raises(cl.LogicError, cl.status_code.INVALID_HOST_PTR, "COPY_HOST_PTR needs a hostbuf",
            cl.Buffer, ctx, mf.COPY_HOST_PTR, 16)


def test_hostbuf_too_small(ctx):
    _raises(cl.LogicError, cl.status_code.INVALID_VALUE,
            "Buffer failed: INVALID_VALUE - specified size is greater than host buffer size (64 > 16)",
            cl.Buffer, ctx, mf.COPY_HOST_PTR, 64, np.zeros(4, np.float32))


def test_empty_hostbuf(ctx):
    _raises(cl.LogicError, cl.status_code.INVALID_BUFFER_SIZE, "buffer size 0",
            cl.Buffer, ctx, mf.COPY_HOST_PTR, hostbuf=np.zeros(0, np.float32))


def test_bad_hostbufs(ctx):
    _raises(cl.LogicError, cl.status_code.INVALID_HOST_PTR,
            "hostbuf must support the buffer protocol (e.g. a numpy array), got list",
            cl.Buffer, ctx, mf.COPY_HOST_PTR, hostbuf=[1, 2, 3])
    _raises(cl.LogicError, cl.status_code.INVALID_HOST_PTR, "hostbuf must be contiguous",
            cl.Buffer, ctx, mf.COPY_HOST_PTR, hostbuf=np.zeros(8, np.float32)[::2])
    _raises(cl.LogicError, cl.status_code.INVALID_HOST_PTR, "hostbuf must be writable",
            cl.Buffer, ctx, mf.USE_HOST_PTR, hostbuf=b"abcd")
    assert cl.Buffer(ctx, mf.COPY_HOST_PTR, hostbuf=b"abcd").size == 4


@pytest.mark.parametrize("flags, text", [
    (mf.READ_ONLY | mf.WRITE_ONLY, "WRITE_ONLY and READ_ONLY are mutually exclusive"),
    (mf.USE_HOST_PTR | mf.COPY_HOST_PTR, "USE_HOST_PTR and COPY_HOST_PTR are mutually exclusive"),
    (mf.USE_HOST_PTR | mf.ALLOC_HOST_PTR, "USE_HOST_PTR and ALLOC_HOST_PTR are mutually exclusive"),
    (mf.HOST_READ_ONLY | mf.HOST_NO_ACCESS, "HOST_READ_ONLY and HOST_NO_ACCESS are mutually exclusive"),
    (1 << 20, "invalid mem_flags value 1048576"),
])
def test_invalid_flags(ctx, flags, text):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _raises(cl.LogicError, cl.status_code.INVALID_VALUE, text,
                cl.Buffer, ctx, flags, 16, np.zeros(4, np.float32))


def test_not_a_context():
    _raises(cl.LogicError, cl.status_code.INVALID_CONTEXT, "expected a Context, got str",
            cl.Buffer, "ctx", mf.READ_WRITE, 16)


def test_sub_region_and_slicing(ctx, queue):
    host = np.arange(128, dtype=np.int32)
    buf = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=host)
    sub = buf.get_sub_region(128, 64)
    assert sub.size == 64 and sub.offset == 128
    assert sub.get_info(cl.mem_info.ASSOCIATED_MEMOBJECT) is buf
    assert (read(queue, sub, host[:16]) == np.arange(32, 48)).all()
    cl.enqueue_fill_buffer(queue, sub, np.int32(-1), 0, 64)
    whole = read(queue, buf, host)
    assert (whole[32:48] == -1).all() and whole[31] == 31 and whole[48] == 48
    assert buf[256:512].size == 256


def test_sub_region_errors(ctx):
    buf = cl.Buffer(ctx, mf.READ_WRITE, 1024)
    _raises(cl.LogicError, cl.status_code.INVALID_VALUE,
            "region [896, 1152) is outside the buffer's 1024 bytes", buf.get_sub_region, 896, 256)
    _raises(cl.RuntimeError, cl.status_code.MISALIGNED_SUB_BUFFER_OFFSET,
            "sub-buffer origin 4 is not a multiple of 128 bytes", buf.get_sub_region, 4, 16)
    _raises(cl.LogicError, cl.status_code.INVALID_BUFFER_SIZE, "sub-buffer size must be > 0",
            buf.get_sub_region, 0, 0)
    _raises(cl.LogicError, cl.status_code.INVALID_MEM_OBJECT, "cannot make a sub-buffer of a sub-buffer",
            buf.get_sub_region(0, 256).get_sub_region, 0, 128)
    with pytest.raises(TypeError):
        buf[0:16:2]


def test_release_then_use(ctx, queue):
    buf = cl.Buffer(ctx, mf.READ_WRITE, 64)
    sub = buf.get_sub_region(0, 32)
    buf.release()
    _raises(cl.LogicError, cl.status_code.INVALID_MEM_OBJECT,
            "clEnqueueReadBuffer failed: INVALID_MEM_OBJECT - the buffer was released",
            cl.enqueue_copy, queue, np.zeros(16, np.float32), buf)
    # a sub-buffer keeps the memory alive
    assert read(queue, sub, np.zeros(8, np.float32)).shape == (8,)


def test_local_memory():
    assert cl.LocalMemory(256).size == 256
    assert cl.LocalMemory(np.int64(16)).size == 16
    _raises(cl.LogicError, cl.status_code.INVALID_VALUE, "size must be a non-negative integer, got -1",
            cl.LocalMemory, -1)


def test_buffers_migrate_between_devices_in_enqueue_order(ctx):
    """A context with two devices of separate memories (cpu and simt): a command on the
    second device waits for the first device's pending writes to the buffer, then copies
    the bytes over."""
    import threading

    simt = [d for d in cl.get_platforms()[0].get_devices() if d.kind == "simt"]
    if not simt:
        pytest.skip("the simt device is not available here")
    first, second = ctx.devices[0], simt[0]
    both = cl.Context([first, second])
    q1 = cl.CommandQueue(both, first, properties=cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE)
    q2 = cl.CommandQueue(both, second)
    buf = cl.Buffer(both, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.arange(4, dtype=np.int32))
    gate = cl.UserEvent(both)
    # held back by the gate: a write on the first device
    cl.enqueue_copy(q1, buf, np.full(4, 7, np.int32), is_blocking=False, wait_for=[gate])
    out = np.zeros(4, np.int32)
    read = cl.enqueue_copy(q2, out, buf, is_blocking=False)  # on the second device
    threading.Timer(0.05, gate.set_status, [cl.command_execution_status.COMPLETE]).start()
    read.wait()
    assert out.tolist() == [7, 7, 7, 7]  # saw the first device's write
    cl.enqueue_copy(q2, buf, np.full(4, 9, np.int32))
    cl.enqueue_copy(q1, out, buf)  # and back again
    assert out.tolist() == [9, 9, 9, 9]
    assert buf.storage.valid == {first.driver.memory_domain, second.driver.memory_domain}
    both.release()


def test_sub_region_flags(ctx):
    ro = cl.Buffer(ctx, mf.READ_ONLY, 1024)
    assert ro.get_sub_region(0, 128).flags == mf.READ_ONLY
    with pytest.raises(cl.LogicError, match="a sub-buffer of a READ_ONLY buffer cannot be WRITE_ONLY"):
        ro.get_sub_region(0, 128, mf.WRITE_ONLY)
    with pytest.raises(cl.LogicError, match="sub-buffer flags may not contain USE_HOST_PTR"):
        ro.get_sub_region(0, 128, mf.COPY_HOST_PTR)
