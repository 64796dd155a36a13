"""Selection at function boundaries: kernel entry and kernel arguments, helper entry and
exit, calls, work-item queries and the other intrinsics.

**Kernel entry.** The wave starts with the state of `calling_convention.KERNEL_ENTRY`.
The entry block first copies the stack pointer (the frame base: `Ctx.entry["frame"]`),
then (the preamble) copies the entry registers it needs into virtual registers and
reads the kernel arguments from the kernarg segment with scalar loads at fixed offsets:
the explicit arguments as `targets/kernel_abi.py` lays them out (a `__local` pointer is
the low word of its 8-byte slot: its offset), read 16 bytes at a time with
`s_load_b128` into a 4-aligned tuple and split into the arguments' words
(`load_kernel_args`). The hidden block follows at `hidden_offset(explicit bytes)`.

**Work-item queries** (`query`): in a kernel, from the entry state and the hidden block
(`get_global_id(d) = group_id(d) * local_size(d) + local_id(d) + global_offset(d)`),
computed once in the preamble; a helper that is called (not inlined) gets the queries
it and its callees need as hidden trailing arguments (`FunctionInfo.queries`,
`QUERY_CLASSES`), computed by each caller. Two of them are no queries: the address of
the program-scope `__constant` block, and the printf buffer (with the global linear id,
for a helper that calls printf: a kernel that passes it on reads it from its hidden block
and is marked as a printf kernel, so that the launch gives it a buffer).

**Calls** follow `calling_convention.assign_arguments`: each IR argument's leaves in
the argument's file (from uniformity: "s" when every call site passes uniform values),
then the hidden queries; registers first, the rest stored at SP + offset. The call is
`s_call_b64 s[30:31], @f` listing the argument registers and SP as implicit uses and
the return registers as implicit definitions; results are copied out at once. A
helper's entry copies the return address, its register arguments, and loads its stack
arguments from slot 0 (the incoming area at the frame base); its exit copies the
return value into the return registers and returns with `s_setpc_b64`. Return values
that do not fit the return registers go through memory: the callee stores them in the
incoming area after its stack arguments (`assign_memory_returns`), where the caller
reads them back from SP after the call (`memory_return_offsets`).

**Math** intrinsics map to one vector instruction where the ISA has it (`MATH_OPS`);
float `exp`, `log` and their relatives go through `v_exp2_f32`/`v_log2_f32` with the
scaling done in double (`math_*`). (`v_sin_f32` of a float argument in turns is 34 ulp
off near sin's zeros, beyond OpenCL's 4: sin and cos take the formulas.) The rest, and every double
function without an instruction, expand into the straight-line double formulas of
`math_formulas.py` (`math_formula`: operands widened, the result rounded once).
"""

from __future__ import annotations

import math
from typing import Callable

from ...ir.intrinsics import MATH_FUNCTIONS
from ...ir.datalayout import DataLayout
from ...ir.types import F32, AddressSpace, FloatType, Type, VoidType
from ...ir.values import Argument, ConstInt, Function, GlobalVar, Instr
from ..kernel_abi import kernel_args
from .calling_convention import (
    HIDDEN_FIELDS, KERNEL_ENTRY, RETURN_ADDRESS, STACK_POINTER, ArgClass, assign_arguments,
    assign_memory_returns, assign_returns, constants_offset, hidden_offset, kernarg_bytes,
)
from .isel_aggregates import copy_bytes, copy_value, new_slot
from .isel_context import Ctx, FunctionInfo, bits_of, is_large, leaves, reg_width
from .isel_memory import from_generic
from .machine import FrameSlot, Func, Imm, Operand, PReg
from .math_formulas import Formula, nextafter
from .math_library import DOUBLE, FORMULAS
from .math_lanes import Lanes

