"""DataLayout: what a target decides about memory.

For each address space: the pointer width and the null value; the address
space of `alloca`; the size and alignment of every type; struct layout.
Nothing else in the compiler may assume that address space 0 or null 0 is
special: it asks the DataLayout of the target it compiles for.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .types import (
    AddressSpace, ArrayType, FloatType, IntType, PtrType, StructType, Type, VectorType,
)


_LAYOUTS_KEPT = 4096


@dataclass(frozen=True)
class StructLayout:
    offsets: tuple[int, ...]
    size: int
    align: int


@dataclass(frozen=True)
class DataLayout:
    name: str
    pointer_bits: dict[AddressSpace, int] = field(
        default_factory=lambda: {s: 64 for s in AddressSpace})
    null_value: dict[AddressSpace, int] = field(
        default_factory=lambda: {s: 0 for s in AddressSpace})
    alloca_space: AddressSpace = AddressSpace.PRIVATE
    little_endian: bool = True
    # struct type -> its layout in this DataLayout: code generators ask the size of the
    # same deep structs tens of thousands of times (CLSmith's); a bounded few are kept
    layouts: dict[StructType, StructLayout] = field(default_factory=dict, init=False, compare=False, repr=False)

    def pointer_size(self, space: AddressSpace) -> int:
        return self.pointer_bits[space] // 8

    def size_of(self, t: Type) -> int:
        """Allocation size in bytes (what sizeof says: rounded up to the alignment)."""
        if isinstance(t, (IntType, FloatType)):
            return max(1, (t.bits + 7) // 8)
        if isinstance(t, PtrType):
            return self.pointer_size(t.space)
        if isinstance(t, VectorType):
            return vector_size(t)
        if isinstance(t, ArrayType):
            return t.count * self.size_of(t.elem)
        if isinstance(t, StructType):
            return self.struct_layout(t).size
        raise ValueError(f"type {t} has no size")

    def align_of(self, t: Type) -> int:
        if isinstance(t, (IntType, FloatType, PtrType)):
            return self.size_of(t)
        if isinstance(t, VectorType):
            return self.size_of(t)  # OpenCL aligns vectors to their size
        if isinstance(t, ArrayType):
            return self.align_of(t.elem)
        if isinstance(t, StructType):
            return self.struct_layout(t).align
        raise ValueError(f"type {t} has no alignment")

    def struct_layout(self, t: StructType) -> StructLayout:
        """The layout of `t` (kept in `layouts`). The layout of a struct field (or of the
        struct elements of an array field) gives its size and its alignment both: asking
        each apart laid out every struct nested n deep 2**n times."""
        found = self.layouts.get(t)
        if found is not None:
            return found
        if len(self.layouts) >= _LAYOUTS_KEPT:
            self.layouts.clear()
        found = self.layouts[t] = self._lay_out(t)
        return found

    def _lay_out(self, t: StructType) -> StructLayout:
        offsets, offset, align = [], 0, 1
        for f in t.fields:
            count, inner = 1, f
            while isinstance(inner, ArrayType):
                count, inner = count * inner.count, inner.elem
            if isinstance(inner, StructType):
                layout = self.struct_layout(inner)
                a = 1 if t.packed else layout.align
                size = count * layout.size
            else:
                a = 1 if t.packed else self.align_of(f)
                size = self.size_of(f)
            offset = (offset + a - 1) // a * a
            offsets.append(offset)
            offset += size
            align = max(align, a)
        size = (offset + align - 1) // align * align
        return StructLayout(tuple(offsets), size, align)

    def member_offset(self, t: Type, indices: Sequence[int]) -> tuple[int, Type]:
        """(byte offset, type) of the member that `indices` (extractvalue's) name inside
        aggregate type `t`; ValueError where an index goes into a non-aggregate."""
        offset = 0
        for index in indices:
            if isinstance(t, StructType):
                offset += self.struct_layout(t).offsets[index]
                t = t.fields[index]
            elif isinstance(t, ArrayType):
                t = t.elem
                offset += index * self.size_of(t)
            else:
                raise ValueError(f"cannot index into {t}")
        return offset, t


def vector_size(t: VectorType) -> int:
    """The size (and alignment) of a vector of integers or floats: the same in every layout
    (OpenCL: a 3-element vector occupies the space of 4)."""
    count = 4 if t.count == 3 else t.count
    elem = t.elem
    if not isinstance(elem, (IntType, FloatType)):
        raise ValueError(f"vector {t} of {elem}: elements are integers or floats")
    return count * max(1, (elem.bits + 7) // 8)


def _uniform(bits: int) -> dict[AddressSpace, int]:
    return {s: bits for s in AddressSpace}


# The cpu target: one flat 64-bit address space, null 0 everywhere.
CPU_LAYOUT = DataLayout("cpu", pointer_bits=_uniform(64), null_value=_uniform(0))
