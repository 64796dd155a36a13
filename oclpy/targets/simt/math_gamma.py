"""tgamma and lgamma as straight-line double formulas (`Lanes`), accurate for double results.

Three pieces, each lane's result selected at the end (`math_formulas` conventions):

- **Near the origin** (-20 <= x < 10): x = 2 + z + k with z = x - rint(x) (exact,
  |z| <= 1/2) and k = rint(x) - 2 in [-22, 8]. lgamma(2 + z) is the Taylor series
  `(1 - gamma) z + sum_k (-1)^k (zeta(k) - 1)/k z^k` (`LGAMMA2`, terms shrink like
  4^-k), and the recurrence Gamma(x + 1) = x Gamma(x) steps from 2 + z to x: up,
  Gamma(x) = Gamma(2 + z) (x - 1) ... (x - k); down, Gamma(x) = Gamma(2 + z) /
  (x (x + 1) ... (x - k - 1)). Every factor x -+ j is exact; their product is kept as
  a head and a tail (fused two-product), so only a handful of roundings reach the
  result. lgamma takes the log of that product, except at k = -1 where it is
  log1p(z), so that lgamma stays accurate relative to its zero at 1 (and at 2, z = 0,
  the series is 0 exactly).
- **Large arguments** (y >= 10): Stirling's series, `(y - 1/2) log y - y + log(2 pi)/2 +
  sum B_2k / (2k (2k - 1) y^(2k - 1))` (ten terms: below 1e-19 at y = 10), with the
  main part as a head and a tail (the log from `log_double_double`, the product fused), so that
  Gamma = e^(L/2) e^(L/2) (`exp_with_tail`, halves so that it overflows only with the
  result) keeps about 2 ulp up to 171.6.
- **Below -20**: the reflection Gamma(x) = pi / (-x sin(pi x) Gamma(-x)), sin(pi x)
  from the exactly reduced `sinpi`, Gamma(-x) from Stirling.

C99's specials: tgamma(+-0) = +-inf, a negative integer or -inf gives NaN, +inf gives
+inf; lgamma is +inf at 0, the non-positive integers and both infinities.
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..llvm.vecmath import coefficients as k
from .math_formulas import INF, NAN, exp, exp_with_tail, log, log1p, trigpi, two_sum
from .math_lanes import Lanes

# lgamma(2 + z) = z (C1 + z (LGAMMA2[0] + z LGAMMA2[1] + ...)); C1 = 1 - Euler's gamma,
# LGAMMA2[i] = (-1)^k (zeta(k) - 1) / k for k = i + 2 (mpmath at 50 digits; the tests
# recompute them)
C1 = 0.42278433509846713
LGAMMA2 = (
    0.3224670334241132, -0.0673523010531981, 0.020580808427784546, -0.007385551028673986,
    0.0028905103307415234, -0.001192753911703261, 0.0005096695247430425, -0.00022315475845357939,
    9.945751278180853e-05, -4.492623673813314e-05, 2.050721277567069e-05, -9.439488275268397e-06,
    4.374866789907488e-06, -2.039215753801366e-06, 9.55141213040742e-07, -4.492469198764566e-07,
    2.1207184805554665e-07, -1.0043224823968099e-07, 4.7698101693639804e-08, -2.2711094608943164e-08,
    1.0838659214896955e-08, -5.183475041970047e-09, 2.4836745438024785e-09, -1.1921401405860912e-09,
    5.731367241678862e-10, -2.7595228851242334e-10, 1.330476437424449e-10, -6.4229645638381e-11,
    3.1044247747322276e-11,
)
# log(2 pi) / 2 as a head and a tail
HALF_LOG_2PI = (0.9189385332046728, -3.8782941580672414e-17)
# Stirling's coefficients B_2k / (2k (2k - 1)), k = 1..10
BERNOULLI = (Fraction(1, 6), Fraction(-1, 30), Fraction(1, 42), Fraction(-1, 30), Fraction(5, 66),
             Fraction(-691, 2730), Fraction(7, 6), Fraction(-3617, 510), Fraction(43867, 798),
             Fraction(-174611, 330))
STIRLING = tuple(float(b / (2 * n * (2 * n - 1))) for n, b in enumerate(BERNOULLI, 1))
NEAR_LOW, NEAR_HIGH = -20.0, 10.0  # the recurrence's range
STEPS = 22  # the most factors of the recurrence: k = rint(-20) - 2


def lgamma2(o: Lanes, z):  # type: ignore[no-untyped-def]
    """lgamma(2 + z) for |z| <= 1/2."""
    return o.fma(z, C1, o.mul(o.mul(z, z), o.poly(z, LGAMMA2)))


def near(o: Lanes, x):  # type: ignore[no-untyped-def]
    """(lgamma(2 + z), z, k, head, tail) for NEAR_LOW <= x < NEAR_HIGH: x = 2 + z + k,
    head + tail the product of the recurrence's factors (1 when k = 0)."""
    n = o.rint(x)
    z = o.sub(x, n)
    kd = o.sub(n, 2.0)
    up = o.gt(kd, 0.0)
    count = o.fabs(kd)
    head, tail = 1.0, 0.0
    for j in range(1, STEPS + 1):
        factor = o.sel(up, o.sub(x, float(j)), o.add(x, float(j - 1)))
        factor = o.sel(o.ge(count, float(j)), factor, 1.0)
        p = o.mul(head, factor)
        tail = o.fma(tail, factor, o.fma(head, factor, o.neg(p)))
        head = p
    return lgamma2(o, z), z, kd, head, tail


