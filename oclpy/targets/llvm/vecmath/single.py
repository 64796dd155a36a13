"""The float math builtins of the vectorisable math library, one function each.

Each entry of `FLOAT` takes the builtin's operands (float, or i32 for the
integer operand of pown/rootn; scalar or vector alike) and returns the result
as a double, which the caller rounds once to float (or half). The value is
computed in double with the kernels of `vecmath_core.py`; the special operands
of C99 Annex F and OpenCL C 7.5 (zeros, infinities, NaN, out-of-domain
arguments) are selected in at the end, without branches.
"""

from __future__ import annotations

import math
from typing import Callable

from llvmlite import ir as ll

from . import coefficients as k
from . import double_core as core
from .lane_ops import F32, Ops
from .pow_special import pow_result, pown_result, powr_nan, rootn_result

INF, NAN = math.inf, math.nan
Args = list[ll.Value]
Builtin = Callable[[Ops, Args], ll.Value]


def _unary(fn: Callable[[Ops, ll.Value], ll.Value]) -> Builtin:
    return lambda o, a: fn(o, a[0])


def _binary(fn: Callable[[Ops, ll.Value, ll.Value], ll.Value]) -> Builtin:
    return lambda o, a: fn(o, a[0], a[1])


def _finite(o: Ops, x: ll.Value) -> ll.Value:
    """True for finite float `x` (false for inf and NaN)."""
    return o.lt(o.fabs(x), o.const(F32, INF))


# -- exponentials -------------------------------------------------------------------
def _exp_base(mult: float) -> Callable[[Ops, ll.Value], ll.Value]:
    """2^(x * mult): exp, exp2, exp10 (t is off by at most 2^-45 relative: harmless)."""
    return lambda o, x: core.exp2(o, o.clamp(o.mul(o.widen(x), o.d(mult)), -300, 300))


def expm1(o: Ops, x: ll.Value) -> ll.Value:
    d = o.widen(x)
    v = core.expm1(o, o.clamp(o.mul(d, o.d(k.LOG2E)), -300, 300))
    return o.sel(o.eq(d, o.d(0.0)), d, v)  # expm1(-0) = -0


# -- logarithms ---------------------------------------------------------------------
def _log_special(o: Ops, d: ll.Value, v: ll.Value) -> ll.Value:
    """v with log's special cases: log(0) = -inf, log(inf) = inf, log(x < 0) = NaN."""
    v = o.sel(o.eq(d, o.d(0.0)), o.d(-INF), v)
    v = o.sel(o.eq(d, o.d(INF)), o.d(INF), v)
    return o.sel(o.or_(o.lt(d, o.d(0.0)), o.isnan(d)), o.d(NAN), v)


def log1p_full(o: Ops, d: ll.Value) -> ll.Value:
    """log(1 + d) on any double, with log1p(-1) = -inf and NaN below."""
    return _log_special(o, o.add(d, o.d(1.0)), core.log1p(o, d))


def _log_base(kernel: Callable[[Ops, ll.Value], ll.Value]) -> Callable[[Ops, ll.Value], ll.Value]:
    def build(o: Ops, x: ll.Value) -> ll.Value:
        d = o.widen(x)
        return _log_special(o, d, kernel(o, d))
    return build


def _log10(o: Ops, d: ll.Value) -> ll.Value:
    e, logm = core.log_parts(o, d)
    return o.mad(logm, o.d(k.LOG10E), o.mul(e, o.d(k.LOG10_2)))


# -- trigonometry -------------------------------------------------------------------
def _quadrant(o: Ops, x: ll.Value, shift: int) -> tuple[ll.Value, ll.Value, ll.Value, ll.Value]:
    """(odd, negate, sin r, cos r): |x| = r + (q + shift) * pi/2, odd and negate from q."""
    q, f = core.reduce_pio2(o, x)
    q = o.b.add(q, o.i64(shift))
    r = o.mul(f, o.d(k.PI_2))
    odd = o.b.trunc(q, o.ty(ll.IntType(1)))
    negate = o.b.icmp_unsigned("!=", o.b.and_(q, o.i64(2)), o.i64(0))
    return odd, negate, core.sin_poly(o, r), core.cos_poly(o, r)


