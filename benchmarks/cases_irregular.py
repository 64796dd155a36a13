"""Irregular kernels: histogram (atomics), prefix sum, CSR SpMV, a bitonic sort
step, and a kernel calling a helper too big to inline."""

from __future__ import annotations

import numpy as np

from .case import Arg, Case

F32 = np.float32


def _rng() -> np.random.Generator:
    return np.random.default_rng(4321)


HISTOGRAM = """
#define BINS 256
__kernel void histogram(int n, __global const uint *data, __global uint *hist) {
    __local uint local_hist[BINS];
    int lid = get_local_id(0), lsize = get_local_size(0);
    for (int b = lid; b < BINS; b += lsize)
        local_hist[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = get_global_id(0); i < n; i += get_global_size(0))
        atomic_inc(&local_hist[data[i] & (BINS - 1)]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int b = lid; b < BINS; b += lsize)
        atomic_add(&hist[b], local_hist[b]);
}
"""


def make_histogram(n: int = 1 << 24) -> Case:
    data = _rng().integers(0, 1 << 20, n, dtype=np.uint32)
    args = [Arg("n", "scalar", np.int32(n)), Arg("data", "in", data),
            Arg("hist", "out", np.zeros(256, np.uint32))]
    ref = lambda v: {"hist": np.bincount(v["data"] & 255, minlength=256).astype(np.uint32)}
    return Case("histogram", "histogram", HISTOGRAM, args, (64 * 256,), (256,), f"n={n}", ref,
                extra={"accumulates": True})


SCAN = """
__kernel void scan_block(__global const float *in, __global float *out,
                         __local float *a, __local float *b) {
    int lid = get_local_id(0), n = get_local_size(0);
    a[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int off = 1; off < n; off <<= 1) {
        float v = a[lid];
        if (lid >= off)
            v += a[lid - off];
        b[lid] = v;
        barrier(CLK_LOCAL_MEM_FENCE);
        __local float *t = a; a = b; b = t;
    }
    out[get_global_id(0)] = a[lid];
}
"""


def make_scan(n: int = 1 << 22, local: int = 256) -> Case:
    x = _rng().random(n, dtype=F32)
    args = [Arg("in", "in", x), Arg("out", "out", np.zeros(n, F32)),
            Arg("a", "local", local * 4), Arg("b", "local", local * 4)]
    ref = lambda v: {"out": np.cumsum(v["in"].reshape(-1, local).astype(np.float64), 1)
                     .astype(F32).ravel()}
    return Case("prefix_sum", "scan_block", SCAN, args, (n,), (local,), f"n={n}", ref,
                rtol=1e-4, atol=1e-4)


SPMV = """
__kernel void spmv_csr(int rows, __global const int *row_ptr, __global const int *cols,
                       __global const float *vals, __global const float *x,
                       __global float *y) {
    int row = get_global_id(0);
    if (row >= rows)
        return;
    float acc = 0.0f;
    for (int k = row_ptr[row]; k < row_ptr[row + 1]; ++k)
        acc += vals[k] * x[cols[k]];
    y[row] = acc;
}
"""


def _spmv_ref(v: dict) -> dict:
    rp, cols, vals, x = v["row_ptr"], v["cols"], v["vals"], v["x"]
    prod = vals.astype(np.float64) * x[cols]
    sums = np.add.reduceat(prod, rp[:-1]) if prod.size else prod
    sums[rp[:-1] == rp[1:]] = 0.0
    return {"y": sums.astype(F32)}


def make_spmv(rows: int = 1 << 20, mean_nnz: int = 16) -> Case:
    r = _rng()
    counts = r.integers(1, 2 * mean_nnz, rows)
    row_ptr = np.zeros(rows + 1, np.int32)
    np.cumsum(counts, out=row_ptr[1:])
    nnz = int(row_ptr[-1])
    cols = r.integers(0, rows, nnz, dtype=np.int32)
    vals = r.random(nnz, dtype=F32)
    x = r.random(rows, dtype=F32)
    args = [Arg("rows", "scalar", np.int32(rows)), Arg("row_ptr", "in", row_ptr),
            Arg("cols", "in", cols), Arg("vals", "in", vals), Arg("x", "in", x),
            Arg("y", "out", np.zeros(rows, F32))]
    return Case("spmv_csr", "spmv_csr", SPMV, args, (rows,), (128,), f"{rows} rows, nnz={nnz}",
                _spmv_ref, rtol=1e-4, atol=1e-4)


BITONIC = """
__kernel void bitonic_step(__global const uint *in, __global uint *out, uint j, uint k) {
    uint i = get_global_id(0);
    uint partner = i ^ j;
    uint a = in[i], b = in[partner];
    bool ascending = (i & k) == 0;
    bool lower = i < partner;
    uint lo = min(a, b), hi = max(a, b);
    out[i] = (ascending == lower) ? lo : hi;
}
"""


def _bitonic_ref(v: dict) -> dict:
    a = v["in"]
    i = np.arange(a.size, dtype=np.uint32)
    j, k = np.uint32(v["j"]), np.uint32(v["k"])
    partner = i ^ j
    b = a[partner]
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    pick = ((i & k) == 0) == (i < partner)
    return {"out": np.where(pick, lo, hi)}


def make_bitonic(n: int = 1 << 26) -> Case:
    data = _rng().integers(0, 1 << 31, n, dtype=np.uint32)
    args = [Arg("in", "in", data), Arg("out", "out", np.zeros(n, np.uint32)),
            Arg("j", "scalar", np.uint32(1 << 9)), Arg("k", "scalar", np.uint32(1 << 12))]
    return Case("bitonic_step", "bitonic_step", BITONIC, args, (n,), (256,), f"n={n}",
                _bitonic_ref)


HELPER = """
float smooth_step_poly(float x, float lo, float hi, int terms) {
    float t = clamp((x - lo) / (hi - lo), 0.0f, 1.0f);
    float acc = 0.0f, p = 1.0f;
    for (int k = 0; k < terms; ++k) {
        acc += p / (float)(k + 1);
        p *= t;
    }
    if (acc > 2.0f)
        acc = 2.0f + 0.5f * (acc - 2.0f);
    return acc * t * t * (3.0f - 2.0f * t);
}

__kernel void helper_call(__global const float *x, __global float *out, int terms) {
    size_t i = get_global_id(0);
    float v = x[i];
    out[i] = smooth_step_poly(v, 0.0f, 1.0f, terms) - smooth_step_poly(v, 0.25f, 0.75f, terms);
}
"""


def _poly(x: np.ndarray, lo: float, hi: float, terms: int) -> np.ndarray:
    t = np.clip((x - lo) / (hi - lo), 0.0, 1.0)
    acc, p = np.zeros_like(t), np.ones_like(t)
    for k in range(terms):
        acc += p / (k + 1)
        p *= t
    acc = np.where(acc > 2.0, 2.0 + 0.5 * (acc - 2.0), acc)
    return acc * t * t * (3.0 - 2.0 * t)


def make_helper(n: int = 1 << 22, terms: int = 16) -> Case:
    x = _rng().random(n, dtype=F32)
    ref = lambda v: {"out": (_poly(v["x"].astype(np.float64), 0.0, 1.0, terms)
                             - _poly(v["x"].astype(np.float64), 0.25, 0.75, terms)).astype(F32)}
    args = [Arg("x", "in", x), Arg("out", "out", np.zeros(n, F32)),
            Arg("terms", "scalar", np.int32(terms))]
    return Case("helper_call", "helper_call", HELPER, args, (n,), (256,), f"n={n}", ref,
                rtol=1e-4, atol=1e-4)
