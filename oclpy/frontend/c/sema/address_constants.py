"""Address constants (C99 6.6p9): the pointer values a program-scope initializer may hold.

`address_constant(e, dl)` says where a checked pointer expression points, when C lets a
constant initializer hold it: `Address(None)` for a null pointer (`0`, `(T *)0`,
`NULL`), else the program-scope variable or string literal it points into and the byte
offset there (`"hello"`, `&x` for a program-scope, static or `__constant` `x`, `a` for an
array `a`, `&s.f`, `&a[2]`, `a + 1`). Sema asks it
whether an initializer is constant; the lowering asks it again for the value. A conversion
to another address space (to `generic`) is not an address constant here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

from ....ir.datalayout import DataLayout
from ....ir.types import AddressSpace
from .. import ast
from .. import c_types as ct
from .. import type_rules as st
from ..layout import LayoutError, size_of, struct_info
from .conversions import is_null_constant
from .folding import fold_int

Base = Union[ast.VarDecl, ast.StringLiteral]


@dataclass(frozen=True)
class Address:
    """A constant pointer: into `base` at byte `offset`, or null when `base` is None."""

    base: Optional[Base]
    offset: int = 0


def address_constant(e: ast.Expr, dl: DataLayout) -> Optional[Address]:
    """The address constant a pointer rvalue is, or None."""
    if is_null_constant(e):  # `NULL`, `(void *)0`: null in any address space
        return Address(None)
    if isinstance(e, (ast.ImplicitCast, ast.Cast)):
        return _converted(e, dl)
    if isinstance(e, ast.Unary) and e.op == "&":
        return _object(e.operand, dl)
    if isinstance(e, ast.Binary) and e.op in ("+", "-"):
        return _arithmetic(e, dl)
    return None


def _converted(e: Union[ast.ImplicitCast, ast.Cast], dl: DataLayout) -> Optional[Address]:
    kind = e.kind if isinstance(e, ast.ImplicitCast) else "cast"
    if kind == "array-decay":
        return _object(e.operand, dl)
    frm = e.operand.ctype
    if frm is not None and st.is_integer(frm):  # only the null pointer: no integer is an address here
        return Address(None) if fold_int(e.operand) == 0 else None
    if kind not in ("pointer", "cast") or not isinstance(frm, ct.Pointer) or not isinstance(e.ctype, ct.Pointer):
        return None
    if st.pointee_space(frm) != st.pointee_space(e.ctype):
        return None
    return address_constant(e.operand, dl)


def _arithmetic(e: ast.Binary, dl: DataLayout) -> Optional[Address]:
    pointer, count = (e.lhs, e.rhs) if isinstance(e.lhs.ctype, ct.Pointer) else (e.rhs, e.lhs)
    if not isinstance(pointer.ctype, ct.Pointer) or (e.op == "-" and pointer is not e.lhs):
        return None
    n = fold_int(count)
    at = address_constant(pointer, dl)
    step = _size(pointer.ctype.pointee, dl)
    if n is None or at is None or at.base is None or step is None:
        return None
    return Address(at.base, at.offset + (n if e.op == "+" else -n) * step)


def _object(e: ast.Expr, dl: DataLayout) -> Optional[Address]:
    """Where an lvalue designating (part of) a program-scope object is."""
    if isinstance(e, ast.Identifier):
        d = e.decl
        static = isinstance(d, ast.VarDecl) and (d.is_global_scope or d.storage == "static" or
                                                 (d.ctype is not None and d.ctype.space is AddressSpace.CONSTANT))
        return Address(d) if static else None
    if isinstance(e, ast.StringLiteral):
        return Address(e)
    if isinstance(e, ast.ImplicitCast) and e.kind == "lvalue-to-rvalue":
        return None
    if isinstance(e, ast.Member) and e.swizzle is None:
        return _member(e, dl)
    if isinstance(e, ast.Index):
        return _element(e, dl)
    if isinstance(e, ast.Unary) and e.op == "*":
        return address_constant(e.operand, dl)
    return None


def _member(e: ast.Member, dl: DataLayout) -> Optional[Address]:
    at = address_constant(e.base, dl) if e.arrow else _object(e.base, dl)
    struct = e.base.ctype.pointee if e.arrow and isinstance(e.base.ctype, ct.Pointer) else e.base.ctype
    if at is None or at.base is None or not isinstance(struct, ct.Struct):
        return None
    offset = struct_info(struct.definition, dl).offsets.get(e.name)
    return None if offset is None else Address(at.base, at.offset + offset)


def _element(e: ast.Index, dl: DataLayout) -> Optional[Address]:
    base, index = (e.base, e.index) if isinstance(e.base.ctype, (ct.Pointer, ct.Array)) else (e.index, e.base)
    at = _object(base, dl) if isinstance(base.ctype, ct.Array) else address_constant(base, dl)
    n = fold_int(index)
    step = _size(e.ctype, dl) if e.ctype is not None else None
    if at is None or at.base is None or n is None or step is None:
        return None
    return Address(at.base, at.offset + n * step)


def _size(t: ct.CType, dl: DataLayout) -> Optional[int]:
    try:
        return size_of(t, dl)
    except LayoutError:
        return None
