"""The double builtins of the vectorisable math library (vecmath_double.py).

Each runs as a work-item loop in groups of 60 (LLVM widens it and calls our
vector variant; the remainder calls the C library) and as the explicit
double4 form (our body alone), on special values, random values over the
whole domain and near the reduction's trouble spots, against mpmath at 40
digits, within the spec's bounds (OpenCL C 3.0 section 7.4). The special
functions (vecmath_double_special.py) also run on the arguments their methods
find hardest (`_hard_inputs`) and on the spec's special values, bit for bit."""

from __future__ import annotations

import math
import re
from typing import Callable

import mpmath as mp
import numpy as np
import pytest

from tools.cpu_harness import run
from oclpy.compiler import compile_program
from oclpy.targets.llvm.cpu.cpu_target import CpuProgram

mp.mp.dps = 40
LOCAL = 60
SPECIAL = [0.0, -0.0, math.inf, -math.inf, math.nan, 5e-324, -5e-324, 1e-310, 2.2250738585072014e-308,
           1.0, -1.0, 0.5, 2.0, 709.782712893384, 709.7827128933841, -745.1332191019411,
           -745.1332191019412, -708.4, 1023.9999, -1074.0, -1075.0, 308.2547155599167, -323.3,
           1e-20, 1e300, -1e300, 1.7976931348623157e308, 823549.6, 823550.1, 1e6, 1e22, -3e15,
           math.pi / 2, math.pi, 1.5707963267948966e5, 0.7853981633974483]

# name: (mpmath reference, domain, ulp bound)
CASES: dict[str, tuple[Callable, tuple[float, float], float]] = {
    "exp": (mp.exp, (-746, 710), 3), "exp2": (lambda x: mp.power(2, x), (-1076, 1025), 3),
    "exp10": (lambda x: mp.power(10, x), (-324, 309), 3),
    "log": (mp.log, (0, 1.7e308), 3), "log2": (lambda x: mp.log(x, 2), (0, 1.7e308), 3),
    "log10": (mp.log10, (0, 1.7e308), 3),
    "sin": (mp.sin, (-2e6, 2e6), 4), "cos": (mp.cos, (-2e6, 2e6), 4), "tan": (mp.tan, (-2e6, 2e6), 5),
    "atan": (mp.atan, (-1e300, 1e300), 5), "asin": (mp.asin, (-1, 1), 4), "acos": (mp.acos, (-1, 1), 4),
    "atanpi": (lambda x: mp.atan(x) / mp.pi, (-1e300, 1e300), 5),
    "asinpi": (lambda x: mp.asin(x) / mp.pi, (-1, 1), 5),
    "acospi": (lambda x: mp.acos(x) / mp.pi, (-1, 1), 5),
    "expm1": (mp.expm1, (-50, 710), 3), "log1p": (mp.log1p, (-1, 1.7e308), 2),
    "sinh": (mp.sinh, (-711, 711), 4), "cosh": (mp.cosh, (-711, 711), 4),
    "tanh": (mp.tanh, (-30, 30), 5),
    # vecmath_double_special.py
    "cbrt": (lambda x: mp.sign(x) * mp.cbrt(abs(x)), (-8e307, 8e307), 2),
    "asinh": (mp.asinh, (-8e307, 8e307), 4), "acosh": (mp.acosh, (1, 1.7e308), 4),
    "atanh": (mp.atanh, (-1, 1), 4), "erf": (mp.erf, (-7, 7), 16),
    "erfc": (lambda x: mp.erfc(x) if abs(x) < 1e6 else 1 - mp.sign(x), (-7, 28), 16),  # mpmath overflows
    "sinpi": (mp.sinpi, (-1e15, 1e15), 4), "cospi": (mp.cospi, (-1e15, 1e15), 4),
    "tanpi": (lambda x: _tanpi(x), (-1e15, 1e15), 6),
}
N = 800
SPECIAL_FUNCTIONS = ("cbrt", "asinh", "acosh", "atanh", "erf", "erfc", "sinpi", "cospi", "tanpi")


def _tanpi(x: mp.mpf) -> mp.mpf:
    """tanpi with the spec's infinities at half-integers (+inf for 1/2 + even n)."""
    c = mp.cospi(x)
    return mp.sinpi(x) / c if c != 0 else mp.inf * mp.sinpi(x)


