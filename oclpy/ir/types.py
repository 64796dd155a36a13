"""IR types: integers, floats, vectors, arrays, structs and opaque pointers.

Types are immutable, hashable values compared structurally. A pointer type
carries its address space by name (`ptr<global>`); there is no pointee type.
`str(t)` is the type's spelling in the printed IR, which the IR parser reads back.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class AddressSpace(enum.Enum):
    """OpenCL's named address spaces plus `generic` (a superset of private, global, local)."""

    PRIVATE = "private"
    GLOBAL = "global"
    LOCAL = "local"
    CONSTANT = "constant"
    GENERIC = "generic"

    def __str__(self) -> str:
        return self.value


class Type:
    """Base of all IR types."""

    def is_int(self) -> bool:
        return isinstance(self, IntType)

    def is_float(self) -> bool:
        return isinstance(self, FloatType)

    def is_ptr(self) -> bool:
        return isinstance(self, PtrType)

    def is_vector(self) -> bool:
        return isinstance(self, VectorType)

    def scalar(self) -> Type:
        """The element type of a vector, or the type itself."""
        return self.elem if isinstance(self, VectorType) else self

    def is_int_or_int_vector(self) -> bool:
        return isinstance(self.scalar(), IntType)

    def is_float_or_float_vector(self) -> bool:
        return isinstance(self.scalar(), FloatType)


@dataclass(frozen=True)
class VoidType(Type):
    def __str__(self) -> str:
        return "void"


@dataclass(frozen=True)
class IntType(Type):
    """An integer of `bits` bits. Signedness lives in the operations, as in LLVM."""

    bits: int

    def __str__(self) -> str:
        return f"i{self.bits}"


_FLOAT_NAMES = {16: "half", 32: "float", 64: "double"}


@dataclass(frozen=True)
class FloatType(Type):
    """An IEEE binary float of 16, 32 or 64 bits, spelled half/float/double."""

    bits: int

    def __str__(self) -> str:
        return _FLOAT_NAMES[self.bits]


@dataclass(frozen=True)
class PtrType(Type):
    """An opaque pointer into one address space."""

    space: AddressSpace

    def __str__(self) -> str:
        return f"ptr<{self.space.value}>"


@dataclass(frozen=True)
class VectorType(Type):
    elem: Type
    count: int

    def __str__(self) -> str:
        return f"<{self.count} x {self.elem}>"


@dataclass(frozen=True)
class ArrayType(Type):
    elem: Type
    count: int

    def __str__(self) -> str:
        return f"[{self.count} x {self.elem}]"


@dataclass(frozen=True)
class StructType(Type):
    """A literal struct type; `packed` drops padding between fields."""

    fields: tuple[Type, ...]
    packed: bool = False

    def __str__(self) -> str:
        body = ", ".join(str(f) for f in self.fields)
        return f"<{{{body}}}>" if self.packed else f"{{{body}}}"


@dataclass(frozen=True)
class FunctionType(Type):
    ret: Type
    params: tuple[Type, ...]

    def __str__(self) -> str:
        return f"{self.ret} ({', '.join(str(p) for p in self.params)})"


VOID = VoidType()
I1 = IntType(1)
I8 = IntType(8)
I16 = IntType(16)
I32 = IntType(32)
I64 = IntType(64)
F16 = FloatType(16)
F32 = FloatType(32)
F64 = FloatType(64)


def ptr(space: AddressSpace | str) -> PtrType:
    return PtrType(AddressSpace(space))
