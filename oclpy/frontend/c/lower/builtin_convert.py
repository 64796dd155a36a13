"""Directed rounding for conversions to a floating type (`convert_float_rtz`,
`convert_double_rtp(long)`, `convert_float_rtn(double)`).

The hardware conversion rounds to nearest; `directed_round` compares that
result with the exact source value and, where the mode asks for the other
neighbour, steps one ulp by adjusting the bit pattern (finite values and
infinities step to their neighbour: inf - 1 ulp is the largest finite value).
"""

from __future__ import annotations

from ....ir import types as ir
from ....ir.values import Value
from .helpers import const_of, scalar_bits
from ..builtins.builtin_context import BuiltinContext


def _int_like(t: ir.Type, bits: int) -> ir.Type:
    return ir.VectorType(ir.IntType(bits), t.count) if isinstance(t, ir.VectorType) else ir.IntType(bits)


def _mantissa(t: ir.Type) -> int:
    return {16: 11, 32: 24, 64: 53}[scalar_bits(t)]


def needs_directed(src: ir.Type, dst: ir.Type) -> bool:
    """Whether converting src to float type dst can be inexact."""
    if src.is_float_or_float_vector():
        return scalar_bits(src) > scalar_bits(dst)
    return scalar_bits(src) > _mantissa(dst)


def _compare(cx: BuiltinContext, r: Value, x: Value, unsigned: bool) -> tuple[Value, Value]:
    """(r > x, r < x) exactly, r being x rounded to nearest."""
    b = cx.b
    if x.type.is_float_or_float_vector():
        wide = b.cast("fpext", r, x.type)
        return b.fcmp("ogt", wide, x), b.fcmp("olt", wide, x)
    bits = scalar_bits(x.type)
    limit = 2.0 ** bits if unsigned else 2.0 ** (bits - 1)
    too_big = b.fcmp("oge", r, const_of(r.type, limit))
    back = b.cast("fptoui" if unsigned else "fptosi", b.select(too_big, const_of(r.type, 0.0), r), x.type)
    gt = b.binop("or", too_big, b.icmp("ugt" if unsigned else "sgt", back, x))
    lt = b.binop("and", b.icmp("ult" if unsigned else "slt", back, x), b.binop("xor", too_big, const_of(too_big.type, 1)))
    return gt, lt


def directed_round(cx: BuiltinContext, x: Value, r: Value, mode: str, unsigned: bool) -> Value:
    """r = x rounded to nearest; return x rounded toward zero/+inf/-inf (mode rtz/rtp/rtn)."""
    b = cx.b
    it = _int_like(r.type, scalar_bits(r.type))
    bits = b.cast("bitcast", r, it)
    gt, lt = _compare(cx, r, x, unsigned)
    neg = b.icmp("slt", bits, const_of(it, 0))
    toward_zero = b.binop("sub", bits, const_of(it, 1))
    away = b.binop("add", bits, const_of(it, 1))
    step: Value
    moved: Value
    if mode == "rtz":
        step, moved = b.select(neg, lt, gt), toward_zero  # |r| > |x|
    elif mode == "rtp":
        step, moved = lt, b.select(neg, toward_zero, away)
    else:
        step, moved = gt, b.select(neg, away, toward_zero)
    return b.cast("bitcast", b.select(step, moved, bits), r.type)