def log_double_double(o: Lanes, x):  # type: ignore[no-untyped-def]
    """log(x) = hi + lo for x >= 1, accurate to about 2^-66 relative: x = 2^e (1 + f),
    log(1 + f) = 2 s + s R(s^2) with s = f / (2 + f) carried as a head and a tail (fdlibm's
    R, `LOG_D`), so that Stirling's (y - 1/2) log y keeps its last bits at y = 170."""
    hx = o.isub(x, k.SQRT_HALF_HI << 32)
    e = o.from_i64(o.ashr(hx, 52))
    f = o.sub(o.iadd(o.iand(hx, 0x000FFFFFFFFFFFFF), k.SQRT_HALF_HI << 32), 1.0)
    d = o.add(f, 2.0)
    d_lo = o.sub(f, o.sub(d, 2.0))
    s = o.div(f, d)
    s_lo = o.div(o.fma(o.neg(s), d_lo, o.fma(o.neg(s), d, f)), d)
    z = o.mul(s, s)
    tail = o.fma(s, o.mul(z, o.poly(z, k.LOG_D)), o.mul(s_lo, 2.0))
    hi, lo = two_sum(o, o.mul(e, k.LN2_HI), o.mul(s, 2.0))  # both exact
    lo = o.add(lo, o.fma(e, k.LN2_LO, tail))
    head = o.add(hi, lo)
    return head, o.sub(lo, o.sub(head, hi))


def stirling(o: Lanes, y):  # type: ignore[no-untyped-def]
    """lgamma(y) = hi + lo for y >= 10 (finite hi up to about 2.5e305)."""
    big = o.gt(y, 2.0 ** 60)
    ys = o.sel(big, 2.0 ** 60, y)
    a = o.sub(ys, 0.5)
    lh, ll = log_double_double(o, ys)
    p = o.mul(a, lh)
    pe = o.fma(a, ll, o.fma(a, lh, o.neg(p)))
    s1, e1 = two_sum(o, p, o.neg(ys))
    s2, e2 = two_sum(o, s1, HALF_LOG_2PI[0])
    inv = o.div(1.0, ys)
    series = o.mul(inv, o.poly(o.mul(inv, inv), STIRLING))
    lo = o.add(o.add(o.add(pe, e1), o.add(e2, HALF_LOG_2PI[1])), series)
    hi = o.add(s2, lo)
    lo = o.sub(lo, o.sub(hi, s2))
    huge = o.mul(y, o.sub(log(o, y), 1.0))  # beyond 2^60 the rest is below an ulp
    return o.sel(big, huge, hi), o.sel(big, 0.0, lo)


