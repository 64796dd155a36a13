"""The value of a `case` label, as the switch compares it: an integer constant
expression converted to the switch condition's promoted type.

Two labels are duplicates when their converted values are equal (`case
4294967296:` is `case 0:` in a switch on an int, `case -1:` is `case
4294967295:` in one on a uint), so duplicates are found on converted values,
and the IR's switch, which compares bit patterns, never sees two equal cases.
A value that the condition's own (unpromoted) type cannot hold is warned about
in clang's words: `overflow converting case value to switch condition type
(4294967296 to 0)`.
"""

from __future__ import annotations

from typing import Optional

from .. import ast
from .. import c_types as ct
from .. import type_rules as st
from ..ast import start_loc
from .folding import fold_int, wrap
from .sema_context import SemaContext


def case_value(cx: SemaContext, e: ast.Expr) -> Optional[int]:
    """`e`'s value converted to the innermost switch's condition type; None (reported) when
    `e` is not an integer constant expression."""
    v = fold_int(e)
    if v is None:
        if not st.is_error(e.ctype):
            cx.diags.error(start_loc(e), "expression is not an integer constant expression")
        return None
    cond = cx.switch_types[-1] if cx.switch_types else None
    if cond is None:  # a condition in error: keep the value as written
        return v
    if size_of(cond) < size_of(e.ctype):
        seen = wrap(wrap(v, cond), e.ctype)
        if seen != v:
            cx.diags.warning(start_loc(e), f"overflow converting case value to switch condition type ({v} to {seen})")
    return wrap(v, st.promote(cond))


def size_of(t: Optional[ct.CType]) -> int:
    k = st.scalar_kind(t) if t is not None else None
    return k.size if k is not None else 0
