kernel void k(global float *o, global half *h, global double *d) {
  __builtin_store_halff(o[0], h);
  __builtin_store_half(d[0], h + 1);
  o[1] = __builtin_load_halff(h);
  d[1] = __builtin_load_half(h + 1);
  __builtin_store_halff(2.5f, h + 2);
  o[2] = __builtin_load_halff(h + 2);
}