__kernel void entry(__global int *r) { int i; for (; i < 7; i++) r[i] = 0; }
