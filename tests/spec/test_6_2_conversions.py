"""OpenCL C 6.2 conversions: convert_<type>[_sat][_rte|_rtz|_rtp|_rtn] between
integer and floating types (exact rounding by rational arithmetic; _sat clamps
and maps NaN to 0), double -> float rounding modes, and as_<type> bit
reinterpretation including 3- and 4-element vectors."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from .elementwise import DTYPES, INT_TYPES, WIDTHS, Op, bits, evaluate, is_signed
from .values import N, int_values

MODES = ("", "_rte", "_rtz", "_rtp", "_rtn")
# Conversions lower to whole-vector IR (no per-lane code), so scalars, the
# padded 3-element vectors and 16-element vectors cover the lowering paths;
# the double -> float test runs every width.
CONV_WIDTHS = (1, 3, 16)
PRE = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable"


def round_int(v: Fraction, mode: str) -> int:
    if mode == "_rte":
        return round(v)  # ties to even
    if mode == "_rtp":
        return math.ceil(v)
    if mode == "_rtn":
        return math.floor(v)
    return math.trunc(v)  # float -> int default: toward zero


def round_float(v: Fraction, dt, mode: str) -> float:
    """v rounded to floating type dt in mode (default: to nearest even)."""
    c = dt(float(v))
    if Fraction(float(c)) == v or not np.isfinite(c):
        return float(c)
    if Fraction(float(c)) > v:
        lo, hi = np.nextafter(c, dt(-np.inf)), c
    else:
        lo, hi = c, np.nextafter(c, dt(np.inf))
    if mode == "_rtp":
        return float(hi)
    if mode == "_rtn":
        return float(lo)
    if mode == "_rtz":
        return float(lo if v > 0 else hi)
    dl, dh = v - Fraction(float(lo)), Fraction(float(hi)) - v
    if dl != dh:
        return float(lo if dl < dh else hi)
    even = int(np.array([lo]).view(np.uint32 if dt is np.float32 else np.uint64)[0]) % 2 == 0
    return float(lo if even else hi)


def _float_inputs(t: str) -> np.ndarray:
    dt = DTYPES[t]
    specials = [0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999997, -0.0, 1e30, -1e30, math.nan, math.inf,
                -math.inf, 127.5, -128.5, 255.5, 32767.5, 2147483520.0, -2147483648.0, 4294967040.0,
                9.2233715e18, -9.2233715e18, 1.8446743e19, 65535.7, -1.0, 300.2]
    rng = np.random.default_rng(11)
    rnd = np.concatenate([rng.uniform(-300, 300, 40), rng.uniform(-7e4, 7e4, 30), rng.uniform(-5e9, 5e9, 32)])
    return np.concatenate([np.array(specials), rnd]).astype(dt)[:N]


def _range(t: str) -> tuple[int, int]:
    b = bits(t)
    return (-(1 << (b - 1)), (1 << (b - 1)) - 1) if is_signed(t) else (0, (1 << b) - 1)


_cache: dict = {}


def _float_to_int(run_kernel, src: str):
    if src not in _cache:
        ops = [Op(f"{dst}{sat}{m}", f"convert_{dst}$n{sat}{m}(a)", dst, CONV_WIDTHS)
               for dst in INT_TYPES for sat in ("", "_sat") for m in MODES]
        x = _float_inputs(src)
        _cache[src] = evaluate(run_kernel, src, ops, x, x, x, pre=PRE)
    return _cache[src]


@pytest.mark.parametrize("src", ["float", "double"])
@pytest.mark.parametrize("dst", INT_TYPES)
@pytest.mark.parametrize("sat", ["", "_sat"])
def test_float_to_int(run_kernel, src: str, dst: str, sat: str) -> None:
    res, envs = _float_to_int(run_kernel, src)
    lo, hi = _range(dst)
    for m in MODES:
        for n in CONV_WIDTHS:
            got = res[(f"{dst}{sat}{m}", n)].tolist()
            bad = []
            for x, g in zip(envs[n].a.tolist(), got):
                if math.isnan(x):
                    want = 0 if sat else None
                elif math.isinf(x):
                    want = (hi if x > 0 else lo) if sat else None
                else:
                    r = round_int(Fraction(x), m)
                    want = min(max(r, lo), hi) if sat else (r if lo <= r <= hi else None)
                if want is not None and g != want:
                    bad.append((x, g, want))
            assert not bad, f"convert_{dst}{n if n > 1 else ''}{sat}{m}({src}): (x, got, want) {bad[:5]}"


_INT_TO_FLOAT_SRC = ("int", "uint", "long", "ulong", "short", "uchar")


@pytest.mark.parametrize("dst", ["float", "double"])
@pytest.mark.parametrize("src", _INT_TO_FLOAT_SRC)
def test_int_to_float_rounding(run_kernel, src: str, dst: str) -> None:
    ops = [Op(f"c{m}", f"convert_{dst}$n{m}(a)", dst, CONV_WIDTHS) for m in MODES]
    x = int_values(src, 9)
    if bits(src) >= 32:  # values that need rounding: 2^24 + odd, 2^53 + odd
        extra = [(1 << 24) + 1, (1 << 24) + 3, (1 << 25) + 2, (1 << 31) - 1, (1 << 31) - 65]
        if bits(src) == 64:
            extra += [(1 << 53) + 1, (1 << 62) + 1, (1 << 63) - 1]
        x[:len(extra)] = np.array(extra, dtype=DTYPES[src]) if is_signed(src) or True else x[:len(extra)]
        if is_signed(src):
            x[len(extra):2 * len(extra)] = -x[:len(extra)]
    res, envs = evaluate(run_kernel, src, ops, x, x, x, pre=PRE)
    dt = DTYPES[dst]
    for m in MODES:
        for n in CONV_WIDTHS:
            got = res[(f"c{m}", n)].tolist()
            want = [round_float(Fraction(v), dt, m) for v in envs[n].a.tolist()]
            bad = [(v, g, w) for v, g, w in zip(envs[n].a.tolist(), got, want) if g != w]
            assert not bad, f"convert_{dst}{n if n > 1 else ''}{m}({src}): (x, got, want) {bad[:5]}"


def test_double_to_float_rounding(run_kernel) -> None:
    ops = [Op(f"c{m}", f"convert_float$n{m}(a)", "float") for m in MODES]
    rng = np.random.default_rng(5)
    x = np.concatenate([[math.nan, math.inf, -math.inf, 0.0, -0.0, 1e300, -1e300, 1e-300, 3.4028235e38 * 1.0000001],
                        rng.uniform(-1e6, 1e6, N - 9)])
    res, envs = evaluate(run_kernel, "double", ops, x, x, x, pre=PRE)
    for m in MODES:
        for n in WIDTHS:
            for v, g in zip(envs[n].a.tolist(), res[(f"c{m}", n)].tolist()):
                if math.isnan(v):
                    assert math.isnan(g)
                    continue
                want = v if math.isinf(v) or v == 0 else _round_overflow(Fraction(v), m)
                assert g == want and math.copysign(1, g) == math.copysign(1, want), \
                    f"convert_float{n if n > 1 else ''}{m}({v!r}) = {g!r}, want {want!r}"


def _round_overflow(v: Fraction, m: str) -> float:
    """v to float in mode m, with IEEE overflow (to max float or inf by mode)."""
    fmax = Fraction(float(np.finfo(np.float32).max))
    if abs(v) > fmax:
        toward_inf = m in ("", "_rte") or (m == "_rtp" and v > 0) or (m == "_rtn" and v < 0)
        return math.copysign(math.inf if toward_inf else float(fmax), v)
    return round_float(v, np.float32, m)


@pytest.mark.parametrize("src", INT_TYPES)
def test_int_to_int_saturating(run_kernel, src: str) -> None:
    ops = [Op(f"{d}{s}", f"convert_{d}$n{s}(a)", d, CONV_WIDTHS) for d in INT_TYPES for s in ("", "_sat")]
    x = int_values(src, 12)
    res, envs = evaluate(run_kernel, src, ops, x, x, x)
    for d in INT_TYPES:
        lo, hi = _range(d)
        for n in CONV_WIDTHS:
            vals = envs[n].a.tolist()
            sat = [min(max(v, lo), hi) for v in vals]
            assert res[(f"{d}_sat", n)].tolist() == sat, f"convert_{d}_sat({src})"
            assert res[(d, n)].tolist() == x[:len(vals)].astype(DTYPES[d]).tolist(), f"convert_{d}({src})"


def test_reinterpretation(run_kernel) -> None:
    src = """
    __kernel void k(__global const float *f, __global uint *u, __global int *i3, __global float *f4,
                    __global uchar *b, __global ulong *l) {
        float4 v = vload4(0, f);
        u[0] = as_uint(v.x);
        vstore4(as_uint4(v), 0, u + 4);
        vstore3(as_int3(v), 0, i3);                 /* 4 -> 3 elements: the first three */
        int3 t = (int3)(0x3f800000, 0x40000000, -1);
        float4 w = as_float4(t);                    /* 3 -> 4: same size (16 bytes) */
        vstore3(w.xyz, 0, f4);
        vstore16(as_uchar16(v), 0, b);
        l[0] = as_ulong(vload2(0, f));
        vstore2(as_ulong2(as_double2(vload4(0, f))), 0, l + 1);
    }"""
    f = np.array([1.0, -2.5, 3.25e-3, np.inf], np.float32)
    u, i3, f4, b, l = np.zeros(8, np.uint32), np.zeros(3, np.int32), np.zeros(3, np.float32), np.zeros(16, np.uint8), np.zeros(3, np.uint64)
    _, u, i3, f4, b, l = run_kernel("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" + src, "k", (1,), None, f, u, i3, f4, b, l)
    assert u[0] == f.view(np.uint32)[0] and u[4:].tolist() == f.view(np.uint32).tolist()
    assert i3.tolist() == f.view(np.int32)[:3].tolist()
    assert f4.tolist() == [1.0, 2.0, np.array([-1], np.int32).view(np.float32)[0]] or np.isnan(f4[2])
    assert f4[:2].tolist() == [1.0, 2.0]
    assert b.tolist() == f.view(np.uint8).tolist()
    assert l[0] == f[:2].view(np.uint64)[0] and l[1:].tolist() == f.view(np.uint64).tolist()


def test_implicit_and_cast_conversions(run_kernel) -> None:
    """6.2.1 implicit conversions between scalars (C99 rules: float -> int
    truncates, int -> float rounds to nearest), scalar -> vector widening,
    usual arithmetic conversions, and explicit scalar casts."""
    src = """
    __kernel void k(__global const float *F, __global const int *I, __global int *oi, __global float *of,
                    __global uint *ou, __global long *ol) {
        size_t i = get_global_id(0);
        int t = F[i];                  /* truncation toward zero */
        oi[i] = t;
        float f = I[i];                /* round to nearest even */
        of[i] = f;
        float4 v = 2;                  /* scalar widened to every element */
        float4 w = v * F[i] + 1;       /* scalar operands widened; int 1 -> float */
        vstore4(w, i, of + 64);
        ou[i] = (uint)(I[i] < 0u);     /* usual arithmetic conversions: int -> uint */
        ol[i] = (long)I[i] * 3000000000L + (char)(I[i]);   /* cast to char wraps */
    }"""
    F = np.array([1.9, -1.9, 2.5, -0.5, 1e9, -7.99, 0.0, 100.25] * 2, np.float32)
    I = np.array([16777217, -16777217, 3, -1, 2147483647, 255, 128, -129] * 2, np.int32)
    oi, of, ou, ol = np.zeros(16, np.int32), np.zeros(128, np.float32), np.zeros(16, np.uint32), np.zeros(16, np.int64)
    *_, oi, of, ou, ol = run_kernel(src, "k", (16,), None, F, I, oi, of, ou, ol)
    assert oi.tolist() == [math.trunc(v) for v in F.tolist()]
    assert of[:16].tolist() == I.astype(np.float32).tolist()
    assert of[64:128].tolist() == np.repeat(F * np.float32(2) + np.float32(1), 4).tolist()
    assert ou.tolist() == [0] * 16  # I[i] converted to uint is never < 0u
    assert ol.tolist() == [v * 3000000000 + ((v + 128) % 256 - 128) for v in I.tolist()]
