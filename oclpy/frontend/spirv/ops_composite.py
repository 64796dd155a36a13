"""Vector and composite instructions: extract/insert (constant and dynamic
indices), shuffles, construction, and OpUndef inside functions.

A composite index path walks the SPIR-V type: vector steps are
`extractelement`/`insertelement`, array and struct steps `extractvalue`/
`insertvalue` (struct members through the type's member -> field map).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...ir import types as ir
from ...ir.values import ConstAggregate, ConstFloat, ConstInt, ConstNull, ConstZero, Instr, Undef, Value
from .binary import Instruction
from .grammar import OP
from .spirv_types import SpvType
from ..c.lower.helpers import vector_type

if TYPE_CHECKING:
    from .function import FunctionTranslator, Handler

_CONSTANTS = (ConstInt, ConstFloat, ConstNull, ConstZero, ConstAggregate, Undef)


def _path(t: SpvType, indices: tuple[int, ...], instr: Instruction) -> list[tuple[SpvType, int]]:
    """(type indexed, IR index) for each step of a literal index path."""
    steps = []
    for i in indices:
        if t.kind in ("vector", "array") and i < t.count:
            steps.append((t, i))
            assert t.elem is not None
            t = t.elem
        elif t.kind == "struct" and i < len(t.members):
            steps.append((t, t.field_index[i]))
            t = t.members[i]
        else:
            raise instr.error(f"index {i} is out of range for {t.ir}")
    if not steps:
        raise instr.error("a composite index path needs at least one index")
    return steps


def _inserted(v: Value, i: int) -> Value | None:
    """Lane `i` of a chain of constant-index insertelements (a built-in vector, a constructed
    vector), so extracting it needs no instruction; None when the chain does not say."""
    while isinstance(v, Instr) and v.op == "insertelement" and isinstance(v.operands[2], ConstInt):
        if v.operands[2].value == i:
            return v.operands[1]
        v = v.operands[0]
    return None


def _extract(ft: FunctionTranslator, v: Value, steps: list[tuple[SpvType, int]]) -> Value:
    for t, i in steps:
        if t.kind == "vector":
            v = _inserted(v, i) or ft.b.extractelement(v, ConstInt(ir.I32, i))
        else:
            v = ft.b.extractvalue(v, [i])
    return v


def _insert(ft: FunctionTranslator, agg: Value, obj: Value, steps: list[tuple[SpvType, int]]) -> Value:
    (t, i), rest = steps[0], steps[1:]
    if rest:
        inner = _extract(ft, agg, [steps[0]])
        obj = _insert(ft, inner, obj, rest)
    if t.kind == "vector":
        return ft.b.insertelement(agg, obj, ConstInt(ir.I32, i))
    return ft.b.insertvalue(agg, obj, [i])


def _composite_extract(ft: FunctionTranslator, instr: Instruction) -> None:
    steps = _path(ft.vtype(instr.operand(2)), instr.operands[3:], instr)
    ft.define(instr, _extract(ft, ft.value(instr.operand(2)), steps))


def _composite_insert(ft: FunctionTranslator, instr: Instruction) -> None:
    steps = _path(ft.vtype(instr.operand(3)), instr.operands[4:], instr)
    ft.define(instr, _insert(ft, ft.value(instr.operand(3)), ft.value(instr.operand(2)), steps))


def _construct(ft: FunctionTranslator, instr: Instruction) -> None:
    t = ft.result_type(instr)
    parts = ft.operands(instr, 2)
    if t.kind == "vector":
        parts = ft.b.scalars(parts)
        if len(parts) != t.count or any(p.type != vector_type(t.ir).elem for p in parts):
            raise instr.error(f"{len(parts)} components of types {sorted({str(p.type) for p in parts})} "
                              f"do not make a {t.ir}")
    elif [p.type for p in parts] != ([t.elem.ir] * t.count if t.elem is not None and t.kind == "array"
                                     else [m.ir for m in t.members]):
        shown = ", ".join(str(p.type) for p in parts)
        raise instr.error(f"constituents ({shown}) do not make a {t.ir}")
    if isinstance(t.ir, ir.StructType) and len(t.ir.fields) != len(parts):
        fields: list[Value] = [Undef(f) for f in t.ir.fields]
        for k, v in zip(t.field_index, parts):
            fields[k] = v
        parts = fields
    if all(isinstance(p, _CONSTANTS) for p in parts):
        ft.define(instr, ConstAggregate(t.ir, parts))
        return
    out: Value = Undef(t.ir)
    for k, p in enumerate(parts):
        out = ft.b.insertelement(out, p, ConstInt(ir.I32, k)) if t.kind == "vector" else \
            ft.b.insertvalue(out, p, [k])
    ft.define(instr, out)


def _extract_dynamic(ft: FunctionTranslator, instr: Instruction) -> None:
    ft.define(instr, ft.b.extractelement(ft.value(instr.operand(2)), ft.value(instr.operand(3))))


def _insert_dynamic(ft: FunctionTranslator, instr: Instruction) -> None:
    vec, elt, idx = (ft.value(i) for i in instr.operands[2:5])
    ft.define(instr, ft.b.insertelement(vec, elt, idx))


def _widen(ft: FunctionTranslator, v: Value, n: int) -> Value:
    count = vector_type(v.type).count
    if count == n:
        return v
    mask = list(range(count)) + [-1] * (n - count)
    return ft.b.shufflevector(v, Undef(v.type), mask)


def _shuffle(ft: FunctionTranslator, instr: Instruction) -> None:
    a, b = ft.value(instr.operand(2)), ft.value(instr.operand(3))
    if not (isinstance(a.type, ir.VectorType) and isinstance(b.type, ir.VectorType)):
        raise instr.error("OpVectorShuffle needs two vectors")
    na, nb = a.type.count, b.type.count
    n = max(na, nb)
    mask = []
    for c in instr.operands[4:]:
        if c == 0xFFFFFFFF:
            mask.append(-1)
        elif c < na:
            mask.append(c)
        elif c < na + nb:
            mask.append(c - na + n)
        else:
            raise instr.error(f"shuffle component {c} is out of range ({na + nb} lanes)")
    ft.define(instr, ft.b.shufflevector(_widen(ft, a, n), _widen(ft, b, n), mask))


def _undef(ft: FunctionTranslator, instr: Instruction) -> None:
    ft.define(instr, Undef(ft.result_type(instr).ir))


HANDLERS: dict[int, Handler] = {
    OP["CompositeExtract"]: _composite_extract, OP["CompositeInsert"]: _composite_insert,
    OP["CompositeConstruct"]: _construct, OP["VectorExtractDynamic"]: _extract_dynamic,
    OP["VectorInsertDynamic"]: _insert_dynamic, OP["VectorShuffle"]: _shuffle,
    OP["Undef"]: _undef,
}
