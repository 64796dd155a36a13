"""The double math builtins of the vectorisable math library.

Double has no wider type to hide rounding in, so these follow fdlibm's
methods (Cody-Waite reductions with exact heads, fdlibm's log kernel, sin and
cos kernels with a tail), within 1 to 2 ulp; the spec allows 3 (exp, log
families) and 4 (sin, cos) or 5 (tan).

`DOUBLE` maps a builtin to a function of (Ops, operands) returning a double.
The trigonometric ones reduce |x| < 2^19 pi/2 by Cody and Waite; a vector
with a larger (or infinite) lane takes a rare slow path that calls the C
library on every lane (`_SLOW`, through a `noinline` helper, so no vectoriser
turns those calls back into a call of this very function).
"""

from __future__ import annotations

import math
from typing import Callable

from llvmlite import ir as ll

from . import coefficients as k
from .double_core import rint_bits
from .lane_ops import F64, I1, I32, I64, Ops

INF, NAN = math.inf, math.nan
Builtin = Callable[[Ops, list[ll.Value]], ll.Value]
SHIFTER_BITS = 0x4338000000000000


# -- exponentials -------------------------------------------------------------------
def scale(o: Ops, kbits: ll.Value, v: ll.Value) -> ll.Value:
    """v * 2^k for k in [-1080, 1030] (the low bits of `kbits`), by two exact
    power-of-two factors, so a subnormal result is rounded once."""
    b = o.b
    kk = b.sub(kbits, o.i64(SHIFTER_BITS))
    k1 = b.ashr(kk, o.i64(1))
    k2 = b.sub(kk, k1)
    s1 = o.from_bits(b.shl(b.add(k1, o.i64(1023)), o.i64(52)), F64)
    s2 = o.from_bits(b.shl(b.add(k2, o.i64(1023)), o.i64(52)), F64)
    return o.mul(o.mul(v, s1), s2)


def exp_reduced(o: Ops, r: ll.Value, kbits: ll.Value) -> ll.Value:
    """2^k e^r for |r| <= ln2/2 (plus rounding)."""
    return scale(o, kbits, o.mad(r, o.poly(r, k.EXPM1_D), o.d(1.0)))


def exp(o: Ops, x: ll.Value) -> ll.Value:
    x = o.clamp(x, -746.0, 710.0)
    kd, kbits = rint_bits(o, o.mul(x, o.d(k.LOG2E)))
    r = o.sub(o.sub(x, o.mul(kd, o.d(k.LN2_HI))), o.mul(kd, o.d(k.LN2_LO)))
    return exp_reduced(o, r, kbits)


def exp2(o: Ops, x: ll.Value) -> ll.Value:
    x = o.clamp(x, -1080.0, 1030.0)
    kd, kbits = rint_bits(o, x)
    return exp_reduced(o, o.mul(o.sub(x, kd), o.d(k.LN2)), kbits)


def exp10(o: Ops, x: ll.Value) -> ll.Value:
    x = o.clamp(x, -330.0, 310.0)
    kd, kbits = rint_bits(o, o.mul(x, o.d(k.LOG2_10)))
    y = o.sub(o.sub(x, o.mul(kd, o.d(k.LOG10_2_HI))), o.mul(kd, o.d(k.LOG10_2_LO)))
    return exp_reduced(o, o.mul(y, o.d(k.LN10)), kbits)


