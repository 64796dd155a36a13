"""Program-scope `__constant` and `__global` data on simt: their bytes, where a kernel finds
them, and the pointer slots the loader fills (`layout_data`).

The data of every `__constant` variable of the module is one read-only
block, and that of every program-scope `__global` variable (OpenCL C 2.0,
writable, living as long as the program) another, each variable at its
alignment. The runtime allocates both in global memory once per program, at
its first launch, and keeps them while the program lives (so `__global`
variables keep their values between launches): the loader
(`simt_program.load_data`). The kernarg segment holds the constant block's
address in an 8-byte slot after the explicit arguments, at
`calling_convention.constants_offset(explicit bytes)`; a kernel reads it once,
and a helper that is called gets it as a hidden argument (the query
`constants` of `isel_calls.QUERY_CLASSES`). When the module has `__global`
variables, the constant block starts with an 8-byte slot (`GLOBALS_SLOT`)
holding the global block's address; a variable's address is the slot's value
plus the variable's offset.

Addresses in initializers (`constant int *p = &t[2];`, `&s.f`, `"hello" + 2`,
tables of pointers: `GlobalVar` and `ConstOffset` leaves) are not known when
the program is compiled: each such slot is left zero in the block's bytes and
listed as a `Relocation` (the block and offset of the slot, the block and
offset it points to), as is `GLOBALS_SLOT`. The loader writes each slot, once,
when it has placed both blocks, as a GPU code object's loader applies its
relocations. An address of a `__local` variable has no value before a work-group
runs: a build error.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from ...ir.datalayout import DataLayout
from ...ir.types import AddressSpace, FloatType, IntType, PtrType, Type
from ...ir.values import ConstAggregate, ConstFloat, ConstInt, ConstNull, ConstOffset, GlobalVar, Module, Value
from .calling_convention import GLOBALS_SLOT
from .isel_context import SelectError, memory_leaves
from .simt_program import Relocation


def has_globals(module: Module) -> bool:
    return any(gv.space is AddressSpace.GLOBAL for gv in module.globals)


@dataclass
class ProgramData:
    """Where each program-scope variable lives in its block, the blocks' initial bytes, and
    the pointer slots that the loader fills (`simt_program.Relocation`)."""

    constant_offsets: dict[GlobalVar, int]
    constants: bytes
    global_offsets: dict[GlobalVar, int]
    globals: bytes
    relocations: list[Relocation]


BLOCKS = {AddressSpace.CONSTANT: "constant", AddressSpace.GLOBAL: "global"}


def layout_data(module: Module, layout: DataLayout) -> ProgramData:
    """The program's two data blocks: `__constant` (starting with the 8-byte slot of the
    `__global` block's address when the module has such variables) and `__global`."""
    start = GLOBALS_SLOT + 8 if has_globals(module) else 0
    constant_offsets, constant_end = place(module, layout, AddressSpace.CONSTANT, start)
    global_offsets, global_end = place(module, layout, AddressSpace.GLOBAL, 0)
    targets = {**{gv: ("constant", off) for gv, off in constant_offsets.items()},
               **{gv: ("global", off) for gv, off in global_offsets.items()}}
    relocations = [Relocation("constant", GLOBALS_SLOT, "global", 0)] if start else []
    constants = block_bytes(constant_offsets, constant_end, "constant", layout, targets, relocations)
    globals_ = block_bytes(global_offsets, global_end, "global", layout, targets, relocations)
    return ProgramData(constant_offsets, constants, global_offsets, globals_, relocations)


def place(module: Module, layout: DataLayout, space: AddressSpace, start: int) -> tuple[dict[GlobalVar, int], int]:
    """Each variable of `space` at its alignment from `start`, in module order; the end."""
    offsets: dict[GlobalVar, int] = {}
    end = start
    for gv in module.globals:
        if gv.space is space:
            align = max(gv.align, layout.align_of(gv.value_type), 1)
            end += -end % align
            offsets[gv] = end
            end += layout.size_of(gv.value_type)
    return offsets, end


def block_bytes(offsets: dict[GlobalVar, int], end: int, block: str, layout: DataLayout,
                targets: dict[GlobalVar, tuple[str, int]], relocations: list[Relocation]) -> bytes:
    data = bytearray(end)
    for gv, at in offsets.items():
        if gv.initializer is None:
            continue
        for (t, offset), value in zip(memory_leaves(gv.value_type, layout), flatten(gv.initializer, layout)):
            if isinstance(value, (GlobalVar, ConstOffset)):
                relocations.append(address_slot(gv, value, block, at + offset, targets))
            elif value is not None:
                data[at + offset:at + offset + layout.size_of(t)] = scalar_bytes(value, t, layout)
    return bytes(data)


def address_slot(gv: GlobalVar, value: GlobalVar | ConstOffset, block: str, at: int,
                 targets: dict[GlobalVar, tuple[str, int]]) -> Relocation:
    """The relocation of a pointer slot at `at` in `block` holding `value`'s address."""
    base, addend = (value, 0) if isinstance(value, GlobalVar) else (value.base, value.offset)
    target = targets.get(base)
    if target is None:
        raise SelectError(f"simt: the initializer of @{gv.name} holds the address of @{base.name}, "
                          f"a {base.space.value} variable, which has no address before a launch")
    return Relocation(block, at, target[0], target[1] + addend)


def flatten(value: Value, layout: DataLayout) -> list[Value | None]:
    """The scalar leaves of a constant, in order (None: zero)."""
    if isinstance(value, ConstAggregate):
        return [leaf for e in value.elements for leaf in flatten(e, layout)]
    if isinstance(value, (ConstInt, ConstFloat, ConstNull, GlobalVar, ConstOffset)):
        return [value]
    return [None] * len(memory_leaves(value.type, layout))  # zeroinitializer, undef


def scalar_bytes(value: Value, t: Type, layout: DataLayout) -> bytes:
    size = layout.size_of(t)
    if isinstance(value, ConstFloat) and isinstance(t, FloatType):
        return struct.pack({2: "<e", 4: "<f", 8: "<d"}[size], value.value)
    if isinstance(value, ConstInt) and isinstance(t, IntType):
        return (value.value & ((1 << (8 * size)) - 1)).to_bytes(size, "little")
    if isinstance(value, ConstNull) and isinstance(t, PtrType):
        return layout.null_value[t.space].to_bytes(size, "little")
    raise SelectError(f"simt: constant {value!r} in a program-scope initializer is not supported")
