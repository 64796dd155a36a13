"""OpenCL C 6.15.2 math functions at special values (section 7.5.1 edge cases:
±0, ±inf, NaN, denormals, large trig arguments) and the functions with an
output pointer (fract, modf, frexp, sincos, remquo, lgamma_r) at every width."""

from __future__ import annotations

import math

import numpy as np
import pytest

from .elementwise import DTYPES, WIDTHS
from .harness import ulp_error
from .mathref import mp, reference

SPECIAL = [0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, 0.5, -2.5, 3.75, 7.0, -7.0, 5e-324, -1e-310,
           1e-40, -1e-42, 1e30, -1e30, 1e10, 123456.75, -0.25, 2.0 ** -126]

# name: (OpenCL expression on x, reference on a Python float, bound in ulp)
UNARY = {
    "sqrt": ("sqrt(x)", lambda v: math.sqrt(v) if v >= 0 or math.isnan(v) else math.nan, 3),
    "exp": ("exp(x)", lambda v: _mp(mp.exp, v), 3),
    "log": ("log(x)", lambda v: -math.inf if v == 0 else math.nan if v < 0 else _mp(mp.log, v), 3),
    "sin": ("sin(x)", lambda v: math.nan if math.isinf(v) else v if v == 0 else _mp(mp.sin, v), 4),
    "cos": ("cos(x)", lambda v: math.nan if math.isinf(v) else _mp(mp.cos, v), 4),
    "tan": ("tan(x)", lambda v: math.nan if math.isinf(v) else v if v == 0 else _mp(mp.tan, v), 5),
    "atan": ("atan(x)", lambda v: v if v == 0 else _mp(mp.atan, v), 5),
    "floor": ("floor(x)", lambda v: v if not math.isfinite(v) or v == 0 else float(math.floor(v)) or math.copysign(0.0, v), 0),
    "ceil": ("ceil(x)", lambda v: v if not math.isfinite(v) else math.copysign(float(math.ceil(v)), v), 0),
    "trunc": ("trunc(x)", lambda v: v if not math.isfinite(v) else math.copysign(float(math.trunc(v)), v), 0),
    "round": ("round(x)", lambda v: v if not math.isfinite(v) else math.copysign(float(math.floor(abs(v) + 0.5)), v), 0),
    "rint": ("rint(x)", lambda v: v if not math.isfinite(v) else math.copysign(float(round(v)), v), 0),
    "fabs": ("fabs(x)", abs, 0),
    "fmin": ("fmin(x, 1.0f)", lambda v: 1.0 if math.isnan(v) else min(v, 1.0), 0),
    "fmax": ("fmax(x, 1.0f)", lambda v: 1.0 if math.isnan(v) else max(v, 1.0), 0),
    "pow_neg1": ("pow(x, -1.0f)", lambda v: math.nan if math.isnan(v) else math.copysign(math.inf, v) if v == 0 else 1 / v, 16),
    "pow_0": ("pow(x, 0.0f)", lambda v: 1.0, 16),
    "rsqrt": ("rsqrt(x)", lambda v: math.copysign(math.inf, v) if v == 0 else math.nan if v < 0 or math.isnan(v) else 0.0 if math.isinf(v) else _mp(lambda t: 1 / mp.sqrt(t), v), 2),
    "cbrt": ("cbrt(x)", lambda v: v if not math.isfinite(v) or v == 0 else math.copysign(_mp(mp.cbrt, abs(v)), v), 2),
    "logb": ("logb(x)", lambda v: -math.inf if v == 0 else abs(v) if not math.isfinite(v) else float(math.frexp(v)[1] - 1), 0),
}


def _mp(fn, v: float) -> float:
    r = fn(mp.mpf(v))
    return float(r)


def _classify_equal(got: float, want: float) -> bool:
    if math.isnan(want) or math.isnan(got):
        return math.isnan(want) and math.isnan(got)
    if want == 0 or math.isinf(want):
        return got == want and math.copysign(1, got) == math.copysign(1, want)
    return True


def _special_kernel(t: str) -> str:
    lines = [f"  out[i * {len(UNARY)} + {k}] = {expr.replace('1.0f', '(' + t + ')1.0').replace('0.0f', '(' + t + ')0.0')};"
             for k, (expr, _, _) in enumerate(UNARY.values())]
    return (f"__kernel void sp(__global const {t} *X, __global {t} *out) {{\n  size_t i = get_global_id(0);\n"
            f"  {t} x = X[i];\n" + "\n".join(lines) + "\n}\n")


