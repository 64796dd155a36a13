"""IR emission every builtin family shares: calls of `ocl.*` intrinsics and min/max.

Functions of a `BuiltinContext` (the builder at the call and its module); the
families here and `lower/builtin_calls.py` build on them.
"""

from __future__ import annotations

from typing import Optional

from ....ir import types as ir
from ....ir.intrinsics import declare_intrinsic
from ....ir.values import Value
from .builtin_context import BuiltinContext


def call_intrinsic(cx: BuiltinContext, base: str, ret: ir.Type, args: list[Value], overload: Optional[ir.Type]) -> Value:
    """A call of intrinsic `ocl.<base>` (declared in the module on first use)."""
    fn = declare_intrinsic(cx.module, base, ret, [a.type for a in args], overload)
    return cx.b.call(fn, args)


def call_math(cx: BuiltinContext, base: str, args: list[Value]) -> Value:
    """A math intrinsic overloaded on, and returning, its first argument's type (`ocl.fabs.v4f32`)."""
    return call_intrinsic(cx, base, args[0].type, args, args[0].type)


def select_cmp(cx: BuiltinContext, pred: str, a: Value, b: Value, unsigned: bool = False) -> Value:
    """a < b (`olt`) or a > b (`ogt`), ordered for floats, signed or unsigned for integers."""
    if a.type.is_float_or_float_vector():
        return cx.b.fcmp(pred, a, b)
    ipred = {"olt": "ult" if unsigned else "slt", "ogt": "ugt" if unsigned else "sgt"}[pred]
    return cx.b.icmp(ipred, a, b)


def minmax(cx: BuiltinContext, op: str, a: Value, b: Value, unsigned: bool) -> Value:
    """min or max (`op`) of a and b: fmin/fmax for floats, a compare and select for integers."""
    if a.type.is_float_or_float_vector():
        return call_math(cx, "fmin" if op == "min" else "fmax", [a, b])
    c = select_cmp(cx, "olt" if op == "min" else "ogt", b, a, unsigned)
    return cx.b.select(c, b, a)
