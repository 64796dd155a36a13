#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void k(__global double *d, __global float *f) { d[0] = tgamma(d[0]); f[0] = lgamma(f[0]); }