"""The uninitialised check's fast path (`uninit_checks.around_alu`: registers known defined in
every lane skip the bookkeeping) must not hide a value that became undefined: a register
made whole, then overwritten with an undefined value in some lanes, by a scalar load, or by a
vector load, is reported where it matters."""

from __future__ import annotations

import numpy as np

import oclpy as cl
from oclpy.runtime import checking

from run_case import simt_context


def reports_of(source: str, a: np.ndarray | None) -> list[tuple]:
    ctx = simt_context()
    queue = cl.CommandQueue(ctx)
    mf = cl.mem_flags
    buf = (cl.Buffer(ctx, mf.READ_WRITE, 256) if a is None
           else cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=a))
    out = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.zeros(64, np.int32))
    program = cl.Program(ctx, source).build()
    checking.clear()
    program.k(queue, (64,), (64,), buf, out)
    queue.finish()
    return [(r.kind, r.loc.line, r.message, r.work_item, r.count) for r in checking.reports()]


DIVERGENT = """__kernel void k(__global const int *a, __global int *out) {
    int i = get_global_id(0);
    int x = i * 3 + 1;
    out[i] = x;
    if (i & 1) x = a[i];
    if (x > 40) out[i] = 7;
}
"""


def test_a_whole_register_overwritten_undefined_in_some_lanes_is_reported() -> None:
    assert reports_of(DIVERGENT, None) == [
        ("uninitialized", 6, "branch on an uninitialised value", (14, 0, 0), 64)]
    assert reports_of(DIVERGENT, np.arange(64, dtype=np.int32)) == []


SCALAR = """__kernel void k(__global const int *a, __global int *out) {
    int i = get_global_id(0);
    int n = i + 1;
    out[i] = n;
    n = a[3];
    if (n > 3) out[i] = n;
}
"""


def test_a_scalar_load_of_undefined_memory_is_reported_at_the_branch() -> None:
    assert reports_of(SCALAR, None) == [
        ("uninitialized", 6, "branch on an uninitialised value", (0, 0, 0), 64)]
    assert reports_of(SCALAR, np.arange(64, dtype=np.int32)) == []


ADDRESS = """__kernel void k(__global const int *a, __global int *out) {
    int i = get_global_id(0);
    int j = 63 - i;
    out[i] = j;
    j = a[i] & 63;
    out[i] = a[j] + 1;
}
"""


def test_a_vector_load_of_undefined_memory_is_reported_as_an_address() -> None:
    assert reports_of(ADDRESS, None) == [
        ("uninitialized", 6, "uninitialised value used as an address", (0, 0, 0), 64),
        ("uninitialized", 6, "store of an uninitialised value to __global memory", (0, 0, 0), 64)]
    assert reports_of(ADDRESS, np.arange(64, dtype=np.int32)) == []
