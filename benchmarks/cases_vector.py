"""Kernels written with OpenCL vector types: uchar4 RGBA pixels, vload4/vstore4
on float arrays, float2 complex numbers, a float4 tile with barriers. On the cpu
these only vectorise across work-items after `scalarize-vectors` has split the
vector values. Each `make_*` returns a `Case` with a NumPy reference."""

from __future__ import annotations

import numpy as np

from .case import Arg, Case

F32 = np.float32


def _rng() -> np.random.Generator:
    return np.random.default_rng(9876)


RGBA_BLUR = """
__kernel void rgba_blur(__global const uchar4 *src, __global uchar4 *dst, int w, int h,
                        float gain) {
    int x = get_global_id(0), y = get_global_id(1);
    int xl = max(x - 1, 0), xr = min(x + 1, w - 1);
    float4 acc = convert_float4(src[y * w + xl]) + convert_float4(src[y * w + x])
               + convert_float4(src[y * w + xr]);
    float4 px = acc * (gain / 3.0f);
    px.w = convert_float(src[y * w + x].w);
    dst[y * w + x] = convert_uchar4_sat_rte(px);
}
"""


def _rgba_ref(v: dict) -> dict:
    """In float32 as the kernel computes it (sums of three bytes are exact)."""
    src, gain = v["src"].astype(F32), F32(v["gain"]) / F32(3.0)
    left = np.concatenate([src[:, :1], src[:, :-1]], axis=1)
    right = np.concatenate([src[:, 1:], src[:, -1:]], axis=1)
    px = (left + src + right) * gain
    px[..., 3] = src[..., 3]
    return {"dst": np.clip(np.rint(px), 0, 255).astype(np.uint8)}


def make_rgba_blur(w: int = 4096, h: int = 2048) -> Case:
    src = _rng().integers(0, 256, (h, w, 4)).astype(np.uint8)
    args = [Arg("src", "in", src), Arg("dst", "out", np.zeros_like(src)),
            Arg("w", "scalar", np.int32(w)), Arg("h", "scalar", np.int32(h)),
            Arg("gain", "scalar", F32(1.25))]
    # gain / 3.0f may be 2.5 ulp from the float32 reference (OpenCL's bound for float
    # division; GPUs divide approximately), which can move a rounding to a neighbour
    return Case("rgba_blur", "rgba_blur", RGBA_BLUR, args, (w, h), (64, 1), f"{w}x{h}",
                _rgba_ref, extra={"int_atol": 1})


VLOAD_AXPY = """
__kernel void vload_axpy(float a, __global const float *x, __global const float *y,
                         __global float *out) {
    size_t i = get_global_id(0);
    float4 u = vload4(i, x), v = vload4(i, y);
    vstore4(fma((float4)(a), u, v) * (float4)(1.0f, 0.5f, 0.25f, 2.0f), i, out);
}
"""


def _axpy_ref(v: dict) -> dict:
    x, y = v["x"].astype(np.float64), v["y"].astype(np.float64)
    scale = np.tile(np.array([1.0, 0.5, 0.25, 2.0]), len(x) // 4)
    return {"out": ((float(v["a"]) * x + y) * scale).astype(F32)}


def make_vload_axpy(n: int = 1 << 24) -> Case:
    r = _rng()
    args = [Arg("a", "scalar", F32(1.5)), Arg("x", "in", r.random(n, dtype=F32)),
            Arg("y", "in", r.random(n, dtype=F32)), Arg("out", "out", np.zeros(n, F32))]
    return Case("vload_axpy", "vload_axpy", VLOAD_AXPY, args, (n // 4,), (256,), f"n={n}",
                _axpy_ref)


COMPLEX_POLY = """
float2 cmul(float2 a, float2 b) { return (float2)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }

__kernel void complex_poly(__global const float2 *z, __global const float2 *c,
                           __global float2 *out) {
    size_t i = get_global_id(0);
    float2 v = z[i], acc = c[0];
    for (int k = 1; k < 8; ++k)
        acc = cmul(acc, v) + c[k];
    out[i] = acc;
}
"""


def _poly_ref(v: dict) -> dict:
    z = v["z"].astype(np.float64) @ np.array([1, 1j])
    c = v["c"].astype(np.float64) @ np.array([1, 1j])
    acc = np.full_like(z, c[0])
    for k in range(1, 8):
        acc = acc * z + c[k]
    return {"out": np.stack([acc.real, acc.imag], -1).astype(F32)}


def make_complex_poly(n: int = 1 << 22) -> Case:
    r = _rng()
    args = [Arg("z", "in", r.uniform(-1, 1, (n, 2)).astype(F32)),
            Arg("c", "in", r.uniform(-1, 1, (8, 2)).astype(F32)),
            Arg("out", "out", np.zeros((n, 2), F32))]
    return Case("complex_poly", "complex_poly", COMPLEX_POLY, args, (n,), (256,), f"n={n}",
                _poly_ref, rtol=1e-4, atol=1e-4)


TILE_SMOOTH = """
#define T 64
__kernel void tile_smooth(__global const float4 *in, __global float4 *out) {
    __local float4 tile[T + 2];
    int l = get_local_id(0), g = get_global_id(0), n = get_global_size(0);
    tile[l + 1] = in[g];
    if (l == 0) tile[0] = in[max(g - 1, 0)];
    if (l == T - 1) tile[T + 1] = in[min(g + 1, n - 1)];
    barrier(CLK_LOCAL_MEM_FENCE);
    float4 s = 0.25f * tile[l] + 0.5f * tile[l + 1] + 0.25f * tile[l + 2];
    out[g] = (float4)(s.x, s.y, s.z, length(s));
}
"""


def _smooth_ref(v: dict) -> dict:
    a = v["in"].astype(np.float64)
    left = np.concatenate([a[:1], a[:-1]])
    right = np.concatenate([a[1:], a[-1:]])
    s = 0.25 * left + 0.5 * a + 0.25 * right
    s[:, 3] = np.sqrt((s * s).sum(-1))
    return {"out": s.astype(F32)}


def make_tile_smooth(n: int = 1 << 22) -> Case:
    args = [Arg("in", "in", _rng().random((n, 4), dtype=F32)),
            Arg("out", "out", np.zeros((n, 4), F32))]
    return Case("tile_smooth", "tile_smooth", TILE_SMOOTH, args, (n,), (64,), f"n={n}",
                _smooth_ref, rtol=1e-5, atol=1e-5)
