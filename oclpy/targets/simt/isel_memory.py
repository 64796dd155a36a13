"""Selection patterns for memory: addresses, loads, stores, atomics, allocas, address-space casts.

Each address space has its instruction family and address width
(docs/simt.md, the memory page): global and constant `global_*` with 64-bit
addresses, local `ds_*` and private `scratch_*` with 32-bit offsets, generic
`flat_*` with 64-bit flat addresses (`PREFIX`). A load or store of an
aggregate is one access per scalar leaf at its layout offset (the
instruction's immediate offset); a vector's 32- and 64-bit elements go 8 or
16 bytes at a time (`*_load_b64/b128`, `*_store_b64/b128`, split into or
joined from the elements' registers; `wide_runs`), the rest one per element.
A uniform load from `__constant` memory at a 4-aligned address is a scalar
load (`s_load_b32/b64`).

`getelementptr` is integer arithmetic on the pointer's bits: the constant
part of the offset is folded, each variable index is scaled and added
(`v_mad_u32/u64` per lane, `s_mul`/`s_add` when uniform).

An `alloca` is a frame slot (`%stack.N`); its address is the frame base
(the stack pointer at the function's entry, `Ctx.entry["frame"]`) plus the
slot's offset: the same number in every lane, since each lane has its own
private segment, so it is a scalar register whatever the uniformity
analysis says about the pointer.

Casts between a named space and generic go through the apertures: a local
or private offset `o` is `APERTURE_HI << 32 | o` as a generic address, and
its null (all ones) is the generic null 0; back, the high word is checked
against the aperture, and an address outside it becomes the named null.
"""

from __future__ import annotations

from ...ir.types import AddressSpace, ArrayType, PtrType, StructType, Type, VectorType
from ...ir.values import ConstInt, Instr
from .calling_convention import STACK_ALIGN
from .isel_arith import int_resize, scalar_ok
from .isel_context import Ctx, bits_of, is_vector, leaves, reg_width
from .machine import FrameSlot, Imm, Operand, Slot
from .memory_model import LOCAL_APERTURE_HI, NULL32, PRIVATE_APERTURE_HI

PREFIX = {AddressSpace.GLOBAL: "global", AddressSpace.CONSTANT: "global", AddressSpace.LOCAL: "ds",
          AddressSpace.PRIVATE: "scratch", AddressSpace.GENERIC: "flat"}
LOAD_SUFFIX = {8: "u8", 16: "u16", 32: "b32", 64: "b64", 1: "u8"}
STORE_SUFFIX = {8: "b8", 16: "b16", 32: "b32", 64: "b64", 1: "b8"}
ATOMIC_NAMES = {"add": ("add", "u"), "sub": ("sub", "u"), "and": ("and", "b"), "or": ("or", "b"),
                "xor": ("xor", "b"), "max": ("smax", "i"), "min": ("smin", "i"), "umax": ("umax", "u"),
                "umin": ("umin", "u"), "xchg": ("swap", "b"), "fadd": ("fadd", "f")}
APERTURES = {AddressSpace.LOCAL: LOCAL_APERTURE_HI, AddressSpace.PRIVATE: PRIVATE_APERTURE_HI}
WIDE_BYTES = 16  # the widest vector memory access (`*_load_b128`)
IMM_OFFSET_LIMIT = 1 << 20  # offsets folded into an instruction's immediate stay below this


def space_of(t: Type) -> AddressSpace:
    assert isinstance(t, PtrType)
    return t.space


# -- addresses ------------------------------------------------------------------------------------

def select_gep(ctx: Ctx, instr: Instr) -> None:
    base_val, *indices = instr.operands
    space = space_of(base_val.type)
    width = ctx.layout.pointer_bits[space]
    t: Type = instr.attrs["elem"]
    const = 0
    terms: list[tuple[Operand, int, int]] = []  # (index, its bits, scale)
    for k, index in enumerate(indices):
        if k == 0:
            scale = ctx.layout.size_of(t)
        elif isinstance(t, StructType):
            if not isinstance(index, ConstInt):
                raise ctx.error("a struct field index must be a constant")
            const += ctx.layout.struct_layout(t).offsets[index.value]
            t = t.fields[index.value]
            continue
        elif isinstance(t, (ArrayType, VectorType)):
            t = t.elem
            scale = ctx.layout.size_of(t)
        else:
            raise ctx.error(f"cannot index into {t}")
        if isinstance(index, ConstInt):
            const += index.signed() * scale
        else:
            terms.append((ctx.part(index), bits_of(index.type, ctx.layout), scale))
    base = ctx.part(base_val)
    ctx.set(instr, [address_add(ctx, instr, base, width, terms, const)])


