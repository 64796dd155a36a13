//日本語
__kernel void k(__global int *a) { a[0] = 1; }