"""Contexts of several devices: builds per device, kernels on any device's queue,
buffers valid everywhere (migrated on demand and by enqueue_migrate_mem_objects),
events waited on across devices. cpu + simt here (simt is pure Python: always there),
and two cpu drivers whose memories count as separate, standing in for two GPUs."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import oclpy as cl
from oclpy.runtime.device import Device
from oclpy.runtime.drivers.cpu import CpuDriver

mf = cl.mem_flags

SRC = """
__kernel void scale(__global const float *a, __global float *b, float k)
{ int i = get_global_id(0); b[i] = k * a[i]; }
__kernel void add(__global const float *a, __global const float *b, __global float *c)
{ int i = get_global_id(0); c[i] = a[i] + b[i]; }
__kernel void bump(__global int *x) { x[get_global_id(0)] += 1; }
"""


def _devices(*kinds: str) -> list[cl.Device]:
    found = {d.kind: d for d in cl.get_platforms()[0].get_devices()}
    missing = [k for k in kinds if k not in found]
    if missing:
        pytest.skip(f"device(s) {', '.join(missing)} not available here")
    return [found[k] for k in kinds]


@pytest.fixture
def two():
    cpu, simt = _devices("cpu", "simt")
    ctx = cl.Context([cpu, simt])
    yield ctx, cl.CommandQueue(ctx, cpu), cl.CommandQueue(ctx, simt)
    ctx.release()


def test_program_builds_for_every_device_with_logs_and_binaries(two):
    ctx, qc, qs = two
    prg = cl.Program(ctx, SRC).build(options="-DUNUSED=1")
    for dev in ctx.devices:
        assert prg.get_build_info(dev, cl.program_build_info.STATUS) == cl.build_status.SUCCESS
        assert prg.get_build_info(dev, cl.program_build_info.OPTIONS) == "-DUNUSED=1"
        assert prg.get_build_info(dev, cl.program_build_info.LOG) == ""
    binaries = prg.binaries
    assert len(binaries) == 2 and all(binaries)
    assert b'"cpu"' in binaries[0].split(b"\n")[0]
    assert b'"simt"' in binaries[1].split(b"\n")[0]
    again = cl.Program(ctx, ctx.devices, binaries).build()
    assert again.get_build_info(ctx.devices[1], cl.program_build_info.STATUS) == cl.build_status.SUCCESS


def test_build_on_one_device_only(two):
    ctx, qc, qs = two
    prg = cl.Program(ctx, SRC).build(devices=[ctx.devices[1]])
    assert prg.get_build_info(ctx.devices[0], cl.program_build_info.STATUS) == cl.build_status.NONE
    a = cl.Buffer(ctx, mf.READ_WRITE, 16)
    with pytest.raises(cl.LogicError, match="INVALID_PROGRAM_EXECUTABLE.*was not built for"):
        prg.bump(qc, (4,), None, a)
    prg.bump(qs, (4,), None, a)
    out = np.empty(4, np.int32)
    cl.enqueue_copy(qc, out, a)
    assert out.tolist() == [1, 1, 1, 1]


def test_build_failure_names_each_device(two):
    ctx, _, _ = two
    with pytest.raises(cl.RuntimeError) as info:
        cl.Program(ctx, "__kernel void k(__global int *x) { x[0] = y; }").build()
    text = str(info.value)
    assert "BUILD_PROGRAM_FAILURE" in text
    assert "Build on <oclpy.Device 'oclpy cpu'" in text and "Build on <oclpy.Device 'oclpy simt" in text
    assert text.count("use of undeclared identifier 'y'") == 2


def _failed(ctx):
    prg = cl.Program(ctx, "__kernel void k(__global int *x) { x[0] = y; }")
    try:
        prg.build()
    except cl.RuntimeError:
        pass
    return prg


def test_build_log_per_device_after_failure(two):
    ctx, _, _ = two
    prg = _failed(ctx)
    for dev in ctx.devices:
        assert prg.get_build_info(dev, cl.program_build_info.STATUS) == cl.build_status.ERROR
        assert "use of undeclared identifier 'y'" in prg.get_build_info(dev, cl.program_build_info.LOG)


def test_pipeline_across_devices_matches_numpy(two):
    """simt scales, cpu adds, simt scales again: every hop migrates the bytes."""
    ctx, qc, qs = two
    prg = cl.Program(ctx, SRC).build()
    rng = np.random.default_rng(1)
    a = rng.random(1024, dtype=np.float32)
    b = rng.random(1024, dtype=np.float32)
    ga = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a)
    gb = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=b)
    t = cl.Buffer(ctx, mf.READ_WRITE, a.nbytes)
    u = cl.Buffer(ctx, mf.READ_WRITE, a.nbytes)
    prg.scale(qs, a.shape, None, ga, t, np.float32(3))
    prg.add(qc, a.shape, None, t, gb, u)
    prg.scale(qs, a.shape, None, u, t, np.float32(0.5))
    out = np.empty_like(a)
    cl.enqueue_copy(qc, out, t)
    np.testing.assert_allclose(out, (3 * a + b) * 0.5, rtol=1e-6)


def test_readers_share_and_writer_invalidates(two):
    ctx, qc, qs = two
    prg = cl.Program(ctx, SRC).build()
    x = np.arange(256, dtype=np.float32)
    gx = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
    o1 = cl.Buffer(ctx, mf.READ_WRITE, x.nbytes)
    o2 = cl.Buffer(ctx, mf.READ_WRITE, x.nbytes)
    cpu, simt = (d.driver.memory_domain for d in ctx.devices)
    prg.scale(qs, x.shape, None, gx, o1, np.float32(2))  # const input: read on simt
    prg.scale(qc, x.shape, None, gx, o2, np.float32(4))
    qs.finish()
    qc.finish()
    assert gx.storage.valid == {cpu, simt}  # both copies current: nobody wrote
    assert o1.storage.valid == {simt} and o2.storage.valid == {cpu}
    ints = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.zeros(8, np.int32))
    prg.bump(qs, (8,), None, ints)  # a non-const pointer: written on simt
    qs.finish()
    assert ints.storage.valid == {simt}
    prg.bump(qc, (8,), None, ints)
    out = np.empty(8, np.int32)
    cl.enqueue_copy(qs, out, ints)
    assert out.tolist() == [2] * 8
    r1, r2 = np.empty_like(x), np.empty_like(x)
    cl.enqueue_copy(qc, r1, o1)
    cl.enqueue_copy(qs, r2, o2)
    np.testing.assert_array_equal(r1, 2 * x)
    np.testing.assert_array_equal(r2, 4 * x)


def test_a_write_waits_for_a_migration_still_reading_the_bytes_out(two):
    """simt's read copies the cpu's bytes when it runs (after a gate); a cpu write enqueued
    after it must not overwrite them before the copy: it waits for that command."""
    ctx, qc, qs = two
    buf = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.ones(4, np.int32))
    gate = cl.UserEvent(ctx)
    seen = np.zeros(4, np.int32)
    read = cl.enqueue_copy(qs, seen, buf, is_blocking=False, wait_for=[gate])
    write = cl.enqueue_copy(qc, buf, np.full(4, 9, np.int32), is_blocking=False)
    time.sleep(0.05)
    assert write.command_execution_status != cl.command_execution_status.COMPLETE
    gate.set_status(cl.command_execution_status.COMPLETE)
    read.wait()
    write.wait()
    assert seen.tolist() == [1, 1, 1, 1]
    after = np.empty(4, np.int32)
    cl.enqueue_copy(qs, after, buf)
    assert after.tolist() == [9, 9, 9, 9]


def test_event_of_one_device_waited_on_by_another(two):
    ctx, qc, qs = two
    prg = cl.Program(ctx, SRC).build()
    gate = cl.UserEvent(ctx)
    buf = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.zeros(4, np.int32))
    w = cl.enqueue_copy(qc, buf, np.full(4, 5, np.int32), is_blocking=False, wait_for=[gate])
    k = prg.bump(qs, (4,), None, buf, wait_for=[w])  # simt waits for the cpu's write
    assert k.command_execution_status != cl.command_execution_status.COMPLETE
    threading.Timer(0.05, gate.set_status, [cl.command_execution_status.COMPLETE]).start()
    k.wait()
    out = np.empty(4, np.int32)
    cl.enqueue_copy(qc, out, buf)
    assert out.tolist() == [6, 6, 6, 6]


def test_failed_event_fails_the_other_devices_command(two):
    ctx, qc, qs = two
    prg = cl.Program(ctx, SRC).build()
    gate = cl.UserEvent(ctx)
    buf = cl.Buffer(ctx, mf.READ_WRITE, 16)
    k = prg.bump(qs, (4,), None, buf, wait_for=[gate])
    gate.set_status(-1)
    with pytest.raises(cl.RuntimeError, match="EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST"):
        k.wait()


def test_migrate_mem_objects_moves_and_keeps(two):
    ctx, qc, qs = two
    cpu, simt = (d.driver.memory_domain for d in ctx.devices)
    data = np.arange(32, dtype=np.int32)
    buf = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=data)
    assert buf.storage.valid == {cpu}
    evt = cl.enqueue_migrate_mem_objects(qs, [buf])
    evt.wait()
    assert evt.command_type == cl.command_type.MIGRATE_MEM_OBJECTS
    assert buf.storage.valid == {cpu, simt}
    out = np.empty_like(data)
    cl.enqueue_copy(qs, out, buf)
    assert out.tolist() == data.tolist()
    prg = cl.Program(ctx, SRC).build()
    prg.bump(qs, (32,), None, buf)
    cl.enqueue_migrate_mem_objects(qs, [buf], cl.mem_migration_flags.HOST).wait()
    assert cpu in buf.storage.valid  # to the host: the cpu's memory
    cl.enqueue_copy(qc, out, buf)
    assert out.tolist() == (data + 1).tolist()


def test_migrate_content_undefined_copies_nothing(two):
    ctx, qc, qs = two
    cpu, simt = (d.driver.memory_domain for d in ctx.devices)
    buf = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.full(8, 3, np.int32))
    cl.enqueue_migrate_mem_objects(qs, [buf], cl.mem_migration_flags.CONTENT_UNDEFINED).wait()
    assert buf.storage.valid == {simt}  # the simt copy is current, uncopied (zeros)
    out = np.empty(8, np.int32)
    cl.enqueue_copy(qs, out, buf)
    assert out.tolist() == [0] * 8


def test_migrate_waits_for_wait_list(two):
    ctx, qc, qs = two
    buf = cl.Buffer(ctx, mf.READ_WRITE, 16)
    gate = cl.UserEvent(ctx)
    evt = cl.enqueue_migrate_mem_objects(qs, [buf], wait_for=[gate])
    assert evt.command_execution_status != cl.command_execution_status.COMPLETE
    gate.set_status(cl.command_execution_status.COMPLETE)
    evt.wait()


@pytest.mark.parametrize("args, code, message", [
    (lambda q, b: ([], 0), "INVALID_VALUE", "no memory objects to migrate"),
    (lambda q, b: ([b], 4), "INVALID_VALUE", "invalid mem_migration_flags 4"),
    (lambda q, b: ([b], -1), "INVALID_VALUE", "invalid mem_migration_flags -1"),
    (lambda q, b: ([np.zeros(4)], 0), "INVALID_MEM_OBJECT", "expected a Buffer or an Image, got ndarray"),
])
def test_migrate_errors(two, args, code, message):
    ctx, qc, qs = two
    buf = cl.Buffer(ctx, mf.READ_WRITE, 16)
    objs, flags = args(qs, buf)
    with pytest.raises(cl.LogicError) as info:
        cl.enqueue_migrate_mem_objects(qs, objs, flags)
    assert info.value.code == getattr(cl.status_code, code)
    assert f"clEnqueueMigrateMemObjects failed: {code} - {message}" in str(info.value)


def test_migrate_errors_context_and_released(two):
    ctx, qc, qs = two
    other = cl.Context([ctx.devices[0]])
    foreign = cl.Buffer(other, mf.READ_WRITE, 16)
    with pytest.raises(cl.LogicError, match="INVALID_CONTEXT - a buffer belongs to another context"):
        cl.enqueue_migrate_mem_objects(qs, [foreign])
    gone = cl.Buffer(ctx, mf.READ_WRITE, 16)
    gone.release()
    with pytest.raises(cl.LogicError, match="INVALID_MEM_OBJECT - the buffer was released"):
        cl.enqueue_migrate_mem_objects(qs, [gone])
    with pytest.raises(cl.LogicError, match="INVALID_COMMAND_QUEUE - expected a CommandQueue"):
        cl.enqueue_migrate_mem_objects(ctx, [foreign])
    with pytest.raises(cl.LogicError, match="INVALID_EVENT_WAIT_LIST"):
        cl.enqueue_migrate_mem_objects(qs, [cl.Buffer(ctx, mf.READ_WRITE, 16)], wait_for=[3])
    other.release()


def test_buffer_size_limit_is_the_smallest_device(two):
    ctx, _, _ = two
    limit = min(d.max_mem_alloc_size for d in ctx.devices)
    message = f"INVALID_BUFFER_SIZE - buffer size {limit + 1} is not in 1..{limit}"
    with pytest.raises(cl.LogicError, match=message):
        cl.Buffer(ctx, mf.READ_WRITE, limit + 1)


def test_queue_for_a_device_outside_the_context():
    cpu, simt = _devices("cpu", "simt")
    ctx = cl.Context([cpu])
    with pytest.raises(cl.LogicError, match="INVALID_DEVICE - .* is not a device of this context"):
        cl.CommandQueue(ctx, simt)
    ctx.release()


class SeparateMemoryCpu(CpuDriver):
    """A cpu driver whose memory counts as its own (as a GPU's is): two of them stand in
    for two GPUs, so every buffer crossing between them is migrated."""

    def __init__(self, ordinal: int = 0) -> None:
        super().__init__(workers=1)
        self.ordinal = ordinal

    @property
    def memory_domain(self):
        return self

    @classmethod
    def ordinals(cls) -> list[int]:
        return [0, 1]


@pytest.fixture
def two_memories():
    platform = cl.get_platforms()[0]
    devs = [Device(SeparateMemoryCpu(n), platform) for n in (0, 1)]
    ctx = cl.Context(devs)
    yield ctx, [cl.CommandQueue(ctx, d) for d in devs]
    ctx.release()


MATMUL = """
__kernel void matmul(__global const float *a, __global const float *b, __global float *c,
                     int n, int k)
{
    int col = get_global_id(0), row = get_global_id(1);
    float acc = 0.0f;
    for (int j = 0; j < k; j++) acc += a[row * k + j] * b[j * n + col];
    c[row * n + col] = acc;
}
"""


def test_buffer_written_on_one_device_read_by_a_kernel_on_the_other(two_memories):
    ctx, (q0, q1) = two_memories
    prg = cl.Program(ctx, SRC).build()
    x = np.arange(512, dtype=np.float32)
    buf = cl.Buffer(ctx, mf.READ_WRITE, x.nbytes)
    out = cl.Buffer(ctx, mf.READ_WRITE, x.nbytes)
    cl.enqueue_copy(q0, buf, x)  # written on device 0
    prg.scale(q1, x.shape, None, buf, out, np.float32(2))  # read by a kernel on device 1
    res = np.empty_like(x)
    cl.enqueue_copy(q0, res, out)  # and back
    np.testing.assert_array_equal(res, 2 * x)
    assert len(buf.storage.allocations) == 2 and len(out.storage.allocations) == 2


def test_split_matrix_multiply_over_two_devices(two_memories):
    """C = A B with the rows of A (and C) split between the devices; B is read by both."""
    ctx, queues = two_memories
    prg = cl.Program(ctx, MATMUL).build()
    rng = np.random.default_rng(5)
    m, k, n = 64, 48, 32
    a = rng.random((m, k), dtype=np.float32)
    b = rng.random((k, n), dtype=np.float32)
    ga = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a)
    gb = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=b)
    gc = cl.Buffer(ctx, mf.WRITE_ONLY, m * n * 4)
    half = m // 2
    events = []
    for i, q in enumerate(queues):
        rows_a = ga[i * half * k * 4:(i + 1) * half * k * 4]
        rows_c = gc[i * half * n * 4:(i + 1) * half * n * 4]
        events.append(prg.matmul(q, (n, half), None, rows_a, gb, rows_c, np.int32(n), np.int32(k)))
    for e in events:
        e.wait()
    assert gb.storage.valid == {d.driver.memory_domain for d in ctx.devices}  # B read on both
    c = np.empty((m, n), np.float32)
    cl.enqueue_copy(queues[0], c, gc)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5)


def test_a_driver_class_with_ordinals_makes_one_device_per_ordinal(monkeypatch):
    from oclpy.runtime import drivers

    monkeypatch.setitem(drivers.DRIVER_TABLE, "cpu", f"{__name__}:SeparateMemoryCpu")
    monkeypatch.setattr(drivers, "_loaded", {})
    found = drivers.load_drivers("cpu")
    assert [d.ordinal for d in found] == [0, 1]
    assert drivers.load_driver("cpu") is found[0]
    assert [d for d in drivers.available_drivers() if d.kind == "cpu"] == found


def test_a_write_of_every_byte_brings_no_stale_copy_over(two, monkeypatch):
    from oclpy.runtime.storage import Storage

    ctx, qc, qs = two
    copies = []
    real = Storage.copy_between
    monkeypatch.setattr(Storage, "copy_between",
                        lambda self, src, dst: (copies.append((src.kind, dst.kind)), real(self, src, dst)))
    buf = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.zeros(64, np.int32))
    cl.enqueue_copy(qs, buf, np.full(64, 4, np.int32))  # every byte, on simt: nothing to copy first
    cl.enqueue_fill_buffer(qc, buf, np.int32(5), 0, 256)  # every byte, on the cpu: likewise
    assert copies == []
    cl.enqueue_copy(qs, buf, np.full(8, 6, np.int32), dst_offset=32)  # part: the rest comes first
    assert copies == [("cpu", "simt")]
    out = np.empty(64, np.int32)
    cl.enqueue_copy(qc, out, buf)
    assert out.tolist() == [5] * 8 + [6] * 8 + [5] * 48


IMAGE_DOUBLE = """
__kernel void twice(read_only image2d_t src, write_only image2d_t dst) {
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    write_imagef(dst, p, read_imagef(src, CLK_NORMALIZED_COORDS_FALSE | CLK_FILTER_NEAREST, p) * 2.0f);
}
"""


def test_images_migrate_and_cross_devices(two):
    """An image written by the host, migrated to simt, read there by a kernel whose
    output image the cpu queue then reads back."""
    ctx, cpu_q, simt_q = two
    pixels = np.arange(6 * 4, dtype=np.float32).reshape(4, 6)
    fmt = cl.ImageFormat(cl.channel_order.R, cl.channel_type.FLOAT)
    src = cl.image_from_array(ctx, pixels, 1)
    dst = cl.Image(ctx, cl.mem_flags.WRITE_ONLY, fmt, shape=(6, 4))
    cl.enqueue_migrate_mem_objects(simt_q, [src]).wait()
    prg = cl.Program(ctx, IMAGE_DOUBLE).build()
    prg.twice(simt_q, (6, 4), None, src, dst).wait()
    out = np.empty_like(pixels)
    cl.enqueue_copy(cpu_q, out, dst, origin=(0, 0), region=(6, 4)).wait()
    np.testing.assert_array_equal(out, pixels * 2)
