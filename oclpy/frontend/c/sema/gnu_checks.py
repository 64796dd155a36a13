"""Semantic analysis of GNU C and C11 extensions: statement expressions `({ ... })`,
case ranges `case 1 ... 5:` and `_Static_assert` (folded once its condition is
typed, so `sizeof(x)` works).

A statement expression runs its block in a new scope; its value is that of
the last statement when that is an expression statement (trailing empty
statements and labels are looked through, as clang does), converted to an
rvalue, else it is void. `break`, `continue`, `return` and `goto` may leave
it; a `goto` or a `case`/`default` label may not jump into it (the values of
the enclosing expression computed before it would be skipped), which is
reported in clang's words.
"""

from __future__ import annotations

from typing import Optional, Union

from .. import ast
from .. import c_types as ct
from .. import type_rules as st
from .case_values import case_value
from .folding import fold_int
from ..ast import start_loc
from ..parse_gnu import report_static_assert
from .sema_context import SemaContext


def static_assert(cx: SemaContext, sa: ast.StaticAssert) -> None:
    sa.cond = cx.value(sa.cond)
    if st.is_error(sa.cond.ctype):
        return
    report_static_assert(sa, fold_int(sa.cond), cx.diags)


def check_stmt_expr(cx: SemaContext, e: ast.StmtExpr) -> ast.Expr:
    result = result_statement(e.body.items)
    cx.stmt_exprs.append(e)
    try:
        cx.stmt(e.body)  # a compound statement: its own scope
    finally:
        cx.stmt_exprs.pop()
    e.result = result
    value = result.expr if result is not None else None
    if value is None:
        e.ctype = ct.VOID
    elif st.is_error(value.ctype):
        e.ctype = st.ERROR
    else:
        assert value.ctype is not None
        e.ctype = value.ctype.unqualified()
    return e


# -- case ranges ------------------------------------------------------------
def case_range(cx: SemaContext, s: ast.Case) -> None:
    """`case lo ... hi:`: both ends constant; an empty range is warned about and dropped."""
    assert s.high is not None
    s.value, s.high = cx.value(s.value), cx.value(s.high)
    lo, hi = case_value(cx, s.value), case_value(cx, s.high)
    if lo is None or hi is None:
        return
    if lo > hi:
        cx.diags.warning(start_loc(s.value), "empty case range specified")
        return
    s.const_value, s.const_high = lo, hi
    cx.switch_ranges[-1].append(s)


def check_case_ranges(cx: SemaContext, singles: dict[int, ast.Case], ranges: list[ast.Case]) -> None:
    """Ranges overlapping a single case or each other, reported as clang does (in order of
    their low ends, naming the last overlapping value it finds)."""
    ordered = sorted(ranges, key=lambda r: r.const_value or 0)
    for i, r in enumerate(ordered):
        lo, hi = r.const_value or 0, r.const_high or 0
        overlap = max((v for v in singles if lo <= v <= hi), default=None)
        previous = singles.get(overlap) if overlap is not None else None
        if i and (ordered[i - 1].const_high or 0) >= lo:
            overlap, previous = ordered[i - 1].const_high, ordered[i - 1]
        if previous is not None:
            diag = cx.diags.error(start_loc(r.value), f"duplicate case value '{overlap}'")
            cx.diags.note(diag, start_loc(previous.value), "previous case defined here")


# -- jumps into statement expressions ------------------------------------
def note_label(cx: SemaContext, s: ast.Label) -> None:
    cx.label_contexts[s.name] = tuple(cx.stmt_exprs)


def note_goto(cx: SemaContext, s: ast.Goto) -> None:
    cx.goto_contexts.append((s, tuple(cx.stmt_exprs)))


def check_gotos_into_stmt_exprs(cx: SemaContext) -> None:
    for goto, inside in cx.goto_contexts:
        target = cx.label_contexts.get(goto.name)
        entered = _entered(target or (), inside)
        if entered is not None:
            diag = cx.diags.error(goto.loc, "cannot jump from this goto statement to its label")
            cx.diags.note(diag, entered.loc, "jump enters a statement expression")


def check_case_scope(cx: SemaContext, s: Union[ast.Case, ast.Default]) -> None:
    """A case or default label inside a statement expression its switch is outside."""
    if cx.switch_depths and len(cx.stmt_exprs) > cx.switch_depths[-1]:
        diag = cx.diags.error(s.loc, "cannot jump from switch statement to this case label")
        cx.diags.note(diag, cx.stmt_exprs[cx.switch_depths[-1]].loc, "jump enters a statement expression")


def _entered(target: tuple[ast.StmtExpr, ...], source: tuple[ast.StmtExpr, ...]) -> Optional[ast.StmtExpr]:
    """The outermost statement expression around `target` that `source` is not in."""
    for i, se in enumerate(target):
        if i >= len(source) or source[i] is not se:
            return se
    return None


def result_statement(items: list[Union[ast.Stmt, ast.Decl]]) -> Optional[ast.ExprStmt]:
    """The expression statement whose value a statement expression takes, if any: the
    last statement other than empty ones, looking through labels."""
    last: Optional[Union[ast.Stmt, ast.Decl]] = None
    for item in reversed(items):
        if not (isinstance(item, ast.ExprStmt) and item.expr is None):
            last = item
            break
    while isinstance(last, ast.Label):
        last = last.body
    return last if isinstance(last, ast.ExprStmt) and last.expr is not None else None