# query -> (file, bits) of its value (the IR's type is converted at each use)
QUERY_CLASSES: dict[str, tuple[str, int]] = {
    "get_global_id": ("v", 64), "get_local_id": ("v", 32), "get_group_id": ("s", 32),
    "get_local_size": ("s", 32), "get_enqueued_local_size": ("s", 32), "get_num_groups": ("s", 32),
    "get_global_size": ("s", 32), "get_global_offset": ("s", 64), "get_work_dim": ("s", 32),
    "get_global_linear_id": ("v", 64), "get_local_linear_id": ("v", 32),
    "constants": ("s", 64),  # not a query: the address of the program-scope __constant block
    "printf_buffer": ("s", 64),  # not a query: the launch's printf buffer (`isel_printf.py`)
}
DIMENSIONAL = {"get_global_id", "get_local_id", "get_group_id", "get_local_size", "get_enqueued_local_size",
               "get_num_groups", "get_global_size", "get_global_offset"}
RESULT_ADDRESS = ArgClass("s", 32)  # the caller's slot for a large result (a frame address: uniform)
OUT_OF_RANGE = {"get_local_size": 1, "get_enqueued_local_size": 1, "get_num_groups": 1, "get_global_size": 1}


# -- kernel entry ---------------------------------------------------------------------------------------

def kernel_entry(ctx: Ctx) -> None:
    """The preamble of a kernel: its arguments read from the kernarg segment."""
    ctx.entry["kernarg"] = ctx.in_preamble(lambda: ctx.op("p_copy", "s", 64, KERNEL_ENTRY.kernarg))
    args, explicit = kernel_args(ctx.fn, ctx.layout)
    ctx.entry["hidden"] = Imm(hidden_offset(kernarg_bytes(explicit, bool(ctx.module.constants))))
    if ctx.module.constants:  # the constant block's address, in the slot after the arguments
        ctx.entry["constants"] = ctx.in_preamble(lambda: ctx.op("s_load_b64", "s", 64, ctx.entry["kernarg"],
                                                                 Imm(constants_offset(explicit))))
    by_name = {a.name: a for a in args}
    wanted = []
    for arg in ctx.fn.args:
        if "hidden" in arg.attrs:
            raise ctx.error(f"hidden kernel argument %{arg.name} (from a cpu pass) on simt")
        ka = by_name[arg.name]
        if ka.kind == "local":
            wanted.append((arg, [(arg.type, ka.offset, 4)]))
        elif ka.kind in ("global", "constant"):
            wanted.append((arg, [(arg.type, ka.offset, 8)]))
        elif is_large(arg.type, ctx.layout):
            if arg.users:
                ctx.in_preamble(lambda: ctx.set(arg, [copied_kernel_arg(ctx, arg, ka.offset)]))
        else:
            parts = leaves(arg.type, ctx.layout)
            wanted.append((arg, [(t, ka.offset + off, ctx.layout.size_of(t)) for t, off in parts]))
    ctx.in_preamble(lambda: load_kernel_args(ctx, wanted))


def copied_kernel_arg(ctx: Ctx, arg: Argument, offset: int) -> Operand:
    """A large by-value kernel argument, copied from the kernarg segment into a frame slot."""
    slot = new_slot(ctx, arg.type)
    source = ctx.op("s_add_u64", "s", 64, ctx.entry["kernarg"], Imm(offset))
    copy_bytes(ctx, AddressSpace.PRIVATE, slot, AddressSpace.CONSTANT, source, ctx.layout.size_of(arg.type))
    return slot


