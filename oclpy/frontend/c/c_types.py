"""OpenCL C types as the frontend sees them.

Qualifiers (const, volatile and the address space) live on the type they
qualify, as clang does: `__global const float *p` is
`Pointer(Scalar(FLOAT, const=True, space=GLOBAL))`, and the pointer itself
lives wherever `p` is declared. `space=None` means "not written" (sema gives
it a default: private for variables, generic for CL2.0 unqualified pointees).

Scalar, Vector, Pointer, Array and FunctionType are immutable values;
Struct types are identified by object (a tag names one declaration), and their
fields are filled in when the definition is seen. `align` is the alignment an
`__attribute__((aligned(N)))` typedef gives its type (clang keeps the size):
it is not part of the type's identity.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from typing import Optional

from ...diagnostics import SourceLocation
from ...ir.types import AddressSpace


class ScalarKind(enum.Enum):
    # value: (spelling, size in bytes, is_signed, is_float, integer conversion rank)
    # (the properties read `_value_`, a plain attribute: `value` goes through enum's descriptor)
    BOOL = ("bool", 1, False, False, 0)
    CHAR = ("char", 1, True, False, 1)
    UCHAR = ("uchar", 1, False, False, 1)
    SHORT = ("short", 2, True, False, 2)
    USHORT = ("ushort", 2, False, False, 2)
    INT = ("int", 4, True, False, 3)
    UINT = ("uint", 4, False, False, 3)
    LONG = ("long", 8, True, False, 4)
    ULONG = ("ulong", 8, False, False, 4)
    HALF = ("half", 2, True, True, 5)
    FLOAT = ("float", 4, True, True, 6)
    DOUBLE = ("double", 8, True, True, 7)

    @property
    def spelling(self) -> str:
        return self._value_[0]

    @property
    def size(self) -> int:
        return self._value_[1]

    @property
    def signed(self) -> bool:
        return self._value_[2]

    @property
    def is_float(self) -> bool:
        return self._value_[3]

    @property
    def rank(self) -> int:
        return self._value_[4]


_UNQUALIFIED: dict[tuple[CType, int], CType] = {}  # (qualified type, its align) -> unqualified
_UNQUALIFIED_MAX = 4096


class CType:
    """Base of all frontend types; every one carries its qualifiers."""

    const: bool
    volatile: bool
    space: Optional[AddressSpace]

    # Types are immutable values: when nothing changes the type itself is the answer
    # (sema asks these of every operand; `replace` was a third of its time).
    def unqualified(self) -> CType:
        if not self.const and not self.volatile and self.space is None:
            return self
        # `replace` is slow and sema asks this of the same few types again and again:
        # the answers are kept (keyed with `align`, which equality ignores), a bounded few.
        key = (self, getattr(self, "align", 0))
        out = _UNQUALIFIED.get(key)
        if out is None:
            if len(_UNQUALIFIED) >= _UNQUALIFIED_MAX:
                _UNQUALIFIED.clear()
            out = _UNQUALIFIED[key] = replace(self, const=False, volatile=False, space=None)  # type: ignore[type-var]
        return out

    def with_space(self, space: Optional[AddressSpace]) -> CType:
        return self if self.space is space else replace(self, space=space)  # type: ignore[type-var]

    def with_const(self, const: bool = True) -> CType:
        return self if self.const is const else replace(self, const=const)  # type: ignore[type-var]

    def qualifiers_str(self) -> str:
        parts = []
        if self.space is not None:
            parts.append(f"__{self.space.value}")
        if self.const:
            parts.append("const")
        if self.volatile:
            parts.append("volatile")
        return " ".join(parts)


def _qualified(base: str, t: CType) -> str:
    q = t.qualifiers_str()
    return f"{q} {base}" if q else base


@dataclass(frozen=True)
class Void(CType):
    const: bool = False
    volatile: bool = False
    space: Optional[AddressSpace] = None

    def __str__(self) -> str:
        return _qualified("void", self)


@dataclass(frozen=True)
class Scalar(CType):
    kind: ScalarKind
    const: bool = False
    volatile: bool = False
    space: Optional[AddressSpace] = None
    align: int = field(default=0, compare=False)  # from an `aligned` typedef, 0 if none

    def __str__(self) -> str:
        return _qualified(self.kind.spelling, self)


@dataclass(frozen=True)
class Vector(CType):
    elem: ScalarKind
    count: int  # 2, 3, 4, 8 or 16
    const: bool = False
    volatile: bool = False
    space: Optional[AddressSpace] = None
    align: int = field(default=0, compare=False)  # from an `aligned` typedef, 0 if none

    def __str__(self) -> str:
        return _qualified(f"{self.elem.spelling}{self.count}", self)


@dataclass(frozen=True)
class Pointer(CType):
    pointee: CType
    const: bool = False
    volatile: bool = False
    space: Optional[AddressSpace] = None
    restrict: bool = False
    align: int = field(default=0, compare=False)  # from an `aligned` typedef, 0 if none

    def __str__(self) -> str:
        q = self.qualifiers_str()
        return f"{self.pointee} *{' ' + q if q else ''}"


@dataclass(frozen=True)
class Array(CType):
    elem: CType
    count: Optional[int]  # None: size not given (`int a[]`)
    const: bool = False
    volatile: bool = False
    space: Optional[AddressSpace] = None
    align: int = field(default=0, compare=False)  # from an `aligned` typedef, 0 if none

    def __str__(self) -> str:
        return f"{self.elem} [{'' if self.count is None else self.count}]"


@dataclass(eq=False)
class StructField:
    name: str
    type: CType
    bit_width: Optional[int] = None
    align: int = 0  # from __attribute__((aligned(N))) on the field, 0 if none
    loc: Optional[SourceLocation] = field(default=None, compare=False)  # where its name was written


ANONYMOUS_MEMBER = "__anonymous."  # name prefix of anonymous struct/union members


@dataclass(eq=False)
class StructDef:
    """One struct or union declaration; `fields` is None until it is defined."""

    tag: str  # "" for an anonymous struct
    is_union: bool = False
    fields: Optional[list[StructField]] = None
    packed: bool = False
    align: int = 0  # from __attribute__((aligned(N))), 0 if none

    def field(self, name: str) -> Optional[StructField]:
        return next((f for f in self.fields or [] if f.name == name), None)

    def anonymous_path(self, name: str) -> Optional[list[StructField]]:
        """The anonymous members leading to member `name` (C11: an unnamed struct or
        union member's members are members of the enclosing one), or None."""
        for f in self.fields or []:
            if f.name.startswith(ANONYMOUS_MEMBER) and isinstance(f.type, Struct):
                inner = f.type.definition
                if inner.field(name) is not None:
                    return [f]
                deeper = inner.anonymous_path(name)
                if deeper is not None:
                    return [f, *deeper]
        return None


@dataclass(frozen=True)
class Struct(CType):
    """A struct or union type: a reference to its `StructDef` plus qualifiers."""

    definition: StructDef = field(compare=False)
    const: bool = False
    volatile: bool = False
    space: Optional[AddressSpace] = None
    align: int = field(default=0, compare=False)  # from an `aligned` typedef, 0 if none

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Struct) and other.definition is self.definition
                and (other.const, other.volatile, other.space) == (self.const, self.volatile, self.space))

    def __hash__(self) -> int:
        return id(self.definition)

    def __str__(self) -> str:
        kw = "union" if self.definition.is_union else "struct"
        return _qualified(f"{kw} {self.definition.tag or '(anonymous)'}", self)


