"""OpenCL C 3.0 section 7.5.1 (C99 Annex F) edge cases of the math functions:
signed zeros, infinities and NaNs at the points the spec names, for float and
double, all evaluated in one kernel per type."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from .elementwise import DTYPES

INF, NAN = math.inf, math.nan
PI = math.pi

# (expression with x = -0.0, y = +0.0, i = +inf, n = NaN available, expected)
CASES: list[tuple[str, float]] = [
    ("acos(1)", 0.0), ("asin(x)", -0.0), ("asin(y)", 0.0), ("atan(x)", -0.0), ("atan(i)", PI / 2),
    ("atan2(y, x)", PI), ("atan2(x, x)", -PI), ("atan2(y, y)", 0.0), ("atan2(x, y)", -0.0),
    ("atan2(1, i)", 0.0), ("atan2(i, i)", PI / 4), ("atanh(1)", INF), ("atanh(-1)", -INF), ("atanh(x)", -0.0),
    ("cbrt(x)", -0.0), ("cbrt(-i)", -INF), ("cos(x)", 1.0), ("cosh(-i)", INF), ("cospi(0.5)", 0.0),
    ("cospi(-1.5)", 0.0), ("erf(x)", -0.0), ("erf(-i)", -1.0), ("erfc(i)", 0.0), ("erfc(-i)", 2.0),
    ("exp(-i)", 0.0), ("exp(x)", 1.0), ("exp2(-i)", 0.0), ("exp10(i)", INF), ("expm1(x)", -0.0),
    ("expm1(-i)", -1.0), ("fmod(x, 3)", -0.0), ("fmod(1, y)", NAN), ("fmod(i, 2)", NAN), ("fmod(5, i)", 5.0),
    ("hypot(i, n)", INF), ("hypot(-i, 1)", INF), ("log(x)", -INF), ("log(y)", -INF), ("log(-1)", NAN),
    ("log(1)", 0.0), ("log(i)", INF), ("log2(x)", -INF), ("log10(y)", -INF), ("log1p(-1)", -INF),
    ("log1p(x)", -0.0), ("logb(i)", INF), ("logb(x)", -INF), ("pow(x, -3)", -INF), ("pow(y, -2)", INF),
    ("pow(x, 3)", -0.0), ("pow(y, 2)", 0.0), ("pow(-1, i)", 1.0), ("pow(1, n)", 1.0), ("pow(n, y)", 1.0),
    ("pow(-2, 0.5)", NAN), ("pow(0.5, -i)", INF), ("pow(2, -i)", 0.0), ("pow(-i, -3)", -0.0),
    ("pow(-i, 3)", -INF), ("pown(n, 0)", 1.0), ("pown(x, -3)", -INF), ("pown(y, 2)", 0.0),
    ("powr(x, x)", NAN), ("powr(i, y)", NAN), ("powr(1, i)", NAN), ("powr(-1, 2)", NAN), ("powr(2, y)", 1.0),
    ("rootn(x, -3)", -INF), ("rootn(y, -2)", INF), ("rootn(-8, 2)", NAN), ("rootn(-8, 3)", -2.0),
    ("rootn(5, 0)", NAN), ("remainder(x, 1)", -0.0), ("remainder(1, y)", NAN), ("remainder(i, 1)", NAN),
    ("rsqrt(y)", INF), ("rsqrt(x)", -INF), ("sin(x)", -0.0), ("sin(i)", NAN), ("sinh(x)", -0.0),
    ("sinh(-i)", -INF), ("sinpi(x)", -0.0), ("sinpi(2)", 0.0), ("sinpi(-3)", -0.0), ("sqrt(x)", -0.0),
    ("sqrt(-1)", NAN), ("sqrt(i)", INF), ("tan(x)", -0.0), ("tanh(-i)", -1.0), ("tanh(x)", -0.0),
    ("tanpi(x)", -0.0), ("tanpi(2)", 0.0), ("tanpi(-2)", -0.0), ("tanpi(1)", -0.0), ("tanpi(0.5)", INF),
    ("tanpi(1.5)", -INF), ("tgamma(y)", INF), ("tgamma(x)", -INF), ("tgamma(-1)", NAN), ("tgamma(-i)", NAN),
    ("lgamma(1)", 0.0), ("lgamma(y)", INF), ("lgamma(-i)", INF), ("ceil(-0.5)", -0.0), ("floor(x)", -0.0),
    ("round(-0.4)", -0.0), ("round(2.5)", 3.0), ("round(-2.5)", -3.0), ("rint(2.5)", 2.0), ("rint(-0.5)", -0.0),
    ("trunc(-0.7)", -0.0), ("fdim(n, 1)", NAN), ("fdim(1, 2)", 0.0), ("fmax(n, 1)", 1.0), ("fmin(1, n)", 1.0),
    ("copysign(1, x)", -1.0), ("ldexp(x, 5)", -0.0), ("ldexp(1, 100000)", INF), ("nextafter(y, 1) > 0", 1.0),
    ("nextafter(x, -1) < 0", 1.0), ("asinpi(x)", -0.0), ("atanpi(i)", 0.5), ("atan2pi(y, x)", 1.0),
    ("atan2pi(x, y)", -0.0), ("acospi(1)", 0.0), ("fract(-i, &w)", -0.0), ("modf(-i, &w)", -0.0),
    ("maxmag(-3, 2)", -3.0), ("minmag(-3, 2)", 2.0), ("maxmag(n, 2)", 2.0), ("ilogb(y)", -2147483648.0),
    ("ilogb(i)", 2147483647.0), ("ilogb(8)", 3.0), ("sign(x)", -0.0), ("sign(n)", 0.0), ("sign(-i)", -1.0),
    ("acosh(1)", 0.0), ("acosh(0.5)", NAN), ("asinh(x)", -0.0), ("asinh(-i)", -INF), ("cosh(x)", 1.0),
    ("fma(i, y, 1)", NAN), ("hypot(-3, x)", 3.0), ("lgamma(-2)", INF), ("cospi(x)", 1.0), ("tanpi(-1)", 0.0),
    ("tanpi(-0.5)", -INF), ("pow(x, -i)", INF), ("pow(x, 0.5)", 0.0), ("fmax(n, n)", NAN), ("exp10(-i)", 0.0),
    ("sinpi(-0.5)", -1.0), ("cbrt(-27)", -3.0), ("tgamma(5.0)", 24.0), ("remainder(5, 2)", 1.0),
    ("remainder(7, 2)", -1.0), ("fmod(-7, 2)", -1.0), ("nan(0u) != nan(0u)", 1.0),
]


def _kernel(t: str) -> str:
    lines = [f"  O[{k}] = ({t})({expr});" for k, (expr, _) in enumerate(CASES)]
    return ("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
            f"__kernel void e(__global const {t} *V, __global {t} *O) {{\n"
            f"  {t} x = V[0], y = V[1], i = V[2], n = V[3], w;\n" + "\n".join(lines) + "\n}\n")


def _typed_literals(src: str, suffix: str) -> str:
    """Number literals in the case expressions made float (`suffix` "f": 1 -> 1.0f,
    0.5 -> 0.5f) or double ("": 1 -> 1.0), so that overload resolution picks the
    functions of that type (an int argument is ambiguous between them, as in clang);
    indices and ldexp's exponents stay ints."""
    head, body = src.split("w;\n", 1)
    body = re.sub(r"(?<![\w.\[])(\d+\.\d+|\d+)(?![\w.\]])",
                  lambda m: m.group(1) + (suffix if "." in m.group(1) else ".0" + suffix), body)
    return (head + "w;\n" + body.replace(f"100000.0{suffix}", "100000")
            .replace(f"(x, 5.0{suffix})", "(x, 5)"))


@pytest.mark.parametrize("t", ["float", "double"])
def test_edge_cases(run_kernel, t: str) -> None:
    dt = DTYPES[t]
    src = _typed_literals(_kernel(t), "f" if t == "float" else "")
    v = np.array([-0.0, 0.0, INF, NAN], dt)
    out = np.zeros(len(CASES), dt)
    _, out = run_kernel(src, "e", (1,), None, v, out)
    bad = []
    for (expr, want), got in zip(CASES, out.tolist()):
        want = float(np.array(want, dt))
        if math.isnan(want):
            ok = math.isnan(got)
        elif math.isinf(want) or want == 0:
            ok = got == want and math.copysign(1, got) == math.copysign(1, want)
        else:
            ok = abs(got - want) <= 4 * abs(want) * np.finfo(dt).eps
        if not ok:
            bad.append((expr, got, want))
    assert not bad, f"{t}: (expression, got, want) {bad}"