def sin(o: Ops, x: ll.Value) -> ll.Value:
    odd, negate, s, c = _quadrant(o, x, 0)
    v = o.negate_if(o.signbit(x), o.negate_if(negate, o.sel(odd, c, s)))
    return o.sel(_finite(o, x), v, o.d(NAN))


def cos(o: Ops, x: ll.Value) -> ll.Value:
    odd, negate, s, c = _quadrant(o, x, 1)
    v = o.negate_if(negate, o.sel(odd, c, s))
    return o.sel(_finite(o, x), v, o.d(NAN))


def tan(o: Ops, x: ll.Value) -> ll.Value:
    odd, _, s, c = _quadrant(o, x, 0)
    v = o.negate_if(odd, o.div(o.sel(odd, c, s), o.sel(odd, s, c)))
    return o.sel(_finite(o, x), o.negate_if(o.signbit(x), v), o.d(NAN))


def _reduce_pi(o: Ops, d: ll.Value) -> ll.Value:
    """d - 2*rint(d/2): exact, in [-1, 1], the same sinpi and cospi as d."""
    return o.sub(d, o.mul(o.rint(o.mul(d, o.d(0.5))), o.d(2.0)))


def _sin_pi_half(o: Ops, s: ll.Value) -> ll.Value:
    """sin(pi * s) for s in [0, 1/2]: sin below 1/4, cos(pi (1/2 - s)) above."""
    low = o.le(s, o.d(0.25))
    r = o.mul(o.sel(low, s, o.sub(o.d(0.5), s)), o.d(k.PI))
    return o.sel(low, core.sin_poly(o, r), core.cos_poly(o, r))


def sinpi_d(o: Ops, x: ll.Value) -> ll.Value:
    d = o.widen(x)
    r = _reduce_pi(o, d)
    a = o.fabs(r)
    s = o.sel(o.gt(a, o.d(0.5)), o.sub(o.d(1.0), a), a)
    v = o.copysign(_sin_pi_half(o, s), r)
    return o.sel(o.eq(s, o.d(0.0)), o.copysign(o.d(0.0), d), v)


def cospi_d(o: Ops, x: ll.Value) -> ll.Value:
    t = o.sub(o.d(0.5), o.fabs(_reduce_pi(o, o.widen(x))))  # cos(pi a) = sin(pi (1/2 - a))
    return o.copysign(_sin_pi_half(o, o.fabs(t)), t)


def tanpi(o: Ops, x: ll.Value) -> ll.Value:
    return o.div(sinpi_d(o, x), cospi_d(o, x))


def _atan(o: Ops, x: ll.Value) -> ll.Value:
    d = o.widen(x)
    return o.copysign(core.atan_core(o, o.fabs(d)), d)


def _asin(o: Ops, x: ll.Value) -> ll.Value:
    d = o.widen(x)
    a = o.fabs(d)
    c = o.sqrt(o.mul(o.sub(o.d(1.0), a), o.add(o.d(1.0), a)))
    return o.copysign(core.atan_core(o, o.div(a, c)), d)


def _acos(o: Ops, x: ll.Value) -> ll.Value:
    d = o.widen(x)
    t = o.sqrt(o.div(o.sub(o.d(1.0), d), o.add(o.d(1.0), d)))
    return o.mul(o.d(2.0), core.atan_core(o, t))


def _atan2(o: Ops, y: ll.Value, x: ll.Value) -> ll.Value:
    dy, dx = o.widen(y), o.widen(x)
    ay, ax = o.fabs(dy), o.fabs(dx)
    steep = o.gt(ay, ax)
    num, den = o.sel(steep, ax, ay), o.sel(steep, ay, ax)
    a = o.div(num, den)
    a = o.sel(o.eq(den, o.d(0.0)), o.d(0.0), a)  # both zero
    a = o.sel(o.eq(num, o.d(INF)), o.d(1.0), a)  # both infinite
    t = core.atan_core(o, a)
    t = o.sel(steep, o.sub(o.d(k.PI_2), t), t)
    t = o.sel(o.signbit(x), o.sub(o.d(k.PI), t), t)
    t = o.sel(o.or_(o.isnan(dx), o.isnan(dy)), o.d(NAN), t)
    return o.copysign(t, dy)


