"""Selection patterns for arithmetic: binary and unary operations, compares, selects, casts.

Each IR opcode has a row naming its scalar and vector opcodes by width
(`INT_OPS`, `FLOAT_OPS`, `ICMP`, `FCMP`, `CONVERT`); the functions here pick
a row's scalar form when the result is uniform and every source is a scalar
register or an immediate, else its vector form. Vector types are selected
element by element (the parts of `isel_context`).

Narrow integers (i8, i16) have undefined high bits in registers: `narrow`
zero- or sign-extends them where the high bits matter (compares, division,
right shifts, widening, conversion to float). An `i1` is 0 or 1.

A compare whose only user is the branch or select right after it in its
block is *fused*: it is selected at that user as a lane mask (`v_cmp`) or
as `scc` (`s_cmp`) rather than as a 0/1 register (`cond_mask`, `cond_scc`).
"""

from __future__ import annotations

from typing import Callable

from ...ir.types import FloatType, Type
from ...ir.values import ConstAggregate, ConstInt, Instr, Value
from .isel_bitcast import bitcast
from .isel_context import Ctx, bits_of, is_vector, leaves, reg_width
from .machine import EXEC, Imm, Operand
from .math_remainder import fmod_of
from .math_lanes import Lanes

# ir op -> (scalar 32, scalar 64, vector 32, vector 64, how narrow sources extend: "", "z", "s")
INT_OPS: dict[str, tuple[str | None, str | None, str, str, str]] = {
    "add": ("s_add_u32", "s_add_u64", "v_add_u32", "v_add_u64", ""),
    "sub": ("s_sub_u32", "s_sub_u64", "v_sub_u32", "v_sub_u64", ""),
    "mul": ("s_mul_i32", "s_mul_u64", "v_mul_lo_u32", "v_mul_lo_u64", ""),
    "and": ("s_and_b32", "s_and_b64", "v_and_b32", "v_and_b64", ""),
    "or": ("s_or_b32", "s_or_b64", "v_or_b32", "v_or_b64", ""),
    "xor": ("s_xor_b32", "s_xor_b64", "v_xor_b32", "v_xor_b64", ""),
    "shl": ("s_lshl_b32", "s_lshl_b64", "v_lshl_b32", "v_lshl_b64", ""),
    "lshr": ("s_lshr_b32", "s_lshr_b64", "v_lshr_b32", "v_lshr_b64", "z"),
    "ashr": ("s_ashr_i32", "s_ashr_i64", "v_ashr_i32", "v_ashr_i64", "s"),
    "udiv": (None, None, "v_div_u32", "v_div_u64", "z"),
    "sdiv": (None, None, "v_div_i32", "v_div_i64", "s"),
    "urem": (None, None, "v_rem_u32", "v_rem_u64", "z"),
    "srem": (None, None, "v_rem_i32", "v_rem_i64", "s"),
}
SHIFTS = ("shl", "lshr", "ashr")
FLOAT_OPS = {"fadd": "v_add", "fsub": "v_sub", "fmul": "v_mul", "fdiv": "v_div"}

# icmp predicate -> (ISA predicate, signed)
ICMP: dict[str, tuple[str, bool]] = {
    "eq": ("eq", False), "ne": ("ne", False), "slt": ("lt", True), "sle": ("le", True),
    "sgt": ("gt", True), "sge": ("ge", True), "ult": ("lt", False), "ule": ("le", False),
    "ugt": ("gt", False), "uge": ("ge", False),
}
FCMP = ("oeq", "one", "olt", "ole", "ogt", "oge", "ord", "uno", "ueq", "une", "ult", "ule", "ugt", "uge")
NEGATED_SCC = {"eq": "ne", "ne": "eq", "lt": "ge", "ge": "lt", "le": "gt", "gt": "le"}


def scalar_ok(ctx: Ctx, instr: Instr, sources: list[Operand]) -> bool:
    """Whether `instr` is selected on the scalar unit: uniform, every source scalar."""
    return ctx.uniform(instr) and not any(is_vector(s) for s in sources)


def int_bits(t: Type, ctx: Ctx) -> int:
    return bits_of(t, ctx.layout)


# -- narrow integers -------------------------------------------------------------------------