# -- logarithms ---------------------------------------------------------------------
def _log_kernel(o: Ops, x: ll.Value) -> tuple[ll.Value, ll.Value, ll.Value]:
    """(e, f, t) for positive finite x = 2^e (1 + f), log(1 + f) = f - t (fdlibm)."""
    b = o.b
    tiny = o.lt(x, o.d(2.0 ** -1022))
    x = o.sel(tiny, o.mul(x, o.d(2.0 ** 54)), x)  # subnormals: scale into the normal range
    bits = o.bits(x)
    hi = b.trunc(b.lshr(bits, o.i64(32)), o.ty(I32))
    hx = b.sub(hi, o.i32(k.SQRT_HALF_HI))
    e = o.sub(o.sitofp(b.ashr(hx, o.i32(20))), o.sel(tiny, o.d(54.0), o.d(0.0)))
    mhi = b.add(b.and_(hx, o.i32(0x000FFFFF)), o.i32(k.SQRT_HALF_HI))
    mbits = b.or_(b.shl(b.zext(mhi, o.ty(I64)), o.i64(32)), b.and_(bits, o.i64(0xFFFFFFFF)))
    f = o.sub(o.from_bits(mbits, F64), o.d(1.0))
    s = o.div(f, o.add(o.d(2.0), f))
    z = o.mul(s, s)
    hfsq = o.mul(o.mul(o.d(0.5), f), f)
    t = o.sub(hfsq, o.mul(s, o.add(hfsq, o.mul(z, o.poly(z, k.LOG_D)))))
    return e, f, t


def _log_special(o: Ops, x: ll.Value, v: ll.Value) -> ll.Value:
    v = o.sel(o.eq(x, o.d(0.0)), o.d(-INF), v)
    v = o.sel(o.eq(x, o.d(INF)), o.d(INF), v)
    return o.sel(o.or_(o.lt(x, o.d(0.0)), o.isnan(x)), o.d(NAN), v)


def log(o: Ops, x: ll.Value) -> ll.Value:
    e, f, t = _log_kernel(o, x)
    v = o.add(o.mul(e, o.d(k.LN2_HI)), o.sub(f, o.sub(t, o.mul(e, o.d(k.LN2_LO)))))
    return _log_special(o, x, v)


def log2(o: Ops, x: ll.Value) -> ll.Value:
    e, f, t = _log_kernel(o, x)
    return _log_special(o, x, o.add(e, o.mul(o.sub(f, t), o.d(k.LOG2E))))


def log10(o: Ops, x: ll.Value) -> ll.Value:
    e, f, t = _log_kernel(o, x)
    tail = o.mad(o.sub(f, t), o.d(k.LOG10E), o.mul(e, o.d(k.LOG10_2_LO)))
    return _log_special(o, x, o.add(o.mul(e, o.d(k.LOG10_2_HI)), tail))


# -- trigonometry -------------------------------------------------------------------
def two_sum(o: Ops, a: ll.Value, b: ll.Value) -> tuple[ll.Value, ll.Value]:
    s = o.add(a, b)
    bb = o.sub(s, a)
    return s, o.add(o.sub(a, o.sub(s, bb)), o.sub(b, bb))


def _reduce(o: Ops, x: ll.Value) -> tuple[ll.Value, ll.Value, ll.Value]:
    """(q, hi, lo): x = k pi/2 + hi + lo, q = k mod 4, for |x| < PIO2_LIMIT."""
    kd, kbits = rint_bits(o, o.mul(x, o.d(2 / math.pi)))
    y = o.sub(x, o.mul(kd, o.d(k.PIO2_1)))  # exact: k has at most 19 bits, PIO2_1 33
    s1, e1 = two_sum(o, y, o.neg(o.mul(kd, o.d(k.PIO2_2))))
    s2, e2 = two_sum(o, s1, o.neg(o.mul(kd, o.d(k.PIO2_3))))
    lo = o.sub(o.add(e1, e2), o.mul(kd, o.d(k.PIO2_3T)))
    hi = o.add(s2, lo)
    return o.b.and_(kbits, o.i64(3)), hi, o.sub(lo, o.sub(hi, s2))


def sin_kernel(o: Ops, hi: ll.Value, lo: ll.Value) -> ll.Value:
    z = o.mul(hi, hi)
    tail = o.mad(o.mul(hi, z), o.poly(z, k.SIN_D), o.mul(lo, o.mad(z, o.d(-0.5), o.d(1.0))))
    return o.add(hi, tail)


def cos_kernel(o: Ops, hi: ll.Value, lo: ll.Value) -> ll.Value:
    z = o.mul(hi, hi)
    hz = o.mul(z, o.d(0.5))
    w = o.sub(o.d(1.0), hz)
    small = o.sub(o.mul(o.mul(z, z), o.poly(z, k.COS_D)), o.mul(hi, lo))
    return o.add(w, o.add(o.sub(o.sub(o.d(1.0), w), hz), small))


