"""The state of semantic analysis, declared in one place and passed explicitly.

`SemaContext` holds what checking a translation unit accumulates (scopes, the
function being checked, the call graph, loop and switch nesting, labels and
gotos, the statement expressions open, the overloads declared) and the entry
points every checker uses: `check(e)` and `stmt(s)` dispatch through
`SemaHandlers` (node class -> function of the context; `analyzer.py` puts the
tables together from `expressions`, `casts`, `calls`, `initializers`,
`gnu_checks` and its own statement checks); `value`, `condition`, `error`,
`spaces`, `lookup` and `declare` are the small services around them. Every
checking function takes the context as its first argument, `cx`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional, Union

from ....diagnostics import DiagnosticEngine
from ....ir.datalayout import DataLayout
from ....ir.types import AddressSpace
from .. import ast
from .. import c_types as ct
from .. import type_rules as st
from ..c_types import CType
from ..extension_pragmas import ExtensionPragmas
from ..gnu_types import resolve_typeof
from .conversions import convert, to_rvalue
from .half_uses import check_half_load

ExprHandler = Callable[["SemaContext", Any], ast.Expr]
StmtHandler = Callable[["SemaContext", Any], None]


@dataclass(frozen=True)
class SemaHandlers:
    """The check of each AST node class: expressions and statements (`ast.VarDecl` for
    every variable declaration, `ast.Decl` for every other declaration)."""

    expr: Mapping[type, ExprHandler]
    stmt: Mapping[type, StmtHandler]


@dataclass
class SemaContext:
    """The checking of one translation unit."""

    options: object
    diags: DiagnosticEngine
    handlers: SemaHandlers
    scopes: list[dict[str, ast.Decl]] = field(default_factory=lambda: [{}])  # file scope first
    current_function: Optional[ast.FunctionDecl] = None
    calls: dict[str, set[str]] = field(default_factory=dict)  # caller -> callees (link names)
    call_sites: dict[tuple[str, str], ast.Call] = field(default_factory=dict)  # (caller, callee) -> first call
    loop_depth: int = 0
    switches: list[dict[int, ast.Case]] = field(default_factory=list)  # per open switch: value -> case
    labels: dict[str, ast.Label] = field(default_factory=dict)  # of the function being checked
    gotos: list[ast.Goto] = field(default_factory=list)
    checked_structs: set[int] = field(default_factory=set)  # id() of struct definitions checked
    # The statement expressions being checked, outermost first; where each label,
    # goto and switch sits among them (the jump checks compare the two).
    stmt_exprs: list[ast.StmtExpr] = field(default_factory=list)
    label_contexts: dict[str, tuple[ast.StmtExpr, ...]] = field(default_factory=dict)
    goto_contexts: list[tuple[ast.Goto, tuple[ast.StmtExpr, ...]]] = field(default_factory=list)
    switch_depths: list[int] = field(default_factory=list)
    switch_ranges: list[list[ast.Case]] = field(default_factory=list)  # the case ranges of each open switch
    switch_types: list[Optional[CType]] = field(default_factory=list)  # each open switch's condition type, unpromoted
    # Per name, one declaration per distinct signature (the definition once seen).
    overloads: dict[str, list[ast.FunctionDecl]] = field(default_factory=dict)
    linked: dict[str, ast.FunctionDecl] = field(default_factory=dict)  # link name -> its declaration
    defined: set[str] = field(default_factory=set)  # the names of the unit's function definitions
    extensions: ExtensionPragmas = field(default_factory=ExtensionPragmas)  # where each is enabled
    # (builtin name, each argument's ranking.argument_key) -> best_viable's answer (calls.py)
    builtin_choices: dict[tuple[str, tuple[tuple[CType, bool], ...]], tuple[Optional[int], list[int]]] = \
        field(default_factory=dict)

    # -- the walk -----------------------------------------------------------
    def check(self, e: ast.Expr) -> ast.Expr:
        """Type `e` (filling `ctype`, `is_lvalue`, ...); returns the node to use in its place."""
        if e.ctype is not None:  # already checked (initializers may look at an item twice)
            return e
        handler = self.handlers.expr.get(type(e))
        if handler is None:
            self.diags.error(e.loc, f"unsupported expression '{type(e).__name__}'")
            e.ctype = st.ERROR
            return e
        return handler(self, e)

    def stmt(self, s: Union[ast.Stmt, ast.Decl]) -> None:
        """Check statement or declaration `s`."""
        table = self.handlers.stmt
        handler = table.get(type(s))
        if handler is None and isinstance(s, ast.Decl):
            handler = table[ast.VarDecl] if isinstance(s, ast.VarDecl) else table[ast.Decl]
        if handler is None:
            self.diags.error(s.loc, f"unsupported statement '{type(s).__name__}'")
            return
        handler(self, s)

    def value(self, e: ast.Expr) -> ast.Expr:
        """`e` checked and converted to an rvalue."""
        e = self.check(e)
        if isinstance(e.ctype, ct.FunctionType):  # a function used other than by calling it
            return self.error(e, "function pointers are not supported in OpenCL")
        if e.is_lvalue and st.is_incomplete_struct(e.ctype):  # `*p` of a `struct S *`: no value to load
            return self.error(e, f"incomplete type '{e.ctype.unqualified()}' where a complete type is required")  # type: ignore[union-attr]
        check_half_load(self, e)
        return to_rvalue(e)

    def condition(self, e: ast.Expr) -> ast.Expr:
        """A controlling expression: a scalar converted to bool."""
        e = self.value(e)
        if e.ctype is not None and st.is_error(e.ctype):
            return e
        if e.ctype is None or not st.is_scalar(e.ctype):
            self.diags.error(e.loc, f"statement requires expression of scalar type ('{e.ctype}' invalid)")
            e.ctype = st.ERROR
            return e
        return convert(e, ct.BOOL)

    def error(self, e: ast.Expr, message: str) -> ast.Expr:
        """Report `message` at `e`, which gets the error type (later checks pass over it)."""
        self.diags.error(e.loc, message)
        e.ctype = st.ERROR
        return e

    # -- types --------------------------------------------------------------
    @property
    def layout(self) -> DataLayout:
        """The target's DataLayout: what `sizeof` of a pointer, or of what holds one, is."""
        return self.options.layout  # type: ignore[attr-defined]

    @property
    def default_space(self) -> AddressSpace:
        """Where an unqualified pointer points: private in OpenCL C 1.x, generic from 2.0."""
        return AddressSpace.GENERIC if getattr(self.options, "opencl_c_version", 120) >= 200 \
            else AddressSpace.PRIVATE

    def spaces(self, t: CType) -> CType:
        """A declared type as sema uses it: `__typeof__` resolved, default address spaces filled in."""
        return st.default_spaces(resolve_typeof(t, self.type_of), self.default_space)

    def type_of(self, e: ast.Expr) -> CType:
        """`__typeof__(e)`: e's type, qualifiers kept, arrays not decayed; e is not evaluated."""
        e = self.check(e)
        return e.ctype if e.ctype is not None else st.ERROR

    # -- scopes -------------------------------------------------------------
    def lookup(self, name: str) -> Optional[ast.Decl]:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def declare(self, decl: ast.Decl) -> None:
        scope = self.scopes[-1]
        prev = scope.get(decl.name)
        if prev is not None and not isinstance(prev, ast.FunctionDecl):
            diag = self.diags.error(decl.loc, f"redefinition of '{decl.name}'")
            self.diags.note(diag, prev.loc, "previous definition is here")
        elif prev is not None and scope is self.scopes[0] and not isinstance(decl, ast.FunctionDecl):
            diag = self.diags.error(decl.loc, f"redefinition of '{decl.name}' as different kind of symbol")
            self.diags.note(diag, prev.loc, "previous definition is here")
            return
        scope[decl.name] = decl
