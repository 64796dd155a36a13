"""Lowering of the math builtins that are not one target intrinsic: the
magnitude selections (`maxmag`, `minmag`), bit-level ones (`ilogb`, `nan`,
`frexp`) and those with an output pointer (`fract`, `modf`, `sincos`,
`lgamma_r`, `remquo`), written as IR over the `ocl.<math>` intrinsics.

`MATH_IMPLS` maps impl keys of `builtins.TABLE` to functions taking the
`BuiltinContext` (cx), the chosen overload, the lowered arguments and the
call; `builtin_calls.IMPLS` includes it.
"""

from __future__ import annotations

import math
from typing import Optional

from ....ir import types as ir
from ....ir.values import Value
from .. import ast
from ..builtins import table as bi
from ..layout import plain_type
from ..builtins.intrinsic_calls import call_math
from .helpers import const_of, scalar_bits
from ..builtins.builtin_context import BuiltinContext, BuiltinImpl

INT_MIN, INT_MAX = -(1 << 31), (1 << 31) - 1


def _fmt(t: ir.Type) -> tuple[int, int]:
    """(mantissa bits, exponent bias) of float type `t`."""
    return {64: (52, 1023), 32: (23, 127), 16: (10, 15)}[scalar_bits(t)]


def _int_like(t: ir.Type, bits: int) -> ir.Type:
    return ir.VectorType(ir.IntType(bits), t.count) if isinstance(t, ir.VectorType) else ir.IntType(bits)


def _is_special(cx: BuiltinContext, x: Value) -> Value:
    """x is zero, infinite or NaN."""
    b = cx.b
    ax = call_math(cx, "fabs", [x])
    zero_or_inf = b.binop("or", b.fcmp("oeq", ax, const_of(x.type, 0.0)), b.fcmp("oeq", ax, const_of(x.type, math.inf)))
    return b.binop("or", zero_or_inf, b.fcmp("uno", x, x))


def _to_int32(cx: BuiltinContext, v: Value) -> Value:
    it = _int_like(v.type, 32)
    if v.type == it:
        return v
    return cx.b.cast("trunc" if scalar_bits(v.type) > 32 else "sext", v, it)  # sext: half's exponent