def address_add(ctx: Ctx, instr: Instr, base: Operand, width: int, terms: list[tuple[Operand, int, int]],
                const: int) -> Operand:
    """base + sum(index * scale) + const, in the pointer's width."""
    mask = (1 << width) - 1
    sources = [base] + [i for i, _, _ in terms]
    scalar = scalar_ok(ctx, instr, sources) or (not any(is_vector(s) for s in sources) and not terms)
    file = "s" if scalar else "v"
    acc = base
    if isinstance(acc, Imm) and not terms:
        return Imm((int(acc.value) + const) & mask)
    for index, bits, scale in terms:
        index = int_resize(ctx, instr, bits, width, "s", index) if bits != width else index
        if scalar:
            product = index if scale == 1 else ctx.op(f"s_mul_{'u64' if width == 64 else 'i32'}", "s", width,
                                                      index, Imm(scale))
            acc = ctx.op(f"s_add_u{width}", "s", width, acc, product)
        elif scale == 1:
            acc = ctx.op(f"v_add_u{width}", "v", width, acc, index)
        else:
            acc = ctx.op(f"v_mad_u{width}", "v", width, index, Imm(scale), acc)
    if const:
        acc = ctx.op(f"{file}_add_u{width}", file, width, acc, Imm(const & mask))
    return acc


def split_offset(ctx: Ctx, address: Operand) -> tuple[Operand, int]:
    """An address and an immediate offset to add to it (an immediate address becomes 0 + offset)."""
    if isinstance(address, Imm) and 0 <= int(address.value) < IMM_OFFSET_LIMIT:
        return Imm(0), int(address.value)
    return address, 0


# -- loads and stores -------------------------------------------------------------------------------

def select_load(ctx: Ctx, instr: Instr) -> None:
    ptr = instr.operands[0]
    space = space_of(ptr.type)
    address = ctx.part(ptr)
    align = int(instr.attrs.get("align", 0) or 0)
    out: list[Operand] = []
    parts = leaves(instr.type, ctx.layout)
    scalar = scalar_load_ok(ctx, instr, space, address, 32, align, 0)
    runs = {} if scalar else wide_runs(instr, instr.type, parts, ctx)
    for k, (t, off) in enumerate(parts):
        bits = bits_of(t, ctx.layout)
        if k in runs:
            out += wide_load(ctx, space, address, [bits_of(lt, ctx.layout) for lt, _ in parts[k:runs[k]]], off)
            continue
        if k < len(out):
            continue  # loaded by the wide access above
        if scalar_load_ok(ctx, instr, space, address, bits, align, off):
            out.append(ctx.op(f"s_load_b{bits}", "s", bits, ctx.sreg(address, 64), Imm(off)))
            continue
        base, extra = split_offset(ctx, address)
        d = ctx.op(f"{PREFIX[space]}_load_{LOAD_SUFFIX[bits]}", "v", reg_width(t, ctx.layout), base,
                   Imm(off + extra))
        if bits == 1:
            d = ctx.op("v_and_b32", "v", 32, d, Imm(1))
        out.append(d)
    ctx.set(instr, out)


def scalar_load_ok(ctx: Ctx, instr: Instr, space: AddressSpace, address: Operand, bits: int, align: int,
                   off: int) -> bool:
    return (space is AddressSpace.CONSTANT and ctx.uniform(instr) and not is_vector(address)
            and bits >= 32 and align >= 4 and off % 4 == 0 and not instr.attrs.get("volatile"))


def select_store(ctx: Ctx, instr: Instr) -> None:
    value, ptr = instr.operands
    space = space_of(ptr.type)
    if space is AddressSpace.CONSTANT:
        raise ctx.error("a store to __constant memory")
    address = ctx.part(ptr)
    parts, values = leaves(value.type, ctx.layout), ctx.parts(value)
    runs = wide_runs(instr, value.type, parts, ctx)
    done = 0
    for k, ((t, off), part) in enumerate(zip(parts, values)):
        bits = bits_of(t, ctx.layout)
        base, extra = split_offset(ctx, address)
        if k in runs:
            words = [ctx.vreg(p, bits_of(lt, ctx.layout)) for (lt, _), p in zip(parts[k:runs[k]], values[k:runs[k]])]
            total = sum(w.width for w in words)  # type: ignore[union-attr]
            ctx.emit(f"{PREFIX[space]}_store_b{total}", base, ctx.op("p_join", "v", total, *words), Imm(off + extra))
            done = runs[k]
        elif k >= done:
            ctx.emit(f"{PREFIX[space]}_store_{STORE_SUFFIX[bits]}", base, part, Imm(off + extra))