def _hard_inputs(name: str, rng: np.random.Generator) -> list[np.ndarray]:
    """Arguments where the special functions' methods are most likely to lose accuracy."""
    sign = rng.choice([-1.0, 1.0], N)
    half_integers = rng.integers(-1 << 20, 1 << 20, N) / 2.0
    hard = {
        "cbrt": [sign * np.exp(rng.uniform(-744, 709, N)), sign * rng.uniform(0, 1e-310, N)],
        "asinh": [sign * np.exp(rng.uniform(-40, 709, N)), sign * rng.uniform(1.5, 2.5, N)],
        "acosh": [1 + np.exp(rng.uniform(-52 * math.log(2), 0, N)), np.exp(rng.uniform(0, 709, N)),
                  rng.uniform(1.5, 2.5, N)],
        "atanh": [sign * -np.expm1(-np.exp(rng.uniform(-5, 3.6, N))), sign * np.exp(rng.uniform(-700, 0, N)),
                  sign * rng.uniform(0.4, 0.6, N)],
        "erf": [sign * np.exp(rng.uniform(-700, 2, N)), rng.uniform(0.9, 1.1, N)],
        "erfc": [rng.uniform(0, 28, N), rng.uniform(-0.6, 0.6, N), rng.uniform(26, 27.3, N),
                 rng.uniform(0.4, 4, N)],
    }
    if name in ("sinpi", "cospi", "tanpi"):
        offsets = sign * np.exp(rng.uniform(-40, -1.4, N))  # just off a half-integer
        return [half_integers, half_integers + offsets, sign * np.exp(rng.uniform(-700, 0, N)),
                sign * np.exp(rng.uniform(30, 40, N)), rng.uniform(-1, 1, N) * 2.0 ** 52]
    return hard.get(name, [])


