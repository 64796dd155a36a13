"""Arithmetic, bit, logical and comparison instructions, and OpSelect.

Most map one to one onto an IR opcode or predicate (`BINARY`, `COMPARE`);
the rest (floored remainders, negation, shifts by a count of another width,
float classification, vector-times-scalar, dot, any/all) are short sequences.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ...ir import types as ir
from ...ir.values import ConstInt, Value
from ..c.lower.helpers import const_of
from .binary import Instruction
from .grammar import OP
from .opencl_std import adapter
from ...ir.values import Undef


if TYPE_CHECKING:
    from .function import FunctionTranslator, Handler

BINARY = {
    "IAdd": "add", "ISub": "sub", "IMul": "mul", "UDiv": "udiv", "SDiv": "sdiv", "UMod": "urem",
    "SRem": "srem", "FAdd": "fadd", "FSub": "fsub", "FMul": "fmul", "FDiv": "fdiv", "FRem": "frem",
    "BitwiseOr": "or", "BitwiseXor": "xor", "BitwiseAnd": "and", "LogicalOr": "or",
    "LogicalAnd": "and",
}
SHIFTS = {"ShiftRightLogical": "lshr", "ShiftRightArithmetic": "ashr", "ShiftLeftLogical": "shl"}
COMPARE = {
    "IEqual": "eq", "INotEqual": "ne", "UGreaterThan": "ugt", "SGreaterThan": "sgt",
    "UGreaterThanEqual": "uge", "SGreaterThanEqual": "sge", "ULessThan": "ult", "SLessThan": "slt",
    "ULessThanEqual": "ule", "SLessThanEqual": "sle", "LogicalEqual": "eq", "LogicalNotEqual": "ne",
    "PtrEqual": "eq", "PtrNotEqual": "ne",
    "FOrdEqual": "oeq", "FUnordEqual": "ueq", "FOrdNotEqual": "one", "FUnordNotEqual": "une",
    "FOrdLessThan": "olt", "FUnordLessThan": "ult", "FOrdGreaterThan": "ogt",
    "FUnordGreaterThan": "ugt", "FOrdLessThanEqual": "ole", "FUnordLessThanEqual": "ule",
    "FOrdGreaterThanEqual": "oge", "FUnordGreaterThanEqual": "uge", "LessOrGreater": "one",
    "Ordered": "ord", "Unordered": "uno",
}


def _pair(ft: FunctionTranslator, instr: Instruction) -> tuple[Value, Value]:
    a, b = ft.value(instr.operand(2)), ft.value(instr.operand(3))
    if a.type != b.type:
        raise instr.error(f"operand types differ ({a.type} vs {b.type})")
    return a, b


def _binary(op: str) -> Handler:
    def handle(ft: FunctionTranslator, instr: Instruction) -> None:
        a, b = _pair(ft, instr)
        ft.define(instr, ft.b.binop(op, a, b))
    return handle


def _compare(pred: str) -> Handler:
    def handle(ft: FunctionTranslator, instr: Instruction) -> None:
        a, b = _pair(ft, instr)
        if a.type.is_float_or_float_vector():
            ft.define(instr, ft.b.fcmp(pred, a, b))
        else:
            ft.define(instr, ft.b.icmp(pred, a, b))
    return handle


def _shift(op: str) -> Handler:
    """SPIR-V lets the shift count have another width than the base: match it."""
    def handle(ft: FunctionTranslator, instr: Instruction) -> None:
        a, n = ft.value(instr.operand(2)), ft.value(instr.operand(3))
        if n.type != a.type:
            abits, nbits = a.type.scalar().bits, n.type.scalar().bits  # type: ignore[attr-defined]
            n = ft.b.cast("trunc" if nbits > abits else "zext", n, a.type)
        ft.define(instr, ft.b.binop(op, a, n))
    return handle


def _floored(ft: FunctionTranslator, instr: Instruction) -> None:
    """SMod and FMod: the remainder takes the sign of the divisor."""
    a, b = _pair(ft, instr)
    is_float = a.type.is_float_or_float_vector()
    r = ft.b.binop("frem" if is_float else "srem", a, b)
    zero = const_of(a.type, 0)
    if is_float:
        differ = ft.b.binop("xor", ft.b.fcmp("olt", r, zero), ft.b.fcmp("olt", b, zero))
        fix = ft.b.binop("and", differ, ft.b.fcmp("one", r, zero))
        ft.define(instr, ft.b.select(fix, ft.b.binop("fadd", r, b), r))
        return
    differ = ft.b.icmp("slt", ft.b.binop("xor", r, b), zero)
    fix = ft.b.binop("and", differ, ft.b.icmp("ne", r, zero))
    ft.define(instr, ft.b.select(fix, ft.b.binop("add", r, b), r))


def _negate(ft: FunctionTranslator, instr: Instruction) -> None:
    a = ft.value(instr.operand(2))
    if a.type.is_float_or_float_vector():
        ft.define(instr, ft.b.fneg(a))
    else:
        ft.define(instr, ft.b.binop("sub", const_of(a.type, 0), a))


def _not(ft: FunctionTranslator, instr: Instruction) -> None:
    a = ft.value(instr.operand(2))
    ft.define(instr, ft.b.binop("xor", a, const_of(a.type, -1)))


def _select(ft: FunctionTranslator, instr: Instruction) -> None:
    cond, a, b = (ft.value(i) for i in instr.operands[2:5])
    ft.define(instr, ft.b.select(cond, a, b))


def _classify(ft: FunctionTranslator, instr: Instruction) -> None:
    x = ft.value(instr.operand(2))
    if not x.type.is_float_or_float_vector():
        raise instr.error(f"operand must be a float, not {x.type}")
    ft.define(instr, CLASSIFY[instr.name[2:]](ft, x))


def _fabs(ft: FunctionTranslator, x: Value) -> Value:
    return adapter(ft).math("fabs", [x])


def _normal(ft: FunctionTranslator, x: Value) -> Value:
    ax, inf = _fabs(ft, x), const_of(x.type, math.inf)
    tiny = 2.2250738585072014e-308 if x.type.scalar().bits == 64 else (  # type: ignore[attr-defined]
        1.1754943508222875e-38 if x.type.scalar().bits == 32 else 6.103515625e-05)  # type: ignore[attr-defined]
    return ft.b.binop("and", ft.b.fcmp("oge", ax, const_of(x.type, tiny)), ft.b.fcmp("olt", ax, inf))


def _signbit(ft: FunctionTranslator, x: Value) -> Value:
    bits = x.type.scalar().bits  # type: ignore[attr-defined]
    it = ir.VectorType(ir.IntType(bits), x.type.count) if isinstance(x.type, ir.VectorType) else ir.IntType(bits)
    return ft.b.icmp("slt", ft.b.cast("bitcast", x, it), const_of(it, 0))


CLASSIFY = {
    "IsNan": lambda ft, x: ft.b.fcmp("uno", x, x),
    "IsInf": lambda ft, x: ft.b.fcmp("oeq", _fabs(ft, x), const_of(x.type, math.inf)),
    "IsFinite": lambda ft, x: ft.b.fcmp("olt", _fabs(ft, x), const_of(x.type, math.inf)),
    "IsNormal": _normal,
    "SignBitSet": _signbit,
}


def _vector_times_scalar(ft: FunctionTranslator, instr: Instruction) -> None:
    v, s = ft.value(instr.operand(2)), ft.value(instr.operand(3))
    splat = ft.b.shufflevector(ft.b.insertelement(_undef_like(v.type, 1), s, ConstInt(ir.I32, 0)),
                               _undef_like(v.type, 1), [0] * v.type.count)  # type: ignore[attr-defined]
    ft.define(instr, ft.b.binop("fmul", v, splat))


def _undef_like(t: ir.Type, n: int) -> Value:
    return Undef(ir.VectorType(t.scalar(), n))


def _dot(ft: FunctionTranslator, instr: Instruction) -> None:
    a, b = _pair(ft, instr)
    ft.define(instr, adapter(ft).dot(a, b))


def _any_all(op: str) -> Handler:
    def handle(ft: FunctionTranslator, instr: Instruction) -> None:
        ft.define(instr, adapter(ft).reduce(op, ft.value(instr.operand(2))))
    return handle


def _logical_not(ft: FunctionTranslator, instr: Instruction) -> None:
    a = ft.value(instr.operand(2))
    ft.define(instr, ft.b.binop("xor", a, const_of(a.type, 1)))


def _bit_count(ft: FunctionTranslator, instr: Instruction) -> None:
    x = ft.value(instr.operand(2))
    r = adapter(ft).popcount(x)
    t = ft.result_type(instr).ir
    if r.type != t:
        r = ft.b.cast("trunc" if r.type.scalar().bits > t.scalar().bits else "zext", r, t)  # type: ignore[attr-defined]
    ft.define(instr, r)


def _ptr_diff(ft: FunctionTranslator, instr: Instruction) -> None:
    """(a - b) / sizeof(pointee), in the result's integer type."""
    a, b = _pair(ft, instr)
    t = ft.result_type(instr).ir
    pointee = ft.mt.types.pointee(ft.vtype(instr.operand(2)), instr)
    diff = ft.b.binop("sub", ft.b.cast("ptrtoint", a, t), ft.b.cast("ptrtoint", b, t))
    size = ft.mt.layout.size_of(pointee.ir)
    ft.define(instr, diff if size == 1 else ft.b.binop("sdiv", diff, ConstInt(t, size)))


HANDLERS: dict[int, Handler] = {
    **{OP[name]: _binary(op) for name, op in BINARY.items()},
    **{OP[name]: _shift(op) for name, op in SHIFTS.items()},
    **{OP[name]: _compare(pred) for name, pred in COMPARE.items()},
    **{OP[name]: _classify for name in CLASSIFY},
    OP["SMod"]: _floored, OP["FMod"]: _floored,
    OP["SNegate"]: _negate, OP["FNegate"]: _negate, OP["Not"]: _not,
    OP["LogicalNot"]: _logical_not, OP["Select"]: _select,
    OP["VectorTimesScalar"]: _vector_times_scalar, OP["Dot"]: _dot,
    OP["Any"]: _any_all("or"), OP["All"]: _any_all("and"),
    OP["BitCount"]: _bit_count, OP["PtrDiff"]: _ptr_diff,
}