def load_kernel_args(ctx: Ctx, wanted: list[tuple[Argument, list[tuple[Type, int, int]]]]) -> None:
    """Scalar loads of the 16-byte chunks of the explicit arguments that are used, split into
    the words each leaf needs."""
    used = [(arg, leaves_) for arg, leaves_ in wanted if arg.users]
    chunks = sorted({off // 16 for _, ls in used for _, off, _ in ls})
    words: dict[int, Operand] = {}  # byte offset -> 32- or 64-bit scalar register
    for chunk in chunks:
        base = chunk * 16
        starts = {off for _, ls in used for _, off, size in ls if size == 8 and off // 16 == chunk}
        pieces, at = [], base
        while at < base + 16:
            width = 64 if at in starts else 32
            pieces.append((at, ctx.new("s", width)))
            at += width // 8
        tuple_ = ctx.op("s_load_b128", "s", 128, ctx.entry["kernarg"], Imm(base))
        ctx.emit("p_split", *[r for _, r in pieces], tuple_)
        words.update(dict(pieces))
    for arg, ls in used:
        ctx.set(arg, [leaf_from_words(ctx, words, off, size) for _, off, size in ls])


def leaf_from_words(ctx: Ctx, words: dict[int, Operand], off: int, size: int) -> Operand:
    if size == 8:
        return words[off]
    word = words.get(off - off % 4)
    if word is None:  # inside a 64-bit piece
        lo, hi = ctx.split64(words[off - off % 8])
        word = lo if off % 8 < 4 else hi
    shift = (off % 4) * 8
    return ctx.op("s_lshr_b32", "s", 32, word, Imm(shift)) if shift else word


def hidden_load(ctx: Ctx, field_name: str, index: int) -> Operand:
    key = f"hidden.{field_name}.{index}"
    if key not in ctx.entry:
        offset, size, _ = HIDDEN_FIELDS[field_name]
        at = int(ctx.entry["hidden"].value) + offset + size * index  # type: ignore[union-attr]
        ctx.entry[key] = ctx.in_preamble(
            lambda: ctx.op(f"s_load_b{size * 8}", "s", size * 8, ctx.entry["kernarg"], Imm(at)))
    return ctx.entry[key]


def entry_copy(ctx: Ctx, key: str, reg: PReg) -> Operand:
    if key not in ctx.entry:
        ctx.entry[key] = ctx.in_preamble(lambda: ctx.op("p_copy", reg.file, reg.width, reg))
    return ctx.entry[key]


# -- work-item queries ------------------------------------------------------------------------------------

def kernel_query(ctx: Ctx, base: str, dim: int) -> Operand:
    """A query's value in a kernel, in the preamble: (file, bits) of QUERY_CLASSES."""
    if base in DIMENSIONAL and not 0 <= dim < 3:
        value = OUT_OF_RANGE.get(base, 0)
        return Imm(value)
    if base == "get_local_id":
        return entry_copy(ctx, f"lid.{dim}", KERNEL_ENTRY.local_id[dim])
    if base == "printf_buffer":  # for itself or a helper: the launch passes a buffer
        ctx.mfn.attrs["printf"] = True
        return hidden_load(ctx, "printf_buffer", 0)
    if base == "get_group_id":
        return entry_copy(ctx, f"gid.{dim}", KERNEL_ENTRY.group_id[dim])
    if base in ("get_local_size", "get_enqueued_local_size"):
        return hidden_load(ctx, "local_size", dim)
    if base == "get_num_groups":
        return hidden_load(ctx, "num_groups", dim)
    if base == "get_global_size":
        return hidden_load(ctx, "global_size", dim)
    if base == "get_global_offset":
        return hidden_load(ctx, "global_offset", dim)
    if base == "get_work_dim":
        return hidden_load(ctx, "work_dim", 0)
    if base == "constants":
        return ctx.entry["constants"]
    return ctx.in_preamble(lambda: derived_query(ctx, base, dim))


def derived_query(ctx: Ctx, base: str, dim: int) -> Operand:
    if base == "get_global_id":
        return ctx.op("v_add_u64", "v", 64, ctx.join64(unoffset_id(ctx, dim), Imm(0), "v"),
                      query(ctx, "get_global_offset", dim))
    if base == "get_local_linear_id":
        lid = [query(ctx, "get_local_id", d) for d in range(3)]
        size = [query(ctx, "get_local_size", d) for d in range(2)]
        inner = ctx.op("v_mad_u32", "v", 32, lid[2], size[1], lid[1])
        return ctx.op("v_mad_u32", "v", 32, inner, size[0], lid[0])
    if base == "get_global_linear_id":
        gid = [unoffset_id(ctx, d) for d in range(3)]
        size = [query(ctx, "get_global_size", d) for d in range(2)]
        inner = ctx.op("v_mad_u32", "v", 32, gid[2], size[1], gid[1])
        return ctx.join64(ctx.op("v_mad_u32", "v", 32, inner, size[0], gid[0]), Imm(0), "v")
    raise ctx.error(f"unknown work-item query {base}")


def unoffset_id(ctx: Ctx, dim: int) -> Operand:
    """group_id * local_size + local_id: the global id without the offset, 32 bits."""
    key = f"gid32.{dim}"
    if key not in ctx.entry:
        group = ctx.op("s_mul_i32", "s", 32, query(ctx, "get_group_id", dim), query(ctx, "get_local_size", dim))
        ctx.entry[key] = ctx.op("v_add_u32", "v", 32, group, query(ctx, "get_local_id", dim))
    return ctx.entry[key]


def query(ctx: Ctx, base: str, dim: int) -> Operand:
    """A query's value (kernel: computed once; helper: its hidden argument)."""
    key = f"q.{base}.{dim}"
    if key in ctx.entry:
        return ctx.entry[key]
    if not ctx.fn.is_kernel:
        raise ctx.error(f"{base}({dim}) in a helper that did not receive it")
    ctx.entry[key] = kernel_query(ctx, base, dim)
    return ctx.entry[key]


def select_query(ctx: Ctx, instr: Instr, base: str) -> None:
    dim_value = instr.operands[0] if instr.operands else ConstInt(instr.type, 0)  # type: ignore[arg-type]
    file, bits = QUERY_CLASSES[base]
    if isinstance(dim_value, ConstInt) or base not in DIMENSIONAL:
        dim = dim_value.value if isinstance(dim_value, ConstInt) else 0
        value = query(ctx, base, dim)
    else:
        value = Imm(OUT_OF_RANGE.get(base, 0))
        d = ctx.part(dim_value)
        for k in range(3):
            hit = ctx.op("v_cmp_eq_u32", "s", 64, d, Imm(k))
            value = ctx.op(f"v_cndmask_b{bits}", "v", bits, value, query(ctx, base, k), hit)
    want = bits_of(instr.type, ctx.layout)
    if want == 64 and bits == 32:
        value = ctx.join64(value, Imm(0)) if not isinstance(value, Imm) else value
    elif want == 32 and bits == 64:
        value = ctx.split64(value)[0]
    ctx.set(instr, [value])


def queries_of(fn: Function) -> set[tuple[str, int]]:
    """The work-item queries `fn` makes itself (every dimension for a variable one)."""
    found: set[tuple[str, int]] = set()
    for instr in fn.instructions():
        if any(isinstance(o, GlobalVar) and o.space in (AddressSpace.CONSTANT, AddressSpace.GLOBAL)
               for o in instr.operands):
            found.add(("constants", 0))
        if instr.op != "call":
            continue
        base = instr.attrs["callee"].attrs.get("intrinsic")
        if base == "printf":  # its record: the buffer, and the work-item's global linear id
            found |= {("printf_buffer", 0), ("get_global_linear_id", 0)}
        if base not in QUERY_CLASSES:
            continue
        if base not in DIMENSIONAL:
            found.add((base, 0))
        elif instr.operands and isinstance(instr.operands[0], ConstInt):
            if 0 <= instr.operands[0].value < 3:
                found.add((base, instr.operands[0].value))
        else:
            found |= {(base, d) for d in range(3)}
    return found


# -- helper entry and exit --------------------------------------------------------------------------------

def arg_classes(layout: DataLayout, fn: Function, info: FunctionInfo) -> list[ArgClass]:
    """The argument classes of a helper: its IR arguments' leaves (a large aggregate's
    address), then its hidden queries, then the address of the caller's slot for a large
    result."""
    classes = [ArgClass(file, reg_width(t, layout))
               for arg, file in zip(fn.args, info.arg_files) for t, _ in leaves(arg.type, layout)]
    classes += [ArgClass(*QUERY_CLASSES[base]) for base, _ in info.queries]
    if is_large(fn.type.ret, layout):
        classes.append(RESULT_ADDRESS)
    return classes


def return_classes(ctx: Ctx, fn: Function) -> list[ArgClass]:
    if isinstance(fn.type.ret, VoidType) or is_large(fn.type.ret, ctx.layout):
        return []
    file = ctx.module.functions[fn].ret_file
    return [ArgClass(file, reg_width(t, ctx.layout)) for t, _ in leaves(fn.type.ret, ctx.layout)]


def helper_entry(ctx: Ctx) -> None:
    """Copy the return address and the arguments (registers, or slot 0 for the stack) into
    virtual registers."""
    ctx.entry["ra"] = ctx.op("p_copy", "s", 64, RETURN_ADDRESS)
    classes = arg_classes(ctx.layout, ctx.fn, ctx.info)
    locations, stack = assign_arguments(classes)
    area = incoming_area(ctx, ctx.fn, stack)
    if area:
        ctx.mfn.slots.insert(0, FrameSlot(area, 16))
    values: list[Operand] = []
    for cls, loc in zip(classes, locations):
        if loc.reg is not None:
            values.append(ctx.op("p_copy", cls.file, cls.bits, loc.reg))
        elif cls.file == "s":
            values.append(ctx.op(f"s_scratch_load_b{cls.bits}", "s", cls.bits, ctx.entry["frame"],
                                 Imm(loc.stack_offset)))
        else:
            values.append(ctx.op(f"scratch_load_b{cls.bits}", "v", cls.bits, ctx.entry["frame"],
                                 Imm(loc.stack_offset)))
    at = 0
    for arg in ctx.fn.args:
        n = len(leaves(arg.type, ctx.layout))
        ctx.set(arg, values[at:at + n])
        at += n
    for (base, dim), value in zip(ctx.info.queries, values[at:]):
        ctx.entry[f"q.{base}.{dim}"] = value
    if is_large(ctx.fn.type.ret, ctx.layout):
        ctx.entry["result"] = values[-1]
    if "q.constants.0" in ctx.entry:
        ctx.entry["constants"] = ctx.entry["q.constants.0"]


def incoming_area(ctx: Ctx, fn: Function, stack: int) -> int:
    """Bytes from a callee's incoming SP that its caller provides: the stack arguments, then
    the return values that do not fit the return registers."""
    rets = return_classes(ctx, fn)
    if assign_returns(rets) is not None:
        return stack
    return assign_memory_returns(rets, stack)[1]


def memory_return_offsets(ctx: Ctx, fn: Function) -> list[int] | None:
    """The offsets from the callee's incoming SP of `fn`'s return values when they do not
    fit the return registers, else None."""
    rets = return_classes(ctx, fn)
    if assign_returns(rets) is not None:
        return None
    _, stack = assign_arguments(arg_classes(ctx.layout, fn, ctx.module.functions[fn]))
    return assign_memory_returns(rets, stack)[0]


def helper_exit(ctx: Ctx, returned: list[Operand]) -> None:
    if is_large(ctx.fn.type.ret, ctx.layout):  # into the caller's slot
        copy_value(ctx, ctx.fn.type.ret, ctx.entry["result"], returned[0])
    classes = return_classes(ctx, ctx.fn)
    locations = assign_returns(classes)
    if locations is None:  # through memory: the caller's outgoing area, after the stack arguments
        offsets = memory_return_offsets(ctx, ctx.fn) or []
        for cls, off, value in zip(classes, offsets, returned):
            if cls.file == "s":
                ctx.emit(f"s_scratch_store_b{cls.bits}", ctx.sreg(value, cls.bits), ctx.entry["frame"], Imm(off))
            else:
                ctx.emit(f"scratch_store_b{cls.bits}", ctx.entry["frame"], value, Imm(off))
        ctx.copy(RETURN_ADDRESS, ctx.entry["ra"])
        ctx.emit("s_setpc_b64", RETURN_ADDRESS, uses=[])
        return
    regs = []
    for cls, loc, value in zip(classes, locations, returned):
        assert loc.reg is not None
        ctx.copy(loc.reg, value)
        regs.append(loc.reg)
    ctx.copy(RETURN_ADDRESS, ctx.entry["ra"])  # frame lowering's restores come after: s[30:31] is fixed
    ctx.emit("s_setpc_b64", RETURN_ADDRESS, uses=regs)


# -- calls ---------------------------------------------------------------------------------------------------

def select_call(ctx: Ctx, instr: Instr) -> None:
    callee: Function = instr.attrs["callee"]
    base = callee.attrs.get("intrinsic")
    if callee.is_declaration:
        if base is None:
            raise ctx.error(f"call to @{callee.name}, which is declared but not defined")
        handler = INTRINSICS.get(base)
        if handler is None:
            raise ctx.error(f"the builtin '{base}' is not supported on simt yet")
        handler(ctx, instr, base)
        return
    if callee.is_kernel:
        raise ctx.error(f"a call to kernel @{callee.name} (call a helper both use instead)")
    info = ctx.module.functions[callee]
    classes = arg_classes(ctx.layout, callee, info)
    sources = [p for v in instr.operands for p in ctx.parts(v)] + [query(ctx, b, d) for b, d in info.queries]
    result = new_slot(ctx, callee.type.ret) if is_large(callee.type.ret, ctx.layout) else None
    if result is not None:
        sources.append(result)
    locations, _ = assign_arguments(classes)
    sources = [ctx.ssrc(s, c.bits) if c.file == "s" else s for s, c in zip(sources, classes)]
    regs = []
    for cls, loc, value in zip(classes, locations, sources):
        if loc.reg is not None:
            ctx.copy(loc.reg, value)
            regs.append(loc.reg)
        elif cls.file == "s":
            ctx.emit(f"s_scratch_store_b{cls.bits}", value, STACK_POINTER, Imm(loc.stack_offset))
        else:
            ctx.emit(f"scratch_store_b{cls.bits}", STACK_POINTER, value, Imm(loc.stack_offset))
    rets = return_classes(ctx, callee)
    ret_locs = assign_returns(rets)
    if ret_locs is None:  # through memory: read back from the outgoing area after the call
        ctx.emit("s_call_b64", RETURN_ADDRESS, Func(callee.name), uses=regs + [STACK_POINTER], defs=[])
        offsets = memory_return_offsets(ctx, callee) or []
        ctx.set(instr, [ctx.op(f"s_scratch_load_b{c.bits}", "s", c.bits, STACK_POINTER, Imm(off)) if c.file == "s"
                        else ctx.op(f"scratch_load_b{c.bits}", "v", c.bits, STACK_POINTER, Imm(off))
                        for c, off in zip(rets, offsets)])
        return
    if result is not None:
        ctx.emit("s_call_b64", RETURN_ADDRESS, Func(callee.name), uses=regs + [STACK_POINTER], defs=[])
        ctx.set(instr, [result])
        return
    ret_regs = [loc.reg for loc in ret_locs]
    ctx.emit("s_call_b64", RETURN_ADDRESS, Func(callee.name), uses=regs + [STACK_POINTER], defs=ret_regs)
    ctx.set(instr, [ctx.op("p_copy", r.file, r.width, r) for r in ret_regs])  # type: ignore[union-attr]


# -- other intrinsics ------------------------------------------------------------------------------------------

def select_barrier(ctx: Ctx, instr: Instr, base: str) -> None:
    ctx.emit("s_barrier")


def select_fence(ctx: Ctx, instr: Instr, base: str) -> None:
    """Memory operations complete in program order on simt: a fence needs no instruction."""


MATH_OPS: dict[str, str] = {
    "sqrt": "v_sqrt", "fabs": "v_abs", "floor": "v_floor", "ceil": "v_ceil", "trunc": "v_trunc",
    "rint": "v_rndne", "fmin": "v_min", "fmax": "v_max", "fma": "v_fma", "ldexp": "v_ldexp",
}
NATIVE_F32 = {"exp2": "v_exp2_f32", "log2": "v_log2_f32"}


def select_math(ctx: Ctx, instr: Instr, base: str) -> None:
    t = instr.type.scalar()
    if not isinstance(t, FloatType):
        raise ctx.error(f"{base} on {instr.type} is not supported on simt yet")
    args = [ctx.parts(a) for a in instr.operands]
    kinds = [a.type.scalar() for a in instr.operands]
    n = max(len(a) for a in args)
    out = []
    for k in range(n):
        elems = [a[k] if len(a) > 1 else a[0] for a in args]
        if t.bits == 16:
            out.append(half_math_element(ctx, base, elems, kinds))
        else:
            out.append(math_element(ctx, base, t.bits, elems, kinds))
    ctx.set(instr, out)


def half_math_element(ctx: Ctx, base: str, args: list[Operand], kinds: list[Type]) -> Operand:
    """A half builtin through float: the half operands widened (exactly), the float
    function's result rounded to half once. fma alone needs more: the product and sum
    in double (exact product), rounded to float by round-to-odd so that the rounding to
    half is the one correct rounding."""
    is_half = [isinstance(k, FloatType) and k.bits == 16 for k in kinds]
    wide = [ctx.op("v_cvt_f32_f16", "v", 32, a) if h else a for a, h in zip(args, is_half)]
    if base == "fma":
        o = Lanes(ctx)
        r = o.fma(*(o.widen(w) for w in wide))
        r32 = round_to_odd_f32(o, r)
    else:
        r32 = math_element(ctx, base, 32, wide, [F32 if h else k for k, h in zip(kinds, is_half)])
    return ctx.op("v_cvt_f16_f32", "v", 32, r32)


def round_to_odd_f32(o: Lanes, x: Operand) -> Operand:
    """Double `x` rounded to float toward zero, the low bit set when inexact."""
    r = o.narrow(x)
    back = o.widen(r)
    toward_zero = o.sel(o.gt(o.fabs(back), o.fabs(x)), o.isub(r, 1, 32), r, 32)
    return o.sel(o.cmp("one", back, x), o.ior(toward_zero, 1, 32), toward_zero, 32)


def math_element(ctx: Ctx, base: str, bits: int, args: list[Operand], kinds: list[Type]) -> Operand:
    if base in MATH_OPS:
        return ctx.op(f"{MATH_OPS[base]}_f{bits}", "v", bits, *args)
    if bits == 32 and base in NATIVE_F32:
        return ctx.op(NATIVE_F32[base], "v", 32, *args)
    special = MATH_SPECIAL.get(base)
    if special is not None and bits == 32:
        return special(ctx, args)
    if base == "nextafter":
        return nextafter(Lanes(ctx), args[0], args[1], bits)
    formula = (DOUBLE.get(base) if bits == 64 else None) or FORMULAS.get(base)
    if formula is None:
        raise ctx.error(f"the math function '{base}' on {'float' if bits == 32 else 'double'} is not supported "
                        "on simt yet")
    return math_formula(ctx, formula, bits, args, kinds)


def math_formula(ctx: Ctx, formula: Formula, bits: int, args: list[Operand], kinds: list[Type]) -> Operand:
    """A `math_formulas` formula on doubles: float operands widened, int ones converted, the
    result rounded once to `bits`."""
    o = Lanes(ctx)
    wide: list[Operand] = []
    for a, t in zip(args, kinds):
        if isinstance(t, FloatType):
            wide.append(a if t.bits == 64 else o.widen(a))
        else:
            wide.append(ctx.op("v_cvt_f64_i32", "v", 64, a))
    v = formula(o, *wide)
    return v if bits == 64 else o.narrow(v)


def via_double_scale(ctx: Ctx, x: Operand, scale: float) -> tuple[Operand, Operand]:
    """x * scale in double, clamped to [-512, 512] (beyond, 2^t is 0 or inf in float; an
    infinite t would make f = inf - inf a NaN), split into the nearest integer n and the
    rest f (as float)."""
    wide = ctx.op("v_cvt_f64_f32", "v", 64, x)
    t = ctx.op("v_mul_f64", "v", 64, wide, Imm(scale))
    t = ctx.op("v_max_f64", "v", 64, ctx.op("v_min_f64", "v", 64, t, Imm(512.0)), Imm(-512.0))
    n = ctx.op("v_rndne_f64", "v", 64, t)
    f = ctx.op("v_cvt_f32_f64", "v", 32, ctx.op("v_sub_f64", "v", 64, t, n))
    return n, f


def math_exp_base(scale: float) -> Callable[[Ctx, list[Operand]], Operand]:
    """exp(x), exp10(x): 2^(x*scale) with the product formed in double, 2^n applied by ldexp."""
    def make(ctx: Ctx, args: list[Operand]) -> Operand:
        n, f = via_double_scale(ctx, args[0], scale)
        n32 = ctx.op("v_cvt_i32_f64", "v", 32, n)
        value = ctx.op("v_ldexp_f32", "v", 32, ctx.op("v_exp2_f32", "v", 32, f), n32)
        nan = ctx.op("v_cmp_uno_f32", "s", 64, args[0], args[0])  # the clamp made a NaN a number
        return ctx.op("v_cndmask_b32", "v", 32, value, args[0], nan)
    return make


def math_log_base(scale: float) -> Callable[[Ctx, list[Operand]], Operand]:
    """log(x), log10(x): log2(x) * scale, the product rounded once."""
    def make(ctx: Ctx, args: list[Operand]) -> Operand:
        wide = ctx.op("v_cvt_f64_f32", "v", 64, ctx.op("v_log2_f32", "v", 32, args[0]))
        return ctx.op("v_cvt_f32_f64", "v", 32, ctx.op("v_mul_f64", "v", 64, wide, Imm(scale)))
    return make


def math_copysign(ctx: Ctx, args: list[Operand]) -> Operand:
    magnitude = ctx.op("v_and_b32", "v", 32, args[0], Imm(0x7FFFFFFF))
    sign = ctx.op("v_and_b32", "v", 32, args[1], Imm(0x80000000))
    return ctx.op("v_or_b32", "v", 32, magnitude, sign)


def math_rsqrt(ctx: Ctx, args: list[Operand]) -> Operand:
    return ctx.op("v_rsq_f32", "v", 32, args[0])


MATH_SPECIAL: dict[str, Callable[[Ctx, list[Operand]], Operand]] = {
    "exp": math_exp_base(1 / math.log(2)), "exp10": math_exp_base(math.log2(10)),
    "log": math_log_base(math.log(2)), "log10": math_log_base(math.log10(2)),
    "copysign": math_copysign,
    "rsqrt": math_rsqrt,
}


def select_generic_space_test(ctx: Ctx, instr: Instr, base: str) -> None:
    space = {"to_global": AddressSpace.GLOBAL, "to_local": AddressSpace.LOCAL,
             "to_private": AddressSpace.PRIVATE}[base]
    ctx.set(instr, [from_generic(ctx, instr, space, ctx.part(instr.operands[0]))])


def select_query_intrinsic(ctx: Ctx, instr: Instr, base: str) -> None:
    select_query(ctx, instr, base)


INTRINSICS: dict[str, Callable[[Ctx, Instr, str], None]] = {
    **{q: select_query_intrinsic for q in QUERY_CLASSES},
    **{m: select_math for m in MATH_FUNCTIONS},
    "barrier": select_barrier, "mem_fence": select_fence,
    "to_global": select_generic_space_test, "to_local": select_generic_space_test,
    "to_private": select_generic_space_test,
}

