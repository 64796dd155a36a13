
__kernel void w(__global ulong *O) {
    size_t lin = get_global_linear_id();
    __global ulong *o = O + lin * 32;
    o[0] = get_work_dim();
    for (uint d = 0; d < 4; ++d) {
        o[1 + d * 7] = get_global_id(d);
        o[2 + d * 7] = get_local_id(d);
        o[3 + d * 7] = get_group_id(d);
        o[4 + d * 7] = get_global_size(d);
        o[5 + d * 7] = get_local_size(d);
        o[6 + d * 7] = get_num_groups(d);
        o[7 + d * 7] = get_global_offset(d);
    }
    o[29] = get_local_linear_id();
    o[30] = get_enqueued_local_size(0);
    o[31] = lin;
}