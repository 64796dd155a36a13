
__kernel void m(__global float *a, __global double *d) {
  size_t i = get_global_id(0);
  a[i] = sin(a[i]) + exp(a[i]) + pow(a[i], 2.5f) + rsqrt(a[i]) + asinpi(a[i]);
  d[i] = cos(d[i]) + log1p(d[i]) + rootn(d[i], 3);
}
