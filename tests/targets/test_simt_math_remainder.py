"""fmod, remainder and remquo on simt (`math_remainder.py`) are exact for every pair of
operands, whatever the quotient: operands spread over the whole exponent range (huge
over subnormal included) against Python's fmod and remainder, ties to even, C99's
specials, and remquo's quotient bits from exact rational arithmetic."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from tests.targets.simt_cl_harness import run_cl
from tests.targets.test_simt_math import run

DTYPES = {"float": np.float32, "double": np.float64}


def spread(dt: type, n: int = 192, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Pairs whose exponents are uniform over the type's range, subnormals included, and
    the widest gaps: max over the smallest subnormal."""
    rng = np.random.default_rng(seed)
    info = np.finfo(dt)
    low = info.minexp - info.nmant
    x = np.ldexp(rng.uniform(1, 2, n), rng.integers(low, info.maxexp, n)) * rng.choice([-1, 1], n)
    y = np.ldexp(rng.uniform(1, 2, n), rng.integers(low, info.maxexp, n)) * rng.choice([-1, 1], n)
    tiny = float(info.smallest_subnormal)
    x[:6] = [float(info.max), -float(info.max), tiny * 3, 7, -7, 5]
    y[:6] = [tiny, tiny * 3, tiny, 2, 2, float(info.max)]
    return x.astype(dt), y.astype(dt)


def same_bits(got: np.ndarray, want: np.ndarray) -> None:
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("ty", ["float", "double"])
@pytest.mark.parametrize("name, f", [("fmod", math.fmod), ("remainder", math.remainder)])
def test_exact_over_the_whole_exponent_range(name: str, f, ty: str) -> None:  # type: ignore[no-untyped-def]
    dt = DTYPES[ty]
    x, y = spread(dt)
    want = np.array([f(float(a), float(b)) for a, b in zip(x, y)]).astype(dt)
    same_bits(run(name, ty, x, y), want)


@pytest.mark.parametrize("ty", ["float", "double"])
def test_remainder_ties_go_to_the_even_quotient(ty: str) -> None:
    dt = DTYPES[ty]
    x = np.array([5, 7, 2.5, 3.5, -2.5, -3.5, 0.5, 1.5, 6, -6, 1e30 + 0, 3 * 2.0 ** 100], dt)
    y = np.array([2, 2, 1, 1, 1, 1, 1, 1, 4, 4, 2.0 ** 90, 2.0 ** 101], dt)
    want = np.array([math.remainder(float(a), float(b)) for a, b in zip(x, y)]).astype(dt)
    same_bits(run("remainder", ty, x, y), want)


@pytest.mark.parametrize("ty", ["float", "double"])
def test_special_operands(ty: str) -> None:
    dt = DTYPES[ty]
    inf, nan = np.inf, np.nan
    x = np.array([inf, -inf, 1.0, nan, 1.0, 5.0, -5.0, 0.0, -0.0, -4.0, 4.0, 1.0], dt)
    y = np.array([1.0, 2.0, 0.0, 1.0, nan, inf, -inf, 3.0, 3.0, 2.0, -2.0, -0.0], dt)
    with np.errstate(invalid="ignore"):
        fm = np.fmod(x, y)
    same_bits(run("fmod", ty, x, y)[~np.isnan(fm)], fm[~np.isnan(fm)])
    assert np.isnan(run("fmod", ty, x, y)[np.isnan(fm)]).all()
    rem = np.array([math.remainder(float(a), float(b)) if math.isfinite(a) and b != 0 and not math.isnan(b)
                    else math.nan for a, b in zip(x, y)], dt)
    got = run("remainder", ty, x, y)
    same_bits(got[~np.isnan(rem)], rem[~np.isnan(rem)])
    assert np.isnan(got[np.isnan(rem)]).all()


def quo_bits(x: float, y: float) -> int:
    """remquo's quotient: the sign of x/y and the low 3 bits of |n|, n the quotient rounded to even."""
    q = Fraction(x) / Fraction(y)
    n = round(q)  # Fraction's round is half to even
    return abs(n) % 8 * (-1 if q < 0 else 1)


@pytest.mark.parametrize("ty", ["float", "double"])
def test_remquo_with_huge_quotients(ty: str) -> None:
    dt = DTYPES[ty]
    x, y = spread(dt, 64, seed=5)
    src = (f"#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
           f"kernel void k(global const {ty} *x, global const {ty} *y, global {ty} *r, global int *q) {{"
           f" int i = get_global_id(0); int e; r[i] = remquo(x[i], y[i], &e); q[i] = e; }}")
    out, _ = run_cl(src, "k", [x, y, np.zeros(64, dt), np.zeros(64, np.int32)], (64,), (64,), 2)
    want_r = np.array([math.remainder(float(a), float(b)) for a, b in zip(x, y)]).astype(dt)
    same_bits(out[2], want_r)
    np.testing.assert_array_equal(out[3], [quo_bits(float(a), float(b)) for a, b in zip(x, y)])
