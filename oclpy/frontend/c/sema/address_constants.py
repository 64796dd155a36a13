"""Address constants (C99 6.6p9): the pointer values a program-scope initializer may hold.

`address_constant(e, dl)` says where a checked pointer expression points, when C lets a
constant initializer hold it: `Address(None)` for a null pointer (`0`, `(T *)0`,
`NULL`), else the program-scope variable or string literal it points into and the byte
offset there (`"hello"`, `&x` for a program-scope, static or `__constant` `x`, `a` for an
array `a`, `&s.f`, `&a[2]`, `a + 1`), or, with no base, an integer address: the null
pointer plus an offset (`(T *)0 + 4`, `&((T *)0)[5]`, `&((S *)0)->f`). Sema asks it
whether an initializer is constant; the lowering asks it again for the value. A conversion
to another address space keeps a null pointer null (`(global int *)(generic char *)0`, OpenCL C
2.0 6.5.5) and an object's address its place when the new space holds the object
(`generic int *gp = &g;`, and `(global int *)gp` back); a non-null integer address so
converted is not an address constant here.

`address_integer(e, dl)` is the value of an integer expression over address constants
where clang folds it without placing any object: an integer address cast to an integer
(`(size_t)&((S *)0)->f`, offsetof's idiom; the target's null of that space plus the offset,
as the conversion at run time gives), the difference of two addresses into one
object (`&t[3] - &t[0]`), an address compared with another into the same object or with
null (`&t[1] != 0`), an address cast to bool. An object's address cast to an integer
(`(long)&t[1]`) has no value before the program is placed: None, as for clang's
arithmetic on such integers (`(long)&t[1] - (long)&t[0]` is its error too).
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
from .folding import fold_int, wrap

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
    if frm is not None and st.is_integer(frm):  # `(T *)16`: an integer address
        n = fold_int(e.operand)
        return None if n is None else Address(None, n)
    if kind not in ("pointer", "addrspace", "cast") or not isinstance(frm, ct.Pointer) or \
            not isinstance(e.ctype, ct.Pointer):
        return None
    at = address_constant(e.operand, dl)
    to = st.pointee_space(e.ctype)
    if at is None or st.pointee_space(frm) == to:
        return at
    if at.base is not None:  # `(generic int *)&g`, and back to `global`: clang's addrspacecast
        space = base_space(at.base)
        return at if to is space or (to is AddressSpace.GENERIC and space is AddressSpace.GLOBAL) else None
    return at if at == Address(None) else None   # null in one space is null in every other (6.5.5)


def base_space(base: Base) -> AddressSpace:
    """The address space an address constant's object lives in (a string literal: constant)."""
    space = base.ctype.space if isinstance(base, ast.VarDecl) and base.ctype is not None else None
    return space or AddressSpace.CONSTANT


def _arithmetic(e: ast.Binary, dl: DataLayout) -> Optional[Address]:
    pointer, count = (e.lhs, e.rhs) if isinstance(e.lhs.ctype, ct.Pointer) else (e.rhs, e.lhs)
    if not isinstance(pointer.ctype, ct.Pointer) or (e.op == "-" and pointer is not e.lhs):
        return None
    n = fold_int(count)
    at = address_constant(pointer, dl)
    step = _step(pointer.ctype, dl)
    if n is None or at is None or step is None:
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
    if at is None or not isinstance(struct, ct.Struct):
        return None
    offset = struct_info(struct.definition, dl).offsets.get(e.name)
    return None if offset is None else Address(at.base, at.offset + offset)


def _element(e: ast.Index, dl: DataLayout) -> Optional[Address]:
    base, index = (e.base, e.index) if isinstance(e.base.ctype, (ct.Pointer, ct.Array)) else (e.index, e.base)
    at = _object(base, dl) if isinstance(base.ctype, ct.Array) else address_constant(base, dl)
    n = fold_int(index)
    step = _size(e.ctype, dl) if e.ctype is not None else None
    if at is None or n is None or step is None:
        return None
    return Address(at.base, at.offset + n * step)


def _step(p: ct.Pointer, dl: DataLayout) -> Optional[int]:
    """The bytes one step of pointer arithmetic moves: 1 on a `void *` (GNU C, as clang)."""
    return 1 if st.is_void(p.pointee) else _size(p.pointee, dl)


def _size(t: ct.CType, dl: DataLayout) -> Optional[int]:
    try:
        return size_of(t, dl)
    except LayoutError:
        return None


_INTEGER_OPS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
                "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
                "&&": lambda a, b: int(bool(a) and bool(b)), "||": lambda a, b: int(bool(a) or bool(b))}
