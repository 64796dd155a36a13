"""The OpenCL math functions simt has no instruction for, as straight-line double formulas.

Each formula is a function of (`Lanes`, operands as doubles) returning a
double (`math_library.FORMULAS` says which builtin each implements);
`isel_calls.math_element` widens float operands (and the
int operand of pown/rootn) to double, calls the formula and rounds the result
once back to float. So every formula is written once for both precisions:
for float the double kernels (about 1e-16 relative) leave results within a
hair of 0.5 ulp; for double they are fdlibm's methods, ported from the cpu
target's vectorisable library (`targets/llvm/vecmath/`, whose coefficients
this module reuses): Cody-Waite reductions for exp and the trigonometric
functions (|x| below 2^19), fdlibm's log kernel, and pow through a
log carried as a head and a tail.

sin, cos and tan reduce |x| >= 2^19 by Payne and Hanek's method (`math_reduction.py`).
erf and erfc have formulas of their own for double (`erf_d`, `erfc_d`: the cpu's
kernels); nextafter (`nextafter`) works on the bits in the operands' own precision.
tgamma and lgamma are `math_gamma.py`'s, fmod and remainder `math_remainder.py`'s.
"""

from __future__ import annotations

import math
from typing import Callable

from ..llvm.vecmath import coefficients as k
from ..llvm.vecmath.double_special import ERF_SMALL, ERFC_PIECES, ERFC_ZERO
from .math_lanes import Lanes
from .math_reduction import payne_hanek
from .machine import Operand, PReg, VReg

INF, NAN = math.inf, math.nan
Formula = Callable[..., Operand]


# -- exponentials -----------------------------------------------------------------------------
def exp_reduced(o: Lanes, r, kd):  # type: ignore[no-untyped-def]
    """2^kd e^r for |r| <= ln2/2, kd an integer in [-1080, 1030]: two ldexps so that a
    subnormal result is rounded once."""
    v = o.fma(r, o.poly(r, k.EXPM1_D), 1.0)
    k1 = o.floor(o.mul(kd, 0.5))
    return o.ldexp(o.ldexp(v, o.to_i32(k1)), o.to_i32(o.sub(kd, k1)))


def exp_with_tail(o: Lanes, x, tail):  # type: ignore[no-untyped-def]
    """e^(x + tail), |tail| tiny against x."""
    x = clamp(o, x, -746.0, 710.0)
    kd = o.rint(o.mul(x, k.LOG2E))
    r = o.sub(o.sub(x, o.mul(kd, k.LN2_HI)), o.mul(kd, k.LN2_LO))
    return exp_reduced(o, o.add(r, tail), kd)


def exp(o: Lanes, x):  # type: ignore[no-untyped-def]
    return exp_with_tail(o, x, 0.0)


def exp2(o: Lanes, x):  # type: ignore[no-untyped-def]
    x = clamp(o, x, -1080.0, 1030.0)
    kd = o.rint(x)
    return exp_reduced(o, o.mul(o.sub(x, kd), k.LN2), kd)


def exp10(o: Lanes, x):  # type: ignore[no-untyped-def]
    x = clamp(o, x, -330.0, 310.0)
    kd = o.rint(o.mul(x, k.LOG2_10))
    y = o.sub(o.sub(x, o.mul(kd, k.LOG10_2_HI)), o.mul(kd, k.LOG10_2_LO))
    return exp_reduced(o, o.mul(y, k.LN10), kd)


def expm1(o: Lanes, x):  # type: ignore[no-untyped-def]
    """2^k (1 + p) - 1 = 2^k p + (2^k - 1), exact at k = 0; e^x - 1 above 700."""
    c = clamp(o, x, -746.0, 710.0)
    kd = o.rint(o.mul(c, k.LOG2E))
    r = o.sub(o.sub(c, o.mul(kd, k.LN2_HI)), o.mul(kd, k.LN2_LO))
    p = o.mul(r, o.poly(r, k.EXPM1_D))
    s = o.ldexp(1.0, o.to_i32(clamp(o, kd, -1000.0, 1000.0)))
    v = o.fma(s, p, o.sub(s, 1.0))
    v = o.sel(o.gt(c, 700.0), exp(o, c), v)
    v = o.sel(o.eq(x, 0.0), x, v)  # -0 stays -0
    return o.sel(o.isnan(x), x, v)


