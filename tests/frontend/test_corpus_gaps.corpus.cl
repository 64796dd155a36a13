float __attribute__((overloadable)) atomic_add(volatile __global float *p, float val);
    kernel void k(global float *o) { o[1] = atomic_add(o, 1.0f); }