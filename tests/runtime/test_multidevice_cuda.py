"""Contexts holding GPUs: one GPU with the cpu device, and (on a machine with two or
more) two GPUs. Each test skips, saying why, where the GPUs it needs are missing."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import oclpy as cl
from oclpy.runtime.drivers import load_drivers
from oclpy.runtime.drivers.base import DriverUnavailable

mf = cl.mem_flags

SRC = """
__kernel void scale(__global const float *a, __global float *b, float k)
{ int i = get_global_id(0); b[i] = k * a[i]; }
__kernel void bump(__global int *x) { x[get_global_id(0)] += 1; }
__kernel void matmul(__global const float *a, __global const float *b, __global float *c,
                     int n, int k)
{
    int col = get_global_id(0), row = get_global_id(1);
    float acc = 0.0f;
    for (int j = 0; j < k; j++) acc += a[row * k + j] * b[j * n + col];
    c[row * n + col] = acc;
}
"""


def _gpus(count: int) -> list[cl.Device]:
    found = load_drivers("cuda")
    if isinstance(found, DriverUnavailable):
        pytest.skip(found.reason)
    gpus = [d for d in cl.get_platforms()[0].get_devices() if d.kind == "cuda"]
    if len(gpus) < count:
        pytest.skip(f"needs {count} GPUs, this machine has {len(gpus)}")
    return gpus[:count]


@pytest.fixture
def gpu_and_cpu():
    gpu = _gpus(1)[0]
    cpu = next(d for d in cl.get_platforms()[0].get_devices() if d.kind == "cpu")
    ctx = cl.Context([gpu, cpu])
    yield ctx, cl.CommandQueue(ctx, gpu), cl.CommandQueue(ctx, cpu)
    ctx.release()


def test_gpu_and_cpu_build_and_share_buffers(gpu_and_cpu):
    ctx, qg, qc = gpu_and_cpu
    prg = cl.Program(ctx, SRC).build()
    for dev in ctx.devices:
        assert prg.get_build_info(dev, cl.program_build_info.STATUS) == cl.build_status.SUCCESS
    x = np.random.default_rng(2).random(100_000, dtype=np.float32)
    a = cl.Buffer(ctx, mf.READ_WRITE, x.nbytes)
    t = cl.Buffer(ctx, mf.READ_WRITE, x.nbytes)
    u = cl.Buffer(ctx, mf.READ_WRITE, x.nbytes)
    cl.enqueue_copy(qc, a, x)  # written on the cpu
    prg.scale(qg, x.shape, None, a, t, np.float32(3))  # a kernel on the GPU
    prg.scale(qc, x.shape, None, t, u, np.float32(0.5))  # back on the cpu
    out = np.empty_like(x)
    cl.enqueue_copy(qg, out, u)  # read through the GPU's queue
    np.testing.assert_allclose(out, 1.5 * x, rtol=1e-6)


def test_gpu_event_waited_on_by_the_cpu_queue(gpu_and_cpu):
    ctx, qg, qc = gpu_and_cpu
    prg = cl.Program(ctx, SRC).build()
    gate = cl.UserEvent(ctx)
    buf = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.zeros(1 << 16, np.int32))
    on_gpu = prg.bump(qg, (1 << 16,), None, buf, wait_for=[gate])
    on_cpu = prg.bump(qc, (1 << 16,), None, buf, wait_for=[on_gpu])
    threading.Timer(0.05, gate.set_status, [cl.command_execution_status.COMPLETE]).start()
    on_cpu.wait()
    out = np.empty(1 << 16, np.int32)
    cl.enqueue_copy(qg, out, buf)
    assert (out == 2).all()


def test_migrate_to_the_gpu_and_to_the_host(gpu_and_cpu):
    ctx, qg, qc = gpu_and_cpu
    gpu, cpu = (d.driver.memory_domain for d in ctx.devices)
    data = np.arange(4096, dtype=np.int32)
    buf = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=data)
    cl.enqueue_migrate_mem_objects(qg, [buf]).wait()
    assert gpu in buf.storage.valid
    prg = cl.Program(ctx, SRC).build()
    prg.bump(qg, data.shape, None, buf)
    cl.enqueue_migrate_mem_objects(qg, [buf], cl.mem_migration_flags.HOST).wait()
    assert cpu in buf.storage.valid
    out = np.empty_like(data)
    cl.enqueue_copy(qc, out, buf)
    np.testing.assert_array_equal(out, data + 1)


def test_two_gpus_buffer_and_split_matmul():
    g0, g1 = _gpus(2)
    ctx = cl.Context([g0, g1])
    q0, q1 = cl.CommandQueue(ctx, g0), cl.CommandQueue(ctx, g1)
    prg = cl.Program(ctx, SRC).build()
    x = np.arange(1 << 20, dtype=np.float32)
    buf = cl.Buffer(ctx, mf.READ_WRITE, x.nbytes)
    out = cl.Buffer(ctx, mf.READ_WRITE, x.nbytes)
    cl.enqueue_copy(q0, buf, x)  # written on GPU 0
    prg.scale(q1, x.shape, None, buf, out, np.float32(2))  # read by a kernel on GPU 1
    res = np.empty_like(x)
    cl.enqueue_copy(q0, res, out)
    np.testing.assert_array_equal(res, 2 * x)
    rng = np.random.default_rng(6)
    m, k, n = 512, 256, 384
    a = rng.random((m, k), dtype=np.float32)
    b = rng.random((k, n), dtype=np.float32)
    ga = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a)
    gb = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=b)
    gc = cl.Buffer(ctx, mf.WRITE_ONLY, m * n * 4)
    half = m // 2
    events = [prg.matmul(q, (n, half), None, ga[i * half * k * 4:(i + 1) * half * k * 4], gb,
                         gc[i * half * n * 4:(i + 1) * half * n * 4], np.int32(n), np.int32(k))
              for i, q in enumerate((q0, q1))]
    for e in events:
        e.wait()
    c = np.empty((m, n), np.float32)
    cl.enqueue_copy(q1, c, gc)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4)
    ctx.release()