def clamp(o: Lanes, x, lo: float, hi: float):  # type: ignore[no-untyped-def]
    """x limited to [lo, hi]; NaN stays NaN."""
    x = o.sel(o.lt(x, lo), lo, x)
    return o.sel(o.gt(x, hi), hi, x)


# -- logarithms ---------------------------------------------------------------------------------
def log_kernel(o: Lanes, x):  # type: ignore[no-untyped-def]
    """(e, f, t) for positive finite x = 2^e (1 + f), log(1 + f) = f - t (fdlibm)."""
    tiny = o.lt(x, 2.0 ** -1022)
    x = o.sel(tiny, o.mul(x, 2.0 ** 54), x)
    hx = o.isub(x, k.SQRT_HALF_HI << 32)
    e = o.sub(o.from_i64(o.ashr(hx, 52)), o.sel(tiny, 54.0, 0.0))
    m = o.iadd(o.iand(hx, 0x000FFFFFFFFFFFFF), k.SQRT_HALF_HI << 32)
    f = o.sub(m, 1.0)
    s = o.div(f, o.add(f, 2.0))
    z = o.mul(s, s)
    hfsq = o.mul(o.mul(f, 0.5), f)
    t = o.sub(hfsq, o.mul(s, o.add(hfsq, o.mul(z, o.poly(z, k.LOG_D)))))
    return e, f, t


def log_special(o: Lanes, x, v):  # type: ignore[no-untyped-def]
    v = o.sel(o.eq(x, 0.0), -INF, v)
    v = o.sel(o.eq(x, INF), INF, v)
    v = o.sel(o.lt(x, 0.0), NAN, v)
    return o.sel(o.isnan(x), x, v)


def log_pair(o: Lanes, x):  # type: ignore[no-untyped-def]
    """log(x) = hi + lo for positive finite x, with about 70 bits together."""
    e, f, t = log_kernel(o, x)
    a = o.mul(e, k.LN2_HI)  # exact: e has 11 bits, LN2_HI 32
    hi = o.add(a, f)
    lo = o.add(o.sub(f, o.sub(hi, a)), o.sub(o.mul(e, k.LN2_LO), t))
    h2 = o.add(hi, lo)
    return h2, o.sub(lo, o.sub(h2, hi))


def log(o: Lanes, x):  # type: ignore[no-untyped-def]
    e, f, t = log_kernel(o, x)
    v = o.add(o.mul(e, k.LN2_HI), o.sub(f, o.sub(t, o.mul(e, k.LN2_LO))))
    return log_special(o, x, v)


def log2(o: Lanes, x):  # type: ignore[no-untyped-def]
    e, f, t = log_kernel(o, x)
    return log_special(o, x, o.add(e, o.mul(o.sub(f, t), k.LOG2E)))


def log10(o: Lanes, x):  # type: ignore[no-untyped-def]
    e, f, t = log_kernel(o, x)
    tail = o.fma(o.sub(f, t), k.LOG10E, o.mul(e, k.LOG10_2_LO))
    return log_special(o, x, o.add(o.mul(e, k.LOG10_2_HI), tail))


def log1p(o: Lanes, x):  # type: ignore[no-untyped-def]
    """log(1 + x) = log(u) + c / u, u + c = 1 + x exactly (TwoSum), log(u) as head + tail:
    accurate near 0 (u - 1 is exact there) and for large x alike."""
    u = o.add(x, 1.0)
    bb = o.sub(u, x)
    c = o.add(o.sub(x, o.sub(u, bb)), o.sub(1.0, bb))
    safe = o.sel(o.gt(u, 0.0), o.sel(o.eq(u, INF), 1.0, u), 1.0)
    hi, lo = log_pair(o, safe)
    v = o.add(hi, o.add(lo, o.div(c, safe)))
    v = o.sel(o.eq(u, 1.0), x, v)  # |x| below half an ulp of 1 (and -0 kept)
    v = o.sel(o.eq(x, INF), INF, v)
    v = o.sel(o.eq(x, -1.0), -INF, v)
    v = o.sel(o.lt(x, -1.0), NAN, v)
    return o.sel(o.isnan(x), x, v)


