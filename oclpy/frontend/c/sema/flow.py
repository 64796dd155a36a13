"""Control-flow facts sema needs: whether a statement may complete normally
(for "non-void function does not return a value") and recursion in the call graph."""

from __future__ import annotations

from typing import Callable, Iterator, Union

from .. import ast
from ..builtins.gnu_builtins import is_unreachable_call
from .folding import fold

Item = Union[ast.Stmt, ast.Decl]


def _always_true(e: object) -> bool:
    if e is None:
        return True
    v = fold(e) if isinstance(e, ast.Expr) else None  # type: ignore[arg-type]
    return v is not None and v != 0


def _has(s: Item, kind: type, into_loops: bool, into_switch: bool = True) -> bool:
    if isinstance(s, kind):
        return True
    for child in _children(s):
        loop = isinstance(child, (ast.While, ast.DoWhile, ast.For))
        if loop and not into_loops:
            continue
        if isinstance(child, ast.Switch) and not into_switch:
            continue
        if _has(child, kind, into_loops, into_switch):
            return True
    return False


def _children(s: Item) -> Iterator[Item]:
    for e in _own_exprs(s):
        yield from (se.body for se in stmt_exprs_in(e))
    if isinstance(s, ast.Compound):
        yield from s.items
    elif isinstance(s, ast.If):
        yield s.then
        if s.else_ is not None:
            yield s.else_
    elif isinstance(s, (ast.While, ast.DoWhile, ast.For, ast.Switch)):
        yield s.body
    elif isinstance(s, (ast.Case, ast.Default, ast.Label)):
        yield s.body


_EXPR_FIELDS = {ast.ExprStmt: ("expr",), ast.If: ("cond",), ast.While: ("cond",), ast.DoWhile: ("cond",),
                ast.For: ("cond", "step"), ast.Return: ("value",), ast.Switch: ("cond",)}


def _own_exprs(s: Item) -> Iterator[ast.Expr]:
    """The expressions a statement evaluates itself (not those of its sub-statements)."""
    if isinstance(s, ast.DeclStmt):
        yield from (d.init for d in s.decls if isinstance(d, ast.VarDecl) and d.init is not None)
    for name in _EXPR_FIELDS.get(type(s), ()):
        e = getattr(s, name)
        if e is not None:
            yield e


def stmt_exprs_in(e: object) -> Iterator[ast.StmtExpr]:
    """The statement expressions in expression `e`, outermost ones only."""
    if isinstance(e, ast.StmtExpr):
        yield e
        return
    if not isinstance(e, ast.Expr):
        return
    for value in vars(e).values():
        if isinstance(value, ast.Expr):
            yield from stmt_exprs_in(value)
        elif isinstance(value, list):
            for item in value:
                yield from stmt_exprs_in(item)


def contains_return(s: Item) -> bool:
    return _has(s, ast.Return, into_loops=True)


def _compound(s: ast.Compound) -> bool:
    falls = True
    for item in s.items:
        if isinstance(item, (ast.Label, ast.Case, ast.Default)):
            falls = True  # reachable by a jump
        if falls:
            falls = may_fall_through(item)
        elif isinstance(item, ast.Label):
            falls = may_fall_through(item)
    return falls


def _loop(s: Union[ast.While, ast.For]) -> bool:
    cond = s.cond
    return not _always_true(cond) or _has(s.body, ast.Break, into_loops=False, into_switch=False)


def _switch(s: ast.Switch) -> bool:
    has_default = _has(s.body, ast.Default, into_loops=True, into_switch=False)
    return not has_default or may_fall_through(s.body) or \
        _has(s.body, ast.Break, into_loops=False, into_switch=False)


_RULES: dict[type, Callable[..., bool]] = {
    ast.ExprStmt: lambda s: not is_unreachable_call(s.expr) and
    (not isinstance(s.expr, ast.StmtExpr) or may_fall_through(s.expr.body)),
    ast.Return: lambda s: False,
    ast.Goto: lambda s: False,
    ast.Compound: _compound,
    ast.If: lambda s: s.else_ is None or may_fall_through(s.then) or may_fall_through(s.else_),
    ast.While: _loop,
    ast.For: _loop,
    ast.DoWhile: lambda s: may_fall_through(s.body) and not _always_true(s.cond) or
    _has(s.body, ast.Break, into_loops=False, into_switch=False),
    ast.Switch: _switch,
    ast.Label: lambda s: may_fall_through(s.body),
    ast.Case: lambda s: may_fall_through(s.body),
    ast.Default: lambda s: may_fall_through(s.body),
}


def may_fall_through(s: Item) -> bool:
    """Whether control may reach the end of `s` (conservatively: yes when unsure)."""
    rule = _RULES.get(type(s))
    return True if rule is None else rule(s)


def find_recursion(calls: dict[str, set[str]]) -> list[tuple[str, str, list[str]]]:
    """Each call edge (caller, callee) closing a cycle, with the cycle's path."""
    found: list[tuple[str, str, list[str]]] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(fn: str) -> None:
        state[fn] = 1
        stack.append(fn)
        for callee in sorted(calls.get(fn, ())):
            if state.get(callee) == 1:
                chain = stack[stack.index(callee):] + [callee]
                found.append((fn, callee, chain))
            elif callee not in state:
                visit(callee)
        stack.pop()
        state[fn] = 2

    for fn in sorted(calls):
        if fn not in state:
            visit(fn)
    return found
