"""Selection of the instructions that only rearrange parts: vectors and aggregates.

A vector or aggregate value is its list of parts, one per scalar leaf
(`isel_context.leaves`), so `extractvalue`, `insertvalue`, `shufflevector` and
`extractelement`/`insertelement` at a constant index pick and replace parts
and emit nothing. A variable element index is a chain of compares and selects
(`v_cndmask` per element, or `s_cselect` when everything is uniform and scalar).
"""

from __future__ import annotations

from ...ir.types import ArrayType, StructType, Type, VectorType
from ...ir.values import ConstInt, Instr, Value
from .isel_arith import scalar_ok
from .isel_context import Ctx, bits_of, leaf_count, leaves, reg_width
from .machine import Imm, Operand

REARRANGE = ("extractvalue", "insertvalue", "extractelement", "insertelement", "shufflevector")


def leaf_range(ctx: Ctx, t: Type, indices: tuple[int, ...]) -> tuple[int, int, Type]:
    """(first leaf, leaf count, type) of the member `indices` names inside `t`."""
    start = 0
    for index in indices:
        if isinstance(t, StructType):
            start += sum(leaf_count(f, ctx.layout) for f in t.fields[:index])
            t = t.fields[index]
        elif isinstance(t, (ArrayType, VectorType)):
            start += index * leaf_count(t.elem, ctx.layout)
            t = t.elem
        else:
            raise ctx.error(f"cannot index into {t}")
    return start, leaf_count(t, ctx.layout), t


def select_rearrange(ctx: Ctx, instr: Instr) -> None:
    op = instr.op
    if op == "extractvalue":
        start, n, _ = leaf_range(ctx, instr.operands[0].type, tuple(instr.attrs["indices"]))
        ctx.set(instr, ctx.parts(instr.operands[0])[start:start + n])
    elif op == "insertvalue":
        start, n, _ = leaf_range(ctx, instr.operands[0].type, tuple(instr.attrs["indices"]))
        parts = list(ctx.parts(instr.operands[0]))
        parts[start:start + n] = ctx.parts(instr.operands[1])
        ctx.set(instr, parts)
    elif op == "shufflevector":
        joined = ctx.parts(instr.operands[0]) + ctx.parts(instr.operands[1])
        zero = Imm(0)
        ctx.set(instr, [joined[k] if k >= 0 else zero for k in instr.attrs["mask"]])
    elif op == "extractelement":
        vector, index = instr.operands
        parts = ctx.parts(vector)
        if isinstance(index, ConstInt):
            ctx.set(instr, [parts[index.value] if index.value < len(parts) else Imm(0)])
        else:
            ctx.set(instr, [choose(ctx, instr, low_word(ctx, index), parts, Imm(0))])
    else:  # insertelement
        vector, element, index = instr.operands
        parts = list(ctx.parts(vector))
        value = ctx.part(element)
        if isinstance(index, ConstInt):
            if index.value < len(parts):
                parts[index.value] = value
        else:
            i = low_word(ctx, index)
            parts = [choose(ctx, instr, i, [value], p, at=k) for k, p in enumerate(parts)]
        ctx.set(instr, parts)


def choose(ctx: Ctx, instr: Instr, index: Operand, parts: list[Operand], default: Operand,
           at: int | None = None) -> Operand:
    """parts[index] (or, with `at`, parts[0] when index == at, else default)."""
    width = reg_width(leaves(instr.type, ctx.layout)[0][0], ctx.layout) if not instr.type.is_vector() else \
        reg_width(instr.type.elem, ctx.layout)  # type: ignore[attr-defined]
    scalar = scalar_ok(ctx, instr, [index, *parts, default])
    result = default
    candidates = [(at, parts[0])] if at is not None else list(enumerate(parts))
    for k, p in candidates:
        if scalar:
            ctx.emit("s_cmp_eq_u32", index, Imm(k))
            result = ctx.op(f"s_cselect_b{width}", "s", width, p, result)
        else:
            hit = ctx.op("v_cmp_eq_u32", "s", 64, index, Imm(k))
            result = ctx.op(f"v_cndmask_b{width}", "v", width, result, p, hit)
    return result


def low_word(ctx: Ctx, index: Value) -> Operand:
    """An element index as 32 bits (indices past 2^32 select nothing anyway)."""
    i = ctx.part(index)
    return ctx.split64(i)[0] if bits_of(index.type, ctx.layout) == 64 else i
