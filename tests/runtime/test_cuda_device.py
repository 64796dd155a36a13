"""The cuda device end to end (skipped, with the reason, where no GPU or no
cuda-bindings is present), and its absence where it cannot run."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy as cl
from oclpy.runtime.drivers import load_driver
from oclpy.runtime.drivers.base import DriverUnavailable

_driver = load_driver("cuda")
needs_gpu = pytest.mark.skipif(isinstance(_driver, DriverUnavailable),
                               reason=getattr(_driver, "reason", ""))


def test_absent_device_is_not_listed_and_says_why():
    if not isinstance(_driver, DriverUnavailable):
        pytest.skip("a CUDA GPU is present here")
    kinds = {d.kind for p in cl.get_platforms() for d in p.get_devices()}
    assert "cuda" not in kinds
    assert ("pip install oclpy[cuda]" in _driver.reason or "libcuda.so" in _driver.reason
            or "GPU" in _driver.reason or "CUDA driver" in _driver.reason)


@pytest.fixture(scope="module")
def gpu():
    dev = next(d for p in cl.get_platforms() for d in p.get_devices() if d.kind == "cuda")
    ctx = cl.Context([dev])
    return ctx, cl.CommandQueue(ctx)


SRC = """
__constant float coef[4] = {1.0f, 2.0f, 3.0f, 4.0f};
__kernel void axpb(__global const float *a, __global float *c, float s) {
  size_t i = get_global_id(0);
  c[i - get_global_offset(0)] = s * a[i - get_global_offset(0)] + coef[i & 3] + sin(a[i - get_global_offset(0)]);
}
__kernel void sums(__global const float *in, __global float *out, __global int *total,
                   __local float *tmp) {
  __local float tile[128];
  size_t l = get_local_id(0);
  tmp[l] = in[get_global_id(0)];
  tile[l] = tmp[l] * 2.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l == 0) {
    float s = 0.0f;
    for (uint i = 0; i < get_local_size(0); i++) s += tile[i];
    out[get_group_id(0)] = s;
    atomic_add(total, (int)s);
  }
}
typedef struct { float3 v; int k; } P;
__kernel void structs(P p, __global float *out) {
  out[get_global_id(0)] = p.v.y * p.k + get_work_dim();
}
"""


@needs_gpu
def test_kernels_on_gpu(gpu):
    ctx, q = gpu
    prg = cl.Program(ctx, SRC).build()
    mf = cl.mem_flags
    a = np.linspace(-3, 3, 1024).astype(np.float32)
    abuf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a)
    cbuf = cl.Buffer(ctx, mf.READ_WRITE, a.nbytes)
    prg.axpb(q, (1024,), (128,), abuf, cbuf, np.float32(2.0), global_offset=(256,)).wait()
    c = np.empty_like(a)
    cl.enqueue_copy(q, c, cbuf)
    idx = np.arange(1024) + 256
    ref = 2 * a + np.array([1, 2, 3, 4], np.float32)[idx & 3] + np.sin(a)
    np.testing.assert_allclose(c, ref, rtol=1e-5, atol=1e-5)

    ones = np.ones(1024, np.float32)
    inb = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=ones)
    out = cl.Buffer(ctx, mf.READ_WRITE, 8 * 4)
    total = cl.Buffer(ctx, mf.READ_WRITE, 4)
    cl.enqueue_fill_buffer(q, total, np.int32(0), 0, 4)
    prg.sums(q, (1024,), (128,), inb, out, total, cl.LocalMemory(128 * 4))
    res, tot = np.empty(8, np.float32), np.empty(1, np.int32)
    cl.enqueue_copy(q, res, out)
    cl.enqueue_copy(q, tot, total)
    assert res.tolist() == [256.0] * 8 and tot[0] == 2048

    p = np.zeros(1, dtype=[("v", np.float32, 4), ("k", np.int32), ("pad", np.int32, 3)])
    p["v"] = [1, 5, 2, 0]
    p["k"] = 3
    o = cl.Buffer(ctx, mf.READ_WRITE, 64 * 4)
    prg.structs(q, (64,), None, p[0], o)
    got = np.empty(64, np.float32)
    cl.enqueue_copy(q, got, o)
    assert got.tolist() == [16.0] * 64


@needs_gpu
def test_out_of_order_queue_and_copies(gpu):
    ctx, _ = gpu
    q = cl.CommandQueue(ctx, properties=cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE)
    mf = cl.mem_flags
    a = np.arange(4096, dtype=np.int32)
    src = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=a)
    dst = cl.Buffer(ctx, mf.READ_WRITE, a.nbytes)
    e1 = cl.enqueue_copy(q, dst, src)
    e2 = cl.enqueue_fill_buffer(q, src, np.int32(7), 0, a.nbytes, wait_for=[e1])
    e2.wait()
    back, back2 = np.empty_like(a), np.empty_like(a)
    cl.enqueue_copy(q, back, dst, wait_for=[e1])
    cl.enqueue_copy(q, back2, src, wait_for=[e2])
    q.finish()
    assert (back == a).all() and (back2 == 7).all()
