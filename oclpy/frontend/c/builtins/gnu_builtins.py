"""The GNU/clang builtins that OpenCL C code written for clang-based compilers uses:

    long __builtin_expect(long exp, long c)                       the value of `exp`
    long __builtin_expect_with_probability(long exp, long c, double p)
    void __builtin_assume(bool cond)     a promise; `cond` is not evaluated
    void __builtin_unreachable(void)     control never gets here
    void *__builtin_memcpy(void *dst, const void *src, size_t n)  (any address spaces)
    void *__builtin_memset(void *dst, int c, size_t n)           (any writable space)

A hint changes no result, so `__builtin_expect` lowers to its first argument
and `__builtin_assume` to nothing (its argument is not evaluated, as in
clang); `__builtin_unreachable` ends the block with `unreachable`;
`__builtin_memcpy` copies byte by byte in a loop and returns `dst` (clang accepts
pointers into any address space for it, a constant source included);
`__builtin_memset` stores `(unsigned char)c` the same way.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable, Optional

from ....diagnostics import DiagnosticEngine
from ....ir.builder import add_incomings
from ....ir.types import AddressSpace
from ....ir.values import ConstInt, Undef, Value
from ....ir import types as ir
from .. import ast
from .. import c_types as ct
from ..c_types import CType
from .table import Builtin
from ..ast import start_loc
from .builtin_context import BuiltinContext, BuiltinImpl

# Builtins whose arguments are type-checked but never evaluated.
UNEVALUATED_IMPLS = frozenset(["gnu_assume"])


@lru_cache(maxsize=1)
def _table() -> dict[str, list[Builtin]]:
    expect = Builtin("__builtin_expect", ct.LONG, (ct.LONG, ct.LONG), "gnu_expect")
    with_p = Builtin("__builtin_expect_with_probability", ct.LONG, (ct.LONG, ct.LONG, ct.DOUBLE), "gnu_expect")
    memcpy = [Builtin("__builtin_memcpy", _void_pointer(dst, False), (_void_pointer(dst, False),
                      _void_pointer(src, True), ct.SIZE_T), "gnu_memcpy")
              for dst in _WRITABLE for src in _WRITABLE + (AddressSpace.CONSTANT,)]
    memset = [Builtin("__builtin_memset", _void_pointer(dst, False), (_void_pointer(dst, False), ct.INT,
                                                                     ct.SIZE_T), "gnu_memset")
              for dst in _WRITABLE]
    return {
        "__builtin_memcpy": memcpy,
        "__builtin_memset": memset,
        "__builtin_expect": [expect],
        "__builtin_expect_with_probability": [with_p],
        "__builtin_assume": [Builtin("__builtin_assume", ct.VOID, (ct.BOOL,), "gnu_assume")],
        "__builtin_unreachable": [Builtin("__builtin_unreachable", ct.VOID, (), "gnu_unreachable")],
    }


_WRITABLE = (AddressSpace.GLOBAL, AddressSpace.LOCAL, AddressSpace.PRIVATE, AddressSpace.GENERIC)


def _void_pointer(space: AddressSpace, const: bool) -> CType:
    return ct.Pointer(ct.Void(const=const, space=space))


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


def b_expect(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    return args[0]


def b_assume(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    return Undef(ir.VOID)


def b_unreachable(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    cx.b.unreachable()
    cx.after_terminator()
    return Undef(ir.VOID)


def b_memcpy(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    """for (i = 0; i < n; i++) dst[i] = src[i] (bytes); the value is dst."""
    dst, src, n = args
    return _byte_loop(cx, "memcpy", dst, n, lambda i: cx.b.load(ir.I8, cx.b.gep(ir.I8, src, [i]), 1))


def b_memset(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    """for (i = 0; i < n; i++) dst[i] = (unsigned char)c; the value is dst."""
    dst, c, n = args
    byte = cx.b.cast("trunc", c, ir.I8)
    return _byte_loop(cx, "memset", dst, n, lambda i: byte)


def _byte_loop(cx: BuiltinContext, name: str, dst: Value, n: Value, byte_at: Callable[[Value], Value]) -> Value:
    """for (i = 0; i < n; i++) dst[i] = byte_at(i); the value is dst."""
    entry = cx.b.block
    head, body, done = cx.new_block(f"{name}.head"), cx.new_block(f"{name}.body"), cx.new_block(f"{name}.done")
    cx.b.br(head)
    cx.b.position_at_end(head)
    i = cx.b.phi(ir.I64)
    cx.b.condbr(cx.b.icmp("ult", i, n), body, done)
    cx.b.position_at_end(body)
    cx.b.store(byte_at(i), cx.b.gep(ir.I8, dst, [i]), 1)
    step = cx.b.binop("add", i, ConstInt(ir.I64, 1))
    cx.b.br(head)
    add_incomings(i, [(ConstInt(ir.I64, 0), entry), (step, body)])  # type: ignore[list-item]
    cx.b.position_at_end(done)
    return dst


GNU_IMPLS: dict[str, BuiltinImpl] = {
    "gnu_expect": b_expect, "gnu_assume": b_assume, "gnu_unreachable": b_unreachable, "gnu_memcpy": b_memcpy,
    "gnu_memset": b_memset,
}
