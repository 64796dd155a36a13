// Sum reduction reading float4 with vload4, a tree in local memory and one
// partial sum per work-group.
__kernel void reduce_sum4(__global const float *in, __global float *partial, __local float *scratch, const uint n4)
{
    uint gid = get_global_id(0);
    uint lid = get_local_id(0);
    float4 acc = (float4)(0.0f);
    for (uint i = gid; i < n4; i += get_global_size(0))
        acc += vload4(i, in);
    scratch[lid] = acc.x + acc.y + acc.z + acc.w;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}
