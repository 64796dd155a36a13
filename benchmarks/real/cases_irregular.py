"""Irregular kernels: clSPARSE's CSR SpMV, the OpenCL SDK's histogram and multi-pass reduction."""

from __future__ import annotations

import numpy as np

from . import sources as src
from .case import Launch, Local, RealCase

F32, I32 = np.float32, np.int32
CLSPARSE = {"INDEX_TYPE": "int", "VALUE_TYPE": "float", "SIZE_TYPE": "ulong", "WG_SIZE": 256,
            "WAVE_SIZE": 64, "SUBWAVE_SIZE": 8}


def make_csrmv(small: bool) -> RealCase:
    rows = 1024 if small else 1 << 19
    r = np.random.default_rng(47)
    per_row = r.integers(4, 21, rows)
    offsets = np.concatenate([[0], np.cumsum(per_row)]).astype(I32)
    nnz = int(offsets[-1])
    cols = r.integers(0, rows, nnz).astype(I32)
    vals, x, y = r.standard_normal(nnz, dtype=F32), r.standard_normal(rows, dtype=F32), r.standard_normal(rows, dtype=F32)
    alpha, beta = np.array([1.5], F32), np.array([0.5], F32)
    u = np.uint64

    def ref(v: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        prod = v["val"].astype(np.float64) * v["x"][v["col"]]
        ax = np.add.reduceat(prod, v["row_offset"][:-1])
        return {"y": (1.5 * ax + 0.5 * v["y"]).astype(F32)}

    args = (I32(rows), "alpha", u(0), "row_offset", "col", "val", "x", u(0), "beta", u(0), "y", u(0))
    launch = Launch("csrmv_general", args, (rows * CLSPARSE["SUBWAVE_SIZE"],), (256,))
    return RealCase("clsparse_csrmv", "clsparse", "sparse and graph",
                    src.read("clsparse", "src/library/kernels/csrmv_general.cl", raw_string=True),
                    src.options(CLSPARSE),
                    {"alpha": alpha, "row_offset": offsets, "col": cols, "val": vals, "x": x, "beta": beta, "y": y},
                    ("y",), (launch,), f"{rows} rows, {nnz} nonzeros", ref, rtol=1e-3, atol=1e-3,
                    restore=("y",))


def make_histogram(small: bool) -> RealCase:
    n, bins, per_item, local = (1 << 14, 64, 16, 64) if small else (1 << 24, 256, 16, 256)
    data = np.random.default_rng(53).standard_normal(n).astype(F32)
    levels = np.linspace(-4, 4, bins + 1).astype(F32)

    def ref(v: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        x = v["input"]
        x = x[(levels[0] < x) & (x < levels[bins])]
        ch = np.searchsorted(levels, x, side="right") - 1
        return {"hist": np.bincount(ch, minlength=bins).astype(np.uint32)}

    u = np.uint32
    launch = Launch("histogram_shared", (u(n), u(bins), u(per_item), "input", "levels", Local(bins * 4), "hist"),
                    (n // per_item,), (local,))
    return RealCase("sdk_histogram", "opencl-sdk", "sparse and graph",
                    src.read("opencl-sdk", "samples/extensions/khr/histogram/histogram.cl"), "",
                    {"input": data, "levels": levels, "hist": np.zeros(bins, np.uint32)}, ("hist",), (launch,),
                    f"n={n}, {bins} bins", ref, restore=("hist",))


def make_reduce(small: bool) -> RealCase:
    n, wgs = (10000, 64) if small else ((1 << 24) + 12345, 256)
    data = np.random.default_rng(59).integers(0, 100, n).astype(I32)
    factor = 2 * wgs
    new_size = lambda m: m // factor + (1 if m % factor else 0)
    launches, curr, front, back = [], n, "a", "b"
    while curr > 1:
        launches.append(Launch("reduce", (front, back, Local(factor * 4), np.uint64(curr), I32(0)),
                               (new_size(curr) * wgs,), (wgs,)))
        curr = new_size(curr)
        if curr > 1:
            front, back = back, front
    result = back

    def ref(v: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        out = np.zeros_like(v[result])
        out[0] = v["a"].astype(np.int64).sum()
        return {result: out}

    first = lambda d: {k: np.asarray(x).reshape(-1)[:1] for k, x in d.items()}
    source = src.read("opencl-sdk", "samples/core/reduce/reduce.cl") + "int op(int lhs, int rhs) { return lhs + rhs; }\n"
    return RealCase("sdk_reduce", "opencl-sdk", "sparse and graph", source, "",
                    {"a": data, "b": np.zeros(new_size(n), I32)}, (result,), tuple(launches),
                    f"n={n}, {len(launches)} passes", ref, restore=("a",), normalise=first)
