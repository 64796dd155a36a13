"""Builtins executed on the cpu device, compared with Python/NumPy references.

Each case is a kernel body computing `out[i]` from inputs; it checks that the
IR sequences the frontend emits for integer, common, geometric, relational,
conversion, vector load/store and atomic builtins compute the right values.
"""

import math

import numpy as np
import pytest

cl = pytest.importorskip("oclpy")

i32 = np.arange(-8, 8, dtype=np.int32) * 123457
u8 = np.arange(0, 256, 16, dtype=np.uint8)
f = np.linspace(-2.5, 2.5, 16).astype(np.float32)


def run(queue, body: str, ins: dict, out_dtype: tuple, n: int = 16) -> np.ndarray:  # type: ignore[no-untyped-def]
    ctx, q = queue
    mf = cl.mem_flags
    params = ", ".join(f"__global {t} *{name}" for name, (t, _) in ins.items())
    src = f"__kernel void k({params}, __global {out_dtype[0]} *out) {{ int i = get_global_id(0); {body} }}"
    prg = cl.Program(ctx, src).build()
    bufs = [cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a) for (_, a) in ins.values()]
    out = np.zeros(n, out_dtype[1])
    ob = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=out)
    prg.k(q, (n,), None, *bufs, ob)
    cl.enqueue_copy(q, out, ob)
    return out


checks = [
 ("out[i] = clz(a[i]);", {"a": ("int", i32)}, ("int", np.int32), [32 - (int(v) & 0xffffffff).bit_length() for v in i32]),
 ("out[i] = ctz(a[i]);", {"a": ("int", i32)}, ("int", np.int32), [32 if v == 0 else ((int(v) & -int(v)).bit_length() - 1) for v in i32]),
 ("out[i] = popcount(a[i]);", {"a": ("uchar", u8)}, ("uchar", np.uint8), [bin(v).count("1") for v in u8]),
 ("out[i] = add_sat(a[i], (uchar)200);", {"a": ("uchar", u8)}, ("uchar", np.uint8), [min(int(v) + 200, 255) for v in u8]),
 ("out[i] = sub_sat(a[i], (uchar)100);", {"a": ("uchar", u8)}, ("uchar", np.uint8), [max(int(v) - 100, 0) for v in u8]),
 ("out[i] = hadd(a[i], (uchar)255);", {"a": ("uchar", u8)}, ("uchar", np.uint8), [(int(v) + 255) >> 1 for v in u8]),
 ("out[i] = rhadd(a[i], (uchar)255);", {"a": ("uchar", u8)}, ("uchar", np.uint8), [(int(v) + 256) >> 1 for v in u8]),
 ("out[i] = mul_hi(a[i], 1000000007);", {"a": ("int", i32)}, ("int", np.int32), [(int(v) * 1000000007) >> 32 for v in i32]),
 ("out[i] = convert_char_sat(a[i]);", {"a": ("int", i32)}, ("char", np.int8), [max(-128, min(127, int(v))) for v in i32]),
 ("out[i] = convert_int_sat_rte(a[i] * 1e9f);", {"a": ("float", f)}, ("int", np.int32), [max(-2**31, min(2**31 - 1, int(np.rint(np.float32(v) * np.float32(1e9))))) for v in f]),
 ("out[i] = convert_int_rtn(a[i]);", {"a": ("float", f)}, ("int", np.int32), [math.floor(v) for v in f]),
 ("out[i] = convert_int(a[i]);", {"a": ("float", f)}, ("int", np.int32), [int(v) for v in f]),
 ("out[i] = sign(a[i]) + step(0.0f, a[i]);", {"a": ("float", f)}, ("float", np.float32), [np.sign(v) + (0.0 if v < 0 else 1.0) for v in f]),
 ("out[i] = smoothstep(-1.0f, 1.0f, a[i]);", {"a": ("float", f)}, ("float", np.float32), [(lambda t: t*t*(3-2*t))(min(max((v+1)/2, 0), 1)) for v in f]),
 ("float4 v = (float4)(a[i], 1.0f, 2.0f, 3.0f); out[i] = length(v) + distance(v, (float4)(0.0f)) + normalize(v).x;", {"a": ("float", f)}, ("float", np.float32),
   [2*np.sqrt(v*v+14) + v/np.sqrt(v*v+14) for v in f]),
 ("float3 c = cross((float3)(a[i], 1.0f, 2.0f), (float3)(3.0f, a[i], 5.0f)); out[i] = c.x * 100 + c.y * 10 + c.z;", {"a": ("float", f)}, ("float", np.float32),
   [(lambda c: c[0]*100 + c[1]*10 + c[2])(np.cross([v, 1, 2], [3, v, 5])) for v in f]),
 ("int4 m = (float4)(a[i]) < (float4)(-1.0f, 0.0f, 1.0f, 2.0f); out[i] = m.x * 1000 + m.y * 100 + m.z * 10 + m.w + any(m) * 7 + all(m) * 3;", {"a": ("float", f)}, ("int", np.int32),
   [(lambda m: -(m[0]*1000 + m[1]*100 + m[2]*10 + m[3]) + any(m)*7 + all(m)*3)([int(v < t) for t in (-1, 0, 1, 2)]) for v in f]),
 ("out[i] = select(1.5f, 2.5f, (int)(a[i] > 0.0f)) + bitselect(a[i], 0.0f, 0.0f);", {"a": ("float", f)}, ("float", np.float32), [(2.5 if v > 0 else 1.5) + v for v in f]),
 ("out[i] = isnan(a[i] / 0.0f) + isinf(1.0f / a[i]) * 10 + signbit(a[i]) * 100 + isfinite(a[i]) * 1000;", {"a": ("float", f)}, ("int", np.int32),
   [(1 if v == 0 else 0) + (10 if v == 0 else 0) + (100 if v < 0 else 0) + 1000 for v in f]),
 ("uint x = as_uint(a[i]); out[i] = as_float(x ^ 0x80000000u);", {"a": ("float", f)}, ("float", np.float32), [-v for v in f]),
 ("int s = 0; switch (i & 3) { case 0: s = 1; case 1: s += 2; break; default: s = 9; } out[i] = s;", {"a": ("int", i32)}, ("int", np.int32), [[3, 2, 9, 9][i & 3] for i in range(16)]),
 ("out[i] = upsample((short)a[i], (ushort)3);", {"a": ("int", i32)}, ("int", np.int32), [np.int32(((np.int16(v) .astype(np.int32)) << 16) | 3) for v in i32.astype(np.int16)]),
 ("out[i] = abs_diff(a[i], -5) + abs(a[i]);", {"a": ("int", i32)}, ("uint", np.uint32), [(abs(int(v) + 5) + abs(int(v))) & 0xffffffff for v in i32]),
 ("float x = a[i]; x += 1; x *= 2; out[i] = x-- + --x;", {"a": ("float", f)}, ("float", np.float32), [(v+1)*2 + (v+1)*2 - 2 for v in f]),
 ("__global float *p = a + i; out[i] = *p + p[0] + (p - a);", {"a": ("float", f)}, ("float", np.float32), [2*v + i for i, v in enumerate(f)]),
 ("if (i == 0) { float4 v = vload4(1, a); vstore4(v * 2.0f, 0, out); out[4] = vload2(1, a).y; }", {"a": ("float", f)}, ("float", np.float32), [2 * v for v in f[4:8]] + [f[3]] + [0] * 11),
 ("atomic_add(out, 1); atomic_max((__global int*)out + 1, (int)i); atomic_inc((__global int*)out + 2);", {"a": ("int", i32)}, ("int", np.int32), [16, 15, 16] + [0] * 13),
 ("out[i] = fmin(a[i], 0.5f) + fmax(a[i], -0.5f) + mix(a[i], 1.0f, 0.25f) + clamp(a[i], -1.0f, 1.0f) + min(a[i], 0.0f) + max(a[i], 0.0f);", {"a": ("float", f)}, ("float", np.float32),
   [min(v, .5) + max(v, -.5) + v + (1 - v) * .25 + min(max(v, -1), 1) + min(v, 0) + max(v, 0) for v in f]),
 ("out[i] = a[i] > 0 ? (a[i] << 3) % 7 : -a[i] / 3;", {"a": ("int", i32)}, ("int", np.int32), [(((int(v) << 3) & 0xffffffff) - (1 << 32 if ((int(v) << 3) & 0x80000000) else 0)) % 7 if v > 0 else int(-v / 3) for v in i32]),
]