def narrow(ctx: Ctx, o: Operand, bits: int, how: str, scalar: bool) -> Operand:
    """A narrow integer (8 or 16 bits) zero- ("z") or sign- ("s") extended to 32 bits."""
    if bits not in (8, 16) or not how:
        return o
    if isinstance(o, Imm):
        v = int(o.value) & ((1 << bits) - 1)
        if how == "s" and v >> (bits - 1):
            v -= 1 << bits
        return Imm(v & 0xFFFFFFFF)
    file = "s" if scalar else "v"
    if how == "z":
        return ctx.op(f"{file}_and_b32", file, 32, o, Imm((1 << bits) - 1))
    return ctx.op(f"{file}_sext_i32_i{bits}", file, 32, o)


# -- binary ----------------------------------------------------------------------------------

def select_binary(ctx: Ctx, instr: Instr) -> None:
    t = instr.type.scalar()
    a_parts, b_parts = ctx.parts(instr.operands[0]), ctx.parts(instr.operands[1])
    if isinstance(t, FloatType):
        out = [float_binary(ctx, instr, t, a, b) for a, b in zip(a_parts, b_parts)]
    else:
        if instr.op in DIVISIONS:
            check_divisors(ctx, instr, t)
        out = [int_binary(ctx, instr, t, a, b) for a, b in zip(a_parts, b_parts)]
    ctx.set(instr, out)


DIVISIONS = ("sdiv", "udiv", "srem", "urem")


def check_divisors(ctx: Ctx, instr: Instr, t: Type) -> None:
    """`v_check_nonzero` on the divisor as the source wrote it: the frontend's guard
    (`select(d == 0 ..., 1, d)`, which keeps the machine from trapping) looked through."""
    divisor = instr.operands[1]
    if isinstance(divisor, Instr) and divisor.op == "select" and is_one(divisor.operands[1]):
        divisor = divisor.operands[2]
    bits = int_bits(t, ctx)
    if bits == 1:
        return
    for part in ctx.parts(divisor):
        if isinstance(part, Imm) and int(part.value) & ((1 << bits) - 1):
            continue
        ctx.emit("v_check_nonzero_u64" if bits == 64 else "v_check_nonzero_u32", narrow(ctx, part, bits, "z", False))


def is_one(v: object) -> bool:
    if isinstance(v, ConstInt):
        return v.value == 1
    return isinstance(v, ConstAggregate) and all(isinstance(e, ConstInt) and e.value == 1 for e in v.elements)


def int_binary(ctx: Ctx, instr: Instr, t: Type, a: Operand, b: Operand) -> Operand:
    s32, s64, v32, v64, ext = INT_OPS[instr.op]
    bits = int_bits(t, ctx)
    width = 64 if bits == 64 else 32
    scalar = scalar_ok(ctx, instr, [a, b]) and s32 is not None
    a, b = narrow(ctx, a, bits, ext, scalar), narrow(ctx, b, bits, ext, scalar)
    if instr.op in SHIFTS and width == 64:
        b = Imm(int(b.value) & 63) if isinstance(b, Imm) else ctx.split64(b)[0]
    if scalar:
        d = ctx.op(s64 if width == 64 else s32, "s", width, a, b)  # type: ignore[arg-type]
    else:
        d = ctx.op(v64 if width == 64 else v32, "v", width, a, b)
    if bits == 1 and instr.op not in ("and", "or", "xor"):
        d = ctx.op("s_and_b32" if scalar else "v_and_b32", "s" if scalar else "v", 32, d, Imm(1))
    return d


def float_binary(ctx: Ctx, instr: Instr, t: Type, a: Operand, b: Operand) -> Operand:
    bits = t.bits  # type: ignore[attr-defined]
    if instr.op == "frem":  # the C library's fmod, from the math formulas
        if bits == 16:
            raise ctx.error("frem on half is not supported on simt yet")
        o = Lanes(ctx)
        wide = [x if bits == 64 else o.widen(x) for x in (a, b)]
        r = fmod_of(bits)(o, *wide)
        return r if bits == 64 else o.narrow(r)
    if bits == 16:
        a32, b32 = (ctx.op("v_cvt_f32_f16", "v", 32, x) for x in (a, b))
        r = ctx.op(f"{FLOAT_OPS[instr.op]}_f32", "v", 32, a32, b32)
        return ctx.op("v_cvt_f16_f32", "v", 32, r)
    return ctx.op(f"{FLOAT_OPS[instr.op]}_f{bits}", "v", bits, a, b)