def _trig(o: Ops, x: ll.Value, name: str) -> ll.Value:
    q, hi, lo = _reduce(o, x)
    s, c = sin_kernel(o, hi, lo), cos_kernel(o, hi, lo)
    odd = o.b.trunc(q, o.ty(I1))
    if name == "tan":
        return o.negate_if(odd, o.div(o.sel(odd, c, s), o.sel(odd, s, c)))
    if name == "cos":
        q = o.b.add(q, o.i64(1))
        odd = o.b.trunc(q, o.ty(I1))
    negate = o.b.icmp_unsigned("!=", o.b.and_(q, o.i64(2)), o.i64(0))
    return o.negate_if(negate, o.sel(odd, c, s))


def _with_slow_lanes(o: Ops, x: ll.Value, fast: ll.Value, name: str) -> ll.Value:
    """`fast`, but the C library's result on every lane when some |x| >= PIO2_LIMIT."""
    b = o.b
    big = o.b.fcmp_unordered(">=", o.fabs(x), o.d(k.PIO2_LIMIT))  # inf too (NaN as well)
    any_big = big if o.lanes is None else b.icmp_unsigned(
        "!=", b.bitcast(big, ll.IntType(o.lanes)), ll.Constant(ll.IntType(o.lanes), 0))
    entry = b.block
    slow = b.append_basic_block("slow")
    done = b.append_basic_block("done")
    b.cbranch(any_big, slow, done)
    b.position_at_end(slow)
    helper = _slow_helper(o.module, name)
    if o.lanes is None:
        slow_v: ll.Value = b.call(helper, [x])
    else:
        slow_v = fast
        for lane in range(o.lanes):
            i = ll.Constant(I32, lane)
            v = b.select(b.extract_element(big, i), b.call(helper, [b.extract_element(x, i)]),
                         b.extract_element(fast, i))
            slow_v = b.insert_element(slow_v, v, i)
    slow_end = b.block
    b.branch(done)
    b.position_at_end(done)
    phi = b.phi(fast.type)
    phi.add_incoming(fast, entry)
    phi.add_incoming(slow_v, slow_end)
    return phi


def _slow_helper(module: ll.Module, name: str) -> ll.Function:
    """`oclpy.<name>.big.f64`: the C library's `name` behind a noinline call."""
    helper_name = f"oclpy.{name}.big.f64"
    fn = module.globals.get(helper_name)
    if isinstance(fn, ll.Function):
        return fn
    fn = ll.Function(module, ll.FunctionType(F64, [F64]), helper_name)
    fn.linkage = "internal"
    fn.attributes.add("noinline")
    libm = module.globals.get(name)
    if not isinstance(libm, ll.Function):
        libm = ll.Function(module, ll.FunctionType(F64, [F64]), name)
    b = ll.IRBuilder(fn.append_basic_block("entry"))
    b.ret(b.call(libm, [fn.args[0]]))
    return fn


def _trig_builtin(name: str) -> Builtin:
    def build(o: Ops, args: list[ll.Value]) -> ll.Value:
        x = args[0]
        v = _trig(o, x, name)
        if name != "cos":
            v = o.sel(o.eq(x, o.d(0.0)), x, v)  # sin(-0) = tan(-0) = -0
        return _with_slow_lanes(o, x, v, name)
    return build


DOUBLE: dict[str, Builtin] = {
    "exp": lambda o, a: exp(o, a[0]), "exp2": lambda o, a: exp2(o, a[0]),
    "exp10": lambda o, a: exp10(o, a[0]), "log": lambda o, a: log(o, a[0]),
    "log2": lambda o, a: log2(o, a[0]), "log10": lambda o, a: log10(o, a[0]),
    "sin": _trig_builtin("sin"), "cos": _trig_builtin("cos"), "tan": _trig_builtin("tan"),
}
