"""Checking initializers: scalars, and brace lists for arrays, structs, unions
and vectors (designators and brace elision: `sema_init_list`).

A checked `InitList` gets `slots`: a list of (element index, initializer) in
source order, where the index is an array/vector element or a struct field
number and the initializer is a converted rvalue or a nested checked list.
Program-scope (`constant=True`) initializers must fold to constants.
"""

from __future__ import annotations

from typing import Callable

from ....diagnostics import DiagnosticEngine
from .. import ast
from .. import c_types as ct
from .. import type_rules as st
from ..c_types import CType
from .folding import fold
from .conversions import assign_convert
from ..ast import start_loc
from .init_lists import ListFiller, is_aggregate



class InitChecker:
    diags: DiagnosticEngine
    value: Callable[[ast.Expr], ast.Expr]  # from ExprChecker
    spaces: Callable[[CType], CType]  # from ExprChecker

    def initializer(self, init: ast.Expr, t: CType, constant: bool) -> ast.Expr:
        if st.is_error(t):
            return init
        if isinstance(init, ast.CompoundLiteral) and st.same_unqualified(self.spaces(init.to), t):
            init = init.init  # `S s = (S){...}` initializes s itself (also at program scope, as clang)
        if isinstance(init, ast.StringLiteral) and isinstance(t, ct.Array) and \
                st.scalar_kind(t.elem) in (ct.ScalarKind.CHAR, ct.ScalarKind.UCHAR):
            init = self._string_items(init, t)
        if isinstance(init, ast.InitList):
            if not is_aggregate(t):
                return self._braced_scalar(init, t, constant)
            self._list(init, t, constant)
            return init
        e = self.value(init)
        e = assign_convert(e, t, "init", self.diags)
        if constant and not st.is_error(e.ctype):
            self._require_constant(e)
        return e

    def check_compound_literal(self, e: ast.CompoundLiteral) -> ast.Expr:
        """A compound literal in a function: an lvalue of its type, in private memory."""
        e.to = self.spaces(e.to)
        if isinstance(e.to, ct.Array) and e.to.count is None or not st.is_complete_object(e.to):
            self.diags.error(e.loc, f"variable has incomplete type '{e.to}'")
            e.ctype = st.ERROR
            return e
        init = self.initializer(e.init, e.to, constant=False)
        assert isinstance(init, ast.InitList)
        e.init, e.ctype, e.is_lvalue = init, e.to, True
        return e

    def _braced_scalar(self, init: ast.InitList, t: CType, constant: bool) -> ast.Expr:
        """`int x = {1}`: one item, no designator (more items: clang's warning, then ignored)."""
        if init.designators and init.designators[0]:
            locs = init.designator_locs[0] if init.designator_locs else None
            self.diags.error(locs[0][0] if locs else init.loc, f"designator in initializer for scalar type '{t}'")
            return init
        if not init.items:
            self.diags.error(init.loc, "scalar initializer cannot be empty")
            return init
        if isinstance(init.items[0], ast.InitList):
            self.diags.warning(init.items[0].loc, "too many braces around scalar initializer")
        if len(init.items) > 1:
            self.diags.warning(start_loc(init.items[1]), "excess elements in scalar initializer")
        return self.initializer(init.items[0], t, constant)

    def _string_items(self, s: ast.StringLiteral, t: ct.Array) -> ast.Expr:
        """`char a[] = "ab"` initializes like `{'a', 'b', 0}` (the NUL only when it fits)."""
        data = s.value + b"\0"
        if t.count is not None and len(s.value) > t.count:
            self.diags.error(s.loc, "initializer-string for char array is too long")
        data = data[: t.count] if t.count is not None else data
        return ast.InitList(s.loc, [ast.IntLiteral(s.loc, b) for b in data], [None] * len(data))

    def _require_constant(self, e: ast.Expr) -> None:
        if fold(e) is None and not isinstance(e, ast.VectorLiteral) and not self._const_vector(e):
            self.diags.error(start_loc(e), "initializer element is not a compile-time constant")

    @staticmethod
    def _const_vector(e: ast.Expr) -> bool:
        while isinstance(e, ast.ImplicitCast) and e.kind == "splat":
            e = e.operand
        if isinstance(e, ast.VectorLiteral):
            return all(fold(c) is not None for c in e.components)
        return fold(e) is not None

    def _list(self, init: ast.InitList, t: CType, constant: bool) -> None:
        ListFiller(self, constant).fill(init, t)  # type: ignore[arg-type]

    def same_type_item(self, item: ast.Expr, mt: CType) -> bool:
        """Whether a non-brace item initializes a whole aggregate member (a struct or vector value)."""
        if isinstance(mt, ct.Array):
            return False
        checked = self.value(item)
        # Re-checking is harmless: remember the typed node on the item for later use.
        item.ctype = checked.ctype
        return st.same_unqualified(checked.ctype or st.ERROR, mt)
