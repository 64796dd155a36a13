"""CType -> IR type, and the C layout of OpenCL C types (sizeof, alignof, structs).

Two IR views of a C type: `reg_type` is how a value lives in registers
(`bool` is `i1`), `mem_type` is how it lives in memory (`bool` is `i8`;
structs, arrays and struct fields use memory types throughout). Struct layout
follows C with natural alignment, `packed` and `aligned(N)`; when the C layout
differs from the IR's natural one the struct becomes a packed IR struct with
explicit `[n x i8]` padding, so the target agrees on the bytes.

Sizes depend on the target: a pointer is as wide as the target's `DataLayout`
says for its address space (simt: private and local pointers are 4 bytes), so
every function that can meet a pointer or a struct takes the `DataLayout` the
build compiles for. `plain_type` is the IR type of a scalar, vector or pointer,
which no layout changes.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...ir import types as ir
from ...ir.datalayout import DataLayout
from . import c_types as ct
from .opaque_types import Opaque, is_image

_SCALAR_IR: dict[ct.ScalarKind, ir.Type] = {
    ct.ScalarKind.BOOL: ir.I1,
    ct.ScalarKind.CHAR: ir.I8, ct.ScalarKind.UCHAR: ir.I8,
    ct.ScalarKind.SHORT: ir.I16, ct.ScalarKind.USHORT: ir.I16,
    ct.ScalarKind.INT: ir.I32, ct.ScalarKind.UINT: ir.I32,
    ct.ScalarKind.LONG: ir.I64, ct.ScalarKind.ULONG: ir.I64,
    ct.ScalarKind.HALF: ir.F16, ct.ScalarKind.FLOAT: ir.F32, ct.ScalarKind.DOUBLE: ir.F64,
}


class LayoutError(Exception):
    """A type with no size (void, a function, an incomplete struct)."""


def scalar_ir(kind: ct.ScalarKind, memory: bool = False) -> ir.Type:
    if memory and kind is ct.ScalarKind.BOOL:
        return ir.I8
    return _SCALAR_IR[kind]


def pointer_space(t: ct.Pointer) -> ir.AddressSpace:
    return t.pointee.space or ir.AddressSpace.PRIVATE


def plain_type(t: ct.CType) -> ir.Type:
    """The IR type of a scalar, vector, pointer, enum or void C type: no layout changes it."""
    if isinstance(t, ct.Scalar):
        return scalar_ir(t.kind)
    if is_image(t):
        return ir.PtrType(ir.AddressSpace.GLOBAL)
    if isinstance(t, (ct.Enum, Opaque)):
        return ir.I32
    if isinstance(t, ct.Vector):
        return ir.VectorType(scalar_ir(t.elem, memory=True), t.count)
    if isinstance(t, ct.Pointer):
        return ir.PtrType(pointer_space(t))
    if isinstance(t, ct.Void):
        return ir.VOID
    raise LayoutError(f"type '{t}' is not a scalar, vector or pointer type")


def reg_type(t: ct.CType, dl: DataLayout) -> ir.Type:
    """The IR type of a value of C type `t` in registers."""
    if isinstance(t, ct.Scalar):
        return scalar_ir(t.kind)
    return mem_type(t, dl)


def mem_type(t: ct.CType, dl: DataLayout) -> ir.Type:
    """The IR type of an object of C type `t` in memory."""
    if isinstance(t, ct.Scalar):
        return scalar_ir(t.kind, memory=True)
    if isinstance(t, ct.Array):
        return ir.ArrayType(mem_type(t.elem, dl), t.count or 0)
    if isinstance(t, ct.Struct):
        return struct_info(t.definition, dl).ir_type
    try:
        return plain_type(t)
    except LayoutError:
        raise LayoutError(f"type '{t}' has no IR representation") from None


def size_of(t: ct.CType, dl: DataLayout) -> int:
    if isinstance(t, ct.Scalar):
        return t.kind.size
    if is_image(t):
        return dl.pointer_size(ir.AddressSpace.GLOBAL)
    if isinstance(t, (ct.Enum, Opaque)):
        return 4
    if isinstance(t, ct.Vector):
        return t.elem.size * (4 if t.count == 3 else t.count)
    if isinstance(t, ct.Pointer):
        return dl.pointer_size(pointer_space(t))
    if isinstance(t, ct.Array):
        return size_of(t.elem, dl) * (t.count or 0)
    if isinstance(t, ct.Struct):
        return struct_info(t.definition, dl).size
    raise LayoutError(f"invalid application of 'sizeof' to type '{t}'")


def align_of(t: ct.CType, dl: DataLayout) -> int:
    explicit = getattr(t, "align", 0)  # an `aligned` typedef
    if isinstance(t, ct.Array):
        return max(align_of(t.elem, dl), explicit)
    if isinstance(t, ct.Struct):
        return max(struct_info(t.definition, dl).align, explicit)
    return max(size_of(t, dl), explicit)


@dataclass(frozen=True)
class StructInfo:
    ir_type: ir.StructType
    field_index: dict[str, int]  # C field name -> IR field index
    offsets: dict[str, int]  # C field name -> byte offset
    size: int
    align: int


_STRUCTS: dict[tuple[int, str], tuple[ct.StructDef, StructInfo]] = {}  # (id, layout name) -> layout


def _round_up(n: int, a: int) -> int:
    return (n + a - 1) // a * a


def struct_info(d: ct.StructDef, dl: DataLayout) -> StructInfo:
    cached = _STRUCTS.get((id(d), dl.name))
    if cached is not None and cached[0] is d:
        return cached[1]
    if d.fields is None:
        raise LayoutError(f"incomplete type '{'union' if d.is_union else 'struct'} {d.tag}'")
    info = _union_layout(d, dl) if d.is_union else _struct_layout(d, dl)
    _STRUCTS[(id(d), dl.name)] = (d, info)
    return info


def _struct_layout(d: ct.StructDef, dl: DataLayout) -> StructInfo:
    offsets: dict[str, int] = {}
    offset, align = 0, 1
    c_offsets: list[int] = []
    for f in d.fields or []:
        a = max(1 if d.packed else align_of(f.type, dl), f.align)
        offset = _round_up(offset, a)
        offsets[f.name] = offset
        c_offsets.append(offset)
        offset += size_of(f.type, dl)
        align = max(align, a)
    align = max(align, d.align or 1)
    size = _round_up(offset, align)
    members = [mem_type(f.type, dl) for f in d.fields or []]
    natural = ir.StructType(tuple(members))
    layout = dl.struct_layout(natural)
    if list(layout.offsets) == c_offsets and layout.size == size:
        index = {f.name: i for i, f in enumerate(d.fields or [])}
        return StructInfo(natural, index, offsets, size, align)
    return _padded(d, members, c_offsets, size, offsets, align, dl)


def _padded(d: ct.StructDef, members: list[ir.Type], c_offsets: list[int], size: int,
            offsets: dict[str, int], align: int, dl: DataLayout) -> StructInfo:
    fields: list[ir.Type] = []
    index: dict[str, int] = {}
    at = 0
    for f, m, off in zip(d.fields or [], members, c_offsets):
        if off > at:
            fields.append(ir.ArrayType(ir.I8, off - at))
        index[f.name] = len(fields)
        fields.append(m)
        at = off + dl.size_of(m)
    if size > at:
        fields.append(ir.ArrayType(ir.I8, size - at))
    return StructInfo(ir.StructType(tuple(fields), packed=True), index, offsets, size, align)


def _union_layout(d: ct.StructDef, dl: DataLayout) -> StructInfo:
    fields = d.fields or []
    align = max([max(1 if d.packed else align_of(f.type, dl), f.align) for f in fields] + [d.align or 1])
    size = _round_up(max([size_of(f.type, dl) for f in fields] + [0]), align)
    offsets = {f.name: 0 for f in fields}
    index = {f.name: 0 for f in fields}
    if not fields:
        return StructInfo(ir.StructType(()), index, offsets, 0, 1)
    big = max(fields, key=lambda f: (align_of(f.type, dl), size_of(f.type, dl)))
    member = mem_type(big.type, dl)
    body: list[ir.Type] = [member]
    if size > size_of(big.type, dl):
        body.append(ir.ArrayType(ir.I8, size - size_of(big.type, dl)))
    natural = ir.StructType(tuple(body))
    st = natural if dl.struct_layout(natural).size == size else ir.StructType(
        tuple(body), packed=True)
    return StructInfo(st, index, offsets, size, align)
