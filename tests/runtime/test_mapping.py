"""enqueue_map_buffer: zero-copy on the cpu, a host copy where the host cannot
address device memory, and the error paths."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy as cl

from .fakes import buffer_of, read

MAP = cl.map_flags


def test_map_is_the_buffer_memory_on_cpu(ctx, queue):
    buf = buffer_of(ctx, np.arange(12, dtype=np.float32))
    ary, evt = cl.enqueue_map_buffer(queue, buf, MAP.READ | MAP.WRITE, 0, (3, 4), np.float32)
    assert isinstance(ary.base, cl.MemoryMap)
    assert evt.command_type == cl.command_type.MAP_BUFFER
    assert (ary == np.arange(12).reshape(3, 4)).all()
    ary[1, 1] = -5
    ary.base.release().wait()
    assert read(queue, buf, np.zeros(12, np.float32))[5] == -5


def test_read_map_is_writable_and_fortran_order(ctx, queue):
    buf = buffer_of(ctx, np.arange(12, dtype=np.int32))
    ary, _ = cl.enqueue_map_buffer(queue, buf, MAP.READ, 8, 4, np.int32)
    assert list(ary) == [2, 3, 4, 5] and ary.flags.writeable  # as PyOpenCL's (on PoCL too)
    f, _ = cl.enqueue_map_buffer(queue, buf, MAP.READ, 0, (3, 4), np.int32, order="F")
    assert f.strides == (4, 12) and f[1, 0] == 1
    with f.base:
        pass
    assert f.base.released


def test_map_through_a_host_copy(ctx, queue, monkeypatch):
    driver = ctx.devices[0].driver
    monkeypatch.setattr(driver, "host_address", lambda alloc: None)
    buf = buffer_of(ctx, np.arange(8, dtype=np.int32))
    ary, _ = cl.enqueue_map_buffer(queue, buf, MAP.READ | MAP.WRITE, 0, (8,), np.int32)
    assert list(ary) == list(range(8))
    ary[:] = 7
    assert (read(queue, buf, np.zeros(8, np.int32)) == np.arange(8)).all()  # not written back yet
    ary.base.release()
    assert (read(queue, buf, np.zeros(8, np.int32)) == 7).all()


def test_writes_to_a_read_map_are_not_copied_back(ctx, queue, monkeypatch):
    """A READ map's array is writable, as PyOpenCL's; where it is a host copy (a device
    without host memory), releasing the map copies nothing back."""
    driver = ctx.devices[0].driver
    monkeypatch.setattr(driver, "host_address", lambda alloc: None)
    buf = buffer_of(ctx, np.arange(8, dtype=np.int32))
    ary, _ = cl.enqueue_map_buffer(queue, buf, MAP.READ, 0, (8,), np.int32)
    ary[:] = -1
    ary.base.release().wait()
    assert (read(queue, buf, np.zeros(8, np.int32)) == np.arange(8)).all()


def test_map_errors(ctx, queue):
    buf = buffer_of(ctx, np.arange(8, dtype=np.int32))
    with pytest.raises(cl.LogicError) as info:
        cl.enqueue_map_buffer(queue, buf, MAP.READ, 16, (8,), np.int32)
    assert info.value.code == cl.status_code.INVALID_VALUE
    assert "mapping 32 bytes at offset 16 overruns the buffer's 32 bytes" in str(info.value)
    with pytest.raises(cl.LogicError, match="invalid map_flags value 64"):
        cl.enqueue_map_buffer(queue, buf, 64, 0, (8,), np.int32)
    no_read = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.HOST_WRITE_ONLY, 32)
    with pytest.raises(cl.LogicError) as info:
        cl.enqueue_map_buffer(queue, no_read, MAP.READ, 0, (8,), np.int32)
    assert info.value.code == cl.status_code.INVALID_OPERATION
    ary, _ = cl.enqueue_map_buffer(queue, buf, MAP.READ, 0, (8,), np.int32)
    ary.base.release()
    with pytest.raises(cl.LogicError, match="the map was already released"):
        ary.base.release()
