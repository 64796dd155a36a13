"""Lowering of the math builtins that are not one target intrinsic: the
magnitude selections (`maxmag`, `minmag`), bit-level ones (`ilogb`, `nan`,
`frexp`) and those with an output pointer (`fract`, `modf`, `sincos`,
`lgamma_r`, `remquo`), written as IR over the `ocl.<math>` intrinsics.

`MATH_IMPLS` maps impl keys of `builtins.TABLE` to functions taking the
`BuiltinLowering` (self), the chosen overload, the lowered arguments and the
call; `lower_builtins.IMPLS` includes it.
"""

from __future__ import annotations

import math
from typing import Callable, Optional

from ....ir import types as ir
from ....ir.values import Value
from .. import ast
from ..builtins import table as bi
from ..layout import reg_type
from .helpers import const_of

INT_MIN, INT_MAX = -(1 << 31), (1 << 31) - 1


def _fmt(t: ir.Type) -> tuple[int, int]:
    """(mantissa bits, exponent bias) of float type `t`."""
    return (52, 1023) if t.scalar().bits == 64 else (23, 127)  # type: ignore[attr-defined]


def _int_like(t: ir.Type, bits: int) -> ir.Type:
    return ir.VectorType(ir.IntType(bits), t.count) if isinstance(t, ir.VectorType) else ir.IntType(bits)


def _is_special(self, x: Value) -> Value:
    """x is zero, infinite or NaN."""
    b = self.b
    ax = self.math("fabs", [x])
    zero_or_inf = b.binop("or", b.fcmp("oeq", ax, const_of(x.type, 0.0)), b.fcmp("oeq", ax, const_of(x.type, math.inf)))
    return b.binop("or", zero_or_inf, b.fcmp("uno", x, x))


def _to_int32(self, v: Value) -> Value:
    it = _int_like(v.type, 32)
    return v if v.type == it else self.b.cast("trunc", v, it)


