"""Selection of `printf`: a record in the printf buffer, formatted by the host after the launch.

The buffer (hidden argument `printf_buffer`, docs/simt.md §3) starts with a
header: `u32` next free offset, `u32` capacity (the buffer's bytes), then a
sink of `SINK_BYTES` where a record that does not fit is written and lost
(so the code has no branch). Each lane reserves its record with
`global_atomic_add_u32` on the first word (lanes in lane order), then writes
`u32` record size, `u32` format id, `u64` its global linear id (the host prints
each work-item's records together, in id order), and each argument in an 8-byte slot:
floats as doubles (C's promotion), integers sign-extended to 64 bits (the
host truncates them by the conversion's length), pointers as addresses, a
string literal (for `%s`) as its id. Format ids index `MModule.strings`
(`ModuleInfo.strings` while selecting): the format strings and the string
arguments, each with its NUL dropped. A helper that is called (not inlined)
gets the buffer's address and its work-item's global linear id as hidden
arguments (`isel_calls.QUERY_CLASSES`), and its callers pass them on.
"""

from __future__ import annotations

from ...ir.types import FloatType, IntType, PtrType
from ...ir.values import ConstAggregate, GlobalVar, Instr, Value
from .isel_calls import query
from .isel_context import Ctx
from .machine import Imm, Operand

HEADER_BYTES = 8  # the buffer's: next free offset, capacity
RECORD_HEADER_BYTES = 16  # a record's: size, format id, work-item
SINK_BYTES = 1024
MAX_ARGS = (SINK_BYTES - RECORD_HEADER_BYTES) // 8


def string_id(ctx: Ctx, value: Value) -> int | None:
    """The id of a constant string global (its bytes, NUL dropped, added once), else None."""
    while not isinstance(value, GlobalVar) and getattr(value, "op", None) in ("gep", "bitcast"):
        value = value.operands[0]  # type: ignore[attr-defined]
    if not isinstance(value, GlobalVar) or not isinstance(value.initializer, ConstAggregate):
        return None
    data = bytes(int(e.value) & 0xFF for e in value.initializer.elements)  # type: ignore[attr-defined]
    data = data.split(b"\0", 1)[0]
    strings = ctx.module.strings
    if data not in strings:
        strings.append(data)
    return strings.index(data)


def slot_value(ctx: Ctx, value: Value) -> Operand:
    """One argument as its 64-bit slot."""
    t = value.type
    if isinstance(t, PtrType):
        sid = string_id(ctx, value)
        return Imm(sid) if sid is not None else ctx.vreg(ctx.part(value), 64)
    p = ctx.part(value)
    if isinstance(t, FloatType):
        if t.bits == 16:
            p = ctx.op("v_cvt_f32_f16", "v", 32, p)
        return p if t.bits == 64 else ctx.op("v_cvt_f64_f32", "v", 64, p)
    if isinstance(t, IntType):
        if t.bits == 64:
            return p
        if t.bits == 1:
            return ctx.join64(p, Imm(0), "v")
        if t.bits in (8, 16):
            p = ctx.op(f"v_sext_i32_i{t.bits}", "v", 32, ctx.vreg(p))
        return ctx.op("v_sext_i64_i32", "v", 64, ctx.vreg(p))
    raise ctx.error(f"printf of a {t} argument is not supported on simt")


def select_printf(ctx: Ctx, instr: Instr, base: str) -> None:
    fmt, *args = instr.operands
    fid = string_id(ctx, fmt)
    if fid is None:
        raise ctx.error("printf's format is not a string literal")
    if len(args) > MAX_ARGS:
        raise ctx.error(f"printf with {len(args)} arguments (simt takes at most {MAX_ARGS})")
    slots = [slot_value(ctx, a) for a in args]
    size = RECORD_HEADER_BYTES + 8 * len(args)
    buf = query(ctx, "printf_buffer", 0)  # a kernel's hidden argument, a helper's hidden parameter
    vbuf = ctx.vreg(buf, 64)
    old = ctx.op("global_atomic_add_u32", "v", 32, vbuf, ctx.vreg(Imm(size)), Imm(0))
    cap = ctx.op("s_load_b32", "s", 32, buf, Imm(4))
    end = ctx.op("v_add_u32", "v", 32, old, Imm(size))
    fits = ctx.op("v_cmp_le_u32", "s", 64, end, ctx.vreg(cap))
    off = ctx.op("v_cndmask_b32", "v", 32, Imm(HEADER_BYTES), old, fits)
    addr = ctx.op("v_add_u64", "v", 64, vbuf, ctx.join64(off, Imm(0), "v"))
    ctx.emit("global_store_b32", addr, ctx.vreg(Imm(size)), Imm(0))
    ctx.emit("global_store_b32", addr, ctx.vreg(Imm(fid)), Imm(4))
    ctx.emit("global_store_b64", addr, ctx.vreg(query(ctx, "get_global_linear_id", 0), 64), Imm(8))
    for k, s in enumerate(slots):
        ctx.emit("global_store_b64", addr, ctx.vreg(s, 64), Imm(RECORD_HEADER_BYTES + 8 * k))
    ctx.set(instr, [Imm(0)])
