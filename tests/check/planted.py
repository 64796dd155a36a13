"""The planted-bug suite: one small kernel per check and per address space, each with
the exact report the checker must give, and the same kernel fixed, with none.

`CASES` is data: a `Case` holds the buggy source, the fixed one, how to launch
(global and local size, arguments as `Arg`s) and the expected reports as
(kind, "line:col", message, first work-item, first group, count). The test
(`test_planted.py`) and the benchmark (`benchmarks/check.py`, against
Oclgrind) both run it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

Expected = tuple[str, str, str, tuple[int, int, int], tuple[int, int, int], int]


@dataclass(frozen=True)
class Arg:
    """A kernel argument: a buffer ('in', 'out': filled with `values`; None: 256 bytes never written),
    its flags ('rw', 'r', 'w'), or a scalar (`kind` 'scalar', `values` a NumPy scalar), or
    local memory (`kind` 'local', `values` the bytes)."""

    kind: str
    values: object = None
    mode: str = "rw"


@dataclass(frozen=True)
class Case:
    name: str
    check: str  # the family (check_session.CHECKS) the case plants a bug for
    source: str
    fixed: str
    global_size: tuple[int, ...]
    local_size: tuple[int, ...]
    args: tuple[Arg, ...]
    expected: tuple[Expected, ...]
    options: str = ""
    oclgrind: bool = True  # Oclgrind has a matching check
    notes: str = field(default="", compare=False)


def ints(n: int, start: int = 0) -> np.ndarray:
    return np.arange(start, start + n, dtype=np.int32)


GLOBAL_OOB = Case(
    "global-out-of-bounds", "memory",
    "__kernel void k(__global const int *a, __global int *out) {\n"
    "    int i = get_global_id(0);\n"
    "    out[i + 1] = a[i];\n"
    "}\n",
    "__kernel void k(__global const int *a, __global int *out) {\n"
    "    int i = get_global_id(0);\n"
    "    if (i + 1 < get_global_size(0)) out[i + 1] = a[i];\n"
    "}\n",
    (64,), (32,), (Arg("in", ints(64)), Arg("out", ints(64))),
    (("out-of-bounds", "3:16", "out-of-bounds write to __global buffer 'out' (argument 1): offset 256, size 256",
      (63, 0, 0), (1, 0, 0), 1),))

GLOBAL_NEGATIVE = Case(
    "global-before-start", "memory",
    "__kernel void k(__global const int *a, __global int *out) {\n"
    "    int i = get_global_id(0);\n"
    "    out[i] = a[i - 1];\n"
    "}\n",
    "__kernel void k(__global const int *a, __global int *out) {\n"
    "    int i = get_global_id(0);\n"
    "    out[i] = i > 0 ? a[i - 1] : 0;\n"
    "}\n",
    (64,), (32,), (Arg("in", ints(64)), Arg("out", ints(64))),
    (("out-of-bounds", "3:15", "out-of-bounds read from __global buffer 'a' (argument 0): offset -4, size 256",
      (0, 0, 0), (0, 0, 0), 1),))

CONSTANT_OOB = Case(
    "constant-out-of-bounds", "memory",
    "__kernel void k(__constant int *c, __global int *out) {\n"
    "    int i = get_global_id(0);\n"
    "    out[i] = c[i * 2];\n"
    "}\n",
    "__kernel void k(__constant int *c, __global int *out) {\n"
    "    int i = get_global_id(0);\n"
    "    out[i] = c[i];\n"
    "}\n",
    (64,), (32,), (Arg("in", ints(64), "r"), Arg("out", ints(64))),
    (("out-of-bounds", "3:15", "out-of-bounds read from __constant buffer 'c' (argument 0): offset 256, size 256",
      (32, 0, 0), (1, 0, 0), 32),))

LOCAL_OOB = Case(
    "local-out-of-bounds", "memory",
    "__kernel void k(__global int *out) {\n"
    "    __local int t[32];\n"
    "    int l = get_local_id(0);\n"
    "    t[l] = l;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    out[get_global_id(0)] = t[l + 1];\n"
    "}\n",
    "__kernel void k(__global int *out) {\n"
    "    __local int t[32];\n"
    "    int l = get_local_id(0);\n"
    "    t[l] = l;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    out[get_global_id(0)] = t[(l + 1) % 32];\n"
    "}\n",
    (64,), (32,), (Arg("out", ints(64)),),
    (("out-of-bounds", "6:30",
      "out-of-bounds 4-byte read from __local memory: offset 128, the work-group's size 128",
      (31, 0, 0), (0, 0, 0), 2),))

PRIVATE_OOB = Case(
    "private-out-of-bounds", "memory",
    "__kernel void k(__global const int *idx, __global int *out) {\n"
    "    int p[8];\n"
    "    for (int j = 0; j < 8; j++) p[j] = j * idx[j];\n"
    "    out[get_global_id(0)] = p[idx[get_global_id(0)]];\n"
    "}\n",
    "__kernel void k(__global const int *idx, __global int *out) {\n"
    "    int p[8];\n"
    "    for (int j = 0; j < 8; j++) p[j] = j * idx[j];\n"
    "    out[get_global_id(0)] = p[idx[get_global_id(0)] & 7];\n"
    "}\n",
    (32,), (32,), (Arg("in", np.where(np.arange(32) == 5, 1 << 20, np.arange(32) % 8).astype(np.int32)),
                   Arg("out", ints(32))),
    (("out-of-bounds", "4:30",
      "out-of-bounds 4-byte read from __private memory: offset 4194304, the work-item's size 32",
      (5, 0, 0), (0, 0, 0), 1),))

WRITE_READ_ONLY = Case(
    "write-to-read-only", "memory",
    "__kernel void k(__global int *a, __global int *out) {\n"
    "    int i = get_global_id(0);\n"
    "    a[i] = out[i];\n"
    "}\n",
    "__kernel void k(__global int *a, __global int *out) {\n"
    "    int i = get_global_id(0);\n"
    "    out[i] = a[i];\n"
    "}\n",
    (64,), (32,), (Arg("in", ints(64), "r"), Arg("out", ints(64))),
    (("access-mode", "3:10", "write to read-only __global buffer 'a' (argument 0)", (0, 0, 0), (0, 0, 0), 64),))

READ_WRITE_ONLY = Case(
    "read-of-write-only", "memory",
    "__kernel void k(__global const int *a, __global int *out) {\n"
    "    int i = get_global_id(0);\n"
    "    out[i] = out[i] + a[i];\n"
    "}\n",
    "__kernel void k(__global const int *a, __global int *out) {\n"
    "    int i = get_global_id(0);\n"
    "    out[i] = a[i];\n"
    "}\n",
    (64,), (32,), (Arg("in", ints(64)), Arg("out", None, "w")),
    (("access-mode", "3:17", "read of write-only __global buffer 'out' (argument 1)", (0, 0, 0), (0, 0, 0), 64),))

DIVISION = Case(
    "division-by-zero", "division",
    "__kernel void k(__global const int *a, __global int *out) {\n"
    "    int i = get_global_id(0);\n"
    "    out[i] = 1000 / a[i];\n"
    "}\n",
    "__kernel void k(__global const int *a, __global int *out) {\n"
    "    int i = get_global_id(0);\n"
    "    out[i] = a[i] ? 1000 / a[i] : 0;\n"
    "}\n",
    (64,), (32,), (Arg("in", ints(64)), Arg("out", ints(64))),
    (("division-by-zero", "3:19", "integer division by zero", (0, 0, 0), (0, 0, 0), 1),), oclgrind=False,
    notes="Oclgrind 21.10 prints nothing for an integer division by zero")

CAST = Case(
    "generic-cast", "casts",
    "__kernel void k(__global int *out) {\n"
    "    __local int t[64];\n"
    "    int x = get_local_id(0);\n"
    "    generic int *p = (x & 1) ? (generic int *)&t[x] : (generic int *)&x;\n"
    "    local int *q = (local int *)p;\n"
    "    out[get_global_id(0)] = q != 0;\n"
    "}\n",
    "__kernel void k(__global int *out) {\n"
    "    __local int t[64];\n"
    "    int x = get_local_id(0);\n"
    "    generic int *p = (x & 1) ? (generic int *)&t[x] : (generic int *)&x;\n"
    "    local int *q = to_local(p);\n"
    "    out[get_global_id(0)] = q != 0;\n"
    "}\n",
    (64,), (32,), (Arg("out", ints(64)),),
    (("invalid-cast", "5:20", "invalid cast of a generic pointer to __local: it points into __private memory",
      (0, 0, 0), (0, 0, 0), 32),), options="-cl-std=CL2.0", oclgrind=False)

BARRIER_IN_WAVE = Case(
    "barrier-divergence-in-a-wave", "barriers",
    "__kernel void k(__global int *out) {\n"
    "    int l = get_local_id(0);\n"
    "    if (l < 16) barrier(CLK_GLOBAL_MEM_FENCE);\n"
    "    out[get_global_id(0)] = l;\n"
    "}\n",
    "__kernel void k(__global int *out) {\n"
    "    int l = get_local_id(0);\n"
    "    barrier(CLK_GLOBAL_MEM_FENCE);\n"
    "    out[get_global_id(0)] = l;\n"
    "}\n",
    (32,), (32,), (Arg("out", ints(32)),),
    (("barrier-divergence", "3:17",
      "barrier divergence: 16 of the 32 work-items of work-group (0,0,0) reach this barrier; "
      "the others took another path", (0, 0, 0), (0, 0, 0), 16),))

BARRIER_WAVES = Case(
    "barrier-divergence-between-waves", "barriers",
    "__kernel void k(__global int *out) {\n"
    "    int l = get_local_id(0);\n"
    "    if (l < 32) barrier(CLK_GLOBAL_MEM_FENCE);\n"
    "    out[get_global_id(0)] = l;\n"
    "}\n",
    "__kernel void k(__global int *out) {\n"
    "    int l = get_local_id(0);\n"
    "    barrier(CLK_GLOBAL_MEM_FENCE);\n"
    "    out[get_global_id(0)] = l;\n"
    "}\n",
    (64,), (64,), (Arg("out", ints(64)),),
    (("barrier-divergence", "3:17",
      "barrier divergence: 32 of the 64 work-items of work-group (0,0,0) reach this barrier; "
      "the others took another path", (0, 0, 0), (0, 0, 0), 32),))

LOCAL_RACE = Case(
    "local-race", "races",
    "__kernel void k(__global int *out) {\n"
    "    __local int t[64];\n"
    "    int l = get_local_id(0);\n"
    "    t[l] = l;\n"
    "    out[get_global_id(0)] = t[63 - l];\n"
    "}\n",
    "__kernel void k(__global int *out) {\n"
    "    __local int t[64];\n"
    "    int l = get_local_id(0);\n"
    "    t[l] = l;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    out[get_global_id(0)] = t[63 - l];\n"
    "}\n",
    (128,), (64,), (Arg("out", ints(128)),),
    (("data-race", "5:30",
      "data race on __local memory: this read and a write by work-item (63,0,0) are not ordered by a barrier",
      (0, 0, 0), (0, 0, 0), 128),))

GLOBAL_RACE = Case(
    "global-race-across-groups", "races",
    "__kernel void k(__global int *out) {\n"
    "    out[get_global_id(0) % 32] += 1;\n"
    "}\n",
    "__kernel void k(__global int *out) {\n"
    "    atomic_add(&out[get_global_id(0) % 32], 1);\n"
    "}\n",
    (64,), (32,), (Arg("out", ints(32)),),
    (("data-race", "2:32",
      "data race on __global memory: this write and a read by several work-items are not ordered by a barrier",
      (0, 0, 0), (0, 0, 0), 64),))

GLOBAL_RACE_IN_GROUP = Case(
    "global-race-in-a-group", "races",
    "__kernel void k(__global int *out) {\n"
    "    int l = get_local_id(0);\n"
    "    out[l] = l;\n"
    "    out[64 + l] = out[63 - l];\n"
    "}\n",
    "__kernel void k(__global int *out) {\n"
    "    int l = get_local_id(0);\n"
    "    out[l] = l;\n"
    "    barrier(CLK_GLOBAL_MEM_FENCE);\n"
    "    out[64 + l] = out[63 - l];\n"
    "}\n",
    (64,), (64,), (Arg("out", ints(128)),),
    (("data-race", "4:22",
      "data race on __global memory: this read and a write by work-item (63,0,0) are not ordered by a barrier",
      (0, 0, 0), (0, 0, 0), 64),))

UNINIT_GLOBAL = Case(
    "uninitialised-global-buffer", "uninitialized",
    "__kernel void k(__global const int *a, __global int *out) {\n"
    "    int i = get_global_id(0);\n"
    "    out[i] = a[i] + 1;\n"
    "}\n",
    "__kernel void k(__global const int *a, __global int *out) {\n"
    "    int i = get_global_id(0);\n"
    "    out[i] = i + 1;\n"
    "}\n",
    (64,), (32,), (Arg("in", None), Arg("out", ints(64))),
    (("uninitialized", "3:12", "store of an uninitialised value to __global memory", (0, 0, 0), (0, 0, 0), 64),))

UNINIT_LOCAL = Case(
    "uninitialised-local-address", "uninitialized",
    "__kernel void k(__global const int *a, __global int *out) {\n"
    "    __local int idx[64];\n"
    "    int l = get_local_id(0);\n"
    "    if (l < 32) idx[l] = l;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    out[get_global_id(0)] = a[idx[l]];\n"
    "}\n",
    "__kernel void k(__global const int *a, __global int *out) {\n"
    "    __local int idx[64];\n"
    "    int l = get_local_id(0);\n"
    "    idx[l] = l;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    out[get_global_id(0)] = a[idx[l]];\n"
    "}\n",
    (64,), (64,), (Arg("in", ints(64)), Arg("out", ints(64))),
    (("uninitialized", "6:30", "uninitialised value used as an address", (32, 0, 0), (0, 0, 0), 32),))

UNINIT_PRIVATE = Case(
    "uninitialised-private-branch", "uninitialized",
    "__kernel void k(__global const int *a, __global int *out) {\n"
    "    int i = get_global_id(0);\n"
    "    int p[4];\n"
    "    for (int j = 0; j < 3; j++) p[j] = a[j];\n"
    "    if (p[i & 3] > 10) out[i] = 1;\n"
    "}\n",
    "__kernel void k(__global const int *a, __global int *out) {\n"
    "    int i = get_global_id(0);\n"
    "    int p[4];\n"
    "    for (int j = 0; j < 4; j++) p[j] = a[j];\n"
    "    if (p[i & 3] > 10) out[i] = 1;\n"
    "}\n",
    (64,), (32,), (Arg("in", ints(64)), Arg("out", ints(64))),
    (("uninitialized", "5:5", "branch on an uninitialised value", (0, 0, 0), (0, 0, 0), 64),))

CASES = (GLOBAL_OOB, GLOBAL_NEGATIVE, CONSTANT_OOB, LOCAL_OOB, PRIVATE_OOB, WRITE_READ_ONLY, READ_WRITE_ONLY,
         DIVISION, CAST, BARRIER_IN_WAVE, BARRIER_WAVES, LOCAL_RACE, GLOBAL_RACE, GLOBAL_RACE_IN_GROUP,
         UNINIT_GLOBAL, UNINIT_LOCAL, UNINIT_PRIVATE)