@pytest.mark.parametrize("t", ["float", "double"])
def test_special_values(run_kernel, t: str) -> None:
    dt = DTYPES[t]
    xs = np.array(SPECIAL, dtype=dt)
    out = np.zeros(len(xs) * len(UNARY), dt)
    (_, out) = run_kernel(_special_kernel(t), "sp", (len(xs),), None, xs, out)
    out = out.reshape(len(xs), len(UNARY))
    bad = []
    for k, (name, (_, ref, bound)) in enumerate(UNARY.items()):
        for x, got in zip(xs.tolist(), out[:, k].tolist()):
            if t == "float" and x != 0 and abs(x) < 2.0 ** -126:
                continue  # single-precision denormals may be flushed (CL_FP_DENORM is optional)
            want = float(np.array(ref(x), dtype=dt))
            ok = _classify_equal(got, want)
            if ok and math.isfinite(want) and want != 0:
                ok = float(ulp_error(np.array([got]), np.array([ref(x)]), dt)[0]) <= max(bound, 0.5)
            if not ok:
                bad.append((name, x, got, want))
    assert not bad, f"(function, x, got, want): {bad}"


def _pointer_kernel(t: str, n: int) -> str:
    """The pointer-output functions on `t` values n wide, each work-item on its own elements
    (a kernel per width: widths sharing the output regions would race between work-items)."""
    vt, it = (t, "int") if n == 1 else (f"{t}{n}", f"int{n}")
    ld = "X[i]" if n == 1 else f"vload{n}(i, X)"
    st = (lambda v, p: f"{p}[i] = {v};") if n == 1 else (lambda v, p: f"vstore{n}({v}, i, {p});")
    o = lambda k: f"F + {k * 8 * 16}"  # noqa: E731
    q = lambda k: f"I + {k * 8 * 16}"  # noqa: E731
    block = f"""  {{
    {vt} x = {ld}, w, c; {it} e;
    {st(f"fract(x, &w)", f"({o(0)})")} {st("w", f"({o(1)})")}
    {st(f"modf(x, &w)", f"({o(2)})")} {st("w", f"({o(3)})")}
    {st(f"frexp(x, &e)", f"({o(4)})")} {st("e", f"({q(0)})")}
    {st(f"sincos(x, &c)", f"({o(5)})")} {st("c", f"({o(6)})")}
    {st(f"remquo(x, ({vt})1.25, &e)", f"({o(7)})")} {st("e", f"({q(1)})")}
    {st(f"lgamma_r(x, &e)", f"({o(8)})")} {st("e", f"({q(2)})")}
    {st("ilogb(x)", f"({q(3)})")}
  }}"""
    return (f"__kernel void pm(__global const {t} *X, __global {t} *F, __global int *I, int n) {{\n"
            f"  size_t i = get_global_id(0);\n" + block + "\n}\n")


def _pointer_refs(x: float, dt) -> dict[str, object]:
    fin = math.isfinite(x)
    fl = float(np.floor(x))
    fr = (x if x == 0 else min(x - fl, 1.0 - float(np.finfo(dt).epsneg))) if fin else (math.copysign(0.0, x) if math.isinf(x) else x)
    mfrac, mint = math.modf(x) if not math.isnan(x) else (x, x)
    m, e = math.frexp(x) if fin else (x, 0)
    r = math.remainder(x, 1.25) if fin else math.nan
    k = round((x - r) / 1.25) if fin else 0
    lg_sign = 0 if not fin else 1 if x > 0 or math.floor(x) % 2 == 0 else -1
    ilogb = (-(1 << 31) if x == 0 or math.isnan(x) else (1 << 31) - 1) if not fin or x == 0 else math.frexp(x)[1] - 1
    return {"fract": (fr, float(fl)), "modf": (mfrac, mint), "frexp": (m, e), "remquo": (r, k),
            "lgamma_sign": lg_sign, "ilogb": ilogb}