def _store_out(self, v: Value, p: Value) -> None:
    self.b.store(v, p, v.type.scalar().bits // 8)


def b_magnitude(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
    """maxmag/minmag: the operand of larger/smaller magnitude, else fmax/fmin."""
    x, y = args
    ax, ay = self.math("fabs", [x]), self.math("fabs", [y])
    big = sig.name == "maxmag"
    pick_x = self.b.fcmp("ogt" if big else "olt", ax, ay)
    pick_y = self.b.fcmp("ogt" if big else "olt", ay, ax)
    r = self.math("fmax" if big else "fmin", [x, y])
    return self.b.select(pick_x, x, self.b.select(pick_y, y, r))


def b_ilogb(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
    """ilogb: logb as int; FP_ILOGB0 for zero, FP_ILOGBNAN for NaN, INT_MAX for infinity."""
    x = args[0]
    b, it = self.b, reg_type(sig.ret)
    special = _is_special(self, x)
    lb = b.select(special, const_of(x.type, 0.0), self.math("logb", [x]))
    r = b.cast("fptosi", lb, it)
    ax = self.math("fabs", [x])
    r = b.select(b.fcmp("oeq", ax, const_of(x.type, math.inf)), const_of(it, INT_MAX), r)
    r = b.select(b.fcmp("oeq", ax, const_of(x.type, 0.0)), const_of(it, INT_MIN), r)
    return b.select(b.fcmp("uno", x, x), const_of(it, INT_MIN), r)


def b_nan(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
    """nan(nancode): a quiet NaN carrying nancode in its low significand bits."""
    code = args[0]
    ft = reg_type(sig.ret)
    mant, _ = _fmt(ft)
    bits = self.b.binop("and", code, const_of(code.type, (1 << (mant - 1)) - 1))
    exp_quiet = ((1 << (ft.scalar().bits - mant - 1)) - 1) << mant | 1 << (mant - 1)  # type: ignore[attr-defined]
    return self.b.cast("bitcast", self.b.binop("or", bits, const_of(code.type, exp_quiet)), ft)


def b_frexp(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
    """frexp: x = m * 2^e with |m| in [0.5, 1); zero, inf and NaN give x and 0."""
    x, p = args
    b, t = self.b, args[0].type
    mant, bias = _fmt(t)
    width = t.scalar().bits  # type: ignore[attr-defined]
    it = _int_like(t, width)
    tiny = self.b.fcmp("olt", self.math("fabs", [x]), const_of(t, 2.0 ** (1 - bias)))
    xs = b.select(tiny, b.binop("fmul", x, const_of(t, 2.0 ** 64)), x)
    bits = b.cast("bitcast", xs, it)
    exp_mask = (1 << (width - mant - 1)) - 1
    biased = b.binop("and", b.binop("lshr", bits, const_of(it, mant)), const_of(it, exp_mask))
    ex = b.binop("sub", biased, b.select(tiny, const_of(it, bias - 1 + 64), const_of(it, bias - 1)))
    mbits = b.binop("or", b.binop("and", bits, const_of(it, ~(exp_mask << mant))), const_of(it, (bias - 1) << mant))
    special = _is_special(self, x)
    _store_out(self, _to_int32(self, b.select(special, const_of(it, 0), ex)), p)
    return b.select(special, x, b.cast("bitcast", mbits, t))


def b_fract(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
    """fract: min(x - floor(x), 0x1.fffffep-1f); *iptr = floor(x); ±inf gives ±0, ±0 gives ±0."""
    x, p = args
    b, t = self.b, args[0].type
    fl = self.math("floor", [x])
    _store_out(self, fl, p)
    mant, _ = _fmt(t)
    r = self.math("fmin", [b.binop("fsub", x, fl), const_of(t, 1.0 - 2.0 ** -(mant + 1))])
    inf = b.fcmp("oeq", self.math("fabs", [x]), const_of(t, math.inf))
    r = b.select(inf, self.math("copysign", [const_of(t, 0.0), x]), r)
    keep_x = b.binop("or", b.fcmp("uno", x, x), b.fcmp("oeq", x, const_of(t, 0.0)))  # NaN, ±0
    return b.select(keep_x, x, r)


def b_modf(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
    """modf: the fractional part with x's sign; *iptr = trunc(x)."""
    x, p = args
    b, t = self.b, args[0].type
    whole = self.math("trunc", [x])
    _store_out(self, whole, p)
    inf = b.fcmp("oeq", self.math("fabs", [x]), const_of(t, math.inf))
    frac = b.select(inf, const_of(t, 0.0), b.binop("fsub", x, whole))
    return self.math("copysign", [frac, x])


def b_sincos(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
    x, p = args
    _store_out(self, self.math("cos", [x]), p)
    return self.math("sin", [x])


def b_lgamma_r(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
    """lgamma_r: log|gamma(x)|, *signp = the sign of gamma(x) (0 for NaN)."""
    x, p = args
    b, t = self.b, args[0].type
    fl = self.math("floor", [x])
    half = b.binop("fmul", fl, const_of(t, 0.5))
    even = b.fcmp("oeq", half, self.math("floor", [half]))
    positive = b.binop("or", b.fcmp("ogt", x, const_of(t, 0.0)), even)
    s = b.select(positive, const_of(t, 1.0), const_of(t, -1.0))
    s = b.select(b.fcmp("uno", x, x), const_of(t, 0.0), s)
    _store_out(self, b.cast("fptosi", s, _int_like(t, 32)), p)
    return self.math("lgamma", [x])


def b_remquo(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
    """remquo: remainder(x, y); *quo has the sign of x/y and the low 3 bits of
    the quotient's magnitude (taken from fmod(x, 8y), which keeps them)."""
    x, y, p = args
    b, t = self.b, args[0].type
    it = _int_like(t, 32)
    r = self.math("remainder", [x, y])
    m = self.math("fmod", [x, b.binop("fmul", y, const_of(t, 8.0))])
    k = self.math("rint", [b.binop("fdiv", b.binop("fsub", m, r), y)])
    bad = b.fcmp("uno", k, k)
    k = b.select(b.binop("or", bad, b.fcmp("oge", self.math("fabs", [k]), const_of(t, 64.0))), const_of(t, 0.0), k)
    ki = b.cast("fptosi", k, it)
    neg = b.binop("xor", _sign_bit(self, x), _sign_bit(self, y))
    mag = b.binop("and", b.select(neg, b.binop("sub", const_of(it, 0), ki), ki), const_of(it, 7))
    quo = b.select(neg, b.binop("sub", const_of(it, 0), mag), mag)
    _store_out(self, b.select(b.fcmp("uno", r, r), const_of(it, 0), quo), p)
    return r


def _sign_bit(self, x: Value) -> Value:
    it = _int_like(x.type, x.type.scalar().bits)  # type: ignore[attr-defined]
    return self.b.icmp("slt", self.b.cast("bitcast", x, it), const_of(it, 0))


MATH_IMPLS: dict[str, Callable[..., Optional[Value]]] = {
    "magnitude": b_magnitude, "ilogb": b_ilogb, "nan": b_nan, "frexp": b_frexp, "fract": b_fract,
    "modf": b_modf, "sincos": b_sincos, "lgamma_r": b_lgamma_r, "remquo": b_remquo,
}