# -- powers --------------------------------------------------------------------------------------------
def is_int(o: Lanes, y):  # type: ignore[no-untyped-def]
    return o.eq(o.trunc(y), y)


def is_odd(o: Lanes, y):  # type: ignore[no-untyped-def]
    """y an odd integer (false for NaN, inf and |y| >= 2^53)."""
    h = o.mul(y, 0.5)
    odd = o.cmp("une", o.trunc(h), h)
    return o.sel(is_int(o, y), o.sel(odd, 1, 0, 32), 0, 32)


def pow_(o: Lanes, x, y):  # type: ignore[no-untyped-def]
    """C99's pow: |x|^y = e^(y log|x|) with the log as head + tail, then the signs and specials."""
    ax = o.fabs(x)
    hi, lo = log_pair(o, o.sel(o.eq(ax, INF), 1.0, o.sel(o.eq(ax, 0.0), 1.0, ax)))
    p = o.mul(y, hi)
    tail = o.fma(y, lo, o.fma(y, hi, o.neg(p)))
    v = exp_with_tail(o, p, o.sel(o.cmp("ole", o.fabs(p), 700.0), tail, 0.0))
    v = o.sel(o.gt(p, 710.0), INF, v)
    # |x| = 0 or inf: 0 or inf by the sign of y (times log|x|)
    big = o.sel(o.gt(y, 0.0), INF, 0.0)
    small = o.sel(o.gt(y, 0.0), 0.0, INF)
    v = o.sel(o.eq(ax, INF), big, v)
    v = o.sel(o.eq(ax, 0.0), small, v)
    # |y| = inf
    yinf = o.eq(o.fabs(y), INF)
    vinf = o.sel(o.eq(ax, 1.0), 1.0, o.sel(o.gt(ax, 1.0), big, small))
    v = o.sel(yinf, vinf, v)
    odd = o.cmp("ne", is_odd(o, y), 0, "i32")
    neg = o.sel(o.signbit(x), 1, 0, 32)
    v = o.sel(o.cmp("ne", neg, 0, "i32"), o.sel(odd, o.neg(v), v), v)
    bad = o.sel(o.lt(x, 0.0), o.sel(is_int(o, y), 0, 1, 32), 0, 32)
    v = o.sel(o.cmp("ne", bad, 0, "i32"), o.sel(yinf, v, NAN), v)
    v = o.sel(o.isnan(x), NAN, v)
    v = o.sel(o.isnan(y), NAN, v)
    v = o.sel(o.eq(x, 1.0), 1.0, v)
    return o.sel(o.eq(y, 0.0), 1.0, v)


def powr(o: Lanes, x, y):  # type: ignore[no-untyped-def]
    """pow for x >= 0, with powr's own NaNs (OpenCL 7.5.1): 0^0, inf^0, 1^inf, x < 0."""
    v = pow_(o, x, y)
    v = o.sel(o.eq(x, 0.0), o.sel(o.eq(y, 0.0), NAN, v), v)
    v = o.sel(o.eq(x, INF), o.sel(o.eq(y, 0.0), NAN, v), v)
    v = o.sel(o.eq(x, 1.0), o.sel(o.eq(o.fabs(y), INF), NAN, v), v)
    v = o.sel(o.lt(x, 0.0), NAN, v)
    v = o.sel(o.isnan(x), NAN, v)
    return o.sel(o.isnan(y), NAN, v)


def pown(o: Lanes, x, n):  # type: ignore[no-untyped-def]
    return pow_(o, x, n)


