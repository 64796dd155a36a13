"""The GNU/clang builtins that OpenCL C code written for clang-based compilers uses:

    long __builtin_expect(long exp, long c)                       the value of `exp`
    long __builtin_expect_with_probability(long exp, long c, double p)
    void __builtin_assume(bool cond)     a promise; `cond` is not evaluated
    void __builtin_unreachable(void)     control never gets here

A hint changes no result, so `__builtin_expect` lowers to its first argument
and `__builtin_assume` to nothing (its argument is not evaluated, as in
clang); `__builtin_unreachable` ends the block with `unreachable`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable, Optional

from ....diagnostics import DiagnosticEngine
from ....ir.values import Undef, Value
from ....ir import types as ir
from .. import ast
from .. import c_types as ct
from .table import Builtin
from ..ast import start_loc

# Builtins whose arguments are type-checked but never evaluated.
UNEVALUATED_IMPLS = frozenset(["gnu_assume"])


@lru_cache(maxsize=1)
def _table() -> dict[str, list[Builtin]]:
    expect = Builtin("__builtin_expect", ct.LONG, (ct.LONG, ct.LONG), "gnu_expect")
    with_p = Builtin("__builtin_expect_with_probability", ct.LONG, (ct.LONG, ct.LONG, ct.DOUBLE), "gnu_expect")
    return {
        "__builtin_expect": [expect],
        "__builtin_expect_with_probability": [with_p],
        "__builtin_assume": [Builtin("__builtin_assume", ct.VOID, (ct.BOOL,), "gnu_assume")],
        "__builtin_unreachable": [Builtin("__builtin_unreachable", ct.VOID, (), "gnu_unreachable")],
    }


GNU_BUILTINS = frozenset(_table())


def gnu_overloads(name: str) -> list[Builtin]:
    """The GNU builtin `name` (empty for other names)."""
    return _table().get(name, [])


def has_side_effects(e: object) -> bool:
    """Does evaluating `e` change state (assignment, ++/--, a call of a user function)?"""
    if isinstance(e, (ast.Assign, ast.StmtExpr)):
        return True
    if isinstance(e, ast.Unary) and e.op[:2] in ("++", "--"):
        return True
    if isinstance(e, ast.Call) and e.builtin is None:
        return True
    if not isinstance(e, ast.Expr):
        return False
    return any(has_side_effects(v) or isinstance(v, list) and any(has_side_effects(x) for x in v)
               for v in vars(e).values())


def check_assume(e: ast.Call, diags: DiagnosticEngine) -> None:
    """Clang's warning: `__builtin_assume`'s argument is not evaluated."""
    if e.args and has_side_effects(e.args[0]):
        diags.warning(start_loc(e.args[0]), "the argument to '__builtin_assume' has side effects that will be "
                      "discarded")


def is_unreachable_call(e: Optional[ast.Expr]) -> bool:
    """Is `e` a call to `__builtin_unreachable` (a statement control never leaves)?"""
    return isinstance(e, ast.Call) and isinstance(e.callee, ast.Identifier) and \
        e.callee.name == "__builtin_unreachable"


def b_expect(self: Any, sig: Builtin, args: list[Value], e: ast.Call) -> Value:
    return args[0]


def b_assume(self: Any, sig: Builtin, args: list[Value], e: ast.Call) -> Value:
    return Undef(ir.VOID)


def b_unreachable(self: Any, sig: Builtin, args: list[Value], e: ast.Call) -> Value:
    self.b.unreachable()
    self.after_terminator()
    return Undef(ir.VOID)


GNU_IMPLS: dict[str, Callable[..., Optional[Value]]] = {
    "gnu_expect": b_expect, "gnu_assume": b_assume, "gnu_unreachable": b_unreachable,
}