def _over_pi(fn: Callable[..., ll.Value]) -> Builtin:
    return lambda o, a: o.div(fn(o, *a), o.d(k.PI))


# -- hyperbolic ---------------------------------------------------------------------
def _expm1_abs(o: Ops, d: ll.Value, mult: float) -> ll.Value:
    """e^(mult |d|) - 1, clamped where the float result saturates."""
    return core.expm1(o, o.clamp(o.mul(o.fabs(d), o.d(mult * k.LOG2E)), -300, 300))


def sinh(o: Ops, x: ll.Value) -> ll.Value:
    d = o.widen(x)
    e = _expm1_abs(o, d, 1.0)
    v = o.mul(o.d(0.5), o.add(e, o.div(e, o.add(e, o.d(1.0)))))
    return o.copysign(v, d)


def cosh(o: Ops, x: ll.Value) -> ll.Value:
    d = o.widen(x)
    e = core.exp2(o, o.clamp(o.mul(o.fabs(d), o.d(k.LOG2E)), -300, 300))
    return o.mul(o.d(0.5), o.add(e, o.div(o.d(1.0), e)))


def tanh(o: Ops, x: ll.Value) -> ll.Value:
    d = o.widen(x)
    e = _expm1_abs(o, d, 2.0)
    return o.copysign(o.div(e, o.add(e, o.d(2.0))), d)


def asinh(o: Ops, x: ll.Value) -> ll.Value:
    d = o.widen(x)
    a = o.fabs(d)
    a2 = o.mul(a, a)
    v = log1p_full(o, o.add(a, o.div(a2, o.add(o.d(1.0), o.sqrt(o.add(o.d(1.0), a2))))))
    v = o.sel(o.eq(a, o.d(INF)), o.d(INF), v)
    return o.copysign(v, d)


def acosh(o: Ops, x: ll.Value) -> ll.Value:
    d = o.widen(x)
    t = o.sub(d, o.d(1.0))
    v = log1p_full(o, o.add(t, o.sqrt(o.mul(t, o.add(d, o.d(1.0))))))
    return o.sel(o.lt(d, o.d(1.0)), o.d(NAN), v)


def atanh(o: Ops, x: ll.Value) -> ll.Value:
    d = o.widen(x)
    a = o.fabs(d)
    v = o.mul(o.d(0.5), log1p_full(o, o.div(o.add(a, a), o.sub(o.d(1.0), a))))
    v = o.sel(o.gt(a, o.d(1.0)), o.d(NAN), v)
    return o.copysign(v, d)


# -- powers -------------------------------------------------------------------------
def _log2_abs(o: Ops, d: ll.Value) -> ll.Value:
    """log2|d| with log2(0) = -inf, log2(inf) = inf and NaN for NaN."""
    a = o.fabs(d)
    v = core.log2(o, a)
    v = o.sel(o.eq(a, o.d(0.0)), o.d(-INF), v)
    v = o.sel(o.eq(a, o.d(INF)), o.d(INF), v)
    return o.sel(o.isnan(a), a, v)


def _pow_abs(o: Ops, d: ll.Value, y: ll.Value) -> ll.Value:
    """|d|^y as 2^(y log2|d|), y a double."""
    return core.exp2(o, o.clamp(o.mul(y, _log2_abs(o, d)), -300, 300))


def pow_(o: Ops, x: ll.Value, y: ll.Value) -> ll.Value:
    d, dy = o.widen(x), o.widen(y)
    return pow_result(o, _pow_abs(o, d, dy), x, d, dy, 2.0 ** 24)


def powr(o: Ops, x: ll.Value, y: ll.Value) -> ll.Value:
    """pow for x >= 0; NaN for x < 0, 0^0, inf^0, 1^inf and NaN operands."""
    d, dy = o.widen(x), o.widen(y)
    return o.sel(powr_nan(o, d, dy), o.d(NAN), _pow_abs(o, d, dy))


def pown(o: Ops, x: ll.Value, n: ll.Value) -> ll.Value:
    d, dn = o.widen(x), o.sitofp(n)
    return pown_result(o, _pow_abs(o, d, dn), x, n, dn)


def rootn(o: Ops, x: ll.Value, n: ll.Value) -> ll.Value:
    d, dn = o.widen(x), o.sitofp(n)
    v = core.exp2(o, o.clamp(o.div(_log2_abs(o, d), dn), -300, 300))
    return rootn_result(o, v, d, n, dn)