_COMPARE = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
            ">": lambda a, b: a > b, "<=": lambda a, b: a <= b, ">=": lambda a, b: a >= b}


def address_integer(e: ast.Expr, dl: DataLayout) -> Optional[int]:
    """The integer an expression over address constants folds to (see the module docstring), or None."""
    if isinstance(e, (ast.Cast, ast.ImplicitCast)) and isinstance(e.operand.ctype, ct.Pointer) and \
            e.ctype is not None and st.is_integer(e.ctype):
        at = address_constant(e.operand, dl)
        if at is None:
            return None
        if at.base is None:
            return _integer_address(at.offset, st.pointee_space(e.operand.ctype), e.ctype, dl)
        return 1 if st.scalar_kind(e.ctype) is ct.ScalarKind.BOOL else None
    if isinstance(e, (ast.Cast, ast.ImplicitCast)) and e.ctype is not None and st.is_integer(e.ctype) and \
            e.operand.ctype is not None and st.is_integer(e.operand.ctype):
        v = address_integer(e.operand, dl)      # `bool b = &t[1] != 0;`: the int result converted
        return None if v is None else wrap(v, e.ctype)
    if isinstance(e, ast.Binary) and e.op in _INTEGER_OPS and e.ctype is not None and st.is_integer(e.ctype) \
            and not isinstance(e.lhs.ctype, ct.Pointer) and not isinstance(e.rhs.ctype, ct.Pointer):
        a, b = _integer(e.lhs, dl), _integer(e.rhs, dl)   # `(bool)&t[2] + (&t[1] == t + 1) * 10`
        return None if a is None or b is None else wrap(_INTEGER_OPS[e.op](a, b), e.ctype)
    if not isinstance(e, ast.Binary) or not (isinstance(e.lhs.ctype, ct.Pointer) or
                                             isinstance(e.rhs.ctype, ct.Pointer)):
        return None
    a, b = _operand_address(e.lhs, dl), _operand_address(e.rhs, dl)
    if a is None or b is None:
        return None
    if e.op == "-":
        step = _step(e.lhs.ctype, dl) if isinstance(e.lhs.ctype, ct.Pointer) else None
        if a.base is not b.base or not step:
            return None
        return wrap((a.offset - b.offset) // step, e.ctype)
    compare = _COMPARE.get(e.op)
    if compare is None:
        return None
    if a.base is b.base:
        return int(compare(a.offset, b.offset))
    if e.op in ("==", "!=") and (a == Address(None) or b == Address(None)):
        return int(e.op == "!=")          # an object's address is never null
    return None


def _integer_address(offset: int, space: AddressSpace, t: ct.CType, dl: DataLayout) -> int:
    """A null-based address of `space` as an integer of type `t`, as the target converts it at
    run time: its null's bits plus the offset, in the pointer's width, then zero-extended or
    truncated (simt's private and local null is all ones); as a bool, whether it is not null."""
    if st.scalar_kind(t) is ct.ScalarKind.BOOL:
        return int(offset != 0)
    bits = dl.pointer_size(space) * 8
    return wrap((dl.null_value[space] + offset) % (1 << bits), t)


def _operand_address(e: ast.Expr, dl: DataLayout) -> Optional[Address]:
    """A comparison's operand as an address: a pointer's address constant, or null for `0`."""
    if isinstance(e.ctype, ct.Pointer):
        return address_constant(e, dl)
    return Address(None) if is_null_constant(e) else None


def _integer(e: ast.Expr, dl: DataLayout) -> Optional[int]:
    v = fold_int(e)
    return v if v is not None else address_integer(e, dl)


def object_address_as_integer(e: ast.Expr, dl: DataLayout) -> bool:
    """Whether `e` is what clang-14 takes and oclpy does not: a program-scope object's address
    as a pointer-wide integer (`(long)&t[1]`, `(intptr_t)t`), or such an integer cast back to
    a pointer (`(T *)(long)&t[1]`); clang emits a relocation, oclpy's constants have none."""
    while isinstance(e, (ast.Cast, ast.ImplicitCast)) and e.ctype is not None:
        frm = e.operand.ctype
        if isinstance(frm, ct.Pointer) and st.is_integer(e.ctype):
            at = address_constant(e.operand, dl)
            wide = _size(e.ctype, dl) == dl.pointer_size(st.pointee_space(frm))
            return at is not None and at.base is not None and wide
        if frm is None or not st.is_integer(frm) or not (isinstance(e.ctype, ct.Pointer) or
                                                         _size(frm, dl) == _size(e.ctype, dl)):
            return False
        e = e.operand
    return False
