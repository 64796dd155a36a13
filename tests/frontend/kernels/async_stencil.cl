// 3-point stencil with the block and its halo staged in local memory by
// async_work_group_copy (the pattern of many vendor SDK samples).
__kernel void stencil3(__global const float *in, __global float *out, __local float *buf, const int n)
{
    const int lsize = get_local_size(0);
    const int start = get_group_id(0) * lsize;
    const int count = min(lsize + 2, n - start + 1);
    event_t ev = async_work_group_copy(buf, in + start, (size_t)count, 0);
    wait_group_events(1, &ev);
    const int lid = get_local_id(0);
    const int i = start + lid + 1;
    if (i < n - 1)
        out[i] = 0.25f * buf[lid] + 0.5f * buf[lid + 1] + 0.25f * buf[lid + 2];
}
