"""The real-kernel corpus of tests/frontend/kernels/, run on the device and
checked against NumPy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import oclpy as cl

KERNELS = Path(__file__).parent.parent / "frontend" / "kernels"


def source(name: str) -> str:
    return (KERNELS / name).read_text()


def test_nbody(run_kernel) -> None:
    rng = np.random.default_rng(1)
    n, dt = 64, np.float32(0.01)
    pos = rng.random((n, 4), dtype=np.float32)
    vel = np.zeros((n, 4), np.float32)
    new_pos, new_vel = np.zeros_like(pos), np.zeros_like(vel)
    _, _, new_pos, new_vel = run_kernel(source("nbody.cl"), "nbody_step", (n,), (16,), pos, vel, new_pos, new_vel,
                                        cl.LocalMemory(16 * 16), np.int32(n), dt)
    d = pos[None, :, :3] - pos[:, None, :3]
    inv = 1 / np.sqrt((d * d).sum(-1) + 1e-3)
    acc = ((pos[None, :, 3] * inv ** 3)[..., None] * d).sum(1)
    np.testing.assert_allclose(new_vel[:, :3], acc * dt, rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(new_pos[:, :3], pos[:, :3] + acc * dt * dt, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(new_pos[:, 3], pos[:, 3])


def test_sgemm(run_kernel) -> None:
    rng = np.random.default_rng(2)
    m, n, k = 20, 12, 17
    a, b = rng.random((m, k), dtype=np.float32), rng.random((k, n), dtype=np.float32)
    c = rng.random((m, n), dtype=np.float32)
    *_, out = run_kernel(source("sgemm.cl"), "sgemm", (16, 24), (8, 8), a, b, c.copy(), np.int32(m), np.int32(n),
                         np.int32(k), np.float32(2.0), np.float32(0.5))
    np.testing.assert_allclose(out, 2 * a @ b + 0.5 * c, rtol=1e-5)


def test_bitonic_sort(ctx, queue) -> None:
    data = np.random.default_rng(3).integers(0, 1 << 30, 256).astype(np.uint32)
    prog = cl.Program(ctx, source("bitonic_sort.cl")).build()
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=data)
    stages = 8
    for stage in range(stages):
        for p in range(stage + 1):
            prog.bitonic_sort(queue, (128,), None, buf, np.uint32(stage), np.uint32(p), np.uint32(1))
    out = np.empty_like(data)
    cl.enqueue_copy(queue, out, buf)
    queue.finish()
    np.testing.assert_array_equal(out, np.sort(data))


def test_histogram(run_kernel) -> None:
    data = np.random.default_rng(4).integers(0, 256, 5000).astype(np.uint8)
    hist = np.zeros(256, np.uint32)
    _, hist = run_kernel(source("histogram.cl"), "histogram256", (256,), (64,), data, np.uint32(data.size), hist)
    np.testing.assert_array_equal(hist, np.bincount(data, minlength=256))


def test_convolution_with_constant_filters(run_kernel) -> None:
    x = np.random.default_rng(5).random(100, dtype=np.float32)
    filt = np.array([1, 2, 3, 2, 1], np.float32)
    padded = np.pad(x, 2, mode="edge")
    for use_smooth, weights in ((0, filt), (1, np.array([0.0625, 0.25, 0.375, 0.25, 0.0625], np.float32))):
        out = np.zeros_like(x)
        _, out, _ = run_kernel(source("convolution.cl"), "convolve", (128,), (32,), x, out, filt, np.int32(100),
                               np.int32(use_smooth))
        want = sum(weights[k] * padded[k:k + 100] for k in range(5))
        np.testing.assert_allclose(out, want, rtol=1e-5)


def test_scan(run_kernel) -> None:
    x = np.random.default_rng(6).integers(-50, 50, 256).astype(np.int32)
    out, sums = np.zeros_like(x), np.zeros(4, np.int32)
    _, out, sums = run_kernel(source("scan.cl"), "scan_block", (128,), (32,), x, out, sums, cl.LocalMemory(64 * 4))
    blocks = x.reshape(4, 64)
    np.testing.assert_array_equal(out.reshape(4, 64), np.cumsum(blocks, axis=1) - blocks)
    np.testing.assert_array_equal(sums, blocks.sum(1))


def test_spmv_csr(run_kernel) -> None:
    rng = np.random.default_rng(7)
    dense = rng.random((30, 20), dtype=np.float32) * (rng.random((30, 20)) < 0.2)
    rows, cols = np.nonzero(dense)
    row_ptr = np.searchsorted(rows, np.arange(31)).astype(np.int32)
    x, y = rng.random(20, dtype=np.float32), np.zeros(30, np.float32)
    *_, y = run_kernel(source("spmv_csr.cl"), "spmv_csr_scalar", (32,), (16,), dense[rows, cols].copy(),
                       cols.astype(np.int32), row_ptr, x, y, np.int32(30))
    np.testing.assert_allclose(y, dense @ x, rtol=1e-5)


def _cnd(d: np.ndarray) -> np.ndarray:
    from math import erf
    return 0.5 * (1 + np.vectorize(erf)(d / np.sqrt(2)))


def test_black_scholes(run_kernel) -> None:
    rng = np.random.default_rng(8)
    n = 500
    s, x, t = (rng.uniform(5, 30, n), rng.uniform(1, 100, n), rng.uniform(0.25, 10, n))
    s, x, t = (v.astype(np.float32) for v in (s, x, t))
    call, put = np.zeros(n, np.float32), np.zeros(n, np.float32)
    r, v = 0.02, 0.30
    call, put, *_ = run_kernel(source("black_scholes.cl"), "black_scholes", (128,), (64,), call, put, s, x, t,
                               np.float32(r), np.float32(v), np.uint32(n))
    d1 = (np.log(s / x) + (r + 0.5 * v * v) * t) / (v * np.sqrt(t))
    d2 = d1 - v * np.sqrt(t)
    want_call = s * _cnd(d1) - x * np.exp(-r * t) * _cnd(d2)
    np.testing.assert_allclose(call, want_call, atol=2e-3 * np.maximum(1, np.abs(want_call)).max())
    np.testing.assert_allclose(put - call, x * np.exp(-r * t) - s, rtol=1e-3, atol=1e-3)  # put-call parity


def test_mandelbrot(run_kernel) -> None:
    xs, ys = np.meshgrid(np.linspace(-2, 1, 32), np.linspace(-1.5, 1.5, 32))
    c = np.stack([xs.ravel(), ys.ravel()], -1).astype(np.float32)
    counts = np.zeros(1024, np.uint16)
    _, counts = run_kernel(source("mandelbrot.cl"), "mandelbrot", (1024,), (64,), c, counts, np.uint16(50))
    z = np.zeros(1024, np.complex64)
    cc = (c[:, 0] + 1j * c[:, 1]).astype(np.complex64)
    want = np.zeros(1024, np.uint16)
    for _ in range(50):
        alive = np.abs(z) ** 2 <= 4
        z = np.where(alive, z * z + cc, z)
        want += alive
    assert np.mean(counts == want) > 0.98  # float rounding may move a few boundary points


def test_sobel(run_kernel) -> None:
    img = np.random.default_rng(9).integers(0, 256, (24, 20)).astype(np.uint8)
    out = np.zeros_like(img)
    _, out = run_kernel(source("sobel.cl"), "sobel", (32, 32), (8, 8), img, out, np.int32(20), np.int32(24))
    p = np.pad(img.astype(np.float32), 1, mode="edge")
    gx = (p[:-2, 2:] + 2 * p[1:-1, 2:] + p[2:, 2:]) - (p[:-2, :-2] + 2 * p[1:-1, :-2] + p[2:, :-2])
    gy = (p[2:, :-2] + 2 * p[2:, 1:-1] + p[2:, 2:]) - (p[:-2, :-2] + 2 * p[:-2, 1:-1] + p[:-2, 2:])
    want = np.clip(np.trunc(np.sqrt(gx * gx + gy * gy)), 0, 255).astype(np.uint8)  # float->int rounds toward zero
    np.testing.assert_array_equal(out, want)


def test_particles_struct_of_arrays(run_kernel) -> None:
    n = 50
    rng = np.random.default_rng(10)
    px, py, vx, vy = (rng.random(n, dtype=np.float32) for _ in range(4))
    params = np.array([(0.1, 9.8, 0.5, 0.2, 0.8)], dtype=[(f, np.float32) for f in
                                                        ("dt", "gravity", "drag", "floor_y", "restitution")])
    outs = run_kernel(source("particles_soa.cl"), "update_particles", (64,), (32,), px.copy(), py.copy(), vx.copy(),
                      vy.copy(), params[0], np.int32(n))
    damp = np.float32(1 - 0.5 * 0.1)
    u = vx * damp
    v = (vy - np.float32(9.8 * 0.1)) * damp
    x, y = px + u * np.float32(0.1), py + v * np.float32(0.1)
    low = y < 0.2
    y = np.where(low, 0.2 + (0.2 - y), y)
    v = np.where(low, -v * np.float32(0.8), v)
    for got, want in zip(outs, (x, y, u, v)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_lu_decomposition(ctx, queue) -> None:
    n = 12
    rng = np.random.default_rng(11)
    a = (rng.random((n, n)) + n * np.eye(n)).astype(np.float32)
    prog = cl.Program(ctx, source("lu_step.cl")).build()
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=a)
    for k in range(n - 1):
        prog.lu_scale_column(queue, (n,), None, buf, np.int32(n), np.int32(k))
        prog.lu_update_trailing(queue, (n, n), None, buf, np.int32(n), np.int32(k))
    lu = np.empty_like(a)
    cl.enqueue_copy(queue, lu, buf)
    queue.finish()
    lower, upper = np.tril(lu, -1) + np.eye(n), np.triu(lu)
    np.testing.assert_allclose(lower @ upper, a, rtol=1e-4)


def test_transpose(run_kernel) -> None:
    m = np.arange(40 * 24, dtype=np.float32).reshape(24, 40)
    out = np.zeros((40, 24), np.float32)
    out, _ = run_kernel(source("transpose.cl"), "transpose", (48, 32), (16, 16), out, m, np.int32(40), np.int32(24))
    np.testing.assert_array_equal(out, m.T)


def test_reduce_float4(run_kernel) -> None:
    x = np.random.default_rng(12).random(4096, dtype=np.float32)
    partial = np.zeros(4, np.float32)
    _, partial = run_kernel(source("reduce_float4.cl"), "reduce_sum4", (256,), (64,), x, partial,
                            cl.LocalMemory(64 * 4), np.uint32(1024))
    assert partial.sum() == pytest.approx(float(x.sum()), rel=1e-5)


def test_radix_sort_pass(ctx, queue) -> None:
    keys = np.random.default_rng(13).integers(0, 1 << 16, 256).astype(np.uint32)
    prog = cl.Program(ctx, source("radix_sort.cl")).build()
    mf = cl.mem_flags
    groups, per_group = 4, 64
    for shift in (0, 4, 8, 12):
        kb = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=keys)
        counts = np.zeros(16 * groups, np.uint32)
        cb = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=counts)
        prog.radix_count(queue, (groups * 32,), (32,), kb, cb, np.uint32(shift), np.uint32(per_group))
        cl.enqueue_copy(queue, counts, cb)
        queue.finish()
        offsets = (np.cumsum(counts) - counts).astype(np.uint32)
        ob = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=offsets)
        out = np.zeros_like(keys)
        outb = cl.Buffer(ctx, mf.READ_WRITE, size=out.nbytes)
        prog.radix_scatter(queue, (groups * 32,), (32,), kb, outb, ob, np.uint32(shift), np.uint32(per_group))
        cl.enqueue_copy(queue, out, outb)
        queue.finish()
        keys = out
    np.testing.assert_array_equal(keys, np.sort(keys))


def test_async_stencil(run_kernel) -> None:
    x = np.random.default_rng(14).random(130, dtype=np.float32)
    out = np.zeros_like(x)
    _, out = run_kernel(source("async_stencil.cl"), "stencil3", (128,), (32,), x, out, cl.LocalMemory(34 * 4),
                        np.int32(130))
    want = 0.25 * x[:-2] + 0.5 * x[1:-1] + 0.25 * x[2:]
    np.testing.assert_allclose(out[1:129], want[:128], rtol=1e-6)
