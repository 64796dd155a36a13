"""Large aggregates by reference: selection of the struct and array values larger than
`calling_convention.INDIRECT_AGGREGATE_BYTES`.

Every other value is a list of register parts, one per scalar leaf; a 16 KB
struct would be 4,096 of them, copied through registers (spilled, mostly) at
each load, store and call. A *large* aggregate value is instead one part: the
32-bit private address of memory that holds it (`isel_context.is_large`), as
clang passes such structs `byval`/`sret`:

- `load` copies the bytes into a frame slot of its own (one per instruction),
  16 bytes at a time through a vector register (`copy_bytes`); `store` copies
  them out; a constant (`zeroinitializer`, an aggregate literal) is written
  once into a slot in the entry block (`materialize`), `undef` is a slot never
  written;
- `extractvalue` of a large member is an address inside the operand's memory,
  of a small one its loads; `insertvalue` copies into its own slot and stores
  the member; `select` and `phi` pick between addresses (the ordinary patterns,
  since the value has one part);
- a call passes the address (the argument's class is a 32-bit pointer); a
  large result goes to a slot of the caller, whose address is the callee's
  last argument (`isel_calls`); a large kernel argument is copied from the
  kernarg segment into a slot in the preamble.

Why this is exact: the memory behind a value does not change while the value
can be used. A slot belongs to one instruction, which alone writes it, and an
SSA use sees the latest run of its definition, so the latest write. Private
memory is per lane and every copy runs under exec, so a lane's copy changes
only when that lane runs the definition again. A phi picks an address: at a
join of branches, none of its incoming definitions can run again before the
phi does; a phi at a loop header could hold last iteration's address while the
definition overwrites it, so such a phi is refused (the frontend never makes
one: aggregate locals stay in allocas).
"""

from __future__ import annotations

from ...ir.types import AddressSpace, Type
from ...ir.values import Block, ConstAggregate, ConstZero, Instr, Undef, Value
from .isel_context import Ctx, bits_of, is_large, memory_leaves
from .isel_memory import PREFIX, STORE_SUFFIX, select_load as select_small_load, select_store as select_small_store
from .isel_memory import space_of, split_offset
from .isel_values import select_rearrange
from .machine import FrameSlot, Imm, Operand, Slot

CHUNKS = ((16, "b128"), (8, "b64"), (4, "b32"), (2, "b16"), (1, "b8"))
LOAD_OF = {"b128": "b128", "b64": "b64", "b32": "b32", "b16": "u16", "b8": "u8"}


def new_slot(ctx: Ctx, t: Type) -> Operand:
    """A frame slot for one value of type `t`; its address, computed in the entry block."""
    ctx.mfn.slots.append(FrameSlot(ctx.layout.size_of(t), 16))
    index = len(ctx.mfn.slots) - 1
    return ctx.in_preamble(lambda: ctx.op("s_add_u32", "s", 32, ctx.entry["frame"], Slot(index)))


def copy_bytes(ctx: Ctx, dst_space: AddressSpace, dst: Operand, src_space: AddressSpace, src: Operand,
               size: int) -> None:
    """Copy `size` bytes from `src` to `dst` (addresses in their spaces), 16 bytes at a time
    through a vector register, so that no more than one chunk is live."""
    dst_base, dst_extra = split_offset(ctx, dst)
    src_base, src_extra = split_offset(ctx, src)
    at = 0
    for n, suffix in CHUNKS:
        while size - at >= n:
            width = max(32, 8 * n)
            chunk = ctx.op(f"{PREFIX[src_space]}_load_{LOAD_OF[suffix]}", "v", width, src_base, Imm(src_extra + at))
            ctx.emit(f"{PREFIX[dst_space]}_store_{suffix}", dst_base, chunk, Imm(dst_extra + at))
            at += n


def copy_value(ctx: Ctx, t: Type, dst: Operand, src: Operand) -> None:
    """Copy a large value of type `t` from the private memory at `src` to that at `dst`."""
    copy_bytes(ctx, AddressSpace.PRIVATE, dst, AddressSpace.PRIVATE, src, ctx.layout.size_of(t))


def store_leaves(ctx: Ctx, t: Type, address: Operand, offset: int, parts: list[Operand]) -> None:
    """Store a small value's parts (or a constant's) at private `address` + `offset`."""
    base, extra = split_offset(ctx, address)
    for (lt, off), part in zip(memory_leaves(t, ctx.layout), parts):
        ctx.emit(f"scratch_store_{STORE_SUFFIX[bits_of(lt, ctx.layout)]}", base, part, Imm(extra + offset + off))


