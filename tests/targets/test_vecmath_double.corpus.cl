#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void z(__global double *o) { double4 m = (double4)(-0.0, 0.0, -0.0, 1e30); vstore4(sin(m), 0, o); vstore4(tan(m), 1, o); vstore4(cos(m), 2, o); }