def select_fneg(ctx: Ctx, instr: Instr) -> None:
    t = instr.type.scalar()
    out = []
    for a in ctx.parts(instr.operands[0]):
        if t.bits == 16:  # type: ignore[attr-defined]
            out.append(ctx.op("v_xor_b32", "v", 32, a, Imm(0x8000)))
        else:
            out.append(ctx.op(f"v_neg_f{t.bits}", "v", t.bits, a))  # type: ignore[attr-defined]
    ctx.set(instr, out)


# -- compares ----------------------------------------------------------------------------------

def compare_sources(ctx: Ctx, cmp: Instr, a: Operand, b: Operand, scalar: bool) -> tuple[str, Operand, Operand]:
    """(ISA opcode suffix-less name, a, b) for one element of a compare: `v_cmp_lt_i32` etc."""
    t = cmp.operands[0].type.scalar()
    if cmp.op == "fcmp":
        pred = cmp.attrs["pred"]
        bits = t.bits  # type: ignore[attr-defined]
        if bits == 16:
            a, b = (ctx.op("v_cvt_f32_f16", "v", 32, x) for x in (a, b))
            bits = 32
        return f"{pred}_f{bits}", a, b
    pred, signed = ICMP[cmp.attrs["pred"]]
    bits = int_bits(t, ctx)
    a, b = (narrow(ctx, x, bits, "s" if signed else "z", scalar) for x in (a, b))
    kind = ("i" if signed else "u") + ("64" if bits == 64 else "32")
    return f"{pred}_{kind}", a, b


def scalar_compare_ok(cmp: Instr, ctx: Ctx, sources: list[Operand]) -> bool:
    if cmp.op != "icmp" or not scalar_ok(ctx, cmp, sources):
        return False
    bits = int_bits(cmp.operands[0].type.scalar(), ctx)
    return bits != 64 or cmp.attrs["pred"] in ("eq", "ne")


def constant_fcmp(cmp: Instr) -> int | None:
    pred = cmp.attrs.get("pred")
    return {"false": 0, "true": 1}.get(pred) if cmp.op == "fcmp" else None


def compare_mask(ctx: Ctx, cmp: Instr, a: Operand, b: Operand) -> Operand:
    """The lanes (of exec) where one element of `cmp` holds, as a mask."""
    fixed = constant_fcmp(cmp)
    if fixed is not None:
        return EXEC if fixed else Imm(0)
    name, a, b = compare_sources(ctx, cmp, a, b, scalar=False)
    return ctx.op(f"v_cmp_{name}", "s", 64, a, b)


def compare_scc(ctx: Ctx, cmp: Instr, a: Operand, b: Operand) -> None:
    """scc = one element of a uniform integer compare."""
    name, a, b = compare_sources(ctx, cmp, a, b, scalar=True)
    ctx.emit(f"s_cmp_{name}", a, b)


def select_cmp(ctx: Ctx, instr: Instr) -> None:
    if instr in ctx.fused:
        return
    out = []
    for a, b in zip(ctx.parts(instr.operands[0]), ctx.parts(instr.operands[1])):
        fixed = constant_fcmp(instr)
        if fixed is not None:
            out.append(Imm(fixed))
        elif scalar_compare_ok(instr, ctx, [a, b]):
            compare_scc(ctx, instr, a, b)
            out.append(ctx.op("s_cselect_b32", "s", 32, Imm(1), Imm(0)))
        else:
            mask = compare_mask(ctx, instr, a, b)
            out.append(ctx.op("v_cndmask_b32", "v", 32, Imm(0), Imm(1), mask))
    ctx.set(instr, out)


def fusable(instr: Instr) -> bool:
    """A scalar compare whose one use is the condition of the branch or select after it."""
    if instr.op not in ("icmp", "fcmp") or instr.type.is_vector() or instr.parent is None:
        return False
    users = instr.users
    if len(users) != 1 or len(instr.uses) != 1:
        return False
    user = users[0]
    if user.parent is not instr.parent or user.op not in ("condbr", "select") or user.operands[0] is not instr:
        return False
    if user.op == "select" and user.type.is_vector():
        return False
    block = instr.parent.instrs
    return block.index(user) == block.index(instr) + 1


