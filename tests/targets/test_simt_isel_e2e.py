"""OpenCL C kernels compiled by our frontend through the whole simt pipeline, run on the
simulator, compared with NumPy: selected only (virtual registers), and allocated for the
default and the tiny register files (spills), every allocation checked."""

from __future__ import annotations

import numpy as np
import pytest

from tests.targets.simt_cl_harness import Local, run_cl, sim_config

LEVELS = [0, 2]


@pytest.fixture(params=["virtual", "default", "tiny"])
def regs(request: pytest.FixtureRequest) -> str:
    """Each kernel selected (virtual registers), and allocated for the default and the tiny files."""
    return str(request.param)


@pytest.mark.parametrize("level", LEVELS)
def test_vector_add_with_a_guard(level: int, regs: str) -> None:
    src = """kernel void vadd(global const float *a, global const float *b, global float *c, int n) {
      int i = get_global_id(0);
      if (i < n) c[i] = a[i] + b[i];
    }"""
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal(200).astype(np.float32), rng.standard_normal(200).astype(np.float32)
    out, _ = run_cl(src, "vadd", [a, b, np.zeros(200, np.float32), np.int32(200)], (256,), (64,), level, regs=regs)
    np.testing.assert_array_equal(out[2], a + b)


@pytest.mark.parametrize("level", LEVELS)
def test_if_else_and_loop_with_divergent_trip_count(level: int, regs: str) -> None:
    src = """kernel void k(global int *out) {
      int i = get_global_id(0);
      int s = 0;
      for (int k = 0; k < i % 37; k++) s += k * (i & 3);
      if (i % 3 == 0) s = s * 2; else s = s + 100;
      out[i] = s;
    }"""
    out, _ = run_cl(src, "k", [np.zeros(256, np.int32)], (256,), (64,), level, regs=regs)
    i = np.arange(256)
    s = np.array([sum(k * (x & 3) for k in range(x % 37)) for x in i])
    np.testing.assert_array_equal(out[0], np.where(i % 3 == 0, s * 2, s + 100))


@pytest.mark.parametrize("level", LEVELS)
def test_loop_with_break_and_continue_and_a_value_used_after_it(level: int, regs: str) -> None:
    src = """kernel void k(global int *out, int n) {
      int i = get_global_id(0);
      int j, acc = 0;
      for (j = 0; j < n; j++) {
        if ((j ^ i) % 5 == 0) continue;
        acc += j;
        if (acc > i * 3) break;
      }
      out[i] = acc * 1000 + j;
    }"""
    out, _ = run_cl(src, "k", [np.zeros(128, np.int32), np.int32(40)], (128,), (32,), level, regs=regs)
    want = []
    for i in range(128):
        acc, j = 0, 0
        while j < 40:
            if (j ^ i) % 5 == 0:
                j += 1
                continue
            acc += j
            if acc > i * 3:
                break
            j += 1
        want.append(acc * 1000 + j)
    np.testing.assert_array_equal(out[0], want)


@pytest.mark.parametrize("level", LEVELS)
def test_uniform_loop_stays_scalar_and_sums_a_row(level: int, regs: str) -> None:
    src = """kernel void rows(global const float *m, global float *out, int cols) {
      int r = get_global_id(0);
      float s = 0.0f;
      for (int c = 0; c < cols; c++) s += m[r * cols + c];
      out[r] = s;
    }"""
    m = np.arange(64 * 10, dtype=np.float32).reshape(64, 10)
    out, _ = run_cl(src, "rows", [m, np.zeros(64, np.float32), np.int32(10)], (64,), (16,), level, regs=regs)
    np.testing.assert_allclose(out[1], m.sum(axis=1), rtol=1e-6)


@pytest.mark.parametrize("level", LEVELS)
def test_local_memory_barrier_and_reduction(level: int, regs: str) -> None:
    src = """kernel void reduce(global const int *in, global int *out, local int *tmp) {
      int l = get_local_id(0), n = get_local_size(0);
      tmp[l] = in[get_global_id(0)];
      barrier(CLK_LOCAL_MEM_FENCE);
      for (int s = n / 2; s > 0; s >>= 1) {
        if (l < s) tmp[l] += tmp[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
      }
      if (l == 0) out[get_group_id(0)] = tmp[0];
    }"""
    data = np.arange(512, dtype=np.int32)
    out, _ = run_cl(src, "reduce", [data, np.zeros(4, np.int32), Local(128 * 4)], (512,), (128,), level, regs=regs)
    np.testing.assert_array_equal(out[1], data.reshape(4, 128).sum(axis=1))


