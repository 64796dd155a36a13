"""lockstep-strided-loops on the cpu device: grid- and block-stride loops run one
iteration at a time across the work-group compute what NumPy and the
unoptimised build (-O0: variables stay in memory, so the pass finds no
induction phi to change) compute, whatever the work-items' trip counts: fewer
than the lockstep part (a bound below the global size), more (a start that
falls with the work-item id, which the original loop finishes after the
lockstep part), none, with global offsets, and in groups too small for the
lockstep part (fewer than `MIN_GROUP` work-items)."""

from __future__ import annotations

import numpy as np
import pytest

from oclpy.compiler import compile_program, frontend_for, optimize
from oclpy.ir.printer import print_module
from tools.cpu_harness import run

# CLBlast's Xdot, shortened: a grid-stride sum, then a tree reduction in __local memory
GRID_DOT = """
#define WG 32
__kernel void k(const int n, __global const float *x, __global const float *y,
                __global float *partial) {
    __local float lm[WG];
    int lid = get_local_id(0);
    float acc = 0.0f;
    int id = get_group_id(0) * WG + lid;
    while (id < n) {
        acc += x[id] * y[id];
        id += WG * get_num_groups(0);
    }
    lm[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = WG / 2; s > 0; s >>= 1) {
        if (lid < s) lm[lid] += lm[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) partial[get_group_id(0)] = lm[0];
}"""

# the start falls as the id grows: the group's first work-item has the fewest
# iterations, so the others finish theirs in the original loop after the lockstep part
FALLING = """
__kernel void k(const int n, __global int *count, __global int *sum) {
    int g = get_global_id(0);
    int start = (int)get_global_size(0) - 1 - g;
    int c = 0, s = 0;
    for (int i = start; i < n; i += 3) { c += 1; s += i; }
    barrier(CLK_GLOBAL_MEM_FENCE);  // a kernel with barriers: step-divergent-loops leaves it
    int w = g - (int)get_global_offset(0);
    count[w] = c;
    sum[w] = s;
}"""

# block stride, unsigned, `<=`, then a barrier and a use of the group's results
BLOCK = """
__kernel void k(const uint last, __global const uint *a, __global uint *out) {
    __local uint part[64];
    uint lid = get_local_id(0);
    uint acc = 0;
    for (uint j = lid; j <= last; j += get_local_size(0))
        acc += a[j] * (uint)(get_group_id(0) + 1);
    part[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        uint t = 0;
        for (uint i = 0; i < get_local_size(0); i++) t += part[i];
        out[get_group_id(0)] = t;
    }
}"""


def _kernel(src: str, options: str = ""):  # type: ignore[no-untyped-def]
    (kernel,) = compile_program(src, options).program.kernels.values()
    return kernel


def _locksteps(src: str) -> int:
    module = frontend_for(src, "", "<k>").module
    optimize(module, 2, "cpu")
    return print_module(module).count(".gate:")


def test_the_strided_loops_run_in_lockstep() -> None:
    assert _locksteps(GRID_DOT) == 1 and _locksteps(FALLING) == 1 and _locksteps(BLOCK) == 1


@pytest.mark.parametrize("n,groups", [(5000, 6), (37, 4), (0, 3), (192, 6), (193, 6)])
def test_grid_stride_dot(n: int, groups: int) -> None:
    r = np.random.default_rng(n)
    x = r.integers(-8, 8, max(n, 1)).astype(np.float32)  # small integers: sums are exact
    y = r.integers(-8, 8, max(n, 1)).astype(np.float32)
    outs = []
    for options in ("-cl-opt-disable", ""):
        partial = np.full(groups, np.nan, np.float32)
        run(_kernel(GRID_DOT, options), [np.int32(n), x, y, partial], (32 * groups,), (32,))
        outs.append(partial)
    assert outs[1].tolist() == outs[0].tolist()
    assert float(outs[1].sum()) == float(np.dot(x[:n].astype(np.float64), y[:n]))


# groups of 32 work-items or more run the lockstep part; smaller ones only the original loop
@pytest.mark.parametrize("local,offset", [(56, 0), (112, 0), (56, 5), (16, 0), (7, 0), (1, 0)])
def test_falling_starts_finish_after_the_lockstep_part(local: int, offset: int) -> None:
    gsize, n = 112, 150
    count, total = np.full(gsize, -1, np.int32), np.full(gsize, -1, np.int32)
    run(_kernel(FALLING), [np.int32(n), count, total], (gsize,), (local,), (offset,))
    g = np.arange(offset, offset + gsize)
    want_count, want_sum = [], []
    for gi in g.tolist():
        its = list(range(gsize - 1 - gi, n, 3))
        want_count.append(len(its))
        want_sum.append(sum(its))
    assert count.tolist() == want_count and total.tolist() == want_sum


