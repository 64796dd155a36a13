"""Payne and Hanek's reduction of a huge trigonometric argument, as straight-line lane code.

For |x| = m 2^e (m the 53-bit integer mantissa, e = exponent - 52), x 2/pi mod 4
depends only on a window of 2/pi's bits: bits b_k with k <= e - 2 contribute
multiples of 4, and those past 192 more bits contribute less than 2^-138. So with
W the 192-bit integer of bits b_(e-1) .. b_(e+190) (from `TWO_OVER_PI`, a table
of 64-bit words), x 2/pi mod 4 = (m W mod 2^192) 2^-190: three 64 x 64-bit
products (`v_mul_lo_u64`, `v_mul_hi_u64`) and one carry. The top two bits are the
quadrant, the next 190 the fraction, taken as a signed fraction in
[-1/2, 1/2) (the quadrant rounded up past one half), converted exactly to three
doubles of 53 bits each and summed into a head and a tail: even the closest
double to a multiple of pi/2 (about 2^-61 away) keeps over 100 bits. Times pi/2
as a head and a tail, that is the (kd, hi, lo) of `math_formulas.reduce_pio2`.

The window's words are picked per lane by comparing the word index with each
possible one (no table in memory: the words are immediates), and shifted into
place; `REACH[bits]` window starts cover every finite double (64) or every
float widened to double (32: its exponents reach word 2 only).
"""

from __future__ import annotations

from .math_lanes import Lanes

# 2/pi's bits b_1 b_2 ... after 64 zero bits (b_k is bit k + 63), 64 to a word, most significant first
# (mpmath at 500 digits; the tests recompute them)
TWO_OVER_PI = (
    0x0000000000000000, 0xA2F9836E4E441529, 0xFC2757D1F534DDC0, 0xDB6295993C439041,
    0xFE5163ABDEBBC561, 0xB7246E3A424DD2E0, 0x06492EEA09D1921C, 0xFE1DEB1CB129A73E,
    0xE88235F52EBB4484, 0xE99C7026B45F7E41, 0x3991D639835339F4, 0x9C845F8BBDF9283B,
    0x1FF897FFDE05980F, 0xEF2F118B5A0A6D1F, 0x6D367ECF27CB09B7, 0x4F463F669E5FEA2D,
    0x7527BAC7EBE5F17B, 0x3D0739F78A5292EA, 0x6BFB5FB11F8D5D08, 0x56033046FC7B6BAB,
)
# window starts (word indices 0 .. REACH - 1): the largest double's is 16, a float's 2
REACH = {64: len(TWO_OVER_PI) - 3, 32: 3}
PIO2 = (1.5707963267948966, 6.123233995736766e-17)  # pi/2 as a head and a tail


def signed(word: int) -> int:
    """A 64-bit word as the signed immediate of the same bits."""
    return word - (1 << 64) if word >> 63 else word


def window(o: Lanes, start, reach: int):  # type: ignore[no-untyped-def]
    """The 192 bits of the table from bit `start` (an i32, 0 <= start < 64 reach), as three
    u64 words, most significant first."""
    index = o.op("v_lshr_b32", 32, start, 6)
    shift = o.op("v_and_b32", 32, start, 63)
    back = o.op("v_sub_u32", 32, 63, shift)  # then one more: a shift by 64 is no shift
    picked: list = [0, 0, 0, 0]
    for j in range(reach):
        here = o.cmp("eq", index, j, "u32")
        for i in range(4):
            picked[i] = o.sel(here, signed(TWO_OVER_PI[j + i]), picked[i], 64)
    words = []
    for i in range(3):
        high = o.op("v_lshl_b64", 64, picked[i], shift)
        low = o.op("v_lshr_b64", 64, o.op("v_lshr_b64", 64, picked[i + 1], 1), back)
        words.append(o.ior(high, low))
    return words


def to_double(o: Lanes, bits, scale: int):  # type: ignore[no-untyped-def]
    """An i64 of at most 53 significant bits times 2^scale, exactly."""
    return o.mul(o.from_i64(bits), 2.0 ** scale)


def payne_hanek(o: Lanes, ax, bits: int = 64):  # type: ignore[no-untyped-def]
    """(kd, hi, lo): ax = kd pi/2 + hi + lo, kd in 0..3, |hi + lo| <= pi/4, for finite
    ax >= 2^19 (smaller ones give garbage: the caller selects); `bits` 32 when ax is a
    widened float."""
    field = o.exponent_field(ax)
    m = o.ior(o.iand(ax, 0x000FFFFFFFFFFFFF), 1 << 52)
    start = o.op("v_sub_u32", 32, field, 1075 + 1 - 64 + 1)  # bit b_(e-1): b_k is bit k + 63
    w0, w1, w2 = window(o, start, REACH[bits])
    low2, high2 = o.op("v_mul_lo_u64", 64, m, w2), o.op("v_mul_hi_u64", 64, m, w2)
    low1, high1 = o.op("v_mul_lo_u64", 64, m, w1), o.op("v_mul_hi_u64", 64, m, w1)
    r1 = o.iadd(high2, low1)
    carry = o.sel(o.cmp("lt", r1, high2, "u64"), 1, 0, 64)
    r0 = o.iadd(o.iadd(o.op("v_mul_lo_u64", 64, m, w0), high1), carry)
    r2 = low2
    # the fraction: the 190 bits under the top two, a signed 192-bit number in 2^-64 units
    f0 = o.ior(o.shl(r0, 2), o.op("v_lshr_b64", 64, r1, 62))
    f1 = o.ior(o.shl(r1, 2), o.op("v_lshr_b64", 64, r2, 62))
    f2 = o.shl(r2, 2)
    # quadrant: the top two bits, plus one when the fraction is one half or more (negative)
    up = o.cmp("lt", f0, 0, "i64")
    kd = o.from_i64(o.iand(o.iadd(o.op("v_lshr_b64", 64, r0, 62), o.sel(up, 1, 0, 64)), 3))
    # as three exact doubles of 53 bits: f0's top 53, f0's last 11 and f1's top 42, the rest
    d1 = to_double(o, o.ashr(f0, 11), -53)
    d2 = to_double(o, o.ior(o.shl(o.iand(f0, 0x7FF), 42), o.op("v_lshr_b64", 64, f1, 22)), -106)
    d3 = to_double(o, o.ior(o.shl(o.iand(f1, (1 << 22) - 1), 31), o.op("v_lshr_b64", 64, f2, 33)), -159)
    f_hi = o.add(d1, d2)  # |d1| >= |d2| or d1 = 0: Fast2Sum is exact
    f_lo = o.sub(d2, o.sub(f_hi, d1))
    f_lo = o.add(f_lo, d3)
    f = o.add(f_hi, f_lo)
    f_lo = o.sub(f_lo, o.sub(f, f_hi))
    hi = o.mul(f, PIO2[0])
    lo = o.fma(f, PIO2[1], o.fma(f_lo, PIO2[0], o.fma(f, PIO2[0], o.neg(hi))))
    h = o.add(hi, lo)
    return kd, h, o.sub(lo, o.sub(h, hi))