def cond_mask(ctx: Ctx, value: Value, part: int = 0) -> Operand:
    """The lanes of exec where the i1 `value` (element `part`) is true, as a mask operand."""
    if isinstance(value, Instr) and value in ctx.fused:
        a, b = ctx.parts(value.operands[0])[part], ctx.parts(value.operands[1])[part]
        return compare_mask(ctx, value, a, b)
    c = ctx.parts(value)[part]
    if isinstance(c, Imm):
        return EXEC if int(c.value) & 1 else Imm(0)
    return ctx.op("v_cmp_ne_u32", "s", 64, c, Imm(0))


def cond_scc(ctx: Ctx, value: Value) -> bool | None:
    """Set scc from the uniform i1 `value`; returns the constant instead when it is one."""
    if isinstance(value, Instr) and value in ctx.fused:
        fixed = constant_fcmp(value)
        if fixed is not None:
            return bool(fixed)
        a, b = ctx.parts(value.operands[0])[0], ctx.parts(value.operands[1])[0]
        if scalar_compare_ok(value, ctx, [a, b]):
            compare_scc(ctx, value, a, b)
        else:  # a float or 64-bit ordered compare: the vector unit's mask is all or none of exec
            ctx.emit("s_cmp_ne_u64", compare_mask(ctx, value, a, b), Imm(0))
        return None
    c = ctx.parts(value)[0]
    if isinstance(c, Imm):
        return bool(int(c.value) & 1)
    ctx.emit("s_cmp_ne_u32", ctx.sreg(c), Imm(0))
    return None


def select_select(ctx: Ctx, instr: Instr) -> None:
    cond, a_val, b_val = instr.operands
    a_parts, b_parts = ctx.parts(a_val), ctx.parts(b_val)
    widths = [reg_width(t, ctx.layout) for t, _ in leaves_of(ctx, instr.type)]
    vector_cond = cond.type.is_vector()
    cond_parts = ctx.parts(cond) if vector_cond or cond not in ctx.fused else []
    scalar = ctx.uniform(instr) and not any(is_vector(p) for p in a_parts + b_parts + cond_parts)
    out: list[Operand] = []
    if scalar and not vector_cond:
        fixed = cond_scc(ctx, cond)
        for a, b, w in zip(a_parts, b_parts, widths):
            out.append(a if fixed else b if fixed is False else ctx.op(f"s_cselect_b{w}", "s", w, a, b))
        ctx.set(instr, out)
        return
    mask = None if vector_cond else cond_mask(ctx, cond)
    for k, (a, b, w) in enumerate(zip(a_parts, b_parts, widths)):
        m = cond_mask(ctx, cond, k) if vector_cond else mask
        out.append(ctx.op(f"v_cndmask_b{w}", "v", w, b, a, m))
    ctx.set(instr, out)


def leaves_of(ctx: Ctx, t: Type) -> list[tuple[Type, int]]:
    return leaves(t, ctx.layout)


# -- casts --------------------------------------------------------------------------------------

def select_cast(ctx: Ctx, instr: Instr) -> None:
    src_t, dst_t = instr.operands[0].type, instr.type
    handler = CASTS.get(instr.op)
    if handler is None:
        raise ctx.error(f"cast {instr.op} is not supported on simt")
    if instr.op == "bitcast":
        ctx.set(instr, bitcast(ctx, instr))
        return
    out = [handler(ctx, instr, src_t.scalar(), dst_t.scalar(), p) for p in ctx.parts(instr.operands[0])]
    ctx.set(instr, out)


