"""Double-precision kernels of the vectorisable math library.

Each function here takes and returns doubles (or a float where it says so),
built with `Ops` for any shape, with no branches: special operands are the
caller's business (`vecmath_float.py` selects their results at the end). The
kernels are accurate to about 1e-15 relative, so a float result computed with
them and rounded once is within a hair of 0.5 ulp.

- `exp2_parts(t)`: 2^t as scale * (1 + pm1), scale = 2^rint(t) built from bits,
  pm1 = 2^f - 1 on f = t - rint(t) in [-1/2, 1/2]; t must lie in [-1000, 1000]
  (callers clamp). exp and expm1 both come from it.
- `log_parts(d)`: log(d) = e * ln2 + logm for a positive normal double, with
  the mantissa reduced to [sqrt(1/2), sqrt(2)) (musl's bit trick on the high
  word) and logm = 2 atanh(s), s = (m - 1)/(m + 1).
- `reduce_pio2(x)`: |x| = (q + f) * pi/2 for a float x, q mod 4 and f in
  [-1/2, 1/2], for every finite float (table Payne-Hanek, vecmath_consts.py).
- `sin_poly`/`cos_poly` on |r| <= pi/4, `atan_core` on a >= 0.
"""

from __future__ import annotations

from llvmlite import ir as ll

from . import coefficients as k
from .lane_ops import F64, I32, I64, SHIFTER, Ops

Parts = tuple[ll.Value, ll.Value]

_TABLE_TYPE = ll.ArrayType(ll.ArrayType(F64, 4), 256)
_TABLE_NAME = "oclpy.vecmath.reduce_pio2"


def rint_bits(o: Ops, t: ll.Value) -> Parts:
    """(rint(t), the i64 whose low bits hold rint(t)) for |t| < 2^51."""
    kd = o.add(t, o.d(SHIFTER))
    return o.sub(kd, o.d(SHIFTER)), o.bits(kd)


def exp2_parts(o: Ops, t: ll.Value) -> Parts:
    """(scale, pm1): 2^t = scale * (1 + pm1), scale a power of two, pm1 = 2^f - 1."""
    kd, kbits = rint_bits(o, t)
    f = o.sub(t, kd)
    pm1 = o.mul(f, o.poly(f, k.EXP2M1))
    exponent = o.b.add(kbits, o.i64(1023))
    scale = o.from_bits(o.b.shl(exponent, o.i64(52)), F64)
    return scale, pm1


def exp2(o: Ops, t: ll.Value) -> ll.Value:
    """2^t for t in [-1000, 1000] (NaN in, NaN out)."""
    scale, pm1 = exp2_parts(o, t)
    return o.mad(scale, pm1, scale)


def expm1(o: Ops, t: ll.Value) -> ll.Value:
    """2^t - 1 for t in [-1000, 1000], accurate near 0 (no cancellation)."""
    scale, pm1 = exp2_parts(o, t)
    return o.mad(scale, pm1, o.sub(scale, o.d(1.0)))


def log_parts(o: Ops, d: ll.Value) -> Parts:
    """(e as a double, log(m)) with d = m * 2^e, m in [sqrt(1/2), sqrt(2))."""
    b = o.b
    bits = o.bits(d)
    hi = b.trunc(b.lshr(bits, o.i64(32)), o.ty(I32))
    hx = b.sub(hi, o.i32(k.SQRT_HALF_HI))
    e = o.sitofp(b.ashr(hx, o.i32(20)))
    mhi = b.add(b.and_(hx, o.i32(0x000FFFFF)), o.i32(k.SQRT_HALF_HI))
    mbits = b.or_(b.shl(b.zext(mhi, o.ty(I64)), o.i64(32)), b.and_(bits, o.i64(0xFFFFFFFF)))
    m = o.from_bits(mbits, F64)
    s = o.div(o.sub(m, o.d(1.0)), o.add(m, o.d(1.0)))
    logm = o.mul(o.add(s, s), o.poly(o.mul(s, s), k.ATANH))
    return e, logm


def log(o: Ops, d: ll.Value) -> ll.Value:
    """Natural log of a positive normal double."""
    e, logm = log_parts(o, d)
    return o.mad(e, o.d(k.LN2), logm)


def log2(o: Ops, d: ll.Value) -> ll.Value:
    e, logm = log_parts(o, d)
    return o.mad(logm, o.d(k.LOG2E), e)


