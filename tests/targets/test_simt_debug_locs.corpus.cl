__kernel void k(__global int *out, __global const int *a, int n) {
    int i = get_global_id(0);
    if (i < n)
        out[i] = a[i] / n;
}
