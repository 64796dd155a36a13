"""Kernels heavy in OpenCL vector types (what `scalarize-vectors` rewrites on the
cpu), checked against NumPy; test_pipelines.py runs each at -O0 and -O2."""

from __future__ import annotations

import numpy as np

import oclpy as cl

F32, I32 = np.float32, np.int32


def test_complex_polynomial_float2(run_kernel) -> None:
    src = """
    float2 cmul(float2 a, float2 b) { return (float2)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
    __kernel void poly(__global const float2 *z, __constant float2 *c, __global float2 *out) {
        size_t i = get_global_id(0);
        float2 v = z[i], acc = c[0];
        for (int k = 1; k < 5; ++k) acc = cmul(acc, v) + c[k];
        out[i] = acc;
    }"""
    rng = np.random.default_rng(1)
    z = rng.uniform(-1, 1, (96, 2)).astype(F32)
    c = rng.uniform(-1, 1, (5, 2)).astype(F32)
    *_, out = run_kernel(src, "poly", (96,), (32,), z, c, np.zeros_like(z))
    zc, cc = z.astype(np.float64) @ [1, 1j], c.astype(np.float64) @ [1, 1j]
    acc = np.full_like(zc, cc[0])
    for k in range(1, 5):
        acc = acc * zc + cc[k]
    np.testing.assert_allclose(out, np.stack([acc.real, acc.imag], -1), rtol=1e-5, atol=1e-5)


def test_int4_masks_shifts_and_select(run_kernel) -> None:
    src = """
    __kernel void k(__global const int4 *a, __global const int4 *b, __global int4 *out) {
        size_t i = get_global_id(0);
        int4 x = a[i], y = b[i];
        int4 m = x > y;                          /* -1 where true, 0 where false */
        int4 s = (x << y) ^ (x >> (y + 1));      /* shift amounts taken modulo 32 */
        int4 r = select(x, y, m);                /* picks by the mask's sign bit */
        out[3 * i] = m;
        out[3 * i + 1] = s + as_int4(abs_diff(x, y).yxwz.s0123);
        out[3 * i + 2] = r + clamp(x, -5, 5) * min(x, y) - max(x, (int4)(3));
    }"""
    rng = np.random.default_rng(2)
    a = rng.integers(-100, 100, (64, 4)).astype(I32)
    b = rng.integers(0, 40, (64, 4)).astype(I32)
    *_, out = run_kernel(src, "k", (64,), (16,), a, b, np.zeros((192, 4), I32))
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    m = np.where(a > b, -1, 0)
    shl = ((a64 << (b64 % 32)) & 0xFFFFFFFF).astype(np.uint32).view(I32)
    s = shl ^ (a >> ((b + 1) % 32))
    absd = np.abs(a64 - b64).astype(np.uint32).view(I32)[:, [1, 0, 3, 2]]
    r = np.where(m < 0, b, a) + np.clip(a, -5, 5) * np.minimum(a, b) - np.maximum(a, 3)
    np.testing.assert_array_equal(out[0::3], m)
    np.testing.assert_array_equal(out[1::3], s + absd)
    np.testing.assert_array_equal(out[2::3], r)


def test_uchar4_pixels_convert_saturate(run_kernel) -> None:
    src = """
    __kernel void k(__global const uchar4 *src, __global uchar4 *dst, float gain) {
        size_t i = get_global_id(0);
        float4 p = convert_float4(src[i]) * gain - (float4)(10.0f, 0.0f, 0.0f, 0.0f);
        uchar4 q = convert_uchar4_sat_rte(p);
        q.w = src[i].w;
        dst[i] = q;
    }"""
    src_px = np.random.default_rng(3).integers(0, 256, (128, 4)).astype(np.uint8)
    *_, dst = run_kernel(src, "k", (128,), (64,), src_px, np.zeros_like(src_px), F32(1.5))
    p = src_px.astype(F32) * F32(1.5) - np.array([10, 0, 0, 0], F32)
    want = np.clip(np.rint(p), 0, 255).astype(np.uint8)
    want[:, 3] = src_px[:, 3]
    np.testing.assert_array_equal(dst, want)


def test_float3_vload3_and_arrays(run_kernel) -> None:
    src = """
    __kernel void k(__global const float *packed, __global float3 *arr, __global float *out) {
        size_t i = get_global_id(0);
        float3 v = vload3(i, packed);
        float3 w = arr[i];
        arr[i] = cross(v, w) + v.zxy;
        vstore3(v * 2.0f + (float3)(dot(v, w)), i, out);
    }"""
    rng = np.random.default_rng(4)
    packed = rng.random(3 * 32, dtype=F32)
    arr = rng.random((32, 4), dtype=F32)
    arr[:, 3] = 7.0  # the fourth slot of each float3: never written
    _, arr_out, out = run_kernel(src, "k", (32,), (8,), packed, arr.copy(), np.zeros(96, F32))
    v, w = packed.reshape(32, 3), arr[:, :3]
    np.testing.assert_allclose(arr_out[:, :3], np.cross(v, w) + v[:, [2, 0, 1]], rtol=1e-5)
    np.testing.assert_array_equal(arr_out[:, 3], arr[:, 3])
    dot = (v * w).sum(-1, keepdims=True)
    np.testing.assert_allclose(out.reshape(32, 3), v * 2 + dot, rtol=1e-5)


