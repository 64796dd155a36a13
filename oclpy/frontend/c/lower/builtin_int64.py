"""The integer builtins of 64-bit lanes in 64-bit arithmetic: `add_sat`, `sub_sat`, `hadd`,
`rhadd`, `mul_hi`, `mad_hi`, `mad_sat`, and `convert_<T>_sat` where either side is 64-bit.

Narrower lanes compute these exactly in a wider C integer (`builtin_calls.wide_bits`);
a 64-bit lane would need 66 or 130 bits, a width that not every target's registers
hold (simt keeps integers of 1 to 64 bits). So they are written with 64-bit
operations only, as hardware libraries do:

- `add_sat`/`sub_sat`: the wrapped result, and overflow from the operands' and the
  result's signs (`((x ^ r) & (y ^ r)) < 0` for a sum), or an unsigned carry/borrow;
- `hadd`/`rhadd`: `(x >> 1) + (y >> 1) + ((x & y) & 1)` (`x | y` for rhadd);
- `mul_hi`: the high word of the 128-bit product from four 32 x 32 -> 64 products
  (unsigned), corrected by `x < 0 ? y : 0` and `y < 0 ? x : 0` when signed;
- `mad_sat`: the 128-bit `x * y + z` as (high, low) words, then clamped;
- `convert_<T>_sat`: compares in 64 bits, unsigned where the value is known not to be
  negative.

Every function takes the builder and IR values of one type (scalars or vectors: the
operations are elementwise) and returns a value of that type.
"""

from __future__ import annotations

from ....ir import types as ir
from ....ir.builder import Builder
from ....ir.values import Value
from .helpers import const_of

U64_MAX = (1 << 64) - 1
I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1


def _c(v: Value, n: int) -> Value:
    return const_of(v.type, n)


def _limit(b: Builder, x: Value, negative: Value) -> Value:
    """The signed limit on the side of the overflow: MIN where `negative`, else MAX."""
    return b.select(negative, _c(x, I64_MIN), _c(x, I64_MAX))


def add_sat(b: Builder, x: Value, y: Value, unsigned: bool) -> Value:
    r = b.binop("add", x, y)
    if unsigned:
        return b.select(b.icmp("ult", r, x), _c(x, U64_MAX), r)
    signs = b.binop("and", b.binop("xor", x, r), b.binop("xor", y, r))
    overflow = b.icmp("slt", signs, _c(x, 0))
    return b.select(overflow, _limit(b, x, b.icmp("slt", x, _c(x, 0))), r)


def sub_sat(b: Builder, x: Value, y: Value, unsigned: bool) -> Value:
    r = b.binop("sub", x, y)
    if unsigned:
        return b.select(b.icmp("ult", x, y), _c(x, 0), r)
    signs = b.binop("and", b.binop("xor", x, y), b.binop("xor", x, r))
    overflow = b.icmp("slt", signs, _c(x, 0))
    return b.select(overflow, _limit(b, x, b.icmp("slt", x, _c(x, 0))), r)


def hadd(b: Builder, x: Value, y: Value, unsigned: bool, round_up: bool) -> Value:
    shift = "lshr" if unsigned else "ashr"
    halves = b.binop("add", b.binop(shift, x, _c(x, 1)), b.binop(shift, y, _c(y, 1)))
    odd = b.binop("and", b.binop("or" if round_up else "and", x, y), _c(x, 1))
    return b.binop("add", halves, odd)


def mul_hi(b: Builder, x: Value, y: Value, unsigned: bool) -> Value:
    low = _c(x, 0xFFFFFFFF)
    xl, xh = b.binop("and", x, low), b.binop("lshr", x, _c(x, 32))
    yl, yh = b.binop("and", y, low), b.binop("lshr", y, _c(y, 32))
    carry = b.binop("lshr", b.binop("mul", xl, yl), _c(x, 32))
    t = b.binop("add", b.binop("mul", xh, yl), carry)
    w1, w2 = b.binop("and", t, low), b.binop("lshr", t, _c(x, 32))
    k = b.binop("lshr", b.binop("add", b.binop("mul", xl, yh), w1), _c(x, 32))
    hi = b.binop("add", b.binop("add", b.binop("mul", xh, yh), w2), k)
    if unsigned:
        return hi
    zero = _c(x, 0)
    hi = b.binop("sub", hi, b.select(b.icmp("slt", x, zero), y, zero))
    return b.binop("sub", hi, b.select(b.icmp("slt", y, zero), x, zero))


def mad_sat(b: Builder, x: Value, y: Value, z: Value, unsigned: bool) -> Value:
    lo, hi = b.binop("mul", x, y), mul_hi(b, x, y, unsigned)
    sum_lo = b.binop("add", lo, z)
    carry = b.cast("zext", b.icmp("ult", sum_lo, lo), x.type)
    if unsigned:
        sum_hi = b.binop("add", hi, carry)
        return b.select(b.icmp("ne", sum_hi, _c(x, 0)), _c(x, U64_MAX), sum_lo)
    sum_hi = b.binop("add", b.binop("add", hi, b.binop("ashr", z, _c(z, 63))), carry)
    fits = b.icmp("eq", sum_hi, b.binop("ashr", sum_lo, _c(x, 63)))
    return b.select(fits, sum_lo, _limit(b, x, b.icmp("slt", sum_hi, _c(x, 0))))


def convert_sat(b: Builder, x: Value, from_unsigned: bool, to: ir.Type, to_unsigned: bool) -> Value:
    """`x` (already extended to 64 bits by its own signedness) clamped to `to`'s range."""
    bits = to.scalar().bits  # type: ignore[attr-defined]
    lo = 0 if to_unsigned else -(1 << (bits - 1))
    hi = (1 << bits) - 1 if to_unsigned else (1 << (bits - 1)) - 1
    if not from_unsigned and lo > I64_MIN:
        x = b.select(b.icmp("slt", x, _c(x, lo)), _c(x, lo), x)
    if from_unsigned or to_unsigned:  # x is not negative here: compare unsigned
        if hi < U64_MAX:
            x = b.select(b.icmp("ugt", x, _c(x, hi)), _c(x, hi), x)
    elif hi < I64_MAX:
        x = b.select(b.icmp("sgt", x, _c(x, hi)), _c(x, hi), x)
    return x if bits == 64 else b.cast("trunc", x, to)