def _inputs(name: str) -> np.ndarray:
    lo, hi = CASES[name][1]
    rng = np.random.default_rng(sum(map(ord, name)))
    parts = [np.array(SPECIAL), rng.uniform(lo, hi, N), rng.uniform(-4, 4, N)]
    if name in SPECIAL_FUNCTIONS:
        parts += _hard_inputs(name, rng)
    elif lo >= 0:
        parts.append(np.exp(rng.uniform(-744, 709, N)))
    else:
        k = rng.integers(1, 1 << 19, N).astype(np.float64)  # the doubles nearest k pi/2
        parts.append(np.nextafter(k * (math.pi / 2), rng.choice([-np.inf, np.inf], N)))
    x = np.concatenate(parts)
    return x[:len(x) // LOCAL * LOCAL]


def _source() -> str:
    out = ["#pragma OPENCL EXTENSION cl_khr_fp64 : enable"]
    for name in CASES:
        out.append(f"__kernel void loop_{name}(__global const double *a, __global double *o) "
                   f"{{ size_t i = get_global_id(0); o[i] = {name}(a[i]); }}")
        out.append(f"__kernel void vec4_{name}(__global const double *a, __global double *o) "
                   f"{{ size_t i = get_global_id(0); vstore4({name}(vload4(i, a)), i, o); }}")
    return "\n".join(out)


@pytest.fixture(scope="module")
def program() -> CpuProgram:
    return compile_program(_source()).program


def _run(program: CpuProgram, shape: str, name: str, x: np.ndarray) -> np.ndarray:
    out = np.zeros_like(x)
    size = len(x) if shape == "loop" else len(x) // 4
    run(program.kernels[f"{shape}_{name}"], [x, out], (size,), (LOCAL if shape == "loop" else 1,))
    return out


def ulp_error(got: float, x: float, fn: Callable) -> float:
    """|got - fn(x)| in ulps of the exact value (0 when both are the same special)."""
    if math.isnan(x):
        return 0.0 if math.isnan(got) else math.inf
    try:
        want = fn(mp.mpf(x))
    except (ValueError, ZeroDivisionError):
        want = mp.nan
    if isinstance(want, mp.mpc) or mp.isnan(want):
        return 0.0 if math.isnan(got) else math.inf
    if math.isnan(got):
        return 0.0 if math.isinf(x) and fn in (mp.sin, mp.cos, mp.tan) else math.inf
    rounded = float(want) if abs(want) < mp.mpf("1.7976931348623158e308") else math.copysign(math.inf, want)
    if math.isinf(rounded) or math.isinf(got):
        return 0.0 if got == rounded else math.inf
    ulp = math.ulp(max(abs(float(want)), 2.2250738585072014e-308)) if want != 0 else 5e-324
    return float(abs(mp.mpf(got) - want) / ulp)


@pytest.mark.parametrize("shape", ["loop", "vec4"])
@pytest.mark.parametrize("name", list(CASES))
def test_double_ulp_bound(program: CpuProgram, record_property,  # type: ignore[no-untyped-def]
                          name: str, shape: str) -> None:
    fn, _, bound = CASES[name]
    x = _inputs(name)
    got = _run(program, shape, name, x)
    errs = [ulp_error(g, v, fn) for v, g in zip(x.tolist(), got.tolist())]
    worst = int(np.argmax(errs))
    record_property("max_ulp", errs[worst])
    assert errs[worst] <= bound, f"{name} {shape}: {errs[worst]} ulp at {x[worst]!r} -> {got[worst]!r}"


def test_signed_zeros_and_a_huge_lane() -> None:
    # vstore4 to a double *: a numpy array is not 32-byte aligned as a double4 * needs
    src = ("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n__kernel void z(__global double *o) {"
           " double4 m = (double4)(-0.0, 0.0, -0.0, 1e30);"
           " vstore4(sin(m), 0, o); vstore4(tan(m), 1, o); vstore4(cos(m), 2, o); }")
    out = np.zeros(12)
    run(compile_program(src).program.kernels["z"], [out], (1,), (1,))
    assert [math.copysign(1, v) for v in out[[0, 1, 2, 4, 5, 6]]] == [-1, 1, -1, -1, 1, -1]
    assert out[8] == out[9] == out[10] == 1.0
    assert out[3] == math.sin(1e30) and out[7] == math.tan(1e30) and out[11] == math.cos(1e30)


def test_double_loops_call_our_vector_variants(program: CpuProgram) -> None:
    ir = program.optimized_llvm_ir
    chunks = ir.split("\ndefine ")[1:]
    bodies = {re.match(r'[^@]*@"?([\w.]+)', c).group(1): c for c in chunks}  # type: ignore[union-attr]
    for name in CASES:
        body = bodies[f"loop_{name}.launch"]
        widened = re.search(rf"oclpy\.{name}\.v[248]f64", body) or re.search(r"<[248] x double>", body)
        assert widened, f"{name}: loop not vectorised"
    assert "oclpy.sin.big.f64" in ir  # the slow path of huge lanes


# the spec's special values (OpenCL C 3.0 section 7.5.1), bit for bit: the sign of a zero counts
INF = math.inf
EXACT: dict[str, list[tuple[float, float]]] = {
    "cbrt": [(0.0, 0.0), (-0.0, -0.0), (INF, INF), (-INF, -INF), (math.nan, math.nan), (-8.0, -2.0),
             (27.0, 3.0), (2.0 ** -1071, 2.0 ** -357), (-1e-300, -1e-100), (1e300, 1e100)],
    "asinh": [(0.0, 0.0), (-0.0, -0.0), (INF, INF), (-INF, -INF), (math.nan, math.nan)],
    "acosh": [(1.0, 0.0), (INF, INF), (0.5, math.nan), (-INF, math.nan), (-1.0, math.nan),
              (math.nan, math.nan)],
    "atanh": [(0.0, 0.0), (-0.0, -0.0), (1.0, INF), (-1.0, -INF), (1.5, math.nan), (-INF, math.nan),
              (math.nan, math.nan)],
    "erf": [(0.0, 0.0), (-0.0, -0.0), (INF, 1.0), (-INF, -1.0), (7.0, 1.0), (math.nan, math.nan)],
    "erfc": [(0.0, 1.0), (-0.0, 1.0), (INF, 0.0), (-INF, 2.0), (30.0, 0.0), (-7.0, 2.0),
             (math.nan, math.nan)],
    "sinpi": [(0.0, 0.0), (-0.0, -0.0), (3.0, 0.0), (-3.0, -0.0), (2.0 ** 60, 0.0), (-2.0 ** 60, -0.0),
              (2.0 ** 52 + 1, 0.0), (0.5, 1.0), (-1.5, 1.0), (INF, math.nan), (-INF, math.nan),
              (math.nan, math.nan)],
    "cospi": [(0.0, 1.0), (-0.0, 1.0), (0.5, 0.0), (-0.5, 0.0), (1.5, 0.0), (-2.5, 0.0), (1.0, -1.0),
              (2.0 ** 60, 1.0), (2.0 ** 52 + 1, -1.0), (INF, math.nan), (math.nan, math.nan)],
    "tanpi": [(0.0, 0.0), (-0.0, -0.0), (2.0, 0.0), (-2.0, -0.0), (1.0, -0.0), (-1.0, 0.0),
              (0.5, INF), (2.5, INF), (1.5, -INF), (-0.5, -INF), (-1.5, INF), (0.25, 1.0),
              (-0.75, 1.0), (2.0 ** 60, 0.0), (-2.0 ** 60, -0.0), (2.0 ** 52 + 1, -0.0),
              (INF, math.nan), (math.nan, math.nan)],
}


def _same(got: float, want: float) -> bool:
    if math.isnan(want):
        return math.isnan(got)
    return got == want and math.copysign(1, got) == math.copysign(1, want)


@pytest.mark.parametrize("shape", ["loop", "vec4"])
@pytest.mark.parametrize("name", list(EXACT))
def test_double_special_functions_special_values(program: CpuProgram, name: str, shape: str) -> None:
    x, want = (np.array(v) for v in zip(*EXACT[name]))
    got = _run(program, shape, name, np.resize(x, LOCAL))[:len(x)]
    bad = [(xv, g, w) for xv, g, w in zip(x.tolist(), got.tolist(), want.tolist()) if not _same(g, w)]
    assert not bad, f"{name} {shape}: (x, got, want) {bad}"


# -- pow, powr, pown, rootn -----------------------------------------------------------
POW_SOURCE = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" + "\n".join(
    f"__kernel void {shape}_{name}(__global const double *a, __global const {t} *b, __global double *o)"
    f" {{ size_t i = get_global_id(0); {body} }}"
    for name, t in (("pow", "double"), ("powr", "double"), ("pown", "int"), ("rootn", "int"),
                    ("atan2", "double"), ("atan2pi", "double"), ("hypot", "double"))
    for shape, body in (("loop", f"o[i] = {name}(a[i], b[i]);"),
                        ("vec4", f"vstore4({name}(vload4(i, a), vload4(i, b)), i, o);")))


