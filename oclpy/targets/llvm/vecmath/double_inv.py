"""atan, atan2, asin, acos (and their pi forms) on double, for the vectorisable
math library.

One kernel, atan on [0, inf]: 1/a above 1 (pi/2 - atan(1/a)), then
(z - 1)/(z + 1) above tan(pi/8) (pi/4 + atan(w)), then w + w^3 P(w^2) (a fit
to 1e-18, vecmath_consts.ATAN_D); pi/4, pi/2 and pi are added as head plus
tail. asin(x) = atan(x / sqrt((1 - x)(1 + x))), acos(x) =
2 atan(sqrt((1 - x)/(1 + x))), atan2 from the ratio of the smaller magnitude to
the larger. Within 2.5 ulp; the spec allows 4 (asin, acos), 5 (atan) and 6
(atan2), one more for the pi forms.
"""

from __future__ import annotations

import math
from typing import Callable

from llvmlite import ir as ll

from . import coefficients as k
from .lane_ops import Ops

INF, NAN = math.inf, math.nan


def _plus(o: Ops, hi: float, lo: float, t: ll.Value) -> ll.Value:
    """(hi + lo) + t, the constant's tail added first."""
    return o.add(o.d(hi), o.add(t, o.d(lo)))


def _minus(o: Ops, hi: float, lo: float, t: ll.Value) -> ll.Value:
    """(hi + lo) - t."""
    return o.add(o.d(hi), o.sub(o.d(lo), t))


def atan_abs(o: Ops, a: ll.Value) -> ll.Value:
    """atan(a) for a >= 0 (inf included; NaN stays NaN)."""
    inv = o.gt(a, o.d(1.0))
    z = o.sel(inv, o.div(o.d(1.0), a), a)
    mid = o.gt(z, o.d(k.TAN_PI_8))
    w = o.sel(mid, o.div(o.sub(z, o.d(1.0)), o.add(z, o.d(1.0))), z)
    ww = o.mul(w, w)
    t = o.mad(o.mul(w, ww), o.poly(ww, k.ATAN_D), w)
    t = o.sel(mid, _plus(o, k.PI_4_HI, k.PI_4_LO, t), t)
    return o.sel(inv, _minus(o, k.PI_2_HI, k.PI_2_LO, t), t)


def atan(o: Ops, x: ll.Value) -> ll.Value:
    return o.copysign(atan_abs(o, o.fabs(x)), x)


def asin(o: Ops, x: ll.Value) -> ll.Value:
    a = o.fabs(x)
    c = o.sqrt(o.mul(o.sub(o.d(1.0), a), o.add(o.d(1.0), a)))
    return o.copysign(atan_abs(o, o.div(a, c)), x)


def acos(o: Ops, x: ll.Value) -> ll.Value:
    t = o.sqrt(o.div(o.sub(o.d(1.0), x), o.add(o.d(1.0), x)))
    return o.mul(o.d(2.0), atan_abs(o, t))


def atan2(o: Ops, y: ll.Value, x: ll.Value) -> ll.Value:
    ay, ax = o.fabs(y), o.fabs(x)
    steep = o.gt(ay, ax)
    num, den = o.sel(steep, ax, ay), o.sel(steep, ay, ax)
    a = o.div(num, den)
    a = o.sel(o.eq(den, o.d(0.0)), o.d(0.0), a)  # both zero
    a = o.sel(o.eq(num, o.d(INF)), o.d(1.0), a)  # both infinite
    t = atan_abs(o, a)
    t = o.sel(steep, _minus(o, k.PI_2_HI, k.PI_2_LO, t), t)
    t = o.sel(o.signbit(x), _minus(o, k.PI_HI, k.PI_LO, t), t)
    t = o.sel(o.or_(o.isnan(x), o.isnan(y)), o.d(NAN), t)
    return o.copysign(t, y)


def _over_pi(fn: Callable[..., ll.Value]) -> Callable[[Ops, list[ll.Value]], ll.Value]:
    return lambda o, a: o.div(fn(o, *a), o.d(k.PI))


DOUBLE_INV: dict[str, Callable[[Ops, list[ll.Value]], ll.Value]] = {
    "atan": lambda o, a: atan(o, a[0]), "asin": lambda o, a: asin(o, a[0]),
    "acos": lambda o, a: acos(o, a[0]), "atan2": lambda o, a: atan2(o, a[0], a[1]),
    "atanpi": _over_pi(atan), "asinpi": _over_pi(asin), "acospi": _over_pi(acos),
    "atan2pi": _over_pi(atan2),
}
