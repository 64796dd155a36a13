kernel void k(global float *o) {
  const int c = 1;
  c = 2;
}