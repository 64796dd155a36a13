"""Language features the simt code generator once rejected, run through the whole simt
pipeline (selected only, and allocated for the default and the tiny register files, every
allocation checked) and compared with NumPy or Python integers: narrow-vector bitcasts
(`as_char2` and friends, against `ndarray.view`); the saturating and high-half builtins
of 64-bit lanes (once computed in i66/i130, now in 64-bit arithmetic, against Python's
unbounded integers); atomics on private memory and 8/16-bit atomics (the
`expand-atomics` pass), against the sequential result; struct returns through memory
(more words than the return registers), against Python; program-scope `__global`
variables (their persistence between launches: tests/runtime/test_simt_device.py);
private objects aligned above the stack's 16 bytes, in a helper whatever its caller's
frame; irreducible control flow (`goto` into a loop: the split-irreducible pass), against
Python."""

from __future__ import annotations

import numpy as np
import pytest

from oclpy.ir.parser import parse_module
from oclpy.passes.manager import run_pipeline
from oclpy.targets.simt.calling_convention import MIN_REGISTERS
from oclpy.targets.simt.device_config import SimtMachine
from oclpy.targets.simt.simt_target import PIPELINE, compile_simt
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


PRIVATE_ATOMICS = """
kernel void k(global int *out) {
  size_t i = get_global_id(0);
  atomic_int y; atomic_init(&y, (int)i);
  int a = atomic_fetch_add(&y, 5);
  int b = atomic_fetch_max_explicit(&y, 40, memory_order_relaxed);
  int e = (int)i + 5;
  bool swapped = atomic_compare_exchange_strong(&y, &e, 7);
  out[i] = a * 1000000 + b * 1000 + atomic_load(&y) * 10 + swapped;
}
"""


@pytest.mark.parametrize("level", LEVELS)
def test_atomics_on_private_memory_are_read_modify_writes(level: int, regs: str) -> None:
    n = 64
    got, _ = run_cl(PRIVATE_ATOMICS, "k", [np.zeros(n, np.int32)], (n,), (32,), level,
                    options="-cl-std=CL2.0", regs=regs)
    i = np.arange(n)
    after_max = np.maximum(i + 5, 40)
    swapped = after_max == i + 5
    final = np.where(swapped, 7, after_max)
    np.testing.assert_array_equal(got[0], i * 1000000 + (i + 5) * 1000 + final * 10 + swapped)


NARROW_ATOMICS = """
declare i64 @ocl.get_global_id(i32 %a0)
kernel void @k(ptr<global> %bytes, ptr<global> %shorts, ptr<global> %olds) {
entry:
  %i = call i64 @ocl.get_global_id(i32 0)
  %m = urem i64 %i, 7
  %p = getelementptr i8, ptr<global> %bytes, i64 %m
  %o = atomicrmw add ptr<global> %p, i8 1 scope(device) monotonic
  %k = urem i64 %i, 3
  %q = getelementptr i16, ptr<global> %shorts, i64 %k
  %b = urem i64 %i, 16
  %bit = shl i64 1, %b
  %bit16 = trunc i64 %bit to i16
  %o2 = atomicrmw or ptr<global> %q, i16 %bit16 scope(device) monotonic
  %x = getelementptr i8, ptr<global> %bytes, i64 9
  %o3 = cmpxchg ptr<global> %x, i8 0, i8 1 scope(device) monotonic
  %w = zext i8 %o3 to i32
  %r = getelementptr i32, ptr<global> %olds, i64 %i
  store i32 %w, ptr<global> %r
  ret void
}
"""


@pytest.mark.parametrize("files", ["default", "tiny"])
def test_8_and_16_bit_atomics_are_compare_and_swap_loops_on_their_word(files: str) -> None:
    module = parse_module(NARROW_ATOMICS)
    run_pipeline(module, PIPELINE, verify_each=True)
    machine = SimtMachine() if files == "default" else SimtMachine(sgprs=MIN_REGISTERS["s"], vgprs=MIN_REGISTERS["v"])
    program = compile_simt(module, machine, check=True)
    n = 192
    start = np.arange(12, dtype=np.uint8) * 40
    start[9] = 0
    got, _ = run_cl("", "k", [start.copy(), np.zeros(4, np.uint16), np.zeros(n, np.int32)], (n,), (64,),
                    program=program, regs=files)
    i = np.arange(n)
    expected = start.astype(np.int64)
    expected[:7] += np.bincount(i % 7, minlength=7)
    expected[9] = 1  # exactly one work-item's cmpxchg saw the 0
    np.testing.assert_array_equal(got[0], (expected % 256).astype(np.uint8))
    shorts = [np.bitwise_or.reduce(1 << (i[i % 3 == k] % 16)) for k in range(3)] + [0]
    np.testing.assert_array_equal(got[1], np.array(shorts, np.uint16))
    assert sorted(got[2].tolist()) == [0] + [1] * (n - 1)


BIG_RETURN = """
typedef struct { int v[20]; long w; } Big;
__attribute__((noinline)) Big make(int base, int n) {
  Big b;
  for (int k = 0; k < 20; k++) b.v[k] = base * k + n;
  b.w = (long)base << 33 | n;
  return b;
}
__attribute__((noinline)) Big make_args(long a0, long a1, long a2, long a3, long a4, long a5, long a6,
                                        long a7, long a8, int base) {
  Big b;
  for (int k = 0; k < 20; k++) b.v[k] = base + k + (int)(a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8);
  b.w = a8;
  return b;
}
kernel void k(global long *out, int n) {
  size_t i = get_global_id(0);
  Big u = make(3, n), d = make((int)i, n), e = make_args(i, 1, 2, 3, 4, 5, 6, 7, i * 9, (int)i);
  long s = 0;
  for (int k = 0; k < 20; k++) s = s * 31 + u.v[k] + 7 * d.v[k] + 13 * e.v[k];
  out[i] = s + u.w + d.w + e.w;
}
"""


