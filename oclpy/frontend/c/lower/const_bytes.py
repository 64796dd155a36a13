"""Constant values as byte images, for the constant initializer of a union whose
chosen member has another IR type than the union's storage (`{ .f = 1.0f }` for
`union { int i; float f; }`): the member's constant is written to bytes in the
target's little-endian layout (its `DataLayout`: sizes, offsets and the bits of
each space's null pointer) and read back as a constant of the union's type.
Pointers in constants are null only.
"""

from __future__ import annotations

import struct

from ....ir import types as ir
from ....ir.datalayout import DataLayout
from ....ir.values import ConstAggregate, ConstFloat, ConstInt, ConstNull, ConstZero, Value
from .helpers import scalar_bits

_FLOAT_FORMATS = {16: "<e", 32: "<f", 64: "<d"}


def to_bytes(v: Value, dl: DataLayout) -> bytes:
    """The bytes a constant occupies in memory (padding as zeros)."""
    t = v.type
    size = dl.size_of(t)
    if isinstance(v, ConstNull):
        assert isinstance(t, ir.PtrType)
        return dl.null_value[t.space].to_bytes(size, "little")
    if isinstance(v, ConstZero):
        return bytes(size)
    if isinstance(v, ConstInt):
        return v.value.to_bytes(size, "little")
    if isinstance(v, ConstFloat):
        return struct.pack(_FLOAT_FORMATS[scalar_bits(t)], v.value)
    assert isinstance(v, ConstAggregate)
    out = bytearray(size)
    for offset, element in zip(_offsets(t, dl), v.elements):
        data = to_bytes(element, dl)
        out[offset:offset + len(data)] = data
    return bytes(out)


def from_bytes(data: bytes, t: ir.Type, dl: DataLayout) -> Value:
    """The constant of type `t` whose memory holds `data`."""
    size = dl.size_of(t)
    if isinstance(t, ir.PtrType) and int.from_bytes(data[:size], "little") == dl.null_value[t.space]:
        return ConstNull(t)
    if not any(data[:size]):
        return ConstZero(t)
    if isinstance(t, ir.IntType):
        return ConstInt(t, int.from_bytes(data[:size], "little"))
    if isinstance(t, ir.FloatType):
        fmt = _FLOAT_FORMATS[t.bits]
        return ConstFloat(t, struct.unpack(fmt, data[:struct.calcsize(fmt)])[0])
    members = _member_types(t)
    return ConstAggregate(t, [from_bytes(data[off:], m, dl) for off, m in zip(_offsets(t, dl), members)])


def reinterpret(v: Value, t: ir.Type, dl: DataLayout) -> Value:
    """`v`'s bytes, padded with zeros to `t`'s size, as a constant of type `t`."""
    data = to_bytes(v, dl)
    return from_bytes(data + bytes(max(0, dl.size_of(t) - len(data))), t, dl)


def _member_types(t: ir.Type) -> list[ir.Type]:
    if isinstance(t, ir.StructType):
        return list(t.fields)
    assert isinstance(t, (ir.ArrayType, ir.VectorType))
    return [t.elem] * t.count


def _offsets(t: ir.Type, dl: DataLayout) -> list[int]:
    if isinstance(t, ir.StructType):
        return list(dl.struct_layout(t).offsets)
    assert isinstance(t, (ir.ArrayType, ir.VectorType))
    step = dl.size_of(t.elem)
    return [i * step for i in range(t.count)]
