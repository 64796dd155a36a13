"""Constant values as byte images, for the constant initializer of a union whose
chosen member has another IR type than the union's storage (`{ .f = 1.0f }` for
`union { int i; float f; }`): the member's constant is written to bytes in the
target's little-endian layout and read back as a constant of the union's type.
Pointers (null only, in constants) are zero bytes.
"""

from __future__ import annotations

import struct

from ....ir import types as ir
from ....ir.datalayout import CPU_LAYOUT
from ....ir.values import ConstAggregate, ConstFloat, ConstInt, ConstNull, ConstZero, Value

_FLOAT_FORMATS = {16: "<e", 32: "<f", 64: "<d"}


def to_bytes(v: Value) -> bytes:
    """The bytes a constant occupies in memory (padding as zeros)."""
    t = v.type
    size = CPU_LAYOUT.size_of(t)
    if isinstance(v, (ConstZero, ConstNull)):
        return bytes(size)
    if isinstance(v, ConstInt):
        return v.value.to_bytes(size, "little")
    if isinstance(v, ConstFloat):
        return struct.pack(_FLOAT_FORMATS[t.bits], v.value)  # type: ignore[attr-defined]
    assert isinstance(v, ConstAggregate)
    out = bytearray(size)
    for offset, element in zip(_offsets(t), v.elements):
        data = to_bytes(element)
        out[offset:offset + len(data)] = data
    return bytes(out)


def from_bytes(data: bytes, t: ir.Type) -> Value:
    """The constant of type `t` whose memory holds `data`."""
    if not any(data[:CPU_LAYOUT.size_of(t)]):
        return ConstZero(t)
    if isinstance(t, ir.IntType):
        return ConstInt(t, int.from_bytes(data[:CPU_LAYOUT.size_of(t)], "little"))
    if isinstance(t, ir.FloatType):
        fmt = _FLOAT_FORMATS[t.bits]
        return ConstFloat(t, struct.unpack(fmt, data[:struct.calcsize(fmt)])[0])
    members = _member_types(t)
    return ConstAggregate(t, [from_bytes(data[off:], m) for off, m in zip(_offsets(t), members)])


def reinterpret(v: Value, t: ir.Type) -> Value:
    """`v`'s bytes, padded with zeros to `t`'s size, as a constant of type `t`."""
    data = to_bytes(v)
    return from_bytes(data + bytes(max(0, CPU_LAYOUT.size_of(t) - len(data))), t)


def _member_types(t: ir.Type) -> list[ir.Type]:
    if isinstance(t, ir.StructType):
        return list(t.fields)
    assert isinstance(t, (ir.ArrayType, ir.VectorType))
    return [t.elem] * t.count


def _offsets(t: ir.Type) -> list[int]:
    if isinstance(t, ir.StructType):
        return list(CPU_LAYOUT.struct_layout(t).offsets)
    assert isinstance(t, (ir.ArrayType, ir.VectorType))
    step = CPU_LAYOUT.size_of(t.elem)
    return [i * step for i in range(t.count)]