def test_half_vectors_through_vload_half4(run_kernel) -> None:
    src = """
    __kernel void k(__global const half *h, __global half *o) {
        size_t i = get_global_id(0);
        float4 v = vload_half4(i, h);
        vstore_half4_rte(v * v - (float4)(1.0f), i, o);
    }"""
    h = np.linspace(-4, 4, 4 * 16).astype(np.float16)
    _, o = run_kernel(src, "k", (16,), (16,), h, np.zeros_like(h))
    want = (h.astype(F32) * h.astype(F32) - F32(1)).astype(np.float16)
    np.testing.assert_array_equal(o, want)


def test_vectors_inside_structs_and_bool_reductions(run_kernel) -> None:
    src = """
    typedef struct { float4 a; int2 b; } item;
    __kernel void k(__global const item *items, __global float4 *out, __global int *flags) {
        size_t i = get_global_id(0);
        item it = items[i];
        float4 s = it.a * (float)(it.b.x + it.b.y);
        out[i] = s;
        flags[i] = any(s < 0.0f) + 2 * all(isgreater(it.a, (float4)(0.5f)));
    }"""
    dtype = np.dtype([("a", F32, 4), ("b", I32, 2), ("pad", I32, 2)])
    rng = np.random.default_rng(5)
    items = np.zeros(48, dtype)
    items["a"] = rng.uniform(-1, 1, (48, 4))
    items["a"][::5] = rng.uniform(0.6, 1, (10, 4))
    items["b"] = rng.integers(-3, 4, (48, 2))
    _, out, flags = run_kernel(src, "k", (48,), (16,), items, np.zeros((48, 4), F32),
                               np.zeros(48, I32))
    s = items["a"] * items["b"].sum(-1, keepdims=True).astype(F32)
    np.testing.assert_array_equal(out, s)
    np.testing.assert_array_equal(flags, (s < 0).any(-1) + 2 * (items["a"] > 0.5).all(-1))


def test_float4_tile_across_a_barrier(run_kernel) -> None:
    src = """
    __kernel void k(__global const float4 *in, __global float4 *out, __local float4 *tile) {
        int l = get_local_id(0), n = get_local_size(0);
        float4 v = in[get_global_id(0)];
        tile[l] = v * 2.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        float4 acc = v;
        for (int k = 1; k < 4; ++k) acc += tile[(l + k) % n].wzyx;
        out[get_global_id(0)] = acc;
    }"""
    a = np.random.default_rng(6).random((64, 4), dtype=F32)
    _, out, *_ = run_kernel(src, "k", (64,), (16,), a, np.zeros_like(a), cl.LocalMemory(16 * 16))
    g = a.reshape(4, 16, 4)
    want = g.copy()
    for k in range(1, 4):
        want = want + (2 * np.roll(g, -k, axis=1))[..., ::-1]
    np.testing.assert_allclose(out, want.reshape(64, 4), rtol=1e-6)


def test_dynamic_element_index_and_shuffle(run_kernel) -> None:
    src = """
    __kernel void k(__global const float8 *a, __global const uint *idx, __global float *out,
                    __global float8 *sh) {
        size_t i = get_global_id(0);
        float8 v = a[i];
        float tmp[8];
        vstore8(v, 0, tmp);
        out[i] = tmp[idx[i] % 8];
        sh[i] = shuffle(v, (uint8)(7, 6, 5, 4, 3, 2, 1, 0)) + shuffle2(v, v * 10.0f, (uint8)(0, 8, 1, 9, 2, 10, 3, 11));
    }"""
    rng = np.random.default_rng(7)
    a = rng.random((32, 8), dtype=F32)
    idx = rng.integers(0, 100, 32).astype(np.uint32)
    *_, out, sh = run_kernel(src, "k", (32,), (8,), a, idx, np.zeros(32, F32), np.zeros_like(a))
    np.testing.assert_array_equal(out, a[np.arange(32), idx % 8])
    both = np.concatenate([a, a * F32(10)], axis=1)
    # within one ulp: a target may contract `x + v * 10.0f` into one fma (FP_CONTRACT is on
    # by default in OpenCL C); the cuda target does
    np.testing.assert_allclose(sh, a[:, ::-1] + both[:, [0, 8, 1, 9, 2, 10, 3, 11]], rtol=2.4e-7)
