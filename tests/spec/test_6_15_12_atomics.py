"""OpenCL C 6.15.12 atomic functions (atomic_* and the cl_khr_*_atomics atom_*
forms) on 32- and 64-bit integers in global and local memory, atomic_xchg on
float, under contention from many work-items; old values are checked too
(atomic_inc hands out each ticket exactly once)."""

from __future__ import annotations

import numpy as np
import pytest

from .elementwise import DTYPES

PRE = ("#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n"
       "#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable\n")
GLOBAL, LOCAL = 1024, 64


def _kernel(t: str, prefix: str) -> str:
    a = lambda op, *args: f"{prefix}{op}({', '.join(args)})"  # noqa: E731
    return PRE + f"""
__kernel void k(volatile __global {t} *C, __global {t} *old, __global const {t} *V, volatile __global {t} *R) {{
    size_t i = get_global_id(0), l = get_local_id(0);
    {t} v = V[i];
    old[i] = {a('inc', '&C[0]')};
    {a('add', '&C[1]', 'v')};
    {a('sub', '&C[2]', 'v')};
    {a('dec', '&C[3]')};
    {a('min', '&C[4]', 'v')};
    {a('max', '&C[5]', 'v')};
    {a('and', '&C[6]', '~((' + t + ')1 << (i % 61 % (sizeof(' + t + ') * 8)))')};
    {a('or', '&C[7]', '(' + t + ')1 << (i % (sizeof(' + t + ') * 8))')};
    {a('xor', '&C[8]', 'v')};
    old[{GLOBAL} + i] = {a('xchg', '&C[9]', '(' + t + ')i')};
    /* a lock-free increment by compare-and-swap */
    {t} seen = C[10], prev;
    while ((prev = {a('cmpxchg', '&C[10]', 'seen', 'seen + 2')}) != seen) seen = prev;
    __local {t} L[2];
    if (l == 0) {{ L[0] = 0; L[1] = 0; }}
    barrier(CLK_LOCAL_MEM_FENCE);
    {a('add', '&L[0]', '(' + t + ')1')};
    {a('max', '&L[1]', 'v')};
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) {{ R[get_group_id(0) * 2] = L[0]; R[get_group_id(0) * 2 + 1] = L[1]; }}
}}"""


CASES = [(t, p) for t in ("int", "uint") for p in ("atomic_", "atom_")] + \
        [(t, "atom_") for t in ("long", "ulong")] + [(t, "atomic_") for t in ("long", "ulong")]


@pytest.mark.parametrize("t,prefix", CASES)
def test_atomic_integer_functions(run_kernel, t: str, prefix: str) -> None:
    dt = np.dtype(DTYPES[t])
    bits = dt.itemsize * 8
    rng = np.random.default_rng(2)
    info = np.iinfo(dt)
    V = rng.integers(max(info.min, -(1 << 40)), min(info.max, 1 << 40), GLOBAL, dtype=dt, endpoint=True)
    C = np.zeros(11, dt)
    C[3] = GLOBAL + 5
    C[4], C[5] = info.max, info.min
    C[6] = np.array(-1).astype(dt)
    old = np.zeros(2 * GLOBAL, dt)
    R = np.zeros(2 * (GLOBAL // LOCAL), dt)
    C, old, _, R = run_kernel(_kernel(t, prefix), "k", (GLOBAL,), (LOCAL,), C, old, V, R)
    wrap = lambda x: np.array(x % (1 << bits)).astype(np.uint64).astype(dt)  # noqa: E731
    total = int(V.astype(object).sum())
    assert sorted(old[:GLOBAL].tolist()) == list(range(GLOBAL)), "atomic_inc: each old value once"
    assert C[0] == GLOBAL
    assert C[1] == wrap(total) and C[2] == wrap(-total), "add/sub"
    assert C[3] == 5, "dec"
    assert C[4] == V.min() and C[5] == V.max(), "min/max"
    cleared = {i % 61 % bits for i in range(GLOBAL)}
    assert C[6] == wrap(sum(1 << b for b in range(bits) if b not in cleared)), "and"
    assert C[7] == wrap((1 << bits) - 1), "or"
    x = 0
    for v in V.astype(object).tolist():
        x ^= v
    assert C[8] == wrap(x), "xor"
    olds = sorted(old[GLOBAL:].tolist() + [int(C[9])])
    assert olds == [0] + list(range(GLOBAL)), "xchg: the old values and the final one are a permutation"
    assert C[10] == 2 * GLOBAL, "cmpxchg loop"
    groups = V.reshape(-1, LOCAL)
    assert R[0::2].tolist() == [LOCAL] * (GLOBAL // LOCAL), "local atomic_add"
    assert R[1::2].tolist() == groups.max(axis=1).tolist(), "local atomic_max"


def test_atomic_xchg_float(run_kernel) -> None:
    src = """
    __kernel void k(volatile __global float *F, __global float *old) {
        size_t i = get_global_id(0);
        old[i] = atomic_xchg(&F[0], (float)i + 0.5f);
        __local float L;
        if (get_local_id(0) == 0) L = -1.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        float o = atomic_xchg(&L, 2.0f);  // atom_xchg has no float overload: clang finds it ambiguous
        if (o != -1.0f && o != 2.0f) F[1] = o;
    }"""
    F = np.array([-0.5, 0.0], np.float32)
    old = np.zeros(GLOBAL, np.float32)
    F, old = run_kernel(src, "k", (GLOBAL,), (LOCAL,), F, old)
    values = sorted(old.tolist() + [float(F[0])])
    assert values == [i - 0.5 for i in range(GLOBAL + 1)]
    assert F[1] == 0.0
