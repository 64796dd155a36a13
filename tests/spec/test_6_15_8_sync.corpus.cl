
__kernel void reduce(__global const int *X, __global int *S, __global int *N, __global int *G) {
    __local int L[64];
    size_t l = get_local_id(0), n = get_local_size(0), i = get_global_id(0);
    L[l] = X[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = n / 2; s > 0; s >>= 1) {          /* barrier inside a loop */
        if (l < s) L[l] += L[l + s];
        work_group_barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0) S[get_group_id(0)] = L[0];
    /* neighbour exchange through global memory */
    G[i] = (int)(i * 3);
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    write_mem_fence(CLK_GLOBAL_MEM_FENCE);
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    read_mem_fence(CLK_GLOBAL_MEM_FENCE);
    size_t base = i - l;
    N[i] = G[base + (l + 1) % n];
}