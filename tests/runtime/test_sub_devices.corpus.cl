
__kernel void spin(__global float *x, int n)
{
    int i = get_global_id(0);
    float v = x[i];
    for (int k = 0; k < n; k++) v = v * 0.5f + 1.0f;
    x[i] = v;
}
__kernel void axpy(__global const float *a, __global float *y, float k)
{ int i = get_global_id(0); y[i] += k * a[i]; }