def rootn(o: Lanes, x, n):  # type: ignore[no-untyped-def]
    """x^(1/n): the log divided by n, signs as pow's for odd n; NaN for n = 0 or even n, x < 0."""
    ax = o.fabs(x)
    hi, lo = log_pair(o, o.sel(o.eq(ax, INF), 1.0, o.sel(o.eq(ax, 0.0), 1.0, ax)))
    q = o.div(hi, n)
    tail = o.div(o.add(o.fma(o.neg(q), n, hi), lo), n)
    v = exp_with_tail(o, q, tail)
    pos = o.gt(n, 0.0)
    v = o.sel(o.eq(ax, INF), o.sel(pos, INF, 0.0), v)
    v = o.sel(o.eq(ax, 0.0), o.sel(pos, 0.0, INF), v)
    odd = o.cmp("ne", is_odd(o, n), 0, "i32")
    v = o.sel(o.signbit(x), o.sel(odd, o.neg(v), NAN), v)
    v = o.sel(o.eq(n, 0.0), NAN, v)
    return o.sel(o.isnan(x), x, v)


def cbrt(o: Lanes, x):  # type: ignore[no-untyped-def]
    """e^(log|x| / 3) and one Newton step, with the sign of x; 0, inf and NaN kept."""
    ax = o.fabs(x)
    safe = o.sel(o.eq(ax, INF), 1.0, o.sel(o.eq(ax, 0.0), 1.0, ax))
    hi, lo = log_pair(o, safe)
    q = o.mul(hi, 1 / 3)
    r = exp_with_tail(o, q, o.div(o.add(o.fma(q, -3.0, hi), lo), 3.0))
    r2 = o.mul(r, r)
    r = o.sub(r, o.div(o.fma(r2, r, o.neg(safe)), o.mul(r2, 3.0)))
    v = o.sel(o.eq(ax, INF), ax, o.sel(o.eq(ax, 0.0), ax, r))
    v = o.copysign(v, x)
    return o.sel(o.isnan(x), x, v)


def hypot(o: Lanes, x, y):  # type: ignore[no-untyped-def]
    """max * sqrt(1 + (min/max)^2); inf if either is inf (NaN or not)."""
    ax, ay = o.fabs(x), o.fabs(y)
    m = o.sel(o.gt(ax, ay), ax, ay)
    s = o.sel(o.gt(ax, ay), ay, ax)
    safe = o.sel(o.eq(m, 0.0), 1.0, m)
    ratio = o.div(s, safe)
    v = o.mul(m, o.sqrt(o.fma(ratio, ratio, 1.0)))
    v = o.sel(o.eq(m, 0.0), 0.0, v)
    v = o.sel(o.isnan(x), x, o.sel(o.isnan(y), y, v))
    return o.sel(o.eq(ax, INF), INF, o.sel(o.eq(ay, INF), INF, v))


# -- trigonometry -------------------------------------------------------------------------------------
def two_sum(o: Lanes, a, b):  # type: ignore[no-untyped-def]
    s = o.add(a, b)
    bb = o.sub(s, a)
    return s, o.add(o.sub(a, o.sub(s, bb)), o.sub(b, bb))


def reduce_pio2(o: Lanes, x):  # type: ignore[no-untyped-def]
    """(kd, hi, lo): x = kd pi/2 + hi + lo (Cody-Waite, |x| < 2^19 pi/2)."""
    kd = o.rint(o.mul(x, 2 / math.pi))
    y = o.sub(x, o.mul(kd, k.PIO2_1))
    s1, e1 = two_sum(o, y, o.neg(o.mul(kd, k.PIO2_2)))
    s2, e2 = two_sum(o, s1, o.neg(o.mul(kd, k.PIO2_3)))
    lo = o.sub(o.add(e1, e2), o.mul(kd, k.PIO2_3T))
    hi = o.add(s2, lo)
    return kd, hi, o.sub(lo, o.sub(hi, s2))


def sin_kernel(o: Lanes, hi, lo):  # type: ignore[no-untyped-def]
    z = o.mul(hi, hi)
    tail = o.fma(o.mul(hi, z), o.poly(z, k.SIN_D), o.mul(lo, o.fma(z, -0.5, 1.0)))
    return o.add(hi, tail)


def cos_kernel(o: Lanes, hi, lo):  # type: ignore[no-untyped-def]
    z = o.mul(hi, hi)
    hz = o.mul(z, 0.5)
    w = o.sub(1.0, hz)
    small = o.sub(o.mul(o.mul(z, z), o.poly(z, k.COS_D)), o.mul(hi, lo))
    return o.add(w, o.add(o.sub(o.sub(1.0, w), hz), small))


