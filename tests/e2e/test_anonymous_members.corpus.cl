
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
