"""fmod and remainder, exact for every pair of operands, as straight-line double formulas.

**fmod** reduces |x| by |y| in steps, each one exact (the approach of long division,
51 quotient bits a step instead of one): with r the remainder so far, the divisor of
a step is Y = |y| 2^s, s = max(e(r) - e(y) - 51, 0) (biased exponent fields; y's
normalised when subnormal), so that the quotient r / Y is below 2^52. q =
trunc(fl(r / Y)) is the true quotient or one more (rounding is monotone and the
true floor is representable), so r - q Y lies in (-Y, Y): a multiple of Y's last
place below Y in magnitude, which the fused multiply-add computes exactly, and a
negative one is mended by adding Y (exact again). Each step lowers r's exponent by
at least 51 until s = 0, where one step leaves r < |y|. `STEPS` is how many steps the
widest exponent gap needs: a double's 2046 - (-51), a widened float's 1150 - 874.

**remainder** is fdlibm's method on top: r = |fmod(x, 2y)| < 2|y|, then |y| is taken
off once when 2r > |y| and once more when, after that, 2r >= |y| still; the
quotient's parity that fmod by 2y kept breaks ties to even. Every subtraction is
exact (Sterbenz), so both are correctly rounded: exact.

C99's specials: a NaN operand, x infinite or y zero give NaN; y infinite gives x.
"""

from __future__ import annotations

from typing import Callable

from .math_formulas import INF, NAN
from .math_lanes import Lanes
from .machine import Operand

STEPS = {32: 6, 64: 42}  # steps of 51 bits across the widest exponent gap (+1 for s = 0)
Fn = Callable[..., Operand]


def reduce(o: Lanes, ax, ay, steps: int):  # type: ignore[no-untyped-def]
    """|x| mod |y| for finite ax >= 0 and finite ay > 0, by `steps` exact steps."""
    tiny = o.lt(ay, 2.0 ** -1022)
    normal_field = o.exponent_field(ay)
    scaled_field = o.op("v_sub_u32", 32, o.exponent_field(o.mul(ay, 2.0 ** 54)), 54)
    limit = o.op("v_add_u32", 32, o.sel(tiny, scaled_field, normal_field, 32), 51)
    r = ax
    for _ in range(steps):
        s = o.op("v_max_i32", 32, o.op("v_sub_u32", 32, o.exponent_field(r), limit), 0)
        big = o.ldexp(ay, s)
        q = o.trunc(o.div(r, big))
        r = o.fma(o.neg(q), big, r)
        r = o.sel(o.lt(r, 0.0), o.add(r, big), r)
    return r


def specials(o: Lanes, x, y, v):  # type: ignore[no-untyped-def]
    """C99's results for y infinite (x), and NaN for x infinite, y zero or a NaN operand."""
    v = o.sel(o.eq(o.fabs(y), INF), x, v)
    bad = o.sel(o.eq(y, 0.0), 1, o.sel(o.eq(o.fabs(x), INF), 1, 0, 32), 32)
    v = o.sel(o.cmp("ne", bad, 0, "i32"), NAN, v)
    return o.sel(o.isnan(x), x, o.sel(o.isnan(y), y, v))


def safe(o: Lanes, x, y):  # type: ignore[no-untyped-def]
    """(|x|, |y|) with the special operands replaced by 0 and 1 (their lanes are `specials`')."""
    ax, ay = o.fabs(x), o.fabs(y)
    ax = o.sel(o.eq(ax, INF), 0.0, o.sel(o.isnan(ax), 0.0, ax))
    ay = o.sel(o.eq(ay, INF), 1.0, o.sel(o.isnan(ay), 1.0, o.sel(o.eq(ay, 0.0), 1.0, ay)))
    return ax, ay


def fmod_of(bits: int) -> Fn:
    """fmod for results of `bits` (operands widened to double when 32)."""
    def fmod(o: Lanes, x, y):  # type: ignore[no-untyped-def]
        ax, ay = safe(o, x, y)
        return specials(o, x, y, o.copysign(reduce(o, ax, ay, STEPS[bits]), x))
    return fmod


def remainder_of(bits: int) -> Fn:
    """remainder for results of `bits`."""
    def remainder(o: Lanes, x, y):  # type: ignore[no-untyped-def]
        ax, ay = safe(o, x, y)
        two = o.add(ay, ay)  # infinite past the range: then r = |x| < 2|y| already
        r = o.sel(o.eq(two, INF), ax, reduce(o, ax, o.sel(o.eq(two, INF), 1.0, two), STEPS[bits]))
        first = o.gt(o.add(r, r), ay)
        r = o.sel(first, o.sub(r, ay), r)
        second = o.sel(first, o.sel(o.ge(o.add(r, r), ay), 1, 0, 32), 0, 32)
        r = o.sel(o.cmp("ne", second, 0, "i32"), o.sub(r, ay), r)
        return specials(o, x, y, o.sel(o.signbit(x), o.neg(r), r))
    return remainder