def quadrant(o: Lanes, kd, shift: float = 0.0):  # type: ignore[no-untyped-def]
    """(odd, negate) masks of quadrant kd + shift."""
    q = o.add(kd, shift)
    q4 = o.sub(q, o.mul(o.floor(o.mul(q, 0.25)), 4.0))
    h = o.mul(q4, 0.5)
    return o.cmp("une", o.trunc(h), h), o.ge(q4, 2.0)


def reduce_any(o: Lanes, x, bits: int):  # type: ignore[no-untyped-def]
    """(kd, hi, lo): x = kd pi/2 + hi + lo for every finite x (a widened float when `bits`
    is 32): Cody-Waite below 2^19, Payne-Hanek (`math_reduction.py`) above, on those lanes
    only (`Lanes.rarely`: a wave with no such lane branches around it). Once per IR block
    for one register: sin(x) and cos(x) share it (and then their kernels, `machine_cse.py`)."""
    if isinstance(x, (VReg, PReg)):
        return o.ctx.ir_block_cached(("reduce_any", x, bits), lambda: reduce_any_of(o, x, bits))
    return reduce_any_of(o, x, bits)


def reduce_any_of(o: Lanes, x, bits: int):  # type: ignore[no-untyped-def]
    kd, hi, lo = reduce_pio2(o, x)
    big = o.ge(o.fabs(x), 2.0 ** 19)

    def huge():  # type: ignore[no-untyped-def]
        ax = o.sel(o.eq(o.fabs(x), INF), 2.0 ** 19, o.fabs(x))
        negative = o.signbit(x)
        return [o.sel(negative, o.neg(v), v) for v in payne_hanek(o, ax, bits)]
    bk, bh, bl = o.rarely(big, huge, (64, 64, 64))
    return o.sel(big, bk, kd), o.sel(big, bh, hi), o.sel(big, bl, lo)


def trig(name: str, bits: int) -> Formula:
    """sin, cos or tan for results of `bits` (operands widened to double when 32)."""
    def make(o: Lanes, x):  # type: ignore[no-untyped-def]
        kd, hi, lo = reduce_any(o, x, bits)
        s, c = sin_kernel(o, hi, lo), cos_kernel(o, hi, lo)
        if name == "tan":
            odd, _ = quadrant(o, kd)
            t = o.div(o.sel(odd, c, s), o.sel(odd, s, c))
            v = o.sel(odd, o.neg(t), t)
        else:
            odd, negate = quadrant(o, kd, 1.0 if name == "cos" else 0.0)
            v = o.sel(odd, c, s)
            v = o.sel(negate, o.neg(v), v)
        v = o.sel(o.eq(o.fabs(x), INF), NAN, v)
        if name != "cos":
            v = o.sel(o.eq(x, 0.0), x, v)
        return v
    return make


def pi_reduced(o: Lanes, x):  # type: ignore[no-untyped-def]
    """(r, kd): x = kd/2 + r exactly with |r| <= 1/4 (inf gives NaN)."""
    kd = o.rint(o.mul(x, 2.0))
    return o.fma(kd, -0.5, x), kd


def trigpi(name: str) -> Formula:
    """sinpi, cospi, tanpi: x = kd/2 + r exactly, pi r as head + tail into the kernels; exact
    zeros and poles with C's signs (sinpi: that of x; cospi: +0; tanpi: by the quadrant)."""
    def make(o: Lanes, x):  # type: ignore[no-untyped-def]
        r, kd = pi_reduced(o, x)
        hi = o.mul(r, math.pi)
        lo = o.fma(r, math.pi, o.neg(hi))
        lo = o.fma(r, 1.2246467991473532e-16, lo)
        s, c = sin_kernel(o, hi, lo), cos_kernel(o, hi, lo)
        zero = o.copysign(0.0, x)
        if name == "tanpi":
            odd, negate = quadrant(o, kd)
            t = o.div(o.sel(odd, c, s), o.sel(odd, s, c))
            v = o.sel(odd, o.neg(t), t)
            exact = o.sel(odd, o.sel(negate, -INF, INF), o.sel(negate, o.neg(zero), zero))
            v = o.sel(o.eq(r, 0.0), exact, v)
        else:
            odd, negate = quadrant(o, kd, 1.0 if name == "cospi" else 0.0)
            v = o.sel(odd, c, s)
            v = o.sel(negate, o.neg(v), v)
            if name == "sinpi":
                v = o.sel(o.eq(o.trunc(x), x), zero, v)  # integers: a zero with the sign of x
            else:
                v = o.sel(o.eq(v, 0.0), 0.0, v)
        return o.sel(o.eq(o.fabs(x), INF), NAN, v)
    return make