@pytest.mark.parametrize("t", ["float", "double"])
def test_pointer_output_functions(run_kernel, t: str) -> None:
    dt = DTYPES[t]
    rng = np.random.default_rng(3)
    vals = SPECIAL[:12] + [3.25, -3.75, 2.5, -0.625] + ([5e-324, -1e-310, 2.0 ** -1022] if t == "double" else [])
    xs = np.concatenate([np.array(vals, dt), rng.uniform(-30, 30, 128 - len(vals)).astype(dt)])
    if t == "float":  # single-precision denormals may be flushed (CL_FP_DENORM is optional)
        xs = xs[[i for i, v in enumerate(xs) if not (0 < abs(v) < 2.0 ** -126)]][:128]
    xs = np.resize(xs, 128)
    for n in WIDTHS:
        F = np.zeros(9 * 128, dt)
        I = np.zeros(4 * 128, np.int32)
        _, F, I = run_kernel(_pointer_kernel(t, n), "pm", (8,), None, xs, F, I, np.int32(0))
        F, I = F.reshape(9, 128), I.reshape(4, 128)
        _check_pointer_results(xs[:8 * n], F[:, :8 * n], I[:, :8 * n], dt, f"{t}{n}")


def _check_pointer_results(xs, F, I, dt, label: str) -> None:
    bad = []
    for j, x in enumerate(xs.tolist()):
        ref = _pointer_refs(x, dt)
        pairs = [("fract", F[0, j], ref["fract"][0]), ("fract.iptr", F[1, j], ref["fract"][1]),
                 ("modf", F[2, j], ref["modf"][0]), ("modf.iptr", F[3, j], ref["modf"][1]),
                 ("frexp", F[4, j], ref["frexp"][0]), ("remquo", F[7, j], ref["remquo"][0])]
        for name, got, want in pairs:
            want = float(np.array(want, dt))
            if not (got == want and math.copysign(1, got) == math.copysign(1, want)) and not (math.isnan(got) and math.isnan(want)):
                bad.append((name, x, float(got), want))
        if I[0, j] != ref["frexp"][1]:
            bad.append(("frexp.exp", x, int(I[0, j]), ref["frexp"][1]))
        k = ref["remquo"][1]
        quo = int(I[1, j])  # sign of x/y, magnitude congruent to |k| modulo 2^n, n >= 3
        if math.isfinite(x) and (abs(quo) % 8 != abs(k) % 8 or (quo != 0 and (quo < 0) != (k < 0))):
            bad.append(("remquo.quo", x, int(I[1, j]), k))
        if math.isfinite(x) and not (x <= 0 and x == math.floor(x)) and I[2, j] != ref["lgamma_sign"]:
            bad.append(("lgamma_r.sign", x, int(I[2, j]), ref["lgamma_sign"]))
        if I[3, j] != ref["ilogb"]:
            bad.append(("ilogb", x, int(I[3, j]), ref["ilogb"]))
        if math.isfinite(x):
            s, c = reference(mp.sin, np.array([x])), reference(mp.cos, np.array([x]))
            if ulp_error(np.array([F[5, j]]), s, dt)[0] > 4 or ulp_error(np.array([F[6, j]]), c, dt)[0] > 4:
                bad.append(("sincos", x, (float(F[5, j]), float(F[6, j])), (float(s[0]), float(c[0]))))
    assert not bad, f"{label}: (function, x, got, want) {bad[:6]}"


@pytest.mark.parametrize("t,ut", [("float", "uint"), ("double", "ulong")])
def test_nan_with_payload(run_kernel, t: str, ut: str) -> None:
    """nan(nancode): a quiet NaN; the code goes in the low significand bits."""
    src = ("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
           f"__kernel void k(__global const {ut} *C, __global {t} *O) {{\n"
           f"  size_t i = get_global_id(0);\n  O[i] = nan(C[i]);\n"
           f"  if (i == 0) vstore4(nan(vload4(0, C)), 0, O + 8);\n}}\n")
    udt = DTYPES[ut]
    codes = np.array([0, 1, 5, 0x1234, 0, 1, 5, 0x1234], dtype=udt)
    out = np.zeros(12, DTYPES[t])
    _, out = run_kernel(src, "k", (8,), None, codes, out)
    bits = out.view(udt)
    mant = 23 if t == "float" else 52
    quiet = np.array(1 << (mant - 1), dtype=udt)
    assert np.isnan(out).all()
    assert ((bits & quiet) != 0).all(), "quiet NaN"
    assert ((bits[:8] & np.array((1 << (mant - 1)) - 1, dtype=udt)) == codes).all(), "payload kept"
