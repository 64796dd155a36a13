"""High-precision references for the math tests (mpmath at 40 digits) and the
OpenCL C ULP bounds (OpenCL C 3.0 section 7.4, tables for float and double,
full profile)."""

from __future__ import annotations

import math
from typing import Callable

import mpmath as mp
import numpy as np

mp.mp.dps = 40
M = mp.mpf


def _pi(f: Callable) -> Callable:
    return lambda *xs: f(*xs) / mp.pi


def _lgamma(x):
    g = mp.gamma(x) if x != mp.floor(x) or x > 0 else mp.inf
    return mp.log(abs(g))


def _remainder(x, y):
    return M(math.remainder(float(x), float(y)))


def _rootn(x, n):
    n = int(n)
    if x < 0:
        return -mp.root(-x, n) if n % 2 else mp.nan
    return mp.root(x, n)


def _powr(x, y):
    return mp.nan if x < 0 else mp.power(x, y)


# name: (expression, reference on mpf operands, ulp bound float, ulp bound double)
MATH: dict[str, tuple[str, Callable, float, float]] = {
    "acos": ("acos(a)", mp.acos, 4, 4),
    "acosh": ("acosh(c)", mp.acosh, 4, 4),
    "acospi": ("acospi(a)", _pi(mp.acos), 5, 5),
    "asin": ("asin(a)", mp.asin, 4, 4),
    "asinh": ("asinh(b)", mp.asinh, 4, 4),
    "asinpi": ("asinpi(a)", _pi(mp.asin), 5, 5),
    "atan": ("atan(b)", mp.atan, 5, 5),
    "atan2": ("atan2(a, b)", mp.atan2, 6, 6),
    "atanh": ("atanh(a)", mp.atanh, 5, 5),
    "atanpi": ("atanpi(b)", _pi(mp.atan), 5, 5),
    "atan2pi": ("atan2pi(a, b)", _pi(mp.atan2), 6, 6),
    "cbrt": ("cbrt(b)", lambda x: mp.sign(x) * mp.cbrt(abs(x)), 2, 2),
    "ceil": ("ceil(b)", mp.ceil, 0, 0),
    "copysign": ("copysign(b, a)", lambda x, y: abs(x) * mp.sign(y), 0, 0),
    "cos": ("cos(b)", mp.cos, 4, 4),
    "cosh": ("cosh(b)", mp.cosh, 4, 4),
    "cospi": ("cospi(b)", mp.cospi, 4, 4),
    "erfc": ("erfc(b)", mp.erfc, 16, 16),
    "erf": ("erf(b)", mp.erf, 16, 16),
    "exp": ("exp(b)", mp.exp, 3, 3),
    "exp2": ("exp2(b)", lambda x: mp.power(2, x), 3, 3),
    "exp10": ("exp10(b)", lambda x: mp.power(10, x), 3, 3),
    "expm1": ("expm1(b)", mp.expm1, 3, 3),
    "fabs": ("fabs(b)", abs, 0, 0),
    "fdim": ("fdim(b, a)", lambda x, y: max(x - y, 0), 0, 0),
    "floor": ("floor(b)", mp.floor, 0, 0),
    "fma": ("fma(a, b, c)", lambda x, y, z: x * y + z, 0, 0),
    "fmax": ("fmax(a, b)", max, 0, 0),
    "fmin": ("fmin(a, b)", min, 0, 0),
    "fmod": ("fmod(b, c)", lambda x, y: M(math.fmod(float(x), float(y))), 0, 0),
    "hypot": ("hypot(a, b)", mp.hypot, 4, 4),
    "ldexp": ("ldexp(b, convert_$I(a * 10))", None, 0, 0),
    "log": ("log(c)", mp.log, 3, 3),
    "log2": ("log2(c)", lambda x: mp.log(x, 2), 3, 3),
    "log10": ("log10(c)", mp.log10, 3, 3),
    "log1p": ("log1p(c)", mp.log1p, 2, 2),
    "logb": ("logb(b)", lambda x: mp.floor(mp.log(abs(x), 2)), 0, 0),
    "mad": ("mad(a, b, c)", lambda x, y, z: x * y + z, math.inf, math.inf),
    "maxmag": ("maxmag(a, b)", lambda x, y: x if abs(x) > abs(y) else y if abs(y) > abs(x) else max(x, y), 0, 0),
    "minmag": ("minmag(a, b)", lambda x, y: x if abs(x) < abs(y) else y if abs(y) < abs(x) else min(x, y), 0, 0),
    "nextafter": ("nextafter(b, a)", None, 0, 0),
    "pow": ("pow(c, b)", mp.power, 16, 16),
    "pown": ("pown(c, convert_$I(b))", None, 16, 16),
    "powr": ("powr(c, b)", _powr, 16, 16),
    "remainder": ("remainder(b, c)", _remainder, 0, 0),
    "rint": ("rint(b)", mp.nint, 0, 0),
    "rootn": ("rootn(b, convert_$I(c) | 1)", None, 16, 16),
    "round": ("round(b)", lambda x: mp.sign(x) * mp.floor(abs(x) + M(0.5)), 0, 0),
    "rsqrt": ("rsqrt(c)", lambda x: 1 / mp.sqrt(x), 2, 2),
    "sin": ("sin(b)", mp.sin, 4, 4),
    "sinh": ("sinh(b)", mp.sinh, 4, 4),
    "sinpi": ("sinpi(b)", mp.sinpi, 4, 4),
    "sqrt": ("sqrt(c)", mp.sqrt, 3, 0),
    "tan": ("tan(b)", mp.tan, 5, 5),
    "tanh": ("tanh(b)", mp.tanh, 5, 5),
    "tanpi": ("tanpi(b)", lambda x: mp.sinpi(x) / mp.cospi(x), 6, 6),
    "tgamma": ("tgamma(b)", mp.gamma, 16, 16),
    "trunc": ("trunc(b)", lambda x: mp.sign(x) * mp.floor(abs(x)), 0, 0),
    "divide": ("b / c", lambda x, y: x / y, 2.5, 0),
    "lgamma": ("lgamma(c)", _lgamma, 16, 16),
}

# native_ (implementation-defined accuracy; checked loosely) and half_ (8192 ulp) forms
REDUCED = {
    "cos": ("b", mp.cos), "exp": ("a", mp.exp), "exp2": ("a", lambda x: mp.power(2, x)),
    "exp10": ("a", lambda x: mp.power(10, x)), "log": ("c", mp.log), "log2": ("c", lambda x: mp.log(x, 2)),
    "log10": ("c", mp.log10), "rsqrt": ("c", lambda x: 1 / mp.sqrt(x)), "sin": ("b", mp.sin),
    "sqrt": ("c", mp.sqrt), "tan": ("a", mp.tan), "recip": ("c", lambda x: 1 / x),
}


def to_longdouble(r) -> np.longdouble:
    """An mpf as a long double (sum of its two leading doubles)."""
    if not mp.isfinite(r):
        return np.longdouble(float(r))
    hi = float(r)
    return np.longdouble(hi) + np.longdouble(float(r - hi)) if math.isfinite(hi) else np.longdouble(hi)


def reference(fn: Callable, *arrays: np.ndarray) -> np.ndarray:
    """fn over the operands' elements in mpmath, as long doubles."""
    out = []
    for vals in zip(*(x.tolist() for x in arrays)):
        with np.errstate(all="ignore"):
            try:
                r = fn(*(M(v) for v in vals))
            except (ValueError, ZeroDivisionError):
                r = mp.nan
        out.append(to_longdouble(r))
    return np.array(out, dtype=np.longdouble)
