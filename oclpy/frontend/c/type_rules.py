"""C and OpenCL C type rules used by semantic analysis.

Classification (integer, arithmetic, vector, pointer), integer promotion,
the usual arithmetic conversions (extended to OpenCL vectors: a scalar
operand is converted to the element type and widened), the result type of
relational operators (int, or a signed integer vector of the element size),
and `ErrorType`, the type of an erroneous expression, which silences
diagnostics that would only repeat the first one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional

from ...ir.types import AddressSpace
from . import c_types as ct
from .c_types import CType, ScalarKind as K


@dataclass(frozen=True)
class ErrorType(CType):
    const: bool = False
    volatile: bool = False
    space: Optional[AddressSpace] = None

    def __str__(self) -> str:
        return "<error>"


ERROR = ErrorType()

_SIGNED_OF_SIZE = {1: K.CHAR, 2: K.SHORT, 4: K.INT, 8: K.LONG}
_UNSIGNED_OF = {K.CHAR: K.UCHAR, K.SHORT: K.USHORT, K.INT: K.UINT, K.LONG: K.ULONG}
_SIGNED_OF = {v: k for k, v in _UNSIGNED_OF.items()}


def is_error(t: Optional[CType]) -> bool:
    return t is None or isinstance(t, ErrorType)


def unqual(t: CType) -> CType:
    return t.unqualified()


def scalar_kind(t: CType) -> Optional[K]:
    """The scalar kind of a scalar, enum or vector type (its element kind)."""
    if isinstance(t, ct.Scalar):
        return t.kind
    if isinstance(t, ct.Enum):
        return K.INT
    if isinstance(t, ct.Vector):
        return t.elem
    return None


def is_arith(t: CType) -> bool:
    return isinstance(t, (ct.Scalar, ct.Enum))


def is_integer(t: CType) -> bool:
    return is_arith(t) and not scalar_kind(t).is_float  # type: ignore[union-attr]


def is_floating(t: CType) -> bool:
    return is_arith(t) and scalar_kind(t).is_float  # type: ignore[union-attr]


def is_vector(t: CType) -> bool:
    return isinstance(t, ct.Vector)


def is_arith_or_vector(t: CType) -> bool:
    return is_arith(t) or is_vector(t)


def is_int_or_int_vector(t: CType) -> bool:
    k = scalar_kind(t)
    return k is not None and not k.is_float


def is_pointer(t: CType) -> bool:
    return isinstance(t, ct.Pointer)


def is_scalar(t: CType) -> bool:
    """C's scalar types: arithmetic and pointers (usable as conditions)."""
    return is_arith(t) or is_pointer(t)


def is_void(t: CType) -> bool:
    return isinstance(t, ct.Void)


def is_struct(t: CType) -> bool:
    return isinstance(t, ct.Struct)


def unsigned_of(k: K) -> K:
    return _UNSIGNED_OF.get(k, k)


def signed_int_of_size(size: int) -> K:
    return _SIGNED_OF_SIZE[size]


def promote(t: CType) -> CType:
    """C integer promotion: bool, char, short and enums become int."""
    if isinstance(t, ct.Enum):
        return ct.INT
    if isinstance(t, ct.Scalar) and not t.kind.is_float and t.kind.rank < K.INT.rank:
        return ct.INT
    return unqual(t)


def arith_kind(a: K, b: K) -> K:
    """The usual arithmetic conversions (C99 6.3.1.8) on scalar kinds."""
    if a.is_float or b.is_float:
        return max((k for k in (a, b) if k.is_float), key=lambda k: k.rank)
    if a.rank < K.INT.rank:
        a = K.INT
    if b.rank < K.INT.rank:
        b = K.INT
    if a is b:
        return a
    if a.signed == b.signed:
        return a if a.rank > b.rank else b
    uns, sgn = (a, b) if not a.signed else (b, a)
    if uns.rank >= sgn.rank:
        return uns
    if sgn.size > uns.size:
        return sgn
    return unsigned_of(sgn)


def _integer_order(a: K, b: K) -> int:
    """clang's integer type order: the rank, and at equal rank unsigned above signed."""
    if a is b:
        return 0
    if a.signed == b.signed:
        return (a.rank > b.rank) - (a.rank < b.rank)
    if not a.signed:
        return 1 if a.rank >= b.rank else -1
    return -1 if b.rank >= a.rank else 1