@pytest.mark.parametrize("body, ins, out_dtype, want", checks, ids=[c[0][:40] for c in checks])
def test_builtin_values(queue, body: str, ins: dict, out_dtype: tuple, want: list) -> None:  # type: ignore[no-untyped-def]
    got = run(queue, body, ins, out_dtype)
    expected = np.array(want, dtype=out_dtype[1])
    if out_dtype[1] == np.float32:
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    else:
        np.testing.assert_array_equal(got, expected)


def test_half_vectors_and_shuffles(queue) -> None:  # type: ignore[no-untyped-def]
    ctx, q = queue
    src = """#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__kernel void k(__global float *out, __global half *h) {
      vstore_half4((float4)(1.5f, -2.0f, 0.25f, 65504.0f), 0, h);
      float4 back = vload_half4(0, h);
      vstorea_half3((float3)(3.0f, 4.0f, 5.0f), 1, h);
      float3 b3 = vloada_half3(1, h);
      int4 v = (int4)(10, 20, 30, 40);
      int4 s = shuffle(v, (uint4)(3, 2, 1, 0));
      int8 t = shuffle2(v, v * 2, (uint8)(0, 4, 1, 5, 2, 6, 3, 7));
      out[0] = back.x; out[1] = back.y; out[2] = back.z; out[3] = back.w;
      out[4] = b3.x + b3.y + b3.z; out[5] = h[4];
      out[6] = s.x * 1000 + s.w; out[7] = t.s1 + t.s6 * 1000;
    }"""
    prg = cl.Program(ctx, src).build()
    out = np.zeros(8, np.float32)
    ob = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, out.nbytes)
    hb = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 32)
    prg.k(q, (1,), None, ob, hb)
    cl.enqueue_copy(q, out, ob)
    halves = np.empty(16, np.float16)
    cl.enqueue_copy(q, halves, hb)
    assert out[:5].tolist() == [1.5, -2.0, 0.25, 65504.0, 12.0]
    assert halves[4] == 3.0 and out[6] == 40 * 1000 + 10 and out[7] == 20 + 40 * 1000
