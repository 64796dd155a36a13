"""Program-scope `__constant` and `__global` data on simt: their bytes, and where a kernel
finds them.

The data of every `__constant` variable of the module is one read-only
block, each variable at its alignment (`layout_constants`, `constant_bytes`).
A launch places the block in the kernarg segment right after the explicit
arguments, at `calling_convention.constants_offset(explicit bytes)`
(16-aligned), so the hidden block moves to `hidden_offset(kernarg_bytes(...))`: the segment is read-only
global memory the kernel already addresses from `s[0:1]`, and no other
buffer or relocation is needed. A kernel computes the block's address once
(`kernarg + constants_offset`); a helper that is called gets it as a hidden
argument (the query `constants` of `isel_calls.QUERY_CLASSES`).

Program-scope `__global` variables (OpenCL C 2.0) are writable and live as long
as the program: their data is one block too (`layout_globals`), which the
runtime allocates in global memory once per program, initialised with the
block's bytes, and keeps between launches. When a module has such variables the
constant block starts with an 8-byte slot (`GLOBALS_SLOT`) into which each launch
writes that allocation's address (`simt_program.kernarg_blob`); a variable's
address is the slot's value plus the variable's offset.
"""

from __future__ import annotations

import struct

from ...ir.datalayout import DataLayout
from ...ir.types import AddressSpace, FloatType, IntType, PtrType, Type
from ...ir.values import ConstAggregate, ConstFloat, ConstInt, ConstNull, ConstOffset, GlobalVar, Module, Value
from .calling_convention import GLOBALS_SLOT
from .isel_context import SelectError, memory_leaves

def has_globals(module: Module) -> bool:
    return any(gv.space is AddressSpace.GLOBAL for gv in module.globals)


def layout_constants(module: Module, layout: DataLayout) -> tuple[dict[GlobalVar, int], bytes]:
    """Each `__constant` variable's offset in the block, and the block's bytes (starting with
    the 8-byte slot of the `__global` data's address when the module has such data)."""
    return layout_block(module, layout, AddressSpace.CONSTANT, GLOBALS_SLOT + 8 if has_globals(module) else 0)


def layout_globals(module: Module, layout: DataLayout) -> tuple[dict[GlobalVar, int], bytes]:
    """Each program-scope `__global` variable's offset in the program's global data, and the
    data's initial bytes."""
    return layout_block(module, layout, AddressSpace.GLOBAL, 0)


def layout_block(module: Module, layout: DataLayout, space: AddressSpace,
                 start: int) -> tuple[dict[GlobalVar, int], bytes]:
    offsets: dict[GlobalVar, int] = {}
    data = bytearray(start)
    for gv in module.globals:
        if gv.space is not space:
            continue
        align = max(gv.align, layout.align_of(gv.value_type), 1)
        data += bytes(-len(data) % align)
        offsets[gv] = len(data)
        data += constant_bytes(gv, layout)
    return offsets, bytes(data)


def constant_bytes(gv: GlobalVar, layout: DataLayout) -> bytes:
    out = bytearray(layout.size_of(gv.value_type))
    if gv.initializer is None:
        return bytes(out)
    values = flatten(gv.initializer, layout)
    for (t, offset), value in zip(memory_leaves(gv.value_type, layout), values):
        if value is not None:
            out[offset:offset + layout.size_of(t)] = scalar_bytes(value, t, layout)
    return bytes(out)


def flatten(value: Value, layout: DataLayout) -> list[Value | None]:
    """The scalar leaves of a constant, in order (None: zero)."""
    if isinstance(value, ConstAggregate):
        return [leaf for e in value.elements for leaf in flatten(e, layout)]
    if isinstance(value, (ConstInt, ConstFloat, ConstNull, GlobalVar, ConstOffset)):
        return [value]  # addresses too: `scalar_bytes` refuses them
    return [None] * len(memory_leaves(value.type, layout))  # zeroinitializer, undef


def scalar_bytes(value: Value, t: Type, layout: DataLayout) -> bytes:
    size = layout.size_of(t)
    if isinstance(value, ConstFloat) and isinstance(t, FloatType):
        return struct.pack({2: "<e", 4: "<f", 8: "<d"}[size], value.value)
    if isinstance(value, ConstInt) and isinstance(t, IntType):
        return (value.value & ((1 << (8 * size)) - 1)).to_bytes(size, "little")
    if isinstance(value, ConstNull) and isinstance(t, PtrType):
        return layout.null_value[t.space].to_bytes(size, "little")
    if isinstance(value, (GlobalVar, ConstOffset)):
        base = value if isinstance(value, GlobalVar) else value.base
        raise SelectError(f"simt: the address of @{base.name} in a program-scope initializer is not "
                          "supported yet (program-scope data has no address until a launch)")
    raise SelectError(f"simt: constant {value!r} in a program-scope __constant initializer is not supported")
