// Work-efficient exclusive prefix sum (Blelloch) of one block per work-group,
// with the block totals written out for a second level.
__kernel void scan_block(__global const int *in, __global int *out, __global int *block_sums,
                         __local int *temp)
{
    const int lid = get_local_id(0);
    const int n = get_local_size(0) * 2;
    const int base = get_group_id(0) * n;
    temp[2 * lid] = in[base + 2 * lid];
    temp[2 * lid + 1] = in[base + 2 * lid + 1];
    int offset = 1;
    for (int d = n >> 1; d > 0; d >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < d) {
            int ai = offset * (2 * lid + 1) - 1;
            int bi = offset * (2 * lid + 2) - 1;
            temp[bi] += temp[ai];
        }
        offset <<= 1;
    }
    if (lid == 0) {
        block_sums[get_group_id(0)] = temp[n - 1];
        temp[n - 1] = 0;
    }
    for (int d = 1; d < n; d <<= 1) {
        offset >>= 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < d) {
            int ai = offset * (2 * lid + 1) - 1;
            int bi = offset * (2 * lid + 2) - 1;
            int t = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += t;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    out[base + 2 * lid] = temp[2 * lid];
    out[base + 2 * lid + 1] = temp[2 * lid + 1];
}