@pytest.fixture(scope="module")
def pow_program() -> CpuProgram:
    return compile_program(POW_SOURCE).program


def _run2(program: CpuProgram, shape: str, name: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    n = len(x) // (4 * LOCAL) * (4 * LOCAL)
    out = np.zeros(n)
    size = n if shape == "loop" else n // 4
    run(program.kernels[f"{shape}_{name}"], [x[:n].copy(), y[:n].copy(), out], (size,),
        (LOCAL if shape == "loop" else 1,))
    return out


def _pow_operands(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Finite nonzero operands whose result is a finite nonzero double."""
    rng = np.random.default_rng(sum(map(ord, name)))
    n = 4 * LOCAL * 8
    if name.startswith("atan2") or name == "hypot":
        sign = rng.choice([-1.0, 1.0], (2, n))
        return (sign[0] * np.exp(rng.uniform(-300, 300, n)),
                sign[1] * np.exp(rng.uniform(-300, 300, n)) * rng.choice([1, 1e-3, 1e3], n))
    if name in ("pown", "rootn"):
        x = rng.uniform(-30, 30, n) * np.exp2(rng.integers(-20, 20, n))
        m = rng.integers(-60, 61, n).astype(np.int32)
        return x, np.where(m == 0, 3, m).astype(np.int32)
    x = np.concatenate([np.exp(rng.uniform(-700, 700, n // 2)), 1 + rng.uniform(-1e-6, 1e-6, n // 2)])
    lx = np.log(x)
    y = rng.uniform(-1, 1, n) * np.minimum(700 / np.abs(lx), 1e12)  # |y log x| < 700
    return x, y


def _mp_pow(name: str, x: float, y: float) -> object:
    if name == "hypot":
        return mp.hypot(mp.mpf(x), mp.mpf(y))
    if name.startswith("atan2"):
        return mp.atan2(mp.mpf(x), mp.mpf(y)) / (mp.pi if name == "atan2pi" else 1)
    if name == "rootn":
        r = mp.root(abs(mp.mpf(x)), int(y))
        return -r if x < 0 else r  # odd n only reach here with x < 0 (even n: NaN, skipped)
    return mp.power(mp.mpf(x), int(y) if name == "pown" else mp.mpf(y))


TWO_OPERANDS = {"pow": 16, "powr": 16, "pown": 16, "rootn": 16, "atan2": 6, "atan2pi": 6,
                "hypot": 4}


@pytest.mark.parametrize("shape", ["loop", "vec4"])
@pytest.mark.parametrize("name", list(TWO_OPERANDS))
def test_double_pow_family_ulp(pow_program: CpuProgram, record_property, name: str,
                               shape: str) -> None:  # type: ignore[no-untyped-def]
    x, y = _pow_operands(name)
    got = _run2(pow_program, shape, name, x, y)
    worst, at = 0.0, None
    for xv, yv, g in zip(x.tolist(), y.tolist(), got.tolist()):
        if name == "rootn" and xv < 0 and yv % 2 == 0:
            assert math.isnan(g)
            continue
        want = _mp_pow(name, xv, yv)
        err = float(abs(mp.mpf(g) - want) / math.ulp(float(want)))
        if err > worst:
            worst, at = err, (xv, yv, g)
    record_property("max_ulp", worst)
    assert worst <= TWO_OPERANDS[name], f"{name} {shape}: {worst} ulp at {at}"


SPECIALS = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, 1e-310, math.inf, -math.inf,
            math.nan, 1e300, -1e300, 2.0 ** 53, 2.0 ** 53 + 2, 0.75]


def _reference_specials(name: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        r = np.power(x, y.astype(np.float64))
        if name == "powr":  # powr(-0, y) = powr(+0, y)
            r = np.power(np.abs(x), y)
            bad = (x < 0) | ((x == 0) & (y == 0)) | (np.isinf(x) & (y == 0)) | ((x == 1) & np.isinf(y))
            return np.where(bad | np.isnan(x) | np.isnan(y), np.nan, r)
        if name == "hypot":
            return np.hypot(x, y)
        if name.startswith("atan2"):
            return np.arctan2(x, y) / (np.pi if name == "atan2pi" else 1)
        if name == "rootn":
            r = np.abs(x) ** (1.0 / y)
            r = np.where(y % 2 == 1, np.copysign(r, x), np.where(x < 0, np.nan, r))
            return np.where(y == 0, np.nan, r)
        return r


@pytest.mark.parametrize("name", list(TWO_OPERANDS))
def test_double_pow_family_special_operands(pow_program: CpuProgram, name: str) -> None:
    if name in ("pown", "rootn"):
        xs, ys = np.meshgrid(SPECIALS, np.array([0, 1, -1, 2, -2, 3, -3, 7, -8], np.int32))
    else:
        xs, ys = np.meshgrid(SPECIALS, SPECIALS)
    x, y = xs.ravel(), ys.ravel()
    reps = -(-4 * LOCAL // len(x))
    x, y = np.tile(x, reps), np.tile(y, reps)
    want = _reference_specials(name, x, y)
    for shape in ("loop", "vec4"):
        got = _run2(pow_program, shape, name, x, y)
        w = want[:len(got)]
        # accuracy is test_double_pow_family_ulp's business (numpy's rootn is the less exact)
        same = (got == w) | (np.isnan(got) & np.isnan(w)) | np.isclose(got, w, rtol=1e-13, atol=0)
        sign_ok = np.isnan(w) | (np.signbit(got) == np.signbit(w))
        bad = np.flatnonzero(~(same & sign_ok))
        assert not bad.size, f"{name} {shape}: " + ", ".join(
            f"({x[i]!r}, {y[i]!r}) -> {got[i]!r}, want {w[i]!r}" for i in bad[:5])


def test_double_pow_loops_vectorise(pow_program: CpuProgram) -> None:
    """pow: the C library's scalar with our variants; powr, pown, rootn: our body inlined."""
    chunks = pow_program.optimized_llvm_ir.split("\ndefine ")[1:]
    bodies = {re.match(r'[^@]*@"?([\w.]+)', c).group(1): c for c in chunks}  # type: ignore[union-attr]
    assert re.search(r"oclpy\.pow\.v[248]f64", bodies["loop_pow.launch"])
    for name in ("powr", "pown", "rootn"):
        assert re.search(r"<[248] x double>", bodies[f"loop_{name}.launch"]), name
