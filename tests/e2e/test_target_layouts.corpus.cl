
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
