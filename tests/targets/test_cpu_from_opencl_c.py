"""OpenCL C through the whole compiler (frontend, passes, cpu target) at -O0 and -O2:
local memory (static and argument), barriers in a loop, private arrays across
barriers, by-value structs with float3, __constant tables, helpers, float3 in
global memory and atomics."""

from __future__ import annotations

import numpy as np
import pytest

from tools.cpu_harness import run
from oclpy.compiler import compile_program, host_target

SOURCE = r"""
typedef struct { int n; float3 v; double d; } S;
__constant float lut[4] = {1, 2, 3, 4};

float helper(float x) { return sinpi(x) + lut[get_global_id(0) & 3]; }

__kernel void red(__global const float *in, __global float *out, __local float *scratch, S s) {
  __local float tile[64];
  int lid = get_local_id(0);
  float priv[3] = {1, 2, 3};
  scratch[lid] = in[get_global_id(0)];
  tile[lid] = priv[lid % 3];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int st = get_local_size(0) / 2; st > 0; st >>= 1) {
    if (lid < st) { scratch[lid] += scratch[lid + st]; tile[lid] += tile[lid + st]; }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0)
    out[get_group_id(0)] = scratch[0] + s.v.y * s.n + (float)s.d
                         + helper(0.5f) - lut[get_global_id(0) & 3] + priv[2] - 3 + tile[0] * 0;
}

__kernel void v3(__global float3 *a, __global int *cnt) {
  size_t i = get_global_id(0);
  a[i] = a[i] * 2.0f + (float3)(1, 2, 3);
  atomic_inc(cnt);
}
"""

S_DTYPE = np.dtype({"names": ["n", "v", "d"], "formats": ["i4", ("f4", 4), "f8"],
                    "offsets": [0, 16, 32], "itemsize": 48})


@pytest.mark.parametrize("level", [0, 2])
def test_reduction_with_struct_argument(level: int) -> None:
    k = compile_program(SOURCE, target=host_target().with_opt_level(level)).program.kernels["red"]
    assert [(a.name, a.kind, a.size, a.offset) for a in k.args] == [
        ("in", "global", 8, 0), ("out", "global", 8, 8), ("scratch", "local", 8, 16),
        ("s", "scalar", 48, 32)]
    assert k.frame_size > 0 and k.static_local_bytes == 256
    n = 256
    a = np.random.rand(n).astype(np.float32)
    out = np.zeros(n // 64, np.float32)
    s = np.zeros(1, S_DTYPE)
    s[0] = (2, (0, 0.5, 0, 0), 0.25)
    run(k, [a, out, 64 * 4, s.tobytes()], (n,), (64,))
    # + 0.5*2 (s.v.y * s.n) + 0.25 (s.d) + 1 (sinpi(0.5)) - 0 (lut cancels, priv[2] - 3)
    np.testing.assert_allclose(out, a.reshape(-1, 64).sum(axis=1) + 2.25, rtol=1e-5)


@pytest.mark.parametrize("level", [0, 2])
def test_float3_in_global_memory_and_atomics(level: int) -> None:
    k = compile_program(SOURCE, target=host_target().with_opt_level(level)).program.kernels["v3"]
    x = np.arange(32 * 4, dtype=np.float32).reshape(32, 4)
    x0 = x.copy()
    cnt = np.zeros(1, np.int32)
    run(k, [x, cnt], (32,), (8,))
    np.testing.assert_array_equal(x[:, :3], x0[:, :3] * 2 + [1, 2, 3])
    np.testing.assert_array_equal(x[:, 3], x0[:, 3])
    assert cnt[0] == 32
