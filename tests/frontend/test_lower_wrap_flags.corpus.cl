__kernel void k(__global int *o, __global uint *u, __global float *f, int a, uint b) {
    o[0] = a * 3 + a - 1;
    u[0] = b * 3u + b - 1u;
    f[0] = (float)a * 2.0f;
}