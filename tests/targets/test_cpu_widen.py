"""Widened work-items (widen-work-items) and lane arrays (interleave-private-arrays) on
the cpu: results against NumPy and against the same kernels built without the two
passes, over group sizes that are and are not multiples of the width."""

from __future__ import annotations

import numpy as np
import pytest

from oclpy.compiler import compile_program
from tools.cpu_harness import compile_without, run

ROW_PRIVATE = """
__kernel void mmul(const int N, __global float* A, __global float* B, __global float* C) {
    int k, j;
    int i = get_global_id(0);
    float Awrk[1024];
    float tmp;
    if (i < N) {
        for (k = 0; k < N; k++)
            Awrk[k] = A[i*N+k];
        for (j = 0; j < N; j++) {
            tmp = 0.0f;
            for (k = 0; k < N; k++)
                tmp += Awrk[k] * B[k*N+j];
            C[i*N+j] = tmp;
        }
    }
}"""

# Every kind of access and value the widened copy makes: uniform and consecutive loads in
# the inner loop, gathers and a strided store outside it, a store of varying values to
# one address, a `?:` and an `if` with arithmetic in both arms, integer division,
# math builtins, a private int array walked by a uniform index, and 2-D ids.
SHAPES = """
__kernel void k(int n, __global const float *x, __global const int *idx,
                __global float *y, __global int *z, __global int *last) {
    int i = get_global_id(0), row = get_global_id(1), w = get_global_size(0);
    int hist[40];
    for (int b = 0; b < 40; ++b) hist[b] = b * row;
    float s = 0.0f, v = x[idx[i] % n] - x[(i + row) % n];
    int q = 0;
    for (int a = 0; a < n; ++a) {
        float t = x[a] * (float)(i + 1) + v;
        float u = t > 0.5f ? sqrt(t) : exp(-t * t);
        q += (a + 3) / (i % 7 + 1);
        if (t < -0.25f) { q += 3 * a; } else { q -= a * (row + 2); }
        s += u + sin(0.1f * (float)a) * x[a];
        hist[a % 40] += q & 3;
    }
    y[2 * (row * w + i)] = s;
    y[2 * (row * w + i) + 1] = (float)hist[(row + 5) % 40];
    z[row * w + i] = q;
    last[0] = row * 1000 + 7;
}"""


def _compile(src: str, without: tuple[str, ...] = ()):  # type: ignore[no-untyped-def]
    """The cpu program of `src`, the target's passes `without` left out."""
    return compile_without(src, without) if without else compile_program(src).program


PASSES = ("widen-work-items", "interleave-private-arrays")


def test_both_passes_apply_to_the_row_private_multiply() -> None:
    ir = _compile(ROW_PRIVATE).llvm_ir
    assert "mmul.unguarded.wide" in ir and "alloca [1024 x float]" not in ir
    assert "load <16 x float>" in ir  # Awrk[k]: one vector load for 16 work-items
    assert "mmul.unguarded.wide" not in _compile(ROW_PRIVATE, PASSES).llvm_ir


@pytest.mark.parametrize("n,gsize,lsize", [(40, 40, 8), (48, 48, 24), (64, 64, 64), (50, 64, 32), (33, 48, 48)])
def test_row_private_multiply_matches_numpy(n: int, gsize: int, lsize: int) -> None:
    rng = np.random.default_rng(n)
    a, b = rng.standard_normal((n, n), dtype=np.float32), rng.standard_normal((n, n), dtype=np.float32)
    c = np.full((n, n), 99.0, np.float32)
    run(_compile(ROW_PRIVATE).kernels["mmul"], [np.int32(n), a, b, c], (gsize,), (lsize,))
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("gsize,lsize", [((48, 2), (16, 2)), ((40, 3), (20, 1)), ((7, 2), (7, 2)), ((64, 1), (64, 1))])
def test_every_shape_agrees_with_the_build_without_the_passes(gsize: tuple[int, int], lsize: tuple[int, int]) -> None:
    n = 29
    rng = np.random.default_rng(gsize[0])
    x = rng.standard_normal(n).astype(np.float32)
    idx = rng.integers(0, 1000, gsize[0] * gsize[1]).astype(np.int32)
    outs = []
    for without in ((), PASSES):
        program = _compile(SHAPES, without)
        assert ("k.wide" in program.llvm_ir) == (not without)
        y = np.zeros(2 * gsize[0] * gsize[1], np.float32)
        z = np.zeros(gsize[0] * gsize[1], np.int32)
        last = np.zeros(1, np.int32)
        run(program.kernels["k"], [np.int32(n), x, idx, y, z, last], gsize, lsize)
        outs.append((y, z, last))
    np.testing.assert_allclose(outs[0][0], outs[1][0], rtol=2e-6, atol=1e-6)
    assert outs[0][1].tolist() == outs[1][1].tolist()
    assert outs[0][2].tolist() == outs[1][2].tolist() == [(gsize[1] - 1) * 1000 + 7]


