
__kernel void k(__global const float *a, __global float *root, __global int *iters) {
    int i = get_global_id(0);
    float x = a[i] > 1.0f ? a[i] : 1.0f, prev = 0.0f;
    int n = 0;
    for (; fabs(x - prev) > 1e-6f * x && n < 60; ++n) {
        prev = x;
        x = 0.5f * (x + a[i] / x);
    }
    root[i] = x;
    iters[i] = n;
}