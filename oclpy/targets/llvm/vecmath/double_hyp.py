"""expm1, log1p, sinh, cosh, tanh and hypot on double, for the vectorisable
math library, from the double exp and log kernels (vecmath_double.py).

- expm1: 2^k (e^r - 1 + (1 - 2^-k)), with e^r - 1 = r P(r) free of cancellation
  and 1 - 2^-k exact; below ln2/2 that is r P(r) itself.
- log1p: log(u) - ((u - 1) - x)/u with u = 1 + x rounded (the correction puts
  back what the rounding lost).
- sinh, cosh, tanh: from expm1 (sinh: (E + E/(E + 1))/2, tanh: E/(E + 2)), or
  from exp(|x|/2) squared above 22, where e^-|x| no longer counts, so nothing
  overflows before the result does.
- hypot: max * sqrt(1 + (min/max)^2).
"""

from __future__ import annotations

import math
from typing import Callable

from llvmlite import ir as ll

from . import coefficients as k
from .double_core import rint_bits
from .double import SHIFTER_BITS, scale, exp, log
from .lane_ops import F64, Ops

INF, NAN = math.inf, math.nan
BIG = 22.0  # above, cosh = sinh = e^|x| / 2 to double precision


def expm1(o: Ops, x: ll.Value) -> ll.Value:
    c = o.clamp(x, -40.0, 710.0)  # expm1 is -1 to double precision below -38
    kd, kbits = rint_bits(o, o.mul(c, o.d(k.LOG2E)))
    r = o.sub(o.sub(c, o.mul(kd, o.d(k.LN2_HI))), o.mul(kd, o.d(k.LN2_LO)))
    rp = o.mul(r, o.poly(r, k.EXPM1_D))  # e^r - 1
    b = o.b
    kk = b.sub(kbits, o.i64(SHIFTER_BITS))
    neg_k = b.sub(o.i64(0), b.select(b.icmp_signed(">", kk, o.i64(60)), o.i64(60), kk))
    inv_scale = o.from_bits(b.shl(b.add(neg_k, o.i64(1023)), o.i64(52)), F64)  # 2^-min(k, 60)
    v = scale(o, kbits, o.add(rp, o.sub(o.d(1.0), inv_scale)))
    v = o.sel(o.eq(kd, o.d(0.0)), rp, v)
    return o.sel(o.eq(x, o.d(0.0)), x, v)  # expm1(-0) = -0


def log1p(o: Ops, x: ll.Value) -> ll.Value:
    u = o.add(x, o.d(1.0))
    correction = o.div(o.sub(o.sub(u, o.d(1.0)), x), u)
    v = o.sub(log(o, u), correction)
    v = o.sel(o.eq(u, o.d(INF)), o.d(INF), v)
    v = o.sel(o.or_(o.eq(u, o.d(1.0)), o.eq(x, o.d(0.0))), x, v)  # tiny x (and -0)
    return o.sel(o.eq(x, o.d(-1.0)), o.d(-INF), v)  # x < -1 and NaN: log's NaN


def _half_exp_squared(o: Ops, a: ll.Value) -> ll.Value:
    """e^a / 2 for a > BIG, as (e^(a/2) / 2) * e^(a/2): no early overflow."""
    w = exp(o, o.mul(a, o.d(0.5)))
    return o.mul(o.mul(w, o.d(0.5)), w)


def sinh(o: Ops, x: ll.Value) -> ll.Value:
    a = o.fabs(x)
    e = expm1(o, o.sel(o.gt(a, o.d(BIG)), o.d(BIG), a))
    v = o.mul(o.d(0.5), o.add(e, o.div(e, o.add(e, o.d(1.0)))))
    v = o.sel(o.gt(a, o.d(BIG)), _half_exp_squared(o, a), v)
    return o.copysign(v, x)


def cosh(o: Ops, x: ll.Value) -> ll.Value:
    a = o.fabs(x)
    e = exp(o, o.sel(o.gt(a, o.d(BIG)), o.d(BIG), a))
    v = o.mul(o.d(0.5), o.add(e, o.div(o.d(1.0), e)))
    return o.sel(o.gt(a, o.d(BIG)), _half_exp_squared(o, a), v)


def tanh(o: Ops, x: ll.Value) -> ll.Value:
    a = o.fabs(x)
    e = expm1(o, o.add(o.clamp(a, 0.0, BIG), o.clamp(a, 0.0, BIG)))
    return o.copysign(o.div(e, o.add(e, o.d(2.0))), x)


def hypot(o: Ops, x: ll.Value, y: ll.Value) -> ll.Value:
    ax, ay = o.fabs(x), o.fabs(y)
    big = o.gt(ay, ax)
    hi, lo = o.sel(big, ay, ax), o.sel(big, ax, ay)
    r = o.div(lo, hi)
    v = o.mul(hi, o.sqrt(o.mad(r, r, o.d(1.0))))
    v = o.sel(o.eq(hi, o.d(0.0)), o.d(0.0), v)
    v = o.sel(o.or_(o.isnan(x), o.isnan(y)), o.d(NAN), v)
    return o.sel(o.or_(o.eq(ax, o.d(INF)), o.eq(ay, o.d(INF))), o.d(INF), v)


DOUBLE_HYP: dict[str, Callable[[Ops, list[ll.Value]], ll.Value]] = {
    "expm1": lambda o, a: expm1(o, a[0]), "log1p": lambda o, a: log1p(o, a[0]),
    "sinh": lambda o, a: sinh(o, a[0]), "cosh": lambda o, a: cosh(o, a[0]),
    "tanh": lambda o, a: tanh(o, a[0]), "hypot": lambda o, a: hypot(o, a[0], a[1]),
}
