__kernel void k(__global const int *a, __global int *out) {
    int i = get_global_id(0);
    int p[4];
    for (int j = 0; j < 4; j++) p[j] = a[j];
    if (p[i & 3] > 10) out[i] = 1;
}