def big_return_reference(i: int, n: int) -> int:
    u, d = [3 * k + n for k in range(20)], [i * k + n for k in range(20)]
    e = [i + k + (i + 28 + 9 * i) for k in range(20)]
    s = 0
    for k in range(20):
        s = (s * 31 + u[k] + 7 * d[k] + 13 * e[k]) % (1 << 64)
    total = (s + (3 << 33 | n) + (i << 33 | n) + 9 * i) % (1 << 64)
    return total - (1 << 64) if total >> 63 else total


@pytest.mark.parametrize("level", LEVELS)
def test_a_struct_larger_than_the_return_registers_returns_through_memory(level: int, regs: str) -> None:
    got, _ = run_cl(BIG_RETURN, "k", [np.zeros(64, np.int64), np.int32(5)], (64,), (32,), level, regs=regs)
    np.testing.assert_array_equal(got[0], [big_return_reference(i, 5) for i in range(64)])


def test_the_caller_reads_a_memory_return_from_its_outgoing_area() -> None:
    asm = asm_of(BIG_RETURN, 2)
    call = asm.index("s_call_b64 s[30:31], @make_args")
    after = asm[call:].splitlines()[1]
    assert "scratch_load_b32" in after and "s32" in after, after


PROGRAM_GLOBALS = """
global long total;
global int table[5] = {10, 20, 30, 40, 50};
global float scale = 0.5f;
__attribute__((noinline)) int entry(size_t i) { return table[i % 5]; }
kernel void k(global int *out) {
  size_t i = get_global_id(0);
  out[i] = entry(i) + (int)(scale * 4);
  atomic_fetch_add((volatile global atomic_long *)&total, (long)i);
}
kernel void read(global long *out) { out[0] = total; for (int j = 0; j < 5; j++) out[1 + j] = table[j]; }
"""


@pytest.mark.parametrize("level", LEVELS)
def test_program_scope_global_variables(level: int, regs: str) -> None:
    got, _ = run_cl(PROGRAM_GLOBALS, "k", [np.zeros(64, np.int32)], (64,), (16,), level,
                    options="-cl-std=CL2.0", regs=regs)
    np.testing.assert_array_equal(got[0], np.array([10, 20, 30, 40, 50])[np.arange(64) % 5] + 2)
    state, _ = run_cl(PROGRAM_GLOBALS, "read", [np.zeros(6, np.int64)], (1,), (1,), level,
                      options="-cl-std=CL2.0", regs=regs)
    np.testing.assert_array_equal(state[0], [0, 10, 20, 30, 40, 50])  # each run_cl starts a fresh program


OVER_ALIGNED = """
typedef struct __attribute__((aligned(64))) { float v[3]; } A64;
__attribute__((noinline)) ulong h(int n) {
  A64 a; a.v[0] = n;
  int __attribute__((aligned(32))) b[5]; b[0] = n;
  return ((ulong)&a.v[0] % 64) * 1000 + ((ulong)&b[0] % 32) * 10 + (a.v[0] != n) + (b[0] != n);
}
kernel void k(global ulong *out, int m) {
  size_t i = get_global_id(0);
  volatile int pads[N]; pads[i % N] = m;
  out[i] = h((int)i + pads[i % N]);
}
"""


@pytest.mark.parametrize("pads", [1, 5, 9, 13])  # the caller's frame: the helper's SP at 16 mod 64 and so on
@pytest.mark.parametrize("level", LEVELS)
def test_private_objects_aligned_above_16_are_aligned_in_a_helper(level: int, pads: int, regs: str) -> None:
    got, _ = run_cl(OVER_ALIGNED, "k", [np.zeros(32, np.uint64), np.int32(3)], (32,), (32,), level,
                    options=f"-DN={pads}", regs=regs)
    np.testing.assert_array_equal(got[0], np.zeros(32, np.uint64))


IRREDUCIBLE = """
kernel void k(global int *out, global const int *in) {
  size_t i = get_global_id(0);
  int x = in[i], n = 0, acc = 1;
  if (x & 1) goto second;
first:
  acc = acc * 3 + n;
  n++;
  if (n > 20) goto done;
second:
  acc = acc + (x >> n % 5);
  n += 2;
  if (n < x % 17) goto first;
  if (acc % 3 == 0 && n < 40) goto second;
done:
  out[i] = acc * 100 + n;
}
"""


def wrap32(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >> 31 else v


def irreducible_reference(x: int) -> int:
    n, acc, at = 0, 1, "second" if x & 1 else "first"
    while True:
        if at == "first":
            acc, n = wrap32(acc * 3 + n), n + 1
            if n > 20:
                break
        acc, n = wrap32(acc + (x >> n % 5)), n + 2
        if n < x % 17:
            at = "first"
            continue
        if acc % 3 == 0 and n < 40:  # C's % of a negative acc is negative, 0 alike
            at = "second"
            continue
        break
    return wrap32(acc * 100 + n)


@pytest.mark.parametrize("level", LEVELS)
def test_a_goto_into_a_loop_runs_after_node_splitting(level: int, regs: str) -> None:
    x = np.random.default_rng(2).integers(0, 1000, 64).astype(np.int32)
    got, _ = run_cl(IRREDUCIBLE, "k", [np.zeros(64, np.int32), x], (64,), (32,), level, regs=regs)
    np.testing.assert_array_equal(got[0], [irreducible_reference(int(v)) for v in x])
