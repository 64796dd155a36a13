"""Checking initializers: scalars, and brace lists for arrays, structs, unions
and vectors (designators and brace elision included).

A checked `InitList` gets `slots`: a list of (element index, initializer) in
source order, where the index is an array/vector element or a struct field
number and the initializer is a converted rvalue or a nested checked list.
Program-scope (`constant=True`) initializers must fold to constants.
"""

from __future__ import annotations

from typing import Callable, Optional, Union

from ....diagnostics import DiagnosticEngine
from .. import ast
from .. import c_types as ct
from .. import type_rules as st
from ..c_types import CType
from .folding import fold
from .conversions import assign_convert
from ..ast import start_loc

Slot = tuple[int, Union[ast.Expr, ast.InitList]]


def _is_aggregate(t: CType) -> bool:
    return isinstance(t, (ct.Array, ct.Struct, ct.Vector))


def _member_types(t: CType) -> list[CType]:
    if isinstance(t, ct.Array):
        return [t.elem] * (t.count or 0)
    if isinstance(t, ct.Vector):
        return [ct.Scalar(t.elem)] * t.count
    if isinstance(t, ct.Struct):
        fields = t.definition.fields or []
        return [f.type for f in (fields[:1] if t.definition.is_union else fields)]
    return []


class InitChecker:
    diags: DiagnosticEngine
    value: Callable[[ast.Expr], ast.Expr]  # from ExprChecker

    def initializer(self, init: ast.Expr, t: CType, constant: bool) -> ast.Expr:
        if st.is_error(t):
            return init
        if isinstance(init, ast.StringLiteral) and isinstance(t, ct.Array) and \
                st.scalar_kind(t.elem) in (ct.ScalarKind.CHAR, ct.ScalarKind.UCHAR):
            init = self._string_items(init, t)
        if isinstance(init, ast.InitList):
            if not _is_aggregate(t):
                if len(init.items) != 1 or isinstance(init.items[0], ast.InitList):
                    self.diags.error(init.loc, f"excess elements in scalar initializer")
                    return init
                return self.initializer(init.items[0], t, constant)
            self._list(init, t, constant)
            return init
        e = self.value(init)
        e = assign_convert(e, t, "init", self.diags)
        if constant and not st.is_error(e.ctype):
            self._require_constant(e)
        return e

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
        members = _member_types(t)
        slots: list[Slot] = []
        designators = init.designators or [None] * len(init.items)
        items = list(zip(init.items, designators))
        pos, i = 0, 0
        while i < len(items):
            item, desig = items[i]
            if desig:
                found = self._designated(desig[0], t, item)
                if found is None:
                    i += 1
                    continue
                pos = found
            if pos >= len(members) and not (isinstance(t, ct.Array) and t.count is None):
                self.diags.error(item.loc, f"excess elements in {self._kind(t)} initializer")
                return
            mt = members[pos] if pos < len(members) else t.elem  # type: ignore[attr-defined]
            if _is_aggregate(mt) and not isinstance(item, ast.InitList) and not self._same_type_item(item, mt):
                sub, used = self._elided(items[i:], mt, constant)
                slots.append((pos, sub))
                i += used
            else:
                slots.append((pos, self.initializer(item, mt, constant)))
                i += 1
            pos += 1
        init.slots = slots  # type: ignore[attr-defined]
        init.ctype = t.unqualified()

    def _same_type_item(self, item: ast.Expr, mt: CType) -> bool:
        """Whether a non-brace item initializes a whole aggregate member (a struct or vector value)."""
        if isinstance(mt, ct.Array):
            return False
        checked = self.value(item)
        # Re-checking is harmless: remember the typed node on the item for later use.
        item.ctype = checked.ctype
        return st.same_unqualified(checked.ctype or st.ERROR, mt)

    def _elided(self, items: list, mt: CType, constant: bool) -> tuple[ast.InitList, int]:
        n = max(1, self._leaf_count(mt))
        take = items[:n]
        sub = ast.InitList(take[0][0].loc, [it for it, _ in take], [None] * len(take))
        self._list(sub, mt, constant)
        return sub, len(take)

    def _leaf_count(self, t: CType) -> int:
        if isinstance(t, (ct.Array, ct.Vector, ct.Struct)):
            return sum(self._leaf_count(m) for m in _member_types(t))
        return 1

    @staticmethod
    def _kind(t: CType) -> str:
        return {ct.Array: "array", ct.Vector: "vector"}.get(type(t), "struct")  # type: ignore[arg-type]

    def _designated(self, d: Union[int, str], t: CType, item: ast.Expr) -> Optional[int]:
        if isinstance(d, str):
            if not isinstance(t, ct.Struct):
                self.diags.error(item.loc, f"field designator '{d}' does not refer to any field in type '{t}'")
                return None
            names = [f.name for f in t.definition.fields or []]
            if d not in names:
                self.diags.error(item.loc, f"field designator '{d}' does not refer to any field in type '{t}'")
                return None
            return names.index(d)
        if not isinstance(t, (ct.Array, ct.Vector)):
            self.diags.error(item.loc, f"array designator cannot initialize non-array type '{t}'")
            return None
        count = t.count if t.count is not None else 1 << 62
        if d < 0 or d >= count:
            self.diags.error(item.loc, f"array designator index ({d}) exceeds array bounds ({count})")
            return None
        return d