def int_resize(ctx: Ctx, instr: Instr, src_bits: int, dst_bits: int, how: str, p: Operand) -> Operand:
    """An integer of src_bits as one of dst_bits: truncated, or extended ("z"/"s")."""
    scalar = scalar_ok(ctx, instr, [p])
    file = "s" if scalar else "v"
    if isinstance(p, Imm):
        v = int(p.value) & ((1 << src_bits) - 1)
        if how == "s" and src_bits > 1 and v >> (src_bits - 1):
            v -= 1 << src_bits
        if how == "s" and src_bits == 1 and v:
            v = -1
        return Imm(v & ((1 << dst_bits) - 1))
    if dst_bits == src_bits:
        return p
    if dst_bits < src_bits:  # truncate
        if src_bits == 64:
            p = ctx.split64(p)[0]
        if dst_bits == 1:
            return ctx.op(f"{file}_and_b32", file, 32, p, Imm(1))
        return p
    if src_bits == 1 and how == "s":
        p = ctx.op(f"{file}_sub_u32", file, 32, Imm(0), p)
    elif src_bits == 32 and dst_bits == 64 and how == "s" and file == "v":
        return ctx.op("v_sext_i64_i32", "v", 64, p)
    elif src_bits < 32:
        p = narrow(ctx, p, src_bits, how, scalar)
    if dst_bits < 64:
        return p
    if how == "s":
        hi = ctx.op(f"{file}_ashr_i32", file, 32, p, Imm(31))
    else:
        hi = Imm(0)
    return ctx.join64(p, hi, file)


def cast_int(ctx: Ctx, instr: Instr, src: Type, dst: Type, p: Operand) -> Operand:
    how = {"zext": "z", "sext": "s", "trunc": ""}[instr.op]
    return int_resize(ctx, instr, int_bits(src, ctx), int_bits(dst, ctx), how, p)


def cast_ptr_int(ctx: Ctx, instr: Instr, src: Type, dst: Type, p: Operand) -> Operand:
    return int_resize(ctx, instr, bits_of(src, ctx.layout), bits_of(dst, ctx.layout), "z", p)


def cast_fp(ctx: Ctx, instr: Instr, src: Type, dst: Type, p: Operand) -> Operand:
    s, d = src.bits, dst.bits  # type: ignore[attr-defined]
    if s == 16:
        p, s = ctx.op("v_cvt_f32_f16", "v", 32, p), 32
    if s == d:
        return p
    if d == 16:
        if s == 64:
            p = ctx.op("v_cvt_f32_f64", "v", 32, p)
        return ctx.op("v_cvt_f16_f32", "v", 32, p)
    return ctx.op(f"v_cvt_f{d}_f{s}", "v", d, p)


def cast_to_int(ctx: Ctx, instr: Instr, src: Type, dst: Type, p: Operand) -> Operand:
    s = src.bits  # type: ignore[attr-defined]
    if s == 16:
        p, s = ctx.op("v_cvt_f32_f16", "v", 32, p), 32
    bits = int_bits(dst, ctx)
    signed = instr.op == "fptosi"
    kind = ("i" if signed else "u") + ("64" if bits == 64 else "32")
    d = ctx.op(f"v_cvt_{kind}_f{s}", "v", 64 if bits == 64 else 32, p)
    return ctx.op("v_and_b32", "v", 32, d, Imm(1)) if bits == 1 else d


def cast_to_float(ctx: Ctx, instr: Instr, src: Type, dst: Type, p: Operand) -> Operand:
    bits = int_bits(src, ctx)
    signed = instr.op == "sitofp"
    if bits < 32:
        p = int_resize(ctx, instr, bits, 32, "s" if signed else "z", p)
        if isinstance(p, Imm):
            p = ctx.vreg(p)
    d_bits = dst.bits  # type: ignore[attr-defined]
    kind = ("i" if signed else "u") + ("64" if bits == 64 else "32")
    if d_bits == 16:
        f = ctx.op(f"v_cvt_f32_{kind}", "v", 32, p)
        return ctx.op("v_cvt_f16_f32", "v", 32, f)
    return ctx.op(f"v_cvt_f{d_bits}_{kind}", "v", d_bits, p)


CASTS: dict[str, Callable[[Ctx, Instr, Type, Type, Operand], Operand]] = {
    "trunc": cast_int, "zext": cast_int, "sext": cast_int,
    "ptrtoint": cast_ptr_int, "inttoptr": cast_ptr_int,
    "fptrunc": cast_fp, "fpext": cast_fp,
    "fptosi": cast_to_int, "fptoui": cast_to_int,
    "sitofp": cast_to_float, "uitofp": cast_to_float,
    "bitcast": cast_int,  # handled whole by `bitcast`
}


