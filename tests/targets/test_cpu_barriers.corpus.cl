
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef struct { int a; float b; } Pair;
__kernel void k(__global const int *x, __global float *out, __local int *scratch) {
    int l = get_local_linear_id(), g = get_global_linear_id();
    int arr[5];
    for (int i = 0; i < 5; ++i) arr[i] = x[g] * (i + 1);
    Pair p = {x[g] + 1, 0.5f * (float)x[g]};
    float4 v = (float4)((float)l, 1.0f, (float)x[g], -2.0f);
    bool odd = (x[g] & 1) != 0;
    double d = (double)x[g] / 3.0;
    scratch[l] = x[g];
    barrier(CLK_LOCAL_MEM_FENCE);
    int n = (int)(get_local_size(0) * get_local_size(1) * get_local_size(2));
    int other = scratch[(l + 1) % n];
    barrier(CLK_LOCAL_MEM_FENCE);
    scratch[l] = other;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[g] = (float)(arr[(other & 3) + 1] + p.a) + p.b + v.x + v.z + v.w
             + (odd ? 100.0f : 0.0f) + (float)d + (float)scratch[l];
}
