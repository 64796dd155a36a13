__kernel void k(__global int *o) { o[0] = 1; }
