"""Dense linear algebra: CLBlast's tuned kernels, ViennaCL's and Hands On OpenCL's.

CLBlast's parameters are its tuning database's default entry for Intel CPUs
(src/database/kernels/*/*_32.hpp at the pinned commit), prepended as
#defines the way CLBlast's host does; NDRanges follow its routines.
"""

from __future__ import annotations

import numpy as np

from . import sources as src
from .case import Launch, Local, RealCase

F32, I32, U32 = np.float32, np.int32, np.uint32
CLBLAST_LEVEL = {"level1": "src/kernels/level1/level1.opencl", "level2": "src/kernels/level2/level2.opencl",
                 "level3": "src/kernels/level3/level3.opencl"}
XGEMM = {"GEMMK": 0, "KREG": 1, "KWG": 32, "KWI": 2, "MDIMA": 8, "MDIMC": 8, "MWG": 16, "NDIMB": 8,
         "NDIMC": 8, "NWG": 32, "SA": 1, "SB": 1, "STRM": 0, "STRN": 0, "VWM": 2, "VWN": 4}


def _rng() -> np.random.Generator:
    return np.random.default_rng(2024)


def clblast(level: str, *files: str, params: dict[str, object]) -> str:
    prelude = src.defines({"PRECISION": 32, **params})
    return src.assemble("clblast", "src/kernels/common.opencl", CLBLAST_LEVEL[level],
                        *[f"src/kernels/{f}" for f in files], prelude=prelude, raw_string=True)


