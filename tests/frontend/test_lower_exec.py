"""Lowered kernels executed on the cpu device: control flow, structs, vectors,
pointers and conversions give the values C and OpenCL C prescribe."""

import numpy as np
import pytest

cl = pytest.importorskip("oclpy")


def run_int(queue, src: str, n: int = 8, options: str = "") -> list[int]:  # type: ignore[no-untyped-def]
    """Run `k(__global int *out)` over n work-items; return out."""
    ctx, q = queue
    prg = cl.Program(ctx, src).build(options)
    out = np.zeros(n, np.int32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=out)
    prg.k(q, (n,), None, buf)
    cl.enqueue_copy(q, out, buf)
    return out.tolist()


def test_loops_break_continue_goto(queue) -> None:  # type: ignore[no-untyped-def]
    src = """__kernel void k(__global int *out) {
      int i = get_global_id(0), s = 0;
      for (int j = 0; j < 10; j++) { if (j == i) continue; if (j > 6) break; s += j; }
      int w = i; do { s += 100; } while (--w > 0);
      again: if (s < 1000) { s *= 2; goto again; }
      out[i] = s;
    }"""
    def ref(i: int) -> int:
        s = sum(j for j in range(7) if j != i) + 100 * max(i, 1)
        while s < 1000:
            s *= 2
        return s
    assert run_int(queue, src) == [ref(i) for i in range(8)]


def test_switch_fallthrough_and_default(queue) -> None:  # type: ignore[no-untyped-def]
    src = """__kernel void k(__global int *out) {
      int i = get_global_id(0), r = 0;
      switch (i) { case 0: r = 1; case 1: r += 10; break; case 3: case 4: r = 34; break;
                   default: r = -1; case 6: r += 6; }
      out[i] = r;
    }"""
    assert run_int(queue, src) == [11, 10, 5, 34, 34, 5, 6, 5]


def test_short_circuit_skips_side_effects(queue) -> None:  # type: ignore[no-untyped-def]
    src = """__kernel void k(__global int *out) {
      int i = get_global_id(0), n = 0;
      if (i > 3 && (n += 1) > 0) n += 10;
      if (i > 5 || (n += 100) > 0) n += 1000;
      out[i] = n + (i ? 2 : 3) + (i, 7);
    }"""
    assert run_int(queue, src) == [1110, 1109, 1109, 1109, 1120, 1120, 1020, 1020]


def test_integer_semantics(queue) -> None:  # type: ignore[no-untyped-def]
    src = """__kernel void k(__global int *out) {
      int i = get_global_id(0);
      uint u = (uint)i - 4u;         /* wraps */
      out[i] = (int)(u > 2u) * 1000 + (-7 / 2) * 100 + (-7 % 2) * 10 + (1 << (32 + i)) % 9
               + (i < -1u) + (char)(200 + i) / 64;
    }"""
    def ref(i: int) -> int:
        u = (i - 4) & 0xFFFFFFFF
        c = ((200 + i + 128) % 256) - 128
        shifted = (1 << i) % 9
        return (u > 2) * 1000 + (-3) * 100 + (-1) * 10 + shifted + int(i < 0xFFFFFFFF) + int(c / 64)
    assert run_int(queue, src) == [ref(i) for i in range(8)]


def test_division_by_zero_does_not_trap(queue) -> None:  # type: ignore[no-untyped-def]
    src = """__kernel void k(__global int *out) { int i = get_global_id(0);
      int m = -2147483647 - i * 0 - 1, d = -1 + i * 0;
      out[i] = 5 / (i - i) + 1 + (m / d == m) * 10 + (m % d) * 100; }"""
    assert run_int(queue, src) == [16] * 8  # undefined, but the kernel runs; INT_MIN / -1 wraps


def test_structs_arrays_and_pointers(queue) -> None:  # type: ignore[no-untyped-def]
    src = """typedef struct { short a; int b[3]; char c; } S;
    __constant int T[2][3] = {{1, 2, 3}, {4, 5, 6}};
    int sum(S *s) { return s->a + s->b[0] + s->b[1] + s->b[2] + s->c; }
    S make(int i) { S s = { i, { 1, 2, 3 }, 'x' }; return s; }
    __kernel void k(__global int *out) {
      int i = get_global_id(0);
      S s = make(i); S t = s; t.b[2] = T[1][i % 3];
      int arr[4] = {9, 8}; int *p = &arr[1]; *p += 1; p++;
      int m[2][2]; m[1][0] = 5;
      out[i] = sum(&t) * 10 + arr[1] + (int)(p - arr) + m[1][0] + sizeof(S);
    }"""
    assert run_int(queue, src) == [(i + 1 + 2 + [4, 5, 6][i % 3] + ord("x")) * 10 + 9 + 2 + 5 + 20
                                   for i in range(8)]


def test_vectors_swizzles_and_comparisons(queue) -> None:  # type: ignore[no-untyped-def]
    src = """__kernel void k(__global int *out) {
      int i = get_global_id(0);
      int4 v = (int4)(i, i + 1, i + 2, i + 3);
      v.xw = v.wx; v.s1 += 10; v.hi = v.lo * 2;
      int4 m = v > (int4)(5);
      int8 w = (int8)(v, m);
      out[i] = v.x * 1000 + v.y * 100 + v.z + v.w + w.s4 + w.s7 * 3 + (int)(m.even.x == -1);
    }"""
    def ref(i: int) -> int:
        v = [i + 3, i + 1 + 10, i + 2, i]
        v[2], v[3] = v[0] * 2, v[1] * 2
        m = [-1 if x > 5 else 0 for x in v]
        return v[0] * 1000 + v[1] * 100 + v[2] + v[3] + m[0] + m[3] * 3 + int(m[0] == -1)
    assert run_int(queue, src) == [ref(i) for i in range(8)]