def wide_runs(instr: Instr, t: Type, parts: list[tuple[Type, int]], ctx: Ctx) -> dict[int, int]:
    """The runs of a vector's elements that one wide access moves: first leaf -> the leaf after
    the run. 32- and 64-bit elements are grouped in order, at most `WIDE_BYTES` at a time (a
    group of 12 bytes gives back its last element), and a group of two or more that fills 8 or
    16 bytes is one `*_b64`/`*_b128` (vector memory needs no alignment, docs/simt.md §3); a
    volatile access stays one per element."""
    if not isinstance(t, VectorType) or instr.attrs.get("volatile"):
        return {}
    sizes = [bits_of(lt, ctx.layout) // 8 for lt, _ in parts]
    if any(n not in (4, 8) for n in sizes):
        return {}
    runs, k = {}, 0
    while k < len(parts):
        end, total = k, 0
        while end < len(parts) and total + sizes[end] <= WIDE_BYTES and parts[end][1] == parts[k][1] + total:
            total += sizes[end]
            end += 1
        while end - k > 2 and total not in (8, 16):  # float3: 8 bytes, then 4
            end -= 1
            total -= sizes[end]
        if end - k >= 2 and total in (8, 16):
            runs[k] = end
        k = max(end, k + 1)
    return runs


def wide_load(ctx: Ctx, space: AddressSpace, address: Operand, bits: list[int], off: int) -> list[Operand]:
    """One `*_load_b64/b128` at `off` split into registers of `bits` (low first)."""
    base, extra = split_offset(ctx, address)
    total = sum(bits)
    whole = ctx.op(f"{PREFIX[space]}_load_b{total}", "v", total, base, Imm(off + extra))
    words = [ctx.new("v", b) for b in bits]
    ctx.emit("p_split", *words, whole)
    return words


# -- atomics ------------------------------------------------------------------------------------------

def atomic_opcode(ctx: Ctx, space: AddressSpace, name: str, kind: str, bits: int) -> str:
    if space is AddressSpace.PRIVATE:
        raise ctx.error("atomics on private memory are not supported on simt "
                        "(the expand-atomics pass of simt's pipeline makes them loads and stores)")
    if bits not in (32, 64):
        raise ctx.error(f"{bits}-bit atomics are not supported on simt "
                        "(the expand-atomics pass of simt's pipeline makes them loops on a 32-bit word)")
    return f"{PREFIX[space]}_atomic_{name}_{kind}{bits}"


def select_atomicrmw(ctx: Ctx, instr: Instr) -> None:
    ptr, value = instr.operands
    space = space_of(ptr.type)
    name, kind = ATOMIC_NAMES[instr.attrs["binop"]]
    bits = bits_of(value.type, ctx.layout)
    base, extra = split_offset(ctx, ctx.part(ptr))
    d = ctx.op(atomic_opcode(ctx, space, name, kind, bits), "v", bits, base, ctx.part(value), Imm(extra))
    ctx.set(instr, [d])


def select_cmpxchg(ctx: Ctx, instr: Instr) -> None:
    ptr, expected, new = instr.operands
    space = space_of(ptr.type)
    bits = bits_of(new.type, ctx.layout)
    base, extra = split_offset(ctx, ctx.part(ptr))
    d = ctx.op(atomic_opcode(ctx, space, "cmpswap", "b", bits), "v", bits, base, ctx.part(expected),
               ctx.part(new), Imm(extra))
    ctx.set(instr, [d])


# -- allocas -------------------------------------------------------------------------------------------

def select_alloca(ctx: Ctx, instr: Instr) -> None:
    space = instr.attrs.get("space", AddressSpace.PRIVATE)
    if space is not AddressSpace.PRIVATE:
        raise ctx.error(f"an alloca in {space} memory")
    t: Type = instr.attrs["elem"]
    size = max(1, ctx.layout.size_of(t))
    align = max(4, int(instr.attrs.get("align", 0) or 0), ctx.layout.align_of(t))
    if align <= STACK_ALIGN:
        ctx.mfn.slots.append(FrameSlot(size, align))
        ctx.set(instr, [ctx.op("s_add_u32", "s", 32, frame_base(ctx), Slot(len(ctx.mfn.slots) - 1))])
        return
    # Over-aligned: the frame base is only 16-aligned (a helper's SP is wherever its caller's
    # frame ended), so the slot has room for the object at any 16-aligned start, and the
    # object's address is the slot's rounded up to its alignment at run time.
    ctx.mfn.slots.append(FrameSlot(size + align - STACK_ALIGN, STACK_ALIGN))
    start = ctx.op("s_add_u32", "s", 32, frame_base(ctx), Slot(len(ctx.mfn.slots) - 1))
    bumped = ctx.op("s_add_u32", "s", 32, start, Imm(align - 1))
    ctx.set(instr, [ctx.op("s_and_b32", "s", 32, bumped, Imm((~(align - 1)) & 0xFFFFFFFF))])


def frame_base(ctx: Ctx) -> Operand:
    """The stack pointer at the function's entry (copied first thing in the entry block)."""
    return ctx.entry["frame"]


# -- address-space casts ----------------------------------------------------------------------------

def select_addrspacecast(ctx: Ctx, instr: Instr) -> None:
    src, dst = space_of(instr.operands[0].type), space_of(instr.type)
    p = ctx.part(instr.operands[0])
    if dst is AddressSpace.GENERIC:
        ctx.set(instr, [to_generic(ctx, instr, src, p)])
    elif src is AddressSpace.GENERIC:
        ctx.emit("v_check_space_b64", p, Imm(APERTURES.get(dst, 0)))  # a cast, unlike to_<space>(), must be right
        ctx.set(instr, [from_generic(ctx, instr, dst, p)])
    else:
        raise ctx.error(f"a cast from {src} to {dst} memory")


def to_generic(ctx: Ctx, instr: Instr, space: AddressSpace, p: Operand) -> Operand:
    if space not in APERTURES:
        return p
    hi = APERTURES[space]
    if isinstance(p, Imm):
        v = int(p.value)
        return Imm(0 if v == NULL32 else hi << 32 | v)
    if scalar_ok(ctx, instr, [p]):
        ctx.emit("s_cmp_eq_u32", p, Imm(NULL32))
        return ctx.join64(ctx.op("s_cselect_b32", "s", 32, Imm(0), p),
                          ctx.op("s_cselect_b32", "s", 32, Imm(0), Imm(hi)), "s")
    is_null = ctx.op("v_cmp_eq_u32", "s", 64, p, Imm(NULL32))
    lo = ctx.op("v_cndmask_b32", "v", 32, p, Imm(0), is_null)
    high = ctx.op("v_cndmask_b32", "v", 32, Imm(hi), Imm(0), is_null)
    return ctx.join64(lo, high, "v")


def from_generic(ctx: Ctx, instr: Instr, space: AddressSpace, p: Operand) -> Operand:
    """A generic address as a pointer of `space`: the named null when it does not point there."""
    lo, hi = ctx.split64(p)
    scalar = scalar_ok(ctx, instr, [p])
    if space in APERTURES:
        if scalar:
            ctx.emit("s_cmp_eq_u32", hi, Imm(APERTURES[space]))
            return ctx.op("s_cselect_b32", "s", 32, lo, Imm(NULL32))
        inside = ctx.op("v_cmp_eq_u32", "s", 64, hi, Imm(APERTURES[space]))
        return ctx.op("v_cndmask_b32", "v", 32, Imm(NULL32), lo, inside)
    # global/constant: null for an address in either aperture
    if scalar:
        ctx.emit("s_cmp_eq_u32", hi, Imm(LOCAL_APERTURE_HI))
        a = ctx.op("s_cselect_b64", "s", 64, Imm(0), p)
        ctx.emit("s_cmp_eq_u32", hi, Imm(PRIVATE_APERTURE_HI))
        return ctx.op("s_cselect_b64", "s", 64, Imm(0), a)
    in_local = ctx.op("v_cmp_eq_u32", "s", 64, hi, Imm(LOCAL_APERTURE_HI))
    in_private = ctx.op("v_cmp_eq_u32", "s", 64, hi, Imm(PRIVATE_APERTURE_HI))
    either = ctx.op("s_or_b64", "s", 64, in_local, in_private)
    return ctx.op("v_cndmask_b64", "v", 64, p, Imm(0), either)
