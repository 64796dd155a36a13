
kernel void k(global const float *a, global float *out, global float *strided, local float *tile) {
    event_t e = async_work_group_copy(tile, a + get_group_id(0) * 16, 16, 0);
    wait_group_events(1, &e);
    out[get_global_id(0)] = tile[15 - get_local_id(0)] * 2.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    event_t e2 = async_work_group_strided_copy(strided + get_group_id(0), tile, 16, 4, 0);
    wait_group_events(1, &e2);
    prefetch(a, 16);
}
