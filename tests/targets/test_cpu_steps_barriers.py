"""step-divergent-loops in kernels with barriers of their own, run by the cpu
launcher's mixed rounds (`launcher._run_mixed`): a region for the whole group,
then step rounds until every work-item waits at the next barrier. Results
against NumPy and against the unvectorised build (-O0: no steps)."""

from __future__ import annotations

import numpy as np
import pytest

from oclpy.compiler import compile_program, frontend_for, optimize
from oclpy.passes.form_workgroups import DIVERGENT_ATTR, STEPS_ATTR
from tools.cpu_harness import run

# The Khronos SDK histogram's shape: a binary search per element inside a
# uniform loop, between two barriers, counted with a `__local` atomic.
SEARCH = """
uint search(float v, __global const float *levels, uint bins) {
    int lo = 0; uint hi = bins;
    while (lo < hi) {
        uint mid = (lo + hi) / 2;
        bool le = levels[mid] <= v;
        lo = le ? mid + 1 : lo;
        hi = le ? hi : mid;
    }
    return max(0, lo - 1);
}
__kernel void k(uint n, uint bins, uint per, __global const float *in,
                __global const float *levels, __local uint *block, __global uint *hist) {
    size_t gid = get_global_id(0);
    uint lid = get_local_id(0), lsize = get_local_size(0);
    for (uint c = lid; c < bins; c += lsize) block[c] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = 0; i < per; i++) {
        size_t e = gid * per + i;
        if (e < n) {
            float v = in[e];
            if (levels[0] < v && v < levels[bins])
                atomic_add(&block[search(v, levels, bins)], 1);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint c = lid; c < bins; c += lsize)
        if (block[c] > 0) atomic_add(&hist[c], block[c]);
}"""

# A data-dependent loop between barriers whose result the group then shares
# through `__local` memory: a work-item's neighbour's count, read after the barrier.
COLLATZ = """
__kernel void k(__global const uint *start, __global uint *out, __local uint *counts) {
    size_t i = get_global_id(0);
    uint l = get_local_id(0), size = get_local_size(0);
    uint n = start[i], count = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    while (n > 1u) { n = (n & 1u) ? 3u * n + 1u : n >> 1; ++count; }
    counts[l] = count;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[i] = counts[(l + 1) % size] * 1000u + count;
}"""


def _kernel(src: str, options: str = ""):  # type: ignore[no-untyped-def]
    (kernel,) = compile_program(src, options).program.kernels.values()
    return kernel


def _steps(src: str) -> list[int]:
    module = frontend_for(src, "", "<k>").module
    optimize(module, 2, "cpu")
    (fn,) = module.kernels()
    assert fn.attrs.get(DIVERGENT_ATTR) and fn.attrs["wg_barriers"] > len(fn.attrs[STEPS_ATTR])
    return fn.attrs[STEPS_ATTR]


def _collatz(s: int) -> int:
    count = 0
    while s > 1:
        s, count = (3 * s + 1 if s & 1 else s >> 1), count + 1
    return count


def test_a_search_between_barriers_is_stepped_at_its_header_exit_and_outer_loop() -> None:
    assert len(_steps(SEARCH)) == 3  # the search's header and exit, the element loop's header
    assert len(_steps(COLLATZ)) == 2


@pytest.mark.parametrize("local,per", [(64, 16), (256, 4), (17, 3), (1, 5)])
def test_histogram_by_binary_search_matches_numpy(local: int, per: int) -> None:
    bins, groups = 64, 6
    n = local * groups * per - 5  # the last work-item's tail is past the end
    data = np.random.default_rng(53).standard_normal(n).astype(np.float32) * 1.5
    levels = np.linspace(-4, 4, bins + 1).astype(np.float32)
    inside = data[(levels[0] < data) & (data < levels[bins])]
    want = np.bincount(np.searchsorted(levels, inside, side="right") - 1, minlength=bins)
    for options in ("", "-cl-opt-disable"):
        hist = np.zeros(bins, np.uint32)
        run(_kernel(SEARCH, options), [np.uint32(n), np.uint32(bins), np.uint32(per), data, levels,
                                       bins * 4, hist], (local * groups,), (local,))
        assert hist.tolist() == want.tolist(), options


@pytest.mark.parametrize("local", [128, 33, 1])
def test_collatz_between_barriers_shares_counts_through_local_memory(local: int) -> None:
    n = local * 5
    start = np.random.default_rng(7).integers(1, 3000, n).astype(np.uint32)
    start[::7] = 1  # some work-items never enter the loop
    out = np.zeros(n, np.uint32)
    run(_kernel(COLLATZ), [start, out, local * 4], (n,), (local,))
    counts = np.array([_collatz(s) for s in start.tolist()], np.uint32).reshape(-1, local)
    want = np.roll(counts, -1, axis=1) * 1000 + counts
    assert out.tolist() == want.reshape(-1).tolist()


