"""Language features the simt code generator once rejected, run through the whole simt
pipeline (selected only, and allocated for the default and the tiny register files, every
allocation checked) and compared with NumPy: narrow-vector bitcasts (`as_char2` and
friends, against `ndarray.view`)."""

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