def _store_out(cx: BuiltinContext, v: Value, p: Value) -> None:
    cx.b.store(v, p, scalar_bits(v.type) // 8)


def b_magnitude(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    """maxmag/minmag: the operand of larger/smaller magnitude, else fmax/fmin."""
    x, y = args
    ax, ay = call_math(cx, "fabs", [x]), call_math(cx, "fabs", [y])
    big = sig.name == "maxmag"
    pick_x = cx.b.fcmp("ogt" if big else "olt", ax, ay)
    pick_y = cx.b.fcmp("ogt" if big else "olt", ay, ax)
    r = call_math(cx, "fmax" if big else "fmin", [x, y])
    return cx.b.select(pick_x, x, cx.b.select(pick_y, y, r))


def b_ilogb(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    """ilogb: logb as int; FP_ILOGB0 for zero, FP_ILOGBNAN for NaN, INT_MAX for infinity."""
    x = args[0]
    b, it = cx.b, plain_type(sig.ret)
    special = _is_special(cx, x)
    lb = b.select(special, const_of(x.type, 0.0), call_math(cx, "logb", [x]))
    r = b.cast("fptosi", lb, it)
    ax = call_math(cx, "fabs", [x])
    r = b.select(b.fcmp("oeq", ax, const_of(x.type, math.inf)), const_of(it, INT_MAX), r)
    r = b.select(b.fcmp("oeq", ax, const_of(x.type, 0.0)), const_of(it, INT_MIN), r)
    return b.select(b.fcmp("uno", x, x), const_of(it, INT_MIN), r)


def b_nan(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    """nan(nancode): a quiet NaN carrying nancode in its low significand bits."""
    code = args[0]
    ft = plain_type(sig.ret)
    mant, _ = _fmt(ft)
    bits = cx.b.binop("and", code, const_of(code.type, (1 << (mant - 1)) - 1))
    exp_quiet = ((1 << (scalar_bits(ft) - mant - 1)) - 1) << mant | 1 << (mant - 1)
    return cx.b.cast("bitcast", cx.b.binop("or", bits, const_of(code.type, exp_quiet)), ft)


def b_frexp(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    """frexp: x = m * 2^e with |m| in [0.5, 1); zero, inf and NaN give x and 0."""
    x, p = args
    b, t = cx.b, args[0].type
    mant, bias = _fmt(t)
    width = scalar_bits(t)
    it = _int_like(t, width)
    tiny = cx.b.fcmp("olt", call_math(cx, "fabs", [x]), const_of(t, 2.0 ** (1 - bias)))
    scale = 64 if width > 16 else 12  # makes a subnormal normal (half: 2^12, within its range)
    xs = b.select(tiny, b.binop("fmul", x, const_of(t, 2.0 ** scale)), x)
    bits = b.cast("bitcast", xs, it)
    exp_mask = (1 << (width - mant - 1)) - 1
    biased = b.binop("and", b.binop("lshr", bits, const_of(it, mant)), const_of(it, exp_mask))
    ex = b.binop("sub", biased, b.select(tiny, const_of(it, bias - 1 + scale), const_of(it, bias - 1)))
    mbits = b.binop("or", b.binop("and", bits, const_of(it, ~(exp_mask << mant))), const_of(it, (bias - 1) << mant))
    special = _is_special(cx, x)
    _store_out(cx, _to_int32(cx, b.select(special, const_of(it, 0), ex)), p)
    return b.select(special, x, b.cast("bitcast", mbits, t))


def b_fract(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    """fract: min(x - floor(x), 0x1.fffffep-1f); *iptr = floor(x); ±inf gives ±0, ±0 gives ±0."""
    x, p = args
    b, t = cx.b, args[0].type
    fl = call_math(cx, "floor", [x])
    _store_out(cx, fl, p)
    mant, _ = _fmt(t)
    r = call_math(cx, "fmin", [b.binop("fsub", x, fl), const_of(t, 1.0 - 2.0 ** -(mant + 1))])
    inf = b.fcmp("oeq", call_math(cx, "fabs", [x]), const_of(t, math.inf))
    r = b.select(inf, call_math(cx, "copysign", [const_of(t, 0.0), x]), r)
    keep_x = b.binop("or", b.fcmp("uno", x, x), b.fcmp("oeq", x, const_of(t, 0.0)))  # NaN, ±0
    return b.select(keep_x, x, r)


def b_modf(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    """modf: the fractional part with x's sign; *iptr = trunc(x)."""
    x, p = args
    b, t = cx.b, args[0].type
    whole = call_math(cx, "trunc", [x])
    _store_out(cx, whole, p)
    inf = b.fcmp("oeq", call_math(cx, "fabs", [x]), const_of(t, math.inf))
    frac = b.select(inf, const_of(t, 0.0), b.binop("fsub", x, whole))
    return call_math(cx, "copysign", [frac, x])


def b_sincos(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    x, p = args
    _store_out(cx, call_math(cx, "cos", [x]), p)
    return call_math(cx, "sin", [x])


def b_lgamma_r(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    """lgamma_r: log|gamma(x)|, *signp = the sign of gamma(x) (0 for NaN)."""
    x, p = args
    b, t = cx.b, args[0].type
    fl = call_math(cx, "floor", [x])
    half = b.binop("fmul", fl, const_of(t, 0.5))
    even = b.fcmp("oeq", half, call_math(cx, "floor", [half]))
    positive = b.binop("or", b.fcmp("ogt", x, const_of(t, 0.0)), even)
    s = b.select(positive, const_of(t, 1.0), const_of(t, -1.0))
    s = b.select(b.fcmp("uno", x, x), const_of(t, 0.0), s)
    _store_out(cx, b.cast("fptosi", s, _int_like(t, 32)), p)
    return call_math(cx, "lgamma", [x])


def b_remquo(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    """remquo: remainder(x, y); *quo has the sign of x/y and the low 3 bits of
    the quotient's magnitude (taken from fmod(x, 8y), which keeps them)."""
    x, y, p = args
    b, t = cx.b, args[0].type
    it = _int_like(t, 32)
    r = call_math(cx, "remainder", [x, y])
    m = call_math(cx, "fmod", [x, b.binop("fmul", y, const_of(t, 8.0))])
    k = call_math(cx, "rint", [b.binop("fdiv", b.binop("fsub", m, r), y)])
    bad = b.fcmp("uno", k, k)
    k = b.select(b.binop("or", bad, b.fcmp("oge", call_math(cx, "fabs", [k]), const_of(t, 64.0))), const_of(t, 0.0), k)
    ki = b.cast("fptosi", k, it)
    neg = b.binop("xor", _sign_bit(cx, x), _sign_bit(cx, y))
    mag = b.binop("and", b.select(neg, b.binop("sub", const_of(it, 0), ki), ki), const_of(it, 7))
    quo = b.select(neg, b.binop("sub", const_of(it, 0), mag), mag)
    _store_out(cx, b.select(b.fcmp("uno", r, r), const_of(it, 0), quo), p)
    return r


def _sign_bit(cx: BuiltinContext, x: Value) -> Value:
    it = _int_like(x.type, scalar_bits(x.type))
    return cx.b.icmp("slt", cx.b.cast("bitcast", x, it), const_of(it, 0))


MATH_IMPLS: dict[str, BuiltinImpl] = {
    "magnitude": b_magnitude, "ilogb": b_ilogb, "nan": b_nan, "frexp": b_frexp, "fract": b_fract,
    "modf": b_modf, "sincos": b_sincos, "lgamma_r": b_lgamma_r, "remquo": b_remquo,
}


def half_nextafter(cx: BuiltinContext, x: Value, y: Value) -> Value:
    """nextafter on halves, stepping x's bits (the float function, rounded back to half,
    would return x itself): toward y one unit, from ±0 to the smallest subnormal of
    y's sign; y when they are equal, a NaN when either is one."""
    b, t = cx.b, x.type
    it = _int_like(t, 16)
    bits, ybits = b.cast("bitcast", x, it), b.cast("bitcast", y, it)
    away = b.binop("xor", b.fcmp("olt", x, y), b.fcmp("olt", x, const_of(t, 0.0)))  # |x| grows
    stepped = b.select(away, b.binop("add", bits, const_of(it, 1)), b.binop("sub", bits, const_of(it, 1)))
    tiny = b.binop("or", b.binop("and", ybits, const_of(it, -0x8000)), const_of(it, 1))
    r = b.select(b.fcmp("oeq", x, const_of(t, 0.0)), tiny, stepped)
    r = b.select(b.fcmp("oeq", x, y), ybits, r)
    out = b.cast("bitcast", r, t)
    return b.select(b.fcmp("uno", x, y), b.binop("fadd", x, y), out)
