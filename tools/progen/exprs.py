"""Random expressions of a requested C type, free of undefined behaviour.

`int_expr` returns an integer expression and the type C gives it (mixing
types exercises the promotions and the usual arithmetic conversions);
`vec_expr` returns an expression of exactly the vector type asked for. Signed
operations that can overflow go through the safe wrappers (`safe.Safe`);
shift amounts are masked or checked; indices are masked into bounds.
Expressions have no side effects except calls of pure helpers.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable

from .safe import Safe
from .scope import Scope
from .floats import float_expr, int_from_float
from .types import (INT, INT_BY_NAME, INT_TYPES, VEC_SIZES, ArrayType, CType, FloatType, IntType,
                    PtrType, VecType, literal, promote, sizeof, uac)


@dataclass
class Helper:
    """A generated non-kernel function; `pure` ones may be called inside expressions."""

    name: str
    ret: CType | None
    params: list[CType]
    pure: bool


Leaf = Callable[[], tuple[str, IntType]]


def interesting(t: IntType, rng: random.Random) -> int:
    pick = rng.random()
    if pick < 0.3:
        return rng.choice([0, 1, 2, 7, t.hi, t.lo, t.hi - 1, t.lo + 1, -1 if t.signed else 1])
    if pick < 0.6:
        return rng.randint(-20 if t.signed else 0, 40)
    return rng.randint(t.lo, t.hi)


def vec_of(elem: IntType, n: int) -> VecType:
    return VecType(elem, n)


class ExprGen:
    def __init__(self, rng: random.Random, scope: Scope, safe: Safe, helpers: list[Helper],
                 ids: list[str], floats: bool = False, wide64: bool = True) -> None:
        self.rng, self.scope, self.safe, self.helpers, self.ids = rng, scope, safe, helpers, ids
        self.floats = floats
        self.wide64 = wide64  # False: no `WIDE_64` builtin on 64-bit lanes (`max` instead)

    # ---- small pieces ----
    def int_type(self) -> IntType:
        return self.rng.choice(INT_TYPES)

    def vec_type(self) -> VecType:
        return VecType(self.int_type(), self.rng.choice((2, 3, 4, 4, 8, 16)))

    def const(self, t: IntType) -> str:
        return literal(t, interesting(t, self.rng))

    def index(self, n: int) -> str:
        if self.rng.random() < 0.5 or n == 1:
            return str(self.rng.randrange(n))
        e, _ = self.int_expr(1)
        return f"(({e}) & {n - 1})"

    def read(self, pred: Callable[[CType], bool]) -> tuple[str, CType] | None:
        return self.scope.access(pred, False, self.index)

    # ---- integer scalars ----
    def int_expr(self, depth: int) -> tuple[str, IntType]:
        if depth <= 0 or self.rng.random() < 0.2:
            return self.int_leaf()
        kind = self.rng.choices(list(self._INT_FORMS), weights=[w for w, _ in self._INT_FORMS.values()])[0]
        return self._INT_FORMS[kind][1](self, depth - 1)

    def int_of(self, t: IntType, depth: int) -> str:
        e, et = self.int_expr(depth)
        return e if et == t else f"(({t.name})({e}))"

    def int_leaf(self) -> tuple[str, IntType]:
        r = self.rng.random()
        if r < 0.55:
            got = self.read(lambda t: isinstance(t, IntType))
            if got:
                return got[0], got[1]  # type: ignore[return-value]
        t = self.int_type()
        return self.const(t), t

    def _arith(self, depth: int) -> tuple[str, IntType]:
        (a, ta), (b, tb) = self.int_expr(depth), self.int_expr(depth)
        t, op = uac(ta, tb), self.rng.choice("+-*/%")
        # below 32 bits both sides promote to int, where only ushort * ushort can overflow
        ushorts = ta.bits == tb.bits == 16 and not ta.signed and not tb.signed
        if op in "+-*" and (not t.signed or (ta.bits < 32 and tb.bits < 32 and not (op == "*" and ushorts))):
            return f"({a} {op} {b})", t
        name = {"+": "add", "-": "sub", "*": "mul", "/": "div", "%": "mod"}[op]
        return f"{self.safe.use(name, t)}({a}, {b})", t

    def _bitwise(self, depth: int) -> tuple[str, IntType]:
        (a, ta), (b, tb) = self.int_expr(depth), self.int_expr(depth)
        return f"({a} {self.rng.choice('&|^')} {b})", uac(ta, tb)

    def _shift(self, depth: int) -> tuple[str, IntType]:
        (a, ta), (b, _) = self.int_expr(depth), self.int_expr(depth)
        pt, op = promote(ta), self.rng.choice(("<<", ">>"))
        if op == ">>" or not pt.signed:
            if self.rng.random() < 0.5:
                return f"({a} {op} (({b}) & {min(ta.bits, pt.bits) - 1}))", pt
            return f"({a} {op} {self.rng.randrange(min(ta.bits, pt.bits))})", pt
        return f"{self.safe.use('shl' if op == '<<' else 'shr', pt)}({a}, {b})", pt

    def _compare(self, depth: int) -> tuple[str, IntType]:
        (a, _), (b, _) = self.int_expr(depth), self.int_expr(depth)
        return f"({a} {self.rng.choice(['<', '<=', '>', '>=', '==', '!='])} {b})", INT

    def _logical(self, depth: int) -> tuple[str, IntType]:
        (a, _), (b, _) = self.int_expr(depth), self.int_expr(depth)
        if self.rng.random() < 0.2:
            return f"(!{a})", INT
        return f"({a} {self.rng.choice(['&&', '||'])} {b})", INT

    def _unary(self, depth: int) -> tuple[str, IntType]:
        a, ta = self.int_expr(depth)
        pt, op = promote(ta), self.rng.choice("-~+")
        if op == "-" and pt.signed and ta.bits >= 32:
            return f"{self.safe.use('neg', pt)}({a})", pt
        return f"({op}{a})", pt

    def _ternary(self, depth: int) -> tuple[str, IntType]:
        (c, _), (a, ta), (b, tb) = self.int_expr(depth), self.int_expr(depth), self.int_expr(depth)
        return f"({c} ? {a} : {b})", uac(ta, tb)

    def _cast(self, depth: int) -> tuple[str, IntType]:
        t = self.int_type()
        return f"(({t.name})({self.int_expr(depth)[0]}))", t

    def _comma(self, depth: int) -> tuple[str, IntType]:
        a, _ = self.int_expr(depth)
        b, tb = self.int_expr(depth)
        return f"({a}, {b})", tb

    def _component(self, depth: int) -> tuple[str, IntType]:
        vt = self.vec_type()
        return f"({self.vec_expr(vt, depth)}).s{self.rng.randrange(vt.n):x}", vt.elem

    def _float(self, depth: int) -> tuple[str, IntType]:
        return int_from_float(self, depth) if self.floats else self.int_leaf()

    def _call(self, depth: int) -> tuple[str, IntType]:
        fns = [h for h in self.helpers if h.pure and isinstance(h.ret, IntType)]
        if not fns:
            return self.int_leaf()
        h = self.rng.choice(fns)
        return f"{h.name}({', '.join(self.of_type(p, depth) for p in h.params)})", h.ret  # type: ignore[return-value]

    def _builtin(self, depth: int) -> tuple[str, IntType]:
        name, arity, ret = self.rng.choice(_SCALAR_BUILTINS)
        t = self.rng.choice([t for t in INT_TYPES if t.bits > 8 or name != "upsample"])
        if not self.wide64 and name in WIDE_64 and t.bits == 64:
            name, arity, ret = "max", 2, _SAME
        args = [self.int_of(t, depth) for _ in range(arity)]
        return self._builtin_call(name, args, t, lambda tt: self.int_of(tt, depth)), ret(t)

    def _builtin_call(self, name: str, args: list[str], t: IntType | VecType,
                      make: Callable[[IntType | VecType], str]) -> str:
        elem = t.elem if isinstance(t, VecType) else t
        if name == "clamp":
            return f"clamp({args[0]}, min({args[1]}, {args[2]}), max({args[1]}, {args[2]}))"
        if name == "upsample":
            half = INT_BY_NAME[{16: "char", 32: "short", 64: "int"}[elem.bits]]
            half = half if elem.signed else half.unsigned
            ht = VecType(half, t.n) if isinstance(t, VecType) else half
            lt = VecType(half.unsigned, t.n) if isinstance(t, VecType) else half.unsigned
            return f"upsample({make(ht)}, {make(lt)})"
        if name in ("select_s", "select_u"):
            ct = elem.signed_twin if name == "select_s" else elem.signed_twin.unsigned
            ct = VecType(ct, t.n) if isinstance(t, VecType) else ct
            return f"select({args[0]}, {args[1]}, {make(ct)})"
        if name in ("abs", "abs_diff") and elem.signed is False and self.rng.random() < 0.7:
            st = elem.signed_twin
            st = VecType(st, t.n) if isinstance(t, VecType) else st
            return f"{name}({', '.join(make(st) for _ in args)})"
        return f"{name}({', '.join(args)})"

    # ---- vectors ----
    def vec_expr(self, vt: VecType, depth: int) -> str:
        if depth <= 0 or self.rng.random() < 0.2:
            return self.vec_leaf(vt, depth)
        kind = self.rng.choices(list(self._VEC_FORMS), weights=[w for w, _ in self._VEC_FORMS.values()])[0]
        return self._VEC_FORMS[kind][1](self, vt, depth - 1)

    def vec_leaf(self, vt: VecType, depth: int) -> str:
        if self.rng.random() < 0.6:
            got = self.read(lambda t: t == vt)
            if got:
                return got[0]
        if self.rng.random() < 0.3:
            return f"(({vt.name})({self.int_of(vt.elem, min(depth, 1))}))"
        return f"(({vt.name})({', '.join(self.const(vt.elem) for _ in range(vt.n))}))"

    def _v_arith(self, vt: VecType, depth: int) -> str:
        a, b, op = self.vec_expr(vt, depth), self.vec_expr(vt, depth), self.rng.choice("+-*")
        if not vt.elem.signed:
            return f"({a} {op} {b})"
        u = VecType(vt.elem.unsigned, vt.n).name
        return f"as_{vt.name}(as_{u}({a}) {op} as_{u}({b}))"

    def _v_bitwise(self, vt: VecType, depth: int) -> str:
        a, b = self.vec_expr(vt, depth), self.vec_expr(vt, depth)
        if self.rng.random() < 0.15:
            return f"(~{a})"
        return f"({a} {self.rng.choice('&|^')} {b})"

    def _v_shift(self, vt: VecType, depth: int) -> str:
        a, b, op = self.vec_expr(vt, depth), self.vec_expr(vt, depth), self.rng.choice(("<<", ">>"))
        if self.rng.random() < 0.3:
            b = str(self.rng.randrange(vt.elem.bits))
        if op == "<<" and vt.elem.signed:
            u = VecType(vt.elem.unsigned, vt.n).name
            return f"as_{vt.name}(as_{u}({a}) << as_{u}({b}))" if not b.isdigit() else \
                f"as_{vt.name}(as_{u}({a}) << {b})"
        return f"({a} {op} {b})"

    def _v_div(self, vt: VecType, depth: int) -> str:
        a, b, op = self.vec_expr(vt, depth), self.vec_expr(vt, depth), self.rng.choice("/%")
        if vt.elem.signed:
            return f"({a} {op} (({b} & ({vt.name})(7)) + ({vt.name})(1)))"
        return f"({a} {op} ({b} | ({vt.name})(1)))"

    def _v_compare(self, vt: VecType, depth: int) -> str:
        src = VecType(self.rng.choice((vt.elem, vt.elem.unsigned if vt.elem.signed else vt.elem.signed_twin)), vt.n)
        a, b = self.vec_expr(src, depth), self.vec_expr(src, depth)
        op = self.rng.choice(["<", "<=", ">", ">=", "==", "!=", "&&", "||"])
        cmp = f"({a} {op} {b})"
        return cmp if vt.elem.signed else f"as_{vt.name}({cmp})"

    def _v_ternary(self, vt: VecType, depth: int) -> str:
        a, b = self.vec_expr(vt, depth), self.vec_expr(vt, depth)
        if self.rng.random() < 0.5:
            return f"({self.int_expr(depth)[0]} ? {a} : {b})"
        st = VecType(vt.elem.signed_twin, vt.n)
        m = f"({self.vec_expr(st, depth)} < {self.vec_expr(st, depth)})"
        return f"({m} ? {a} : {b})"

    def _v_builtin(self, vt: VecType, depth: int) -> str:
        name, arity, _ = self.rng.choice([b for b in _SCALAR_BUILTINS if b[0] != "upsample" or vt.elem.bits > 8])
        if not self.wide64 and name in WIDE_64 and vt.elem.bits == 64:
            name, arity = "max", 2
        if name in ("abs", "abs_diff") and vt.elem.signed:
            name = self.rng.choice(("min", "max"))
            arity = 2
        args = [self.vec_expr(vt, depth) for _ in range(arity)]
        return self._builtin_call(name, args, vt, lambda t: self.vec_expr(t, depth))  # type: ignore[arg-type]

    def _v_convert(self, vt: VecType, depth: int) -> str:
        src = VecType(self.int_type(), vt.n)
        sat = self.rng.choice(("", "", "_sat"))
        rnd = self.rng.choice(("", "", "", "_rte", "_rtz", "_rtp", "_rtn"))
        return f"convert_{vt.name}{sat}{rnd}({self.vec_expr(src, depth)})"

    def _v_as(self, vt: VecType, depth: int) -> str:
        if vt.n == 3:  # as_type of 3-vectors is ill-defined between implementations
            return self._v_convert(vt, depth)
        size = sizeof(vt)
        opts = [VecType(e, size // (e.bits // 8)) for e in INT_TYPES if size // (e.bits // 8) in VEC_SIZES]
        opts += [e for e in INT_TYPES if e.bits // 8 == size]
        src = self.rng.choice(opts)
        return f"as_{vt.name}({self.of_type(src, depth)})"

    def _v_swizzle(self, vt: VecType, depth: int) -> str:
        n2 = self.rng.choice([n for n in VEC_SIZES + (3,) if n >= vt.n // 2])
        src = self.vec_expr(VecType(vt.elem, n2), depth)
        r = self.rng.random()
        if n2 == 2 * vt.n and r < 0.5:
            return f"({src}).{self.rng.choice(('lo', 'hi', 'even', 'odd'))}"
        if n2 <= 4 and vt.n <= 4 and r < 0.7:
            return f"({src}).{''.join(self.rng.choice('xyzw'[:n2]) for _ in range(vt.n))}"
        return f"({src}).s{''.join(f'{self.rng.randrange(n2):x}' for _ in range(vt.n))}"

    def _v_literal(self, vt: VecType, depth: int) -> str:
        parts, left = [], vt.n
        while left:
            k = self.rng.choice([k for k in (1, 2, 3, 4, 8) if k <= left and (k < vt.n or k == 1)])
            parts.append(self.int_of(vt.elem, depth) if k == 1 else self.vec_expr(VecType(vt.elem, k), depth))
            left -= k
        return f"(({vt.name})({', '.join(parts)}))"

    def _v_vload(self, vt: VecType, depth: int) -> str:
        got = self.read(lambda t: _holds(t, vt))
        if got is None:
            return self.vec_leaf(vt, depth)
        text, t = got
        n = t.n if isinstance(t, ArrayType) else t.extent  # type: ignore[union-attr]
        return f"vload{vt.n}({self.rng.randrange(n // vt.n)}, {text})"

    def _v_call(self, vt: VecType, depth: int) -> str:
        fns = [h for h in self.helpers if h.pure and h.ret == vt]
        if not fns:
            return self.vec_leaf(vt, depth)
        h = self.rng.choice(fns)
        return f"{h.name}({', '.join(self.of_type(p, depth) for p in h.params)})"

    def of_type(self, t: CType, depth: int) -> str:
        if isinstance(t, FloatType):
            return float_expr(self, depth)
        if isinstance(t, IntType):
            return self.int_of(t, depth)
        if isinstance(t, VecType):
            return self.vec_expr(t, depth)
        got = self.read(lambda x: x == t)
        assert got is not None, f"no value of {t.name} in scope"
        return got[0]

    _INT_FORMS = {
        "arith": (6, _arith), "bitwise": (3, _bitwise), "shift": (2, _shift), "compare": (3, _compare),
        "logical": (2, _logical), "unary": (2, _unary), "ternary": (2, _ternary), "cast": (2, _cast),
        "comma": (0.5, _comma), "component": (2, _component), "call": (2, _call), "builtin": (4, _builtin),
        "float": (3, _float),
    }
    _VEC_FORMS = {
        "arith": (4, _v_arith), "bitwise": (2, _v_bitwise), "shift": (2, _v_shift), "div": (1, _v_div),
        "compare": (2, _v_compare), "ternary": (1, _v_ternary), "builtin": (4, _v_builtin),
        "convert": (2, _v_convert), "as": (1, _v_as), "swizzle": (2, _v_swizzle),
        "literal": (1, _v_literal), "call": (1, _v_call), "vload": (1, _v_vload),
    }


def _holds(t: CType, vt: VecType) -> bool:
    """An array or pointer of `vt`'s element type with room for one `vt`."""
    if isinstance(t, ArrayType):
        return t.elem == vt.elem and t.n >= vt.n
    return isinstance(t, PtrType) and t.elem == vt.elem and t.extent >= vt.n


_SAME = lambda t: t  # noqa: E731
# the builtins oclpy computes in integers wider than 64 bits on 64-bit lanes (i130: the simt device has none)
WIDE_64 = {"add_sat", "sub_sat", "hadd", "rhadd", "mul_hi", "mad_hi", "mad_sat"}
_UNS = lambda t: t.unsigned if isinstance(t, IntType) else t  # noqa: E731
# (builtin, arity, result type from the argument type) for scalar integers
_SCALAR_BUILTINS: list[tuple[str, int, Callable[[IntType], IntType]]] = [
    ("min", 2, _SAME), ("max", 2, _SAME), ("clamp", 3, _SAME), ("abs", 1, _UNS),
    ("abs_diff", 2, _UNS), ("add_sat", 2, _SAME), ("sub_sat", 2, _SAME), ("hadd", 2, _SAME),
    ("rhadd", 2, _SAME), ("mul_hi", 2, _SAME), ("mad_hi", 3, _SAME), ("mad_sat", 3, _SAME),
    ("rotate", 2, _SAME), ("popcount", 1, _SAME), ("clz", 1, _SAME), ("bitselect", 3, _SAME),
    ("select_s", 2, _SAME), ("select_u", 2, _SAME), ("upsample", 0, _SAME),
]
