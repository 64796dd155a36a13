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

from typing import TYPE_CHECKING, Optional, Union

from ....diagnostics import DiagnosticEngine
from .. import ast
from .. import c_types as ct
from .. import type_rules as st
from .folding import fold_int
from ..ast import start_loc
from ..parse_gnu import report_static_assert


class GnuChecker:
    diags: DiagnosticEngine
    # The statement expressions being checked, outermost first; where each label,
    # goto and switch sits among them (the jump checks compare the two).
    stmt_exprs: list[ast.StmtExpr]
    label_contexts: dict[str, tuple[ast.StmtExpr, ...]]
    goto_contexts: list[tuple[ast.Goto, tuple[ast.StmtExpr, ...]]]
    switch_depths: list[int]
    switch_ranges: list[list[ast.Case]]  # the case ranges of each switch being checked

    if TYPE_CHECKING:  # provided by Sema and ExprChecker
        def compound(self, s: ast.Compound, new_scope: bool = True) -> None: ...
        def value(self, e: ast.Expr) -> ast.Expr: ...

    def static_assert(self, sa: ast.StaticAssert) -> None:
        sa.cond = self.value(sa.cond)
        if st.is_error(sa.cond.ctype):
            return
        report_static_assert(sa, fold_int(sa.cond), self.diags)

    def check_stmt_expr(self, e: ast.StmtExpr) -> ast.Expr:
        result = result_statement(e.body.items)
        self.stmt_exprs.append(e)
        try:
            self.compound(e.body)
        finally:
            self.stmt_exprs.pop()
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
    def case_range(self, s: ast.Case) -> None:
        """`case lo ... hi:`: both ends constant; an empty range is warned about and dropped."""
        assert s.high is not None
        s.value, s.high = self.value(s.value), self.value(s.high)
        lo, hi = fold_int(s.value), fold_int(s.high)
        for e, v in ((s.value, lo), (s.high, hi)):
            if v is None and not st.is_error(e.ctype):
                self.diags.error(start_loc(e), "expression is not an integer constant expression")
        if lo is None or hi is None:
            return
        if lo > hi:
            self.diags.warning(start_loc(s.value), "empty case range specified")
            return
        s.const_value, s.const_high = lo, hi
        self.switch_ranges[-1].append(s)

    def check_case_ranges(self, singles: dict[int, ast.Case], ranges: list[ast.Case]) -> None:
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
                diag = self.diags.error(start_loc(r.value), f"duplicate case value '{overlap}'")
                self.diags.note(diag, start_loc(previous.value), "previous case defined here")

    # -- jumps into statement expressions ------------------------------------
    def note_label(self, s: ast.Label) -> None:
        self.label_contexts[s.name] = tuple(self.stmt_exprs)

    def note_goto(self, s: ast.Goto) -> None:
        self.goto_contexts.append((s, tuple(self.stmt_exprs)))

    def check_gotos_into_stmt_exprs(self) -> None:
        for goto, inside in self.goto_contexts:
            target = self.label_contexts.get(goto.name)
            entered = _entered(target or (), inside)
            if entered is not None:
                diag = self.diags.error(goto.loc, "cannot jump from this goto statement to its label")
                self.diags.note(diag, entered.loc, "jump enters a statement expression")

    def check_case_scope(self, s: Union[ast.Case, ast.Default]) -> None:
        """A case or default label inside a statement expression its switch is outside."""
        if self.switch_depths and len(self.stmt_exprs) > self.switch_depths[-1]:
            diag = self.diags.error(s.loc, "cannot jump from switch statement to this case label")
            self.diags.note(diag, self.stmt_exprs[self.switch_depths[-1]].loc, "jump enters a statement expression")


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
