__kernel void k(__global const int *a, __global const uint *b, __global int *out) {
    int i = get_global_id(0);
    out[i] = a[i] / (b[i] == 0 ? 1 : (int)b[i]) + a[i] % (b[i] == 0 ? 1u : b[i]);
}