def test_shapes_match_numpy() -> None:
    """The same kernel against a NumPy model of one work-item, for a 2-D launch."""
    n, (w, h) = 29, (48, 2)
    rng = np.random.default_rng(5)
    x = rng.standard_normal(n).astype(np.float32)
    idx = rng.integers(0, 1000, w * h).astype(np.int32)
    y, z, last = np.zeros(2 * w * h, np.float32), np.zeros(w * h, np.int32), np.zeros(1, np.int32)
    run(_compile(SHAPES).kernels["k"], [np.int32(n), x, idx, y, z, last], (w, h), (16, 2))
    xd = x.astype(np.float64)
    for row in range(h):
        for i in range(w):
            hist = [b * row for b in range(40)]
            s, q, v = 0.0, 0, xd[idx[i] % n] - xd[(i + row) % n]
            for a in range(n):
                t = xd[a] * (i + 1) + v
                u = np.sqrt(t) if t > 0.5 else np.exp(-t * t)
                q += (a + 3) // (i % 7 + 1)
                q = q + 3 * a if t < -0.25 else q - a * (row + 2)
                s += u + np.sin(0.1 * a) * xd[a]
                hist[a % 40] += q & 3
            at = row * w + i
            assert abs(y[2 * at] - s) <= 1e-4 * max(1.0, abs(s)), (row, i)
            assert y[2 * at + 1] == hist[(row + 5) % 40] and z[at] == q, (row, i)
    assert last[0] == (h - 1) * 1000 + 7


def test_a_width_that_is_not_a_power_of_two_is_an_error() -> None:
    from oclpy.ir.parser import parse_module
    from oclpy.passes.manager import PassError, run_pipeline

    module = parse_module("kernel void @k() {\nentry:\n  ret void\n}\n")
    with pytest.raises(PassError, match="pass 'widen-work-items': lanes must be a power of two, at least 2, not 3"):
        run_pipeline(module, "widen-work-items{lanes=3}")


FLOAT4 = """
__kernel void k(int n, __global const float4 *x, __global float2 *y) {
    int i = get_global_id(0);
    float4 acc = (float4)(0.0f);
    for (int a = 0; a < n; ++a) acc += x[i] * (float)a + x[a];
    y[i] = (float2)(acc.x + acc.y, acc.z - acc.w);
}"""


@pytest.mark.parametrize("lsize", [16, 40, 5])
def test_float4_loads_and_float2_stores_in_runs(lsize: int) -> None:
    """A float4 of consecutive work-items read as one run of 64 floats, a float2 written as one."""
    n, m = 11, 80
    rng = np.random.default_rng(lsize)
    x = rng.standard_normal((m, 4)).astype(np.float32)
    ir = _compile(FLOAT4).llvm_ir
    assert "<64 x float>" in ir and "<32 x float>" in ir
    y = np.zeros((m, 2), np.float32)
    run(_compile(FLOAT4).kernels["k"], [np.int32(n), x, y], (m,), (lsize,))
    a = np.arange(n, dtype=np.float64)
    acc = x.astype(np.float64) * a.sum() + x[:n].astype(np.float64).sum(0)
    want = np.stack([acc[:, 0] + acc[:, 1], acc[:, 2] - acc[:, 3]], 1)
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-4)


def test_pass_ab_times_a_case_with_and_without_the_passes(capsys: pytest.CaptureFixture[str]) -> None:
    from benchmarks import pass_ab

    assert pass_ab.main(["matmul_naive", "--rounds", "1"]) == 0
    line = capsys.readouterr().out
    assert line.startswith("matmul_naive") and "with/without" in line and line.rstrip().endswith("check ok")


# The fuzzer's kernel (case-4-0): `i = m` as the loop test compares the parameter with
# zero, and widen-work-items looked for a loop counter in the parameter (an internal
# error before the fix). With m = 0 the loop never runs, and every work-item stores 0.
PARAMETER_EXIT = """
__kernel void paths(__global float *out, __global const float *r, int n, int m) {
    int g = get_global_id(0);
    if (g < n) {
        float s = 0.0f;
        for (int i = 0; i = m; i++) s += exp(r[i] * (float)g);
        out[g] = s;
    }
}"""


def test_a_loop_test_on_a_parameter_widens_and_runs() -> None:
    n, r = 45, np.ones(4, np.float32)
    outs = []
    for without in ((), PASSES):
        program = _compile(PARAMETER_EXIT, without)
        assert ("paths.unguarded.wide" in program.llvm_ir) == (not without)
        out = np.full(48, -1.0, np.float32)
        run(program.kernels["paths"], [out, r, np.int32(n), np.int32(0)], (48,), (16,))
        outs.append(out)
    assert outs[0].tolist() == outs[1].tolist() == [0.0] * n + [-1.0] * 3