@pytest.mark.parametrize("level", LEVELS)
def test_static_local_array_and_2d_ids(level: int, regs: str) -> None:
    src = """kernel void transpose(global const float *in, global float *out, int w, int h) {
      local float tile[8][9];
      int x = get_global_id(0), y = get_global_id(1);
      int lx = get_local_id(0), ly = get_local_id(1);
      tile[ly][lx] = in[y * w + x];
      barrier(CLK_LOCAL_MEM_FENCE);
      int ox = get_group_id(1) * 8 + lx, oy = get_group_id(0) * 8 + ly;
      out[oy * h + ox] = tile[lx][ly];
    }"""
    m = np.arange(16 * 24, dtype=np.float32).reshape(24, 16)
    out, _ = run_cl(src, "transpose", [m, np.zeros((16, 24), np.float32), np.int32(16), np.int32(24)],
                    (16, 24), (8, 8), level, regs=regs)
    np.testing.assert_array_equal(out[1], m.T)


def test_atomics_on_global_and_local_memory(regs: str) -> None:
    src = """kernel void hist(global const int *in, global int *bins, global int *total) {
      local int lbins[4];
      int l = get_local_id(0);
      if (l < 4) lbins[l] = 0;
      barrier(CLK_LOCAL_MEM_FENCE);
      atomic_add(&lbins[in[get_global_id(0)] & 3], 1);
      barrier(CLK_LOCAL_MEM_FENCE);
      if (l < 4) atomic_add(&bins[l], lbins[l]);
      atomic_inc(total);
      atomic_max(&bins[4], in[get_global_id(0)]);
    }"""
    data = np.random.default_rng(5).integers(0, 1000, 256).astype(np.int32)
    out, _ = run_cl(src, "hist", [data, np.zeros(5, np.int32), np.zeros(1, np.int32)], (256,), (64,), regs=regs)
    np.testing.assert_array_equal(out[1][:4], np.bincount(data & 3, minlength=4))
    assert out[1][4] == data.max() and out[2][0] == 256


def test_cmpxchg_loop_float_add(regs: str) -> None:
    src = """kernel void fsum(global const float *in, global float *sum) {
      float v = in[get_global_id(0)];
      volatile global int *p = (volatile global int *)sum;
      int old = *p, assumed;
      do { assumed = old; old = atomic_cmpxchg(p, assumed, as_int(as_float(assumed) + v)); } while (old != assumed);
    }"""
    data = np.ones(96, np.float32)
    out, _ = run_cl(src, "fsum", [data, np.zeros(1, np.float32)], (96,), (32,), regs=regs)
    assert out[1][0] == 96.0


@pytest.mark.parametrize("level", LEVELS)
def test_64_bit_integers_doubles_and_conversions(level: int, regs: str) -> None:
    src = """kernel void k(global long *l, global double *d, global uint *u, global float *f, global char *c) {
      int i = get_global_id(0);
      long x = (long)i * 3000000000L - 7;
      l[i] = x / 3 + (x >> 5) + (x % 11);
      d[i] = (double)x * 0.5 + sqrt((double)i);
      u[i] = (uint)(x & 0xffffffff) >> 3;
      f[i] = (float)(i - 50) / 3.0f + (float)(uchar)(i * 7);
      c[i] = (char)(i * 5) >> 1;
    }"""
    n = 100
    args = [np.zeros(n, np.int64), np.zeros(n, np.float64), np.zeros(n, np.uint32), np.zeros(n, np.float32),
            np.zeros(n, np.int8)]
    out, _ = run_cl(src, "k", args, (n,), (50,), level, regs=regs)
    i = np.arange(n, dtype=np.int64)
    x = i * 3000000000 - 7
    q = np.trunc(x / 3).astype(np.int64)
    r = x - np.trunc(x / 11).astype(np.int64) * 11
    np.testing.assert_array_equal(out[0], q + (x >> 5) + r)
    np.testing.assert_array_equal(out[1], x.astype(np.float64) * 0.5 + np.sqrt(i.astype(np.float64)))
    np.testing.assert_array_equal(out[2], (x & 0xFFFFFFFF).astype(np.uint32) >> 3)
    want_f = (i - 50).astype(np.float32) / np.float32(3) + ((i * 7) & 0xFF).astype(np.float32)
    np.testing.assert_array_equal(out[3], want_f)
    np.testing.assert_array_equal(out[4], ((i * 5).astype(np.int8)) >> 1)