@pytest.mark.parametrize("last,local", [(999, 64), (5, 64), (63, 64), (200, 24)])
def test_block_stride_unsigned_inclusive(last: int, local: int) -> None:
    groups = 3
    a = np.random.default_rng(last).integers(0, 1000, last + 1).astype(np.uint32)
    out = np.zeros(groups, np.uint32)
    run(_kernel(BLOCK), [np.uint32(last), a, out], (local * groups,), (local,))
    total = int(a.astype(np.uint64).sum())
    assert out.tolist() == [(total * (grp + 1)) % (1 << 32) for grp in range(groups)]


# ViennaCL's vec_mul, shortened: a block-stride loop inside a loop over rows that
# every work-item of a group runs alike, then a second strided loop in the same kernel
ROWS = """
__kernel void k(__global const float *a, __global const float *x, __global float *y,
                __global float *xsum, const uint rows, const uint cols) {
    __local float part[64];
    uint lid = get_local_id(0);
    for (uint row = get_group_id(0); row < rows; row += get_num_groups(0)) {
        float dot = 0.0f;
        for (uint col = lid; col < cols; col += get_local_size(0))
            dot += a[row * cols + col] * x[col];
        part[lid] = dot;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid == 0) {
            float t = 0.0f;
            for (uint i = 0; i < get_local_size(0); i++) t += part[i];
            y[row] = t;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    float s = 0.0f;
    for (uint i = get_global_id(0); i < cols; i += get_global_size(0)) s += x[i];
    xsum[get_global_id(0)] = s;
}"""


@pytest.mark.parametrize("rows,cols,local,groups", [(9, 200, 64, 4), (5, 7, 16, 2), (3, 130, 1, 3)])
def test_nested_and_repeated_strided_loops(rows: int, cols: int, local: int, groups: int) -> None:
    assert _locksteps(ROWS) == 2
    r = np.random.default_rng(rows * cols)
    a = r.integers(-4, 4, (rows, cols)).astype(np.float32)
    x = r.integers(-4, 4, cols).astype(np.float32)
    y, xsum = np.zeros(rows, np.float32), np.zeros(local * groups, np.float32)
    run(_kernel(ROWS), [a, x, y, xsum, np.uint32(rows), np.uint32(cols)], (local * groups,), (local,))
    assert y.tolist() == (a.astype(np.float64) @ x).tolist()
    g = local * groups
    assert xsum.tolist() == [float(x[i::g].astype(np.float64).sum()) for i in range(g)]


# The fuzzer's Xdot (case-4-1) asked `get_num_groups((0.0f/0.0f))`: a query whose argument
# the loop body computes. The lockstep part's trip count, in the preheader, named that
# value (LLVM: "Instruction does not dominate all uses!"). Here the argument is a
# defined one, `d & 1` with d = 0, computed in the body too.
QUERY_IN_BODY = GRID_DOT.replace("__global float *partial", "__global float *partial, const int d").replace(
    "get_num_groups(0)", "get_num_groups((uint)(d & 1))")


@pytest.mark.parametrize("n,groups", [(5000, 6), (37, 4), (0, 3)])
def test_a_stride_query_with_an_argument_made_in_the_body(n: int, groups: int) -> None:
    assert "get_num_groups((uint)(d & 1))" in QUERY_IN_BODY and _locksteps(QUERY_IN_BODY) == 1
    r = np.random.default_rng(n)
    x = r.integers(-8, 8, max(n, 1)).astype(np.float32)
    y = r.integers(-8, 8, max(n, 1)).astype(np.float32)
    outs = []
    for options in ("-cl-opt-disable", ""):
        partial = np.full(groups, np.nan, np.float32)
        run(_kernel(QUERY_IN_BODY, options), [np.int32(n), x, y, partial, np.int32(0)], (32 * groups,), (32,))
        outs.append(partial)
    assert outs[1].tolist() == outs[0].tolist()
    assert float(outs[1].sum()) == float(np.dot(x[:n].astype(np.float64), y[:n]))
