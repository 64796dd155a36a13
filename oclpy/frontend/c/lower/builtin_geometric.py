"""Lowering of `length`, `distance` and `normalize` (and their fast_ forms)
without undue overflow or underflow (OpenCL C 6.15.5).

The vector is scaled by an exact power of two that brings its largest
element's magnitude into [1, 2) before the sum of squares (two steps of
2^-e/2, so the scale itself never overflows), and the length is scaled back;
the exponent is read and the powers of two built with integer operations on
the bits, so the code is branch-free and vectorises with the work-item loop.
A zero vector normalizes to itself; infinities and NaNs take the unscaled path.
`GEOMETRIC_IMPLS` replaces the plain implementations in `lower_builtins.IMPLS`.
"""

from __future__ import annotations

import math
from typing import Callable, Optional

from ....ir import types as ir
from ....ir.values import ConstInt, Value
from .. import ast
from ..builtins import table as bi
from .helpers import const_of


def _max_abs(self, v: Value) -> Value:
    ax = self.math("fabs", [v])
    if not isinstance(ax.type, ir.VectorType):
        return ax
    acc = self.b.extractelement(ax, ConstInt(ir.I32, 0))
    for i in range(1, ax.type.count):
        acc = self.math("fmax", [acc, self.b.extractelement(ax, ConstInt(ir.I32, i))])
    return acc


_FORMATS = {16: (10, 15), 32: (23, 127), 64: (52, 1023)}  # bits -> (mantissa bits, bias)


def _scaled(self, v: Value) -> tuple[Value, Value, Value]:
    """(v * 2^-e exactly, 2^e, whether m = max|v_i| is finite and nonzero).

    e is m's exponent field less the bias (a subnormal m counts as 2^-bias: the
    scaled vector then stays below 2, which is all the sum of squares needs), read
    and applied with integer operations on the bits, so the code stays branch-free
    and vectorisable (no logb or exp2 calls)."""
    b = self.b
    m = _max_abs(self, v)
    t = m.type
    assert isinstance(t, ir.FloatType)
    it = ir.IntType(t.bits)
    mant, bias = _FORMATS[t.bits]
    ok = b.binop("and", b.fcmp("one", m, const_of(t, 0.0)), b.fcmp("olt", m, const_of(t, math.inf)))
    field = b.binop("lshr", b.cast("bitcast", m, it), ConstInt(it, mant))
    e = b.select(ok, b.binop("sub", field, ConstInt(it, bias)), ConstInt(it, 0))
    e1 = b.binop("ashr", e, ConstInt(it, 1))  # floor(e / 2): each half-scale is a normal number
    e2 = b.binop("sub", e, e1)

    def pow2(k: Value) -> Value:  # 2^k for |k| <= bias / 2 + 1, built from its bits
        return b.cast("bitcast", b.binop("shl", b.binop("add", k, ConstInt(it, bias)),
                                         ConstInt(it, mant)), t)
    neg = lambda k: b.binop("sub", ConstInt(it, 0), k)  # noqa: E731
    h1, h2 = pow2(neg(e1)), pow2(neg(e2))
    if isinstance(v.type, ir.VectorType):
        h1, h2 = self.splat_value(h1, v.type), self.splat_value(h2, v.type)
    scaled = b.binop("fmul", b.binop("fmul", v, h1), h2)
    back = b.binop("fmul", pow2(e1), pow2(e2))
    return scaled, back, ok


def safe_length(self, v: Value) -> Value:
    if not isinstance(v.type, ir.VectorType):
        return self.math("fabs", [v])
    s, back, ok = _scaled(self, v)
    scaled_len = self.b.binop("fmul", self.math("sqrt", [self.dot(s, s)]), back)
    return self.b.select(ok, scaled_len, self.math("sqrt", [self.dot(v, v)]))


def b_length(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
    return safe_length(self, args[0])


def b_distance(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
    return safe_length(self, self.b.binop("fsub", args[0], args[1]))


def b_normalize(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
    """v / |v|; normalize(0) = 0; scalars give ±1 (0 and NaN unchanged). A vector with
    infinite elements is normalized as if each infinity were ±1 and every other
    element 0 (times itself, so a NaN stays NaN), as OpenCL C 6.15.5 says."""
    v, b = args[0], self.b
    if not isinstance(v.type, ir.VectorType):
        one = self.math("copysign", [const_of(v.type, 1.0), v])
        keep = b.binop("or", b.fcmp("oeq", v, const_of(v.type, 0.0)), b.fcmp("uno", v, v))
        return b.select(keep, v, one)
    inf = const_of(v.type, math.inf)
    as_units = b.select(b.fcmp("oeq", self.math("fabs", [v]), inf),
                        self.math("copysign", [const_of(v.type, 1.0), v]),
                        b.binop("fmul", v, const_of(v.type, 0.0)))
    has_inf = b.fcmp("oeq", _max_abs(self, v), const_of(v.type.elem, math.inf))
    v = b.select(has_inf, as_units, v)
    s, _, ok = _scaled(self, v)
    inv = self.math("rsqrt", [self.dot(s, s)])
    res = b.binop("fmul", s, self.splat_value(inv, v.type))
    zero = b.fcmp("oeq", _max_abs(self, v), const_of(inv.type, 0.0))
    plain = b.binop("fmul", v, self.splat_value(self.math("rsqrt", [self.dot(v, v)]), v.type))
    return b.select(zero, v, b.select(ok, res, plain))


def splat_value(self, x: Value, vt: ir.VectorType) -> Value:
    """x repeated in every lane of vector type vt."""
    out: Value = self.b.insertelement(const_of(vt, 0.0), x, ConstInt(ir.I32, 0))
    return self.b.shufflevector(out, out, [0] * vt.count)


GEOMETRIC_IMPLS: dict[str, Callable[..., Optional[Value]]] = {
    "length": b_length, "distance": b_distance, "normalize": b_normalize,
}
