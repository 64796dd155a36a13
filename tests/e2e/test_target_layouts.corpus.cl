
kernel void k(global ulong *out) {
  private int *p = 0; local int *l = 0; global int *g = 0;
  out[0] = (ulong)p; out[1] = (ulong)l; out[2] = (ulong)g;
  union { private int *p; uint u; } up; up.p = 0; out[3] = up.u;
  union { local int *p; uint u; } ul; ul.p = 0; out[4] = ul.u;
  out[5] = p == 0; out[6] = l == 0;
}
