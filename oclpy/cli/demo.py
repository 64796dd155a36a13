"""`oclpy demo`: real kernels on the default device, checked against NumPy, timed.

Each case is plain data: OpenCL C source, how to make inputs, how to run it
through the public host API (exactly as a PyOpenCL script would), and the
NumPy reference. The table shows build time, best-of-three kernel time, the
largest error relative to the reference's magnitude, and OK or FAIL.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

import oclpy as cl

VECTOR_ADD = """
__kernel void vector_add(__global const float *a, __global const float *b,
                         __global float *out, const int n)
{
    int i = get_global_id(0);
    if (i < n)
        out[i] = a[i] + b[i];
}
"""

REDUCTION = """
#define LOCAL_SIZE 256
__kernel void reduce_sum(__global const float *in, __global float *partial,
                         __local float *scratch, const int n)
{
    int lid = get_local_id(0);
    int i = get_global_id(0);
    float acc = 0.0f;
    for (int j = i; j < n; j += get_global_size(0))
        acc += in[j];
    scratch[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int stride = get_local_size(0) / 2; stride > 0; stride >>= 1) {
        if (lid < stride)
            scratch[lid] += scratch[lid + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}
"""

MATMUL = """
#define TILE 16
__kernel void matmul_tiled(__global const float *A, __global const float *B,
                           __global float *C, const int n)
{
    __local float As[TILE][TILE];
    __local float Bs[TILE][TILE];
    int row = get_global_id(1), col = get_global_id(0);
    int ty = get_local_id(1), tx = get_local_id(0);
    float acc = 0.0f;
    for (int t = 0; t < n / TILE; ++t) {
        As[ty][tx] = A[row * n + t * TILE + tx];
        Bs[ty][tx] = B[(t * TILE + ty) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; ++k)
            acc += As[ty][k] * Bs[k][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * n + col] = acc;
}
"""

STENCIL = """
__kernel void stencil5(__global const float *in, __global float *out,
                       const int width, const int height)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x == 0 || y == 0 || x >= width - 1 || y >= height - 1) {
        if (x < width && y < height)
            out[y * width + x] = in[y * width + x];
        return;
    }
    int c = y * width + x;
    out[c] = 0.5f * in[c] + 0.125f * (in[c - 1] + in[c + 1] + in[c - width] + in[c + width]);
}
"""


@dataclass
class CaseResult:
    name: str
    size: str
    build_s: float
    kernel_s: float
    max_error: float
    ok: bool


@dataclass
class Case:
    name: str
    run: Callable[["Runner", bool], CaseResult]


class Runner:
    """Holds the context and queue, and times builds and launches."""

    def __init__(self, cl, ctx) -> None:
        self.cl = cl
        self.ctx = ctx
        self.queue = cl.CommandQueue(ctx)
        self.mf = cl.mem_flags

    def build(self, source: str, options: str = ""):
        start = time.perf_counter()
        program = self.cl.Program(self.ctx, source).build(options=options)
        return program, time.perf_counter() - start

    def to_device(self, array: np.ndarray):
        return self.cl.Buffer(self.ctx, self.mf.READ_ONLY | self.mf.COPY_HOST_PTR, hostbuf=array)

    def output(self, nbytes: int):
        return self.cl.Buffer(self.ctx, self.mf.WRITE_ONLY, nbytes)

    def time_launch(self, launch: Callable[[], object], repeats: int = 3) -> float:
        best = float("inf")
        for _ in range(repeats):
            start = time.perf_counter()
            launch().wait()
            best = min(best, time.perf_counter() - start)
        return best

    def read(self, buffer, array: np.ndarray) -> np.ndarray:
        self.cl.enqueue_copy(self.queue, array, buffer)
        self.queue.finish()
        return array


def _relative_error(got: np.ndarray, want: np.ndarray) -> float:
    scale = max(float(np.max(np.abs(want))), 1e-30)
    return float(np.max(np.abs(got.astype(np.float64) - want.astype(np.float64)))) / scale


def run_vector_add(r: Runner, quick: bool) -> CaseResult:
    n = 1 << (16 if quick else 22)
    rng = np.random.default_rng(1)
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    prg, build_s = r.build(VECTOR_ADD)
    a_d, b_d, out_d = r.to_device(a), r.to_device(b), r.output(a.nbytes)
    seconds = r.time_launch(lambda: prg.vector_add(r.queue, (n,), (256,), a_d, b_d, out_d, np.int32(n)))
    err = _relative_error(r.read(out_d, np.empty_like(a)), a + b)
    return CaseResult("vector_add", f"{n}", build_s, seconds, err, err == 0.0)


def run_reduction(r: Runner, quick: bool) -> CaseResult:
    n, local, groups = 1 << (16 if quick else 22), 256, 64
    data = np.random.default_rng(2).random(n, dtype=np.float32)
    prg, build_s = r.build(REDUCTION)
    in_d, partial_d = r.to_device(data), r.output(groups * 4)
    scratch = r.cl.LocalMemory(local * 4)
    seconds = r.time_launch(lambda: prg.reduce_sum(
        r.queue, (groups * local,), (local,), in_d, partial_d, scratch, np.int32(n)))
    total = r.read(partial_d, np.empty(groups, np.float32)).astype(np.float64).sum()
    want = data.astype(np.float64).sum()
    err = abs(total - want) / want
    return CaseResult("reduce_sum (__local, barriers)", f"{n}", build_s, seconds, err, err < 1e-5)


def run_matmul(r: Runner, quick: bool) -> CaseResult:
    n = 128 if quick else 512
    rng = np.random.default_rng(3)
    a, b = rng.random((n, n), dtype=np.float32), rng.random((n, n), dtype=np.float32)
    prg, build_s = r.build(MATMUL)
    a_d, b_d, c_d = r.to_device(a), r.to_device(b), r.output(a.nbytes)
    seconds = r.time_launch(lambda: prg.matmul_tiled(r.queue, (n, n), (16, 16), a_d, b_d, c_d, np.int32(n)))
    err = _relative_error(r.read(c_d, np.empty_like(a)), a.astype(np.float64) @ b.astype(np.float64))
    return CaseResult("matmul_tiled (__local tiles)", f"{n}x{n}", build_s, seconds, err, err < 1e-5)


def run_stencil(r: Runner, quick: bool) -> CaseResult:
    w = h = 256 if quick else 2048
    grid = np.random.default_rng(4).random((h, w), dtype=np.float32)
    prg, build_s = r.build(STENCIL)
    in_d, out_d = r.to_device(grid), r.output(grid.nbytes)
    seconds = r.time_launch(lambda: prg.stencil5(r.queue, (w, h), (16, 16), in_d, out_d, np.int32(w), np.int32(h)))
    want = grid.copy()
    want[1:-1, 1:-1] = 0.5 * grid[1:-1, 1:-1] + 0.125 * (
        grid[1:-1, :-2] + grid[1:-1, 2:] + grid[:-2, 1:-1] + grid[2:, 1:-1])
    err = _relative_error(r.read(out_d, np.empty_like(grid)), want)
    return CaseResult("stencil5 (2D)", f"{w}x{h}", build_s, seconds, err, err < 1e-6)


CASES = [
    Case("vector_add", run_vector_add),
    Case("reduce_sum", run_reduction),
    Case("matmul_tiled", run_matmul),
    Case("stencil5", run_stencil),
]


def format_table(results: list[CaseResult]) -> str:
    header = ("kernel", "size", "build", "kernel time", "max rel. error", "result")
    rows = [header] + [
        (r.name, r.size, f"{r.build_s * 1e3:.0f} ms", f"{r.kernel_s * 1e3:.2f} ms",
         f"{r.max_error:.2e}", "OK" if r.ok else "FAIL")
        for r in results
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def run_demo(device_kind: str | None = None, quick: bool = False) -> int:
    if device_kind:
        os.environ["OCLPY_DEVICE"] = device_kind
    ctx = cl.create_some_context(interactive=False)
    device = ctx.devices[0]
    print(f"oclpy demo on {device.name} ({device.max_compute_units} compute units)\n")
    runner = Runner(cl, ctx)
    results = []
    for case in CASES:
        try:
            results.append(case.run(runner, quick))
        except cl.Error as exc:
            print(f"{case.name}: {exc}")
            results.append(CaseResult(case.name, "-", 0.0, 0.0, float("nan"), False))
    print(format_table(results))
    failed = [r.name for r in results if not r.ok]
    print(f"\n{len(results) - len(failed)}/{len(results)} kernels OK")
    return 1 if failed else 0