def make_xgemm(small: bool) -> RealCase:
    m = n = k = 64 if small else 768
    r = _rng()
    a, b = r.standard_normal((k, m), dtype=F32), r.standard_normal((k, n), dtype=F32)
    c = r.standard_normal((n, m), dtype=F32)
    alpha, beta = F32(1.5), F32(0.5)
    source = clblast("level3", *[f"level3/xgemm_part{i}.opencl" for i in (1, 2, 3, 4)], params=XGEMM)
    g = (m * XGEMM["MDIMC"] // XGEMM["MWG"], n * XGEMM["NDIMC"] // XGEMM["NWG"])
    launch = Launch("Xgemm", (I32(m), I32(n), I32(k), alpha, beta, "a", "b", "c", I32(0), I32(0)),
                    g, (XGEMM["MDIMC"], XGEMM["NDIMC"]))
    ref = lambda v: {"c": alpha * (v["b"].T @ v["a"]) + beta * v["c"]}
    return RealCase("clblast_xgemm", "clblast", "dense linear algebra", source, "",
                    {"a": a, "b": b, "c": c}, ("c",), (launch,), f"{m}x{n}x{k}", ref,
                    rtol=1e-3, atol=1e-3, restore=("c",))


def make_xgemv(small: bool) -> RealCase:
    m, n = (128, 96) if small else (4096, 4096)
    params = {"WGS1": 64, "WPT1": 1}
    r = _rng()
    a, x, y = r.standard_normal(m * n, dtype=F32), r.standard_normal(n, dtype=F32), r.standard_normal(m, dtype=F32)
    alpha, beta = F32(2.0), F32(-1.0)
    args = (I32(m), I32(n), alpha, beta, I32(0), "a", I32(0), I32(m), "x", I32(0), I32(1),
            "y", I32(0), I32(1), I32(0), I32(0), I32(0), I32(0))
    launch = Launch("Xgemv", args, (-(-m // 64) * 64,), (64,))
    ref = lambda v: {"y": alpha * (v["a"].reshape(n, m).T @ v["x"]) + beta * v["y"]}
    return RealCase("clblast_xgemv", "clblast", "dense linear algebra",
                    clblast("level2", "level2/xgemv.opencl", params=params), "",
                    {"a": a, "x": x, "y": y}, ("y",), (launch,), f"{m}x{n}", ref,
                    rtol=1e-3, atol=1e-3, restore=("y",))


def make_xaxpy(small: bool) -> RealCase:
    n = 1 << (13 if small else 24)
    params = {"VW": 8, "WGS": 512, "WPT": 1}
    r = _rng()
    x, y = r.standard_normal(n, dtype=F32), r.standard_normal(n, dtype=F32)
    launch = Launch("XaxpyFaster", (I32(n), F32(3.0), "x", "y"), (n // 8,), (512,))
    return RealCase("clblast_xaxpy", "clblast", "dense linear algebra",
                    clblast("level1", "level1/xaxpy.opencl", params=params), "",
                    {"x": x, "y": y}, ("y",), (launch,), f"n={n}",
                    lambda v: {"y": F32(3.0) * v["x"] + v["y"]}, restore=("y",))


def make_xdot(small: bool) -> RealCase:
    n = 1 << (14 if small else 24)
    wgs1, wgs2 = 128, 32
    r = _rng()
    x, y = r.random(n, dtype=F32), r.random(n, dtype=F32)
    temp = 2 * wgs2
    launches = (Launch("Xdot", (I32(n), "x", I32(0), I32(1), "y", I32(0), I32(1), "temp", I32(0)),
                       (wgs1 * temp,), (wgs1,)),
                Launch("XdotEpilogue", ("temp", "dot", I32(0)), (wgs2,), (wgs2,)))
    ref = lambda v: {"dot": np.array([np.dot(v["x"].astype(np.float64), v["y"])], F32)}
    return RealCase("clblast_xdot", "clblast", "dense linear algebra",
                    clblast("level1", "level1/xdot.opencl", params={"WGS1": wgs1, "WGS2": wgs2}), "",
                    {"x": x, "y": y, "temp": np.zeros(temp, F32), "dot": np.zeros(1, F32)}, ("dot",),
                    launches, f"n={n}", ref, rtol=1e-4)


def make_transpose(small: bool) -> RealCase:
    n = 64 if small else 4096
    params = {"TRA_DIM": 8, "TRA_PAD": 0, "TRA_SHUFFLE": 0, "TRA_WPT": 8}
    a = _rng().standard_normal((n, n), dtype=F32)
    launch = Launch("TransposeMatrixFast", (I32(n), "a", "b", F32(1.0)), (n // 8, n // 8), (8, 8))
    return RealCase("clblast_transpose", "clblast", "dense linear algebra",
                    clblast("level3", "level3/transpose_fast.opencl", params=params), "",
                    {"a": a, "b": np.zeros((n, n), F32)}, ("b",), (launch,), f"{n}x{n}",
                    lambda v: {"b": v["a"].T.copy()})


def make_viennacl_gemv(small: bool) -> RealCase:
    rows, cols = (96, 200) if small else (4096, 4096)
    local, groups = 128, 256
    r = _rng()
    a, x = r.standard_normal((rows, cols), dtype=F32), r.standard_normal(cols, dtype=F32)
    u = lambda v: U32(v)
    args = ("a", u(0), u(0), u(1), u(1), u(rows), u(cols), u(rows), u(cols), "x", u(0), u(1), u(cols),
            "y", u(0), u(1), u(rows), Local(local * 4))
    launch = Launch("vec_mul", args, (local * groups,), (local,))
    return RealCase("viennacl_gemv", "viennacl", "dense linear algebra",
                    src.read("viennacl", "auxiliary/matrix_row/align1/vec_mul.cl"), "",
                    {"a": a, "x": x, "y": np.zeros(rows, F32)}, ("y",), (launch,), f"{rows}x{cols}",
                    lambda v: {"y": v["a"] @ v["x"]}, rtol=1e-3, atol=1e-3)


def make_handson_block(small: bool) -> RealCase:
    n = 64 if small else 512
    r = _rng()
    a, b = r.standard_normal((n, n), dtype=F32), r.standard_normal((n, n), dtype=F32)
    launch = Launch("mmul", (U32(n), "a", "b", "c", Local(16 * 16 * 4), Local(16 * 16 * 4)), (n, n), (16, 16))
    return RealCase("handson_mmul_block", "hands-on-opencl", "dense linear algebra",
                    src.read("hands-on-opencl", "Solutions/Exercise08/C_block_form.cl"), "",
                    {"a": a, "b": b, "c": np.zeros((n, n), F32)}, ("c",), (launch,), f"{n}^3",
                    lambda v: {"c": v["a"] @ v["b"]}, rtol=1e-3, atol=1e-3)


def make_handson_row(small: bool) -> RealCase:
    n = 64 if small else 512
    r = _rng()
    a, b = r.standard_normal((n, n), dtype=F32), r.standard_normal((n, n), dtype=F32)
    launch = Launch("mmul", (I32(n), "a", "b", "c"), (n,), (16,))
    return RealCase("handson_mmul_row_priv", "hands-on-opencl", "dense linear algebra",
                    src.read("hands-on-opencl", "Solutions/Exercise08/C_row_priv.cl"), "",
                    {"a": a, "b": b, "c": np.zeros((n, n), F32)}, ("c",), (launch,), f"{n}^3",
                    lambda v: {"c": v["a"] @ v["b"]}, rtol=1e-3, atol=1e-3)
