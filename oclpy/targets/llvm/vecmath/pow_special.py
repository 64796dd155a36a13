"""The special operands of pow, powr, pown and rootn (C99 Annex F, OpenCL C 7.5),
shared by their float (single.py) and double (double_pow.py) versions.

Each function takes the magnitude its caller computed, `v` = |x|^y (or
|x|^(1/n)), and selects the results of the special operands in, without
branches. `x` is the operand as the builtin got it (for its sign bit), `d` the
same value in the type of `v`; `y` and `dn` are in that type too.
"""

from __future__ import annotations

import math

from llvmlite import ir as ll

from .lane_ops import I1, Ops

INF, NAN = math.inf, math.nan


def pow_result(o: Ops, v: ll.Value, x: ll.Value, d: ll.Value, y: ll.Value, exact: float) -> ll.Value:
    """pow: an odd integer y gives v the sign of x, a negative finite x to a
    non-integer y is NaN, and y = 0, x = 1 and (-1)^±inf are 1. Every |y| from
    `exact` on is an even integer (2^24 in float, 2^53 in double)."""
    integer = o.eq(o.rint(y), y)
    half = o.mul(y, o.d(0.5))
    odd = o.and_(o.and_(integer, o.lt(o.fabs(y), o.d(exact))), o.ne(o.rint(half), half))
    v = o.negate_if(o.and_(odd, o.signbit(x)), v)
    negative_finite = o.and_(o.lt(d, o.d(0.0)), o.gt(d, o.d(-INF)))
    v = o.sel(o.and_(negative_finite, o.not_(integer)), o.d(NAN), v)
    one = o.or_(o.eq(y, o.d(0.0)), o.eq(d, o.d(1.0)))
    one = o.or_(one, o.and_(o.eq(d, o.d(-1.0)), o.eq(o.fabs(y), o.d(INF))))
    return o.sel(one, o.d(1.0), v)


def powr_nan(o: Ops, d: ll.Value, y: ll.Value) -> ll.Value:
    """Where powr is NaN: x < 0, 0^0, inf^0, 1^±inf and NaN operands."""
    y_zero = o.eq(y, o.d(0.0))
    bad = o.or_(o.lt(d, o.d(0.0)), o.b.fcmp_unordered("uno", d, y))
    bad = o.or_(bad, o.and_(o.eq(d, o.d(0.0)), y_zero))
    bad = o.or_(bad, o.and_(o.eq(d, o.d(INF)), y_zero))
    return o.or_(bad, o.and_(o.eq(d, o.d(1.0)), o.eq(o.fabs(y), o.d(INF))))


def pown_result(o: Ops, v: ll.Value, x: ll.Value, n: ll.Value, dn: ll.Value) -> ll.Value:
    """pown: an odd n gives v the sign of x; n = 0 gives 1."""
    odd = o.b.trunc(n, o.ty(I1))
    v = o.negate_if(o.and_(odd, o.signbit(x)), v)
    return o.sel(o.eq(dn, o.d(0.0)), o.d(1.0), v)


def rootn_result(o: Ops, v: ll.Value, d: ll.Value, n: ll.Value, dn: ll.Value) -> ll.Value:
    """rootn: an odd n gives v the sign of x, an even one of a negative x is NaN,
    and n = 0 is NaN."""
    odd = o.b.trunc(n, o.ty(I1))
    v = o.sel(odd, o.copysign(v, d), o.sel(o.lt(d, o.d(0.0)), o.d(NAN), v))
    return o.sel(o.eq(dn, o.d(0.0)), o.d(NAN), v)