def test_local_memory_and_barrier(queue) -> None:  # type: ignore[no-untyped-def]
    src = """__kernel void k(__global int *out) {
      __local int buf[8];
      int l = get_local_id(0);
      buf[l] = l * l;
      barrier(CLK_LOCAL_MEM_FENCE);
      out[get_global_id(0)] = buf[7 - l];
    }"""
    ctx, q = queue
    prg = cl.Program(ctx, src).build()
    out = np.zeros(8, np.int32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=out)
    prg.k(q, (8,), (8,), buf)
    cl.enqueue_copy(q, out, buf)
    assert out.tolist() == [(7 - i) ** 2 for i in range(8)]


def test_float_literal_precision_option(queue) -> None:  # type: ignore[no-untyped-def]
    src = """__kernel void k(__global int *out) { float x = 0.1f; out[get_global_id(0)] = (x == 0.1); }"""
    assert run_int(queue, src, 1) == [0]  # 0.1 is a double: 0.1f != 0.1
    assert run_int(queue, src, 1, "-cl-single-precision-constant") == [1]


def test_local_histogram_with_atomics(queue) -> None:  # type: ignore[no-untyped-def]
    ctx, q = queue
    src = """__kernel void k(__global const uchar *data, __global uint *hist) {
      __local uint local_hist[16];
      uint l = get_local_id(0);
      if (l < 16) local_hist[l] = 0;
      barrier(CLK_LOCAL_MEM_FENCE);
      atomic_inc(&local_hist[data[get_global_id(0)] & 15]);
      barrier(CLK_LOCAL_MEM_FENCE);
      if (l < 16) atomic_add(&hist[l], local_hist[l]);
    }"""
    data = (np.arange(256) * 7 % 251).astype(np.uint8)
    prg = cl.Program(ctx, src).build()
    mf = cl.mem_flags
    db = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=data)
    hist = np.zeros(16, np.uint32)
    hb = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=hist)
    prg.k(q, (256,), (64,), db, hb)
    cl.enqueue_copy(q, hist, hb)
    assert hist.tolist() == np.bincount(data & 15, minlength=16).tolist()


def test_float4_nbody_step(queue) -> None:  # type: ignore[no-untyped-def]
    ctx, q = queue
    src = """__kernel void k(__global const float4 *pos, __global float4 *acc, int n) {
      int i = get_global_id(0);
      float4 p = pos[i], a = (float4)(0.0f);
      for (int j = 0; j < n; j++) {
        float4 d = pos[j] - p;
        d.w = 0.0f;
        float r2 = dot(d, d) + 0.01f;
        a += d * (pos[j].w * rsqrt(r2 * r2 * r2));
      }
      acc[i] = a;
    }"""
    rng = np.random.default_rng(1)
    pos = rng.random((32, 4), dtype=np.float32)
    prg = cl.Program(ctx, src).build()
    mf = cl.mem_flags
    pb = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=pos)
    ab = cl.Buffer(ctx, mf.WRITE_ONLY, pos.nbytes)
    prg.k(q, (32,), None, pb, ab, np.int32(32))
    acc = np.empty_like(pos)
    cl.enqueue_copy(q, acc, ab)
    d = pos[None, :, :3] - pos[:, None, :3]
    r2 = (d * d).sum(-1) + 0.01
    want = (d * (pos[None, :, 3] / r2 ** 1.5)[..., None]).sum(1)
    np.testing.assert_allclose(acc[:, :3], want, rtol=1e-4, atol=1e-5)
    assert (acc[:, 3] == 0).all()


def test_subscripted_swizzle(queue) -> None:  # type: ignore[no-untyped-def]
    src = """__kernel void k(__global int *out) {
      int i = get_global_id(0);
      int4 v = (int4)(10, 20, 30, 40);
      v.wzyx[i & 3] = 7;
      out[i] = v.x * 1000 + v.y * 100 + v.z * 10 + v.w + v.zw[1] * 100000;
    }"""
    def ref(i: int) -> int:
        v = [10, 20, 30, 40]
        v[3 - (i & 3)] = 7
        return v[0] * 1000 + v[1] * 100 + v[2] * 10 + v[3] + v[3] * 100000
    assert run_int(queue, src) == [ref(i) for i in range(8)]


def test_a_subscript_of_a_void_pointer_steps_in_bytes(queue) -> None:  # type: ignore[no-untyped-def]
    """GNU C, which clang accepts: `&p[i]` on a `void *` is i bytes on, and converts to `int *`
    (the OpenCL C mutator found it an internal error: a step over `void` has no size)."""
    src = """__kernel void k(__global void *out) {
      int i = get_global_id(0);
      atomic_add(&out[4 * (i % 4)], i);
      __global char *c = (__global char *)&out[16 + i];
      *c = 1;
    }"""
    got = run_int(queue, src, n=8)
    assert got[:4] == [0 + 4, 1 + 5, 2 + 6, 3 + 7]
    assert got[4:] == [0x01010101, 0x01010101, 0, 0]  # bytes 16..23 each set


def test_void_pointer_arithmetic_steps_in_bytes(queue) -> None:  # type: ignore[no-untyped-def]
    """GNU C as clang accepts it (PoCL gives the same [8, 7]): +, -, += and ++ on a `void *`
    move by bytes, and the difference of two is in bytes."""
    src = """kernel void k(global int *o) {
      global void *p = o, *q = o;
      q += 8; q = q - 4; q++; --q; q = 4 + q;
      o[0] = (int)(q - p);
      *(global int *)(p + 4 * 1) = 7;
    }"""
    assert run_int(queue, src, n=2) == [8, 7]  # each work-item writes the same two
