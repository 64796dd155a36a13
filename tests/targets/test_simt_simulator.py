"""The simt simulator runs hand-written machine code over whole NDRanges; NumPy checks it."""

from __future__ import annotations

import re

import numpy as np
import pytest

from oclpy.targets.simt.memory_model import LOCAL_APERTURE_HI, PRIVATE_APERTURE_HI
from oclpy.targets.simt.sim_memory import SimError
from oclpy.targets.simt.simulator import SimConfig, config_from_env
from tests.targets.simt_harness import Launch

# Global id in v3 from the hidden block's local size (explicit arguments take 32 bytes here).
GLOBAL_ID = """
  s_load_b32 s15, s[0:1], 48          ; local_size.x (the hidden block starts at 32)
  s_mul_i32 s16, s2, s15
  v_add_u32 v3, s16, v0               ; global id
"""

VADD = f"""
kernel @vadd {{
entry:
  s_load_b128 s[8:11], s[0:1], 0      ; a, b: two 64-bit pointers in one 4-aligned tuple
  s_load_b64 s[12:13], s[0:1], 16     ; c
  s_load_b32 s14, s[0:1], 24          ; n
{GLOBAL_ID}
  v_cmp_lt_u32 s[18:19], v3, s14
  s_and_saveexec_b64 s[20:21], s[18:19]
  s_cbranch_execz done
body:
  v_lshl_b32 v4, v3, 2
  v_mov_b32 v5, 0
  v_add_u64 v[6:7], s[8:9], v[4:5]
  global_load_b32 v8, v[6:7], 0
  v_add_u64 v[6:7], s[10:11], v[4:5]
  global_load_b32 v9, v[6:7], 0
  v_add_f32 v10, v8, v9
  v_add_u64 v[6:7], s[12:13], v[4:5]
  global_store_b32 v[6:7], v10, 0
done:
  s_mov_b64 exec, s[20:21]
  s_endpgm
}}
"""


def vadd(n: int, global_size: int, local_size: int, config: SimConfig) -> tuple[np.ndarray, np.ndarray]:
    launch = Launch()
    rng = np.random.default_rng(n)
    a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    launch.buffer(a)
    launch.buffer(b)
    c = launch.output(np.float32, n)
    launch.arg("I", n)
    stats = launch.run(VADD, "vadd", (global_size,), (local_size,), config=config)
    assert stats.waves == global_size // local_size * -(-local_size // config.wave_width)
    return launch.read(c, np.float32, n), a + b


@pytest.mark.parametrize("width", [8, 16, 32, 64])
def test_vector_add_over_groups_with_a_partial_last_wave(width: int) -> None:
    got, want = vadd(1000, 48 * 21, 48, SimConfig(wave_width=width))  # 48 = 32 + a half wave
    np.testing.assert_array_equal(got, want)


def test_vector_add_in_several_batches() -> None:
    got, want = vadd(5000, 5120, 64, SimConfig(max_lanes=256))
    np.testing.assert_array_equal(got, want)


# out[i] = i % 3 == 0 ? i * 2 : i + 100, as exec-mask code with both sides and a join
IF_ELSE = f"""
kernel @ifelse {{
entry:
  s_load_b64 s[8:9], s[0:1], 0
{GLOBAL_ID}
  v_rem_u32 v4, v3, 3
  v_cmp_eq_u32 s[18:19], v4, 0           ; the condition, per lane
  s_and_saveexec_b64 s[20:21], s[18:19]  ; s[20:21] = exec; exec &= cond
  s_cbranch_execz else
then:
  v_mul_lo_u32 v5, v3, 2
else:
  s_andn2_b64 exec, s[20:21], s[18:19]   ; the other lanes
  s_cbranch_execz join
  v_add_u32 v5, v3, 100
join:
  s_mov_b64 exec, s[20:21]               ; reconverge at the post-dominator
  v_lshl_b32 v6, v3, 2
  v_mov_b32 v7, 0
  v_add_u64 v[6:7], s[8:9], v[6:7]
  global_store_b32 v[6:7], v5, 0
  s_endpgm
}}
"""


