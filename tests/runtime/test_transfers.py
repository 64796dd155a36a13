"""enqueue_copy / enqueue_fill_buffer: every direction, every check, nothing copied on error."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import oclpy as cl

from .fakes import buffer_of, read

mf = cl.mem_flags


@pytest.fixture()
def buf(ctx):
    return buffer_of(ctx, np.arange(16, dtype=np.int32))


def unchanged(queue, buf) -> bool:
    return bool((read(queue, buf, np.zeros(16, np.int32)) == np.arange(16)).all())


def test_host_to_buffer_with_offset(queue, buf):
    evt = cl.enqueue_copy(queue, buf, np.full(4, -1, np.int32), dst_offset=8)
    assert evt.command_execution_status == cl.command_execution_status.COMPLETE
    out = read(queue, buf, np.zeros(16, np.int32))
    assert list(out[:6]) == [0, 1, -1, -1, -1, -1] and out[6] == 6


def test_buffer_to_host_with_offset(queue, buf):
    out = np.zeros(4, np.int32)
    cl.enqueue_copy(queue, out, buf, src_offset=48)
    assert list(out) == [12, 13, 14, 15]


def test_deprecated_offset_names(queue, buf):
    with pytest.warns(DeprecationWarning, match="'device_offset' argument of enqueue_copy is deprecated"):
        cl.enqueue_copy(queue, buf, np.full(1, 99, np.int32), device_offset=4)
    out = np.zeros(2, np.int32)
    cl.enqueue_copy(queue, out, buf)
    assert list(out) == [0, 99]


def test_buffer_to_buffer(ctx, queue, buf):
    dst = cl.Buffer(ctx, mf.READ_WRITE, 64)
    cl.enqueue_copy(queue, dst, buf, src_offset=16, dst_offset=0, byte_count=16)
    cl.enqueue_copy(queue, dst, buf, src_offset=0, dest_offset=16, byte_count=8)
    out = read(queue, dst, np.zeros(16, np.int32))
    assert list(out[:6]) == [4, 5, 6, 7, 0, 1]


def test_buffer_to_buffer_default_count_is_the_smaller(ctx, queue, buf):
    small = cl.Buffer(ctx, mf.READ_WRITE, 16)
    cl.enqueue_copy(queue, small, buf, src_offset=4)
    assert list(read(queue, small, np.zeros(4, np.int32))) == [1, 2, 3, 4]


def test_read_more_than_the_buffer_holds(queue, buf):
    big = np.full(32, 5, np.int32)
    with pytest.raises(cl.LogicError) as info:
        cl.enqueue_copy(queue, big, buf)
    assert info.value.code == cl.status_code.INVALID_VALUE
    assert str(info.value) == ("clEnqueueReadBuffer failed: INVALID_VALUE - reading 128 bytes "
                               "at offset 0 overruns the buffer's 64 bytes")
    assert (big == 5).all()  # nothing copied


def test_write_past_the_end(queue, buf):
    with pytest.raises(cl.LogicError, match="writing 16 bytes at offset 56 overruns the buffer's 64 bytes"):
        cl.enqueue_copy(queue, buf, np.full(4, -1, np.int32), dst_offset=56)
    assert unchanged(queue, buf)


def test_buffer_copy_errors(ctx, queue, buf):
    dst = cl.Buffer(ctx, mf.READ_WRITE, 64)
    with pytest.raises(cl.LogicError, match="clEnqueueCopyBuffer failed: INVALID_VALUE - reading 64 bytes at offset 8"):
        cl.enqueue_copy(queue, dst, buf, src_offset=8, byte_count=64)
    with pytest.raises(cl.RuntimeError) as info:
        cl.enqueue_copy(queue, buf, buf, src_offset=0, dst_offset=8, byte_count=16)
    assert info.value.code == cl.status_code.MEM_COPY_OVERLAP
    assert unchanged(queue, buf)


def test_host_to_host_is_a_type_error(queue):
    with pytest.raises(TypeError, match="enqueue_copy cannot perform host-to-host transfers"):
        cl.enqueue_copy(queue, np.zeros(4), np.zeros(4))


def test_unknown_keyword(queue, buf):
    with pytest.raises(TypeError, match="unexpected keyword argument 'offset'"):
        cl.enqueue_copy(queue, np.zeros(4, np.int32), buf, offset=4)


def test_read_into_readonly_or_strided_array(queue, buf):
    ro = np.zeros(4, np.int32)
    ro.flags.writeable = False
    with pytest.raises(cl.LogicError, match="destination host array must be writable"):
        cl.enqueue_copy(queue, ro, buf)
    with pytest.raises(cl.LogicError, match="destination host array must be contiguous"):
        cl.enqueue_copy(queue, np.zeros(8, np.int32)[::2], buf)


def test_host_access_flags(ctx, queue):
    no_read = cl.Buffer(ctx, mf.READ_WRITE | mf.HOST_WRITE_ONLY, 16)
    with pytest.raises(cl.LogicError) as info:
        cl.enqueue_copy(queue, np.zeros(4, np.int32), no_read)
    assert info.value.code == cl.status_code.INVALID_OPERATION
    assert "HOST_WRITE_ONLY" in str(info.value)
    no_write = cl.Buffer(ctx, mf.READ_WRITE | mf.HOST_READ_ONLY, 16)
    with pytest.raises(cl.LogicError, match="HOST_READ_ONLY"):
        cl.enqueue_copy(queue, no_write, np.zeros(4, np.int32))


def test_buffer_of_another_context(queue):
    other = cl.Context(dev_type=cl.device_type.CPU)
    foreign = cl.Buffer(other, mf.READ_WRITE, 16)
    with pytest.raises(cl.LogicError) as info:
        cl.enqueue_copy(queue, np.zeros(4, np.int32), foreign)
    assert info.value.code == cl.status_code.INVALID_CONTEXT


def test_non_blocking_read_keeps_the_array_alive(ctx, queue, buf):
    gate = cl.UserEvent(ctx)
    backing = np.zeros(32, np.int32)
    out = backing[:16]  # the caller drops `out`; `backing` lets us look at the bytes
    ref = weakref.ref(out)
    evt = cl.enqueue_copy(queue, out, buf, is_blocking=False, wait_for=[gate])
    assert isinstance(evt, cl.NannyEvent) and evt.get_ward() is out
    del out
    gc.collect()
    assert ref() is not None  # the event holds it while the read waits
    assert evt.command_execution_status == cl.command_execution_status.SUBMITTED or \
        evt.command_execution_status == cl.command_execution_status.QUEUED
    gate.set_status(cl.command_execution_status.COMPLETE)
    evt.wait()
    assert (backing[:16] == np.arange(16)).all() and (backing[16:] == 0).all()
    gc.collect()
    assert ref() is None and evt.get_ward() is None  # released once complete


def test_fill_buffer(queue, buf):
    cl.enqueue_fill_buffer(queue, buf, np.int16(-1), 8, 16)
    out = read(queue, buf, np.zeros(16, np.int32))
    assert list(out[:7]) == [0, 1, -1, -1, -1, -1, 6]
    cl.enqueue_fill_buffer(queue, buf, b"\x01\x00\x00\x00", 0, 64)
    assert (read(queue, buf, np.zeros(16, np.int32)) == 1).all()


@pytest.mark.parametrize("pattern, offset, size, text", [
    (np.zeros(3, np.uint8), 0, 12, "pattern size must be a power of two from 1 to 128 bytes, got 3"),
    (np.int32(1), 2, 8, "offset (2) and size (8) must be multiples of the pattern size (4)"),
    (np.int32(1), 0, 6, "offset (0) and size (6) must be multiples of the pattern size (4)"),
    (np.int32(1), 32, 64, "filling 64 bytes at offset 32 overruns the buffer's 64 bytes"),
    (7, 0, 4, "pattern must support the buffer protocol"),
])
def test_fill_errors(queue, buf, pattern, offset, size, text):
    with pytest.raises(cl.LogicError) as info:
        cl.enqueue_fill_buffer(queue, buf, pattern, offset, size)
    assert info.value.code == cl.status_code.INVALID_VALUE and text in str(info.value)
    assert unchanged(queue, buf)


def test_rect_write_and_read(ctx, queue):
    grid = np.zeros((4, 6), np.int32)  # 4 rows of 24 bytes
    buf = buffer_of(ctx, grid)
    patch = np.array([[1, 2], [3, 4]], np.int32)
    cl.enqueue_copy(queue, buf, patch, buffer_origin=(8, 1), host_origin=(0, 0), region=(8, 2),
                    buffer_pitches=(24,))
    out = read(queue, buf, grid)
    assert out[1, 2:4].tolist() == [1, 2] and out[2, 2:4].tolist() == [3, 4]
    assert out.sum() == 10
    back = np.zeros((2, 2), np.int32)
    cl.enqueue_copy(queue, back, buf, buffer_origin=(8, 1), host_origin=(0, 0), region=(8, 2),
                    buffer_pitches=(24,))
    assert (back == patch).all()


def test_rect_buffer_to_buffer(ctx, queue):
    src = buffer_of(ctx, np.arange(24, dtype=np.int32))  # 4 rows of 6 ints
    dst = buffer_of(ctx, np.zeros(24, np.int32))
    cl.enqueue_copy(queue, dst, src, src_origin=(4, 1), dst_origin=(0, 2), region=(12, 2),
                    src_pitches=(24,), dst_pitches=(24,))
    out = read(queue, dst, np.zeros(24, np.int32)).reshape(4, 6)
    assert out[2, :3].tolist() == [7, 8, 9] and out[3, :3].tolist() == [13, 14, 15]
    assert out.sum() == 7 + 8 + 9 + 13 + 14 + 15


def test_rect_errors(ctx, queue, buf):
    host = np.zeros(16, np.int32)
    with pytest.raises(cl.LogicError) as info:
        cl.enqueue_copy(queue, host, buf, buffer_origin=(0, 3), host_origin=(0,), region=(16, 2),
                        buffer_pitches=(16,))
    assert info.value.code == cl.status_code.INVALID_VALUE
    assert "the buffer region ends at byte 80, past the buffer's 64 bytes" in str(info.value)
    with pytest.raises(cl.LogicError, match=r"buffer_pitches \(4, 4\) are smaller than the region \(8, 1, 1\)"):
        cl.enqueue_copy(queue, host, buf, buffer_origin=(0,), host_origin=(0,), region=(8, 1),
                        buffer_pitches=(4,))
    with pytest.raises(cl.LogicError, match="region must be 1 to 3 non-negative integers"):
        cl.enqueue_copy(queue, host, buf, buffer_origin=(0,), host_origin=(0,), region=(1, 1, 1, 1))
    assert (host == 0).all() and unchanged(queue, buf)


def test_rect_copy_within_one_buffer(ctx, queue):
    host = np.arange(64, dtype=np.uint8)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=host)
    # 4x4 block at rows 0..3, columns 0..3 -> columns 8..11 of the same rows: no overlap
    cl.enqueue_copy(queue, buf, buf, src_origin=(0, 0), dst_origin=(8, 0), region=(4, 4),
                    src_pitches=(16,), dst_pitches=(16,)).wait()
    out = np.empty_like(host)
    cl.enqueue_copy(queue, out, buf)
    expect = host.copy().reshape(4, 16)
    expect[:, 8:12] = expect[:, 0:4]
    assert (out.reshape(4, 16) == expect).all()
    before = out.copy()
    for dst_origin in [(2, 0), (0, 1), (3, 1)]:  # each meets a source row
        with pytest.raises(cl.RuntimeError, match="overlap in the same buffer") as info:
            cl.enqueue_copy(queue, buf, buf, src_origin=(0, 0), dst_origin=dst_origin,
                            region=(4, 2), src_pitches=(16,), dst_pitches=(16,))
        assert info.value.code == cl.status_code.MEM_COPY_OVERLAP
    # interleaved rows never meet: bytes 0-15, 32-47 -> 16-31, 48-63 (a 32-byte pitch)
    cl.enqueue_copy(queue, buf, buf, src_origin=(0, 0), dst_origin=(16, 0), region=(16, 2),
                    src_pitches=(32,), dst_pitches=(32,)).wait()
    sub = buf.get_sub_region(0, 32)
    with pytest.raises(cl.RuntimeError) as info:  # a sub-buffer shares the parent's bytes
        cl.enqueue_copy(queue, sub, buf, src_origin=(0, 0), dst_origin=(0, 0), region=(4, 1))
    assert info.value.code == cl.status_code.MEM_COPY_OVERLAP
    cl.enqueue_copy(queue, out, buf)
    assert (out[16:32] == before[0:16]).all() and (out[48:64] == before[32:48]).all()


def test_rows_overlap_sweep():
    from oclpy.runtime.rect import rows_overlap

    assert not rows_overlap([0, 32], [16, 48], 16)
    assert rows_overlap([0, 32], [16, 47], 16)
    assert rows_overlap([10], [0, 100], 11)
    assert not rows_overlap([5], [5], 0)


def test_a_blocking_read_right_after_a_first_launch_waits_for_the_kernel():
    # a first launch from the main thread goes to the cpu driver's stream and the enqueue
    # returns at once; the read that follows must wait for it (the transfer fast path
    # must not complete a copy the driver queued behind the stream)
    ctx = cl.create_some_context(interactive=False)
    queue = cl.CommandQueue(ctx)
    src = """__kernel void slow(__global int *out, int n) {
        int acc = 0;
        for (int i = 0; i < n; i++) acc = acc * 1103515245 + i;
        out[get_global_id(0)] = (acc & 1) | 2;
    }"""
    prg = cl.Program(ctx, src).build()
    out = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4 * 64)
    cl.enqueue_fill_buffer(queue, out, np.int32(0), 0, 4 * 64)
    prg.slow(queue, (64,), None, out, np.int32(2_000_000))
    host = np.zeros(64, np.int32)
    cl.enqueue_copy(queue, host, out)
    assert set(host.tolist()) <= {2, 3} and 0 not in host
