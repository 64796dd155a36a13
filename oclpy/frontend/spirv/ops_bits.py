"""Bit-field and extended-arithmetic instructions: OpBitFieldInsert,
OpBitFieldSExtract/UExtract, OpBitReverse, OpIAddCarry, OpISubBorrow,
OpUMulExtended/SMulExtended (these four yield a struct of two values),
OpQuantizeToF16 and OpSizeOf. All are short shift-and-mask sequences.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...ir import types as ir
from ...ir.values import ConstInt, Undef, Value
from ..c.lower import builtin_int64 as int64
from ..c.lower.helpers import const_of, scalar_bits
from .binary import Instruction
from .grammar import OP
from ..c.lower.builtin_geometric import splat_value
from .opencl_std import TranslatorBuiltins

if TYPE_CHECKING:
    from .function import FunctionTranslator, Handler


def _bits(t: ir.Type) -> int:
    return scalar_bits(t)


def _like(ft: FunctionTranslator, v: Value, t: ir.Type) -> Value:
    """An Offset/Count operand (any integer width, scalar) as type `t`, splatted for vectors."""

    s = t.scalar()
    if v.type.scalar() != s:
        v = ft.b.cast("trunc" if _bits(v.type) > _bits(s) else "zext", v, s)
    return splat_value(TranslatorBuiltins(ft), v, t) if isinstance(t, ir.VectorType) and not v.type.is_vector() else v


def _low_mask(ft: FunctionTranslator, count: Value) -> Value:
    """(1 << count) - 1, which is all ones when count is the full width."""
    t = count.type
    ones = const_of(t, -1)
    full = ft.b.icmp("uge", count, const_of(t, _bits(t)))
    shifted = ft.b.binop("shl", const_of(t, 1), count)
    return ft.b.select(full, ones, ft.b.binop("sub", shifted, const_of(t, 1)))


def _insert(ft: FunctionTranslator, instr: Instruction) -> None:
    base, insert = ft.value(instr.operand(2)), ft.value(instr.operand(3))
    offset, count = (_like(ft, ft.value(i), base.type) for i in instr.operands[4:6])
    mask = ft.b.binop("shl", _low_mask(ft, count), offset)
    kept = ft.b.binop("and", base, ft.b.binop("xor", mask, const_of(base.type, -1)))
    put = ft.b.binop("and", ft.b.binop("shl", insert, offset), mask)
    ft.define(instr, ft.b.binop("or", kept, put))


def _extract(signed: bool) -> Handler:
    def handle(ft: FunctionTranslator, instr: Instruction) -> None:
        base = ft.value(instr.operand(2))
        offset, count = (_like(ft, ft.value(i), base.type) for i in instr.operands[3:5])
        width = const_of(base.type, _bits(base.type))
        # move the field to the top, then shift it down (arithmetically for SExtract)
        up = ft.b.binop("sub", ft.b.binop("sub", width, offset), count)
        top = ft.b.binop("shl", base, up)
        down = ft.b.binop("ashr" if signed else "lshr", top, ft.b.binop("sub", width, count))
        empty = ft.b.icmp("eq", count, const_of(base.type, 0))
        ft.define(instr, ft.b.select(empty, const_of(base.type, 0), down))
    return handle


def _reverse(ft: FunctionTranslator, instr: Instruction) -> None:
    """Swap halves, then quarters, ... down to single bits."""
    v = ft.value(instr.operand(2))
    bits, t = _bits(v.type), v.type
    width = bits // 2
    while width:
        pattern = 0
        for k in range(0, bits, 2 * width):
            pattern |= ((1 << width) - 1) << k
        low = ft.b.binop("shl", ft.b.binop("and", v, const_of(t, pattern)), const_of(t, width))
        high = ft.b.binop("and", ft.b.binop("lshr", v, const_of(t, width)), const_of(t, pattern))
        v = ft.b.binop("or", low, high)
        width //= 2
    ft.define(instr, v)


def _pair(ft: FunctionTranslator, instr: Instruction, first: Value, second: Value) -> None:
    t = ft.result_type(instr).ir
    out = ft.b.insertvalue(Undef(t), first, [0])
    ft.define(instr, ft.b.insertvalue(out, second, [1]))


def _carry(subtract: bool) -> Handler:
    def handle(ft: FunctionTranslator, instr: Instruction) -> None:
        a, b = ft.value(instr.operand(2)), ft.value(instr.operand(3))
        r = ft.b.binop("sub" if subtract else "add", a, b)
        flag = ft.b.icmp("ult", a, b) if subtract else ft.b.icmp("ult", r, a)
        _pair(ft, instr, r, ft.b.cast("zext", flag, a.type))
    return handle


def _mul_extended(signed: bool) -> Handler:
    """(low, high) words of the double-width product: in the double-width integer, except
    for 64-bit operands, whose high word comes from 64-bit operations (`builtin_int64.mul_hi`:
    no target need hold a 128-bit integer)."""
    def handle(ft: FunctionTranslator, instr: Instruction) -> None:
        a, b = ft.value(instr.operand(2)), ft.value(instr.operand(3))
        bits = _bits(a.type)
        if bits == 64:
            _pair(ft, instr, ft.b.binop("mul", a, b), int64.mul_hi(ft.b, a, b, unsigned=not signed))
            return
        wide_t = ir.VectorType(ir.IntType(2 * bits), a.type.count) if isinstance(a.type, ir.VectorType) \
            else ir.IntType(2 * bits)
        ext = "sext" if signed else "zext"
        prod = ft.b.binop("mul", ft.b.cast(ext, a, wide_t), ft.b.cast(ext, b, wide_t))
        high = ft.b.binop("lshr", prod, const_of(wide_t, bits))
        _pair(ft, instr, ft.b.cast("trunc", prod, a.type), ft.b.cast("trunc", high, a.type))
    return handle


def _quantize(ft: FunctionTranslator, instr: Instruction) -> None:
    v = ft.value(instr.operand(2))
    half = ir.VectorType(ir.F16, v.type.count) if isinstance(v.type, ir.VectorType) else ir.F16
    ft.define(instr, ft.b.cast("fpext", ft.b.cast("fptrunc", v, half), v.type))


def _size_of(ft: FunctionTranslator, instr: Instruction) -> None:
    pointee = ft.mt.types.pointee(ft.vtype(instr.operand(2)), instr)
    ft.define(instr, ConstInt(ft.result_type(instr).ir, ft.mt.layout.size_of(pointee.ir)))


HANDLERS: dict[int, Handler] = {
    OP["BitFieldInsert"]: _insert, OP["BitFieldSExtract"]: _extract(True),
    OP["BitFieldUExtract"]: _extract(False), OP["BitReverse"]: _reverse,
    OP["IAddCarry"]: _carry(False), OP["ISubBorrow"]: _carry(True),
    OP["UMulExtended"]: _mul_extended(False), OP["SMulExtended"]: _mul_extended(True),
    OP["QuantizeToF16"]: _quantize, OP["SizeOf"]: _size_of,
}