@pytest.mark.parametrize("level", LEVELS)
def test_vectors_structs_and_private_arrays(level: int, regs: str) -> None:
    src = """typedef struct { int a; float b; } S;
    kernel void k(global float4 *v, global float *o, S s, float2 scale) {
      int i = get_global_id(0);
      float4 x = v[i];
      float tmp[4] = {x.x, x.y, x.z, x.w};
      float acc = 0;
      for (int k = 0; k < 4; k++) acc += tmp[(k + i) & 3] * (k + 1);
      v[i] = x.wzyx * scale.x + (float4)(s.b);
      o[i] = acc + s.a * scale.y;
    }"""
    n = 64
    v = np.arange(n * 4, dtype=np.float32).reshape(n, 4)
    s = np.array([(7, 0.5)], dtype=[("a", np.int32), ("b", np.float32)])
    out, _ = run_cl(src, "k", [v.copy(), np.zeros(n, np.float32), s.tobytes(), np.array([2, 3], np.float32).tobytes()],
                    (n,), (32,), level, regs=regs)
    np.testing.assert_array_equal(out[0], v[:, ::-1] * 2 + 0.5)
    acc = [sum(v[i][(k + i) & 3] * (k + 1) for k in range(4)) for i in range(n)]
    np.testing.assert_array_equal(out[1], np.array(acc, np.float32) + 21)