def test_divergent_if_else_with_exec_masks() -> None:
    launch = Launch()
    out = launch.output(np.uint32, 256)
    launch.arg("Q", 0)  # padding to the 32 explicit bytes GLOBAL_ID assumes
    launch.arg("Q", 0)
    launch.arg("Q", 0)
    launch.run(IF_ELSE, "ifelse", (256,), (64,))
    i = np.arange(256, dtype=np.uint32)
    np.testing.assert_array_equal(launch.read(out, np.uint32, 256), np.where(i % 3 == 0, i * 2, i + 100))


# out[i] = 0 + 1 + ... + (i % 37): each lane leaves the loop in its own iteration
LOOP = f"""
kernel @triangle {{
entry:
  s_load_b64 s[8:9], s[0:1], 0
{GLOBAL_ID}
  v_rem_u32 v6, v3, 37                 ; the lane's trip count - 1
  v_mov_b32 v4, 0                      ; k
  v_mov_b32 v5, 0                      ; sum (temporal divergent after the loop)
  s_mov_b64 s[22:23], exec             ; the lanes that enter
loop:
  v_add_u32 v5, v5, v4
  v_cmp_ge_u32 s[24:25], v4, v6        ; lanes that exit now
  s_andn2_b64 exec, exec, s[24:25]     ; ... leave exec
  v_add_u32 v4, v4, 1
  s_cbranch_execnz loop                ; loop while any lane is left
flow:
  s_mov_b64 exec, s[22:23]             ; the flow block restores the lanes that entered
  v_lshl_b32 v10, v3, 2
  v_mov_b32 v11, 0
  v_add_u64 v[10:11], s[8:9], v[10:11]
  global_store_b32 v[10:11], v5, 0
  s_endpgm
}}
"""


