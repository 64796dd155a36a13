"""C11 anonymous struct and union members (PyOpenCL's complex header uses them):
their members are reached as members of the enclosing struct or union."""

from __future__ import annotations

import numpy as np

SOURCE = """
typedef union { struct { float x, y; }; struct { float real, imag; }; } cf;
typedef struct { int tag; union { int i; float f; struct { short lo, hi; }; }; } V;
__kernel void k(__global float *o, __global V *vs) {
  cf c; c.real = 1.5f; c.imag = 2.0f;
  cf *p = &c;
  cf d = {3.0f, 4.0f};
  o[0] = c.x + p->y;
  o[1] = d.imag;
  V v; v.tag = 3; v.i = 0x00020001;
  o[2] = v.lo + 10 * v.hi + 100 * v.tag;
  vs[0].f = 2.5f; vs[0].tag = 9;
  __global V *pv = vs + 1; pv->hi = 7; pv->lo = 5; pv->tag = sizeof(V);
}
"""


def test_anonymous_members(run_kernel):
    vs = np.zeros(2, dtype=[("tag", np.int32), ("u", np.int32)])
    o, vs = run_kernel(SOURCE, "k", (1,), None, np.zeros(3, np.float32), vs)
    assert o.tolist() == [3.5, 4.0, 321.0]
    assert vs["tag"].tolist() == [9, 8]
    assert vs["u"][0].view(np.float32) == 2.5 and vs["u"][1] == (7 << 16) | 5
