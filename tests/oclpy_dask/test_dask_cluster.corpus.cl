
__kernel void slow_triple(__global float *out, __global const float *a, int n)
{
    int i = get_global_id(0);
    float v = a[i];
    for (int k = 0; k < n; k++) v = v * 0.5f + 1.0f;
    out[i] = 3.0f * a[i] + (v - 2.0f);
}
