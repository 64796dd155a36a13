int g(int);
__kernel void k(__global int *p) { p[0] = g(1); }