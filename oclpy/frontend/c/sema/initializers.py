"""Checking initializers: scalars, and brace lists for arrays, structs, unions
and vectors (designators and brace elision: `init_lists`).

A checked `InitList` gets `slots`: a list of (element index, initializer) in
source order, where the index is an array/vector element or a struct field
number and the initializer is a converted rvalue or a nested checked list.
Program-scope (`constant=True`) initializers must fold to constants (pointers: to address
constants, `address_constants`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ....diagnostics import DiagnosticEngine
from .. import ast
from .. import c_types as ct
from .. import type_rules as st
from ..c_types import CType
from .address_constants import address_constant, address_integer, object_address_as_integer
from .folding import fold
from .conversions import assign_convert
from ..ast import start_loc
from .init_lists import ListFiller, is_aggregate
from .sema_context import SemaContext


def initializer(cx: SemaContext, init: ast.Expr, t: CType, constant: bool) -> ast.Expr:
    if st.is_error(t):
        return init
    if isinstance(init, ast.CompoundLiteral) and st.same_unqualified(cx.spaces(init.to), t):
        init = init.init  # `S s = (S){...}` initializes s itself (also at program scope, as clang)
    if isinstance(init, ast.StringLiteral) and isinstance(t, ct.Array) and \
            st.scalar_kind(t.elem) in (ct.ScalarKind.CHAR, ct.ScalarKind.UCHAR):
        init = _string_items(cx, init, t)
    if isinstance(init, ast.InitList):
        if not is_aggregate(t):
            return _braced_scalar(cx, init, t, constant)
        _list(cx, init, t, constant)
        return init
    e = cx.value(init)
    e = assign_convert(e, t, "init", cx.diags)
    if constant and not st.is_error(e.ctype):
        _require_constant(cx, e)
    return e


def check_compound_literal(cx: SemaContext, e: ast.CompoundLiteral) -> ast.Expr:
    """A compound literal in a function: an lvalue of its type, in private memory."""
    e.to = cx.spaces(e.to)
    if isinstance(e.to, ct.Array) and e.to.count is None or not st.is_complete_object(e.to):
        cx.diags.error(e.loc, f"variable has incomplete type '{e.to}'")
        e.ctype = st.ERROR
        return e
    init = initializer(cx, e.init, e.to, constant=False)
    if not isinstance(init, ast.InitList):
        # a scalar's braced list the parser did not take as a cast (`(double){5.0f, 6.0f}`:
        # excess elements, warned about): its one value, converted, is the literal's value
        return init
    e.init, e.ctype, e.is_lvalue = init, e.to, True
    return e


def _braced_scalar(cx: SemaContext, init: ast.InitList, t: CType, constant: bool) -> ast.Expr:
    """`int x = {1}`: one item, no designator (more items: clang's warning, then ignored)."""
    if init.designators and init.designators[0]:
        locs = init.designator_locs[0] if init.designator_locs else None
        cx.diags.error(locs[0][0] if locs else init.loc, f"designator in initializer for scalar type '{t}'")
        return init
    if not init.items:
        cx.diags.error(init.loc, "scalar initializer cannot be empty")
        return init
    if isinstance(init.items[0], ast.InitList):
        cx.diags.warning(init.items[0].loc, "too many braces around scalar initializer")
    if len(init.items) > 1:
        cx.diags.warning(start_loc(init.items[1]), "excess elements in scalar initializer")
    return initializer(cx, init.items[0], t, constant)


def _string_items(cx: SemaContext, s: ast.StringLiteral, t: ct.Array) -> ast.Expr:
    """`char a[] = "ab"` initializes like `{'a', 'b', 0}` (the NUL only when it fits)."""
    data = s.value + b"\0"
    if t.count is not None and len(s.value) > t.count:
        cx.diags.error(s.loc, "initializer-string for char array is too long")
    data = data[: t.count] if t.count is not None else data
    return ast.InitList(s.loc, [ast.IntLiteral(s.loc, b) for b in data], [None] * len(data))


def _require_constant(cx: SemaContext, e: ast.Expr) -> None:
    if object_address_as_integer(e, cx.layout):
        cx.diags.error(start_loc(e), "the address of a program-scope object as an integer is not "
                                     "supported by oclpy in a constant initializer")
        return
    if isinstance(e.ctype, ct.Pointer):
        at = address_constant(e, cx.layout)
        if at is None:
            cx.diags.error(start_loc(e), "initializer element is not a compile-time constant")
        elif at.base is None and at.offset:
            cx.diags.error(start_loc(e), "an integer address other than null in a constant pointer "
                                         "initializer is not supported by oclpy")
        return
    if fold(e) is None and address_integer(e, cx.layout) is None and not isinstance(e, ast.VectorLiteral) \
            and not _const_vector(e):
        cx.diags.error(start_loc(e), "initializer element is not a compile-time constant")


def _const_vector(e: ast.Expr) -> bool:
    while isinstance(e, ast.ImplicitCast) and e.kind == "splat":
        e = e.operand
    if isinstance(e, ast.VectorLiteral):
        return all(fold(c) is not None for c in e.components)
    return fold(e) is not None


def _list(cx: SemaContext, init: ast.InitList, t: CType, constant: bool) -> None:
    ListFiller(ItemChecker(cx), constant).fill(init, t)


def same_type_item(cx: SemaContext, item: ast.Expr, mt: CType) -> bool:
    """Whether a non-brace item initializes a whole aggregate member (a struct or vector value)."""
    if isinstance(mt, ct.Array):
        return False
    checked = cx.value(item)
    # Re-checking is harmless: remember the typed node on the item for later use.
    item.ctype = checked.ctype
    return st.same_unqualified(checked.ctype or st.ERROR, mt)


@dataclass
class ItemChecker:
    """The `init_lists.Checker` of a SemaContext: how the list filler checks an item."""

    cx: SemaContext

    @property
    def diags(self) -> DiagnosticEngine:
        return self.cx.diags

    def initializer(self, init: ast.Expr, t: CType, constant: bool) -> ast.Expr:
        return initializer(self.cx, init, t, constant)

    def same_type_item(self, item: ast.Expr, mt: CType) -> bool:
        return same_type_item(self.cx, item, mt)