def cbrt(o: Ops, x: ll.Value) -> ll.Value:
    d = o.widen(x)
    a = o.fabs(d)
    v = core.exp2(o, o.clamp(o.mul(_log2_abs(o, a), o.d(1 / 3)), -300, 300))
    v = o.sel(o.or_(o.eq(a, o.d(0.0)), o.eq(a, o.d(INF))), a, v)
    return o.copysign(v, d)


# -- error function -----------------------------------------------------------------
def _erfc_tail(o: Ops, a: ll.Value) -> ll.Value:
    """erfc(a) for a >= 1/2: e^(-a^2) P(t) / (1 + a), 0 beyond float's range (inf too)."""
    t = o.div(o.sub(a, o.d(k.ERFC_SHIFT)), o.add(a, o.d(k.ERFC_SHIFT)))
    damp = core.exp2(o, o.clamp(o.mul(o.mul(a, a), o.d(-k.LOG2E)), -300, 300))
    v = o.div(o.mul(damp, o.poly(t, k.ERFC)), o.add(a, o.d(1.0)))
    return o.sel(o.gt(a, o.d(k.ERFC_ZERO)), o.d(0.0), v)


def _erf_small(o: Ops, d: ll.Value) -> ll.Value:
    """erf(d) for |d| <= 1/2 (x^2 is exact in double for a float x)."""
    return o.mul(d, o.poly(o.mul(d, d), k.ERF))


def erf(o: Ops, x: ll.Value) -> ll.Value:
    d = o.widen(x)
    a = o.fabs(d)
    big = o.copysign(o.sub(o.d(1.0), _erfc_tail(o, a)), d)
    v = o.sel(o.lt(a, o.d(0.5)), _erf_small(o, d), big)
    return o.sel(o.isnan(d), d, v)


def erfc(o: Ops, x: ll.Value) -> ll.Value:
    d = o.widen(x)
    tail = _erfc_tail(o, o.fabs(d))
    big = o.sel(o.lt(d, o.d(0.0)), o.sub(o.d(2.0), tail), tail)
    v = o.sel(o.lt(o.fabs(d), o.d(0.5)), o.sub(o.d(1.0), _erf_small(o, d)), big)
    return o.sel(o.isnan(d), d, v)


def hypot(o: Ops, x: ll.Value, y: ll.Value) -> ll.Value:
    dx, dy = o.widen(x), o.widen(y)
    v = o.sqrt(o.mad(dx, dx, o.mul(dy, dy)))
    inf = o.or_(o.eq(o.fabs(dx), o.d(INF)), o.eq(o.fabs(dy), o.d(INF)))
    return o.sel(inf, o.d(INF), v)


FLOAT: dict[str, Builtin] = {
    "exp": _unary(_exp_base(k.LOG2E)), "exp2": _unary(_exp_base(1.0)),
    "exp10": _unary(_exp_base(k.LOG2_10)), "expm1": _unary(expm1),
    "log": _unary(_log_base(core.log)), "log2": _unary(_log_base(core.log2)),
    "log10": _unary(_log_base(_log10)),
    "log1p": _unary(lambda o, x: log1p_full(o, o.widen(x))),
    "sin": _unary(sin), "cos": _unary(cos), "tan": _unary(tan),
    "sinpi": _unary(sinpi_d), "cospi": _unary(cospi_d), "tanpi": _unary(tanpi),
    "asin": _unary(_asin), "acos": _unary(_acos), "atan": _unary(_atan),
    "atan2": _binary(_atan2),
    "asinpi": _over_pi(_asin), "acospi": _over_pi(_acos), "atanpi": _over_pi(_atan),
    "atan2pi": _over_pi(_atan2),
    "sinh": _unary(sinh), "cosh": _unary(cosh), "tanh": _unary(tanh),
    "asinh": _unary(asinh), "acosh": _unary(acosh), "atanh": _unary(atanh),
    "pow": _binary(pow_), "powr": _binary(powr), "pown": _binary(pown),
    "rootn": _binary(rootn), "cbrt": _unary(cbrt), "hypot": _binary(hypot),
    "erf": _unary(erf), "erfc": _unary(erfc),
}