@pytest.mark.parametrize("width", [8, 32, 64])
def test_partial_waves_and_wave_widths(width: int, regs: str) -> None:
    src = """kernel void k(global int *out) {
      int i = get_global_id(0);
      out[i] = get_local_linear_id() * 1000 + get_group_id(0) + (get_global_linear_id() == i ? 0 : 99999);
    }"""
    out, _ = run_cl(src, "k", [np.zeros(60, np.int32)], (60,), (20,), config=sim_config(regs, wave_width=width), regs=regs,
                    options="-cl-std=CL2.0")  # the linear ids
    i = np.arange(60)
    np.testing.assert_array_equal(out[0], (i % 20) * 1000 + i // 20)


CALLS = """
__attribute__((noinline)) int scale(int x, int k) { return x * k + get_local_id(0); }
__attribute__((noinline)) float many(float a, float b, float c, float d, float e, float f, float g, float h,
   float i, float j, float k, float l, float m, float n, float o, float p, float q, double r) {
   return a + 2*b + 3*c + 4*d + 5*e + 6*f + 7*g + 8*h + 9*i + 10*j + 11*k + 12*l + 13*m + 14*n + 15*o + 16*p
          + 17*q + 18*(float)r;
}
__attribute__((noinline)) int uni(int n, int m) { int s = 0; for (int k = 0; k < n; k++) s += m; return s; }
__attribute__((noinline)) int priv(int i) {
  int t[8];
  for (int k = 0; k < 8; k++) t[k] = k * i;
  int s = 0;
  for (int k = 0; k < 8; k++) if (t[k] & 1) s += t[k];
  return s;
}
__attribute__((noinline)) int early(int i) { if (i & 1) return i * 10; return uni(3, i) + scale(i, 2); }
kernel void k(global int *out, global float *fo, int n) {
  int i = get_global_id(0);
  int pad[3] = {i, i + 1, i + 2};
  out[i] = scale(i, n) + uni(n, 3) + priv(i) + early(i) + pad[i % 3];
  float x = i;
  fo[i] = many(x, x+1, x+2, x+3, x+4, x+5, x+6, x+7, x+8, x+9, x+10, x+11, x+12, x+13, x+14, x+15, x+16, x+17);
}
"""


@pytest.mark.parametrize("level", LEVELS)
def test_calls_uniform_and_divergent_arguments_stack_arguments_frames(level: int, regs: str) -> None:
    out, _ = run_cl(CALLS, "k", [np.zeros(64, np.int32), np.zeros(64, np.float32), np.int32(5)], (64,), (32,),
                    level, regs=regs)
    i = np.arange(64)
    priv = np.array([sum(k * x for k in range(8) if (k * x) & 1) for x in i])
    early = np.where(i & 1, i * 10, 3 * i + i * 2 + i % 32)
    np.testing.assert_array_equal(out[0], i * 5 + i % 32 + 15 + priv + early + i + i % 3)
    xs = i.astype(np.float32)
    np.testing.assert_allclose(out[1], sum((k + 1) * (xs + k) for k in range(18)), rtol=1e-6)


def test_divergent_switch_and_generic_pointers(regs: str) -> None:
    src = """kernel void k(global int *out) {
      local int l[64];
      int p[4] = {1, 2, 3, 4};
      int i = get_global_id(0), li = get_local_id(0);
      l[li] = i * 2;
      barrier(CLK_LOCAL_MEM_FENCE);
      int *g;
      switch (i % 4) {
        case 0: g = &out[i]; *g = 5; break;
        case 1: g = &l[li]; break;
        case 2: g = &p[i % 3]; break;
        default: g = 0;
      }
      int v = g ? *g : -1;
      out[i] = v + (to_private(g) != 0 ? 1000 : 0) + (to_local(g) != 0 ? 2000 : 0) + (to_global(g) != 0 ? 4000 : 0);
    }"""
    out, _ = run_cl(src, "k", [np.zeros(128, np.int32)], (128,), (64,), options="-cl-std=CL2.0", regs=regs)
    i = np.arange(128)
    want = np.select([i % 4 == 0, i % 4 == 1, i % 4 == 2], [5 + 4000, i * 2 + 2000, (i % 3) + 1 + 1000], -1)
    np.testing.assert_array_equal(out[0], want)


def test_math_builtins(regs: str) -> None:
    src = """kernel void k(global const float *x, global float *o) {
      int i = get_global_id(0);
      float v = x[i];
      o[8 * i + 0] = sqrt(fabs(v)) + floor(v) + ceil(v) + trunc(v) + rint(v);
      o[8 * i + 1] = fmin(v, 0.5f) + fmax(v, -0.5f) + fma(v, v, 1.0f) + copysign(2.0f, v);
      o[8 * i + 2] = exp(v);
      o[8 * i + 3] = log(fabs(v) + 1.0f);
      o[8 * i + 4] = sin(v);
      o[8 * i + 5] = cos(v);
      o[8 * i + 6] = exp2(v) + log2(fabs(v) + 2.0f);
      o[8 * i + 7] = ldexp(v, 3) + rsqrt(fabs(v) + 1.0f);
    }"""
    x = np.linspace(-6, 6, 64).astype(np.float32)
    out, _ = run_cl(src, "k", [x, np.zeros(8 * 64, np.float32)], (64,), (64,), regs=regs)
    o = out[1].reshape(64, 8)
    f = np.float32
    np.testing.assert_allclose(o[:, 0], np.sqrt(np.abs(x)) + np.floor(x) + np.ceil(x) + np.trunc(x) + np.rint(x),
                               rtol=1e-6)
    np.testing.assert_allclose(o[:, 1], np.minimum(x, f(.5)) + np.maximum(x, f(-.5)) + (x * x + 1)
                               + np.copysign(f(2), x), rtol=1e-6)
    for col, want in ((2, np.exp(x)), (3, np.log(np.abs(x) + 1)), (4, np.sin(x)), (5, np.cos(x)),
                      (6, np.exp2(x) + np.log2(np.abs(x) + 2)), (7, x * 8 + 1 / np.sqrt(np.abs(x) + 1))):
        np.testing.assert_allclose(o[:, col], want, rtol=2e-6, atol=1e-6)


def test_program_scope_constant_tables_in_kernels_and_helpers(regs: str) -> None:
    src = """constant float weights[5] = {0.1f, 0.2f, 0.4f, 0.2f, 0.1f};
    constant int offsets[2][3] = {{-2, -1, 0}, {1, 2}};
    __attribute__((noinline)) float tap(int k) { return weights[k] * 10.0f; }
    kernel void blur(global const float *in, global float *out, int n) {
      int i = get_global_id(0);
      float s = 0.0f;
      for (int k = 0; k < 5; k++) {
        int j = clamp(i + offsets[k / 3][k % 3], 0, n - 1);
        s += in[j] * weights[k];
      }
      out[i] = s + tap(i % 5) + weights[2];
    }"""
    x = np.arange(40, dtype=np.float32) ** 2
    out, _ = run_cl(src, "blur", [x, np.zeros(40, np.float32), np.int32(40)], (40,), (8,), regs=regs)
    w = np.array([0.1, 0.2, 0.4, 0.2, 0.1], np.float32)
    i = np.arange(40)
    want = sum(x[np.clip(i + k - 2, 0, 39)] * w[k] for k in range(5)) + w[i % 5] * np.float32(10) + w[2]
    np.testing.assert_allclose(out[1], want, rtol=1e-6)


@pytest.mark.parametrize("level", LEVELS)
def test_switch_on_a_char_with_negative_cases(level: int, regs: str) -> None:
    src = """kernel void k(global const char *in, global int *out, char u) {
      int i = get_global_id(0);
      int r;
      switch (in[i]) { case -1: r = 10; break; case 3: r = 20; break; case -128: r = 30; break; default: r = 0; }
      switch (u) { case -2: r += 100; break; default: r += 200; }
      out[i] = r;
    }"""
    data = np.array([-1, 3, -128, 5, 127, -1, 0, 3], np.int8)
    out, _ = run_cl(src, "k", [data, np.zeros(8, np.int32), np.int8(-2)], (8,), (8,), level, regs=regs)
    np.testing.assert_array_equal(out[1], np.select([data == -1, data == 3, data == -128], [10, 20, 30], 0) + 100)
