"""Large structs by value, against NumPy: a 16 KB kernel argument, helpers that
take and return one (kept out of line and inlined), a nested struct with small
and large members, the conditional operator and a loop that carries one. The
cpu target passes them by pointer (`targets/llvm/emit_indirect.py`); the results
are the same bits NumPy computes in float32."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy as cl

FLOATS = 4096  # 16 KB

SOURCE = """
typedef struct { float w[4096]; } Big;
typedef struct { char tag; Big big; short s[3]; double d; } Outer;

__attribute__((noinline)) Big scaled(Big b, float k) {
  Big r;
  for (int i = 0; i < 4096; i++) r.w[i] = b.w[i] * k;
  return r;
}
__attribute__((noinline)) float pick(Big b, int i) { return b.w[i]; }
Big shifted(Big b, float k) { for (int i = 0; i < 4096; i++) b.w[i] += k; return b; }
__attribute__((noinline)) Outer wrap(Big b, char tag) { Outer o; o.tag = tag; o.big = b; o.s[2] = tag * 3; o.d = 0.25; return o; }

__kernel void k(__global float *out, __global double *outd, Big b, float k, int c, int n) {
  int g = get_global_id(0);
  Big two = scaled(b, k);
  Big moved = shifted(b, 1.0f);
  Big either = c ? two : moved;
  Big acc = b;
  for (int i = 0; i < n; i++) acc = shifted(acc, 0.5f);
  Outer o = wrap(two, (char)g);
  out[8 * g + 0] = pick(two, g);
  out[8 * g + 1] = pick(b, 4095 - g);
  out[8 * g + 2] = moved.w[g];
  out[8 * g + 3] = either.w[g + 1];
  out[8 * g + 4] = acc.w[g];
  out[8 * g + 5] = o.big.w[g + 2] + o.s[2];
  out[8 * g + 6] = b.w[4095];
  out[8 * g + 7] = o.tag;
  outd[g] = o.d;
}
"""


def test_a_16_kb_struct_by_value_matches_numpy(run_kernel) -> None:  # type: ignore[no-untyped-def]
    if run_kernel.ctx.devices[0].kind == "cuda":  # CUDA's kernel parameters hold 4 KB
        with pytest.raises(cl.RuntimeError, match="kernel 'k' takes 16416 bytes of arguments; a cuda kernel takes"):
            cl.Program(run_kernel.ctx, SOURCE).build()
        return
    dtype = np.dtype([("w", np.float32, (FLOATS,))])
    b = np.zeros((), dtype)
    w = ((np.arange(FLOATS, dtype=np.float32) * np.float32(0.37)) % np.float32(11.0)) - np.float32(3.0)
    b["w"] = w
    n_items, k, n = 32, np.float32(2.5), 3
    g = np.arange(n_items)
    for c in (1, 0):
        out, outd = run_kernel(SOURCE, "k", (n_items,), None, np.zeros(8 * n_items, np.float32),
                               np.zeros(n_items, np.float64), b[()], k, np.int32(c), np.int32(n))
        two, moved = w * k, w + np.float32(1.0)
        acc = w.copy()
        for _ in range(n):
            acc = acc + np.float32(0.5)
        want = np.stack([two[g], w[4095 - g], moved[g], (two if c else moved)[g + 1], acc[g],
                         two[g + 2] + np.float32(3) * g.astype(np.float32), np.full(n_items, w[4095]),
                         g.astype(np.float32)], axis=1)
        assert out.reshape(n_items, 8).tobytes() == want.astype(np.float32).tobytes()
        assert outd.tolist() == [0.25] * n_items
