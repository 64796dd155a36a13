"""A vector value reaching a switch's join by the switch's own default edge, against the cpu
device: found by the generated-program differential (tools/progen/simt_vs_cpu.py, seed 455,
reduced by hand). The phi copies of each edge run under that edge's lanes; a uniform value
they read from the first lane on (`v_readfirstlane_b32`) was cached and reused by the next
edge's copies, so with no lane taking case 1 the default edge stored what an empty exec
read (isel_control.send)."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy as cl

SOURCE = """kernel void k(global ulong *out, global const int *input, long klong) {
  __local int lslot[64];
  int lid = get_local_id(0);
  lslot[lid] = lid;
  int x = input[lid];
  int y = (x > 0 && x < 30) || (x < -5) ? x * 3 : x;
  lslot[(lslot[klong & 3]) & 3] = y;
  ulong4 v3 = (ulong4)(2493020851912411444UL, 22UL, 8UL, 30UL);
  for (uint i = 0; i < 0; i++) v3 *= v3.zzyy;
  switch (klong & 7) { case 4: { v3.s3++; } case 1: { } }
  out[get_global_id(0)] = v3.s0;
}"""


def _run(kind: str, klong: int, options: str = "") -> np.ndarray:
    dev = next(d for d in cl.get_platforms()[0].get_devices() if d.kind == kind)
    ctx = cl.Context([dev])
    queue = cl.CommandQueue(ctx)
    out = np.zeros(16, np.uint64)
    mf = cl.mem_flags
    buf = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=out)
    inp = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=np.arange(64, dtype=np.int32) - 20)
    cl.Program(ctx, SOURCE).build(options=options).k(queue, (16,), (16,), buf, inp, np.int64(klong))
    cl.enqueue_copy(queue, out, buf)
    return out


@pytest.mark.parametrize("klong", [4, 1, 0])
def test_a_vector_through_a_switch_matches_the_cpu(klong: int) -> None:
    want = np.full(16, 2493020851912411444, np.uint64)
    assert _run("cpu", klong).tolist() == want.tolist()
    assert _run("simt", klong).tolist() == want.tolist()


def test_the_same_kernel_at_O0_matches_on_simt() -> None:
    assert _run("simt", 0, "-cl-opt-disable").tolist() == [2493020851912411444] * 16
