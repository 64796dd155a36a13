"""OpenCL C miscellaneous vector functions: vec_step, shuffle and shuffle2
(mask elements taken modulo the source size) on integer and float vectors."""

from __future__ import annotations

import numpy as np
import pytest

from .elementwise import DTYPES

MASK = {1: "uchar", 2: "ushort", 4: "uint", 8: "ulong"}


def _kernel(t: str) -> str:
    size = np.dtype(DTYPES[t]).itemsize
    mt = MASK[size]
    lines = []
    k = 0
    for m in (2, 4, 8, 16):
        for n in (2, 4, 8, 16):
            lines.append(f"  vstore{n}(shuffle(vload{m}(0, A), vload{n}(0, M)), 0, O + {k * 16});")
            lines.append(f"  vstore{n}(shuffle2(vload{m}(0, A), vload{m}(0, B), vload{n}(0, M)), 0, P + {k * 16});")
            k += 1
    lines.append(f"  V[0] = vec_step({t}); V[1] = vec_step({t}2); V[2] = vec_step({t}3); V[3] = vec_step({t}16);")
    return ("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
            f"__kernel void s(__global const {t} *A, __global const {t} *B, __global const {mt} *M, "
            f"__global {t} *O, __global {t} *P, __global int *V) {{\n" + "\n".join(lines) + "\n}\n")


@pytest.mark.parametrize("t", ["char", "ushort", "int", "ulong", "float", "double"])
def test_shuffle(run_kernel, t: str) -> None:
    dt = DTYPES[t]
    mt = DTYPES[MASK[np.dtype(dt).itemsize]]
    A = (np.arange(16) + 1).astype(dt)
    B = (np.arange(16) + 101).astype(dt)
    M = np.array([3, 0, 17, 5, 9, 31, 2, 14, 255, 7, 1, 6, 12, 8, 16, 4], dtype=mt)
    O, P, V = np.zeros(256, dt), np.zeros(256, dt), np.zeros(4, np.int32)
    *_, O, P, V = run_kernel(_kernel(t), "s", (1,), None, A, B, M, O, P, V)
    k = 0
    for m in (2, 4, 8, 16):
        for n in (2, 4, 8, 16):
            idx = M[:n].astype(np.int64)
            assert O[k * 16:k * 16 + n].tolist() == A[idx % m].tolist(), f"shuffle {t}{m} -> {n}"
            both = np.concatenate([A[:m], B[:m]])
            assert P[k * 16:k * 16 + n].tolist() == both[idx % (2 * m)].tolist(), f"shuffle2 {t}{m} -> {n}"
            k += 1
    assert V.tolist() == [1, 2, 4, 16]
