// Pieces of a 4-bit-digit radix sort: per-group digit counts with local atomics
// (the host scans them) and a stable scatter by one work-item per group.
#define RADIX 16
#define DIGIT(v, shift) (((v) >> (shift)) & (RADIX - 1))

__kernel void radix_count(__global const uint *keys, __global uint *counts, const uint shift, const uint per_group)
{
    __local uint local_counts[RADIX];
    uint lid = get_local_id(0);
    if (lid < RADIX)
        local_counts[lid] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint base = get_group_id(0) * per_group;
    for (uint i = lid; i < per_group; i += get_local_size(0))
        atomic_inc(&local_counts[DIGIT(keys[base + i], shift)]);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < RADIX)
        counts[lid * get_num_groups(0) + get_group_id(0)] = local_counts[lid];
}

__kernel void radix_scatter(__global const uint *keys, __global uint *out, __global const uint *offsets,
                            const uint shift, const uint per_group)
{
    if (get_local_id(0) != 0)
        return;
    uint next[RADIX];
    for (int d = 0; d < RADIX; d++)
        next[d] = offsets[d * get_num_groups(0) + get_group_id(0)];
    uint base = get_group_id(0) * per_group;
    for (uint i = 0; i < per_group; i++) {
        uint key = keys[base + i];
        out[next[DIGIT(key, shift)]++] = key;
    }
}
