"""Dense, regular kernels: elementwise, reduction, matrix multiply, stencils,
transpose, n-body, Mandelbrot. Each `make_*` returns a `Case` with NumPy inputs."""

from __future__ import annotations

import numpy as np

from .case import Arg, Case

F32 = np.float32


def _rng() -> np.random.Generator:
    return np.random.default_rng(1234)


SAXPY = """
__kernel void saxpy(float a, __global const float *x, __global const float *y,
                    __global float *out) {
    size_t i = get_global_id(0);
    out[i] = a * x[i] + y[i];
}
"""


def make_saxpy(n: int = 1 << 26) -> Case:
    r = _rng()
    x, y = r.random(n, dtype=F32), r.random(n, dtype=F32)
    args = [Arg("a", "scalar", F32(2.5)), Arg("x", "in", x), Arg("y", "in", y),
            Arg("out", "out", np.zeros(n, F32))]
    return Case("saxpy", "saxpy", SAXPY, args, (n,), (256,), f"n={n}",
                lambda v: {"out": F32(2.5) * v["x"] + v["y"]})


REDUCE = """
__kernel void reduce_sum(__global const float *in, __global float *partial,
                         __local float *scratch) {
    size_t lid = get_local_id(0), n = get_local_size(0);
    scratch[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = n / 2; s > 0; s >>= 1) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}
"""


