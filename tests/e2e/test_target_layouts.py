"""Null pointers and pointer sizes as each device's DataLayout has them, run on the cpu
and simt devices (the frontend's side: tests/frontend/test_target_layouts.py).

On simt (AMDGPU's memory model) private and local pointers are 32-bit offsets whose
null is all ones; the generic null is 0 and casts between generic and a named space
map null to null. Expected values: clang-14 -x cl for x86_64 and amdgcn-amd-amdhsa
where it folds them, else the OpenCL C spec (to_private/to_local give the space's
null for a pointer that is not there)."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy as cl

NULLS = """
kernel void k(global ulong *out) {
  private int *p = 0; local int *l = 0; global int *g = 0;
  out[0] = (ulong)p; out[1] = (ulong)l; out[2] = (ulong)g;
  union { private int *p; uint u; } up; up.p = 0; out[3] = up.u;
  union { local int *p; uint u; } ul; ul.p = 0; out[4] = ul.u;
  out[5] = p == 0; out[6] = l == 0;
}
"""
ONES = 0xFFFFFFFF

GENERIC = """
kernel void k(global ulong *out) {
  private int x = 1;
  private int *p = 0; private int *q = &x;
  generic int *gp = p; generic int *gq = q;
  out[0] = (ulong)gp;
  out[1] = p == 0; out[2] = gp == 0; out[3] = gq != 0;
  out[4] = to_private(gq) == q;
  out[5] = (ulong)to_local(gq);
  out[6] = (ulong)to_private(gp);
  out[7] = (ulong)to_global(gq);
  out[8] = *to_private(gq);
  out[9] = sizeof(p); out[10] = sizeof(gp);
}
"""  # generic pointers and to_private/to_local/to_global: built with -cl-std=CL2.0

CASES = {
    ("cpu", "nulls"): [0, 0, 0, 0, 0, 1, 1],
    ("simt", "nulls"): [ONES, ONES, 0, ONES, ONES, 1, 1],
    ("cpu", "generic"): [0, 1, 1, 1, 1, 0, 0, 0, 1, 8, 8],
    ("simt", "generic"): [0, 1, 1, 1, 1, ONES, ONES, 0, 1, 4, 8],
}
SOURCES = {"nulls": (NULLS, "-cl-std=CL1.2"), "generic": (GENERIC, "-cl-std=CL2.0")}


def run_on(kind: str, source: str, options: str, count: int) -> list[int]:
    devices = [d for d in cl.get_platforms()[0].get_devices() if d.kind == kind]
    ctx = cl.Context(devices)
    queue = cl.CommandQueue(ctx)
    out = np.zeros(count, np.uint64)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=out)
    cl.Program(ctx, source).build(options=options).k(queue, (1,), (1,), buf)
    cl.enqueue_copy(queue, out, buf)
    queue.finish()
    return [int(v) for v in out]


@pytest.mark.parametrize("level", ["-O0", "-O2"])
@pytest.mark.parametrize("kind,case", sorted(CASES))
def test_null_pointers_and_their_casts_follow_the_devices_layout(kind: str, case: str, level: str) -> None:
    source, options = SOURCES[case]
    expected = CASES[kind, case]
    assert run_on(kind, source, f"{options} {level}", len(expected)) == expected