def log1p(o: Ops, d: ll.Value) -> ll.Value:
    """log(1 + d) for d > -1, accurate near 0: log(u) * d / (u - 1), u = 1 + d (Kahan)."""
    u = o.add(d, o.d(1.0))
    um1 = o.sub(u, o.d(1.0))
    exact = o.eq(um1, o.d(0.0))
    scaled = o.mul(log(o, u), o.div(d, o.sel(exact, o.d(1.0), um1)))
    return o.sel(exact, d, scaled)


def _table_entry(o: Ops, idx: ll.Value, part: int) -> ll.Value:
    """REDUCTION[idx][part] for an i32 index (per lane for vectors)."""
    table = o.module.globals.get(_TABLE_NAME)
    if table is None:
        table = ll.GlobalVariable(o.module, _TABLE_TYPE, _TABLE_NAME)
        table.global_constant = True
        table.linkage = "internal"
        table.align = 32
        rows = [ll.Constant(_TABLE_TYPE.element, [*row, 0.0]) for row in k.REDUCTION]
        table.initializer = ll.Constant(_TABLE_TYPE, rows)
    b, zero, j = o.b, ll.Constant(I32, 0), ll.Constant(I32, part)
    if o.lanes is None:
        return b.load(b.gep(table, [zero, idx, j], inbounds=True))
    out: ll.Value = ll.Constant(o.ty(F64), ll.Undefined)
    for lane in range(o.lanes):
        i = b.extract_element(idx, ll.Constant(I32, lane))
        v = b.load(b.gep(table, [zero, i, j], inbounds=True))
        out = b.insert_element(out, v, ll.Constant(I32, lane))
    return out


def reduce_pio2(o: Ops, x: ll.Value) -> tuple[ll.Value, ll.Value]:
    """(q, f) for float x: |x| = (q + f) * pi/2 modulo 2 pi, q an i64 in 0..3, |f| <= 1/2.

    Exact but for the last of the three products: m * hi and m * mid are exact,
    the fractional part of m * hi is taken exactly, and m * hi + m * mid is
    summed with its rounding error kept (TwoSum)."""
    b = o.b
    bits = b.and_(o.bits(x), o.i32(0x7FFFFFFF))
    biased = b.lshr(bits, o.i32(23))
    normal = b.icmp_signed(">", biased, o.i32(0))
    mant = b.or_(b.and_(bits, o.i32(0x7FFFFF)), b.select(normal, o.i32(0x800000), o.i32(0)))
    idx = b.select(normal, biased, o.i32(1))
    m = o.sitofp(mant)
    hi, mid, lo = (_table_entry(o, idx, part) for part in range(3))
    p = o.mul(m, hi)
    k1, k1bits = rint_bits(o, p)
    f1 = o.sub(p, k1)
    pm = o.mul(m, mid)
    s = o.add(f1, pm)
    bb = o.sub(s, f1)
    err = o.add(o.sub(f1, o.sub(s, bb)), o.sub(pm, bb))  # TwoSum: f1 + pm = s + err
    k2, k2bits = rint_bits(o, s)
    f = o.add(o.sub(s, k2), o.mad(m, lo, err))
    q = b.and_(b.add(k1bits, k2bits), o.i64(3))
    return q, f


def sin_poly(o: Ops, r: ll.Value) -> ll.Value:
    return o.mul(r, o.poly(o.mul(r, r), k.SIN))


def cos_poly(o: Ops, r: ll.Value) -> ll.Value:
    return o.poly(o.mul(r, r), k.COS)


def atan_core(o: Ops, a: ll.Value) -> ll.Value:
    """atan(a) for a >= 0 (inf included): 1/a above 1, then (z - 1)/(z + 1) above tan(pi/8)."""
    inv = o.gt(a, o.d(1.0))
    z = o.sel(inv, o.div(o.d(1.0), a), a)
    mid = o.gt(z, o.d(k.TAN_PI_8))
    w = o.sel(mid, o.div(o.sub(z, o.d(1.0)), o.add(z, o.d(1.0))), z)
    t = o.mul(w, o.poly(o.mul(w, w), k.ATAN))
    t = o.sel(mid, o.add(t, o.d(k.PI_4)), t)
    return o.sel(inv, o.sub(o.d(k.PI_2), t), t)