def atan_core(o: Lanes, a):  # type: ignore[no-untyped-def]
    """atan(a) for a >= 0 (inf included)."""
    inv = o.gt(a, 1.0)
    z = o.sel(inv, o.div(1.0, a), a)
    mid = o.gt(z, k.TAN_PI_8)
    w = o.sel(mid, o.div(o.sub(z, 1.0), o.add(z, 1.0)), z)
    w2 = o.mul(w, w)
    t = o.fma(o.mul(w, w2), o.poly(w2, k.ATAN_D), w)
    t = o.sel(mid, o.add(t, k.PI_4), t)
    return o.sel(inv, o.sub(k.PI_2, t), t)


def atan(o: Lanes, x):  # type: ignore[no-untyped-def]
    v = o.copysign(atan_core(o, o.fabs(x)), x)
    return o.sel(o.isnan(x), x, v)


def atan2(o: Lanes, y, x):  # type: ignore[no-untyped-def]
    ax, ay = o.fabs(x), o.fabs(y)
    both_inf = o.sel(o.eq(ax, INF), o.sel(o.eq(ay, INF), 1, 0, 32), 0, 32)
    ratio = o.div(ay, o.sel(o.eq(ax, 0.0), 1.0, ax))
    a = atan_core(o, ratio)
    a = o.sel(o.eq(ax, 0.0), o.sel(o.eq(ay, 0.0), 0.0, k.PI_2), a)
    a = o.sel(o.cmp("ne", both_inf, 0, "i32"), k.PI_4, a)
    a = o.sel(o.signbit(x), o.sub(k.PI, a), a)
    v = o.copysign(a, y)
    return o.sel(o.isnan(x), x, o.sel(o.isnan(y), y, v))


def asin(o: Lanes, x):  # type: ignore[no-untyped-def]
    c = o.sqrt(o.mul(o.sub(1.0, x), o.add(1.0, x)))
    v = o.sel(o.gt(o.fabs(x), 1.0), NAN, atan2(o, x, c))
    return o.sel(o.eq(x, 0.0), x, v)


def acos(o: Lanes, x):  # type: ignore[no-untyped-def]
    s = o.sqrt(o.mul(o.sub(1.0, x), o.add(1.0, x)))
    return o.sel(o.gt(o.fabs(x), 1.0), NAN, atan2(o, s, x))


def over_pi(f: Formula) -> Formula:
    def make(o: Lanes, *xs):  # type: ignore[no-untyped-def]
        return o.div(f(o, *xs), math.pi)
    return make


# -- hyperbolic -----------------------------------------------------------------------------------------
def sinh(o: Lanes, x):  # type: ignore[no-untyped-def]
    a = o.fabs(x)
    e = expm1(o, a)
    small = o.mul(o.add(e, o.div(e, o.add(e, 1.0))), 0.5)
    large = o.mul(exp(o, a), 0.5)
    v = o.sel(o.gt(a, 22.0), large, small)
    v = o.sel(o.gt(a, 709.0), o.mul(exp(o, o.mul(a, 0.5)), o.mul(exp(o, o.mul(a, 0.5)), 0.5)), v)
    return o.sel(o.isnan(x), x, o.copysign(v, x))


def cosh(o: Lanes, x):  # type: ignore[no-untyped-def]
    a = o.fabs(x)
    e = exp(o, a)
    v = o.fma(e, 0.5, o.div(0.5, e))
    h = exp(o, o.mul(a, 0.5))
    v = o.sel(o.gt(a, 700.0), o.mul(h, o.mul(h, 0.5)), v)
    return o.sel(o.isnan(x), x, v)


