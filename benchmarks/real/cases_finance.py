"""Finance and Monte Carlo: BEMAP's Black-Scholes and option Monte Carlo, Hands On's pi.

Each kernel comes in BEMAP's scalar and float8 ("simd") forms, the way its
host picks them with `--kernel`.
"""

from __future__ import annotations

import numpy as np

from . import sources as src
from .case import Launch, Local, RealCase

F32, I32 = np.float32, np.int32
R, V = 0.02, 0.30


def _options(n: int) -> dict[str, np.ndarray]:
    r = np.random.default_rng(17)
    return {"price": r.uniform(5, 30, n).astype(F32), "strike": r.uniform(1, 100, n).astype(F32),
            "years": r.uniform(0.25, 10, n).astype(F32)}


def _cnd(d: np.ndarray) -> np.ndarray:
    k = 1 / (1 + 0.2316419 * np.abs(d))
    c = 0.3989422804 * np.exp(-0.5 * d * d) * (k * (0.31938153 + k * (-0.356563782 + k * (
        1.781477937 + k * (-1.821255978 + k * 1.330274429)))))
    return np.where(d > 0, 1 - c, c)


def _bs_ref(v: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    s, x, t = (v[k].astype(np.float64) for k in ("price", "strike", "years"))
    d1 = (np.log(s / x) + (R + 0.5 * V * V) * t) / (V * np.sqrt(t))
    d2 = d1 - V * np.sqrt(t)
    c1, c2, e = _cnd(d1), _cnd(d2), np.exp(-R * t)
    return {"call": (s * c1 - x * e * c2).astype(F32), "put": (x * e * (1 - c2) - s * (1 - c1)).astype(F32)}


def _black_scholes(kind: str, small: bool) -> RealCase:
    width = 1024
    height = 8 if small else 4096
    n = width * height
    opts = _options(n)
    bufs = {"call": np.zeros(n, F32), "put": np.zeros(n, F32), **opts}
    args = ("call", "put", "price", "strike", "years", F32(R), F32(V), I32(n), I32(height), I32(width))
    launch = (Launch("black_scholes_scalar", args, (n,), (128,)) if kind == "scalar"
              else Launch("black_scholes_simd", args, (height,), (8,)))
    return RealCase(f"bemap_blackscholes_{kind}", "bemap", "finance",
                    src.read("bemap", "src/BlackScholes/cl/BlackScholes.cl"), "", bufs, ("call", "put"),
                    (launch,), f"{n} options", _bs_ref, rtol=1e-3, atol=2e-3)


def make_blackscholes_scalar(small: bool) -> RealCase:
    return _black_scholes("scalar", small)


def make_blackscholes_simd(small: bool) -> RealCase:
    return _black_scholes("simd", small)


def _montecarlo(kind: str, small: bool) -> RealCase:
    opt_n, path_n = (64, 256) if small else (2048, 8192)
    opts = _options(opt_n)
    rnd = np.random.default_rng(23).standard_normal(path_n).astype(F32)
    bufs = {"call": np.zeros(opt_n, F32), "random": rnd, "confidence": np.zeros(opt_n, F32), **opts}
    args = ("call", "random", "confidence", "price", "strike", "years", F32(R), F32(V), I32(opt_n), I32(path_n))

    def ref(v: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        s, x, t = (v[k].astype(np.float64)[:, None] for k in ("price", "strike", "years"))
        path = np.maximum(s * np.exp((R - 0.5 * V * V) * t + V * np.sqrt(t) * v["random"][None, :]) - x, 0)
        total, total2 = path.sum(1), (path * path).sum(1)
        std = np.sqrt((path_n * total2 - total * total) / (path_n * (path_n - 1.0)))
        disc = np.exp(-R * t[:, 0])
        return {"call": (disc * total / path_n).astype(F32),
                "confidence": (disc * 1.96 * std / np.sqrt(path_n)).astype(F32)}

    return RealCase(f"bemap_montecarlo_{kind}", "bemap", "finance",
                    src.read("bemap", "src/MonteCarlo/cl/MonteCarlo.cl"),
                    src.include("bemap", "src/MonteCarlo/cl/MonteCarlo_common.hpp"), bufs,
                    ("call", "confidence"), (Launch(f"montecarlo_{kind}", args, (opt_n,), (64,)),),
                    f"{opt_n} options x {path_n} paths", ref, rtol=2e-3, atol=2e-3)


def make_montecarlo_scalar(small: bool) -> RealCase:
    return _montecarlo("scalar", small)


def make_montecarlo_simd(small: bool) -> RealCase:
    return _montecarlo("simd", small)


def make_handson_pi(small: bool) -> RealCase:
    local, groups = 64, (16 if small else 1024)
    niters = 64 if small else 4096
    steps = local * groups * niters
    step = F32(1.0 / steps)

    def ref(v: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        x = (np.arange(steps, dtype=np.float64) + 0.5) * np.float64(step)
        return {"partial": (4.0 / (1.0 + x * x)).reshape(groups, -1).sum(1).astype(F32)}

    launch = Launch("pi", (I32(niters), step, Local(local * 4), "partial"), (local * groups,), (local,))
    return RealCase("handson_pi", "hands-on-opencl", "finance",
                    src.read("hands-on-opencl", "Solutions/Exercise09/pi_ocl.cl"), "",
                    {"partial": np.zeros(groups, F32)}, ("partial",), (launch,), f"{steps} steps", ref,
                    rtol=1e-3, atol=1e-3)
