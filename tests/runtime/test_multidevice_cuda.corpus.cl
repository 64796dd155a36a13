
__kernel void scale(__global const float *a, __global float *b, float k)
{ int i = get_global_id(0); b[i] = k * a[i]; }
__kernel void bump(__global int *x) { x[get_global_id(0)] += 1; }
__kernel void matmul(__global const float *a, __global const float *b, __global float *c,
                     int n, int k)
{
    int col = get_global_id(0), row = get_global_id(1);
    float acc = 0.0f;
    for (int j = 0; j < k; j++) acc += a[row * k + j] * b[j * n + col];
    c[row * n + col] = acc;
}
