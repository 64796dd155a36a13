"""cpu_outer: which work-item loops ask LLVM's outer-loop vectoriser, and that the
kernels it takes still compute what NumPy does."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.cases_dense import MATMUL_TILED as TILED
from oclpy.compiler import compile_program, frontend_for, optimize
from oclpy.targets.llvm.cpu.cpu_target import CpuTarget
from oclpy.targets.llvm.cpu.outer import outer_regions, region_starts
from tools.cpu_harness import compile_without, run

NBODY_LIKE = """
__kernel void k(int n, __global const float *x, __global float *y) {
    int i = get_global_id(0);
    float acc = 0.0f;
    for (int j = 0; j < n; ++j)
        acc += x[j] * (float)(i - j);
    y[i] = acc;
}"""

MATMUL = """
__kernel void k(int n, __global const float *a, __global const float *b, __global float *c) {
    int col = get_global_id(0), row = get_global_id(1);
    float acc = 0.0f;
    for (int k = 0; k < n; ++k)
        acc += a[row * n + k] * b[k * n + col];
    c[row * n + col] = acc;
}"""

DIVERGENT_TRIP = """
__kernel void k(__global const int *limit, __global int *y) {
    int i = get_global_id(0), s = 0;
    for (int j = 0; j < limit[i]; ++j) s += j;
    y[i] = s;
}"""

ROW_GATHER = """
__kernel void k(int n, __global const float *a, __global float *y) {
    int i = get_global_id(0);
    float s = 0.0f;
    for (int j = 0; j < n; ++j) s += a[i * n + j];
    y[i] = s;
}"""

PRIVATE_ARRAY = """
__kernel void k(int n, __global const int *sel, __global float *y) {
    int i = get_global_id(0);
    float t[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    for (int j = 0; j < n; ++j) t[(sel[j] + i) & 3] += (float)i;
    y[i] = t[0] + 10.0f * t[1] + 100.0f * t[2] + 1000.0f * t[3];
}"""

NO_INNER_LOOP = """
__kernel void k(__global const float *x, __global float *y) {
    int i = get_global_id(0);
    y[i] = 2.0f * x[i];
}"""


def _outer(src: str) -> set[int]:
    module = frontend_for(src, "", "<k>").module
    optimize(module, 2, "cpu")
    return outer_regions(next(f for f in module.kernels() if not f.is_declaration))


@pytest.mark.parametrize("src,want", [
    (NBODY_LIKE, {0}), (MATMUL, {0}),
    (TILED, {1}),                 # the k loop between the barriers: region 1
    (DIVERGENT_TRIP, set()),      # trip count differs per work-item
    (ROW_GATHER, set()),          # a[i * n + j]: a gather per element
    (PRIVATE_ARRAY, set()),       # an alloca all iterations would share
    (NO_INNER_LOOP, set()),       # innermost already: the ordinary vectoriser's
])
def test_which_regions_ask_for_outer_loop_vectorisation(src: str, want: set[int]) -> None:
    assert _outer(src) == want


def test_region_starts_follow_the_resume_switch() -> None:
    module = frontend_for(TILED, "", "<k>").module
    optimize(module, 2, "cpu")
    fn = next(f for f in module.kernels() if not f.is_declaration)
    starts = region_starts(fn)
    assert sorted(starts) == [0, 1, 2]
    assert starts[0] is not fn.entry and all(b.name.endswith((".b1", ".b2")) for s, b in starts.items() if s)


def test_the_hint_reaches_the_llvm_loop_id() -> None:
    text = compile_without(NBODY_LIKE, ("widen-work-items",)).llvm_ir  # which widens it otherwise
    assert '!"llvm.loop.vectorize.enable", i1 1' in text
    assert "llvm.loop.vectorize.enable" not in compile_program(NO_INNER_LOOP, "").program.llvm_ir


def _launch(src: str, args: list[object], gsize: tuple[int, ...], lsize: tuple[int, ...]) -> None:
    prog = compile_program(src, "").program
    (kernel,) = prog.kernels.values()
    run(kernel, args, gsize, lsize)


@pytest.mark.parametrize("n", [1, 7, 64])
def test_outer_vectorised_loop_matches_numpy(n: int) -> None:
    rng = np.random.default_rng(n)
    m = 100  # not a multiple of the vector width: the remainder runs scalar
    x = rng.standard_normal(n).astype(np.float32)
    y = np.zeros(m, np.float32)
    _launch(NBODY_LIKE, [np.int32(n), x, y], (m,), (m // 4,))
    i = np.arange(m, dtype=np.float64)[:, None]
    want = (x.astype(np.float64)[None, :] * (i - np.arange(n)[None, :])).sum(1)
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("src,lsize", [(MATMUL, (16, 4)), (TILED, (16, 16))])
def test_matrix_multiplies_match_numpy(src: str, lsize: tuple[int, int]) -> None:
    n = 32
    rng = np.random.default_rng(1)
    a, b = (rng.standard_normal((n, n)).astype(np.float32) for _ in range(2))
    c = np.zeros((n, n), np.float32)
    _launch(src, [np.int32(n), a, b, c], (n, n), lsize)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)


def test_private_array_kernel_keeps_one_array_per_work_item() -> None:
    n, m = 9, 48
    sel = np.arange(n, dtype=np.int32) * 3
    y = np.zeros(m, np.float32)
    _launch(PRIVATE_ARRAY, [np.int32(n), sel, y], (m,), (16,))
    want = []
    for i in range(m):
        t = [1.0, 2.0, 3.0, 4.0]
        for j in range(n):
            t[(sel[j] + i) & 3] += i
        want.append(t[0] + 10 * t[1] + 100 * t[2] + 1000 * t[3])
    np.testing.assert_allclose(y, want, rtol=1e-6)


# Kernels whose inner loops LLVM's outer-loop vectoriser takes, in the shapes real
# kernels have: each must compute exactly what the unvectorised build (-O0: its
# private variables stay in memory, so it gets no hint) computes.
OUTER_SHAPES = {
    "nested_loops": """
    __kernel void k(int n, __global const int *x, __global int *y) {
        int i = get_global_id(0), s = 0;
        for (int a = 0; a < n; ++a)
            for (int b = 0; b <= a; ++b)
                s += x[a] * (b + i) - (s >> 3);
        y[i] = s;
    }""",
    "break_and_continue": """
    __kernel void k(int n, __global const int *x, __global int *y) {
        int i = get_global_id(0), s = i;
        for (int a = 0; a < 2 * n; ++a) {
            if (a == n + 3) break;
            if ((a & 1) == 0) continue;
            s = s * 3 + x[a % n];
        }
        y[i] = s;
    }""",
    "math_in_the_loop": """
    __kernel void k(int n, __global const float *x, __global float *y) {
        int i = get_global_id(0);
        float s = 0.0f, v = x[i];
        for (int a = 0; a < n; ++a)
            s += sin(v * (float)a) * exp(-0.1f * (float)a) + sqrt(v + (float)a);
        y[i] = s;
    }""",
    "divide_and_select": """
    __kernel void k(int n, __global const int *x, __global int *y) {
        int i = get_global_id(0), s = 0;
        for (int a = 1; a <= n; ++a)
            s += (x[i] + a) / a + ((x[i] ^ a) > 7 ? a : -a) + (x[i] % (a + 1));
        y[i] = s;
    }""",
    "local_tile_between_barriers": """
    __kernel void k(int n, __global const float *x, __global float *y) {
        __local float t[64];
        int l = get_local_id(0), i = get_global_id(0);
        t[l] = x[i];
        barrier(CLK_LOCAL_MEM_FENCE);
        float s = 0.0f;
        for (int a = 0; a < n; ++a)
            s += t[(a * 5) & 63] * (float)(l + a);
        barrier(CLK_LOCAL_MEM_FENCE);
        t[l] = s;
        barrier(CLK_LOCAL_MEM_FENCE);
        y[i] = s + t[63 - l];
    }""",
    "vectors_in_the_loop": """
    __kernel void k(int n, __global const float4 *x, __global float4 *y) {
        int i = get_global_id(0);
        float4 s = (float4)(0.0f), v = x[i];
        for (int a = 0; a < n; ++a)
            s = s * 0.5f + v.wzyx * (float)a + x[a].xxyy;
        y[i] = s;
    }""",
    "early_exit_after_the_loop": """
    __kernel void k(int n, __global const int *x, __global int *y) {
        int i = get_global_id(0), s = 1;
        for (int a = 0; a < n; ++a) s = s * 7 + x[a];
        if (s < 0) { y[i] = -1; return; }
        y[i] = s + i;
    }""",
    "two_loops_in_sequence": """
    __kernel void k(int n, __global const int *x, __global int *y) {
        int i = get_global_id(0), s = 0, t = 0;
        for (int a = 0; a < n; ++a) s += x[a] * i;
        for (int b = n; b > 0; --b) t ^= s + b;
        y[i] = t;
    }""",
}


@pytest.mark.parametrize("name", sorted(OUTER_SHAPES))
def test_outer_vectorised_shapes_agree_with_the_unvectorised_build(name: str) -> None:
    src = OUTER_SHAPES[name]
    n, m, vec = 13, 192, "float4" in src
    rng = np.random.default_rng(7)
    floaty = "float" in src
    if vec:
        x = rng.standard_normal((m, 4)).astype(np.float32)
    elif floaty:
        x = rng.random(m).astype(np.float32)
    else:
        x = rng.integers(-50, 50, m).astype(np.int32)
    outs = []
    for options in ("-cl-opt-disable", ""):
        prog = compile_program(src, options).program
        y = np.zeros_like(x)
        run(prog.kernels["k"], [np.int32(n), x, y], (m,), (64,))
        outs.append(y)
    ir = compile_program(src, "").program.llvm_ir
    widened = "llvm.loop.vectorize.enable" in ir or "k.wide" in ir  # outer hint or widen-work-items
    if floaty:
        np.testing.assert_allclose(outs[1], outs[0], rtol=2e-5, atol=1e-5)
    else:
        assert outs[1].tolist() == outs[0].tolist()
    assert widened or name in ("math_in_the_loop",), f"{name}: neither widened nor hinted"


LARGE_STRUCT_CALL = """
typedef struct { float w[72]; } Row;
__attribute__((noinline)) float third(Row r) { return r.w[3]; }
__kernel void k(int n, __global const Row *rows, __global float *y) {
    int i = get_global_id(0);
    float acc = 0.0f;
    for (int j = 0; j < n; ++j) acc += third(rows[j]) * (float)i;
    y[i] = acc;
}"""


def test_a_struct_kept_in_memory_gets_no_hint() -> None:
    """The 288-byte `rows[j]` lives in a slot (emit_indirect.py) hoisted out of the
    work-item loop, which the widened work-items would share."""
    module = frontend_for(LARGE_STRUCT_CALL, "", "<k>").module
    optimize(module, 2, "cpu")
    kernel = next(f for f in module.kernels() if not f.is_declaration)
    assert outer_regions(kernel) == {0}  # the promise would hold but for the slot
    assert outer_regions(kernel, CpuTarget(module).in_memory) == set()
    n, m = 5, 40
    rows = np.arange(n * 72, dtype=np.float32).reshape(n, 72) / 7
    y = np.zeros(m, np.float32)
    _launch(LARGE_STRUCT_CALL, [np.int32(n), rows, y], (m,), (8,))
    want = rows[:, 3].astype(np.float64).sum() * np.arange(m)
    np.testing.assert_allclose(y, want, rtol=1e-6)
