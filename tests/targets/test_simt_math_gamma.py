"""tgamma and lgamma on simt (`math_gamma.py`) for float and double against mpmath at 40
digits: within OpenCL's 16 ulp on every piece (the recurrence near the origin, Stirling's
series above 10, the reflection below -20), C99's specials, and the series coefficients
recomputed from their definitions."""

from __future__ import annotations

from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

from oclpy.targets.simt import math_gamma
from tests.targets.test_simt_math import run

mp.mp.dps = 40
RNG = np.random.default_rng(11)
PIECES = {  # where each piece of the formula applies, for both functions
    "reflection": (-171.0, -20.0), "recurrence_down": (-20.0, 1.5), "recurrence_up": (1.5, 10.0),
    "stirling": (10.0, 171.0),
}


def ulps(got: np.ndarray, x: np.ndarray, f, dt: type) -> np.ndarray:  # type: ignore[no-untyped-def]
    """|got - f(x)| in ulps of `dt` at the reference."""
    out = []
    for g, v in zip(got.astype(np.float64), x.astype(np.float64)):
        r = f(mp.mpf(float(v)))
        spacing = np.spacing(np.abs(dt(float(r)))).astype(np.float64)
        out.append(float(abs(mp.mpf(float(g)) - r) / mp.mpf(float(spacing))))
    return np.array(out)


def lgamma_ref(x):  # type: ignore[no-untyped-def]
    return mp.log(abs(mp.gamma(x)))


@pytest.mark.parametrize("ty", ["float", "double"])
@pytest.mark.parametrize("piece", list(PIECES))
@pytest.mark.parametrize("name, f", [("tgamma", mp.gamma), ("lgamma", lgamma_ref)])
def test_within_the_spec_bound(name, f, piece: str, ty: str) -> None:  # type: ignore[no-untyped-def]
    dt = np.float32 if ty == "float" else np.float64
    lo, hi = PIECES[piece]
    if ty == "float" and name == "tgamma":
        lo, hi = max(lo, -40.0), min(hi, 34.0)  # float's range
    x = RNG.uniform(lo, hi, 64).astype(dt)
    x = np.where(x == np.trunc(x), x + dt(0.25), x).astype(dt)  # no poles
    err = ulps(run(name, ty, x), x, f, dt)
    assert err.max() <= 16, f"{name}({ty}) on {piece}: {err.max():.2f} ulp at {x[err.argmax()]!r}"


def test_double_accuracy_is_a_few_ulp() -> None:
    """The measured worst case is below 3 ulp; hold it under 4 (a regression in a piece's
    precision, such as an ordinary log in Stirling's main part, gives 8 and more)."""
    x = np.concatenate([RNG.uniform(-170, 170, 128), [170.5, -170.5, 9.999, 10.0, -20.0 - 2 ** -40,
                                                      0.5, 1.5, 2.5, 1e-300, 171.5]])
    x = np.concatenate([x, np.full(-len(x) % 64, 3.5)])
    assert ulps(run("tgamma", "double", x), x, mp.gamma, np.float64).max() < 4
    y = np.concatenate([RNG.uniform(1, 60, 120), [1.0 + 2 ** -30, 2.0 - 2 ** -30, 2.0 + 2 ** -20, 1.25,
                                                   1e10, 1e300, 0.75, 3.0]])
    assert ulps(run("lgamma", "double", y), y, lgamma_ref, np.float64).max() < 4


@pytest.mark.parametrize("ty", ["float", "double"])
def test_special_operands(ty: str) -> None:
    dt = np.float32 if ty == "float" else np.float64
    inf, nan = np.inf, np.nan
    x = np.array([0.0, -0.0, inf, -inf, nan, -1.0, -2.0, -1e30, 1.0, 2.0, 200.0, -200.5, -201.5, 3.0e38,
                  5.0, 3.0], dt)
    tg = run("tgamma", ty, x)
    want = np.array([inf, -inf, inf, nan, nan, nan, nan, nan, 1.0, 1.0, inf, -0.0, 0.0, inf, 24.0, 2.0], dt)
    np.testing.assert_array_equal(tg, want)
    np.testing.assert_array_equal(np.signbit(tg[[0, 1, 11, 12]]), [False, True, True, False])  # (-1)^(n+1) on (-n-1, -n)
    lg = run("lgamma", ty, x)
    with np.errstate(over="ignore"):  # float's lgamma(3e38) is past float's range: inf
        want_lg = np.array([inf, inf, inf, inf, nan, inf, inf, inf, 0.0, 0.0,
                            float(lgamma_ref(mp.mpf(200))), float(lgamma_ref(mp.mpf(-200.5))),
                            float(lgamma_ref(mp.mpf(-201.5))), float(lgamma_ref(mp.mpf(float(dt(3.0e38))))),
                            float(mp.log(24)), float(mp.log(2))], dt)
    np.testing.assert_allclose(lg, want_lg, rtol=4e-16 if ty == "double" else 1.2e-7)
    assert np.isnan(lg[4]) and np.isposinf(lg[[0, 1, 2, 3, 5, 6, 7]]).all()


def test_lgamma_overflows_only_past_the_range() -> None:
    x = np.array([1e300, 2.5e305, 1e306, 1.7e308], np.float64)
    got = run("lgamma", "double", x)
    assert np.isfinite(got[:2]).all() and np.isposinf(got[2:]).all()
    np.testing.assert_allclose(got[:2], [float(lgamma_ref(mp.mpf(v))) for v in x[:2]], rtol=4e-16)


def test_series_coefficients_are_their_definitions() -> None:
    mp.mp.dps = 50
    try:
        assert math_gamma.C1 == float(1 - mp.euler)
        want = [float((-1) ** kk * (mp.zeta(kk) - 1) / kk) for kk in range(2, 2 + len(math_gamma.LGAMMA2))]
        assert list(math_gamma.LGAMMA2) == want
        half_log = mp.log(2 * mp.pi) / 2
        assert math_gamma.HALF_LOG_2PI == (float(half_log), float(half_log - float(half_log)))
        exact = [Fraction(mp.nstr(mp.bernoulli(2 * kk), 45)).limit_denominator(10 ** 7) for kk in range(1, 11)]
        assert list(math_gamma.BERNOULLI) == exact
    finally:
        mp.mp.dps = 40
