kernel void k(global float *o) {
  o[0] = tgamma(5);
}