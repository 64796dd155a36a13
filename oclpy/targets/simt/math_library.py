"""Which straight-line formula implements each OpenCL math builtin on simt.

`FORMULAS` maps a builtin's name to a function of (`Lanes`, operands as doubles)
returning a double, used for float (operands widened, the result rounded once)
and for double; `DOUBLE` overrides it for double results where the float
formula's kernel is accurate enough for float only (erf, erfc) or spans only
float's exponents (fmod, remainder, the trigonometric functions' reduction).
`isel_calls.math_element` reads both.
"""

from __future__ import annotations

from . import math_formulas as f
from . import math_gamma as g
from . import math_remainder as r
from .math_formulas import Formula

DOUBLE: dict[str, Formula] = {
    "erf": f.erf_d, "erfc": f.erfc_d, "fmod": r.fmod_of(64), "remainder": r.remainder_of(64),
    "sin": f.trig("sin", 64), "cos": f.trig("cos", 64), "tan": f.trig("tan", 64),
}

FORMULAS: dict[str, Formula] = {
    "exp": f.exp, "exp2": f.exp2, "exp10": f.exp10, "expm1": f.expm1,
    "log": f.log, "log2": f.log2, "log10": f.log10, "log1p": f.log1p,
    "pow": f.pow_, "powr": f.powr, "pown": f.pown, "rootn": f.rootn, "cbrt": f.cbrt, "hypot": f.hypot,
    "sin": f.trig("sin", 32), "cos": f.trig("cos", 32), "tan": f.trig("tan", 32),
    "sinpi": f.trigpi("sinpi"), "cospi": f.trigpi("cospi"), "tanpi": f.trigpi("tanpi"),
    "asin": f.asin, "acos": f.acos, "atan": f.atan, "atan2": f.atan2,
    "asinpi": f.over_pi(f.asin), "acospi": f.over_pi(f.acos), "atanpi": f.over_pi(f.atan),
    "atan2pi": f.over_pi(f.atan2),
    "sinh": f.sinh, "cosh": f.cosh, "tanh": f.tanh, "asinh": f.asinh, "acosh": f.acosh, "atanh": f.atanh,
    "erf": f.erf, "erfc": f.erfc, "tgamma": g.tgamma, "lgamma": g.lgamma,
    "fmod": r.fmod_of(32), "remainder": r.remainder_of(32), "round": f.round_,
    "fdim": f.fdim, "logb": f.logb, "copysign": f.copysign, "rsqrt": f.rsqrt,
}
