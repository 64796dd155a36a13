"""OpenCL C 6.15.2 math functions over wide argument ranges (log-uniform
magnitudes from tiny to huge, large trig arguments), float and double,
against mpmath within the spec's ULP bounds; scalar and 4-element forms."""

from __future__ import annotations

import numpy as np
import pytest

from .elementwise import DTYPES, Op, evaluate
from .harness import ulp_error
from .mathref import mp, reference
from .values import N

PRE = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable"
W = (1, 4)


def _loguniform(rng, lo: float, hi: float, signed: bool) -> np.ndarray:
    x = np.exp(rng.uniform(np.log(lo), np.log(hi), N))
    return x * rng.choice([-1.0, 1.0], N) if signed else x


def _inputs(t: str):
    rng = np.random.default_rng(99)
    big = 1e30 if t == "float" else 1e200
    dt = DTYPES[t]
    a = _loguniform(rng, 1e-30, 1.0, True).astype(dt)         # small magnitudes, both signs
    b = _loguniform(rng, 1e-3, 1e5, True).astype(dt)          # trig and friends: large arguments
    c = _loguniform(rng, 1e-30, big, False).astype(dt)        # positive, huge range
    return a, b, c


# name: (expression, reference, bound float, bound double, operands)
WIDE = {
    "sin": ("sin(b)", mp.sin, 4, 4, "b"), "cos": ("cos(b)", mp.cos, 4, 4, "b"), "tan": ("tan(b)", mp.tan, 5, 5, "b"),
    "sinpi": ("sinpi(b)", mp.sinpi, 4, 4, "b"), "cospi": ("cospi(b)", mp.cospi, 4, 4, "b"),
    "tanpi": ("tanpi(b)", lambda x: mp.sinpi(x) / mp.cospi(x), 6, 6, "b"),
    "log": ("log(c)", mp.log, 3, 3, "c"), "log2": ("log2(c)", lambda x: mp.log(x, 2), 3, 3, "c"),
    "log10": ("log10(c)", mp.log10, 3, 3, "c"), "log1p": ("log1p(a)", mp.log1p, 2, 2, "a"),
    "expm1": ("expm1(a)", mp.expm1, 3, 3, "a"), "sqrt": ("sqrt(c)", mp.sqrt, 3, 0, "c"),
    "rsqrt": ("rsqrt(c)", lambda x: 1 / mp.sqrt(x), 2, 2, "c"), "cbrt": ("cbrt(c)", mp.cbrt, 2, 2, "c"),
    "asin": ("asin(a)", mp.asin, 4, 4, "a"), "atan": ("atan(b)", mp.atan, 5, 5, "b"),
    "asinh": ("asinh(c)", mp.asinh, 4, 4, "c"), "atanh": ("atanh(a)", mp.atanh, 5, 5, "a"),
    "sinh": ("sinh(a)", mp.sinh, 4, 4, "a"), "tanh": ("tanh(a)", mp.tanh, 5, 5, "a"),
    "erf": ("erf(a)", mp.erf, 16, 16, "a"), "atan2": ("atan2(a, c)", mp.atan2, 6, 6, "ac"),
    "hypot": ("hypot(b, c)", mp.hypot, 4, 4, "bc"), "pow": ("pow(c, a)", mp.power, 16, 16, "ca"),
    "fmod": ("fmod(c, b)", None, 0, 0, "cb"), "remainder": ("remainder(c, b)", None, 0, 0, "cb"),
    "asinpi": ("asinpi(a)", lambda x: mp.asin(x) / mp.pi, 5, 5, "a"),
    "atanpi": ("atanpi(b)", lambda x: mp.atan(x) / mp.pi, 5, 5, "b"),
    "exp": ("exp(a)", mp.exp, 3, 3, "a"), "tgamma": ("tgamma(a)", mp.gamma, 16, 16, "a"),
}

_cache: dict = {}


def _results(run_kernel, t: str):
    if t not in _cache:
        ops = [Op(k, e, "T", W) for k, (e, *_rest) in WIDE.items()]
        ins = _inputs(t)
        _cache[t] = (evaluate(run_kernel, t, ops, *ins, pre=PRE)[0], ins)
    return _cache[t]


def _exact(key: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    import math
    f = math.fmod if key == "fmod" else math.remainder
    return np.array([f(float(p), float(q)) for p, q in zip(x, y)], dtype=np.longdouble)


@pytest.mark.parametrize("t", ["float", "double"])
@pytest.mark.parametrize("key", list(WIDE))
def test_wide_range_ulp(run_kernel, record_property, t: str, key: str) -> None:
    res, ins = _results(run_kernel, t)
    expr, fn, bf, bd, operands = WIDE[key]
    args = [ins["abc".index(ch)] for ch in operands]
    want = _exact(key, *args) if fn is None else reference(fn, *args)
    worst = 0.0
    for n in W:
        got = res[(key, n)]
        worst = max(worst, float(ulp_error(got, want[:len(got)], DTYPES[t]).max()))
    record_property("max_ulp", worst)
    bound = bf if t == "float" else bd
    assert worst <= max(bound, 0.5), f"{key}({t}): {worst:.2f} ulp > {bound}"
