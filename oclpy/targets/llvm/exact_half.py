"""Correctly rounded conversions to half and half `fma`, in LLVM IR that needs no library.

x86 without AVX512-FP16 has no double -> half instruction: LLVM lowers
`fptrunc double to half` to a call of compiler-rt's `__truncdfhf2`, and
`llvm.fma.f16` to a double fma followed by that call (and a half copysign
whose sign comes from a double to that call on the double). The JIT cannot
resolve it (it is no symbol of the process), so the call jumps to a bad address. The
sequences here use only integer operations, float arithmetic and float ->
half conversions (native with F16C), for scalars and vectors alike:

- `double_to_half`: double -> float rounded to odd, then float -> half;
- `fma_half`: the exact product and sum in float (a TwoSum), rounded to odd,
  then float -> half.

Both rest on one fact: rounding to nearest a value already rounded to odd
with at least two more bits gives the value rounded to nearest once (Boldo
and Melquiond, "Emulation of FMA and correctly rounded sums: proved
algorithms using rounding to odd", 2008); float has 24 bits, half 11.
"""

from __future__ import annotations

from llvmlite import ir as ll

F16, F32, F64 = ll.HalfType(), ll.FloatType(), ll.DoubleType()
I32, I64 = ll.IntType(32), ll.IntType(64)


def _elem(t: ll.Type) -> ll.Type:
    return t.element if isinstance(t, ll.VectorType) else t


def _like(t: ll.Type, elem: ll.Type) -> ll.Type:
    """`elem`, or a vector of it as long as vector type `t`."""
    return ll.VectorType(elem, t.count) if isinstance(t, ll.VectorType) else elem


def _const(t: ll.Type, value: int | float) -> ll.Constant:
    if isinstance(t, ll.VectorType):
        return ll.Constant(t, [ll.Constant(t.element, value)] * t.count)
    return ll.Constant(t, value)


def fptrunc(b: ll.IRBuilder, x: ll.Value, to: ll.Type) -> ll.Value:
    """`fptrunc x to to`, through `double_to_half` when it goes from double to half."""
    if _elem(x.type) == F64 and _elem(to) == F16:
        return double_to_half(b, x)
    return b.fptrunc(x, to)


def double_to_half(b: ll.IRBuilder, x: ll.Value) -> ll.Value:
    """Double (or vector of double) `x` rounded to nearest even half, NaN kept a NaN.

    f is x rounded to nearest float; one step toward zero where f went past x
    truncates x, and setting the last bit where f != x makes that round-to-odd:
    a float that rounds to half as x would (24 >= 11 + 2). The half rounding
    takes integer-made bits: LLVM strips a float -> half conversion of a
    copysign's sign operand and would convert x itself, with __truncdfhf2."""
    f32, i32, i64 = _like(x.type, F32), _like(x.type, I32), _like(x.type, I64)
    f = b.fptrunc(x, f32)
    back = b.fpext(f, x.type)
    magnitude = _const(i64, (1 << 63) - 1)
    past = b.icmp_unsigned(">", b.and_(b.bitcast(back, i64), magnitude), b.and_(b.bitcast(x, i64), magnitude))
    inexact = b.fcmp_ordered("!=", back, x)
    bits = b.sub(b.bitcast(f, i32), b.zext(past, i32))
    odd = b.or_(bits, b.zext(inexact, i32))
    return b.fptrunc(b.bitcast(odd, f32), _like(x.type, F16))


def fma_half(b: ll.IRBuilder, x: ll.Value, y: ll.Value, z: ll.Value) -> ll.Value:
    """fma(x, y, z) on half (or vectors of half), correctly rounded.

    In float, x*y is exact (22 significand bits, exponents from -48 to 32) and
    TwoSum gives s + e == x*y + z exactly (no overflow below 2**33). Moving an
    inexact s with an even last bit one ulp toward e rounds the sum to odd
    (s is nearest, so the exact value lies between s and that neighbour); its
    rounding to half is then the fma's. A zero sum stays exact and keeps IEEE's
    sign; inf and NaN operands make e NaN and leave s as it is."""
    f32, i32 = _like(x.type, F32), _like(x.type, I32)
    a, c = b.fmul(b.fpext(x, f32), b.fpext(y, f32)), b.fpext(z, f32)
    s = b.fadd(a, c)
    a_part = b.fsub(s, c)
    c_part = b.fsub(s, a_part)
    e = b.fadd(b.fsub(a, a_part), b.fsub(c, c_part))
    s_bits, e_bits = b.bitcast(s, i32), b.bitcast(e, i32)
    even = b.icmp_unsigned("==", b.and_(s_bits, _const(i32, 1)), _const(i32, 0))
    inexact = b.fcmp_ordered("!=", e, _const(f32, 0.0))
    same_sign = b.icmp_signed(">=", b.xor(s_bits, e_bits), _const(i32, 0))
    step = b.select(same_sign, _const(i32, 1), _const(i32, -1))
    moved = b.select(b.and_(even, inexact), b.add(s_bits, step), s_bits)
    return b.fptrunc(b.bitcast(moved, f32), _like(x.type, F16))