def outranks_element(elem: K, scalar: K) -> bool:
    """OpenCL C 6.2.6: a scalar operand of a vector operation may not have a greater rank than
    the vector's element (clang: a floating scalar outranks every integer element, and an
    unsigned integer a signed element of its rank; no integer outranks a floating element)."""
    if not elem.is_float:
        return scalar.is_float or _integer_order(elem, scalar) < 0
    return scalar.is_float and scalar.rank > elem.rank


def arith_conversion(a: CType, b: CType) -> Optional[CType]:
    """The common type of two arithmetic or vector operands, or None if they mix
    vectors that differ (OpenCL forbids implicit vector-to-vector conversion)."""
    if is_vector(a) and is_vector(b):
        return unqual(a) if unqual(a) == unqual(b) else None
    if is_vector(a):
        return unqual(a)
    if is_vector(b):
        return unqual(b)
    ka, kb = scalar_kind(a), scalar_kind(b)
    assert ka is not None and kb is not None
    return ct.Scalar(arith_kind(ka, kb))


def relational_result(t: CType) -> CType:
    """`int` for scalars; for vectors a signed integer vector of the element size."""
    if isinstance(t, ct.Vector):
        return ct.Vector(signed_int_of_size(t.elem.size), t.count)
    return ct.INT


def element_type(t: CType) -> CType:
    k = scalar_kind(t)
    assert k is not None
    return ct.Scalar(k)


def with_elem(t: CType, k: K) -> CType:
    """`t` with its scalar kind replaced by `k` (keeping the vector width)."""
    if isinstance(t, ct.Vector):
        return ct.Vector(k, t.count)
    return ct.Scalar(k)


def object_type(t: CType, space: Optional[AddressSpace], const: bool, volatile: bool = False) -> CType:
    """A sub-object's type (array element, struct field) inheriting the container's
    address space and qualifiers."""
    return replace(t, space=space, const=t.const or const,  # type: ignore[type-var]
                   volatile=t.volatile or volatile)


def decay(t: CType) -> CType:
    """Array-to-pointer decay; the pointee keeps the array's space and qualifiers."""
    assert isinstance(t, ct.Array)
    return ct.Pointer(object_type(t.elem, t.space or AddressSpace.PRIVATE, t.const, t.volatile))


def default_spaces(t: CType, space: AddressSpace = AddressSpace.PRIVATE) -> CType:
    """Give every pointee with no written address space the default one."""
    if isinstance(t, ct.Pointer):
        inner = default_spaces(t.pointee, space)
        if inner.space is None and not isinstance(inner, ct.FunctionType):
            inner = inner.with_space(space)
        return replace(t, pointee=inner)
    if isinstance(t, ct.Array):
        return replace(t, elem=default_spaces(t.elem, space))
    if isinstance(t, ct.FunctionType):
        return replace(t, ret=default_spaces(t.ret, space),
                       params=tuple(default_spaces(p, space) for p in t.params))
    return t


def pointee_space(t: ct.Pointer) -> AddressSpace:
    return t.pointee.space or AddressSpace.PRIVATE


def same_unqualified(a: CType, b: CType) -> bool:
    return a is b or a.unqualified() == b.unqualified()


def innermost_element(t: CType) -> CType:
    """The element of an array of arrays (`t` itself when it is no array)."""
    while isinstance(t, ct.Array):
        t = t.elem
    return t


def is_complete_object(t: CType) -> bool:
    if isinstance(t, ct.Struct):
        return t.definition.fields is not None
    return not isinstance(t, (ct.Void, ct.FunctionType))


def is_incomplete_struct(t: Optional[CType]) -> bool:
    """A struct or union declared but not (yet) defined: it has no size or layout."""
    return isinstance(t, ct.Struct) and t.definition.fields is None


def is_unsized_object(t: Optional[CType]) -> bool:
    """An object type a pointer cannot step over: an undefined struct or union, or an array
    of unknown bound (`void` steps a byte, as GNU C and clang allow)."""
    return is_incomplete_struct(t) or (isinstance(t, ct.Array) and t.count is None)
