"""Float builtins of the vectorisable math library computed in float itself.

`single.py` computes every float builtin in double and rounds once: within one
ulp, but a vector register holds half as many doubles as floats, so a widened
work-item loop of `exp` (BEMAP's Monte Carlo and Black-Scholes, GEGL's
bilateral filter) runs at half the width Intel's runtime uses. The builtins
here work on float lanes throughout and return float (`FLOAT_NATIVE`, which
`library._define_body` prefers to `single.FLOAT`).

exp: x = q ln2 + s with q = rint(x / ln2) and s by a two-part Cody-Waite
reduction (`LN2_HI` has 15 significant bits, so q * LN2_HI is exact for
|q| <= 256); e^s on [-ln2/2, ln2/2] by SLEEF's degree-7 polynomial
(`1 + s + s^2 P(s)`, max 1.0 ulp there with FMA); then 2^q applied as two
exact powers of two so subnormal results round once. Operands below -104
give +0, above 88.7228394 +inf, NaN stays NaN (OpenCL's bound: 3 ulp).
"""

from __future__ import annotations

from typing import Callable

from llvmlite import ir as ll

from .lane_ops import F32, I32, Ops

Args = list[ll.Value]

LOG2E = 1.44269504088896341
LN2_HI = 0.693145751953125  # 0x3f317200: the top 15 bits of ln 2
LN2_LO = 1.428606765330187045e-06
# e^s = 1 + s + s^2 (c0 + c1 s + ... + c5 s^5) on [-ln2/2, ln2/2] (SLEEF's expf_u10)
EXP_POLY = (0.5, 0.166666671633720397949219, 0.0416664853692054748535156,
            0.00833336077630519866943359, 0.00139304355252534151077271,
            0.000198527617612853646278381)
EXP_UNDERFLOW = -104.0  # below: +0 (e^-104 is under half the least subnormal)
EXP_OVERFLOW = 88.72283935546875  # above: +inf (the largest x with e^x < FLT_MAX rounds below)


def _f(o: Ops, value: float) -> ll.Constant:
    return o.const(F32, value)


def _pow2(o: Ops, e: ll.Value) -> ll.Value:
    """2^e as a float for integer lanes e in [-126, 127]."""
    return o.from_bits(o.b.shl(o.b.add(e, o.i32(127)), o.i32(23)), F32)


def exp(o: Ops, x: ll.Value) -> ll.Value:
    """e^x in float (see the module docstring)."""
    b = o.b
    xc = o.sel(o.lt(x, _f(o, EXP_UNDERFLOW)), _f(o, EXP_UNDERFLOW), x)
    xc = o.sel(o.gt(xc, _f(o, EXP_OVERFLOW)), _f(o, EXP_OVERFLOW), xc)  # NaN stays
    q = o.rint(o.mul(xc, _f(o, LOG2E)))
    s = o.mad(q, _f(o, -LN2_HI), xc)
    s = o.mad(q, _f(o, -LN2_LO), s)
    u: ll.Value = _f(o, EXP_POLY[-1])
    for c in reversed(EXP_POLY[:-1]):
        u = o.mad(u, s, _f(o, c))
    u = o.add(o.mad(o.mul(s, s), u, s), _f(o, 1.0))
    qi = b.fptosi(o.sel(o.isnan(q), _f(o, 0.0), q), o.ty(I32))  # in [-150, 128]
    half = b.ashr(qi, o.i32(1))
    r = o.mul(o.mul(u, _pow2(o, half)), _pow2(o, b.sub(qi, half)))
    r = o.sel(o.lt(x, _f(o, EXP_UNDERFLOW)), _f(o, 0.0), r)
    r = o.sel(o.gt(x, _f(o, EXP_OVERFLOW)), _f(o, float("inf")), r)
    return o.sel(o.isnan(x), x, r)


FLOAT_NATIVE: dict[str, Callable[[Ops, Args], ll.Value]] = {
    "exp": lambda o, a: exp(o, a[0]),
}
