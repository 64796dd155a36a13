#define WG 64
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void reduce_sum(__global const float *in, __global float *partial, __local float *scratch, int n)
{
    int gid = get_global_id(0), lid = get_local_id(0);
    __local float cache[WG];
    scratch[lid] = gid < n ? in[gid] : 0.0f;
    cache[lid] = scratch[lid];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int stride = get_local_size(0) / 2; stride > 0; stride >>= 1) {
        if (lid < stride)
            scratch[lid] += scratch[lid + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0] + cache[0] * 0;
}