def tanh(o: Lanes, x):  # type: ignore[no-untyped-def]
    a = o.fabs(x)
    e = expm1(o, o.mul(a, 2.0))
    v = o.div(e, o.add(e, 2.0))
    v = o.sel(o.gt(a, 22.0), 1.0, v)
    return o.sel(o.isnan(x), x, o.copysign(v, x))


def asinh(o: Lanes, x):  # type: ignore[no-untyped-def]
    a = o.fabs(x)
    a2 = o.mul(a, a)
    v = log1p(o, o.add(a, o.div(a2, o.add(o.sqrt(o.add(a2, 1.0)), 1.0))))
    v = o.sel(o.gt(a, 2.0 ** 28), o.add(log(o, a), k.LN2), v)
    return o.sel(o.isnan(x), x, o.copysign(v, x))


def acosh(o: Lanes, x):  # type: ignore[no-untyped-def]
    t = o.sub(x, 1.0)
    v = log1p(o, o.add(t, o.sqrt(o.fma(t, t, o.mul(t, 2.0)))))
    v = o.sel(o.gt(x, 2.0 ** 28), o.add(log(o, x), k.LN2), v)
    v = o.sel(o.lt(x, 1.0), NAN, v)
    return o.sel(o.isnan(x), x, v)


def atanh(o: Lanes, x):  # type: ignore[no-untyped-def]
    a = o.fabs(x)
    v = o.mul(log1p(o, o.div(o.mul(a, 2.0), o.sub(1.0, a))), 0.5)
    v = o.sel(o.gt(a, 1.0), NAN, v)
    return o.sel(o.isnan(x), x, o.copysign(v, x))


# -- error function (float accuracy only: the cpu's float kernels; double: erf_d, erfc_d) ----------------
def erfc_tail(o: Lanes, a):  # type: ignore[no-untyped-def]
    t = o.div(o.sub(a, k.ERFC_SHIFT), o.add(a, k.ERFC_SHIFT))
    damp = exp(o, o.neg(o.mul(a, a)))
    v = o.div(o.mul(damp, o.poly(t, k.ERFC)), o.add(a, 1.0))
    return o.sel(o.gt(a, 27.3), 0.0, v)


def erf_small(o: Lanes, d):  # type: ignore[no-untyped-def]
    return o.mul(d, o.poly(o.mul(d, d), k.ERF))


def erf(o: Lanes, d):  # type: ignore[no-untyped-def]
    a = o.fabs(d)
    big = o.copysign(o.sub(1.0, erfc_tail(o, a)), d)
    v = o.sel(o.lt(a, 0.5), erf_small(o, d), big)
    return o.sel(o.isnan(d), d, v)


def erfc(o: Lanes, d):  # type: ignore[no-untyped-def]
    tail = erfc_tail(o, o.fabs(d))
    big = o.sel(o.lt(d, 0.0), o.sub(2.0, tail), tail)
    v = o.sel(o.lt(o.fabs(d), 0.5), o.sub(1.0, erf_small(o, d)), big)
    return o.sel(o.isnan(d), d, v)


# -- error function on double (the cpu's double kernels: double_special.py) ---------------------------------
def erf_small_d(o: Lanes, x):  # type: ignore[no-untyped-def]
    """erf(x) for |x| <= 1."""
    return o.mul(x, o.poly(o.mul(x, x), ERF_SMALL))


def erfc_positive_d(o: Lanes, a):  # type: ignore[no-untyped-def]
    """erfc(a) for a >= 1/2: e^(-a^2) Q(a) / a, Q fitted on four pieces, each lane's
    coefficients selected for its piece (one Horner for all)."""
    a = o.sel(o.gt(a, ERFC_ZERO), ERFC_ZERO, a)
    pieces = [o.lt(a, upper) for upper, _, _ in ERFC_PIECES[:-1]]
    centre = ERFC_PIECES[-1][1]
    for inside, (_, mid, _) in reversed(list(zip(pieces, ERFC_PIECES[:-1]))):
        centre = o.sel(inside, mid, centre)
    sq = o.mul(a, a)
    d = o.sub(o.sel(pieces[-1], a, o.div(1.0, sq)), centre)

    def coeff(i: int):  # type: ignore[no-untyped-def]
        c = ERFC_PIECES[-1][2][i]
        for inside, (_, _, coeffs) in reversed(list(zip(pieces, ERFC_PIECES[:-1]))):
            c = o.sel(inside, coeffs[i], c)
        return c
    n = len(ERFC_PIECES[0][2])
    acc = coeff(n - 1)
    for i in reversed(range(n - 1)):
        acc = o.fma(acc, d, coeff(i))
    gauss = exp_with_tail(o, o.neg(sq), o.neg(o.fma(a, a, o.neg(sq))))
    return o.mul(gauss, o.div(acc, a))


