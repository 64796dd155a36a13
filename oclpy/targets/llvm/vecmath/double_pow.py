"""pow, powr, pown and rootn on double, for the vectorisable math library.

A double result within the spec's 16 ulp needs y * log(x) to about 2^-60
relative: log|x| is computed as a double-double (hi + lo) from fdlibm's
decomposition x = 2^e (1 + f), log(1 + f) = 2 atanh(s), s = f/(1 + m), with
s, s^2 and the (2/3) s^3 term carried exactly by fused multiply-adds; the
product with y keeps its rounding error (fma), and the exponential folds the
low part into its reduced argument. The results of special operands (C99
Annex F, OpenCL C 7.5) are selected in by pow_special.py, as for float.
"""

from __future__ import annotations

import math
from typing import Callable

from llvmlite import ir as ll

from . import coefficients as k
from .double_core import rint_bits
from .double import exp_reduced, two_sum
from .lane_ops import F64, I32, I64, Ops
from .pow_special import pow_result, pown_result, powr_nan, rootn_result

INF, NAN = math.inf, math.nan
DD = tuple[ll.Value, ll.Value]


def _fast_two_sum(o: Ops, a: ll.Value, b: ll.Value) -> DD:
    s = o.add(a, b)
    return s, o.sub(b, o.sub(s, a))


def _split_exponent(o: Ops, x: ll.Value) -> DD:
    """(e, m): x = 2^e m, m in [sqrt(1/2), sqrt(2)), for positive finite x (subnormals too)."""
    b = o.b
    tiny = o.lt(x, o.d(2.0 ** -1022))
    x = o.sel(tiny, o.mul(x, o.d(2.0 ** 54)), x)
    bits = o.bits(x)
    hx = b.sub(b.trunc(b.lshr(bits, o.i64(32)), o.ty(I32)), o.i32(k.SQRT_HALF_HI))
    e = o.sub(o.sitofp(b.ashr(hx, o.i32(20))), o.sel(tiny, o.d(54.0), o.d(0.0)))
    mhi = b.add(b.and_(hx, o.i32(0x000FFFFF)), o.i32(k.SQRT_HALF_HI))
    mbits = b.or_(b.shl(b.zext(mhi, o.ty(I64)), o.i64(32)), b.and_(bits, o.i64(0xFFFFFFFF)))
    return e, o.from_bits(mbits, F64)


def log_dd(o: Ops, x: ll.Value) -> DD:
    """log(x) as hi + lo (about 2^-100 relative) for positive finite x."""
    e, m = _split_exponent(o, x)
    f = o.sub(m, o.d(1.0))  # exact
    d_hi, d_lo = two_sum(o, m, o.d(1.0))
    s_hi = o.div(f, d_hi)
    s_lo = o.div(o.sub(o.fma(o.neg(s_hi), d_hi, f), o.mul(s_hi, d_lo)), d_hi)
    z = o.mul(s_hi, s_hi)
    z_lo = o.fma(s_hi, s_hi, o.neg(z))
    p = o.mul(s_hi, z)  # s^3 = p + p_lo
    p_lo = o.mad(s_hi, z_lo, o.fma(s_hi, z, o.neg(p)))
    q = o.mul(p, o.d(k.TWO_THIRDS_HI))  # (2/3) s^3 = q + q_lo
    q_lo = o.add(o.fma(p, o.d(k.TWO_THIRDS_HI), o.neg(q)),
                 o.mad(p_lo, o.d(k.TWO_THIRDS_HI), o.mul(p, o.d(k.TWO_THIRDS_LO))))
    tail = o.mul(o.mul(p, z), o.poly(z, k.LOG_DD))  # s^5 (2/5 + 2 s^2/7 + ...)
    two_s = o.add(s_hi, s_hi)
    a, a_err = two_sum(o, two_s, q)
    lo = o.add(o.add(s_lo, s_lo), o.mad(o.add(z, z), s_lo, o.add(q_lo, tail)))
    h, h_err = two_sum(o, o.mul(e, o.d(k.LN2_HI)), a)
    lo = o.add(o.add(h_err, a_err), o.mad(e, o.d(k.LN2_LO), lo))
    return _fast_two_sum(o, h, lo)


def _log_abs_dd(o: Ops, x: ll.Value) -> DD:
    """log|x| as hi + lo, with log 0 = -inf, log inf = inf, NaN for NaN (lo 0 then)."""
    a = o.fabs(x)
    hi, lo = log_dd(o, a)
    special = o.not_(o.and_(o.gt(a, o.d(0.0)), o.lt(a, o.d(INF))))
    hi = o.sel(o.eq(a, o.d(0.0)), o.d(-INF), o.sel(o.eq(a, o.d(INF)), o.d(INF), hi))
    hi = o.sel(o.isnan(a), a, hi)
    return hi, o.sel(special, o.d(0.0), lo)


def exp_dd(o: Ops, hi: ll.Value, lo: ll.Value) -> ll.Value:
    """e^(hi + lo); saturates to inf or 0 beyond the double range (NaN stays NaN)."""
    lo = o.sel(o.lt(o.fabs(hi), o.d(746.0)), lo, o.d(0.0))
    x = o.clamp(hi, -746.0, 710.0)
    kd, kbits = rint_bits(o, o.mul(x, o.d(k.LOG2E)))
    r = o.sub(o.sub(x, o.mul(kd, o.d(k.LN2_HI))), o.mul(kd, o.d(k.LN2_LO)))
    return exp_reduced(o, o.add(r, lo), kbits)


def _times(o: Ops, y: ll.Value, log_hi: ll.Value, log_lo: ll.Value) -> DD:
    """y * (log_hi + log_lo) as hi + lo."""
    t = o.mul(y, log_hi)
    return t, o.mad(y, log_lo, o.fma(y, log_hi, o.neg(t)))


def pow_d(o: Ops, x: ll.Value, y: ll.Value) -> ll.Value:
    return pow_result(o, exp_dd(o, *_times(o, y, *_log_abs_dd(o, x))), x, x, y, 2.0 ** 53)


def powr_d(o: Ops, x: ll.Value, y: ll.Value) -> ll.Value:
    """pow for x >= 0; NaN for x < 0, 0^0, inf^0, 1^inf and NaN operands."""
    return o.sel(powr_nan(o, x, y), o.d(NAN), exp_dd(o, *_times(o, y, *_log_abs_dd(o, x))))


def pown_d(o: Ops, x: ll.Value, n: ll.Value) -> ll.Value:
    dn = o.sitofp(n)
    return pown_result(o, exp_dd(o, *_times(o, dn, *_log_abs_dd(o, x))), x, n, dn)


def rootn_d(o: Ops, x: ll.Value, n: ll.Value) -> ll.Value:
    dn = o.sitofp(n)
    log_hi, log_lo = _log_abs_dd(o, x)
    t = o.div(log_hi, dn)
    t_lo = o.div(o.add(o.fma(o.neg(t), dn, log_hi), log_lo), dn)
    v = exp_dd(o, t, o.sel(o.isnan(t_lo), o.d(0.0), t_lo))
    return rootn_result(o, v, x, n, dn)


DOUBLE_POW: dict[str, Callable[[Ops, list[ll.Value]], ll.Value]] = {
    "pow": lambda o, a: pow_d(o, a[0], a[1]), "powr": lambda o, a: powr_d(o, a[0], a[1]),
    "pown": lambda o, a: pown_d(o, a[0], a[1]), "rootn": lambda o, a: rootn_d(o, a[0], a[1]),
}
