__kernel void twice(__global int *x) { x[get_global_id(0)] = 666; }