def erf_d(o: Lanes, x):  # type: ignore[no-untyped-def]
    a = o.fabs(x)
    large = o.copysign(o.sub(1.0, erfc_positive_d(o, o.sel(o.lt(a, 0.5), 0.5, a))), x)
    v = o.sel(o.lt(a, 1.0), erf_small_d(o, x), large)
    return o.sel(o.isnan(x), x, v)


def erfc_d(o: Lanes, x):  # type: ignore[no-untyped-def]
    a = o.fabs(x)
    c = erfc_positive_d(o, o.sel(o.lt(a, 0.5), 0.5, a))
    c = o.sel(o.lt(x, 0.0), o.sub(2.0, c), c)
    v = o.sel(o.lt(a, 0.5), o.sub(1.0, erf_small_d(o, x)), c)
    return o.sel(o.isnan(x), x, v)


# -- rounding and the rest ------------------------------------------------------------------------------
def round_(o: Lanes, x):  # type: ignore[no-untyped-def]
    """Halfway cases away from zero."""
    t = o.trunc(x)
    up = o.ge(o.fabs(o.sub(x, t)), 0.5)
    return o.sel(up, o.add(t, o.copysign(1.0, x)), t)


def fdim(o: Lanes, x, y):  # type: ignore[no-untyped-def]
    v = o.sel(o.gt(x, y), o.sub(x, y), 0.0)
    return o.sel(o.isnan(x), x, o.sel(o.isnan(y), y, v))


def logb(o: Lanes, x):  # type: ignore[no-untyped-def]
    """The exponent of x (subnormals scaled into the normal range first); -inf at 0."""
    a = o.fabs(x)
    tiny = o.lt(a, 2.0 ** -1022)
    a = o.sel(tiny, o.mul(a, 2.0 ** 54), a)
    e = o.from_i64(o.ashr(o.iand(a, 0x7FF0000000000000), 52))
    v = o.sub(e, o.sel(tiny, 1023.0 + 54.0, 1023.0))
    v = o.sel(o.eq(a, 0.0), -INF, o.sel(o.eq(a, INF), INF, v))
    return o.sel(o.isnan(x), x, v)


def nextafter(o: Lanes, x, y, bits: int):  # type: ignore[no-untyped-def]
    """The next float or double (`bits`) after x towards y, in x's own precision (not widened):
    its bits plus or minus one; from a zero, the smallest subnormal with y's sign."""
    f = f"f{bits}"
    up = o.sel(o.cmp("olt", x, y, f), 1, 0, 32)
    positive = o.sel(o.cmp("ogt", x, 0, f), 1, 0, 32)
    same = o.cmp("eq", up, positive, "u32")
    v = o.sel(same, o.iadd(x, 1, bits), o.isub(x, 1, bits), bits)
    sign = -(1 << (bits - 1))
    tiny = o.ior(o.iand(y, sign, bits), 1, bits)
    v = o.sel(o.cmp("oeq", x, 0, f), tiny, v, bits)
    v = o.sel(o.cmp("oeq", x, y, f), y, v, bits)
    return o.sel(o.cmp("uno", x, y, f), o.iadd(o.ior(x, y, bits), 0, bits), v, bits)


def copysign(o: Lanes, x, y):  # type: ignore[no-untyped-def]
    return o.copysign(x, y)


def rsqrt(o: Lanes, x):  # type: ignore[no-untyped-def]
    return o.div(1.0, o.sqrt(x))
