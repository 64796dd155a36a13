"""step-divergent-loops with the cpu launcher's step rounds: kernels whose loop
ends at a different iteration for each work-item compute what NumPy and the
unvectorised build (-O0: its variables stay in memory, so no step) compute."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.cases_dense import MANDELBROT as MANDEL
from oclpy.compiler import compile_program, frontend_for, optimize
from oclpy.passes.form_workgroups import DIVERGENT_ATTR
from tools.cpu_harness import run

COLLATZ = """
__kernel void k(__global const uint *start, __global uint *steps, __global uint *peak) {
    size_t i = get_global_id(0);
    uint n = start[i], count = 0, top = n;
    while (n > 1u) {
        n = (n & 1u) ? 3u * n + 1u : n >> 1;
        top = max(top, n);
        ++count;
    }
    steps[i] = count;
    peak[i] = top + (uint)i;
}"""

NEWTON = """
__kernel void k(__global const float *a, __global float *root, __global int *iters) {
    int i = get_global_id(0);
    float x = a[i] > 1.0f ? a[i] : 1.0f, prev = 0.0f;
    int n = 0;
    for (; fabs(x - prev) > 1e-6f * x && n < 60; ++n) {
        prev = x;
        x = 0.5f * (x + a[i] / x);
    }
    root[i] = x;
    iters[i] = n;
}"""


def _mandel_ref(w: int, h: int, max_iter: int) -> np.ndarray:
    px, py = np.meshgrid(np.arange(w), np.arange(h))
    cr = (-2.0 + 3.0 * px / w).astype(np.float32)
    ci = (-1.5 + 3.0 * py / h).astype(np.float32)
    zr, zi = np.zeros_like(cr), np.zeros_like(ci)
    it = np.zeros(cr.shape, np.int32)
    for _ in range(max_iter):
        live = (zr * zr + zi * zi <= np.float32(4.0))
        t = zr * zr - zi * zi + cr
        zi = np.where(live, np.float32(2.0) * zr * zi + ci, zi)
        zr = np.where(live, t, zr)
        it += live
    return it


def _kernel(src: str, options: str = ""):  # type: ignore[no-untyped-def]
    (kernel,) = compile_program(src, options).program.kernels.values()
    return kernel


def _divergent(src: str, options: str = "") -> bool:
    module = frontend_for(src, options, "<k>").module
    optimize(module, 2, "cpu")
    return any(f.attrs.get(DIVERGENT_ATTR) for f in module.kernels())


def test_the_escape_loops_are_stepped() -> None:
    assert _divergent(MANDEL) and _divergent(COLLATZ) and _divergent(NEWTON)


@pytest.mark.parametrize("local", [(8, 2), (16, 4), (3, 5), (1, 1)])
def test_mandelbrot_matches_the_unvectorised_build(local: tuple[int, int]) -> None:
    w, h, max_iter = 48, 40, 64
    outs = []
    for options in ("-cl-opt-disable", ""):
        out = np.zeros(w * h, np.int32)
        run(_kernel(MANDEL, options), [np.int32(w), np.int32(h), np.int32(max_iter), out],
            (w, h), local)
        outs.append(out)
    assert outs[1].tolist() == outs[0].tolist()
    # float rounding in the escape test may differ from NumPy's by one step
    assert np.mean(np.abs(outs[1].reshape(h, w) - _mandel_ref(w, h, max_iter)) > 1) < 0.01


@pytest.mark.parametrize("local", [64, 17, 1])
def test_collatz_steps_and_peaks(local: int) -> None:
    n = 17 * 64
    start = np.arange(1, n + 1, dtype=np.uint32)  # start 1 never enters the loop
    steps, peak = np.zeros(n, np.uint32), np.zeros(n, np.uint32)
    run(_kernel(COLLATZ), [start, steps, peak], (n,), (local,))
    want_steps, want_peak = [], []
    for i, s in enumerate(start.tolist()):
        count, top = 0, s
        while s > 1:
            s = 3 * s + 1 if s & 1 else s >> 1
            top, count = max(top, s), count + 1
        want_steps.append(count)
        want_peak.append(top + i)
    assert steps.tolist() == want_steps and peak.tolist() == want_peak


def test_newton_square_roots_stop_when_converged() -> None:
    n = 200
    a = np.random.default_rng(5).uniform(0.5, 1e6, n).astype(np.float32)
    root, iters = np.zeros(n, np.float32), np.zeros(n, np.int32)
    run(_kernel(NEWTON), [a, root, iters], (n,), (40,))
    np.testing.assert_allclose(root, np.sqrt(np.maximum(a, 1.0)), rtol=2e-6)
    ref_root, ref_iters = np.zeros(n, np.float32), np.zeros(n, np.int32)
    run(_kernel(NEWTON, "-cl-opt-disable"), [a, ref_root, ref_iters], (n,), (40,))
    assert iters.tolist() == ref_iters.tolist() and root.tolist() == ref_root.tolist()


COLLATZ_3D = """
__kernel void k(__global const uint *start, __global uint *steps) {
    size_t i = get_global_linear_id();
    uint n = start[i], count = 0;
    while (n > 1u) { n = (n & 1u) ? 3u * n + 1u : n >> 1; ++count; }
    steps[i] = count;
}"""


@pytest.mark.parametrize("local", [(4, 3, 2), (200, 1, 1), (1, 6, 4)])
def test_steps_in_three_dimensions_and_chunks_across_rows(local: tuple[int, int, int]) -> None:
    gsize = (400, 6, 4)  # rows shorter and longer than a chunk of 128 work-items
    n = int(np.prod(gsize))
    start = np.random.default_rng(9).integers(1, 5000, n).astype(np.uint32)
    steps = np.zeros(n, np.uint32)
    assert _divergent(COLLATZ_3D, "-cl-std=CL2.0")  # get_global_linear_id
    run(_kernel(COLLATZ_3D, "-cl-std=CL2.0"), [start, steps], gsize, local)
    want = []
    for s in start.tolist():
        count = 0
        while s > 1:
            s, count = (3 * s + 1 if s & 1 else s >> 1), count + 1
        want.append(count)
    assert steps.tolist() == want
