"""End-to-end kernels over the foundation slice of OpenCL C, each checked
against NumPy or values computed by hand from C's rules."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy as cl


def test_vector_add(run_kernel):
    n = 1000
    a = np.arange(n, dtype=np.float32)
    b = np.full(n, 0.5, dtype=np.float32)
    out = np.zeros(n, dtype=np.float32)
    src = """
    __kernel void add(__global const float *a, __global const float *b, __global float *c, int n) {
        size_t i = get_global_id(0);
        if (i < n) c[i] = a[i] + b[i];
    }"""
    _, _, c = run_kernel(src, "add", (1024,), (64,), a, b, out, np.int32(n))
    np.testing.assert_array_equal(c, a + b)


def test_helper_function_and_loops(run_kernel):
    src = """
    int triangle(int n) { int s = 0; for (int i = 1; i <= n; i++) s += i; return s; }
    float halve(float x) { return x / 2; }
    __kernel void k(__global int *out, __global float *f) {
        int i = get_global_id(0);
        int acc = 0, j = 0;
        while (j < i) { if (j == 5) { j++; continue; } acc += j; j++; }
        do { acc++; } while (0);
        for (;;) { if (acc > 1000) break; acc *= 2; }
        out[i] = triangle(i) * 10000 + acc;
        f[i] = halve((float)i);
    }"""
    out = np.zeros(16, np.int32)
    f = np.zeros(16, np.float32)
    out, f = run_kernel(src, "k", (16,), (4,), out, f)

    def expected(i):
        acc = sum(j for j in range(i) if j != 5) + 1
        while acc <= 1000:
            acc *= 2
        return (i * (i + 1) // 2) * 10000 + acc

    assert list(out) == [expected(i) for i in range(16)]
    np.testing.assert_array_equal(f, np.arange(16, dtype=np.float32) / 2)


def test_integer_semantics(run_kernel):
    src = """
    __kernel void k(__global int *o, __global uint *u, __global long *l) {
        int a = -7, b = 2;
        o[0] = a / b;            // C truncates toward zero: -3
        o[1] = a % b;            // -1
        o[2] = a >> 1;           // arithmetic shift: -4
        o[3] = 1 << 33;          // OpenCL: shift count modulo 32 -> 2
        uint x = 0xFFFFFFFFu;
        u[0] = x + 1u;           // wraps to 0
        u[1] = (uint)a >> 28;    // logical shift: 15
        o[4] = (a < 0u);         // usual arithmetic conversions: -7 -> huge unsigned, so 0
        o[5] = (char)300;        // 44
        o[6] = (unsigned char)-1;// 255
        l[0] = (long)a * 1000000000L;
        o[7] = !5 + (3 && 0) + (0 || 2) + ~0; // 0 + 0 + 1 - 1
        o[8] = (a, b);           // comma: 2
        o[9] = a > b ? a : b;    // 2
        short s = 32767; s++;
        o[10] = s;               // -32768
    }"""
    o, u, l = run_kernel(src, "k", (1,), (1,), np.zeros(11, np.int32), np.zeros(2, np.uint32),
                         np.zeros(1, np.int64))
    assert list(o) == [-3, -1, -4, 2, 0, 44, 255, 0, 2, 2, -32768]
    assert list(u) == [0, 15]
    assert l[0] == -7_000_000_000


def test_float_and_double_conversions(run_kernel):
    src = """
    __kernel void k(__global float *f, __global double *d, __global int *i) {
        f[0] = 7 / 2;            // integer division, then converted: 3
        f[1] = 7 / 2.0f;         // 3.5
        d[0] = 1.0 / 3.0;
        i[0] = (int)-2.7f;       // truncation: -2
        i[1] = (int)(2.5 * 2);   // 5
        f[2] = (float)d[0];
    }"""
    f, d, i = run_kernel(src, "k", (1,), (1,), np.zeros(3, np.float32), np.zeros(1, np.float64),
                         np.zeros(2, np.int32))
    assert list(f[:2]) == [3.0, 3.5]
    assert d[0] == 1.0 / 3.0
    assert f[2] == np.float32(1.0 / 3.0)
    assert list(i) == [-2, 5]


def test_private_array_and_pointers(run_kernel):
    src = """
    void fill(__private int *p, int n) { for (int i = 0; i < n; i++) p[i] = i * i; }
    __kernel void k(__global int *out) {
        int arr[8];
        int grid[2][3];
        fill(arr, 8);
        int *p = arr + 2;
        *p += 100;
        p++;
        for (int r = 0; r < 2; r++) for (int c = 0; c < 3; c++) grid[r][c] = r * 10 + c;
        out[0] = arr[2];
        out[1] = *p;
        out[2] = (int)(p - arr);
        out[3] = grid[1][2];
        __global int *q = &out[4];
        q[0] = 42;
    }"""
    (out,) = run_kernel(src, "k", (1,), (1,), np.zeros(5, np.int32))
    assert list(out) == [104, 9, 3, 12, 42]


def test_work_item_functions_2d(run_kernel):
    src = """
    __kernel void k(__global int *out) {
        int x = get_global_id(0), y = get_global_id(1);
        int w = get_global_size(0);
        int idx = (y * w + x) * 6;
        out[idx + 0] = get_local_id(0);
        out[idx + 1] = get_local_id(1);
        out[idx + 2] = get_group_id(0);
        out[idx + 3] = get_group_id(1);
        out[idx + 4] = get_num_groups(0) * 100 + get_local_size(1) * 10 + get_work_dim();
        out[idx + 5] = get_global_size(1);
    }"""
    (out,) = run_kernel(src, "k", (8, 4), (4, 2), np.zeros(8 * 4 * 6, np.int32))
    out = out.reshape(4, 8, 6)
    for y in range(4):
        for x in range(8):
            assert list(out[y, x]) == [x % 4, y % 2, x // 4, y // 2, 2 * 100 + 2 * 10 + 2, 4]


def test_local_memory_reverse_with_barrier(run_kernel):
    src = """
    __kernel void rev(__global int *data, __local int *tmp) {
        int l = get_local_id(0), n = get_local_size(0), g = get_global_id(0);
        tmp[l] = data[g];
        barrier(CLK_LOCAL_MEM_FENCE);
        data[g] = tmp[n - 1 - l];
    }"""
    data = np.arange(256, dtype=np.int32)
    (out,) = run_kernel(src, "rev", (256,), (64,), data.copy(), cl.LocalMemory(64 * 4))
    np.testing.assert_array_equal(out, data.reshape(4, 64)[:, ::-1].reshape(-1))


def test_barrier_in_loop_with_static_local(run_kernel):
    src = """
    __kernel void prefix(__global int *data) {
        __local int buf[64];
        int l = get_local_id(0);
        buf[l] = data[get_global_id(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int off = 1; off < 64; off *= 2) {
            int v = l >= off ? buf[l - off] : 0;
            barrier(CLK_LOCAL_MEM_FENCE);
            buf[l] += v;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        data[get_global_id(0)] = buf[l];
    }"""
    data = np.random.default_rng(0).integers(0, 100, 128).astype(np.int32)
    (out,) = run_kernel(src, "prefix", (128,), (64,), data.copy())
    np.testing.assert_array_equal(out, np.cumsum(data.reshape(2, 64), axis=1).reshape(-1))


def test_constant_memory_and_program_scope_constant(run_kernel):
    src = """
    __constant float weights[3] = {0.25f, 0.5f, 0.25f};
    __kernel void blur(__global const float *in, __constant float *scale, __global float *out) {
        int i = get_global_id(0) + 1;
        out[i] = scale[0] * (weights[0] * in[i - 1] + weights[1] * in[i] + weights[2] * in[i + 1]);
    }"""
    x = np.random.default_rng(5).random(66, dtype=np.float32)
    out = np.zeros_like(x)
    _, _, out = run_kernel(src, "blur", (64,), (16,), x, np.array([2.0], np.float32), out)
    want = 2.0 * (0.25 * x[:-2] + 0.5 * x[1:-1] + 0.25 * x[2:])
    np.testing.assert_allclose(out[1:-1], want, rtol=1e-6)


def test_define_and_build_options(run_kernel):
    src = """
    #ifndef SCALE
    #error SCALE must be defined
    #endif
    #if SCALE > 2
    #define OP(x) ((x) * SCALE)
    #else
    #define OP(x) ((x) + SCALE)
    #endif
    __kernel void k(__global int *o) { o[get_global_id(0)] = OP((int)get_global_id(0)); }"""
    (o,) = run_kernel(src, "k", (4,), (4,), np.zeros(4, np.int32), options="-D SCALE=3")
    assert list(o) == [0, 3, 6, 9]
    (o,) = run_kernel(src, "k", (4,), (4,), np.zeros(4, np.int32), options="-DSCALE=1")
    assert list(o) == [1, 2, 3, 4]


@pytest.mark.parametrize("ctype,dtype", [("char", np.int8), ("uchar", np.uint8), ("short", np.int16),
                                         ("ushort", np.uint16), ("uint", np.uint32), ("long", np.int64),
                                         ("ulong", np.uint64), ("double", np.float64)])
def test_scalar_types_roundtrip(run_kernel, ctype, dtype):
    src = f"""
    __kernel void k(__global {ctype} *out, __global const {ctype} *in, {ctype} add) {{
        size_t i = get_global_id(0);
        out[i] = in[i] + add;
    }}"""
    inp = np.arange(8).astype(dtype)
    out = np.zeros(8, dtype)
    out, _ = run_kernel(src, "k", (8,), (8,), out, inp, dtype(3))
    np.testing.assert_array_equal(out, (inp + dtype(3)).astype(dtype))


def test_bool_and_size_t(run_kernel):
    src = """
    __kernel void k(__global int *o) {
        bool b = 5;
        bool c = 0;
        size_t s = get_global_size(0);
        o[0] = b + c;
        o[1] = sizeof(size_t) * 10 + sizeof(bool);
        o[2] = (int)s;
    }"""
    (o,) = run_kernel(src, "k", (1,), (1,), np.zeros(3, np.int32))
    assert list(o) == [1, 81, 1]
