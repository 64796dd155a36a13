"""Constant folding of typed expressions: integer constant expressions (case
labels, enum values) and the scalar initializers of program-scope constants.

`fold(e)` returns a Python int or float for a constant expression of scalar
type, None otherwise; integer results wrap to their C type's width.
"""

from __future__ import annotations

import math
import operator
import struct
from typing import Callable, Optional, Union

from ....ir.types import AddressSpace
from .. import ast
from .. import c_types as ct
from .. import type_rules as st
from ..opaque_types import is_sampler

Number = Union[int, float]


def wrap(value: int, t: Optional[ct.CType]) -> int:
    k = st.scalar_kind(t) if t is not None else None
    if k is None or k.is_float:
        return value
    if k is ct.ScalarKind.BOOL:
        return int(value != 0)
    bits = k.size * 8
    value &= (1 << bits) - 1
    if k.signed and value >> (bits - 1):
        value -= 1 << bits
    return value


def round_float(value: float, bits: int) -> float:
    """`value` rounded to the nearest float of `bits` bits (what a C constant of that type holds)."""
    if bits == 64:
        return float(value)
    fmt = "<f" if bits == 32 else "<e"
    try:
        return struct.unpack(fmt, struct.pack(fmt, value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)


def _div(a: Number, b: Number) -> Optional[Number]:
    if isinstance(a, float) or isinstance(b, float):
        return a / b if b != 0 else (math.copysign(math.inf, a) if a else math.nan)
    if b == 0:
        return None
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _mod(a: Number, b: Number) -> Optional[Number]:
    if isinstance(a, float) or isinstance(b, float) or b == 0:
        return None
    return a - b * _div(a, b)  # type: ignore[operator]


_BINARY: dict[str, Callable[[Number, Number], Optional[Number]]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": _div, "%": _mod,
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,  # type: ignore[operator]
    "<<": lambda a, b: a << (b & 63), ">>": lambda a, b: a >> (b & 63),  # type: ignore[operator]
    "<": lambda a, b: int(a < b), ">": lambda a, b: int(a > b), "<=": lambda a, b: int(a <= b),
    ">=": lambda a, b: int(a >= b), "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b),
    "&&": lambda a, b: int(bool(a) and bool(b)), "||": lambda a, b: int(bool(a) or bool(b)),
}

_UNARY: dict[str, Callable[[Number], Number]] = {
    "-": operator.neg, "+": operator.pos, "~": lambda a: ~a, "!": lambda a: int(not a),  # type: ignore[operator]
}


def fold(e: ast.Expr) -> Optional[Number]:
    """The value of a scalar constant expression, or None."""
    t = e.ctype
    if st.is_vector(t) if t is not None else False:
        return None
    handler = _FOLDERS.get(type(e))
    v = handler(e) if handler is not None else None
    if v is None:
        return None
    if t is not None and st.is_floating(t):
        return round_float(float(v), st.scalar_kind(t).size * 8)  # type: ignore[union-attr]
    if t is not None and st.is_integer(t):
        return wrap(int(v), t)
    return v


def fold_int(e: ast.Expr) -> Optional[int]:
    v = fold(e)
    return v if isinstance(v, int) and st.is_integer(e.ctype or st.ERROR) else None


def _identifier(e: ast.Identifier) -> Optional[Number]:
    """An enum constant; or, as clang folds them, a const (or `constant`) scalar variable
    with a constant initializer (`constant int n = 4;` then `int a[n]`, `case n:`)."""
    d = e.decl
    if isinstance(d, ast.EnumConstant):
        return d.value
    if isinstance(d, ast.VarDecl) and d.init is not None and isinstance(d.ctype, ct.Scalar) and \
            not d.ctype.volatile and (d.ctype.const or d.ctype.space is AddressSpace.CONSTANT):
        return fold(d.init)
    return None


def _unary(e: ast.Unary) -> Optional[Number]:
    fn = _UNARY.get(e.op)
    v = fold(e.operand) if fn is not None else None
    return fn(v) if v is not None and fn is not None else None


def _binary(e: ast.Binary) -> Optional[Number]:
    if e.op == ",":  # `((void)0, 0)`: clang folds it (a GNU extension in an initializer)
        return fold(e.rhs) if _discarded_constant(e.lhs) else None
    fn = _BINARY.get(e.op)
    a, b = fold(e.lhs), fold(e.rhs)
    if fn is None or a is None or b is None:
        return None
    if e.op in (">>", "<<") and isinstance(a, int):
        bits = (st.scalar_kind(e.lhs.ctype).size * 8) if e.lhs.ctype is not None else 32  # type: ignore[union-attr]
        b = int(b) % bits
    if e.op in ("<", ">", "<=", ">=") and e.lhs.ctype is not None and st.is_integer(e.lhs.ctype):
        a, b = wrap(int(a), e.lhs.ctype), wrap(int(b), e.rhs.ctype)
    return fn(a, b)


def _discarded_constant(e: ast.Expr) -> bool:
    """Whether a comma's left operand is a constant, or a constant cast to void (`(void)0`)."""
    if isinstance(e, ast.Cast) and st.is_void(e.to):
        return _discarded_constant(e.operand)
    return fold(e) is not None


def _conditional(e: ast.Conditional) -> Optional[Number]:
    c = fold(e.cond)
    if c is None:
        return None
    return fold(e.then) if c else fold(e.else_)


def _cast(e: Union[ast.Cast, ast.ImplicitCast]) -> Optional[Number]:
    if isinstance(e, ast.ImplicitCast) and e.kind == "lvalue-to-rvalue" and isinstance(e.operand, ast.Identifier):
        return _identifier(e.operand)  # a const variable's value
    if isinstance(e, ast.ImplicitCast) and e.kind in ("lvalue-to-rvalue", "array-decay", "splat"):
        return None
    v = fold(e.operand)
    if v is not None and is_sampler(e.ctype):  # a sampler constant: its bits, a uint
        return wrap(int(v), ct.UINT)
    if v is None or e.ctype is None or not st.is_arith(e.ctype):
        return None
    if st.is_integer(e.ctype) and isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            return None
        return int(v)
    if st.scalar_kind(e.ctype) is ct.ScalarKind.BOOL:
        return int(v != 0)
    return v


def _sizeof(e: ast.SizeOf) -> Optional[Number]:
    return e.value  # computed by sema (casts.check_sizeof) under the target's DataLayout


def _call(e: ast.Call) -> Optional[Number]:
    """`__builtin_inff()` and `__builtin_huge_val()` (INFINITY, HUGE_VALF): constants, as in clang.
    (`__builtin_nanf` is not folded: clang's NAN is `as_float(INT_MAX)`, no constant expression.)"""
    return math.inf if e.builtin is not None and e.builtin.impl == "const_inf" else None


_FOLDERS: dict[type, Callable[..., Optional[Number]]] = {
    ast.IntLiteral: lambda e: e.value, ast.FloatLiteral: lambda e: e.value,
    ast.Identifier: _identifier, ast.Unary: _unary, ast.Binary: _binary,
    ast.Conditional: _conditional, ast.Cast: _cast, ast.ImplicitCast: _cast,
    ast.SizeOf: _sizeof, ast.Call: _call,
}