@dataclass(frozen=True)
class Enum(CType):
    """An enum type; it behaves as `int` (OpenCL C follows C99 here)."""

    tag: str
    const: bool = False
    volatile: bool = False
    space: Optional[AddressSpace] = None
    align: int = field(default=0, compare=False)  # from an `aligned` typedef, 0 if none

    def __str__(self) -> str:
        return _qualified(f"enum {self.tag}", self)


@dataclass(frozen=True)
class FunctionType(CType):
    ret: CType
    params: tuple[CType, ...]
    variadic: bool = False
    const: bool = False
    volatile: bool = False
    space: Optional[AddressSpace] = None

    def __str__(self) -> str:
        ps = ", ".join(str(p) for p in self.params) + (", ..." if self.variadic else "")
        return f"{self.ret} ({ps or 'void'})"


# Convenience singletons (unqualified).
VOID = Void()
BOOL = Scalar(ScalarKind.BOOL)
CHAR = Scalar(ScalarKind.CHAR)
UCHAR = Scalar(ScalarKind.UCHAR)
SHORT = Scalar(ScalarKind.SHORT)
USHORT = Scalar(ScalarKind.USHORT)
INT = Scalar(ScalarKind.INT)
UINT = Scalar(ScalarKind.UINT)
LONG = Scalar(ScalarKind.LONG)
ULONG = Scalar(ScalarKind.ULONG)
HALF = Scalar(ScalarKind.HALF)
FLOAT = Scalar(ScalarKind.FLOAT)
DOUBLE = Scalar(ScalarKind.DOUBLE)
SIZE_T = ULONG  # 64-bit devices only

SCALAR_BY_NAME = {k.spelling: k for k in ScalarKind}
VECTOR_SIZES = (2, 3, 4, 8, 16)


def builtin_type_names() -> dict[str, CType]:
    """Every type name OpenCL C predefines (scalars, vectors, size_t and friends)."""
    names: dict[str, CType] = {k.spelling: Scalar(k) for k in ScalarKind}
    for k in ScalarKind:
        if k is ScalarKind.BOOL:
            continue
        for n in VECTOR_SIZES:
            names[f"{k.spelling}{n}"] = Vector(k, n)
    names.update({"size_t": ULONG, "ptrdiff_t": LONG, "intptr_t": LONG, "uintptr_t": ULONG})
    return names