def exp_half_squared(o: Lanes, hi, lo):  # type: ignore[no-untyped-def]
    """e^((hi + lo) / 2): its square is e^(hi + lo), overflowing only with it."""
    return exp_with_tail(o, o.mul(hi, 0.5), o.mul(lo, 0.5))


def sinpi_times(o: Lanes, x):  # type: ignore[no-untyped-def]
    """-x sin(pi x): Gamma(x) Gamma(-x) = -pi / (x sin(pi x))."""
    return o.mul(o.neg(x), trigpi("sinpi")(o, x))


def tgamma(o: Lanes, x):  # type: ignore[no-untyped-def]
    """Gamma(x): the recurrence near the origin, Stirling above, the reflection below."""
    xn = o.sel(o.lt(x, NEAR_LOW), NEAR_LOW, o.sel(o.ge(x, NEAR_HIGH), NEAR_LOW, x))
    s, _, kd, head, tail = near(o, xn)
    g = exp(o, s)
    upward = o.fma(g, head, o.mul(g, tail))
    q = o.div(g, head)
    downward = o.add(q, o.div(o.fma(o.neg(q), head, g), head))
    downward = o.fma(o.neg(downward), o.div(tail, head), downward)
    downward = o.sel(o.eq(o.fabs(q), INF), q, downward)  # past the range: inf, not NaN
    v = o.sel(o.gt(kd, 0.0), upward, o.sel(o.lt(kd, 0.0), downward, g))
    y = o.sel(o.lt(o.fabs(x), NEAR_HIGH), NEAR_HIGH, o.fabs(x))
    hi, lo = stirling(o, y)
    h = exp_half_squared(o, hi, lo)
    v = o.sel(o.ge(x, NEAR_HIGH), o.mul(h, h), v)
    reflected = o.div(o.div(o.div(math.pi, sinpi_times(o, x)), h), h)
    v = o.sel(o.lt(x, NEAR_LOW), reflected, v)
    v = o.sel(o.gt(x, 171.7), INF, v)
    v = o.sel(o.eq(x, 0.0), o.copysign(INF, x), v)
    v = o.sel(o.lt(x, 0.0), o.sel(o.eq(o.trunc(x), x), NAN, v), v)  # negative integers, -inf
    return o.sel(o.isnan(x), x, v)


def lgamma(o: Lanes, x):  # type: ignore[no-untyped-def]
    """log|Gamma(x)|: the recurrence's log near the origin, Stirling above, the reflection below."""
    xn = o.sel(o.lt(x, NEAR_LOW), NEAR_LOW, o.sel(o.ge(x, NEAR_HIGH), NEAR_LOW, x))
    s, z, kd, head, tail = near(o, xn)
    logp = o.add(log(o, o.fabs(head)), o.div(tail, head))
    logp = o.sel(o.eq(kd, -1.0), log1p(o, z), logp)
    v = o.sel(o.lt(kd, 0.0), o.sub(s, logp), o.add(s, logp))
    y = o.sel(o.lt(o.fabs(x), NEAR_HIGH), NEAR_HIGH, o.fabs(x))
    hi, _ = stirling(o, y)
    v = o.sel(o.ge(x, NEAR_HIGH), hi, v)
    reflected = o.sub(o.sub(math.log(math.pi), log(o, o.fabs(sinpi_times(o, x)))), hi)
    v = o.sel(o.lt(x, NEAR_LOW), reflected, v)
    v = o.sel(o.le(x, 0.0), o.sel(o.eq(o.trunc(x), x), INF, v), v)  # poles
    v = o.sel(o.eq(o.fabs(x), INF), INF, v)
    return o.sel(o.isnan(x), x, v)
