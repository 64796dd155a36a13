"""Group-private atomics on cpu are plain read-modify-writes, with atomic results."""

from __future__ import annotations

import numpy as np

from oclpy.compiler import compile_program
from tools.cpu_harness import run

SRC = """
__kernel void k(__global int *out, __global int *g, __local int *t) {
    int l = get_local_id(0);
    if (l < 8) t[l] = (l == 3) ? 100 : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_inc(&t[0]);
    atomic_add(&t[1], l);
    atomic_max(&t[2], l * 7 % 11);
    atomic_min(&t[3], l);
    atomic_xchg(&t[4], 42);
    atomic_cmpxchg(&t[5], l, l + 1);
    atomic_or(&t[6], 1 << (l % 16));
    atomic_sub(&t[7], 2);
    atomic_inc(&g[0]);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l < 8) out[get_group_id(0) * 8 + l] = t[l];
}
"""


def test_local_atomics_have_no_atomic_instructions_but_global_ones_do() -> None:
    ir = compile_program(SRC).program.llvm_ir
    assert ir.count("atomicrmw") == 1  # only atomic_inc(&g[0]) on global memory


def test_local_atomics_give_atomic_results() -> None:
    k = compile_program(SRC).program.kernels["k"]
    out = np.zeros(16, np.int32)
    g = np.zeros(1, np.int32)
    run(k, [out, g, 8 * 4], (64,), (32,))
    lids = np.arange(32)
    want = [32, int(lids.sum()), int((lids * 7 % 11).max()), 0, 42, 32,
            int(np.bitwise_or.reduce(1 << (lids % 16))), -64]
    assert out.tolist() == want * 2
    assert g[0] == 64


def test_global_atomics_keep_their_lock_whatever_the_scope() -> None:
    from tools.cpu_harness import compile_text

    text = """kernel void @k(ptr<global> %c, ptr<local> %t) {
entry:
  %a = atomicrmw add ptr<global> %c, i32 1 scope(work_group) monotonic
  %b = atomicrmw add ptr<local> %t, i32 1 scope(device) monotonic
  %x = cmpxchg ptr<local> %t, i32 5, i32 9 scope(work_group) monotonic
  ret void
}
"""
    prog = compile_text(text)
    assert prog.llvm_ir.count("atomicrmw") == 1 and "cmpxchg" not in prog.llvm_ir
    c = np.zeros(1, np.int32)
    run(prog.kernels["k"], [c, 4], (64,), (8,))
    assert c[0] == 64
