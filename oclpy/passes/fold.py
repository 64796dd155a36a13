"""Local rewrites for `simplify`: constant folding and algebraic identities,
as a table of patterns keyed by opcode.

Each pattern takes one instruction and returns the value that replaces it, or
None. Patterns are only registered for pure opcodes, so the driver may delete
an instruction once it is replaced. Folding follows OpenCL C's rules:
integers wrap at their width; shift amounts are taken modulo the width;
signed division by zero and INT_MIN / -1 are left alone (undefined); floats
are folded in the type's own precision with numpy, and not when the result is
NaN; nothing is reassociated.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from oclpy.ir.types import FloatType, IntType, Type, VectorType
from oclpy.ir.values import (
    ConstAggregate, ConstFloat, ConstInt, ConstNull, ConstZero, Instr, Undef, Value,
)

Pattern = Callable[[Instr], "Value | None"]
PATTERNS: dict[str, list[Pattern]] = {}

_NP_FLOAT = {16: np.float16, 32: np.float32, 64: np.float64}


def pattern(*ops: str) -> Callable[[Pattern], Pattern]:
    """Register a rewrite for the given opcodes."""

    def add(fn: Pattern) -> Pattern:
        for op in ops:
            PATTERNS.setdefault(op, []).append(fn)
        return fn

    return add


def simplify_instr(instr: Instr) -> Value | None:
    """The first replacement any pattern offers for `instr`, or None."""
    for pat in PATTERNS.get(instr.op, ()):
        new = pat(instr)
        if new is not None and new is not instr:
            return new
    return None


# -- constants as lanes ------------------------------------------------------------

_CONSTANTS = (ConstZero, ConstInt, ConstFloat, ConstAggregate)


def lanes(v: Value) -> list | None:
    """The lane values of a constant int/float scalar or vector (ints as unsigned
    bit patterns), or None when `v` is not such a constant."""
    if not isinstance(v, _CONSTANTS):  # most operands: answered without looking at the type
        return None
    t = v.type
    scalar = t.scalar()
    if not isinstance(scalar, (IntType, FloatType)):
        return None
    count = t.count if isinstance(t, VectorType) else 1
    if isinstance(v, ConstZero):
        return [0 if isinstance(scalar, IntType) else 0.0] * count
    if isinstance(v, (ConstInt, ConstFloat)):
        return [v.value]
    if isinstance(v, ConstAggregate) and isinstance(t, VectorType):
        out = [lanes(e) for e in v.elements]
        if any(x is None or len(x) != 1 for x in out):
            return None
        return [x[0] for x in out]  # type: ignore[index]
    return None


def make_const(t: Type, values: list) -> Value:
    """A constant of type `t` from lane values."""
    scalar = t.scalar()
    cls = ConstInt if isinstance(scalar, IntType) else ConstFloat
    elems: list[Value] = [cls(scalar, v) for v in values]
    return elems[0] if not isinstance(t, VectorType) else ConstAggregate(t, elems)


def splat(v: Value) -> int | float | None:
    """The common lane value of a constant (scalar or uniform vector), else None."""
    ls = lanes(v)
    if ls and all(x == ls[0] for x in ls) and not _any_neg_zero_mismatch(ls):
        return ls[0]
    return None


def _any_neg_zero_mismatch(ls: list) -> bool:
    return isinstance(ls[0], float) and len({math.copysign(1.0, x) for x in ls}) > 1


def _bits(t: Type) -> int:
    return t.scalar().bits  # type: ignore[attr-defined]


def _signed(v: int, w: int) -> int:
    return v - (1 << w) if v >> (w - 1) else v


# -- integer and float binary operations ----------------------------------------------


def _sdiv(a: int, b: int, w: int) -> int | None:
    sa, sb = _signed(a, w), _signed(b, w)
    if sb == 0 or (sa == -(1 << (w - 1)) and sb == -1):
        return None
    q = abs(sa) // abs(sb)
    return q if (sa < 0) == (sb < 0) else -q


def _srem(a: int, b: int, w: int) -> int | None:
    q = _sdiv(a, b, w)
    return None if q is None else _signed(a, w) - _signed(b, w) * q


INT_FOLDS: dict[str, Callable[[int, int, int], "int | None"]] = {
    "add": lambda a, b, w: a + b,
    "sub": lambda a, b, w: a - b,
    "mul": lambda a, b, w: a * b,
    "and": lambda a, b, w: a & b,
    "or": lambda a, b, w: a | b,
    "xor": lambda a, b, w: a ^ b,
    "shl": lambda a, b, w: a << (b % w),
    "lshr": lambda a, b, w: a >> (b % w),
    "ashr": lambda a, b, w: _signed(a, w) >> (b % w),
    "udiv": lambda a, b, w: a // b if b else None,
    "urem": lambda a, b, w: a % b if b else None,
    "sdiv": _sdiv,
    "srem": _srem,
}

FLOAT_FOLDS: dict[str, Callable] = {
    "fadd": np.add, "fsub": np.subtract, "fmul": np.multiply, "fdiv": np.divide, "frem": np.fmod,
}


def _float_result(x: np.floating) -> float | None:
    return None if math.isnan(float(x)) else float(x)


@pattern(*INT_FOLDS, *FLOAT_FOLDS)
def fold_binary(instr: Instr) -> Value | None:
    a, b = (lanes(v) for v in instr.operands)
    if a is None or b is None:
        return None
    w = _bits(instr.type)
    out: list = []
    with np.errstate(all="ignore"):
        for x, y in zip(a, b):
            if instr.op in INT_FOLDS:
                r = INT_FOLDS[instr.op](x, y, w)
            else:
                dt = _NP_FLOAT[w]
                r = _float_result(FLOAT_FOLDS[instr.op](dt(x), dt(y)))
            if r is None:
                return None
            out.append(r)
    return make_const(instr.type, out)


@pattern("fneg")
def fold_fneg(instr: Instr) -> Value | None:
    a = lanes(instr.operands[0])
    if a is None or any(math.isnan(x) for x in a):
        return None
    return make_const(instr.type, [-x for x in a])


# -- comparisons --------------------------------------------------------------------

ICMP: dict[str, Callable[[int, int, int], bool]] = {
    "eq": lambda a, b, w: a == b,
    "ne": lambda a, b, w: a != b,
    "ult": lambda a, b, w: a < b,
    "ule": lambda a, b, w: a <= b,
    "ugt": lambda a, b, w: a > b,
    "uge": lambda a, b, w: a >= b,
    "slt": lambda a, b, w: _signed(a, w) < _signed(b, w),
    "sle": lambda a, b, w: _signed(a, w) <= _signed(b, w),
    "sgt": lambda a, b, w: _signed(a, w) > _signed(b, w),
    "sge": lambda a, b, w: _signed(a, w) >= _signed(b, w),
}

_FCMP_REL: dict[str, Callable[[float, float], bool]] = {
    "eq": lambda a, b: a == b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b,
    "lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "ne": lambda a, b: a != b,
}


def fcmp(pred: str, a: float, b: float) -> bool:
    """LLVM fcmp semantics: `o*` false on NaN, `u*` true on NaN."""
    unordered = math.isnan(a) or math.isnan(b)
    special = {"false": False, "true": True, "ord": not unordered, "uno": unordered}
    if pred in special:
        return special[pred]
    if unordered:
        return pred[0] == "u"
    return _FCMP_REL[pred[1:]](a, b)


# icmp x, x: the predicates that hold when both sides are equal.
_REFLEXIVE_TRUE = {"eq", "ule", "uge", "sle", "sge"}


@pattern("icmp", "fcmp")
def fold_compare(instr: Instr) -> Value | None:
    a_val, b_val = instr.operands
    pred = instr.attrs["pred"]
    if instr.op == "icmp" and a_val is b_val:
        return make_const(instr.type, [int(pred in _REFLEXIVE_TRUE)] * _count(instr.type))
    a, b = lanes(a_val), lanes(b_val)
    if a is None or b is None:
        return None
    if instr.op == "icmp":
        w = _bits(a_val.type)
        out = [int(ICMP[pred](x, y, w)) for x, y in zip(a, b)]
    else:
        out = [int(fcmp(pred, x, y)) for x, y in zip(a, b)]
    return make_const(instr.type, out)


def _count(t: Type) -> int:
    return t.count if isinstance(t, VectorType) else 1


# -- casts ----------------------------------------------------------------------------


def _to_float(x: float, w: int) -> float:
    return float(_NP_FLOAT[w](x))


def _int_to_float(x: int, w: int) -> float | None:
    # Python's int -> double is exact below 2**53; past that double rounding could differ.
    return _to_float(float(x), w) if abs(x) < (1 << 53) else None


def _float_to_int(x: float, w: int, signed: bool) -> int | None:
    if not math.isfinite(x):
        return None
    t = math.trunc(x)
    lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if signed else (0, (1 << w) - 1)
    return t if lo <= t <= hi else None  # out of range is undefined: leave it


def _bitcast(x: int | float, src: Type, dst: Type) -> int | float | None:
    if isinstance(src, IntType) and isinstance(dst, FloatType):
        return _signed_free_float(x, dst.bits)  # type: ignore[arg-type]
    if isinstance(src, FloatType) and isinstance(dst, IntType):
        return int(np.array(x, dtype=_NP_FLOAT[src.bits]).view(f"u{src.bits // 8}"))
    return None


def _signed_free_float(x: int, w: int) -> float | None:
    f = float(np.array(x, dtype=f"u{w // 8}").view(_NP_FLOAT[w]))
    return None if math.isnan(f) else f


# (value, source scalar type, destination scalar type) -> folded lane, or None
CAST_FOLDS: dict[str, Callable[[int | float, Type, Type], "int | float | None"]] = {
    "trunc": lambda x, s, d: x,  # make_const masks to the width
    "zext": lambda x, s, d: x,
    "sext": lambda x, s, d: _signed(x, s.bits),  # type: ignore[arg-type,attr-defined]
    "fptrunc": lambda x, s, d: _to_float(x, d.bits),  # type: ignore[attr-defined]
    "fpext": lambda x, s, d: _to_float(x, d.bits),  # type: ignore[attr-defined]
    "sitofp": lambda x, s, d: _int_to_float(_signed(x, s.bits), d.bits),  # type: ignore[arg-type,attr-defined]
    "uitofp": lambda x, s, d: _int_to_float(x, d.bits),  # type: ignore[arg-type,attr-defined]
    "fptosi": lambda x, s, d: _float_to_int(x, d.bits, True),  # type: ignore[attr-defined]
    "fptoui": lambda x, s, d: _float_to_int(x, d.bits, False),  # type: ignore[attr-defined]
    "bitcast": _bitcast,
}


@pattern(*CAST_FOLDS)
def fold_cast(instr: Instr) -> Value | None:
    src = instr.operands[0]
    a = lanes(src)
    if a is None or (instr.op == "bitcast" and (src.type.is_vector() or instr.type.is_vector())):
        return None
    with np.errstate(all="ignore"):
        out = [CAST_FOLDS[instr.op](x, src.type.scalar(), instr.type.scalar()) for x in a]
    if any(r is None or (isinstance(r, float) and math.isnan(r)) for r in out):
        return None
    return make_const(instr.type, out)


@pattern("addrspacecast")
def fold_addrspacecast(instr: Instr) -> Value | None:
    """A round trip `named -> generic -> the same named` is the original pointer;
    a cast of null or undef is null or undef in the new space (OpenCL keeps null null)."""
    src = instr.operands[0]
    if isinstance(src, (ConstNull, Undef)):
        return type(src)(instr.type)
    if isinstance(src, Instr) and src.op == "addrspacecast" and src.operands[0].type == instr.type:
        return src.operands[0]
    return None


# -- select, phi, vectors ------------------------------------------------------------


@pattern("select")
def fold_select(instr: Instr) -> Value | None:
    cond, a, b = instr.operands
    if a is b:
        return a
    c = lanes(cond)
    if c is None:
        return None
    if all(c) or not any(c):
        return a if c[0] else b
    la, lb = lanes(a), lanes(b)
    if la is None or lb is None:
        return None
    return make_const(instr.type, [x if k else y for k, x, y in zip(c, la, lb)])


@pattern("phi")
def fold_phi(instr: Instr) -> Value | None:
    """A phi whose incoming values are all one value (or itself) is that value."""
    others = {id(v): v for v in instr.operands if v is not instr}
    if len(others) == 1:
        return next(iter(others.values()))
    return None


@pattern("extractelement")
def fold_extractelement(instr: Instr) -> Value | None:
    vec, idx = instr.operands
    ls, i = lanes(vec), lanes(idx)
    if ls is None or i is None or i[0] >= len(ls):
        return None
    return make_const(instr.type, [ls[i[0]]])


# -- algebraic identities -------------------------------------------------------------


def _is_int(v: Value, n: int) -> bool:
    """`v` is an integer constant whose every lane is `n` (-1 means all ones)."""
    if not isinstance(v, _CONSTANTS) or not v.type.is_int_or_int_vector():
        return False
    s = splat(v)
    return s is not None and s == n & ((1 << _bits(v.type)) - 1)


def _is_float(v: Value, n: float) -> bool:
    s = splat(v)
    return (v.type.is_float_or_float_vector() and s is not None and s == n
            and math.copysign(1.0, s) == math.copysign(1.0, n))


def _const_like(v: Value, n: int) -> Value:
    return make_const(v.type, [n & ((1 << _bits(v.type)) - 1)] * _count(v.type))


def _right_or_left(instr: Instr, test: Callable[[Value], bool],
                   result: Callable[[Value, Value], Value]) -> Value | None:
    """For a commutative op: when one side passes `test`, result(other, that side)."""
    a, b = instr.operands
    if test(b):
        return result(a, b)
    if test(a):
        return result(b, a)
    return None


# op -> rewrites (commutative ones checked on both sides)
IDENTITIES: dict[str, list[Pattern]] = {
    "add": [lambda i: _right_or_left(i, lambda v: _is_int(v, 0), lambda x, c: x)],
    "sub": [lambda i: i.operands[0] if _is_int(i.operands[1], 0) else None,
            lambda i: _const_like(i, 0) if i.operands[0] is i.operands[1] else None],
    "mul": [lambda i: _right_or_left(i, lambda v: _is_int(v, 1), lambda x, c: x),
            lambda i: _right_or_left(i, lambda v: _is_int(v, 0), lambda x, c: c)],
    "and": [lambda i: _right_or_left(i, lambda v: _is_int(v, 0), lambda x, c: c),
            lambda i: _right_or_left(i, lambda v: _is_int(v, -1), lambda x, c: x),
            lambda i: i.operands[0] if i.operands[0] is i.operands[1] else None],
    "or": [lambda i: _right_or_left(i, lambda v: _is_int(v, 0), lambda x, c: x),
           lambda i: _right_or_left(i, lambda v: _is_int(v, -1), lambda x, c: c),
           lambda i: i.operands[0] if i.operands[0] is i.operands[1] else None],
    "xor": [lambda i: _right_or_left(i, lambda v: _is_int(v, 0), lambda x, c: x),
            lambda i: _const_like(i, 0) if i.operands[0] is i.operands[1] else None],
    "shl": [lambda i: i.operands[0] if _is_int(i.operands[1], 0) else None,
            lambda i: i.operands[0] if _is_int(i.operands[0], 0) else None],
    "udiv": [lambda i: i.operands[0] if _is_int(i.operands[1], 1) else None],
    "sdiv": [lambda i: i.operands[0] if _is_int(i.operands[1], 1) else None],
    "urem": [lambda i: _const_like(i, 0) if _is_int(i.operands[1], 1) else None],
    "srem": [lambda i: _const_like(i, 0) if _is_int(i.operands[1], 1) else None],
    # exact for every x, NaN and signed zeros included
    "fadd": [lambda i: _right_or_left(i, lambda v: _is_float(v, -0.0), lambda x, c: x)],
    "fsub": [lambda i: i.operands[0] if _is_float(i.operands[1], 0.0) else None],
    "fmul": [lambda i: _right_or_left(i, lambda v: _is_float(v, 1.0), lambda x, c: x)],
    "fdiv": [lambda i: i.operands[0] if _is_float(i.operands[1], 1.0) else None],
}
IDENTITIES["lshr"] = IDENTITIES["ashr"] = IDENTITIES["shl"]

for _op, _rewrites in IDENTITIES.items():
    PATTERNS.setdefault(_op, []).extend(_rewrites)