# -- constants --------------------------------------------------------------------------------------------

def large_constants(ctx: Ctx) -> list[Value]:
    """The large constants the function's instructions use, each once."""
    seen: dict[int, Value] = {}
    for instr in ctx.fn.instructions():
        for o in instr.operands:
            if isinstance(o, (ConstAggregate, ConstZero, Undef)) and is_large(o.type, ctx.layout):
                seen.setdefault(id(o), o)
    return list(seen.values())


def materialize(ctx: Ctx) -> None:
    """Each large constant in a slot written once in the entry block (all lanes on)."""
    for value in large_constants(ctx):
        slot = new_slot(ctx, value.type)
        if not isinstance(value, Undef):
            ctx.in_preamble(lambda: store_leaves(ctx, value.type, slot, 0, ctx.constant_parts(value)))
        ctx.set(value, [slot])


# -- loads, stores, members -------------------------------------------------------------------------------

def select_load(ctx: Ctx, instr: Instr) -> None:
    if not is_large(instr.type, ctx.layout):
        return select_small_load(ctx, instr)
    ptr = instr.operands[0]
    slot = new_slot(ctx, instr.type)
    copy_bytes(ctx, AddressSpace.PRIVATE, slot, space_of(ptr.type), ctx.part(ptr), ctx.layout.size_of(instr.type))
    ctx.set(instr, [slot])


def select_store(ctx: Ctx, instr: Instr) -> None:
    value, ptr = instr.operands
    if not is_large(value.type, ctx.layout):
        return select_small_store(ctx, instr)
    space = space_of(ptr.type)
    if space is AddressSpace.CONSTANT:
        raise ctx.error("a store to __constant memory")
    copy_bytes(ctx, space, ctx.part(ptr), AddressSpace.PRIVATE, ctx.part(value), ctx.layout.size_of(value.type))


def member(ctx: Ctx, t: Type, indices: list[int]) -> tuple[int, Type]:
    """The byte offset and type of the member `indices` names inside `t`."""
    try:
        return ctx.layout.member_offset(t, indices)
    except ValueError as exc:
        raise ctx.error(str(exc)) from None


def offset_address(ctx: Ctx, address: Operand, offset: int) -> Operand:
    if not offset:
        return address
    file = "v" if getattr(address, "file", "s") == "v" else "s"
    return ctx.op(f"{file}_add_u32", file, 32, address, Imm(offset))


def select_member(ctx: Ctx, instr: Instr) -> None:
    """`extractvalue`/`insertvalue` with a large aggregate operand; others go to
    `isel_values`."""
    agg = instr.operands[0]
    if not is_large(agg.type, ctx.layout):
        return select_rearrange(ctx, instr)
    offset, t = member(ctx, agg.type, list(instr.attrs["indices"]))
    address = ctx.part(agg)
    if instr.op == "extractvalue":
        at = offset_address(ctx, address, offset)
        if is_large(t, ctx.layout):
            ctx.set(instr, [at])
            return
        base, extra = split_offset(ctx, at)
        ctx.set(instr, [load_leaf(ctx, lt, base, extra + off) for lt, off in memory_leaves(t, ctx.layout)])
        return
    slot = new_slot(ctx, agg.type)
    copy_value(ctx, agg.type, slot, address)
    element = instr.operands[1]
    if is_large(t, ctx.layout):
        copy_value(ctx, t, offset_address(ctx, slot, offset), ctx.part(element))
    else:
        store_leaves(ctx, t, slot, offset, ctx.parts(element))
    ctx.set(instr, [slot])


def load_leaf(ctx: Ctx, t: Type, base: Operand, offset: int) -> Operand:
    bits = bits_of(t, ctx.layout)
    suffix = {1: "u8", 8: "u8", 16: "u16", 32: "b32", 64: "b64"}[bits]
    d = ctx.op(f"scratch_load_{suffix}", "v", 64 if bits == 64 else 32, base, Imm(offset))
    return ctx.op("v_and_b32", "v", 32, d, Imm(1)) if bits == 1 else d


# -- checks -----------------------------------------------------------------------------------------------

def check_phis(ctx: Ctx, headers: set[Block]) -> None:
    """Refuse a large aggregate phi at a loop header (see the module's docstring)."""
    for block in ctx.fn.blocks:
        for phi in block.phis():
            if block in headers and is_large(phi.type, ctx.layout):
                raise ctx.error(f"a {ctx.layout.size_of(phi.type)}-byte aggregate carried around a loop as a "
                                "value is not supported on simt (keep it in a variable)", phi)

