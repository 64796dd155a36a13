"""Language features the simt code generator once rejected, run through the whole simt
pipeline (selected only, and allocated for the default and the tiny register files, every
allocation checked) and compared with NumPy or Python integers: narrow-vector bitcasts
(`as_char2` and friends, against `ndarray.view`); the saturating and high-half builtins
of 64-bit lanes (once computed in i66/i130, now in 64-bit arithmetic, against Python's
unbounded integers)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.targets.simt_cl_harness import asm_of, run_cl

LEVELS = [0, 2]


@pytest.fixture(params=["virtual", "default", "tiny"])
def regs(request: pytest.FixtureRequest) -> str:
    return str(request.param)


BITCASTS = """
kernel void k(global const uint *in, global uchar4 *c4, global short2 *s2, global char2 *c2,
              global ushort4 *us4, global char8 *c8, global uint *back, global uint *u, uint uni) {
  size_t i = get_global_id(0);
  uint x = in[i];
  c4[i] = as_uchar4(x);
  s2[i] = as_short2(x);
  c2[i] = as_char2((short)x);
  us4[i] = as_ushort4((ulong)x << 32 | (ulong)(x ^ 0xdeadbeefu));
  c8[i] = as_char8(as_ulong((uint2)(x, ~x)));
  back[i] = as_uint(as_char4(as_short2(x)) + (char4)(1, 2, 3, 4));
  u[i] = as_uint(as_ushort2(as_uchar4(uni)));      /* uniform: scalar registers */
}
"""


@pytest.mark.parametrize("level", LEVELS)
def test_narrow_vector_bitcasts_keep_the_bytes(level: int, regs: str) -> None:
    n = 64
    x = np.random.default_rng(3).integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    outs = [np.zeros((n, 4), np.uint8), np.zeros((n, 2), np.int16), np.zeros((n, 2), np.int8),
            np.zeros((n, 4), np.uint16), np.zeros((n, 8), np.int8), np.zeros(n, np.uint32), np.zeros(n, np.uint32)]
    got, _ = run_cl(BITCASTS, "k", [x, *outs, np.uint32(0x12345678)], (n,), (32,), level, regs=regs)
    c4, s2, c2, us4, c8, back, u = got[1:8]
    np.testing.assert_array_equal(c4, x.view(np.uint8).reshape(n, 4))
    np.testing.assert_array_equal(s2, x.view(np.int16).reshape(n, 2))
    np.testing.assert_array_equal(c2, x.astype(np.uint16).view(np.int8).reshape(n, 2))
    wide = (x.astype(np.uint64) << np.uint64(32)) | (x ^ np.uint32(0xDEADBEEF)).astype(np.uint64)
    np.testing.assert_array_equal(us4, wide.view(np.uint16).reshape(n, 4))
    np.testing.assert_array_equal(c8, np.stack([x, ~x], axis=1).view(np.int8).reshape(n, 8))
    bytes_ = x.view(np.int8).reshape(n, 4) + np.array([1, 2, 3, 4], np.int8)
    np.testing.assert_array_equal(back, bytes_.view(np.uint32).reshape(n))
    np.testing.assert_array_equal(u, np.full(n, 0x12345678, np.uint32))


def test_a_narrow_bitcast_packs_bytes_with_shifts_in_the_selected_code() -> None:
    asm = asm_of("kernel void k(global uint *o, global const uchar4 *c) { "
                 "o[get_global_id(0)] = as_uint(c[get_global_id(0)]); }")
    assert "v_lshl_b32" in asm and "v_or_b32" in asm and "v_and_b32" in asm


SAT64 = """
kernel void k(global ulong *out, global const long *a, global const long *b, global const long *c) {
  size_t i = get_global_id(0);
  long x = a[i], y = b[i], z = c[i];
  ulong ux = x, uy = y, uz = z;
  global ulong *o = out + i * 20;
  o[0] = add_sat(x, y); o[1] = add_sat(ux, uy); o[2] = sub_sat(x, y); o[3] = sub_sat(ux, uy);
  o[4] = hadd(x, y); o[5] = hadd(ux, uy); o[6] = rhadd(x, y); o[7] = rhadd(ux, uy);
  o[8] = mul_hi(x, y); o[9] = mul_hi(ux, uy); o[10] = mad_hi(x, y, z); o[11] = mad_hi(ux, uy, uz);
  o[12] = mad_sat(x, y, z); o[13] = mad_sat(ux, uy, uz);
  o[14] = convert_int_sat(x); o[15] = convert_uint_sat(x); o[16] = convert_ulong_sat(x);
  o[17] = convert_long_sat(ux); o[18] = convert_short_sat(ux); o[19] = convert_ulong_sat((int)x);
}
"""
EDGES = [0, 1, -1, 2**63 - 1, -2**63, 2**32, -2**32, 2**31, 3037000499, -3037000500]


def clamp(v: int, lo: int, hi: int) -> int:
    return max(lo, min(hi, v))


def sat64_reference(x: int, y: int, z: int) -> list[int]:
    m = 1 << 64
    i64, u64 = (-2**63, 2**63 - 1), (0, m - 1)
    ux, uy, uz = x % m, y % m, z % m
    r = [clamp(x + y, *i64), clamp(ux + uy, *u64), clamp(x - y, *i64), clamp(ux - uy, *u64),
         (x + y) >> 1, (ux + uy) >> 1, (x + y + 1) >> 1, (ux + uy + 1) >> 1, (x * y) >> 64, (ux * uy) >> 64,
         ((x * y) >> 64) + z, ((ux * uy) >> 64) + uz, clamp(x * y + z, *i64), clamp(ux * uy + uz, *u64),
         clamp(x, -2**31, 2**31 - 1), clamp(x, 0, 2**32 - 1), clamp(x, *u64), clamp(ux, *i64),
         clamp(ux, -2**15, 2**15 - 1), clamp((x + 2**31) % 2**32 - 2**31, *u64)]
    return [v % m for v in r]


@pytest.mark.parametrize("level", LEVELS)
def test_saturating_and_high_half_builtins_of_64_bit_lanes(level: int, regs: str) -> None:
    n = 128
    rng = np.random.default_rng(5)
    a, b, c = (rng.integers(-2**63, 2**63 - 1, n, dtype=np.int64, endpoint=True) for _ in range(3))
    a[:10], b[:10], b[10:20], c[20:30] = EDGES, EDGES[::-1], EDGES, EDGES
    b[30:40], c[40:50] = a[30:40], 0
    got, _ = run_cl(SAT64, "k", [np.zeros(n * 20, np.uint64), a, b, c], (n,), (64,), level, regs=regs)
    expected = [v for i in range(n) for v in sat64_reference(int(a[i]), int(b[i]), int(c[i]))]
    np.testing.assert_array_equal(got[0], np.array(expected, np.uint64))