def test_loop_with_a_divergent_exit() -> None:
    launch = Launch()
    out = launch.output(np.uint32, 200)
    launch.args += bytes(24)
    stats = launch.run(LOOP, "triangle", (200,), (40,))
    k = np.arange(200) % 37
    np.testing.assert_array_equal(launch.read(out, np.uint32, 200), k * (k + 1) // 2)
    assert stats.steps < 200  # waves of a batch step together: 37 iterations, not 200 work-items


# Each group sums its 64 inputs in local memory: a tree with a barrier per level.
REDUCE = """
kernel @reduce local_bytes=256 {
entry:
  s_load_b128 s[8:11], s[0:1], 0        ; in, out
  s_mul_i32 s16, s2, 64
  v_add_u32 v3, s16, v0                 ; global id
  v_lshl_b32 v4, v3, 2
  v_mov_b32 v5, 0
  v_add_u64 v[4:5], s[8:9], v[4:5]
  global_load_b32 v6, v[4:5], 0
  v_lshl_b32 v7, v0, 2                  ; local offset of this lane's slot
  ds_store_b32 v7, v6, 0
  s_barrier
  s_mov_b32 s20, 32                     ; stride
level:
  v_cmp_lt_u32 s[22:23], v0, s20
  s_and_saveexec_b64 s[24:25], s[22:23]
  s_cbranch_execz next
  v_add_u32 v8, v0, s20
  v_lshl_b32 v8, v8, 2
  ds_load_b32 v9, v7, 0
  ds_load_b32 v10, v8, 0
  v_add_u32 v9, v9, v10
  ds_store_b32 v7, v9, 0
next:
  s_mov_b64 exec, s[24:25]
  s_barrier
  s_lshr_b32 s20, s20, 1                ; scc = the new stride is not 0
  s_cbranch_scc1 level
  v_cmp_eq_u32 s[22:23], v0, 0
  s_and_saveexec_b64 s[24:25], s[22:23]
  s_cbranch_execz end
  ds_load_b32 v9, 0, 0
  s_lshl_b32 s17, s2, 2
  v_mov_b32 v12, s17
  v_mov_b32 v13, 0
  v_add_u64 v[12:13], s[10:11], v[12:13]
  global_store_b32 v[12:13], v9, 0
end:
  s_endpgm
}
"""


@pytest.mark.parametrize("width", [16, 32, 64])
def test_local_memory_reduction_with_barriers(width: int) -> None:
    launch = Launch()
    data = np.random.default_rng(3).integers(0, 1000, 64 * 12, dtype=np.uint32)
    launch.buffer(data)
    out = launch.output(np.uint32, 12)
    launch.run(REDUCE, "reduce", (64 * 12,), (64,), config=SimConfig(wave_width=width))
    np.testing.assert_array_equal(launch.read(out, np.uint32, 12), data.reshape(12, 64).sum(axis=1))


# A global counter (every lane gets a distinct ticket), a local histogram merged into a
# global one, and the other atomic operations on one word each.
ATOMICS = """
kernel @atomics local_bytes=32 {
entry:
  s_load_b128 s[8:11], s[0:1], 0        ; counter, tickets
  s_load_b128 s[12:15], s[0:1], 16      ; histogram, values
  s_load_b64 s[16:17], s[0:1], 32       ; misc words
  s_mul_i32 s18, s2, 64
  v_add_u32 v3, s18, v0
  v_lshl_b32 v4, v3, 2
  v_mov_b32 v5, 0
  v_mov_b32 v20, 1
  global_atomic_add_u32 v6, s[8:9], v20, 0         ; old counter value: the ticket
  v_add_u64 v[8:9], s[10:11], v[4:5]
  global_store_b32 v[8:9], v6, 0
  v_cmp_lt_u32 s[20:21], v0, 8                      ; clear the local histogram
  s_and_saveexec_b64 s[22:23], s[20:21]
  v_lshl_b32 v10, v0, 2
  ds_store_b32 v10, 0, 0
  s_mov_b64 exec, s[22:23]
  s_barrier
  v_add_u64 v[8:9], s[14:15], v[4:5]
  global_load_b32 v11, v[8:9], 0
  v_and_b32 v12, v11, 7
  v_lshl_b32 v12, v12, 2
  ds_atomic_add_u32 v13, v12, v20, 0
  s_barrier
  s_and_saveexec_b64 s[22:23], s[20:21]
  ds_load_b32 v14, v10, 0
  v_mov_b32 v25, 0
  v_add_u64 v[24:25], s[12:13], v[10:11]            ; histogram + lid * 4 (v11 is overwritten next)
  v_mov_b32 v24, v10
  v_mov_b32 v25, 0
  v_add_u64 v[24:25], s[12:13], v[24:25]
  global_atomic_add_u32 v18, v[24:25], v14, 0
  s_mov_b64 exec, s[22:23]
  global_atomic_smax_i32 v18, s[16:17], v11, 0      ; misc[0] = max
  global_atomic_umin_u32 v18, s[16:17], v11, 4      ; misc[1] = min (starts all ones)
  global_atomic_xor_b32 v18, s[16:17], v11, 8       ; misc[2] = xor
  v_cvt_f32_u32 v19, v11
  global_atomic_fadd_f32 v18, s[16:17], v19, 12     ; misc[3] = float sum
  v_add_u32 v19, v3, 1
  global_atomic_cmpswap_b32 v18, s[16:17], 0, v19, 16 ; misc[4]: the first lane in order wins
  ds_atomic_or_b32 v18, 0, v11, 28                  ; local word 7: or of the group's values
  s_endpgm
}
"""


def test_global_and_local_atomics() -> None:
    launch = Launch()
    n = 64 * 6
    counter = launch.buffer(np.zeros(1, np.uint32))
    tickets = launch.output(np.uint32, n)
    histogram = launch.buffer(np.zeros(8, np.uint32))
    values = np.random.default_rng(5).integers(1, 1 << 12, n, dtype=np.uint32)
    launch.buffer(values)
    misc = launch.buffer(np.array([0, 0xFFFFFFFF, 0, 0, 0], np.uint32))
    launch.run(ATOMICS, "atomics", (n,), (64,))
    assert launch.read(counter, np.uint32, 1)[0] == n
    np.testing.assert_array_equal(np.sort(launch.read(tickets, np.uint32, n)), np.arange(n))
    np.testing.assert_array_equal(launch.read(histogram, np.uint32, 8), np.bincount(values & 7, minlength=8))
    got = launch.read(misc, np.uint32, 5)
    assert got[0] == values.max() and got[1] == values.min()
    assert got[2] == np.bitwise_xor.reduce(values)
    assert got[3].view(np.float32) == np.float32(values.sum())  # exact: small integers
    assert got[4] == 1  # lane 0 of group 0 swapped 0 for 1; every later compare failed


# The hidden block: one 128-bit load gives the group counts and the work dimension.
HIDDEN = """
kernel @hidden {
entry:
  s_load_b64 s[8:9], s[0:1], 0
  s_load_b128 s[12:15], s[0:1], 8       ; num_groups x, y, z and work_dim (hidden block at 8)
  s_load_b256 s[16:23], s[0:1], 24      ; local_size, 0, global_offset x
  s_cmp_eq_u32 s2, 1
  s_cbranch_scc0 end
  s_cmp_eq_u32 s3, 2
  s_cbranch_scc0 end
  v_cmp_eq_u32 s[24:25], v0, 0
  s_and_saveexec_b64 s[26:27], s[24:25]
  v_mov_b32 v12, s12
  v_mov_b32 v13, s13
  v_mov_b32 v14, s14
  v_mov_b32 v15, s15
  global_store_b128 s[8:9], v[12:15], 0
  v_mov_b32 v16, s16
  v_mov_b32 v17, s17
  v_mov_b32 v18, s18
  v_mov_b32 v19, s19
  global_store_b128 s[8:9], v[16:19], 16
  v_mov_b64 v[20:21], s[20:21]
  global_store_b64 s[8:9], v[20:21], 32
end:
  s_endpgm
}
"""


def test_kernarg_scalar_loads_of_the_hidden_block() -> None:
    launch = Launch()
    out = launch.output(np.uint32, 10)
    launch.run(HIDDEN, "hidden", (8, 12), (4, 3), global_offset=(7, 0))
    got = launch.read(out, np.uint32, 10)
    np.testing.assert_array_equal(got[:8], [2, 4, 1, 2, 4, 3, 1, 0])
    assert got[8] == 7 and got[9] == 0


# A call with the ABI: uniform argument in s0, per-lane ones in v0, v1, the result in v0.
# @outer keeps its return address in callee-saved s[36:37] and k in callee-saved v32,
# saving both in its frame (SP-relative scratch) first.
CALLS = """
kernel @caller private_bytes=64 {
entry:
  s_load_b64 s[8:9], s[0:1], 0
  v_mov_b32 v40, v0                     ; local id, kept in callee-saved v40
  s_mov_b32 s36, 1234                   ; callee-saved: must survive the calls
  v_mov_b32 v32, 99
  v_mov_b32 v1, 7
  s_mov_b32 s0, 5
  s_call_b64 s[30:31], @outer uses[s0, v0, v1] defs[v0]
  v_add_u32 v0, v0, v32                 ; + 99 when v32 survived
  v_add_u32 v0, v0, s36                 ; + 1234 when s36 survived
  v_lshl_b32 v2, v40, 2
  v_mov_b32 v3, 0
  v_add_u64 v[2:3], s[8:9], v[2:3]
  global_store_b32 v[2:3], v0, 0
  s_endpgm
}

func @outer {
entry:
  s_scratch_store_b64 s[36:37], s32, 0  ; save the callee-saved registers it uses
  scratch_store_b32 s32, v32, 8
  s_add_u32 s32, s32, 16                ; its frame
  s_mov_b64 s[36:37], s[30:31]
  v_mov_b32 v32, s0                     ; k lives across the call
  s_call_b64 s[30:31], @madd uses[s0, v0, v1] defs[v0]
  v_add_u32 v0, v0, v32                 ; x * k + y + k
  s_mov_b64 s[30:31], s[36:37]
  s_sub_u32 s32, s32, 16
  scratch_load_b32 v32, s32, 8
  s_scratch_load_b64 s[36:37], s32, 0
  s_setpc_b64 s[30:31] uses[v0]
}

func @madd {
entry:
  v_mad_u32 v0, v0, s0, v1
{clobber}  s_setpc_b64 s[30:31] uses[v0]
}
"""


def test_call_and_return_with_the_abi() -> None:
    launch = Launch()
    out = launch.output(np.uint32, 96)
    launch.run(CALLS.replace("{clobber}", ""), "caller", (96,), (96,))
    lid = np.arange(96)
    np.testing.assert_array_equal(launch.read(out, np.uint32, 96), lid * 5 + 7 + 5 + 99 + 1234)


def test_a_callee_that_clobbers_a_callee_saved_register_shows() -> None:
    launch = Launch()
    out = launch.output(np.uint32, 32)
    launch.run(CALLS.replace("{clobber}", "  v_mov_b32 v32, 0\n"), "caller", (32,), (32,))
    lid = np.arange(32)
    assert (launch.read(out, np.uint32, 32) != lid * 5 + 7 + 5 + 99 + 1234).all()


# 64-bit integers and doubles in register pairs.
WIDE = """
kernel @wide {
entry:
  s_load_b128 s[8:11], s[0:1], 0        ; x (u64), y (f64)
  s_load_b128 s[12:15], s[0:1], 16      ; out_i (u64), out_f (f64)
  v_lshl_b32 v2, v0, 3
  v_mov_b32 v3, 0
  v_add_u64 v[4:5], s[8:9], v[2:3]
  global_load_b64 v[6:7], v[4:5], 0
  v_mul_lo_u64 v[8:9], v[6:7], 0x9E3779B97F4A7C15
  v_lshr_b64 v[10:11], v[8:9], 29
  v_xor_b64 v[8:9], v[8:9], v[10:11]
  v_mul_hi_u64 v[10:11], v[6:7], v[6:7]
  v_add_u64 v[8:9], v[8:9], v[10:11]
  v_div_i64 v[10:11], v[8:9], -7
  v_sub_u64 v[8:9], v[8:9], v[10:11]
  v_add_u64 v[4:5], s[12:13], v[2:3]
  global_store_b64 v[4:5], v[8:9], 0
  v_add_u64 v[4:5], s[10:11], v[2:3]
  global_load_b64 v[12:13], v[4:5], 0
  v_fma_f64 v[14:15], v[12:13], v[12:13], 1.0
  v_sqrt_f64 v[14:15], v[14:15]
  v_cvt_f64_i32 v[16:17], v0
  v_div_f64 v[14:15], v[14:15], v[16:17]       ; lane 0: x / 0.0
  v_cmp_ogt_f64 s[16:17], v[14:15], 1.5
  v_cndmask_b64 v[14:15], v[14:15], -1.0, s[16:17]
  v_add_u64 v[4:5], s[14:15], v[2:3]
  global_store_b64 v[4:5], v[14:15], 0
  s_endpgm
}
"""


def test_64_bit_integers_and_doubles_in_register_pairs() -> None:
    launch = Launch()
    rng = np.random.default_rng(9)
    x = rng.integers(0, 1 << 63, 64, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    y = rng.standard_normal(64)
    launch.buffer(x)
    launch.buffer(y)
    out_i = launch.output(np.uint64, 64)
    out_f = launch.output(np.float64, 64)
    launch.run(WIDE, "wide", (64,), (64,))
    want_i = []
    for v in x.tolist():
        t = (v * 0x9E3779B97F4A7C15) % (1 << 64)
        t ^= t >> 29
        t = (t + ((v * v) >> 64)) % (1 << 64)
        s = t - (1 << 64) if t >= 1 << 63 else t
        q = -(abs(s) // 7) if s > 0 else abs(s) // 7  # C division by -7
        want_i.append((t - q) % (1 << 64))
    np.testing.assert_array_equal(launch.read(out_i, np.uint64, 64), np.array(want_i, np.uint64))
    with np.errstate(divide="ignore"):
        want_f = np.sqrt(y * y + 1.0) / np.arange(64)
    want_f = np.where(want_f > 1.5, -1.0, want_f)
    np.testing.assert_allclose(launch.read(out_f, np.float64, 64), want_f, rtol=1e-15)


# Generic addresses: the apertures route flat accesses to local and private memory.
FLAT = f"""
kernel @flat local_bytes=256 private_bytes=16 {{
entry:
  s_load_b64 s[8:9], s[0:1], 0
  v_lshl_b32 v2, v0, 2                  ; a local offset, a private offset of 0
  v_mov_b32 v3, {LOCAL_APERTURE_HI}
  v_add_u32 v4, v0, 1000
  flat_store_b32 v[2:3], v4, 0          ; generic -> local
  v_mov_b32 v6, 4
  v_mov_b32 v7, {PRIVATE_APERTURE_HI}
  v_mul_lo_u32 v8, v0, 3
  flat_store_b32 v[6:7], v8, 0          ; generic -> this lane's private offset 4
  s_barrier
  ds_load_b32 v9, v2, 0
  scratch_load_b32 v10, 4, 0
  v_add_u32 v9, v9, v10
  v_mov_b32 v3, 0
  v_add_u64 v[2:3], s[8:9], v[2:3]
  flat_store_b32 v[2:3], v9, 0          ; generic -> global
  s_endpgm
}}
"""


def test_flat_addresses_reach_local_and_private_through_apertures() -> None:
    launch = Launch()
    out = launch.output(np.uint32, 64)
    launch.run(FLAT, "flat", (64,), (64,))
    lid = np.arange(64)
    np.testing.assert_array_equal(launch.read(out, np.uint32, 64), lid + 1000 + lid * 3)


def test_virtual_registers_run_before_allocation() -> None:
    source = """
kernel @virt {
entry:
  s_load_b64 %s0:64, s[0:1], 0
  v_lshl_b32 %v1, v0, 2
  v_mov_b32 %v9, 0
  p_join %v2:64, %v1, %v9
  p_copy %v3:64, %s0:64
  v_add_u64 %v4:64, %v3:64, %v2:64
  v_cvt_f32_u32 %v5, v0
  v_mul_f32 %v5, %v5, 0.5
  p_split %v6, %v7, %v4:64
  p_join %v8:64, %v6, %v7
  global_store_b32 %v8:64, %v5, 0
  s_endpgm
}
"""
    launch = Launch()
    out = launch.output(np.float32, 32)
    launch.run(source, "virt", (32,), (32,))
    np.testing.assert_array_equal(launch.read(out, np.float32, 32), np.arange(32, dtype=np.float32) * 0.5)


def test_register_files_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OCLPY_SIMT_SGPRS", "48")
    monkeypatch.setenv("OCLPY_SIMT_VGPRS", "32")
    monkeypatch.setenv("OCLPY_SIMT_WAVE", "16")
    assert config_from_env() == SimConfig(wave_width=16, sgprs=48, vgprs=32)
    assert config_from_env(wave_width=64).wave_width == 64


# -- errors: each names the instruction, the wave and the lane ---------------------------

def out_of_range(body: str, attrs: str = "", local_size: int = 32, **launch_options: object) -> str:
    launch = Launch()
    launch.output(np.uint32, 16)
    source = f"kernel @bad {attrs} {{\nentry:\n  s_load_b64 s[8:9], s[0:1], 0\n{body}\n  s_endpgm\n}}\n"
    with pytest.raises(SimError) as info:
        launch.run(source, "bad", (64,), (local_size,), **launch_options)
    return str(info.value)


def test_a_global_access_past_the_buffer_end_is_reported() -> None:
    message = out_of_range("  v_lshl_b32 v2, v0, 2\n  v_mov_b32 v3, 0\n  v_add_u64 v[2:3], s[8:9], v[2:3]\n"
                           "  global_store_b32 v[2:3], v0, 0")
    assert message.startswith("@bad: 'global_store_b32 v[2:3], v0, 0' in lane 16 of wave 0 of work-group (0, 0, 0):")
    assert message.endswith("is 0 bytes past the end of the 64-byte buffer at 0x100000000")


def test_a_store_to_the_read_only_kernarg_segment_is_reported() -> None:
    message = out_of_range("  global_store_b32 s[0:1], v0, 0")
    assert "lane 0 of wave 0 of work-group (0, 0, 0): 4-byte store at" in message
    assert message.endswith("the buffer kernarg of @bad is read-only")


def test_local_and_private_accesses_out_of_range_are_reported() -> None:
    message = out_of_range("  v_lshl_b32 v2, v0, 3\n  ds_load_b64 v[4:5], v2, 0", "local_bytes=128")
    assert message.endswith("lane 16 of wave 0 of work-group (0, 0, 0): "
                            "8-byte local access at offset 0x80 is outside the work-group's 128 bytes")
    message = out_of_range("  scratch_store_b32 v0, v0, 14", "private_bytes=16")
    assert message.endswith("lane 0 of wave 0 of work-group (0, 0, 0): "
                            "4-byte private access at offset 0xe is outside the lane's 16 bytes")
    message = out_of_range(f"  v_mov_b32 v7, {LOCAL_APERTURE_HI}\n  flat_load_b32 v4, v[6:7], 0")
    assert "local access at offset 0xdeadbeef is outside the work-group's 0 bytes" in message


def test_a_jump_to_no_instruction_is_reported() -> None:
    message = out_of_range("  s_mov_b64 s[30:31], 12\n  s_setpc_b64 s[30:31]")
    assert message.endswith("wave 0 of work-group (0, 0, 0): jumps to 0xc, which is no instruction's address")


def test_barrier_divergence_is_reported() -> None:
    message = out_of_range("  s_cmp_eq_u32 s5, 1\n  s_cbranch_scc1 skip\n  s_barrier\nskip:\n  s_nop", local_size=64)
    assert message == ("barrier divergence in work-group (0, 0, 0): wave 0 waits at instruction 3, wave 1 ended")
    message = out_of_range("  s_cmp_eq_u32 s5, 1\n  s_cbranch_scc1 other\n  s_barrier\n  s_endpgm\n"
                           "other:\n  s_barrier", local_size=64)
    assert message == ("barrier divergence in work-group (0, 0, 0): wave 0 waits at instruction 3, "
                       "wave 1 waits at instruction 5")


def test_a_trap_and_a_runaway_loop_are_reported() -> None:
    assert out_of_range("  s_trap 7").endswith("wave 0 of work-group (0, 0, 0): trap 7")
    message = out_of_range("spin:\n  s_branch spin", config=SimConfig(max_steps=1000))
    assert message == "the kernel did not finish within 1000 steps"


def test_registers_outside_the_configured_files_are_refused() -> None:
    message = out_of_range("  s_mov_b32 s60, 0\n  v_mov_b32 v30, 0", config=SimConfig(sgprs=48, vgprs=24))
    assert message == "@bad: s_mov_b32 uses s60, outside the 48-register scalar file"
    assert "must be a multiple of 4 and at least 48" in out_of_range("", config=SimConfig(sgprs=20))


def test_gather_and_scatter_move_aligned_words_as_the_bytes_would() -> None:
    """Aligned 4- and 8-byte accesses go as whole words: the same bytes as the byte-wise path,
    and where two rows of one scatter overlap the later still wins."""
    from oclpy.targets.simt.sim_memory import gather, scatter

    data = np.arange(64, dtype=np.uint8)
    for n, offsets in ((4, [0, 8, 4, 60]), (8, [0, 56, 8]), (4, [1, 6, 9]), (2, [0, 62])):
        o = np.array(offsets)
        want = data[o[:, None] + np.arange(n)]
        np.testing.assert_array_equal(gather(data, o, n), want)
    into = np.zeros(24, np.uint8)
    scatter(into, np.array([8, 0, 8]), np.arange(24, dtype=np.uint8).reshape(3, 8))
    assert into[:16].tolist() == list(range(8, 16)) + list(range(16, 24))
    scatter(into, np.array([17, 18]), np.array([[1, 2, 3, 4], [5, 6, 7, 8]], np.uint8))  # unaligned: bytes
    assert into[16:24].tolist() == [0, 1, 5, 6, 7, 8, 0, 0]


def test_wide_accesses_move_rows_of_aligned_words_as_the_bytes_would() -> None:
    """16-byte accesses (a float4) at 8- or 4-aligned offsets go as rows of words, unaligned
    ones byte-wise: the same bytes either way; overlapping rows of one scatter, the later wins."""
    from oclpy.targets.simt.sim_memory import gather, scatter

    data = np.arange(128, dtype=np.uint8)
    for n, offsets in ((16, [0, 16, 112, 8]), (16, [4, 12, 100]), (16, [1, 6]), (12, [0, 4, 116]), (32, [0, 64, 8])):
        o = np.array(offsets)
        np.testing.assert_array_equal(gather(data, o, n), data[o[:, None] + np.arange(n)])
    for offsets in ([0, 8, 32], [4, 8, 100], [3, 5, 40]):
        o = np.array(offsets)
        rows = (np.arange(48, dtype=np.uint8) + 100).reshape(3, 16)
        into, want = np.zeros(128, np.uint8), np.zeros(128, np.uint8)
        scatter(into, o, rows)
        for k, at in enumerate(offsets):  # the byte-wise meaning, row by row
            want[at:at + 16] = rows[k]
        np.testing.assert_array_equal(into, want)


UNIFORM_LOADS = """
__kernel void k(__global const int4 *c, __global int4 *out, __local int4 *t, int m) {
    int i = get_global_id(0), l = get_local_id(0);
    if (l == 0)
        t[0] = c[3];
    barrier(CLK_LOCAL_MEM_FENCE);
    int4 acc = (int4)(0);
    if (i % 3 != 0)  /* lane 0 of each wave is off */
        for (int k = 0; k < m; ++k)
            acc += c[k] * t[0] + (int4)(k);
    out[i] = acc;
}
"""


@pytest.mark.parametrize("regs", ["default", "tiny"])
def test_loads_from_a_scalar_address_are_read_once_per_wave(regs: str) -> None:
    """c[k] and t[0] have scalar addresses: each wave reads them once (global and local),
    and its lanes on get them; lanes off keep their registers."""
    from tests.targets.simt_cl_harness import Local, compile_cl, run_cl, sim_config

    c = np.arange(40, dtype=np.int32).reshape(10, 4)
    program = compile_cl(UNIFORM_LOADS, regs=regs)
    assert re.search(r"global_load_b128 v\[\d+:\d+\], s\[", format_isa(program))  # a scalar address
    (_, out, _, _), _ = run_cl(UNIFORM_LOADS, "k", [c, np.zeros((96, 4), np.int32), Local(16), np.int32(10)],
                               (96,), (32,), program=program, config=sim_config(regs))
    want = sum(c[k].astype(np.int64) * c[3] + k for k in range(10)).astype(np.int32)
    expected = np.where((np.arange(96) % 3 != 0)[:, None], want, 0)
    np.testing.assert_array_equal(out, expected)


def test_a_load_from_a_scalar_address_out_of_range_names_the_first_lane_on() -> None:
    from tests.targets.simt_cl_harness import Local, compile_cl, run_cl

    c = np.arange(40, dtype=np.int32).reshape(10, 4)
    program = compile_cl(UNIFORM_LOADS)
    with pytest.raises(SimError, match=r"'global_load_b128 v\[\d+:\d+\], s\[\d+:\d+\], 0' in lane 1 of wave 0 of "
                                       r"work-group \(0, 0, 0\): 16-byte access at 0x1000000a0 is 0 bytes past the "
                                       r"end of the 160-byte buffer"):
        run_cl(UNIFORM_LOADS, "k", [c, np.zeros((32, 4), np.int32), Local(16), np.int32(11)], (32,), (32,),
               program=program)


def format_isa(program: object) -> str:
    from oclpy.targets.simt.asm_printer import format_module

    return format_module(program.module)  # type: ignore[attr-defined]
