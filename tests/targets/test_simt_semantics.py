"""The simt opcodes' semantics at their edges, run lane by lane on the simulator.

Each case loads one or two inputs per lane, applies one vector opcode and
stores the result: division by zero, INT_MIN / -1, saturating conversions,
NaN compares, shift amounts, bit counts, half floats; then the cross-lane
opcodes and scalar carries.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.targets.simt_harness import Launch

INT_MIN, INT_MAX = -(2 ** 31), 2 ** 31 - 1


def registers(itemsize: int, first: int) -> str:
    return f"v{first}" if itemsize == 4 else f"v[{first}:{first + 1}]"


def lanes(op: str, out: Any, *inputs: np.ndarray) -> np.ndarray:
    """Run `op D, A[, B]` (or `op` with `{D}` and `{S}` filled in) with one element of each
    input per lane; the outputs as `out`."""
    n, out = len(inputs[0]), np.dtype(out)
    launch = Launch()
    for array in inputs:
        launch.buffer(array)
    result = launch.output(out, n)
    body = []
    for k, array in enumerate(inputs):
        size = array.dtype.itemsize
        body += [f"  v_lshl_b32 v4, v0, {size.bit_length() - 1}", "  v_mov_b32 v5, 0",
                 f"  s_load_b64 s[8:9], s[0:1], {8 * k}", "  v_add_u64 v[6:7], s[8:9], v[4:5]",
                 f"  global_load_b{8 * size} {registers(size, 10 + 2 * k)}, v[6:7], 0"]
    sources = ", ".join(registers(a.dtype.itemsize, 10 + 2 * k) for k, a in enumerate(inputs))
    line = op if "{D}" in op else op + " {D}, {S}"
    body += ["  " + line.format(D=registers(out.itemsize, 20), S=sources),
             f"  v_lshl_b32 v4, v0, {out.itemsize.bit_length() - 1}", "  v_mov_b32 v5, 0",
             f"  s_load_b64 s[8:9], s[0:1], {8 * len(inputs)}", "  v_add_u64 v[6:7], s[8:9], v[4:5]",
             f"  global_store_b{8 * out.itemsize} v[6:7], {registers(out.itemsize, 20)}, 0"]
    source = "kernel @lanes {\nentry:\n" + "\n".join(body) + "\n  s_endpgm\n}\n"
    launch.run(source, "lanes", (n,), (n,))
    return launch.read(result, out, n)


def test_integer_division_at_its_edges() -> None:
    a = np.array([7, -7, 7, -7, INT_MIN, 5, -5, 0], np.int32)
    b = np.array([2, 2, -2, -2, -1, 0, 0, 3], np.int32)
    np.testing.assert_array_equal(lanes("v_div_i32", np.int32, a, b), [3, -3, -3, 3, INT_MIN, -1, -1, 0])
    np.testing.assert_array_equal(lanes("v_rem_i32", np.int32, a, b), [1, -1, 1, -1, 0, 5, -5, 0])
    u = np.array([10, 10, 2 ** 64 - 1], np.uint64)
    v = np.array([3, 0, 2], np.uint64)
    np.testing.assert_array_equal(lanes("v_div_u64", np.uint64, u, v), [3, 2 ** 64 - 1, 2 ** 63 - 1])
    np.testing.assert_array_equal(lanes("v_rem_u64", np.uint64, u, v), [1, 10, 1])


def test_float_to_integer_conversions_saturate() -> None:
    x = np.array([np.nan, np.inf, -np.inf, 3.7, -3.7, 1e10, -0.5], np.float32)
    np.testing.assert_array_equal(lanes("v_cvt_i32_f32", np.int32, x), [0, INT_MAX, INT_MIN, 3, -3, INT_MAX, 0])
    np.testing.assert_array_equal(lanes("v_cvt_u32_f32", np.uint32, x), [0, 2 ** 32 - 1, 0, 3, 0, 2 ** 32 - 1, 0])
    d = np.array([2.0 ** 63, -1.5, 1e300], np.float64)
    np.testing.assert_array_equal(lanes("v_cvt_i64_f64", np.int64, d), [2 ** 63 - 1, -1, 2 ** 63 - 1])
    big = np.array([2 ** 53 + 1, 2 ** 62 + 2 ** 38 + 1], np.int64)
    np.testing.assert_array_equal(lanes("v_cvt_f32_i64", np.float32, big), big.astype(np.float32))


def test_half_floats_round_trip_through_the_low_16_bits() -> None:
    x = np.array([1.0, 0.1, 65504.0, 1e6, -2.5e-8, np.inf], np.float32)
    with np.errstate(over="ignore"):
        half = x.astype(np.float16)
    bits = lanes("v_cvt_f16_f32", np.uint32, x)
    np.testing.assert_array_equal(bits, half.view(np.uint16))
    np.testing.assert_array_equal(lanes("v_cvt_f32_f16", np.float32, bits | np.uint32(0xABCD0000)),
                                  half.astype(np.float32))


def test_shifts_take_the_low_bits_of_the_amount_and_bits_count() -> None:
    a = np.array([-16, -16, 1, 1], np.int32)
    s = np.array([2, 33, 31, 32], np.uint32)
    np.testing.assert_array_equal(lanes("v_ashr_i32", np.int32, a, s.view(np.int32)), [-4, -8, 0, 1])
    np.testing.assert_array_equal(lanes("v_lshl_b32", np.uint32, a.view(np.uint32), s), [2 ** 32 - 64, 2 ** 32 - 32,
                                                                                        2 ** 31, 1])
    x = np.array([0, 1, 0x80000000, 0xF0], np.uint32)
    np.testing.assert_array_equal(lanes("v_ffbh_u32", np.uint32, x), [32, 31, 0, 24])
    np.testing.assert_array_equal(lanes("v_ffbl_b32", np.uint32, x), [32, 0, 31, 4])
    np.testing.assert_array_equal(lanes("v_bcnt_u32", np.uint32, x), [0, 1, 1, 4])
    np.testing.assert_array_equal(lanes("v_mul_hi_i32", np.int32, np.array([INT_MIN, -3], np.int32),
                                        np.array([INT_MIN, 5], np.int32)), [2 ** 30, -1])


@pytest.mark.parametrize(("predicate", "want"), [("olt", [1, 0, 0, 0]), ("ult", [1, 0, 1, 1]),
                                                 ("une", [1, 0, 1, 1]), ("oeq", [0, 1, 0, 0]),
                                                 ("uno", [0, 0, 1, 1])])
def test_float_compares_with_nan(predicate: str, want: list[int]) -> None:
    a = np.array([1.0, 2.0, np.nan, 1.0], np.float32)
    b = np.array([2.0, 2.0, 1.0, np.nan], np.float32)
    got = lanes(f"v_cmp_{predicate}_f32 s[24:25], {{S}}\n  v_cndmask_b32 {{D}}, 0, 1, s[24:25]", np.uint32, a, b)
    np.testing.assert_array_equal(got, want)


def test_fma_rounds_once() -> None:
    a = np.float32(1 + 2 ** -23)
    x = np.full(4, a, np.float32)
    c = np.array([-1.0, -(1 + 2 ** -22), 0.0, 1.0], np.float32)
    got = lanes("v_fma_f32", np.float32, x, x, c)
    exact = [float(a) * float(a) + float(v) for v in c]
    np.testing.assert_array_equal(got, np.array(exact, np.float32))
    assert got[1] == np.float32(2 ** -46)  # the product's low bits survive: no rounding in between


CROSS_LANE = """
kernel @cross {
entry:
  s_load_b64 s[8:9], s[0:1], 0
  v_mul_lo_u32 v4, v0, 10                ; each lane's value: lane * 10
  v_cmp_ge_u32 s[10:11], v0, 5
  s_and_saveexec_b64 s[12:13], s[10:11]
  v_readfirstlane_b32 s14, v4            ; the first lane on: lane 5
  s_mov_b64 exec, s[12:13]
  v_readlane_b32 s15, v4, 3
  v_writelane_b32 v4, s15, 31            ; lane 31 := lane 3's value, whatever exec holds
  v_sub_u32 v5, 31, v0
  v_bpermute_b32 v6, v5, v4              ; reversed
  v_add_u32 v6, v6, s14
  s_add_u32 s16, 0xFFFFFFFF, 2           ; a carry: scc = 1
  s_cselect_b32 s17, 1000, 0
  v_add_u32 v6, v6, s17
  s_ff1_i32_b64 s18, s[10:11]            ; the first lane of the mask: 5
  s_bcnt1_i32_b64 s19, s[10:11]          ; how many: 27
  v_mul_lo_u32 v7, s18, s19
  v_add_u32 v6, v6, v7
  v_lshl_b32 v8, v0, 2
  v_mov_b32 v9, 0
  v_add_u64 v[8:9], s[8:9], v[8:9]
  global_store_b32 v[8:9], v6, 0
  s_endpgm
}
"""


def test_cross_lane_opcodes_and_scalar_carries() -> None:
    launch = Launch()
    out = launch.output(np.uint32, 32)
    launch.run(CROSS_LANE, "cross", (32,), (32,))
    value = np.arange(32) * 10
    value[31] = 30
    np.testing.assert_array_equal(launch.read(out, np.uint32, 32), value[::-1] + 50 + 1000 + 5 * 27)
