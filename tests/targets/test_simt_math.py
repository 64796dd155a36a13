"""The math functions simt expands into double formulas (`math_formulas.py` and its
neighbours), run on the simulator for float and double against NumPy (float: the double
result rounded once; double: NumPy's own, itself within about an ulp) or mpmath where
NumPy has no function, within OpenCL's ulp bounds, and their special operands (zeros,
infinities, NaN, negative bases) as C99 has them."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from tests.targets.simt_cl_harness import run_cl

N = 128
RNG = np.random.default_rng(7)


def run(fn: str, ty: str, *args: np.ndarray) -> np.ndarray:
    params = ", ".join(f"global const {'int' if a.dtype == np.int32 else ty} *a{i}" for i, a in enumerate(args))
    call = ", ".join(f"a{i}[i]" for i in range(len(args)))
    src = f"kernel void k({params}, global {ty} *o) {{ int i = get_global_id(0); o[i] = {fn}({call}); }}"
    dt = np.float32 if ty == "float" else np.float64
    out, _ = run_cl(src, "k", [*args, np.zeros(len(args[0]), dt)], (len(args[0]),), (min(64, len(args[0])),), 2)
    return out[-1]


def max_ulps(got: np.ndarray, ref: np.ndarray, dt: type) -> float:
    """The largest error in ulps of `dt` at the reference; NaN and infinity must match exactly."""
    ref = np.asarray(ref, np.float64)
    special = ~np.isfinite(ref) | ~np.isfinite(got)
    np.testing.assert_array_equal(got[special], ref[special].astype(dt))
    r = ref[~special]
    ulp = np.spacing(np.abs(r).astype(dt)).astype(np.float64)
    return float(np.max(np.abs(got[~special].astype(np.float64) - r) / ulp, initial=0.0))


def mpmath_ref(f, x: np.ndarray) -> np.ndarray:  # type: ignore[no-untyped-def]
    """f at 40 digits, rounded to double (x has no poles)."""
    with mpmath.workdps(40):
        return np.array([float(f(mpmath.mpf(float(v)))) for v in x])


def pown_ref(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    return np.array([math.pow(a, int(b)) if a or b >= 0 else math.copysign(math.inf, a) ** (b % 2 or 2)
                     for a, b in zip(x.astype(float), n)])


def rootn_ref(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    return np.array([math.nan if b == 0 or (a < 0 and b % 2 == 0) else math.copysign(abs(a) ** (1 / b), a)
                     for a, b in zip(x.astype(np.float64), n)])


UNARY = [  # name, NumPy reference, inputs, ulp bound (float, double)
    ("cbrt", np.cbrt, lambda: RNG.standard_normal(N) * 100, (2, 2)),
    ("tan", np.tan, lambda: RNG.uniform(-20, 20, N), (5, 5)),
    ("asin", np.arcsin, lambda: RNG.uniform(-1, 1, N), (4, 4)),
    ("acos", np.arccos, lambda: RNG.uniform(-1, 1, N), (4, 4)),
    ("atan", np.arctan, lambda: RNG.standard_normal(N) * 10, (5, 5)),
    ("sinh", np.sinh, lambda: RNG.uniform(-30, 30, N), (4, 4)),
    ("cosh", np.cosh, lambda: RNG.uniform(-30, 30, N), (4, 4)),
    ("tanh", np.tanh, lambda: RNG.uniform(-5, 5, N), (5, 5)),
    ("asinh", np.arcsinh, lambda: RNG.standard_normal(N) * 100, (4, 4)),
    ("acosh", np.arccosh, lambda: RNG.uniform(1, 100, N), (4, 4)),
    ("atanh", np.arctanh, lambda: RNG.uniform(-1, 1, N), (5, 5)),
    ("expm1", np.expm1, lambda: RNG.uniform(-5, 5, N), (3, 3)),
    ("log1p", np.log1p, lambda: RNG.uniform(-0.9, 5, N), (2, 2)),
    ("exp", np.exp, lambda: RNG.uniform(-80, 80, N), (3, 3)),
    ("log", np.log, lambda: RNG.uniform(0, 1e5, N), (3, 3)),
    ("log2", np.log2, lambda: RNG.uniform(0, 1e5, N), (3, 3)),
    ("exp2", np.exp2, lambda: RNG.uniform(-100, 100, N), (3, 3)),
    ("sin", np.sin, lambda: RNG.uniform(-100, 100, N), (4, 4)),
    ("cos", np.cos, lambda: RNG.uniform(-100, 100, N), (4, 4)),
    ("sinpi", lambda x: np.sin(np.pi * np.mod(x, 2.0)), lambda: RNG.uniform(-0.99, 0.99, N), (4, None)),
    ("erf", lambda x: np.vectorize(math.erf)(x), lambda: RNG.uniform(-4, 4, N), (16, 16)),
    ("erfc", lambda x: np.vectorize(math.erfc)(x), lambda: RNG.uniform(-4, 9, N), (16, 16)),
    ("tgamma", lambda x: mpmath_ref(mpmath.gamma, x), lambda: RNG.uniform(-10, 30, N), (16, 16)),
    ("lgamma", lambda x: mpmath_ref(lambda v: mpmath.log(abs(mpmath.gamma(v))), x), lambda: RNG.uniform(-10, 30, N),
     (16, 16)),
    ("logb", lambda x: np.where(x == 0, -np.inf, np.floor(np.log2(np.abs(x)))),
     lambda: np.concatenate([RNG.standard_normal(N - 4) * 1e5, [0.0, 1e-40, np.inf, 2.0 ** -1074]]), (0, 0)),
    ("round", lambda x: np.trunc(x + np.copysign(0.5, x) * (np.abs(x - np.trunc(x)) >= 0.5) * 2),
     lambda: np.concatenate([RNG.standard_normal(N - 4) * 5, [0.5, -2.5, 1.5, 0.49999997]]), (0, 0)),
]

BINARY = [
    ("pow", np.power, lambda: RNG.uniform(0, 10, N), lambda: RNG.uniform(-30, 30, N), (16, 16)),
    ("powr", np.power, lambda: RNG.uniform(0, 10, N), lambda: RNG.uniform(-30, 30, N), (16, 16)),
    ("pown", pown_ref, lambda: RNG.uniform(-10, 10, N), lambda: RNG.integers(-20, 20, N, dtype=np.int32), (16, 16)),
    ("rootn", rootn_ref, lambda: RNG.uniform(-100, 100, N), lambda: RNG.integers(-7, 7, N, dtype=np.int32),
     (16, 16)),
    ("atan2", np.arctan2, lambda: RNG.standard_normal(N), lambda: RNG.standard_normal(N), (6, 6)),
    ("hypot", np.hypot, lambda: RNG.standard_normal(N) * 1e3, lambda: RNG.standard_normal(N), (4, 4)),
    ("fmod", np.fmod, lambda: RNG.standard_normal(N) * 1e4, lambda: RNG.standard_normal(N), (0, 0)),
    ("remainder", lambda x, y: np.vectorize(math.remainder)(x, y), lambda: RNG.standard_normal(N) * 1e4,
     lambda: RNG.standard_normal(N), (0, 0)),
    ("fdim", lambda x, y: np.maximum(x - y, 0), lambda: RNG.standard_normal(N), lambda: RNG.standard_normal(N),
     (0, 0)),
]


def reference(f, dt: type, *args: np.ndarray) -> np.ndarray:  # type: ignore[no-untyped-def]
    wide = [a.astype(np.float64) if a.dtype != np.int32 else a for a in args]
    with np.errstate(all="ignore"):
        r = np.asarray(f(*wide), np.float64)
    with np.errstate(over="ignore"):
        return r.astype(dt).astype(np.float64) if dt == np.float32 else r


@pytest.mark.parametrize("ty", ["float", "double"])
@pytest.mark.parametrize("name, f, gen, bounds", UNARY, ids=[u[0] for u in UNARY])
def test_unary(name, f, gen, bounds, ty) -> None:  # type: ignore[no-untyped-def]
    bound = bounds[ty == "double"]
    if bound is None:
        pytest.skip(f"{name} on double: no double reference in NumPy")
    dt = np.float32 if ty == "float" else np.float64
    x = gen().astype(dt)
    assert max_ulps(run(name, ty, x), reference(f, dt, x), dt) <= max(bound, 0.5 if dt == np.float32 else 1)


@pytest.mark.parametrize("ty", ["float", "double"])
@pytest.mark.parametrize("name, f, gx, gy, bounds", BINARY, ids=[b[0] for b in BINARY])
def test_binary(name, f, gx, gy, bounds, ty) -> None:  # type: ignore[no-untyped-def]
    dt = np.float32 if ty == "float" else np.float64
    x = gx().astype(dt)
    y = gy()
    y = y if y.dtype == np.int32 else y.astype(dt)
    assert max_ulps(run(name, ty, x, y), reference(f, dt, x, y), dt) <= max(bounds[ty == "double"], 0.5)


@pytest.mark.parametrize("ty", ["float", "double"])
def test_pow_special_operands(ty: str) -> None:
    dt = np.float32 if ty == "float" else np.float64
    inf, nan = np.inf, np.nan
    pairs = [(-2, 3), (-2, 2), (-2, 0.5), (0, -1), (-0.0, -3), (-0.0, 3), (0, 2), (1, nan), (nan, 0), (inf, -1),
             (-inf, 3), (-inf, 2), (0.5, inf), (2, inf), (-1, inf), (2, -inf), (nan, 1), (-8, 1 / 3), (3, -2)]
    x = np.array([p[0] for p in pairs], dt)
    y = np.array([p[1] for p in pairs], dt)
    got = run("pow", ty, x, y)
    with np.errstate(all="ignore"):
        ref = np.power(x, y)
    np.testing.assert_array_equal(got, ref)
    number = ~np.isnan(ref)
    np.testing.assert_array_equal(np.signbit(got[number]), np.signbit(ref[number]))


@pytest.mark.parametrize("ty", ["float", "double"])
def test_specials_of_unary_functions(ty: str) -> None:
    dt = np.float32 if ty == "float" else np.float64
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.0], dt)
    with np.errstate(all="ignore"):
        for name, f in (("cbrt", np.cbrt), ("atan", np.arctan), ("asin", np.arcsin), ("tanh", np.tanh),
                        ("sinh", np.sinh), ("expm1", np.expm1), ("log1p", np.log1p), ("tan", np.tan)):
            got, ref = run(name, ty, x), f(x)
            np.testing.assert_allclose(got, ref, rtol=4e-16 if ty == "double" else 3e-7, err_msg=name)
            np.testing.assert_array_equal(np.signbit(got[:2]), np.signbit(ref[:2]), err_msg=name)


def test_gamma_poles_and_half_integers() -> None:
    x = np.array([-0.5, -1.5, 0.0, -0.0, -1.0, -3.0, 1.0, 2.0, 0.5, 5.0], np.float32)
    with np.errstate(all="ignore"):
        expected = np.array([math.gamma(v) if not (v <= 0 and v == int(v)) else math.nan for v in x.astype(float)])
    expected[2:4] = [math.inf, -math.inf]
    np.testing.assert_allclose(run("tgamma", "float", x), expected.astype(np.float32), rtol=2e-7)
    lg = run("lgamma", "float", x)
    np.testing.assert_array_equal(lg[2:6], np.float32(math.inf))
    np.testing.assert_array_equal(lg[6:8], np.float32(0.0))


def test_float_fmod_through_frem_and_the_cpu_agree() -> None:
    x = (RNG.standard_normal(N) * 1e4).astype(np.float32)
    y = RNG.standard_normal(N).astype(np.float32)
    np.testing.assert_array_equal(run("fmod", "float", x, y), np.fmod(x, y))


@pytest.mark.parametrize("ty", ["float", "double"])
def test_nextafter_in_the_operands_precision(ty: str) -> None:
    dt = np.float32 if ty == "float" else np.float64
    x = np.concatenate([RNG.standard_normal(N - 8), [0, -0.0, 1, np.nan, np.inf, -1, 5, 0]]).astype(dt)
    y = np.concatenate([RNG.standard_normal(N - 8), [1, -1, 1, 0, 0, np.inf, np.nan, -0.0]]).astype(dt)
    got, ref = run("nextafter", ty, x, y), np.nextafter(x, y)
    np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(np.signbit(got[~np.isnan(ref)]), np.signbit(ref[~np.isnan(ref)]))


@pytest.mark.parametrize("name,base", [("exp", math.e), ("exp10", 10.0)])
def test_float_exp_of_infinities_nan_and_overflow(name: str, base: float) -> None:
    """The spec's edge cases (7.5): exp(inf) = inf, exp(-inf) = 0, NaN stays NaN, and results
    past float's range overflow to inf or underflow to 0 (the scaled argument is clamped
    before it is split, so an infinity never makes inf - inf)."""
    x = np.array([np.inf, -np.inf, np.nan, 89.0, -104.0, 1e30, -1e30, 200.0], np.float32)
    got = run(name, "float", x)
    with np.errstate(over="ignore", under="ignore"):
        want = np.power(np.float64(base), x.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("ty", ["float", "double"])
def test_powr_special_values_follow_the_spec(ty: str) -> None:
    """OpenCL 7.5.1: powr(0, 0), powr(inf, 0), powr(1, +-inf), powr(x < 0, y) are NaN;
    powr(1, finite y) is 1 and powr(x > 0, 0) is 1."""
    dt = np.float32 if ty == "float" else np.float64
    x = np.array([0.0, -0.0, np.inf, 1.0, 1.0, -2.0, 1.0, 5.0, 0.0], dt)
    y = np.array([0.0, -0.0, 0.0, np.inf, -np.inf, 2.0, 7.5, 0.0, 2.0], dt)
    got = run("powr", ty, x, y)
    want = np.array([np.nan] * 6 + [1.0, 1.0, 0.0], dt)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("ty", ["float", "double"])
def test_log1p_within_an_ulp_far_from_zero(ty: str) -> None:
    """log(u) + c/u with u + c = 1 + x exactly: large arguments (where the spec suite's
    [1, 60] measured 2.25 ulp with log(u) x / (u - 1)) as accurate as small ones."""
    dt = np.float32 if ty == "float" else np.float64
    x = np.concatenate([RNG.uniform(1, 60, N // 2), RNG.uniform(-0.99, 0.99, N // 4),
                        10.0 ** RNG.uniform(5, 37, N // 4)]).astype(dt)
    ref = mpmath_ref(mpmath.log1p, x)
    assert max_ulps(run("log1p", ty, x), reference(lambda v: ref, dt, x), dt) <= 1