# Newton's square root per element of a tile, three passes, each between two
# barriers (the loop around the search holds the barriers, so it gets no step),
# over a 2D group; the loop also stops at a cap (`n < 60`), an exit that counts.
NEWTON_TILES = """
__kernel void k(__global const float *a, __global float *out, __global int *iters,
                __local float *tile) {
    size_t gx = get_global_id(0), gy = get_global_id(1);
    uint lx = get_local_id(0), ly = get_local_id(1), w = get_local_size(0);
    size_t i = gy * get_global_size(0) + gx;
    float acc = 0.0f;
    int total = 0;
    for (int pass = 0; pass < 3; pass++) {
        tile[ly * w + lx] = a[i] + (float)pass;
        barrier(CLK_LOCAL_MEM_FENCE);
        float v = tile[ly * w + (lx + 1) % w];
        float x = v > 1.0f ? v : 1.0f, prev = 0.0f;
        int n = 0;
        while (fabs(x - prev) > 1e-6f * x && n < 60) { prev = x; x = 0.5f * (x + v / x); ++n; }
        acc += x;
        total += n;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[i] = acc;
    iters[i] = total;
}"""


@pytest.mark.parametrize("local", [(8, 4), (5, 3), (1, 1)])
def test_newton_between_barriers_in_two_dimensions(local: tuple[int, int]) -> None:
    assert len(_steps(NEWTON_TILES)) == 2  # the loop's header and its exit
    gsize = (local[0] * 4, local[1] * 3)
    n = gsize[0] * gsize[1]
    a = np.random.default_rng(11).uniform(0.5, 1e5, n).astype(np.float32)
    got = [np.zeros(n, np.float32), np.zeros(n, np.int32)]
    run(_kernel(NEWTON_TILES), [a, *got, local[0] * local[1] * 4], gsize, local)
    ref = [np.zeros(n, np.float32), np.zeros(n, np.int32)]
    run(_kernel(NEWTON_TILES, "-cl-opt-disable"), [a, *ref, local[0] * local[1] * 4], gsize, local)
    assert got[0].tolist() == ref[0].tolist() and got[1].tolist() == ref[1].tolist()
    grid = a.reshape(gsize[1], gsize[0])
    neighbour = np.concatenate([np.roll(grid[:, k:k + local[0]], -1, axis=1)
                                for k in range(0, gsize[0], local[0])], axis=1).reshape(-1)
    want = sum(np.sqrt(np.maximum(neighbour.astype(np.float64) + p, 1.0)) for p in range(3))
    np.testing.assert_allclose(got[0], want, rtol=1e-5)


# ViennaCL's gemv shape: each group takes rows (a loop holding barriers; its
# start, `get_global_id(0) / get_local_size(0)`, is the group's id, which the
# uniformity analysis cannot see, so lockstep-strided-loops leaves the column
# loop alone), its work-items sum a row's columns `col = lid, lid + size, ...`
# (stepped: a counted loop with a uniform bound that carries a sum), then a tree
# reduction.
GEMV = """
__kernel void k(__global const float *a, __global const float *v, __global float *out,
                uint rows, uint cols, __local float *work) {
    uint lid = get_local_id(0), size = get_local_size(0);
    for (uint row = get_global_id(0) / size; row < rows; row += get_num_groups(0)) {
        float dot = 0.0f;
        for (uint col = lid; col < cols; col += size)
            dot += a[row * cols + col] * v[col];
        work[lid] = dot;
        for (uint stride = size / 2; stride > 0; stride >>= 1) {
            barrier(CLK_LOCAL_MEM_FENCE);
            if (lid < stride) work[lid] += work[lid + stride];
        }
        if (lid == 0) out[row] = work[0];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}"""


@pytest.mark.parametrize("local,cols", [(64, 1000), (16, 37), (1, 5)])
def test_gemv_rows_with_a_stepped_column_loop_match_numpy(local: int, cols: int) -> None:
    assert len(_steps(GEMV)) == 2  # the column loop's header and exit
    rows, groups = 24, 5
    r = np.random.default_rng(3)
    a = r.integers(-8, 8, (rows, cols)).astype(np.float32)  # small integers: sums exact
    v = r.integers(-8, 8, cols).astype(np.float32)
    out = np.zeros(rows, np.float32)
    run(_kernel(GEMV), [a, v, out, np.uint32(rows), np.uint32(cols), local * 4],
        (local * groups,), (local,))
    assert out.tolist() == (a.astype(np.float64) @ v).tolist()
