
__kernel void k(__global const float *X, __global float4 *V, __global float *Y, __global float *T,
                __global float *Z) {
    __local float L[64];
    __local float4 L4[16];
    __local float S[16];
    size_t l = get_local_id(0), g = get_group_id(0);
    event_t e1 = async_work_group_copy(L, X + g * 64, 64, 0);
    event_t e2 = async_work_group_copy(L4, V + g * 16, 16, 0);
    event_t e3 = async_work_group_strided_copy(S, X + g * 64, 16, 4, 0);   /* gather every 4th */
    prefetch(X + g * 64, 64);
    event_t evs[3] = {e1, e2, e3};
    wait_group_events(3, evs);
    L[l] = L[l] * 2.0f;
    L4[l] = L4[l] + (float4)(1.0f);
    S[l] = -S[l];
    barrier(CLK_LOCAL_MEM_FENCE);
    event_t o1 = async_work_group_copy(Y + g * 64, L, 64, 0);
    event_t o2 = async_work_group_copy(V + g * 16, L4, 16, 0);
    event_t o3 = async_work_group_strided_copy(T + g * 64, S, 16, 4, 0);  /* scatter every 4th */
    wait_group_events(1, &o1);
    wait_group_events(1, &o2);
    wait_group_events(1, &o3);
    Z[get_global_id(0)] = L[(l + 1) % 16];
}