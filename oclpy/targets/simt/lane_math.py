"""Lane-vector arithmetic the simt opcode table names where NumPy has no one-liner.

Every function takes and returns NumPy arrays (or NumPy scalars) of the
operand types the row states (`isa.DTYPES`), element by element over lanes
and waves: integer division with the ISA's answers for division by zero, the
high halves of products, bit counts, saturating float-to-integer conversions,
half-precision conversions, and fused multiply-adds. docs/simt.md (the ISA
page) states the semantics these implement.
"""

from __future__ import annotations

import numpy as np

U32, I32, U64, I64 = np.uint32, np.int32, np.uint64, np.int64
F16, F32, F64 = np.float16, np.float32, np.float64
LOW32 = np.uint64(0xFFFFFFFF)


def mul_hi_u32(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return ((np.asarray(a, U64) * np.asarray(b, U64)) >> U64(32)).astype(U32)


def mul_hi_i32(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return ((np.asarray(a, I64) * np.asarray(b, I64)) >> I64(32)).astype(I32)


def mul_hi_u64(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The high 64 bits of the 128-bit product, from 32-bit halves."""
    a, b = np.asarray(a, U64), np.asarray(b, U64)
    a_lo, a_hi, b_lo, b_hi = a & LOW32, a >> U64(32), b & LOW32, b >> U64(32)
    lo_lo, hi_lo, lo_hi, hi_hi = a_lo * b_lo, a_hi * b_lo, a_lo * b_hi, a_hi * b_hi
    cross = (lo_lo >> U64(32)) + (hi_lo & LOW32) + (lo_hi & LOW32)
    return hi_hi + (hi_lo >> U64(32)) + (lo_hi >> U64(32)) + (cross >> U64(32))


def mul_hi_i64(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Signed high half: the unsigned one corrected for each negative factor."""
    a, b = np.asarray(a, I64), np.asarray(b, I64)
    au, bu = a.astype(U64), b.astype(U64)
    hi = mul_hi_u64(au, bu) - np.where(a < 0, bu, U64(0)) - np.where(b < 0, au, U64(0))
    return np.asarray(hi, U64).astype(I64)


def div_u(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a / b; x / 0 is all ones."""
    a, b = np.broadcast_arrays(a, b)
    ones = np.array(-1).astype(a.dtype)
    return np.where(b == 0, ones, a // np.where(b == 0, 1, b).astype(b.dtype)).astype(a.dtype)


def rem_u(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a % b; x % 0 is x."""
    a, b = np.broadcast_arrays(a, b)
    return np.where(b == 0, a, a % np.where(b == 0, 1, b).astype(b.dtype)).astype(a.dtype)


def _magnitude(x: np.ndarray, unsigned: type) -> np.ndarray:
    """|x| as the unsigned type of x's width (INT_MIN's magnitude fits)."""
    u = x.astype(unsigned)
    return np.where(x < 0, (~u + unsigned(1)).astype(unsigned), u)


def div_s(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """C division, truncating toward zero; x / 0 is -1 (all ones), INT_MIN / -1 is INT_MIN."""
    a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
    unsigned = U32 if a.dtype == I32 else U64
    q = div_u(_magnitude(a, unsigned), _magnitude(b, unsigned))
    negative = (a < 0) != (b < 0)
    q = np.where(negative & (b != 0), (~q + unsigned(1)).astype(unsigned), q)
    return q.astype(unsigned).view(a.dtype)


def rem_s(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """C remainder, with the sign of a; x % 0 is x."""
    a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
    unsigned = U32 if a.dtype == I32 else U64
    r = rem_u(_magnitude(a, unsigned), _magnitude(b, unsigned))
    r = np.where(a < 0, (~r + unsigned(1)).astype(unsigned), r)
    return np.where(b == 0, a, r.astype(unsigned).view(a.dtype))


def bfe_u32(x: np.ndarray, offset: np.ndarray, width: np.ndarray) -> np.ndarray:
    """Bits [offset, offset + width) of x, zero-extended (offset and width mod 32)."""
    x, o, w = np.asarray(x, U64), np.asarray(offset, U64) & U64(31), np.asarray(width, U64) & U64(31)
    return ((x >> o) & ((U64(1) << w) - U64(1))).astype(U32)


def bfe_i32(x: np.ndarray, offset: np.ndarray, width: np.ndarray) -> np.ndarray:
    """Bits [offset, offset + width) of x, sign-extended; width 0 gives 0."""
    w = np.asarray(width, I64) & 31
    field = bfe_u32(x, offset, width).astype(I64)
    sign = np.where(w > 0, I64(1) << np.maximum(w - 1, 0), 0)
    return np.where(w == 0, 0, (field ^ sign) - sign).astype(I32)


def popcount(x: np.ndarray) -> np.ndarray:
    return np.bitwise_count(x).astype(U32)


def count_leading_zeros(x: np.ndarray, bits: int) -> np.ndarray:
    """Leading zero bits of each value (bits for 0), by binary search over the width."""
    x = np.asarray(x).astype(U64)
    n = np.zeros(x.shape, U32)
    step = bits // 2
    while step:
        top = x >> U64(bits - step) if bits - step < 64 else np.zeros_like(x)
        empty = top == 0
        n += np.where(empty, step, 0).astype(U32)
        x = np.where(empty, (x << U64(step)) & U64((1 << bits) - 1), x)
        step //= 2
    return n + (x == 0).astype(U32)


def count_trailing_zeros(x: np.ndarray, bits: int) -> np.ndarray:
    """Trailing zero bits of each value (bits for 0)."""
    x = np.asarray(x).astype(U64)
    lowest = x & (~x + U64(1))
    return np.where(x == 0, bits, bits - 1 - count_leading_zeros(lowest, bits)).astype(U32)


def first_set_bit(x: np.ndarray, bits: int) -> np.ndarray:
    """Index of the lowest set bit, -1 when none (s_ff1)."""
    n = count_trailing_zeros(x, bits).astype(I32)
    return np.where(n == bits, -1, n).astype(I32)


def sext(x: np.ndarray, bits: int) -> np.ndarray:
    """The low `bits` of x, sign-extended to 32 bits."""
    shift = I32(32 - bits)
    return (np.asarray(x).astype(U32).view(I32) << shift) >> shift


def float_to_int(x: np.ndarray, dtype: type) -> np.ndarray:
    """Truncate toward zero, saturate at the type's range; NaN gives 0."""
    info = np.iinfo(dtype)
    t = np.trunc(np.asarray(x, F64))
    t = np.where(np.isnan(t), 0.0, t)
    low, high = float(info.min), float(info.max)
    inside = np.clip(t, low, np.nextafter(high, 0) if high >= 2.0 ** 53 else high)
    out = inside.astype(dtype)
    return np.where(t >= high, dtype(info.max), np.where(t <= low, dtype(info.min), out)).astype(dtype)


def int_to_float(x: np.ndarray, dtype: type) -> np.ndarray:
    """Round to nearest even; 64-bit integers convert directly (no double rounding through f64)."""
    return np.asarray(x).astype(dtype)


def f32_to_f16_bits(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, F32).astype(F16).view(np.uint16).astype(U32)


def f16_bits_to_f32(x: np.ndarray) -> np.ndarray:
    return (np.asarray(x, U32) & U32(0xFFFF)).astype(np.uint16).view(F16).astype(F32)


def fma_f32(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """a*b + c rounded once to f32: the product is exact in f64; the sum's error
    (TwoSum) breaks the one case where rounding f64 then f32 differs, a tie."""
    p = np.asarray(a, F64) * np.asarray(b, F64)
    c64 = np.asarray(c, F64)
    s = p + c64
    bp = s - c64
    err = (p - bp) + (c64 - (s - bp))
    r = s.astype(F32)
    toward = np.nextafter(r, np.where(s > r, F32(np.inf), F32(-np.inf)).astype(F32))
    tie = (s != r) & (s == (r.astype(F64) + toward.astype(F64)) / 2) & (err != 0) & np.isfinite(s)
    above = np.where(err > 0, np.maximum(r, toward), np.minimum(r, toward))
    return np.where(tie, above, r).astype(F32)


def _split(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Veltkamp's split of a double into two halves of 26 significant bits."""
    c = x * F64(134217729.0)
    hi = c - (c - x)
    return hi, x - hi


def fma_f64(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """a*b + c with the product's error kept (Dekker's TwoProduct), then summed:
    correctly rounded except in rare double-rounding cases and near overflow."""
    a, b, c = (np.asarray(v, F64) for v in (a, b, c))
    p = a * b
    a_hi, a_lo = _split(a)
    b_hi, b_lo = _split(b)
    e = ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    s = p + c
    bp = s - c
    err = (p - bp) + (c - (s - bp))
    exact = s + (err + e)
    return np.where(np.isfinite(p) & np.isfinite(e), exact, p + c)


def transcendental(fn: np.ufunc, x: np.ndarray) -> np.ndarray:
    """A hardware-style approximation: computed in double, rounded to f32."""
    return fn(np.asarray(x, F64)).astype(F32)


def sin_turns(x: np.ndarray) -> np.ndarray:
    return np.sin(np.asarray(x, F64) * (2 * np.pi)).astype(F32)


def cos_turns(x: np.ndarray) -> np.ndarray:
    return np.cos(np.asarray(x, F64) * (2 * np.pi)).astype(F32)
