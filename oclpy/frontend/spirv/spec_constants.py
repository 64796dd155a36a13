"""Module-scope constants -> IR constants.

OpConstant (literal words of the type's width), OpConstantTrue/False,
OpConstantComposite, OpConstantNull, OpUndef, and specialization constants
at their default values (OpSpecConstant*, oclpy takes no specialization
values). OpSpecConstantOp and sampler constants are rejected.
"""

from __future__ import annotations

import struct
from typing import Callable

from ...ir import types as ir
from ...ir.values import ConstAggregate, ConstFloat, ConstInt, ConstNull, ConstZero, Undef, Value
from .binary import Instruction
from .grammar import OP
from .spirv_types import SpvType, TypeTable

_FLOAT_FORMATS = {16: "<e", 32: "<f", 64: "<d"}


def literal_value(t: SpvType, words: tuple[int, ...], instr: Instruction) -> Value:
    """An int or float constant of type `t` from its literal words (low-order word first)."""
    if t.kind not in ("int", "float"):
        raise instr.error(f"OpConstant of type {t.ir}: only integers and floats have literals")
    bits = t.ir.bits  # type: ignore[attr-defined]
    need = 2 if bits == 64 else 1
    if len(words) != need:
        raise instr.error(f"a {bits}-bit literal takes {need} word(s), found {len(words)}")
    raw = words[0] | (words[1] << 32 if need == 2 else 0)
    if t.kind == "int":
        return ConstInt(t.ir, raw)
    data = raw.to_bytes(8, "little")[:bits // 8]
    return ConstFloat(t.ir, struct.unpack(_FLOAT_FORMATS[bits], data)[0])


def null_value(t: SpvType) -> Value:
    if isinstance(t.ir, ir.PtrType):
        return ConstNull(t.ir)
    if t.kind == "int" or t.kind == "bool" or t.kind == "event":
        return ConstInt(t.ir, 0)
    if t.kind == "float":
        return ConstFloat(t.ir, 0.0)
    return ConstZero(t.ir)


def _composite(tt: TypeTable, instr: Instruction, t: SpvType) -> Value:
    elems = []
    for id_ in instr.operands[2:]:
        v = tt.consts.get(id_)
        if v is None:
            raise instr.error(f"constituent %{id_} is not a constant defined earlier")
        elems.append(v)
    want = [t.elem.ir] * t.count if t.elem is not None and t.kind in ("vector", "array") else \
        [m.ir for m in t.members]
    if t.kind not in ("vector", "array", "struct") or [e.type for e in elems] != want:
        shown = ", ".join(str(e.type) for e in elems)
        raise instr.error(f"constituents ({shown}) do not make a {t.ir}")
    if t.kind == "struct" and len(t.field_index) and t.ir.fields != tuple(m.ir for m in t.members):  # type: ignore[attr-defined]
        fields: list[Value] = [ConstZero(f) for f in t.ir.fields]  # type: ignore[attr-defined]
        for member, v in zip(t.field_index, elems):
            fields[member] = v
        elems = fields
    return ConstAggregate(t.ir, elems)


def _scalar(tt: TypeTable, instr: Instruction, t: SpvType) -> Value:
    return literal_value(t, instr.operands[2:], instr)


def _bool(value: int) -> Callable[[TypeTable, Instruction, SpvType], Value]:
    return lambda tt, instr, t: ConstInt(ir.I1, value)


def _rejected(what: str) -> Callable[[TypeTable, Instruction, SpvType], Value]:
    def fail(tt: TypeTable, instr: Instruction, t: SpvType) -> Value:
        raise instr.error(f"{what} is not supported")
    return fail


CONSTANTS: dict[int, Callable[[TypeTable, Instruction, SpvType], Value]] = {
    OP["ConstantTrue"]: _bool(1), OP["ConstantFalse"]: _bool(0),
    OP["SpecConstantTrue"]: _bool(1), OP["SpecConstantFalse"]: _bool(0),
    OP["Constant"]: _scalar, OP["SpecConstant"]: _scalar,
    OP["ConstantComposite"]: _composite, OP["SpecConstantComposite"]: _composite,
    OP["ConstantNull"]: lambda tt, instr, t: null_value(t),
    OP["Undef"]: lambda tt, instr, t: Undef(t.ir),
    OP["SpecConstantOp"]: _rejected("OpSpecConstantOp (a specialization constant expression)"),
    OP["ConstantSampler"]: _rejected("a sampler constant (oclpy has no samplers)"),
    OP["ConstantPipeStorage"]: _rejected("pipe storage"),
}


def define_constant(tt: TypeTable, instr: Instruction) -> bool:
    """Read `instr` into `tt.consts` when it is a constant; False when it is not one."""
    make = CONSTANTS.get(instr.opcode)
    if make is None:
        return False
    t, rid = tt.get(instr.operand(0), instr), instr.operand(1)
    if rid in tt.consts or rid in tt.types:
        raise instr.error(f"%{rid} is defined twice")
    tt.consts[rid] = make(tt, instr, t)
    return True
