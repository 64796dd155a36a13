"""Float expressions for the float mode: exactly rounded operations only.

OpenCL lets most float builtins be a few ulp off, so two correct
implementations may differ; these may not: + - * (with FP_CONTRACT OFF, so
nothing fuses), fma, fabs, floor, ceil, trunc, rint, round, copysign,
conversions from integers (round to nearest even) and to integers with
`_sat` (NaN gives 0), comparisons and classification. No division or sqrt
(2.5 and 3 ulp allowed), no fmin/fmax (either zero may come back), and the
hash folds every NaN to one pattern.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from .types import FLOAT, INT, INT_BY_NAME, FloatType, IntType

if TYPE_CHECKING:
    from .exprs import ExprGen

LITERALS = ["0.0f", "-0.0f", "1.0f", "-1.0f", "0.5f", "-0.25f", "3.0f", "0x1.8p3f", "1e10f",
            "0.1f", "1e-3f", "3.4028234e38f", "-2.5f", "16777217.0f", "100.75f", "0x1.fffffep+127f"]
UNARY = ["fabs", "floor", "ceil", "trunc", "rint", "round", "-"]
TO_INT = ["int", "uint", "char", "uchar", "short", "ushort", "long", "ulong"]
ROUNDING = ["", "_rte", "_rtz", "_rtp", "_rtn"]


def float_expr(eg: "ExprGen", depth: int) -> str:
    rng: random.Random = eg.rng
    if depth <= 0 or rng.random() < 0.25:
        r = rng.random()
        if r < 0.5:
            got = eg.read(lambda t: isinstance(t, FloatType))
            if got:
                return got[0]
        if r < 0.75:
            return rng.choice(LITERALS)
        return f"convert_float({eg.int_expr(1)[0]})"
    form = rng.randrange(6)
    a = float_expr(eg, depth - 1)
    if form <= 1:
        return f"({a} {rng.choice('+-*')} {float_expr(eg, depth - 1)})"
    if form == 2:
        return f"fma({a}, {float_expr(eg, depth - 1)}, {float_expr(eg, depth - 1)})"
    if form == 3:
        fn = rng.choice(UNARY)
        return f"(-({a}))" if fn == "-" else f"{fn}({a})"
    if form == 4:
        return f"({eg.int_expr(depth - 1)[0]} ? {a} : {float_expr(eg, depth - 1)})"
    return f"copysign({a}, {float_expr(eg, depth - 1)})"


def int_from_float(eg: "ExprGen", depth: int) -> tuple[str, IntType]:
    rng = eg.rng
    a = float_expr(eg, depth)
    form = rng.randrange(4)
    if form == 0:
        name = rng.choice(TO_INT)
        return f"convert_{name}_sat{rng.choice(ROUNDING)}({a})", INT_BY_NAME[name]
    if form == 1:
        op = rng.choice(["<", "<=", ">", ">=", "==", "!="])
        return f"({a} {op} {float_expr(eg, depth)})", INT
    if form == 2:
        return f"{rng.choice(['isnan', 'isinf', 'isfinite', 'signbit', 'isnormal'])}({a})", INT
    return f"(isnan({a}) ? 0x7fc00000u : as_uint({a}))", INT_BY_NAME["uint"]


__all__ = ["FLOAT", "float_expr", "int_from_float"]