def make_reduce(n: int = 1 << 23, local: int = 256) -> Case:
    x = _rng().random(n, dtype=F32)
    args = [Arg("in", "in", x), Arg("partial", "out", np.zeros(n // local, F32)),
            Arg("scratch", "local", local * 4)]
    ref = lambda v: {"partial": v["in"].reshape(-1, local).astype(np.float64).sum(1).astype(F32)}
    return Case("reduce", "reduce_sum", REDUCE, args, (n,), (local,), f"n={n}", ref, rtol=1e-4)


MATMUL_NAIVE = """
__kernel void matmul(int n, __global const float *a, __global const float *b,
                     __global float *c) {
    int col = get_global_id(0), row = get_global_id(1);
    float acc = 0.0f;
    for (int k = 0; k < n; ++k)
        acc += a[row * n + k] * b[k * n + col];
    c[row * n + col] = acc;
}
"""

MATMUL_TILED = """
#define TILE 16
__kernel void matmul_tiled(int n, __global const float *a, __global const float *b,
                           __global float *c) {
    __local float ta[TILE][TILE];
    __local float tb[TILE][TILE];
    int lx = get_local_id(0), ly = get_local_id(1);
    int col = get_global_id(0), row = get_global_id(1);
    float acc = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        ta[ly][lx] = a[row * n + t + lx];
        tb[ly][lx] = b[(t + ly) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; ++k)
            acc += ta[ly][k] * tb[k][lx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    c[row * n + col] = acc;
}
"""


def _matmul(name: str, kernel: str, source: str, n: int) -> Case:
    r = _rng()
    a, b = r.random((n, n), dtype=F32), r.random((n, n), dtype=F32)
    args = [Arg("n", "scalar", np.int32(n)), Arg("a", "in", a), Arg("b", "in", b),
            Arg("c", "out", np.zeros((n, n), F32))]
    ref = lambda v: {"c": (v["a"].astype(np.float64) @ v["b"]).astype(F32)}
    return Case(name, kernel, source, args, (n, n), (16, 16), f"{n}x{n}", ref, rtol=1e-4)


def make_matmul_naive(n: int = 512) -> Case:
    return _matmul("matmul_naive", "matmul", MATMUL_NAIVE, n)


def make_matmul_tiled(n: int = 512) -> Case:
    return _matmul("matmul_tiled", "matmul_tiled", MATMUL_TILED, n)


STENCIL2D = """
__kernel void stencil2d(int w, int h, __global const float *in, __global float *out) {
    int x = get_global_id(0), y = get_global_id(1);
    float v = in[y * w + x];
    if (x > 0 && y > 0 && x < w - 1 && y < h - 1)
        v = 0.5f * v + 0.125f * (in[y * w + x - 1] + in[y * w + x + 1]
                                 + in[(y - 1) * w + x] + in[(y + 1) * w + x]);
    out[y * w + x] = v;
}
"""


def _stencil2d_ref(v: dict) -> dict:
    a = v["in"]
    out = a.copy()
    out[1:-1, 1:-1] = F32(0.5) * a[1:-1, 1:-1] + F32(0.125) * (
        a[1:-1, :-2] + a[1:-1, 2:] + a[:-2, 1:-1] + a[2:, 1:-1])
    return {"out": out}


def make_stencil2d(n: int = 8192) -> Case:
    a = _rng().random((n, n), dtype=F32)
    args = [Arg("w", "scalar", np.int32(n)), Arg("h", "scalar", np.int32(n)), Arg("in", "in", a),
            Arg("out", "out", np.zeros((n, n), F32))]
    return Case("stencil2d", "stencil2d", STENCIL2D, args, (n, n), (64, 4), f"{n}x{n}",
                _stencil2d_ref)


STENCIL3D = """
__kernel void stencil3d(int n, __global const float *in, __global float *out) {
    int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    size_t i = ((size_t)z * n + y) * n + x;
    float v = in[i];
    if (x > 0 && y > 0 && z > 0 && x < n - 1 && y < n - 1 && z < n - 1)
        v = 0.25f * v + 0.125f * (in[i - 1] + in[i + 1] + in[i - n] + in[i + n]
                                  + in[i - (size_t)n * n] + in[i + (size_t)n * n]);
    out[i] = v;
}
"""


def _stencil3d_ref(v: dict) -> dict:
    a = v["in"]
    out = a.copy()
    c = (slice(1, -1),) * 3
    nb = (a[1:-1, 1:-1, :-2] + a[1:-1, 1:-1, 2:] + a[1:-1, :-2, 1:-1] + a[1:-1, 2:, 1:-1]
          + a[:-2, 1:-1, 1:-1] + a[2:, 1:-1, 1:-1])
    out[c] = F32(0.25) * a[c] + F32(0.125) * nb
    return {"out": out}


def make_stencil3d(n: int = 320) -> Case:
    a = _rng().random((n, n, n), dtype=F32)
    args = [Arg("n", "scalar", np.int32(n)), Arg("in", "in", a),
            Arg("out", "out", np.zeros((n, n, n), F32))]
    return Case("stencil3d", "stencil3d", STENCIL3D, args, (n, n, n), (64, 2, 2), f"{n}^3",
                _stencil3d_ref)


TRANSPOSE = """
#define T 16
__kernel void transpose(int w, int h, __global const float *in, __global float *out) {
    __local float tile[T][T + 1];
    int lx = get_local_id(0), ly = get_local_id(1);
    int gx = get_group_id(0) * T, gy = get_group_id(1) * T;
    tile[ly][lx] = in[(gy + ly) * w + gx + lx];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[(gx + ly) * h + gy + lx] = tile[lx][ly];
}
"""


def make_transpose(n: int = 4096) -> Case:
    a = _rng().random((n, n), dtype=F32)
    args = [Arg("w", "scalar", np.int32(n)), Arg("h", "scalar", np.int32(n)), Arg("in", "in", a),
            Arg("out", "out", np.zeros((n, n), F32))]
    return Case("transpose", "transpose", TRANSPOSE, args, (n, n), (16, 16), f"{n}x{n}",
                lambda v: {"out": np.ascontiguousarray(v["in"].T)})


NBODY = """
__kernel void nbody(int n, float dt, float eps2, __global const float4 *pos,
                    __global const float4 *vel, __global float4 *new_vel) {
    int i = get_global_id(0);
    float4 p = pos[i];
    float4 acc = (float4)(0.0f);
    for (int j = 0; j < n; ++j) {
        float4 q = pos[j];
        float4 d = q - p;
        d.w = 0.0f;
        float r2 = d.x * d.x + d.y * d.y + d.z * d.z + eps2;
        float inv = rsqrt(r2);
        float s = q.w * inv * inv * inv;
        acc += s * d;
    }
    new_vel[i] = vel[i] + dt * acc;
}
"""


def _nbody_ref(v: dict) -> dict:
    p = v["pos"].astype(np.float64)
    d = p[None, :, :3] - p[:, None, :3]
    r2 = (d * d).sum(-1) + float(v["eps2"])
    s = p[None, :, 3] * r2 ** -1.5
    acc = (s[:, :, None] * d).sum(1)
    out = v["vel"].astype(np.float64).copy()
    out[:, :3] += float(v["dt"]) * acc
    return {"new_vel": out.astype(F32)}


def make_nbody(n: int = 4096) -> Case:
    r = _rng()
    pos = r.random((n, 4), dtype=F32)
    pos[:, 3] = r.random(n, dtype=F32) + F32(0.5)
    vel = r.random((n, 4), dtype=F32) - F32(0.5)
    args = [Arg("n", "scalar", np.int32(n)), Arg("dt", "scalar", F32(0.001)),
            Arg("eps2", "scalar", F32(0.01)), Arg("pos", "in", pos), Arg("vel", "in", vel),
            Arg("new_vel", "out", np.zeros((n, 4), F32))]
    return Case("nbody", "nbody", NBODY, args, (n,), (64,), f"n={n}", _nbody_ref,
                rtol=1e-3, atol=1e-3)


MANDELBROT = """
__kernel void mandelbrot(int w, int h, int max_iter, __global int *out) {
    int px = get_global_id(0), py = get_global_id(1);
    float cr = -2.0f + 3.0f * px / w, ci = -1.5f + 3.0f * py / h;
    float zr = 0.0f, zi = 0.0f;
    int it = 0;
    while (it < max_iter && zr * zr + zi * zi <= 4.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        ++it;
    }
    out[py * w + px] = it;
}
"""


def _mandel_ref(v: dict) -> dict:
    w, h, m = int(v["w"]), int(v["h"]), int(v["max_iter"])
    px, py = np.meshgrid(np.arange(w, dtype=F32), np.arange(h, dtype=F32))
    cr = F32(-2.0) + F32(3.0) * px / F32(w)
    ci = F32(-1.5) + F32(3.0) * py / F32(h)
    zr, zi = np.zeros_like(cr), np.zeros_like(ci)
    it = np.zeros((h, w), np.int32)
    live = np.ones((h, w), bool)
    for _ in range(m):
        live &= zr * zr + zi * zi <= F32(4.0)
        if not live.any():
            break
        t = zr * zr - zi * zi + cr
        zi = np.where(live, F32(2.0) * zr * zi + ci, zi)
        zr = np.where(live, t, zr)
        it += live
    return {"out": it}


def make_mandelbrot(n: int = 1024, max_iter: int = 256) -> Case:
    args = [Arg("w", "scalar", np.int32(n)), Arg("h", "scalar", np.int32(n)),
            Arg("max_iter", "scalar", np.int32(max_iter)),
            Arg("out", "out", np.zeros((n, n), np.int32))]
    # fp contraction may differ between compilers near the set's boundary
    return Case("mandelbrot", "mandelbrot", MANDELBROT, args, (n, n), (16, 16),
                f"{n}x{n}x{max_iter}", _mandel_ref, extra={"mismatch_fraction": 0.01})
